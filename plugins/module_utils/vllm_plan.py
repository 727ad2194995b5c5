# -*- coding: utf-8 -*-
"""Pick (Python, CUDA variant, torch, vLLM) for a host, or refuse with the reason and a way out.

Pure Python (stdlib; PyYAML only to read the table file): used by the Ansible modules as
``ansible.module_utils.vllm_plan``, by ``scripts/plan`` and ``scripts/check-compat-metadata``,
and by the unit tests. The data lives in ``data/vllm_compat.yml``.

``plan(host, table, pins)``::

    host = {"arch": "x86_64", "python_version": "3.11", "python_available": ["3.11"],
            "gpu": <vllm_gpu.parse_nvidia_smi(...)> or None, "wsl": False}
    pins = {"backend": "auto"|"cuda"|"cpu", "vllm_version": None|"0.33.0",
            "python_version": None|"3.12", "cuda_variant": None|"cu129"}

returns a JSON-serialisable dict, or raises ``PlanError`` (``.reason``, ``.way_out``).
``validate_pins(pins, table)`` checks the user's pins alone, before anything changes on a host.
"""

from __future__ import absolute_import, division, print_function

import re

__metaclass__ = type


def version_tuple(text):
    """'570.211.01' -> (570, 211, 1); None or junk -> None (same rule as vllm_gpu)."""
    if text is None:
        return None
    m = re.match(r"^\s*(\d+(?:\.\d+)*)", str(text))
    if not m:
        return None
    return tuple(int(p) for p in m.group(1).split("."))


def effective_cuda(gpu_facts, table, windows=False):
    """(cuda, reason): the newest CUDA the driver supports, from the nvidia-smi facts.

    The header's value when shown; else the parser's value derived from NVIDIA's driver table
    (vllm_gpu.cuda_from_driver); else this table's cuda_driver_minimums. Self-contained so the
    module needs no other module_utils file.
    """
    if not gpu_facts:
        return None, "no nvidia-smi facts"
    if gpu_facts.get("cuda_version"):
        return gpu_facts["cuda_version"], "nvidia-smi header"
    driver = gpu_facts.get("driver_version")
    derived = gpu_facts.get("cuda_version_from_driver")
    parser_windows = gpu_facts.get("driver_platform") == "windows" or bool(gpu_facts.get("wsl_suspected"))
    if derived and parser_windows == bool(windows):
        return derived, "derived from driver %s with NVIDIA's %s driver table" % (
            driver, "Windows" if windows else "Linux")
    drv = version_tuple(driver)
    if drv is not None:
        best = None
        for cuda, mins in (table.get("cuda_driver_minimums") or {}).items():
            if drv >= version_tuple(mins["windows" if windows else "linux"]) and (
                    best is None or version_tuple(cuda) > version_tuple(best)):
                best = cuda
        if best:
            return best, "derived from driver %s with the table's %s driver minimums" % (
                driver, "Windows" if windows else "Linux")
        if derived:
            return derived, "derived from driver %s with NVIDIA's driver table" % driver
    return None, "neither the header nor the driver number tells the CUDA version"

BACKENDS = ("auto", "cuda", "cpu")
VAR = {
    "backend": "vllm_install_backend",
    "vllm_version": "vllm_install_version",
    "python_version": "vllm_python_version",
    "cuda_variant": "vllm_install_cuda_variant",
}
PYPI = "https://pypi.org/simple"


class PlanError(Exception):
    """A refusal: ``reason`` says what does not fit, ``way_out`` what the user can do."""

    def __init__(self, reason, way_out=None):
        self.reason = reason
        self.way_out = way_out
        Exception.__init__(self, "%s: %s" % (reason, way_out) if way_out else reason)


# --------------------------------------------------------------------------- table

