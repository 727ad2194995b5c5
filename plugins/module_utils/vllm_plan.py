# -*- coding: utf-8 -*-
"""Pick (Python, CUDA variant, torch, vLLM) for a host, or refuse with the reason and a way out.

Pure Python (stdlib; PyYAML only to read the table file): used by the Ansible modules as
``ansible_collections.vllm_ops.workstation.plugins.module_utils.vllm_plan``, by ``scripts/plan`` and ``scripts/check-compat-metadata``,
and by the unit tests. The data lives in ``data/vllm_compat.yml``.

``plan(host, table, pins)``::

    host = {"arch": "x86_64", "python_version": "3.11", "python_available": ["3.11"],
            "gpu": <vllm_gpu.parse_nvidia_smi(...)> or None, "wsl": False}
    pins = {"backend": "auto"|"cuda"|"cpu", "vllm_version": None|"0.33.0",
            "python_version": None|"3.12", "cuda_variant": None|"cu129"}

returns a JSON-serialisable dict, or raises ``PlanError`` (``.reason``, ``.way_out``).
``validate_pins(pins, table)`` checks the user's pins alone, before anything changes on a host.

A CUDA plan runs in one of two modes (``compat_mode``): ``native`` (the driver supports the
build's CUDA) or ``minor_version_compatibility`` (NVIDIA's rule: a build of CUDA X.y runs on any
driver of the X family from the table's ``minor_version_compatibility`` minimum on, without JIT of
PTX newer than the driver; ``compat_limits`` lists what that costs). ``kernels_for(cc, archs)``
says whether a build's compiled architectures can run on a GPU.
"""

from __future__ import absolute_import, division, print_function

import re

from .vllm_common import NoYamlError, read_yaml, version_tuple

__metaclass__ = type


