"""The rollout report: statuses, counts, exit status, table, listing parser and runner events.

Event streams in tests/fixtures/runner_events are real: captured from ansible-runner 2.4.3 with
ansible-core 2.19.14 running small playbooks (a host failing mid-play, check mode with an
unreachable host, a readiness gate rescued by a rollback); only the modules' invocation echo was
dropped from them.
"""
import json
import os

import pytest

import vllm_report as R

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))))
EVENTS = os.path.join(ROOT, "tests", "fixtures", "runner_events")


def events(name):
    with open(os.path.join(EVENTS, name)) as handle:
        return json.load(handle)


def result(host, ready=True, release="vllm-0.33.0-py3.12-cu130", attempted=None, previous="",
           rolled_back=False, diagnosis=None):
    return {"host": host, "ready": ready, "release": release, "attempted_release": attempted or release,
            "previous_release": previous, "rolled_back": rolled_back, "backend": "cuda",
            "vllm_package": "vllm", "vllm_version": "0.33.0", "torch_version": "2.14.0",
            "url": "http://127.0.0.1:8000/v1", "model": "qwen3", "diagnosis": diagnosis}


PORT_DIAG = {"category": "port_in_use", "summary": "port 8000 is taken",
             "evidence": ["OSError: [Errno 98] Address already in use", "pid 4242 (python3) listens on 8000"],
             "fix": "free the port or set vllm_service_port", "confidence": 0.95}


# --------------------------------------------------------------------------------------------
# statuses and counts
# --------------------------------------------------------------------------------------------

def test_a_fleet_with_every_kind_of_outcome():
    results = {
        "a": result("a"),
        "b": result("b", ready=False, diagnosis=PORT_DIAG),
        "c": result("c", release="old-rel", attempted="new-rel", previous="old-rel", rolled_back=True),
    }
    failures = {
        "b": {"task": "Wait until vLLM is ready", "message": "vLLM is not ready at stage 'connect'",
              "unreachable": False},
        "d": {"task": "Install exactly the locked packages", "message": "uv: no matching wheel", "unreachable": False},
        "e": {"task": "Gathering Facts", "message": "ssh: connect to host e port 22: No route to host",
              "unreachable": True},
    }
    report = R.build_report(["a", "b", "c", "d", "e", "f"], results, failures, seen={"a", "b", "c", "d", "e"})
    status = dict((row["host"], row["status"]) for row in report["hosts"])
    assert status == {"a": R.READY, "b": R.NOT_READY, "c": R.ROLLED_BACK, "d": R.FAILED, "e": R.UNREACHABLE,
                      "f": R.NOT_REACHED}
    counts = report["counts"]
    assert (counts["targeted"], counts["ready"], counts["rolled_back"], counts["not_ready"]) == (6, 1, 1, 4)
    assert counts["by_status"] == {R.READY: 1, R.NOT_READY: 1, R.ROLLED_BACK: 1, R.FAILED: 1, R.UNREACHABLE: 1,
                                   R.NOT_REACHED: 1}
    assert report["ok"] is False and R.exit_status(report) == 1
    rows = dict((row["host"], row) for row in report["hosts"])
    assert rows["b"]["why"].startswith("port_in_use: port 8000 is taken")
    assert rows["b"]["failed_task"] == "Wait until vLLM is ready"
    assert rows["c"]["why"] == "new-rel failed; back on old-rel"
    assert rows["d"]["why"] == "Install exactly the locked packages: uv: no matching wheel"
    assert rows["d"]["ready"] is False and rows["d"]["release"] is None
    assert rows["f"]["why"] == "the run stopped before this host's batch"
    # the JSON document is plain JSON
    assert json.loads(json.dumps(report)) == report


def test_all_ready_exits_zero_and_run_rc_counts():
    report = R.build_report(["a", "b"], {"a": result("a"), "b": result("b")}, {}, seen={"a", "b"})
    assert report["ok"] is True
    assert R.exit_status(report) == 0
    assert R.exit_status(report, run_rc=2) == 1
    assert R.summary_line(report) == "OK: 2 targeted: 2 ready, 0 rolled back, 0 not ready"


def test_no_hosts_is_not_ok():
    report = R.build_report([], {}, {}, seen=set())
    assert report["ok"] is False and R.exit_status(report) == 1