def load_table(path):
    """Read data/vllm_compat.yml (YAML; a JSON file works too)."""
    with open(path) as handle:
        text = handle.read()
    try:
        import yaml
    except ImportError:  # pragma: no cover - PyYAML is optional
        import json
        try:
            data = json.loads(text)
        except ValueError:
            raise PlanError("cannot read %s" % path, "install PyYAML (python3-yaml) to read the YAML table")
    else:
        data = yaml.safe_load(text)
    if not isinstance(data, dict) or "backends" not in data:
        raise PlanError("%s is not a compatibility table (no 'backends')" % path)
    for name, backend in data["backends"].items():
        if backend.get("default") not in backend.get("releases", {}):
            raise PlanError("%s: backend %s: default %r is not one of its releases"
                            % (path, name, backend.get("default")))
    return data


def _releases(table, backend):
    return table["backends"][backend]["releases"]


def _sorted_versions(versions):
    return sorted(versions, key=lambda v: version_tuple(v) or (0,), reverse=True)


def _resolve_version(table, backend, wanted):
    """'0.33' -> '0.33.0' (newest with that prefix); exact versions as they are; None if absent."""
    releases = _releases(table, backend)
    if wanted in releases:
        return wanted
    matches = [v for v in releases if v.startswith(str(wanted) + ".")]
    return _sorted_versions(matches)[0] if matches else None


# --------------------------------------------------------------------------- specifiers

def _cmp(a, b):
    n = max(len(a), len(b))
    a = a + (0,) * (n - len(a))
    b = b + (0,) * (n - len(b))
    return (a > b) - (a < b)


def specifier_contains(spec, version):
    """Does a PEP 440 specifier set like '>=3.11,<3.15' contain '3.12'? (release segments only)"""
    ver = version_tuple(version)
    if ver is None:
        return False
    for clause in [c.strip() for c in (spec or "").split(",") if c.strip()]:
        m = re.match(r"^(~=|==|!=|<=|>=|<|>)\s*([\d.]+)(\.\*)?$", clause)
        if not m:
            return False
        op, target, star = m.group(1), version_tuple(m.group(2)), m.group(3)
        if star:
            hit = ver[:len(target)] == target
            if (op == "==") != hit:
                return False
            continue
        c = _cmp(ver, target)
        ok = {"==": c == 0, "!=": c != 0, "<=": c <= 0, ">=": c >= 0, "<": c < 0, ">": c > 0,
              "~=": c >= 0 and ver[:len(target) - 1] == target[:-1]}[op]
        if not ok:
            return False
    return True


def normalize_specifier(spec):
    return ",".join(sorted(c.strip().replace(" ", "") for c in (spec or "").split(",") if c.strip()))


# --------------------------------------------------------------------------- pins

def validate_pins(pins, table):
    """Errors in the user's pins alone (empty list: fine). Each names variable, value, accepted."""
    pins = pins or {}
    errors = []
    backend = pins.get("backend") or "auto"
    if backend not in BACKENDS:
        errors.append("%s: %r is not one of %s" % (VAR["backend"], backend, ", ".join(BACKENDS)))
        return errors
    candidates = ["cuda", "cpu"] if backend == "auto" else [backend]
    version = pins.get("vllm_version")
    resolved = {}
    if version not in (None, ""):
        for b in candidates:
            r = _resolve_version(table, b, str(version))
            if r:
                resolved[b] = r
        if not resolved:
            accepted = []
            for b in candidates:
                accepted += ["%s %s" % (table["backends"][b]["package"], v)
                             for v in _sorted_versions(_releases(table, b))]
            errors.append("%s: %r is not in the compatibility table for backend %s; accepted: %s"
                          % (VAR["vllm_version"], version, backend, ", ".join(accepted)))
    python = pins.get("python_version")
    if python not in (None, ""):
        if not re.match(r"^3\.\d+$", str(python)):
            errors.append("%s: %r is not a Python version like 3.12" % (VAR["python_version"], python))
        else:
            scope = resolved or dict((b, table["backends"][b]["default"]) for b in candidates)
            supported = set()
            for b, v in scope.items():
                supported.update(_releases(table, b)[v]["python"])
            if str(python) not in supported:
                what = ", ".join("%s %s (Python %s)" % (table["backends"][b]["package"], v,
                                                       _releases(table, b)[v]["requires_python"])
                                 for b, v in sorted(scope.items()))
                errors.append("%s: %s is not supported by %s; accepted: %s"
                              % (VAR["python_version"], python, what,
                                 ", ".join(sorted(supported, key=version_tuple))))
    variant = pins.get("cuda_variant")
    if variant not in (None, ""):
        if backend == "cpu":
            errors.append("%s: %r is set but %s is cpu; leave it empty"
                          % (VAR["cuda_variant"], variant, VAR["backend"]))
        else:
            versions = [resolved["cuda"]] if "cuda" in resolved else list(_releases(table, "cuda"))
            known = set()
            for v in versions:
                known.update(_releases(table, "cuda")[v]["variants"])
            if variant not in known:
                errors.append("%s: %r is not a CUDA variant of %s; accepted: %s"
                              % (VAR["cuda_variant"], variant,
                                 "vLLM " + versions[0] if len(versions) == 1 else "any vLLM in the table",
                                 ", ".join(sorted(known))))
    return errors


