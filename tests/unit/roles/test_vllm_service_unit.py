"""The systemd unit as the role renders it, for a CPU host, a CUDA host and a CUDA host under
WSL2: systemd-analyze scores its exposure (at most 3.5: "OK"), verify loads it, the GPU units keep
their device ACL and the unit writes only where the role says it does.

The template is rendered by plugins/module_utils/vllm_render.py (what scripts/plan --render
writes): Jinja2 with the project's filters, the role's internal variables rendered from
vars/main.yml the way Ansible would (a native Jinja2 environment)."""
import subprocess

import pytest

import vllm_render
from vllm_testlib import MAX_EXPOSURE, SYSTEMD_ANALYZE, needs_systemd_analyze, unit_exposure

HOSTS = {
    "cpu": ("cpu", False, ["bin/python", "-m", "vllm.entrypoints.openai.api_server"]),
    "cuda": ("cuda", False, ["bin/vllm", "serve"]),
    "cuda_wsl": ("cuda", True, ["bin/vllm", "serve"]),
}
GPU = {"gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 4090", "memory_total_mib": 24564,
                 "memory_used_mib": 232, "compute_capability": "8.9"}]}


def render_unit(tmp_path, kind, **overrides):
    """The unit as the role renders it (vllm_render: the role's template and variables)."""
    backend, wsl, server_command = HOSTS[kind]
    python_root = tmp_path / "opt" / "vllm"
    variables = dict({"vllm_python_root": str(python_root),
                      "vllm_model_result": {"path": "/var/lib/vllm/models/builtin-tiny-llama",
                                            "name": "tiny-llama"},
                      "vllm_python_result": {"interpreter": "/usr/bin/python3.11"}}, **overrides)
    variables["vllm_model_result"] = dict(variables["vllm_model_result"],
                                          config=vllm_render.BUILTIN_MODEL_CONFIG,
                                          size_bytes=vllm_render.BUILTIN_MODEL_BYTES)
    plan = {"backend": backend, "server_command": server_command}
    host = vllm_render.stand_in_host(GPU if backend == "cuda" else None, wsl)
    context = vllm_render.role_context(plan, host, variables)
    # verify checks that the command exists and is executable
    command = python_root / "current" / "venv" / server_command[0]
    command.parent.mkdir(parents=True, exist_ok=True)
    command.write_text("#!/bin/sh\n")
    command.chmod(0o755)
    text = vllm_render.render_template("vllm.service.j2", context)
    unit = tmp_path / "vllm.service"  # systemd-analyze wants the unit's own name
    unit.write_text(text)
    return unit, text, context


def directives(text, name):
    return [line.split("=", 1)[1] for line in text.splitlines() if line.startswith(name + "=")]


def exposure(unit):
    return unit_exposure(unit)


@needs_systemd_analyze
@pytest.mark.parametrize("kind", sorted(HOSTS))
def test_the_unit_is_confined_to_an_ok_exposure(tmp_path, kind):
    unit, _, _ = render_unit(tmp_path, kind)
    score, report = exposure(unit)
    assert score <= MAX_EXPOSURE, report


@needs_systemd_analyze
def test_the_exposure_check_can_fail(tmp_path):
    """The same measurement on the unit before the confinement (8.8): the threshold bites."""
    unit, text, _ = render_unit(tmp_path, "cuda")
    kept = ("[", "Description=", "User=", "Group=", "ExecStart=", "Type=", "NoNewPrivileges=",
            "PrivateTmp=", "DevicePolicy=", "DeviceAllow=", "WantedBy=")
    unit.write_text("\n".join(line for line in text.splitlines() if line.startswith(kept)) + "\n")
    assert exposure(unit)[0] > MAX_EXPOSURE


@needs_systemd_analyze
@pytest.mark.parametrize("kind", sorted(HOSTS))
def test_systemd_loads_the_unit(tmp_path, kind):
    """systemd-analyze verify parses it without PID 1: no unknown directive, no bad value."""
    unit, _, _ = render_unit(tmp_path, kind)
    proc = subprocess.run([SYSTEMD_ANALYZE, "verify", "--man=no", str(unit)], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, timeout=120, universal_newlines=True)
    assert proc.returncode == 0 and proc.stdout.strip() == "", proc.stdout