def effective_cuda(gpu_facts, table, windows=False):
    """(cuda, reason): the newest CUDA the driver supports, from the nvidia-smi facts.

    The header's value when shown; else the parser's value derived from NVIDIA's driver table
    (vllm_gpu.cuda_from_driver, the same cuda_driver_minimums) when it read the driver for this
    platform; else this table's cuda_driver_minimums. Needs no vllm_gpu.
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

def _arch_parts(name):
    """'sm_90a' -> ('sm', 9, 0, 'a'); 'compute_120' -> ('compute', 12, 0, ''); junk -> None."""
    m = re.match(r"^(sm|compute)_(\d+)(\d)([af]?)$", str(name).strip())
    if not m:
        return None
    return m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)


def _cc_parts(compute_capability):
    """'8.9' or '89' or (8, 9) -> (8, 9); None when it does not read."""
    if isinstance(compute_capability, (tuple, list)) and len(compute_capability) == 2:
        return int(compute_capability[0]), int(compute_capability[1])
    text = str(compute_capability).strip()
    m = re.match(r"^(\d+)\.(\d)$", text) or re.match(r"^(\d+)(\d)$", text)
    return (int(m.group(1)), int(m.group(2))) if m else None


def kernels_for(compute_capability, archs, minor_version_compatibility=False):
    """Can a build whose compiled architectures are ``archs`` run on a GPU of ``compute_capability``?

    compute_capability: '8.9' (nvidia-smi's compute_cap, or torch.cuda.get_device_capability()
    as a tuple (8, 9)); archs: e.g. torch.cuda.get_arch_list(), ['sm_75', 'sm_80', 'sm_86',
    'sm_90', 'sm_100', 'sm_120', 'compute_120']; minor_version_compatibility: True when the build's
    CUDA is newer than the driver's (plan['compat_mode'] == 'minor_version_compatibility').

    Rules (CUDA programming guide, binary and PTX compatibility): SASS ``sm_XY`` runs on a GPU of
    the same major X with minor >= Y; ``sm_XYa`` only on X.Y itself; ``sm_XYf`` on the same major
    with minor >= Y. PTX ``compute_XY`` is JIT-compiled by the driver for any GPU >= X.Y
    (``compute_XYa`` only for X.Y), but not under minor version compatibility, where the build's
    PTX is newer than the driver can compile.

    Returns {"runs": bool, "via": 'sm_86' | 'compute_90' | None, "reason": str}.
    """
    cc = _cc_parts(compute_capability)
    listed = ", ".join(archs or []) or "none"
    if cc is None:
        return {"runs": False, "via": None,
                "reason": "compute capability %r does not read as X.Y" % (compute_capability,)}
    label = "%d.%d" % cc
    sass, ptx = [], []
    for name in archs or []:
        parts = _arch_parts(name)
        if parts is None:
            continue
        kind, major, minor, suffix = parts
        if suffix == "a":
            fits = (major, minor) == cc
        elif kind == "sm":
            fits = major == cc[0] and minor <= cc[1]
        else:
            fits = (major, minor) <= cc
        if fits:
            (sass if kind == "sm" else ptx).append(((major, minor, suffix != ""), name))
    if sass:
        best = sorted(sass)[-1][1]
        return {"runs": True, "via": best,
                "reason": "compute capability %s runs the compiled kernels %s" % (label, best)}
    if ptx:
        best = sorted(ptx)[-1][1]
        if minor_version_compatibility:
            return {"runs": False, "via": None,
                    "reason": "compute capability %s has no compiled kernels in %s; the PTX %s would need a "
                              "JIT compile, which minor version compatibility does not allow (the PTX is "
                              "newer than the driver)" % (label, listed, best)}
        return {"runs": True, "via": best,
                "reason": "compute capability %s has no compiled kernels in %s; the driver JIT-compiles "
                          "the PTX %s (slow first start)" % (label, listed, best)}
    return {"runs": False, "via": None,
            "reason": "compute capability %s: no kernels for it in %s" % (label, listed)}


BACKENDS = ("auto", "cuda", "cpu")
VAR = {
    "backend": "vllm_install_backend",
    "vllm_version": "vllm_install_version",
    "python_version": "vllm_python_version",
    "cuda_variant": "vllm_install_cuda_variant",
}
PYPI = "https://pypi.org/simple"


# What each start-up hook of the compatibility table does (roles/vllm_install/files/startup_hooks/).
STARTUP_HOOKS = {
    "amx_tile_permission": "asks Linux for the AMX tile state at every Python start, which this "
                           "release's bf16 CPU attention kernel uses without asking (SIGILL, worker "
                           "exit -4, on CPUs with AMX); nothing happens on CPUs without AMX",
}


class PlanError(Exception):
    """A refusal: ``reason`` says what does not fit, ``way_out`` what the user can do."""

    def __init__(self, reason, way_out=None):
        self.reason = reason
        self.way_out = way_out
        Exception.__init__(self, "%s: %s" % (reason, way_out) if way_out else reason)


# --------------------------------------------------------------------------- table

def load_table(path):
    """Read data/vllm_compat.yml (YAML; a JSON file works too)."""
    try:
        data = read_yaml(path)
    except NoYamlError:  # pragma: no cover - PyYAML is optional
        raise PlanError("cannot read %s" % path, "install PyYAML (python3-yaml) to read the YAML table")
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


def python_provider(provider, distribution):
    """Where a missing Python comes from: ``vllm_python_provider`` when it names one, else
    (``auto``) the deadsnakes PPA on Ubuntu (its packages build on the distribution's own) and a
    uv-managed CPython anywhere else (no distribution package of it there)."""
    if provider and provider != "auto":
        return provider
    return "deadsnakes" if distribution == "Ubuntu" else "uv"


def interpreter_path(plan, available, installed):
    """The interpreter the venv is made with: the host's own for the plan's Python version when
    the plan found it there (``python_source`` system), else the one just installed."""
    if plan.get("python_source") == "system":
        return available[plan["python_version"]]
    return installed


def server_argv(plan, python_root, options_file):
    """The server's command line: the plan's ``server_command`` (relative to the venv; from the
    compatibility table) in the current release's venv, reading every option from the file."""
    command = list(plan["server_command"])
    return ([python_root + "/current/venv/" + command[0]] + command[1:]
            + ["--config", options_file])


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


def _number_hint(number):
    """'580.00' -> 'R580 or newer'; '575.51.03' -> '575.51.03 or newer'."""
    if re.match(r"^\d+\.00$", number):
        return "R%s or newer" % number.split(".")[0]
    return "%s or newer" % number


def _mvc(table, cuda_have, driver, windows):
    """Minor version compatibility of this driver: {major, minimum, ok} (None: no rule for its CUDA)."""
    if cuda_have is None:
        return None
    major = str(version_tuple(cuda_have)[0])
    mins = (table.get("minor_version_compatibility") or {}).get(major)
    if not mins:
        return None
    minimum = mins["windows" if windows else "linux"]
    drv = version_tuple(driver)
    return {"major": major, "minimum": minimum, "ok": drv is not None and drv >= version_tuple(minimum)}


def _mode(cuda_have, cuda_need, mvc):
    """'native', 'minor_version_compatibility' or None (the driver cannot run that CUDA)."""
    if _fits(cuda_have, cuda_need):
        return "native"
    if mvc and mvc["ok"] and str(version_tuple(cuda_need)[0]) == mvc["major"]:
        return "minor_version_compatibility"
    return None


def _mvc_clause(mvc, cuda_have, windows):
    if not mvc:
        return ("; a CUDA %s driver runs no build of another CUDA major (minor version compatibility "
                "holds within one major)" % version_tuple(cuda_have)[0])
    if not mvc["ok"]:
        return (", and the driver is older than %s, NVIDIA's minimum %s driver for CUDA %s.x minor version "
                "compatibility" % (mvc["minimum"], "Windows" if windows else "Linux", mvc["major"]))
    return ""


def _update_hints(table, cudas, windows):
    """'525.60.13 or newer (CUDA 12.x under minor version compatibility) or 575.51.03 or newer (CUDA 12.9) ...'"""
    hints = []
    for cuda in sorted(set(cudas), key=version_tuple):
        major, minor = version_tuple(cuda)[:2]
        mins = (table.get("minor_version_compatibility") or {}).get(str(major))
        if mins and minor > 0:
            hints.append("%s (CUDA %d.x: a CUDA %s build under minor version compatibility)"
                         % (_number_hint(mins["windows" if windows else "linux"]), major, cuda))
        hints.append("%s (CUDA %s)" % (_driver_hint(table, cuda, windows), cuda))
    return ", ".join(hints[:-1]) + " or " + hints[-1] if len(hints) > 1 else hints[0]


def _kernel_miss(gpus, variant, compat):
    """(gpu, cc, detail) for the first GPU the variant's known compiled architectures cannot run."""
    archs = variant.get("compiled_archs")
    if not archs:
        return None
    for gpu in gpus:
        cc = gpu.get("compute_capability")
        if not cc:
            continue
        for part in ("torch", "vllm"):
            found = kernels_for(cc, archs[part], compat)
            if not found["runs"]:
                return gpu, cc, "%s: %s" % (part, found["reason"])
    return None


def _older_release_for(table, cuda_have, mvc, arch_need=None, gpus=()):
    """(version, variant, mode) of the newest release that runs on this driver, native preferred."""
    best = None
    for version in _sorted_versions(_releases(table, "cuda")):
        release = _releases(table, "cuda")[version]
        for name, var in sorted(release["variants"].items(), key=lambda kv: version_tuple(kv[1]["cuda"]),
                                reverse=True):
            if arch_need and not _fits(var["cuda"], arch_need):
                continue
            mode = _mode(cuda_have, var["cuda"], mvc)
            if mode is None or _kernel_miss(gpus, var, mode != "native"):
                continue
            if mode == "native":
                return version, name, mode
            if best is None:
                best = (version, name, mode)
    return best


def _compat_limits(table, mode, cuda_build, cuda_have, windows, archs):
    """Short strings: what minor version compatibility costs (empty when native)."""
    if mode != "minor_version_compatibility":
        return []
    return [
        "no JIT of PTX newer than the driver: only kernels compiled for the GPU (SASS) run%s"
        % ("" if archs else "; which architectures the build has is checked on the host after install"),
        "CUDA features newer than %s (the driver's) are unavailable to this CUDA %s build" % (cuda_have, cuda_build),
        "kernels built at run time (Triton, torch.compile, FlashInfer) must compile to SASS with their "
        "own compiler; one that hands PTX to the driver fails (CUDA_ERROR_UNSUPPORTED_PTX_VERSION)",
        "updating the driver to %s lifts these limits" % (_driver_hint(table, cuda_build, windows) +
                                                         " (CUDA %s)" % cuda_build),
    ]


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
    for hook in release.get("startup_hooks") or []:
        reasons.append("start-up hook %s in the venv: %s" % (hook, STARTUP_HOOKS.get(hook, "see data/vllm_compat.yml")))
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
        "startup_hooks": list(release.get("startup_hooks") or []),
        "server_module": backend["server_module"],
        "server_command": list(backend["server_command"]),
        "compat_mode": None,
        "compat_limits": [],
        "compiled_archs": None,
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
    mvc = _mvc(table, cuda_have, driver, windows)

    mode = None
    if cuda_have is None:
        if pinned_variant:
            chosen = pinned_variant
            reasons.append("CUDA %s: %s; driver support not checked because %s is pinned"
                           % (variants[chosen]["cuda"], cuda_why, VAR["cuda_variant"]))
            reasons.append("compat mode: not known (the driver's CUDA version is not known)")
            miss = _kernel_miss(gpus, variants[chosen], False)
            if miss:
                raise PlanError("%s has compute capability %s; vLLM %s %s has no kernels for it (%s)"
                                % (_gpu_label(miss[0]), miss[1], version, chosen, miss[2]),
                                "unset %s or pin a build with kernels for compute capability %s"
                                % (VAR["cuda_variant"], miss[1]))
        else:
            raise PlanError(
                "cannot tell which CUDA driver %s supports (%s); vLLM %s needs CUDA %s"
                % (driver or "(no driver version)", cuda_why, version, needs),
                "fix nvidia-smi (it must print the driver version), or pin %s to one of %s"
                % (VAR["cuda_variant"], ", ".join(order)))
    else:
        if arch_need and not _fits(cuda_have, arch_need):
            raise PlanError(
                "the GPU needs CUDA %s or newer; driver %s supports CUDA %s" % (arch_need, driver, cuda_have),
                "update %s to %s" % (who, _driver_hint(table, arch_need, windows)))
        chosen, skipped = None, []
        for wanted in ("native", "minor_version_compatibility"):
            for name in order:
                if arch_need and not _fits(variants[name]["cuda"], arch_need):
                    continue
                if _mode(cuda_have, variants[name]["cuda"], mvc) != wanted:
                    continue
                miss = _kernel_miss(gpus, variants[name], wanted != "native")
                if miss:
                    skipped.append((name, miss))
                    continue
                chosen, mode = name, wanted
                break
            if chosen:
                break
        if chosen is None:
            if skipped:
                name, (gpu, cc, detail) = skipped[0]
                raise PlanError(
                    "%s has compute capability %s; vLLM %s %s has no kernels for it (%s)"
                    % (_gpu_label(gpu), cc, version, name, detail),
                    "use a GPU the build has kernels for (hide this one with CUDA_VISIBLE_DEVICES), pin %s "
                    "to a release built for compute capability %s, or set %s: cpu"
                    % (VAR["vllm_version"], cc, VAR["backend"]))
            runnable = [n for n in order if _mode(cuda_have, variants[n]["cuda"], mvc)]
            if runnable and arch_need:
                raise PlanError(
                    "the GPU needs CUDA %s or newer; driver %s supports CUDA %s and vLLM %s's builds "
                    "for it need CUDA %s" % (arch_need, driver, cuda_have, version, needs),
                    "update %s to %s" % (who, _driver_hint(table, arch_need, windows)))
            hints = _update_hints(table, [variants[n]["cuda"] for n in order], windows)
            older = _older_release_for(table, cuda_have, mvc, arch_need, gpus)
            if pinned_variant:
                way = "update %s to %s, or unset %s" % (who, hints, VAR["cuda_variant"])
            elif older and older[0] != version:
                way = "update %s to %s, or pin %s to %s (%s, %s)" % (
                    who, hints, VAR["vllm_version"], older[0], older[1], older[2].replace("_", " "))
            else:
                way = ("update %s to %s (no vLLM release in the table runs on CUDA %s), "
                       "or set %s: cpu" % (who, hints, cuda_have, VAR["backend"]))
            raise PlanError("driver %s supports CUDA %s; vLLM %s needs CUDA %s%s"
                            % (driver, cuda_have, version, needs, _mvc_clause(mvc, cuda_have, windows)), way)
        reasons.append("CUDA %s: driver %s supports CUDA %s (%s)"
                       % (variants[chosen]["cuda"], driver, cuda_have, cuda_why))
        if mode == "native":
            reasons.append("compat mode: native (the driver supports CUDA %s, the build needs %s)"
                           % (cuda_have, variants[chosen]["cuda"]))
        else:
            reasons.append(
                "compat mode: minor_version_compatibility: %s is built with CUDA %s, newer than the driver's "
                "CUDA %s; driver %s is at least %s, NVIDIA's minimum %s driver for CUDA %s.x minor version "
                "compatibility" % (chosen, variants[chosen]["cuda"], cuda_have, driver, mvc["minimum"],
                                   "Windows" if windows else "Linux", mvc["major"]))
            older = _older_release_for(table, cuda_have, None, arch_need, gpus)
            if older and older[2] == "native" and older[0] != version:
                reasons.append("vLLM %s %s runs natively on this driver: pin %s=%s"
                               % (older[0], older[1], VAR["vllm_version"], older[0]))
    var = variants[chosen]
    if chosen == release["default_variant"]:
        reasons.append("%s: the build on PyPI" % chosen)
    else:
        reasons.append("%s: the PyPI build (%s) needs CUDA %s, more than this driver supports; "
                       "%s comes from vLLM's and PyTorch's own indexes"
                       % (chosen, release["default_variant"],
                          variants[release["default_variant"]]["cuda"], chosen)
                       if not pinned_variant else "%s: pinned by %s" % (chosen, VAR["cuda_variant"]))
    archs = var.get("compiled_archs")
    if archs:
        for gpu in gpus:
            if gpu.get("compute_capability"):
                found = [kernels_for(gpu["compute_capability"], archs[part], mode == "minor_version_compatibility")
                         for part in ("torch", "vllm")]
                reasons.append("%s: kernels %s (torch), %s (vLLM)" % (
                    _gpu_label(gpu), found[0]["via"], found[1]["via"]))
    else:
        reasons.append("compiled architectures not known for %s: checked on the host after install" % chosen)
    limits = _compat_limits(table, mode, var["cuda"], cuda_have, windows, archs)
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
        "startup_hooks": [],
        "server_module": backend["server_module"],
        "server_command": list(backend["server_command"]),
        "compat_mode": mode,
        "compat_limits": limits,
        "compiled_archs": dict((k, list(archs[k])) for k in ("torch", "vllm")) if archs else None,
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
    return problems + compare_table_with_archs(table, cache)


# --------------------------------------------------------------------------- compiled architectures

ARCH_LIBRARIES = {
    "torch": ["torch/lib/libtorch_cuda.so"],
    "vllm": ["vllm/_C_stable_libtorch.abi3.so", "vllm/_C.abi3.so"],  # the core: most containers
}


def archs_key(package, version):
    return "archs-" + metadata_key(package, version)


def expected_archs(table):
    """The wheels whose architectures the cache holds: [(key, package, version)].

    One per package and version of the CUDA builds on PyPI itself (both index URLs null); the
    builds on vLLM's and PyTorch's own indexes cannot be downloaded here.
    """
    wanted = []
    for version, release in table["backends"]["cuda"]["releases"].items():
        for var in release["variants"].values():
            if var["vllm_index_url"] is None and var["torch_index_url"] is None:
                wanted.append((archs_key("vllm", version), "vllm", version))
                wanted.append((archs_key("torch", release["torch"]), "torch", release["torch"]))
    seen = set()
    return [w for w in wanted if not (w[0] in seen or seen.add(w[0]))]


def compare_table_with_archs(table, cache):
    """Disagreements between the table's compiled_archs and the cached readings of the wheels."""
    problems = []
    for version, release in table["backends"]["cuda"]["releases"].items():
        for name, var in release["variants"].items():
            if var["vllm_index_url"] is not None or var["torch_index_url"] is not None:
                continue
            where = "vllm %s: variants.%s.compiled_archs" % (version, name)
            listed = var.get("compiled_archs")
            for part, pkg_version in (("torch", release["torch"]), ("vllm", version)):
                record = cache.get(archs_key(part, pkg_version))
                if record is None:
                    if listed:
                        problems.append("%s: no cached reading of the %s %s wheel (run scripts/check-compat-metadata "
                                        "--read-archs)" % (where, part, pkg_version))
                    continue
                if not listed:
                    problems.append("%s: not in the table; the %s %s wheel has %s"
                                    % (where, part, pkg_version, ", ".join(record["build_archs"])))
                    continue
                if list(listed.get(part) or []) != list(record["build_archs"]):
                    problems.append("%s.%s: table %s, the %s wheel (%s) %s"
                                    % (where, part, ", ".join(listed.get(part) or []), part, record["library"],
                                       ", ".join(record["build_archs"])))
    return problems


# --------------------------------------------------------------------------- a named release

RELEASE_VAR = "vllm_python_release"
_NAME_CHARS = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_BUILD = re.compile(r"^(?P<id>.+)\.(?P<n>[1-9][0-9]*)$")


def release_ids(table):
    """Every release id the planner can make from ``table``: ``{id: pins}``, the pins that make
    exactly that id (backend, vllm_version, python_version, cuda_variant)."""
    ids = {}
    for backend in ("cuda", "cpu"):
        entry = (table.get("backends") or {}).get(backend)
        if not entry:
            continue
        for version, release in entry["releases"].items():
            variants = sorted(release.get("variants") or {}) if backend == "cuda" else [None]
            for python in release["python"]:
                for variant in variants:
                    ids[_release_id(entry["package"], version, python, variant)] = {
                        "backend": backend, "vllm_version": version,
                        "python_version": python, "cuda_variant": variant}
    return ids


def _name_example(table):
    cpu = (table.get("backends") or {}).get("cpu")
    if cpu:
        release = cpu["releases"][cpu["default"]]
        return _release_id(cpu["package"], cpu["default"], release["python"][0], None)
    return "vllm-0.33.0-py3.12-cu130"


def parse_release_name(name, table):
    """``(release_id, pins, error)`` for a release folder's name: ``<release id>`` or
    ``<release id>.N`` (a rebuild of it, N >= 1), the id one the table can plan.

    ``error`` is None or a sentence naming the variable, the value and what is accepted."""
    accepted = ("a release folder's name under <vllm_python_root>/releases, a release id of the "
                "compatibility table with an optional .N build number (such as %s or %s.1); empty: "
                "the release the plan names" % (_name_example(table), _name_example(table)))
    if not isinstance(name, str) or not name or not _NAME_CHARS.match(name) or ".." in name \
            or name != name.strip():
        return None, None, "%s: %r is not a release name; accepted: %s" % (RELEASE_VAR, name, accepted)
    ids = release_ids(table)
    release_id = name
    if release_id not in ids:
        match = _BUILD.match(name)
        release_id = match.group("id") if match else None
    if release_id not in ids:
        known = sorted(set("%s %s" % (table["backends"][p["backend"]]["package"], p["vllm_version"])
                           for p in ids.values()), key=lambda s: (s.split()[0], version_tuple(s.split()[1])))
        return None, None, ("%s: %r names no release of the compatibility table (data/vllm_compat.yml): no "
                            "package, vLLM version, Python and variant there make that id (a version "
                            "dropped from the table cannot be served by name); accepted: a release id such "
                            "as %s, optionally with .N; the table's vLLM releases: %s"
                            % (RELEASE_VAR, name, _name_example(table), ", ".join(known)))
    return release_id, dict(ids[release_id]), None


def named_release_errors(values, table):
    """Errors of ``vllm_python_release`` with the other inputs: the name itself, pins that
    disagree with it (each names both variables and values) and a rebuild asked with it.
    Empty when no release is named."""
    name = values.get(RELEASE_VAR)
    if name in (None, ""):
        return []
    release_id, named, error = parse_release_name(name, table)
    if error:
        return [error]
    errors = []
    backend = values.get(VAR["backend"]) or "auto"
    if backend not in ("auto", named["backend"]):
        errors.append("%s: %r is a %s release but %s is %r; accepted: auto, %s or an empty %s"
                      % (RELEASE_VAR, name, named["backend"], VAR["backend"], backend, named["backend"],
                         RELEASE_VAR))
    for key in ("vllm_version", "python_version", "cuda_variant"):
        given = values.get(VAR[key])
        if given in (None, ""):
            continue
        given = str(given)
        same = given == named[key]
        if key == "vllm_version" and not same:
            same = _resolve_version(table, named["backend"], given) == named[key]
        if not same:
            errors.append("%s: %r is %s %s but %s is %r; accepted: leave %s empty (the name fixes it) "
                          "or set it to %s" % (RELEASE_VAR, name, key.replace("_", " "), named[key] or "none",
                                               VAR[key], given, VAR[key], named[key] or "empty"))
    rebuild = values.get("vllm_python_rebuild")
    if rebuild is True or (isinstance(rebuild, str) and rebuild.strip().lower() in ("true", "yes", "1")):
        errors.append("%s: %r serves that build as it is, and vllm_python_rebuild asks for a fresh one; "
                      "accepted: one of them" % (RELEASE_VAR, name))
    return errors


def named_pins(pins, name, table):
    """``pins`` with the named release's backend, version, Python and variant (``pins`` unchanged
    when no release is named or the name is invalid: the input check reports that)."""
    pins = dict(pins or {})
    if name in (None, ""):
        return pins
    _, named, error = parse_release_name(name, table)
    if error:
        return pins
    pins.update(named)
    return pins


def plan_named(host, table, pins, name):
    """``plan`` for a named release: the pins the name fixes, and a first reason saying so."""
    result = plan(host, table, named_pins(pins, name, table))
    if name not in (None, ""):
        result["reasons"] = ["release %s: named by %s" % (name, RELEASE_VAR)] + list(result.get("reasons") or [])
        result["named_release"] = name
    return result