def test_ready_but_failed_later_is_not_ok():
    failures = {"a": {"task": "Write the summary as JSON on the controller", "message": "Permission denied",
                      "unreachable": False}}
    report = R.build_report(["a"], {"a": result("a")}, failures, seen={"a"})
    row = report["hosts"][0]
    assert row["status"] == R.FAILED and row["ready"] is True
    assert report["counts"]["not_ready"] == 1 and not report["ok"]


def test_string_booleans_from_templated_facts():
    # set_fact with templated values can hand over "True"/"False" strings
    res = dict(result("a"), ready="True", rolled_back="False")
    row = R.build_row("a", res, seen={"a"})
    assert row["status"] == R.READY and row["ready"] is True and row["rolled_back"] is False
    assert R.build_row("b", dict(result("b"), ready="False"))["status"] == R.NOT_READY


def test_check_mode_counts_hosts_that_went_through():
    results = {"a": result("a", ready=False)}
    failures = {"c": {"task": "Validate inputs before anything changes", "message": "vllm_service_port is 70000",
                      "unreachable": False}}
    report = R.build_report(["a", "b", "c"], results, failures, seen={"a", "b", "c"}, check_mode=True)
    status = dict((row["host"], row["status"]) for row in report["hosts"])
    assert status == {"a": R.CHECKED, "b": R.CHECKED, "c": R.FAILED}
    assert report["counts"]["checked"] == 2 and report["counts"]["not_ready"] == 1
    assert not report["ok"]
    ok = R.build_report(["a", "b"], results, {}, seen={"a", "b"}, check_mode=True)
    assert ok["ok"] and R.exit_status(ok) == 0
    assert "check mode" in R.summary_line(ok)


def test_tags_without_the_gate_count_hosts_that_went_through():
    report = R.build_report(["a"], {}, {}, seen={"a"}, require_gate=False)
    assert report["hosts"][0]["status"] == R.CHECKED and report["ok"]
    assert "leave the readiness gate out" in R.summary_line(report)
    # with the gate required, a host without a result is not ready
    strict = R.build_report(["a"], {}, {}, seen={"a"})
    assert strict["hosts"][0]["status"] == R.NO_RESULT and not strict["ok"]


def test_check_mode_gate_that_found_a_cause_is_not_ready():
    # the gate is read-only and runs in check mode against a running server
    results = {"a": result("a", ready=False, diagnosis=PORT_DIAG)}
    report = R.build_report(["a"], results, {}, seen={"a"}, check_mode=True)
    assert report["hosts"][0]["status"] == R.NOT_READY and not report["ok"]


@pytest.mark.parametrize("tags, skip_tags, expected", [
    (None, None, True),
    (["install"], None, False),
    (["install,service"], None, True),
    (["python", "all"], None, True),
    (None, ["summary"], True),
    (None, ["model,service"], False),
    (["service"], ["service"], False),
])
def test_gate_in_run(tags, skip_tags, expected):
    assert R.gate_in_run(tags, skip_tags) is expected


def test_hostvars_only_report_without_failures_or_seen():
    report = R.build_report(["a", "b"], {"a": result("a")})
    rows = dict((row["host"], row) for row in report["hosts"])
    assert rows["a"]["status"] == R.READY
    assert rows["b"]["status"] == R.NO_RESULT
    assert rows["b"]["why"] == "no rollout result: the run ended before this host finished its service role"
    assert report["failures_known"] is False


def test_diagnosis_with_text_evidence_and_without_summary():
    diag = {"category": "gpu_oom", "evidence": "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate",
            "fix": "lower gpu_memory_utilization", "confidence": 0.9}
    assert R.diagnosis_text(diag).startswith("gpu_oom: torch.OutOfMemoryError")
    assert R.diagnosis_text(None) == ""
    assert R.diagnosis_text({"category": "unknown"}) == "unknown"


# --------------------------------------------------------------------------------------------
# the table
# --------------------------------------------------------------------------------------------