# --------------------------------------------------------------------------- choices

def _choose_python(host, release, pinned, reasons, package, version):
    supported = list(release["python"])
    spec = release["requires_python"]
    available = [p for p in (host.get("python_available") or []) if p]
    own = host.get("python_version")
    if pinned:
        if pinned not in supported:
            raise PlanError(
                "%s %s needs Python %s; %s is %s" % (package, version, spec, VAR["python_version"], pinned),
                "set %s to one of %s" % (VAR["python_version"], ", ".join(supported)))
        source = "system" if pinned == own or pinned in available else "install"
        reasons.append("Python %s: pinned by %s (%s)" % (
            pinned, VAR["python_version"], "present on the host" if source == "system" else "to be installed"))
        return pinned, source
    if own in supported:
        reasons.append("Python %s: the host's python3, within %s %s's Requires-Python %s"
                       % (own, package, version, spec))
        return own, "system"
    present = [p for p in available if p in supported]
    newest = sorted(supported, key=version_tuple)[-1]
    if present:
        choice = sorted(present, key=version_tuple)[-1]
        reasons.append("Python %s: the host's python3 (%s) is outside %s %s's Requires-Python %s; "
                       "python%s is already installed" % (choice, own, package, version, spec, choice))
        return choice, "system"
    reasons.append("Python %s: the host's python3 (%s) is outside %s %s's Requires-Python %s; "
                   "the newest supported Python will be installed" % (newest, own, package, version, spec))
    return newest, "install"


def _check_arch(host, release, package, version):
    arch = host.get("arch") or "x86_64"
    if arch not in release["platforms"]:
        raise PlanError("%s %s has no wheel for %s (only %s)" % (
            package, version, arch, ", ".join(sorted(release["platforms"]))),
            "use an x86_64 or aarch64 host")
    return release["platforms"][arch]


def _driver_hint(table, cuda, windows):
    mins = table.get("cuda_driver_minimums", {}).get(cuda)
    if not mins:
        return "a driver that supports CUDA %s" % cuda
    number = mins["windows" if windows else "linux"]
    if re.match(r"^\d+\.00$", number):
        return "R%s or newer" % number.split(".")[0]
    return "%s or newer" % number


def _fits(cuda_have, cuda_need):
    return version_tuple(cuda_have) >= version_tuple(cuda_need)


def _older_release_for(table, cuda_have, python_ok):
    """Newest CUDA release with a variant the driver can run (None if there is none)."""
    for version in _sorted_versions(_releases(table, "cuda")):
        release = _releases(table, "cuda")[version]
        if any(_fits(cuda_have, v["cuda"]) for v in release["variants"].values()):
            return version
    return None


def _gpu_label(gpu):
    return "GPU %s (%s)" % (gpu.get("index"), gpu.get("name") or "unknown name")


def _release_id(package, version, python, variant):
    raw = "%s-%s-py%s-%s" % (package, version, python, variant or "cpu")
    return re.sub(r"[^A-Za-z0-9._-]", "_", raw)