@pytest.mark.parametrize("kind", sorted(HOSTS))
def test_the_unit_writes_only_the_state_and_log_directories(tmp_path, kind):
    _, text, context = render_unit(tmp_path, kind)
    assert directives(text, "ProtectSystem") == ["strict"]
    [paths] = directives(text, "ReadWritePaths")
    assert sorted(paths.split()) == sorted([context["vllm_service_state_dir"],
                                            context["vllm_service_log_dir"]])
    assert directives(text, "ProtectHome") == ["true"]
    assert directives(text, "CapabilityBoundingSet") == [""]
    assert directives(text, "UMask") == ["0027"]
    assert directives(text, "MemoryDenyWriteExecute") == []  # torch's JIT needs W+X memory
    assert directives(text, "PrivateUsers") == []


def test_configured_directories_are_the_writable_ones(tmp_path):
    _, text, _ = render_unit(tmp_path, "cpu", vllm_service_state_dir="/srv/vllm",
                             vllm_service_log_dir="/srv/log/vllm")
    assert directives(text, "ReadWritePaths") == ["/srv/vllm /srv/log/vllm"]
    assert directives(text, "WorkingDirectory") == ["/srv/vllm"]


@pytest.mark.parametrize("override", [
    {"vllm_model_result": {"path": "/home/alice/models/qwen", "name": "qwen"}},  # served in place
    {"vllm_python_result": {"interpreter": "/home/linuxbrew/.linuxbrew/bin/python3.11"}},  # the venv's base
])
def test_what_the_server_reads_from_a_home_directory_stays_readable(tmp_path, override):
    _, text, _ = render_unit(tmp_path, "cuda", **override)
    assert directives(text, "ProtectHome") == ["read-only"]


@pytest.mark.parametrize("kind, devices", [
    ("cuda", ["char-nvidia* rw"]),
    ("cuda_wsl", ["char-nvidia* rw", "/dev/dxg rw"]),
])
def test_gpu_units_keep_the_nvidia_devices_behind_a_closed_policy(tmp_path, kind, devices):
    _, text, _ = render_unit(tmp_path, kind)
    assert directives(text, "DevicePolicy") == ["closed"]
    assert directives(text, "DeviceAllow") == devices
    # a private /dev has no /dev/nvidia*
    assert directives(text, "PrivateDevices") == []
    assert ("/dev/dxg" in text) is (kind == "cuda_wsl")  # molecule/cuda checks it too


def test_the_cpu_unit_gets_a_private_dev(tmp_path):
    _, text, _ = render_unit(tmp_path, "cpu")
    assert directives(text, "PrivateDevices") == ["true"]
    assert directives(text, "DeviceAllow") == [] and directives(text, "DevicePolicy") == []


def test_exec_start_is_the_argv_quoted_for_systemd(tmp_path):
    _, text, context = render_unit(tmp_path, "cpu")
    [line] = directives(text, "ExecStart")
    assert line == " ".join([str(tmp_path / "opt" / "vllm" / "current" / "venv" / "bin" / "python"),
                             "-m", "vllm.entrypoints.openai.api_server", "--config",
                             "/etc/vllm/vllm.yaml"])
    assert context["__vllm_service_argv"][-2:] == ["--config", "/etc/vllm/vllm.yaml"]


@pytest.mark.parametrize("kind", sorted(HOSTS))
def test_the_restart_policy_has_a_start_limit_and_names_the_cause_of_a_crash(tmp_path, kind):
    _, text, context = render_unit(tmp_path, kind, vllm_service_restart_sec=7,
                                   vllm_service_start_limit_burst=4, vllm_service_start_limit_interval=300)
    unit_section = text.split("[Service]")[0]
    assert directives(unit_section, "StartLimitIntervalSec") == ["300"]
    assert directives(unit_section, "StartLimitBurst") == ["4"]
    assert directives(text, "Restart") == ["always"] and directives(text, "RestartSec") == ["7"]
    assert directives(text, "ExecStopPost") == [
        "+/usr/bin/python3 /usr/local/lib/vllm-provision/vllm_launcher.py diagnose-unit vllm.service"]