def test_table_is_fixed_width_with_details_for_hosts_not_ready():
    results = {"ws-01": result("ws-01"), "ws-02": result("ws-02", ready=False, diagnosis=PORT_DIAG)}
    failures = {"ws-03": {"task": "Install exactly the locked packages", "message": "\x1b[31mno wheel\x1b[0m\n for x",
                          "unreachable": False}}
    report = R.build_report(["ws-01", "ws-02", "ws-03"], results, failures, seen={"ws-01", "ws-02", "ws-03"})
    lines = R.render_table(report)
    header, rule = lines[0], lines[1]
    assert header.split() == ["HOST", "STATUS", "RELEASE", "BACKEND", "VLLM", "TORCH", "WHY"]
    assert set(rule.replace(" ", "")) == {"-"}
    # every column starts at the same offset on every row
    start = header.index("RELEASE")
    for line in lines[2:5]:
        assert line[start - 2:start] == "  " and line[start] != " "
    assert lines[2].startswith("ws-01  ready ")
    assert lines[3].startswith("ws-02  not ready")
    assert "ws-02 (not ready):" in lines
    assert "  cause: port_in_use - port 8000 is taken" in lines
    assert "  evidence: pid 4242 (python3) listens on 8000" in lines
    assert "  fix: free the port or set vllm_service_port" in lines
    assert "  failed task: Install exactly the locked packages" in lines
    assert "  message: no wheel for x" in lines
    assert lines[-1] == "NOT OK: 3 targeted: 1 ready, 0 rolled back, 2 not ready"
    assert not any("\x1b" in line for line in lines)


def test_table_cuts_long_reasons_but_details_keep_them():
    long = "x" * 300
    report = R.build_report(["a"], {}, {"a": {"task": "T", "message": long, "unreachable": False}}, seen={"a"})
    lines = R.render_table(report)
    assert lines[2].endswith("...") and len(lines[2].split("  ")[-1]) <= R.WHY_WIDTH
    assert "  message: " + long in lines


# --------------------------------------------------------------------------------------------
# --list-hosts --list-tasks
# --------------------------------------------------------------------------------------------

def test_parse_listing_of_a_real_run():
    with open(os.path.join(EVENTS, "listing_serial.txt")) as handle:
        plays = R.parse_listing(handle.read())
    assert [(p["name"], p["pattern"], p["hosts"], p["tasks"]) for p in plays] == [
        ("Work", "vllm_hosts", ["h2", "h1", "h3"], 3), ("Report", "localhost", ["localhost"], 1)]
    assert R.targeted_hosts(plays) == ["h2", "h1", "h3"]
    assert R.task_totals(plays) == {"h1": 3, "h2": 3, "h3": 3}


def test_parse_listing_without_tasks_and_with_several_plays():
    text = ("\nplaybook: site.yml\n\n  play #1 (localhost): Check\tTAGS: [always]\n    pattern: ['localhost']\n"
            "    hosts (1):\n      localhost\n\n  play #2 (vllm_hosts): Provision\tTAGS: []\n"
            "    pattern: ['vllm_hosts']\n    hosts (2):\n      a\n      b\n\n"
            "  play #3 (b:c): Again\tTAGS: []\n    pattern: ['b:c']\n    hosts (2):\n      b\n      c\n")
    plays = R.parse_listing(text)
    assert [p["tasks"] for p in plays] == [None, None, None]
    assert R.targeted_hosts(plays) == ["a", "b", "c"]
    assert R.task_totals(plays) == {"a": 0, "b": 0, "c": 0}
    assert R.parse_listing("") == []


# --------------------------------------------------------------------------------------------
# runner events (real streams)
# --------------------------------------------------------------------------------------------

def feed_all(collector, stream):
    return [line for line in (collector.feed(e) for e in stream) if line]


def test_events_of_a_run_where_one_host_fails():
    collector = R.EventCollector(totals={"h1": 3, "h2": 3, "h3": 3})
    lines = feed_all(collector, events("partial_failure.json"))
    # one line per host and finished task, controller play included
    assert len(lines) == 3 + 3 + 2 + 1
    assert lines[0].startswith("[1/3] h3  ok          Step one (")
    assert any(line.startswith("[2/3] h2  failed      Maybe fail (") and line.endswith("): failing h2")
               for line in lines)
    assert any(line.startswith("[2/3] h1  skipped     Maybe fail") for line in lines)
    assert any(line.startswith("[3/3] h1  ok          Set result") for line in lines)
    assert any(line.startswith("[1/1] localhost  ok          Show") for line in lines)
    assert collector.results == {"h1": {"host": "h1", "ready": True}, "h3": {"host": "h3", "ready": True}}
    assert collector.final_failures() == {"h2": {"task": "Maybe fail", "message": "failing h2", "lines": ["failing h2"],
                                                 "unreachable": False, "changed": 0}}
    assert collector.stats["failures"] == {"h2": 1}
    assert "localhost" not in collector.seen
    report = collector.report(["h1", "h2", "h3"])
    # no task reported a change on h2 before it failed: refused before any change
    assert [(r["host"], r["status"]) for r in report["hosts"]] == [("h1", R.READY), ("h2", R.REFUSED),
                                                                   ("h3", R.READY)]
    assert R.exit_status(report) == R.EXIT_REFUSED == 3