def _plan_cpu(host, table, pins, reasons):
    backend = table["backends"]["cpu"]
    package = backend["package"]
    version = _resolve_version(table, "cpu", pins.get("vllm_version")) if pins.get("vllm_version") \
        else backend["default"]
    if version is None:
        raise PlanError("%s %s is not in the compatibility table" % (package, pins.get("vllm_version")),
                        "set %s to one of %s" % (VAR["vllm_version"],
                                                 ", ".join(_sorted_versions(backend["releases"]))))
    release = backend["releases"][version]
    reasons.append("%s %s: %s" % (package, version, "pinned by %s" % VAR["vllm_version"]
                                  if pins.get("vllm_version") else "the table's default for the CPU backend"))
    platform = _check_arch(host, release, package, version)
    python, source = _choose_python(host, release, pins.get("python_version"), reasons, package, version)
    torch = release["torch"]
    reasons.append("torch %s from %s: %s pins it" % (torch, release["torch_index_url"], package))
    reasons.append("uninstall %s after the install: %s pulls CUDA builds of them that the CPU "
                   "server does not use" % (", ".join(backend["remove_after_install"]), package))
    return {
        "backend": "cpu",
        "vllm_package": package,
        "vllm_version": version,
        "python_version": python,
        "python_source": source,
        "torch_version": torch,
        "torch_cuda": None,
        "cuda_variant": None,
        "cuda_required": None,
        "requirements": ["%s==%s" % (package, version), "torch==%s" % torch],
        "index_url": PYPI,
        "extra_index_urls": [release["torch_index_url"]],
        "index_strategy": "unsafe-best-match",
        "pypi_only": False,
        "wheel_platform": platform,
        "remove_after_install": list(backend["remove_after_install"]),
        "server_module": backend["server_module"],
        "release_id": _release_id(package, version, python, None),
        "reasons": reasons,
    }


