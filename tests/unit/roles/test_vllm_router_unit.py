"""The router's systemd unit as the role renders it (the template with the project's filters and
the role's defaults): systemd-analyze verify loads it, its exposure stays at most 3.5 ("OK"), the
command line is the one vllm_router.router_argv computes, and no secret is in it."""
import os
import subprocess

import jinja2
import pytest
import yaml

import vllm_router
from vllm_testlib import MAX_EXPOSURE, ROOT, SYSTEMD_ANALYZE, load_filter, needs_systemd_analyze, unit_exposure

ROLE = os.path.join(ROOT, "roles", "vllm_router")


def render(tmp_path, **overrides):
    with open(os.path.join(ROLE, "defaults", "main.yml")) as handle:
        defaults = yaml.safe_load(handle)
    defaults.update(overrides)
    venv = tmp_path / "opt" / "vllm-router" / "venv"
    (venv / "bin").mkdir(parents=True)
    binary = venv / "bin" / "vllm-router"
    binary.write_text("#!/bin/sh\n")
    binary.chmod(0o755)
    settings = {key[len("vllm_router_"):]: value for key, value in defaults.items()}
    servers = vllm_router.backends(["ws-01", "ws-02"], {
        "ws-01": {"vllm_service_host": "0.0.0.0", "ansible_host": "10.0.0.11"},
        "ws-02": {"vllm_service_host": "10.0.0.12", "vllm_service_port": 8001}}, "gw")
    filters = load_filter().FilterModule().filters()
    env = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    env.filters.update({"vllm_ops.workstation." + name: f for name, f in filters.items()})
    env.filters["comment"] = lambda text: "#\n# %s\n#" % text
    variables = dict(defaults, ansible_managed="Ansible managed", __vllm_router_backends=servers,
                     __vllm_router_argv=vllm_router.router_argv(str(venv), settings, servers),
                     __vllm_router_sandbox=filters["vllm_unit_sandbox"]("cpu", {"wsl": {"is_wsl": False}},
                                                                         [defaults["vllm_router_state_dir"]],
                                                                         [str(venv)]))
    with open(os.path.join(ROLE, "templates", "vllm-router.service.j2")) as handle:
        text = env.from_string(handle.read()).render(variables)
    unit = tmp_path / "vllm-router.service"
    unit.write_text(text)
    return unit, venv


def test_the_command_line_is_the_computed_one(tmp_path):
    unit, venv = render(tmp_path)
    line = [l for l in unit.read_text().splitlines() if l.startswith("ExecStart=")][0]
    assert line.startswith("ExecStart=%s/bin/vllm-router --host 127.0.0.1 --port 30000 --policy round_robin "
                           "--worker-urls http://10.0.0.11:8000 http://10.0.0.12:8001 " % venv)
    assert "--health-check-endpoint /health" in line
    assert "api-key" not in unit.read_text().lower().replace("api key", "")
    assert "User=vllm-router" in unit.read_text()
    assert "ReadWritePaths=/var/lib/vllm-router\n" in unit.read_text()


@needs_systemd_analyze
def test_systemd_verifies_the_unit_and_scores_it_ok(tmp_path):
    unit, _ = render(tmp_path)
    proc = subprocess.run([SYSTEMD_ANALYZE, "verify", "--man=no", str(unit)], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True, timeout=120)
    problems = [line for line in proc.stdout.splitlines() if "vllm-router.service" in line]
    assert not problems, proc.stdout
    score, report = unit_exposure(unit)
    assert score <= MAX_EXPOSURE, report