def test_events_of_check_mode_with_an_unreachable_host():
    collector = R.EventCollector()
    lines = feed_all(collector, events("check_mode_unreachable.json"))
    # loop items make no line of their own; the total grows with what a host runs
    assert [line.split(" (")[0] for line in lines] == [
        "[1/1] h1  skipped     Loop over items", "[2/2] h1  skipped     Secret step",
        "[1/1] dead  unreachable Ping it"]
    assert lines[-1].endswith("Connection refused")
    failures = collector.final_failures()
    assert failures["dead"]["unreachable"] is True
    report = collector.report(["h1", "dead"], check_mode=True)
    assert dict((r["host"], r["status"]) for r in report["hosts"]) == {"h1": R.CHECKED, "dead": R.UNREACHABLE}


def test_rescued_failures_do_not_count_but_a_failure_after_the_rescue_does():
    collector = R.EventCollector()
    lines = feed_all(collector, events("rescued_rollback.json"))
    assert sum(" failed " in line for line in lines) == 3
    assert set(collector.failures) == {"h1", "h2"}
    assert collector.final_failures() == {"h2": {"task": "Fail after rollback", "message": "rolled back",
                                                 "lines": ["rolled back"], "unreachable": False, "changed": 0}}
    report = collector.report(["h1", "h2"])
    rows = dict((r["host"], r) for r in report["hosts"])
    assert rows["h1"]["status"] == R.ROLLED_BACK
    assert rows["h2"]["status"] == R.ROLLED_BACK and rows["h2"]["failed_task"] == "Fail after rollback"


def test_changed_ignored_censored_and_summary_events():
    collector = R.EventCollector()
    base = {"host": "ws", "play_pattern": "vllm_hosts", "duration": 84.21}
    changed = {"event": "runner_on_ok", "event_data": dict(base, task="Install exactly the locked packages",
                                                           res={"changed": True})}
    assert collector.feed(changed) == "[1/1] ws  changed     Install exactly the locked packages (84.2s)"
    ignored = {"event": "runner_on_failed", "event_data": dict(base, task="Probe", ignore_errors=True,
                                                               res={"msg": "nope"})}
    assert "ignored" in collector.feed(ignored) and "ws" not in collector.failures
    secret = {"event": "runner_on_failed", "event_data": dict(base, task="Write the secrets file", res={
        "censored": "the output has been hidden due to the fact that 'no_log: true' was specified for this result"})}
    line = collector.feed(secret)
    assert line.endswith("'no_log: true' was specified for this result")
    summary = {"event": "runner_on_ok", "event_data": dict(base, task="Summary", role="vllm_summary",
                                                           task_action="ansible.builtin.debug",
                                                           res={"msg": ["vLLM READY at x", "Stack: y"]})}
    collector.feed(summary)
    assert collector.summaries == {"ws": ["vLLM READY at x", "Stack: y"]}
    # events that are not a finished task make no line
    assert collector.feed({"event": "runner_on_start", "event_data": base}) is None
    assert collector.feed({"event": "verbose", "stdout": "x"}) is None
    # a run cut short (no stats): every failure stands
    assert collector.stats is None and set(collector.final_failures()) == {"ws"}


@pytest.mark.parametrize("res, expected", [
    ({"msg": "non-zero return code", "stderr": "E: Unable to locate package x"},
     "non-zero return code: E: Unable to locate package x"),
    ({"msg": "", "module_stdout": "Traceback ..."}, "Traceback ..."),
    ({"msg": "One or more items failed", "results": [{"failed": True, "msg": "item two broke"}]},
     "One or more items failed"),
    ({"results": [{"failed": False, "msg": "fine"}, {"failed": True, "msg": "item two broke"}]}, "item two broke"),
    ({}, "failed without a message"),
    ("a plain string", "a plain string"),
])
def test_failure_message(res, expected):
    assert R.failure_message(res) == expected