def _plan_cuda(host, table, pins, reasons):
    backend = table["backends"]["cuda"]
    package = backend["package"]
    gpu_facts = host.get("gpu") or {}
    gpus = gpu_facts.get("gpus") or []
    pinned_version = pins.get("vllm_version")
    version = _resolve_version(table, "cuda", pinned_version) if pinned_version else backend["default"]
    if version is None:
        raise PlanError("vLLM %s is not in the compatibility table" % pinned_version,
                        "set %s to one of %s" % (VAR["vllm_version"],
                                                 ", ".join(_sorted_versions(backend["releases"]))))
    release = backend["releases"][version]
    reasons.append("vLLM %s: %s" % (version, "pinned by %s" % VAR["vllm_version"] if pinned_version
                                    else "the table's default for the CUDA backend"))
    platform = _check_arch(host, release, package, version)
    windows = bool(host.get("wsl")) or gpu_facts.get("driver_platform") == "windows" \
        or bool(gpu_facts.get("wsl_suspected"))
    driver = gpu_facts.get("driver_version")
    cuda_have, cuda_why = effective_cuda(gpu_facts, table, windows=windows)
    who = "the Windows NVIDIA driver" if windows else "the NVIDIA driver"

    # compute capability: every GPU must be supported
    min_cc = release["min_compute_capability"]
    for gpu in gpus:
        cc = gpu.get("compute_capability")
        if cc is None:
            reasons.append("%s: compute capability unknown (not reported, name not in the table); "
                           "assumed supported" % _gpu_label(gpu))
            continue
        if version_tuple(cc) < version_tuple(min_cc):
            older = [g for g in gpus if g.get("compute_capability")
                     and version_tuple(g["compute_capability"]) >= version_tuple(min_cc)]
            raise PlanError(
                "%s has compute capability %s; vLLM %s needs %s or higher" % (_gpu_label(gpu), cc, version, min_cc),
                "use a GPU of compute capability %s+%s, or set %s: cpu"
                % (min_cc, " (hide this one with CUDA_VISIBLE_DEVICES)" if older else "", VAR["backend"]))
    reasons.append("compute capability: %s" % (", ".join(
        "%s %s" % (_gpu_label(g), g.get("compute_capability") or "?") for g in gpus) or "no GPU listed"))

    # CUDA needs of the GPUs themselves (Blackwell and newer)
    arch_need = None
    for gpu in gpus:
        need = table.get("compute_capability_min_cuda", {}).get(gpu.get("compute_capability") or "")
        if need and (arch_need is None or version_tuple(need) > version_tuple(arch_need)):
            arch_need = need

    variants = release["variants"]
    pinned_variant = pins.get("cuda_variant")
    if pinned_variant:
        if pinned_variant not in variants:
            raise PlanError("vLLM %s has no %s build" % (version, pinned_variant),
                            "set %s to one of %s" % (VAR["cuda_variant"], ", ".join(sorted(variants))))
        order = [pinned_variant]
    else:
        default = release["default_variant"]
        order = [default] + sorted((v for v in variants if v != default),
                                   key=lambda v: version_tuple(variants[v]["cuda"]), reverse=True)
    needs = " or ".join(sorted(set(variants[v]["cuda"] for v in order), key=version_tuple))

    if cuda_have is None:
        if pinned_variant:
            chosen = pinned_variant
            reasons.append("CUDA %s: %s; driver support not checked because %s is pinned"
                           % (variants[chosen]["cuda"], cuda_why, VAR["cuda_variant"]))
        else:
            raise PlanError(
                "cannot tell which CUDA driver %s supports (%s); vLLM %s needs CUDA %s"
                % (driver or "(no driver version)", cuda_why, version, needs),
                "fix nvidia-smi (it must print the driver version), or pin %s to one of %s"
                % (VAR["cuda_variant"], ", ".join(order)))
    else:
        chosen = None
        for name in order:
            if _fits(cuda_have, variants[name]["cuda"]) and (
                    arch_need is None or _fits(variants[name]["cuda"], arch_need)):
                chosen = name
                break
        if chosen is None:
            fits = [n for n in order if _fits(cuda_have, variants[n]["cuda"])]
            if fits and arch_need:
                raise PlanError(
                    "the GPU needs CUDA %s or newer; driver %s supports CUDA %s and vLLM %s's builds "
                    "for it need CUDA %s" % (arch_need, driver, cuda_have, version, needs),
                    "update %s to %s" % (who, _driver_hint(table, arch_need, windows)))
            hints = " or ".join("%s (CUDA %s)" % (_driver_hint(table, variants[n]["cuda"], windows),
                                                   variants[n]["cuda"])
                                for n in sorted(order, key=lambda n: version_tuple(variants[n]["cuda"])))
            older = _older_release_for(table, cuda_have, None)
            if pinned_variant:
                way = "update %s to %s, or unset %s" % (who, hints, VAR["cuda_variant"])
            elif older and older != version:
                way = "update %s to %s, or pin %s to %s" % (who, hints, VAR["vllm_version"], older)
            else:
                way = ("update %s to %s (no vLLM release in the table runs on CUDA %s), "
                       "or set %s: cpu" % (who, hints, cuda_have, VAR["backend"]))
            raise PlanError("driver %s supports CUDA %s; vLLM %s needs CUDA %s"
                            % (driver, cuda_have, version, needs), way)
        reasons.append("CUDA %s: driver %s supports CUDA %s (%s)"
                       % (variants[chosen]["cuda"], driver, cuda_have, cuda_why))
    var = variants[chosen]
    if chosen == release["default_variant"]:
        reasons.append("%s: the build on PyPI" % chosen)
    else:
        reasons.append("%s: the PyPI build (%s) needs CUDA %s, more than this driver supports; "
                       "%s comes from vLLM's and PyTorch's own indexes"
                       % (chosen, release["default_variant"],
                          variants[release["default_variant"]]["cuda"], chosen)
                       if not pinned_variant else "%s: pinned by %s" % (chosen, VAR["cuda_variant"]))
    python, source = _choose_python(host, release, pins.get("python_version"), reasons, package, version)
    pypi_only = var["vllm_index_url"] is None and var["torch_index_url"] is None
    torch_version = release["torch"] if var["torch_index_url"] is None else "%s+%s" % (release["torch"], chosen)
    vllm_pin = version if var["vllm_index_url"] is None else "%s+%s" % (version, chosen)
    extra = [u for u in (var["vllm_index_url"], var["torch_index_url"]) if u]
    if var.get("torch_cuda") and var["torch_cuda"] != var["cuda"]:
        reasons.append("torch %s from PyPI carries the CUDA %s runtime; vLLM's kernels are built with CUDA %s"
                       % (torch_version, var["torch_cuda"], var["cuda"]))
    return {
        "backend": "cuda",
        "vllm_package": package,
        "vllm_version": version,
        "python_version": python,
        "python_source": source,
        "torch_version": torch_version,
        "torch_cuda": var.get("torch_cuda"),
        "cuda_variant": chosen,
        "cuda_required": var["cuda"],
        "requirements": ["%s==%s" % (package, vllm_pin), "torch==%s" % torch_version],
        "index_url": PYPI,
        "extra_index_urls": extra,
        "index_strategy": "unsafe-best-match" if extra else "first-index",
        "pypi_only": pypi_only,
        "wheel_platform": platform,
        "remove_after_install": list(backend.get("remove_after_install") or []),
        "server_module": backend["server_module"],
        "release_id": _release_id(package, version, python, chosen),
        "reasons": reasons,
    }