def test_diff_lines_from_a_real_file_diff_event():
    event = {"event": "runner_on_file_diff", "counter": 8,
             "stdout": "--- before\r\n+++ after: ./ws-1.release\r\n@@ -0,0 +1 @@\r\n\x1b[0;32m+rel-2\x1b[0m",
             "event_data": {"host": "ws-1", "task": "Write a file", "diff": [
                 {"before": "", "after_header": "./ws-1.release", "after": "rel-2\n"}]}}
    assert R.diff_lines(event) == ["--- before", "+++ after: ./ws-1.release", "@@ -0,0 +1 @@", "+rel-2"]
    assert R.diff_lines({"event": "runner_on_ok", "stdout": "changed: [ws-1]"}) == []


def test_failures_inside_a_role_name_the_role():
    collector = R.EventCollector(host_width=8)
    line = collector.feed({"event": "runner_on_failed", "event_data": {
        "host": "ws-1", "task": "Validate inputs before anything changes", "role": "vllm_preflight",
        "play_pattern": "vllm_hosts", "res": {"msg": "vllm_service_port is 70000"}, "duration": 0.04}})
    assert line == ("[1/1] ws-1      failed      Validate inputs before anything changes (0.0s): "
                    "vllm_service_port is 70000")
    assert collector.failures["ws-1"]["task"] == "vllm_preflight : Validate inputs before anything changes"


def test_a_rolled_back_host_whose_fact_says_not_ready():
    # the service role may call the host not ready (on the release it tried) and rolled back
    res = result("a", ready=False, release="rel-1", attempted="rel-2", previous="rel-1", rolled_back=True,
                 diagnosis={"category": "model_files", "evidence": "Head size 24 is not supported", "fix": "x"})
    report = R.build_report(["a"], {"a": res}, {"a": {"task": "vllm_service : Fail after the rollback",
                                                      "message": "rolled back", "unreachable": False}}, seen={"a"})
    row = report["hosts"][0]
    assert row["status"] == R.ROLLED_BACK and row["ready"] is False and row["rolled_back"] is True
    assert row["why"] == "rel-2 failed; back on rel-1; model_files: Head size 24 is not supported"
    assert report["counts"]["rolled_back"] == 1 and R.exit_status(report) == 1


def test_rollback_whose_previous_release_does_not_answer_and_gate_stage():
    # the shape vllm_service's rollback records: previous_ready, stage and detail beside the rest
    res = result("a", ready=False, release="rel-1", attempted="rel-2", previous="rel-1", rolled_back=True)
    res.update(previous_ready=False, stage="completion", detail="HTTP 500 from /v1/completions")
    report = R.build_report(["a"], {"a": res}, {}, seen={"a"})
    row = report["hosts"][0]
    assert row["status"] == R.ROLLED_BACK and row["previous_ready"] is False
    assert row["why"] == ("rel-2 failed; back on rel-1, which does NOT answer either; "
                          "stage completion: HTTP 500 from /v1/completions")
    lines = R.render_table(report)
    assert "  tried rel-2, back on rel-1: it does NOT answer either" in lines
    assert "  gate: stage completion: HTTP 500 from /v1/completions" in lines
    res.update(previous_ready=True)
    lines = R.render_table(R.build_report(["a"], {"a": res}, {}, seen={"a"}))
    assert "  tried rel-2, back on rel-1: it answers again" in lines


def test_failure_message_from_a_list_msg():
    # ansible.builtin.fail with a list as msg (the service role's rollback does this)
    res = {"msg": ["vLLM is not ready at stage 'completion'", "Rolled back to release rel-1: it answers again"]}
    assert R.failure_message(res) == ("vLLM is not ready at stage 'completion'; "
                                      "Rolled back to release rel-1: it answers again")