def plan(host, table, pins=None):
    """The install plan for ``host`` under ``pins``; raises PlanError when none fits."""
    pins = dict(pins or {})
    host = dict(host or {})
    errors = validate_pins(pins, table)
    if errors:
        raise PlanError("; ".join(errors), "fix the variables named above")
    backend = pins.get("backend") or "auto"
    gpu_facts = host.get("gpu") or {}
    has_gpu = bool(gpu_facts.get("gpus"))
    reasons = []
    if backend == "cuda" and not has_gpu:
        why = "; ".join(gpu_facts.get("warnings") or []) or "nvidia-smi found no GPU"
        raise PlanError("%s is cuda but this host shows no NVIDIA GPU (%s)" % (VAR["backend"], why),
                        "fix the driver (under WSL2 update the Windows NVIDIA driver; nvidia-smi is in "
                        "/usr/lib/wsl/lib), or set %s: cpu or auto" % VAR["backend"])
    if backend == "cpu" or (backend == "auto" and not has_gpu):
        reasons.append("backend cpu: %s" % ("pinned by %s" % VAR["backend"] if backend == "cpu"
                                            else "no NVIDIA GPU found"))
        return _plan_cpu(host, table, pins, reasons)
    reasons.append("backend cuda: %s" % ("pinned by %s" % VAR["backend"] if backend == "cuda"
                                         else "%d NVIDIA GPU(s) found" % len(gpu_facts["gpus"])))
    return _plan_cuda(host, table, pins, reasons)


# --------------------------------------------------------------------------- PyPI metadata

_PIN = re.compile(r"^(torch|torchvision|torchaudio)\s*==\s*([^\s;,]+)\s*(?:;(.*))?$")


def metadata_record(metadata_text, wheel_filename, url=None, read_at=None):
    """The parts of a wheel's METADATA that the table pins, as a JSON-serialisable dict."""
    header = metadata_text.replace("\r", "").split("\n\n")[0]
    name = version = requires_python = None
    requires = []
    for line in header.splitlines():
        key, _, value = line.partition(":")
        value = value.strip()
        if key == "Name":
            name = value
        elif key == "Version":
            version = value
        elif key == "Requires-Python":
            requires_python = value
        elif key == "Requires-Dist" and "extra ==" not in value:
            bare = re.split(r"[\s;<>=!~\[]", value, 1)[0].lower()
            if bare in ("torch", "torchvision", "torchaudio", "nvidia-cuda-runtime-cu12",
                        "nvidia-cuda-runtime", "cuda-toolkit"):
                requires.append(value)
    platform = None
    m = re.search(r"-((?:manylinux|musllinux)[\w]+|linux_\w+)\.whl$", wheel_filename or "")
    if m:
        platform = m.group(1)
    return {
        "name": name,
        "version": version,
        "requires_python": requires_python,
        "requires_dist": requires,
        "wheel": wheel_filename,
        "wheel_platform": platform,
        "url": url,
        "read_at": read_at,
    }


def pins_from_record(record, machine="x86_64"):
    """{'torch': '2.14.0', 'torchvision': ..., 'torchaudio': ...} (None: not pinned)."""
    pins = {"torch": None, "torchvision": None, "torchaudio": None}
    for req in record.get("requires_dist", []):
        m = _PIN.match(req.strip())
        if not m:
            continue
        marker = m.group(3) or ""
        if "platform_machine" in marker and not re.search(
                r'platform_machine\s*==\s*"%s"' % re.escape(machine), marker):
            continue
        pins[m.group(1)] = m.group(2)
    return pins


def torch_cuda_from_record(record):
    """CUDA runtime of a torch wheel from its Requires-Dist ('12.8', '13.0'); None for CPU builds."""
    for req in record.get("requires_dist", []):
        m = re.match(r"^(nvidia-cuda-runtime(?:-cu\d+)?|cuda-toolkit)(\[[^\]]*\])?\s*==\s*(\d+)\.(\d+)", req)
        if m:
            return "%s.%s" % (m.group(3), m.group(4))
    return None


def metadata_key(package, version):
    return "%s-%s" % (package, version)


def expected_metadata(table):
    """What the cache must hold: [(key, package, version, arch)]."""
    wanted = []
    for backend in ("cuda", "cpu"):
        package = table["backends"][backend]["package"]
        for version, release in table["backends"][backend]["releases"].items():
            wanted.append((metadata_key(package, version), package, version))
            if backend == "cuda":
                wanted.append((metadata_key("torch", release["torch"]), "torch", release["torch"]))
    seen = set()
    return [w for w in wanted if not (w[0] in seen or seen.add(w[0]))]


def compare_table_with_metadata(table, cache):
    """Disagreements between the table and cached PyPI metadata, one line each, naming the field."""
    problems = []
    for key, package, version in expected_metadata(table):
        if key not in cache:
            problems.append("%s: no cached PyPI metadata (run scripts/check-compat-metadata --refresh)" % key)
    for backend in ("cuda", "cpu"):
        package = table["backends"][backend]["package"]
        for version, release in table["backends"][backend]["releases"].items():
            record = cache.get(metadata_key(package, version))
            if record is None:
                continue
            where = "%s %s" % (package, version)
            if record.get("version") != version:
                problems.append("%s: version: metadata says %s" % (where, record.get("version")))
            if normalize_specifier(record.get("requires_python")) != normalize_specifier(release["requires_python"]):
                problems.append("%s: requires_python: table %s, PyPI metadata %s"
                                % (where, release["requires_python"], record.get("requires_python")))
            for py in release["python"]:
                if not specifier_contains(record.get("requires_python"), py):
                    problems.append("%s: python: %s is outside Requires-Python %s"
                                    % (where, py, record.get("requires_python")))
            meta_pins = pins_from_record(record)
            for field in ("torch", "torchvision", "torchaudio"):
                if release.get(field) != meta_pins[field]:
                    problems.append("%s: %s: table %s, PyPI metadata %s"
                                    % (where, field, release.get(field), meta_pins[field]))
            platform = release["platforms"].get("x86_64")
            if record.get("wheel_platform") and platform != record["wheel_platform"]:
                problems.append("%s: platforms.x86_64: table %s, PyPI wheel %s"
                                % (where, platform, record["wheel_platform"]))
            if backend != "cuda":
                continue
            torch_record = cache.get(metadata_key("torch", release["torch"]))
            if torch_record is None:
                continue
            runtime = torch_cuda_from_record(torch_record)
            for name, var in release["variants"].items():
                if var["torch_index_url"] is None and var.get("torch_cuda") != runtime:
                    problems.append("%s: variants.%s.torch_cuda: table %s, torch %s on PyPI requires CUDA %s"
                                    % (where, name, var.get("torch_cuda"), release["torch"], runtime))
    return problems