def test_the_counter_counts_listed_tasks_against_a_total_that_does_not_grow():
    text = ("\nplaybook: site.yml\n\n  play #1 (vllm_hosts): Provision\tTAGS: []\n"
            "    pattern: ['vllm_hosts']\n    hosts (1):\n      h1\n    tasks:\n"
            "      r : Step one\tTAGS: [r]\n"
            "      r : Switch to release {{ release }}\tTAGS: [r]\n"
            "      r : Set up under {{ manager }}\tTAGS: [r]\n"
            "      Last\tTAGS: []\n")
    plays = R.parse_listing(text)
    assert plays[0]["task_names"] == ["r : Step one", "r : Switch to release {{ release }}",
                                      "r : Set up under {{ manager }}", "Last"]
    listed = R.listed_tasks(plays)
    assert listed == {"h1": plays[0]["task_names"]}
    collector = R.EventCollector(totals=R.task_totals(plays), listed=listed)

    def done(task, role="r"):
        line = collector.feed({"event": "runner_on_ok", "event_data": {
            "host": "h1", "task": task, "role": role, "play_pattern": "vllm_hosts", "res": {}}})
        return line.split("  ")[0]
    assert done("Step one") == "[1/4] h1"
    assert done("Switch to release rel-2") == "[2/4] h1"
    assert done("Set up under systemd") == "[3/4] h1"
    # tasks of the included file, a handler: not listed, printed with the count where it stands
    assert done("Render the unit") == "[3/4] h1"
    assert done("vllm restart") == "[3/4] h1"
    assert done("Last", role=None) == "[4/4] h1"
    assert done("Last", role=None) == "[4/4] h1"  # a repeat of a listed task does not count twice
    assert R.task_pattern("a {{ x }} b").match("a anything at all b")
    assert not R.task_pattern("a {{ x }} b").match("a c")


def test_listed_tasks_needs_a_task_listing():
    assert R.listed_tasks([{"name": "W", "pattern": "all", "hosts": ["a"], "tasks": None, "task_names": []}]) == {}
    assert R.listed_tasks([{"name": "W", "pattern": "all", "hosts": ["a"], "tasks": 3}]) == {}


def test_the_report_names_each_router_and_its_backends_states():
    collector = R.EventCollector()
    result = {"url": "http://0.0.0.0:30000/v1", "version": "0.1.17", "policy": "round_robin",
              "workers": [{"name": "fleet-1", "url": "http://fleet-1:8000", "state": "healthy"},
                          {"name": "fleet-2", "url": "http://fleet-2:8000", "state": "out"}]}
    collector.feed({"event": "runner_on_ok", "event_data": {
        "host": "router-1", "task": "Publish the router's result", "task_action": "ansible.builtin.set_fact",
        "role": "vllm_router", "play_pattern": "vllm_routers",
        "res": {"ansible_facts": {"vllm_router_result": result}}}})
    report = collector.report(["router-1"])
    assert report["routers"] == [{"host": "router-1", "url": "http://0.0.0.0:30000/v1",
                                  "workers": result["workers"]}]
    lines = R.render_table(report)
    assert "router router-1 at http://0.0.0.0:30000/v1: fleet-1 healthy, fleet-2 out" in lines


def test_no_router_no_router_lines():
    report = R.EventCollector().report([])
    assert "routers" not in report
    assert not [line for line in R.render_table(report) if line.startswith("router ")]


# --------------------------------------------------------------------------------------------
# vllm_instances: one gate row per instance in the host's result
# --------------------------------------------------------------------------------------------

def gate_rows(*rows):
    """Gate rows as vllm_instances.gate_row writes them into vllm_service_rollout.instances."""
    out = []
    for name, port, ready, elapsed, stage, category in rows:
        out.append({"name": name, "port": port, "unit": "vllm@%s.service" % name, "ready": ready,
                    "stage": stage, "elapsed_s": elapsed, "diagnosis": category,
                    "message": None if ready else "instance %s (port %s): vLLM is not ready at stage '%s'"
                    % (name, port, stage)})
    return out


def instances_result(host, rows):
    res = result(host, ready=all(r["ready"] for r in rows))
    failed = [r for r in rows if not r["ready"]]
    res.update({"instances": rows, "diagnosis": failed[0]["diagnosis"] if failed else None,
                "message": [r["message"] for r in failed]})
    return res


def test_a_host_with_instances_keeps_each_instance_in_its_row_and_table():
    rows = gate_rows(("alpha", 8001, True, 41.6, "ready", None), ("beta", 8002, True, 7, "ready", None))
    report = R.build_report(["gpu-1", "ws-01"], {"gpu-1": instances_result("gpu-1", rows), "ws-01": result("ws-01")},
                            {}, seen={"gpu-1", "ws-01"})
    row = report["hosts"][0]
    assert row["status"] == R.READY and row["why"] == ""
    assert row["instances"] == [
        {"name": "alpha", "port": 8001, "unit": "vllm@alpha.service", "ready": True, "elapsed_s": 41.6,
         "stage": None, "diagnosis": None, "message": None},
        {"name": "beta", "port": 8002, "unit": "vllm@beta.service", "ready": True, "elapsed_s": 7,
         "stage": None, "diagnosis": None, "message": None}]
    # a host with one server: no instances
    assert report["hosts"][1]["instances"] is None
    assert json.loads(json.dumps(report)) == report
    lines = R.render_table(report)
    assert lines[2].startswith("gpu-1  ready ")
    assert lines[3] == "  alpha  port 8001  vllm@alpha.service  ready after 42 s"
    assert lines[4] == "  beta   port 8002  vllm@beta.service   ready after 7 s"
    assert lines[5].startswith("ws-01  ready ")
    assert lines[-1] == "OK: 2 targeted: 2 ready, 0 rolled back, 0 not ready"


def test_a_failing_instance_names_its_stage_and_the_doctors_category():
    rows = gate_rows(("alpha", 8001, True, 30, "ready", None), ("beta", 8002, False, 600.2, "connect", "port_in_use"))
    failures = {"gpu-1": {"task": "vllm_summary : Fail the host whose server is not ready",
                          "message": "instance beta (port 8002): vLLM is not ready at stage 'connect'",
                          "unreachable": False, "changed": 5}}
    report = R.build_report(["gpu-1"], {"gpu-1": instances_result("gpu-1", rows)}, failures, seen={"gpu-1"})
    row = report["hosts"][0]
    assert row["status"] == R.NOT_READY
    assert row["instances"][1] == {
        "name": "beta", "port": 8002, "unit": "vllm@beta.service", "ready": False, "elapsed_s": 600.2,
        "stage": "connect", "diagnosis": "port_in_use",
        "message": "instance beta (port 8002): vLLM is not ready at stage 'connect'"}
    assert row["why"] == "instance not ready: beta (port 8002, stage connect, port_in_use)"
    assert report["ok"] is False and R.exit_status(report) == 1
    lines = R.render_table(report)
    assert lines[3] == "  alpha  port 8001  vllm@alpha.service  ready after 30 s"
    assert lines[4] == "  beta   port 8002  vllm@beta.service   NOT READY at stage connect: port_in_use"
    assert "gpu-1 (not ready):" in lines
    assert "  instance beta (port 8002, vllm@beta.service): NOT READY at stage connect: port_in_use" in lines
    assert lines[-1] == "NOT OK: 1 targeted: 0 ready, 0 rolled back, 1 not ready"


def test_instance_rows_take_a_diagnosis_dict_and_skip_what_is_not_a_row():
    rows = R.instance_rows([{"name": "a", "port": 8001, "ready": False, "stage": "load",
                             "diagnosis": {"category": "gpu_oom"}, "elapsed_s": True}, "junk"])
    assert rows == [{"name": "a", "port": 8001, "unit": None, "ready": False, "elapsed_s": None,
                     "stage": "load", "diagnosis": "gpu_oom", "message": None}]
    assert R.instance_state(rows[0]) == "NOT READY at stage load: gpu_oom"
    assert R.instance_table_lines(rows) == ["  a  port 8001  -  NOT READY at stage load: gpu_oom"]
    assert R.instance_rows([]) is None and R.instance_rows(None) is None and R.instance_rows(["x"]) is None
    assert R.instance_state({"ready": True, "elapsed_s": None}) == "ready"


def test_a_host_without_instances_renders_as_before():
    results = {"ws-01": result("ws-01"), "ws-02": result("ws-02", ready=False, diagnosis=PORT_DIAG)}
    with_empty = dict((h, dict(r, instances=[])) for h, r in results.items())
    lines = R.render_table(R.build_report(["ws-01", "ws-02"], results, {}, seen={"ws-01", "ws-02"}))
    assert R.render_table(R.build_report(["ws-01", "ws-02"], with_empty, {}, seen={"ws-01", "ws-02"})) == lines
    assert not [line for line in lines if "port 80" in line and line.startswith("  ") and "instance" in line]
    assert lines[3].startswith("ws-02  not ready") and lines[4] == ""
