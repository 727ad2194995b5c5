# -*- coding: utf-8 -*-
"""The rollout report: which hosts serve which release, which do not and why.

Pure standard-library logic, shared by ``scripts/provision`` (which feeds it ansible-runner
events), the ``vllm_report`` filter (which feeds it hostvars) and the unit tests.

Inputs
------
- ``results``: ``{host: vllm_service_rollout}``, the fact the service role sets on every host that
  reaches the end of the role or fails its readiness gate::

      {host, ready, release, attempted_release, previous_release, rolled_back, backend,
       vllm_package, vllm_version, torch_version, url, model, diagnosis}

  ``diagnosis`` is None or the doctor's result (``category``, ``evidence`` as text or a list,
  ``fix``, optionally ``summary`` and ``confidence``). A host that runs ``vllm_instances`` also has
  ``instances``: one gate row per instance (``vllm_instances.gate_row``: name, port, unit, ready,
  stage, elapsed_s, diagnosis as the doctor's category, message); the row keeps them (see
  :func:`instance_rows`) and the table prints one indented line per instance under the host's.
- ``failures``: ``{host: {"task", "message", "unreachable", "lines", "changed"}}``, the last
  failure of each host that failed (from the runner's events), or None when nobody recorded them
  (a play that only sees hostvars cannot know why a host has no result). ``lines``: the message
  one line per entry (a list of errors stays a list); ``changed``: how many of the host's tasks
  reported a change before this failure (None: unknown).
- ``serving``: ``{host: vllm_preflight_serving}``, what served on the host before this run
  changed anything (``release``: the release ``current`` pointed at, None when nothing is
  installed; ``url``; ``answers``: whether its /health answered then), recorded by the preflight.
- ``seen``: hosts that ran at least one task; a targeted host never seen was not reached (the
  run stopped before its batch). None: unknown.

A host's status
---------------
``ready``        the server answers on the release this run tried
``rolled back``  the new release failed its gate and the previous one serves again (whatever
                 ``ready`` says: the fact may call the host not ready on the release it tried)
``not ready``    a result that is not ready (the doctor's diagnosis says why)
``failed``       failed after some task on it reported a change (install, model, service...)
                 and before it had a result, or failed after its result
``refused``      failed before any task on it reported a change: the preflight refusing bad
                 input, the options checked against the installed vLLM, or any failure that
                 came first; whatever served before serves on (``serving`` says which release
                 and whether it answered). Needs ``changed`` in the failure; without it: failed
``unreachable``  Ansible could not reach it
``not reached``  targeted, but the run stopped before its batch (failure budget, every host of
                 a batch failed)
``removed``      ``vllm_state: absent``: the server was stopped and removed (the result says what
                 went and what was kept); in check mode: would be removed
``checked``      check mode, or a run whose tags leave the readiness gate out: it went through
                 without failing, nothing was proven about the server
``no result``    no rollout result and no failure: the run ended before the host finished its
                 service role (with max_fail_percentage, another host's failure stops the whole
                 batch where it stands), or its tags left the role out

Exit status (:func:`exit_status`): 0 when every targeted host is ``ready`` or ``removed`` (in check mode or
when tags leave the gate out: when none failed); 3 when the hosts that are not are all
``refused`` or ``not reached`` (nothing changed anywhere); 4 when some are ``unreachable`` and
none changed anything and failed; 1 otherwise (a host failed after a change, is not ready, was
rolled back, has no result). ``scripts/provision`` uses 2 for a run that could not start.
"""
from __future__ import absolute_import, division, print_function

import re

from .vllm_common import parse_yaml

__metaclass__ = type

READY = "ready"
ROLLED_BACK = "rolled back"
NOT_READY = "not ready"
FAILED = "failed"
REFUSED = "refused"
UNREACHABLE = "unreachable"
NOT_REACHED = "not reached"
CHECKED = "checked"
NO_RESULT = "no result"
REMOVED = "removed"
STATUSES = (READY, ROLLED_BACK, NOT_READY, FAILED, REFUSED, UNREACHABLE, NOT_REACHED, CHECKED, NO_RESULT, REMOVED)
# how the details and the counts name a status where its table word is short
STATUS_TEXT = {REFUSED: "refused before any change"}
# statuses that "not ready" alone would misstate: the summary line names them
SUMMARY_STATUSES = (REFUSED, UNREACHABLE, NOT_REACHED)

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_CANNOT_START = 2
EXIT_REFUSED = 3
EXIT_UNREACHABLE = 4

RESULT_FACT = "vllm_service_rollout"
SERVING_FACT = "vllm_preflight_serving"
ROUTER_FACT = "vllm_router_result"
RESULT_FIELDS = ("ready", "release", "attempted_release", "previous_release", "rolled_back", "previous_ready",
                 "backend", "vllm_package", "vllm_version", "torch_version", "url", "model", "diagnosis",
                 "stage", "detail", "removed", "instances")
TABLE_COLUMNS = (("HOST", "host"), ("STATUS", "status"), ("RELEASE", "release"), ("BACKEND", "backend"),
                 ("VLLM", "vllm_version"), ("TORCH", "torch_version"), ("WHY", "why"))
WHY_WIDTH = 60
MESSAGE_LIMIT = 600
MESSAGE_LINES = 20

_ANSI_RE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


# --------------------------------------------------------------------------------------------
# Small helpers
# --------------------------------------------------------------------------------------------

def _text(value):
    return "" if value is None else str(value)


def _one_line(text, limit=MESSAGE_LIMIT):
    """Colour codes out, whitespace folded, cut at ``limit`` characters."""
    text = " ".join(_ANSI_RE.sub("", _text(text)).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _truthy(value):
    if isinstance(value, str):
        return value.strip().lower() in ("true", "yes", "1", "on")
    return bool(value)


def _evidence_lines(diagnosis):
    evidence = diagnosis.get("evidence")
    if evidence is None:
        return []
    if isinstance(evidence, (list, tuple)):
        return [_one_line(e, 300) for e in evidence if _text(e).strip()]
    return [_one_line(evidence, 300)] if _text(evidence).strip() else []


def diagnosis_text(diagnosis):
    """One short phrase for the table: ``category: summary`` (or the first evidence line)."""
    if not isinstance(diagnosis, dict) or not diagnosis.get("category"):
        return ""
    detail = diagnosis.get("summary") or next(iter(_evidence_lines(diagnosis)), "")
    return "%s: %s" % (diagnosis["category"], _one_line(detail)) if detail else _text(diagnosis["category"])


# --------------------------------------------------------------------------------------------
# Instances (vllm_instances): one gate row per instance in the host's result
# --------------------------------------------------------------------------------------------

def instance_rows(instances):
    """The report's entries of a host's instances from its result's ``instances`` (the gate rows of
    ``vllm_instances.gate_row``): ``[{name, port, unit, ready, elapsed_s, stage, diagnosis,
    message}]``, with ``stage``, ``diagnosis`` and ``message`` None for a ready instance and
    ``diagnosis`` the doctor's category. None when the host has no instances (a host with one
    server)."""
    if not isinstance(instances, (list, tuple)) or not instances:
        return None
    rows = []
    for item in instances:
        if not isinstance(item, dict):
            continue
        ready = _truthy(item.get("ready"))
        diagnosis = item.get("diagnosis")
        if isinstance(diagnosis, dict):
            diagnosis = diagnosis.get("category")
        elapsed = item.get("elapsed_s")
        rows.append({
            "name": item.get("name"),
            "port": item.get("port"),
            "unit": item.get("unit"),
            "ready": ready,
            "elapsed_s": elapsed if isinstance(elapsed, (int, float)) and not isinstance(elapsed, bool) else None,
            "stage": None if ready else (item.get("stage") or None),
            "diagnosis": None if ready else (_text(diagnosis) or None),
            "message": None if ready or not item.get("message") else _one_line(item["message"], 300),
        })
    return rows or None


def instance_state(instance):
    """How one instance came out, as a phrase: ``ready after 42 s``, ``NOT READY at stage connect:
    port_in_use``."""
    if instance["ready"]:
        if instance.get("elapsed_s") is None:
            return "ready"
        return "ready after %d s" % int(round(instance["elapsed_s"]))
    text = "NOT READY"
    if instance.get("stage"):
        text += " at stage %s" % instance["stage"]
    if instance.get("diagnosis"):
        text += ": %s" % instance["diagnosis"]
    return text


def instance_table_lines(instances):
    """The indented lines under a host's line in the table: one per instance, its name, port,
    unit and state, the columns aligned within the host."""
    if not instances:
        return []
    cells = [[_text(i.get("name")) or "?", "port %s" % (_text(i.get("port")) or "?"),
              _text(i.get("unit")) or "-", instance_state(i)] for i in instances]
    widths = [max(len(c[k]) for c in cells) for k in range(3)]
    return ["  " + "  ".join([c[k].ljust(widths[k]) for k in range(3)] + [c[3]]) for c in cells]


def _instances_why(instances):
    """The WHY of a host whose instances did not all pass their gates: which did not and why."""
    failed = [i for i in instances or [] if not i["ready"]]
    if not failed:
        return ""
    return "instance%s not ready: %s" % ("s" if len(failed) > 1 else "", ", ".join(
        "%s (%s)" % (i.get("name"), ", ".join(
            p for p in ("port %s" % i.get("port"), ("stage %s" % i["stage"]) if i.get("stage") else "",
                        i.get("diagnosis") or "") if p))
        for i in failed))


# --------------------------------------------------------------------------------------------
# Rows and the report document
# --------------------------------------------------------------------------------------------

def host_status(host, result=None, failure=None, seen=None, check_mode=False, require_gate=True):
    """A host's status (see the module's docstring) from what the run recorded of it: its rollout
    ``result``, its last standing ``failure`` (with ``changed``, the changes before it), the hosts
    ``seen`` running a task, whether this was a check run and whether the gate was in it."""
    if result is not None:
        if _truthy(result.get("removed")):
            # vllm_state absent: removed on purpose, not a server that failed
            return FAILED if failure else REMOVED
        ready = _truthy(result.get("ready"))
        if _truthy(result.get("rolled_back")):
            # the release this run tried failed its gate; the previous one serves again
            return ROLLED_BACK
        if ready:
            return FAILED if failure else READY
        if (check_mode or not require_gate) and not result.get("diagnosis"):
            # nothing was started or probed: not ready is not a finding
            return FAILED if failure else CHECKED
        return NOT_READY
    if failure:
        if failure.get("unreachable"):
            return UNREACHABLE
        # no task reported a change on this host before it failed: nothing was changed
        return REFUSED if failure.get("changed") == 0 else FAILED
    if seen is None:
        return NO_RESULT
    if host not in seen:
        return NOT_REACHED
    return CHECKED if (check_mode or not require_gate) else NO_RESULT


def serving_text(serving):
    """What served before the run, as a phrase: ``still serving rel-1 at URL``, ``nothing installed
    yet``...; "" when the preflight did not record it."""
    if not isinstance(serving, dict):
        return ""
    release = serving.get("release")
    if not release:
        return "nothing installed yet"
    where = (" at %s" % serving["url"]) if serving.get("url") else ""
    answers = serving.get("answers")
    if answers is None:
        return "still on release %s%s" % (release, where)
    if _truthy(answers):
        return "still serving release %s%s" % (release, where)
    return "release %s%s did not answer before this run either" % (release, where)


def serving_state(current=None, options=None):
    """What serves on a host before a run changes it, from a ``stat`` of ``<vllm_python_root>/current``
    (``current``: the registered stat result, or the link's target) and the options file the
    server runs with (``options``: its YAML as a dict): ``{release, url, health_url}``. ``release``
    None: nothing installed yet; ``url`` None: no options file to say where it listens.
    ``health_url`` probes a wildcard bind address on loopback."""
    if isinstance(current, dict):
        stat = current.get("stat") if isinstance(current.get("stat"), dict) else current
        target = stat.get("lnk_target") if stat.get("islnk") else None
    else:
        target = current
    release = _text(target).rstrip("/").rsplit("/", 1)[-1] or None
    options = options if isinstance(options, dict) else {}
    url = health = None
    if release and options.get("port") not in (None, ""):
        host = _text(options.get("host") or "127.0.0.1")
        probe = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(host, host)

        def bracket(name):
            return ("[%s]" % name) if ":" in name else name
        url = "http://%s:%s/v1" % (bracket(host), options["port"])
        health = "http://%s:%s/health" % (bracket(probe), options["port"])
    return {"release": release, "url": url, "health_url": health}


def _why(status, result, failure, serving=None):
    """What explains a host that is not plainly ready: diagnosis, failed task, or the status."""
    if status in (READY, CHECKED):
        return ""
    if status == REMOVED:
        return _one_line((result or {}).get("detail") or "removed")
    parts = []
    if status == ROLLED_BACK and result:
        parts.append("%s failed; back on %s%s" % (
            result.get("attempted_release") or "the new release",
            result.get("release") or result.get("previous_release") or "the previous release",
            ", which does NOT answer either" if result.get("previous_ready") is False else ""))
    if status == REFUSED:
        parts.append(("nothing changed, " + serving_text(serving)) if serving_text(serving) else "nothing changed")
    diagnosis = (result or {}).get("diagnosis")
    instances_why = _instances_why(instance_rows((result or {}).get("instances")))
    if instances_why:
        # vllm_instances: the gate of each instance says which did not answer (the host's
        # diagnosis is only the first failed instance's category)
        parts.append(instances_why)
    elif diagnosis_text(diagnosis):
        parts.append(diagnosis_text(diagnosis))
    elif result and result.get("stage") and not _truthy(result.get("ready")):
        parts.append(_one_line("stage %s: %s" % (result["stage"], _text(result.get("detail")))))
    elif failure:
        message = _one_line(failure.get("message"))
        parts.append("%s: %s" % (failure["task"], message) if failure.get("task") else message)
    elif status == NOT_REACHED:
        parts.append("the run stopped before this host's batch")
    elif status == NO_RESULT:
        parts.append("no rollout result: the run ended before this host finished its service role")
    elif status == NOT_READY:
        parts.append("not ready and no diagnosis")
    return "; ".join(parts)


def build_row(host, result=None, failure=None, seen=None, check_mode=False, require_gate=True, serving=None):
    """One host's row of the report."""
    result = dict(result) if isinstance(result, dict) else None
    failure = dict(failure) if isinstance(failure, dict) else None
    serving = dict(serving) if isinstance(serving, dict) else None
    status = host_status(host, result, failure, seen, check_mode, require_gate)
    row = {"host": host, "status": status}
    for field in RESULT_FIELDS:
        row[field] = (result or {}).get(field)
    row["ready"] = _truthy(row["ready"]) if result is not None else False
    row["removed"] = _truthy(row["removed"]) if result is not None else False
    row["rolled_back"] = _truthy(row["rolled_back"]) if result is not None else False
    row["instances"] = instance_rows(row["instances"])
    row["failed_task"] = (failure or {}).get("task")
    row["message"] = _one_line(failure.get("message")) if failure else None
    lines = (failure or {}).get("lines")
    row["message_lines"] = ([_one_line(line, 300) for line in lines][:MESSAGE_LINES]
                            if isinstance(lines, (list, tuple)) and lines else None)
    row["changed_before_failure"] = (failure or {}).get("changed")
    row["serving"] = ({"release": serving.get("release") or None, "url": serving.get("url") or None,
                       "answers": None if serving.get("answers") is None else _truthy(serving["answers"])}
                      if serving is not None else None)
    if status == REFUSED and not row["release"] and row["serving"]:
        # the release that still serves (the run changed nothing)
        row["release"] = row["serving"]["release"]
    row["why"] = _why(status, result, failure, serving)
    return row


def build_report(hosts, results, failures=None, seen=None, check_mode=False, require_gate=True, serving=None):
    """The report document: ``{"check_mode", "require_gate", "hosts": [rows], "counts", "ok"}``.

    ``hosts``: the targeted hosts (hosts with a result or a failure are added to them); rows are
    sorted by host name. ``require_gate`` False: the run's tags leave the gate out, so success
    means "went through without failing" as in check mode.
    """
    results = dict(results or {})
    serving = dict(serving or {})
    failures_known = failures is not None
    failures = dict(failures or {})
    order = sorted(set(hosts or []) | set(results) | set(failures))
    rows = [build_row(h, results.get(h), failures.get(h), seen, check_mode, require_gate, serving.get(h))
            for h in order]
    by_status = dict((s, 0) for s in STATUSES)
    for row in rows:
        by_status[row["status"]] += 1
    counts = {
        "targeted": len(rows),
        "ready": by_status[READY],
        "rolled_back": by_status[ROLLED_BACK],
        "not_ready": (len(rows) - by_status[READY] - by_status[ROLLED_BACK] - by_status[CHECKED]
                      - by_status[REMOVED]),
        "checked": by_status[CHECKED],
        "removed": by_status[REMOVED],
        "by_status": dict((s, n) for s, n in by_status.items() if n),
    }
    good = (READY, REMOVED) if (require_gate and not check_mode) else (READY, CHECKED, REMOVED)
    return {
        "check_mode": bool(check_mode),
        "require_gate": bool(require_gate),
        "failures_known": failures_known,
        "hosts": rows,
        "counts": counts,
        "ok": bool(rows) and all(row["status"] in good for row in rows),
    }


def gate_in_run(tags=None, skip_tags=None, gate_tags=("service",)):
    """Whether this run's ``--tags``/``--skip-tags`` leave the readiness gate (the service role,
    tagged ``service`` in playbooks/provision.yml) in. Each argument: a list of comma-separated
    strings, as given on the command line."""
    def split(values):
        return set(t.strip() for v in (values or []) for t in str(v).split(",") if t.strip())
    tags, skip_tags = split(tags), split(skip_tags)
    if skip_tags & set(gate_tags):
        return False
    return not tags or bool(tags & (set(gate_tags) | {"all"}))


def exit_status(report, run_rc=0):
    """The run's exit status from its report: 0 every targeted host fine (see build_report's
    ``ok``) and the run itself succeeded; 3 the hosts that are not fine were all refused before any
    change or not reached (nothing changed anywhere: fix the input and run again); 4 some are
    unreachable and the others refused or not reached; 1 otherwise (a host failed after a
    change, is not ready, rolled back, has no result; or no host at all)."""
    rows = report.get("hosts") or []
    if report.get("ok") and not run_rc:
        return EXIT_OK
    bad = set(row["status"] for row in rows if row["status"] not in (READY, REMOVED))
    if not rows or not bad or bad - {REFUSED, UNREACHABLE, NOT_REACHED} or bad == {NOT_REACHED}:
        return EXIT_FAILED
    return EXIT_UNREACHABLE if UNREACHABLE in bad else EXIT_REFUSED


def summary_line(report):
    counts = report["counts"]
    words = "%d targeted: %d ready, %d rolled back, %d not ready" % (
        counts["targeted"], counts["ready"], counts["rolled_back"], counts["not_ready"])
    named = ["%d %s" % (counts["by_status"][s], STATUS_TEXT.get(s, s))
             for s in SUMMARY_STATUSES if counts["by_status"].get(s)]
    if named:
        words += " (%s)" % ", ".join(named)
    if counts["checked"]:
        words += ", %d checked" % counts["checked"]
    if counts.get("removed"):
        words += ", %d removed" % counts["removed"]
    if report["check_mode"]:
        words += " (check mode: nothing was started, no server was probed)"
    elif not report["require_gate"]:
        words += " (the tags of this run leave the readiness gate out)"
    return ("OK: " if report["ok"] else "NOT OK: ") + words


def router_rows(routers):
    """The report's routers: ``[{host, url, workers: [{name, url, state}]}]`` from each router
    host's ``vllm_router_result``, in host order."""
    return [{"host": host, "url": routers[host].get("url"),
             "workers": [dict(w) for w in routers[host].get("workers") or [] if isinstance(w, dict)]}
            for host in sorted(routers)]


def router_table_lines(report):
    """Text lines for the routers of the report: each router's URL and its backends' states."""
    lines = []
    for router in report.get("routers") or []:
        lines.append("router %s at %s: %s" % (router["host"], router["url"], ", ".join(
            "%s %s" % (w.get("name"), w.get("state")) for w in router["workers"]) or "no backend"))
    return lines


def render_table(report, why_width=WHY_WIDTH):
    """The report as text lines: a fixed-width table, then the details of every host that is not
    ready (diagnosis with evidence and fix, or the failed task and its message), then the counts."""
    rows = report["hosts"]
    cells = []
    for row in rows:
        line = []
        for _, key in TABLE_COLUMNS:
            value = _text(row.get(key)) or "-"
            if key == "why" and len(value) > why_width:
                value = value[:why_width - 3] + "..."
            line.append(value)
        cells.append(line)
    widths = [max([len(title)] + [len(c[i]) for c in cells]) for i, (title, _) in enumerate(TABLE_COLUMNS)]

    def fmt(values):
        return "  ".join(v.ljust(w) for v, w in zip(values, widths)).rstrip()

    lines = [fmt([title for title, _ in TABLE_COLUMNS]), fmt(["-" * w for w in widths])]
    for row, cell in zip(rows, cells):
        lines.append(fmt(cell))
        # vllm_instances: one indented line per instance under its host's
        lines.extend(instance_table_lines(row.get("instances")))
    details = []
    for row in rows:
        if row["status"] in (READY, CHECKED, REMOVED):
            continue
        details.append("%s (%s):" % (row["host"], STATUS_TEXT.get(row["status"], row["status"])))
        if row["status"] == REFUSED:
            details.append("  nothing was changed on it%s" % (
                (": " + serving_text(row["serving"])) if row.get("serving") else ""))
        elif row["status"] == FAILED and row.get("changed_before_failure") and (row.get("serving") or {}).get("release"):
            details.append("  %d task(s) %s before it failed; before this run it ran release %s%s" % (
                row["changed_before_failure"],
                "would have changed it (check mode)" if report["check_mode"] else "changed it",
                row["serving"]["release"],
                (" at %s" % row["serving"]["url"]) if row["serving"]["url"] else ""))
        if row["status"] == ROLLED_BACK:
            details.append("  tried %s, back on %s: %s" % (
                row.get("attempted_release") or "?", row.get("release") or row.get("previous_release") or "?",
                "it does NOT answer either" if row.get("previous_ready") is False else "it answers again"
                if row.get("previous_ready") else "serving it again"))
        if row.get("stage") and row["status"] in (NOT_READY, ROLLED_BACK):
            details.append("  gate: stage %s: %s" % (row["stage"], _one_line(row.get("detail"))))
        for instance in row.get("instances") or []:
            if not instance["ready"]:
                details.append("  instance %s (port %s, %s): %s" % (
                    instance.get("name"), instance.get("port"), instance.get("unit") or "-",
                    instance_state(instance)))
        diagnosis = row.get("diagnosis")
        if isinstance(diagnosis, dict) and diagnosis.get("category"):
            details.append("  cause: %s%s" % (diagnosis["category"], (" - " + _one_line(diagnosis["summary"]))
                                              if diagnosis.get("summary") else ""))
            details.extend("  evidence: %s" % e for e in _evidence_lines(diagnosis))
            if diagnosis.get("fix"):
                details.append("  fix: %s" % _one_line(diagnosis["fix"]))
        if row.get("failed_task"):
            details.append("  failed task: %s" % row["failed_task"])
            message_lines = row.get("message_lines") or []
            if len(message_lines) > 1:
                # a list of errors: one per line, as the task wrote them
                details.append("  message: %s" % message_lines[0])
                details.extend("    %s" % line for line in message_lines[1:])
            elif row.get("message"):
                details.append("  message: %s" % row["message"])
        if len(details) and details[-1].endswith("):"):
            details.append("  %s" % (row["why"] or "no detail"))
    if details:
        lines.append("")
        lines.extend(details)
    lines.append("")
    lines.extend(router_table_lines(report))
    lines.append(summary_line(report))
    return lines


# --------------------------------------------------------------------------------------------
# ansible-playbook --list-hosts --list-tasks
# --------------------------------------------------------------------------------------------

_PLAY_RE = re.compile(r"^\s*play #\d+ \((?P<pattern>.*?)\): (?P<name>.*?)(?:\tTAGS: \[.*\])?\s*$")
_HOSTS_RE = re.compile(r"^\s*hosts \(\d+\):\s*$")


def parse_listing(text):
    """Plays from ``ansible-playbook --list-hosts [--list-tasks]`` output:
    ``[{"name", "pattern", "hosts": [...], "tasks": N, "task_names": [...]}]`` (N is None without
    --list-tasks; ``task_names`` as listed, ``role : name`` with the name's Jinja untemplated)."""
    plays = []
    section = None
    for raw in (text or "").splitlines():
        match = _PLAY_RE.match(raw)
        if match:
            plays.append({"name": match.group("name").strip(), "pattern": match.group("pattern"),
                          "hosts": [], "tasks": None, "task_names": []})
            section = None
            continue
        if not plays:
            continue
        stripped = raw.strip()
        if _HOSTS_RE.match(raw):
            section = "hosts"
        elif stripped == "tasks:":
            section = "tasks"
            plays[-1]["tasks"] = 0
        elif stripped.startswith("pattern:"):
            section = None
        elif not stripped:
            section = None
        elif section == "hosts":
            plays[-1]["hosts"].append(stripped)
        elif section == "tasks":
            plays[-1]["tasks"] += 1
            plays[-1]["task_names"].append(stripped.split("\tTAGS:", 1)[0].strip())
    return plays


def targeted_hosts(plays, skip_patterns=("localhost",)):
    """Hosts the run targets: every host of every play except the controller-only plays."""
    hosts = []
    for play in plays:
        if play["pattern"] in skip_patterns:
            continue
        for host in play["hosts"]:
            if host not in hosts:
                hosts.append(host)
    return hosts


def task_totals(plays, skip_patterns=("localhost",)):
    """{host: tasks listed for it before the run}; included task files add to it at run time."""
    totals = {}
    for play in plays:
        if play["pattern"] in skip_patterns:
            continue
        for host in play["hosts"]:
            totals[host] = totals.get(host, 0) + (play["tasks"] or 0)
    return totals


def listed_tasks(plays, skip_patterns=("localhost",)):
    """{host: [task names listed for it before the run, in order]} (see :func:`parse_listing`)."""
    listed = {}
    for play in plays:
        if play["pattern"] in skip_patterns or play.get("task_names") is None or play.get("tasks") is None:
            # without --list-tasks (or a listing that names no task): no fixed list to count
            continue
        for host in play["hosts"]:
            listed.setdefault(host, []).extend(play["task_names"])
    return listed


_JINJA_RE = re.compile(r"\{\{.*?\}\}|\{%.*?%\}")


def task_pattern(listed_name):
    """A listed task name as a regular expression for the name the run gives it: the listing
    prints names untemplated, the run templated (``{{ x }}`` matches anything)."""
    parts = _JINJA_RE.split(listed_name)
    return re.compile("^" + ".*".join(re.escape(p) for p in parts) + "$", re.DOTALL)


# --------------------------------------------------------------------------------------------
# ansible-runner events
# --------------------------------------------------------------------------------------------

FINISHED = {
    "runner_on_ok": "ok",
    "runner_on_failed": "failed",
    "runner_on_skipped": "skipped",
    "runner_on_unreachable": "unreachable",
}


def _msg_lines(msg):
    """A task's ``msg`` as lines: a list's entries, a string's lines (blank ones out)."""
    items = msg if isinstance(msg, (list, tuple)) else [msg]
    lines = []
    for item in items:
        lines.extend(line.rstrip() for line in _text(item).splitlines() if line.strip())
    return lines


def _join_lines(lines):
    """Lines made one: ``head: a; b`` (a list's ``- `` marks dropped)."""
    out = ""
    for line in lines:
        line = line.strip()
        line = line[2:] if line.startswith("- ") else line
        out = line if not out else out + (" " if out.endswith(":") else "; ") + line
    return out


def failure_lines(res):
    """What a failed result says, one line per entry: the lines of ``msg`` (a list of errors
    stays one error a line); [] when it has no ``msg`` (see :func:`failure_message`)."""
    if not isinstance(res, dict) or res.get("censored"):
        return []
    return [_ANSI_RE.sub("", line) for line in _msg_lines(res.get("msg"))]


def failure_message(res):
    """What a failed result says: ``msg`` (with stderr or the module's stdout when it is all)."""
    if not isinstance(res, dict):
        return _one_line(res)
    if res.get("censored"):
        return _one_line(res["censored"])
    msg = _join_lines(_msg_lines(res.get("msg")))
    extra = _text(res.get("stderr")).strip() or _text(res.get("module_stderr")).strip()
    if not msg and isinstance(res.get("results"), list):
        failed = [r for r in res["results"] if isinstance(r, dict) and r.get("failed")]
        if failed:
            return failure_message(failed[-1])
    if extra and extra not in msg:
        msg = ("%s: %s" % (msg, extra)) if msg else extra
    return _one_line(msg or _text(res.get("module_stdout")) or "failed without a message")


def diff_lines(event):
    """The diff a task printed (``--diff``: ansible-runner sends it as its own
    ``runner_on_file_diff`` event, before the task's result), colour codes out; [] otherwise."""
    if event.get("event") != "runner_on_file_diff":
        return []
    text = _text(event.get("stdout")).replace("\r", "")
    return [_ANSI_RE.sub("", line).rstrip() for line in text.split("\n") if line.strip()]


class EventCollector(object):
    """Follows a run's ansible-runner events: progress lines, results, failures, summaries.

    ``listed``: ``{host: [task names]}`` from the listing before the run (:func:`listed_tasks`):
    a host's counter then counts those tasks done over how many were listed, a total that does
    not change during the run; a task that was not listed (from an included file, a handler)
    gets a line with the count where it stands. Without a listing for a host, ``totals``
    (``{host: tasks expected}``, see :func:`task_totals`) is the total, raised to what the host
    ran when it runs more. ``host_width``: host names are
    padded to it so that the columns of the progress lines line up. ``skip_patterns``: plays whose host
    pattern is one of these (the controller's own plays) give progress lines but no host state.
    """

    def __init__(self, totals=None, skip_patterns=("localhost",), summary_role="vllm_summary", host_width=0,
                 listed=None):
        self.totals = dict(totals or {})
        self.pending = dict((h, [(n, task_pattern(n)) for n in names]) for h, names in (listed or {}).items())
        for host, names in self.pending.items():
            self.totals[host] = len(names)
        self.host_width = host_width
        self.skip_patterns = tuple(skip_patterns)
        self.summary_role = summary_role
        self.done = {}
        self.results = {}
        self.failures = {}
        self.seen = set()
        self.summaries = {}
        self.serving = {}
        self.routers = {}
        self.changed = {}
        self.timings = []
        self.stats = None

    def feed(self, event):
        """Take one event; returns the progress line it makes, or None."""
        kind = event.get("event")
        data = event.get("event_data") or {}
        if kind == "playbook_on_stats":
            self.stats = dict((k, dict(v)) for k, v in data.items()
                              if k in ("ok", "changed", "failures", "dark", "skipped", "processed",
                                       "rescued", "ignored") and isinstance(v, dict))
            return None
        if kind not in FINISHED:
            return None
        host = data.get("host") or "?"
        res = data.get("res") if isinstance(data.get("res"), dict) else {}
        word = FINISHED[kind]
        if word == "ok" and res.get("changed"):
            word = "changed"
        if word == "failed" and data.get("ignore_errors"):
            word = "ignored"
        controller_play = data.get("play_pattern") in self.skip_patterns
        if not controller_play:
            self._record(host, data, res, word)
        count, total = self._count(host, data)
        duration = data.get("duration")
        if isinstance(duration, (int, float)):
            self.timings.append({"host": host, "task": _one_line(data.get("task"), 200), "role": data.get("role"),
                                 "duration": float(duration), "status": word})
        line = "[%d/%d] %s  %-11s %s" % (count, total, host.ljust(self.host_width), word,
                                         _one_line(data.get("task"), 120))
        if isinstance(duration, (int, float)):
            line += " (%.1fs)" % duration
        if word in ("failed", "unreachable"):
            line += ": " + failure_message(res)
        return line

    def _count(self, host, data):
        """(count, total) for a host's finished task (see the class)."""
        if host not in self.pending:
            count = self.done[host] = self.done.get(host, 0) + 1
            return count, self._raise_total(host, count)
        task = _text(data.get("task")).strip()
        role = data.get("role")
        label = ("%s : %s" % (role, task)) if role and not task.startswith("%s : " % role) else task
        pending = self.pending[host]
        for index, (_, pattern) in enumerate(pending):
            if pattern.match(label):
                del pending[index]
                self.done[host] = self.done.get(host, 0) + 1
                break
        return self.done.get(host, 0), self.totals[host]

    def _raise_total(self, host, count):
        total = self.totals[host] = max(self.totals.get(host, 0), count)
        return total

    def _record(self, host, data, res, word):
        self.seen.add(host)
        if _truthy(res.get("changed")) and word != "skipped":
            # a failed task that says it changed something counts too
            self.changed[host] = self.changed.get(host, 0) + 1
        facts = res.get("ansible_facts")
        if isinstance(facts, dict) and isinstance(facts.get(RESULT_FACT), dict):
            self.results[host] = dict(facts[RESULT_FACT])
        if isinstance(facts, dict) and isinstance(facts.get(SERVING_FACT), dict):
            self.serving[host] = dict(facts[SERVING_FACT])
        if isinstance(facts, dict) and isinstance(facts.get(ROUTER_FACT), dict):
            self.routers[host] = dict(facts[ROUTER_FACT])
        if word in ("failed", "unreachable"):
            task = _one_line(data.get("task"), 200)
            if data.get("role") and not task.startswith("%s : " % data["role"]):
                task = "%s : %s" % (data["role"], task)
            self.failures[host] = {"task": task, "message": failure_message(res),
                                   "lines": failure_lines(res), "unreachable": word == "unreachable",
                                   "changed": self.changed.get(host, 0)}
        if (word == "ok" and data.get("role") == self.summary_role and data.get("task_action") in
                ("ansible.builtin.debug", "debug") and res.get("msg")):
            msg = res["msg"]
            self.summaries[host] = [_text(m) for m in msg] if isinstance(msg, list) else _text(msg).splitlines()

    def final_failures(self):
        """Failures that stand at the end: a host whose failures were all rescued (the stats say
        so) is not failed; without stats (a run cut short) every recorded failure stands."""
        if self.stats is None:
            return dict(self.failures)
        failed = set(h for h, n in self.stats.get("failures", {}).items() if n)
        failed |= set(h for h, n in self.stats.get("dark", {}).items() if n)
        return dict((h, f) for h, f in self.failures.items() if h in failed)

    def report(self, hosts, check_mode=False, require_gate=True):
        seen = set(self.seen)
        if self.stats is not None:
            seen |= set(self.stats.get("processed", {}))
        report = build_report(hosts, self.results, self.final_failures(), seen, check_mode, require_gate,
                              self.serving)
        if self.routers:
            report["routers"] = router_rows(self.routers)
        return report


# --------------------------------------------------------------------------------------------
# Per-task timings
# --------------------------------------------------------------------------------------------

def slowest_tasks(timings, count=15):
    """The ``count`` slowest task runs (``{host, task, role, duration, status}``), slowest first."""
    runs = [t for t in (timings or []) if isinstance(t, dict) and isinstance(t.get("duration"), (int, float))]
    return sorted(runs, key=lambda t: (-t["duration"], t.get("host") or "", t.get("task") or ""))[:max(count, 0)]


def render_timings(timings, count=15):
    """Text lines: the slowest task runs with their durations, then each host's total."""
    runs = slowest_tasks(timings, count)
    if not runs:
        return ["no task timings recorded"]
    hosts = {}
    for t in timings:
        if isinstance(t, dict) and isinstance(t.get("duration"), (int, float)):
            hosts[t.get("host") or "?"] = hosts.get(t.get("host") or "?", 0.0) + t["duration"]
    width = max(len(t.get("host") or "?") for t in runs)
    lines = ["slowest %d of %d task runs:" % (len(runs), sum(1 for t in timings if isinstance(t, dict)))]
    for t in runs:
        task = t.get("task") or "?"
        if t.get("role") and not task.startswith("%s : " % t["role"]):
            task = "%s : %s" % (t["role"], task)
        lines.append("%8.1fs  %s  %-8s %s" % (t["duration"], (t.get("host") or "?").ljust(width),
                                             t.get("status") or "", _one_line(task, 120)))
    lines.append("total task time: " + ", ".join("%s %.1fs" % (h, d) for h, d in sorted(hosts.items())))
    return lines


def options_before(slurped):
    """The options file as it was before this run, from its ``slurp`` result: the YAML mapping,
    or ``{}`` when there was no file (no ``content``) or it was empty."""
    import base64

    content = (slurped or {}).get("content") if isinstance(slurped, dict) else None
    if content is None:
        return {}
    text = base64.b64decode(content).decode("utf-8", "surrogateescape")
    return parse_yaml(text) or {}


def _jinja_int(value, default=0):
    """Jinja's ``int`` filter: the integer, a float's or numeric string's integer part, else 0."""
    try:
        if isinstance(value, str):
            return int(value, 10)
        return int(value)
    except (TypeError, ValueError):
        try:
            return int(float(value))
        except (TypeError, ValueError, OverflowError):
            return default


def _mib(size_bytes):
    """Bytes as MiB rounded to one decimal, as the roles' ``(x | int / 1048576) | round(1)``."""
    return round(_jinja_int(size_bytes) / 1048576, 1)


def _prefixed(prefix, values):
    return [prefix + str(value) for value in values]


def plan_lines(plan):
    """What the plan picked (one line) and why (its reasons), for the preflight's output."""
    return ["Plan: %s %s (%s), torch %s, Python %s (%s)" % (
        plan["vllm_package"], plan["vllm_version"], plan["backend"], plan["torch_version"],
        plan["python_version"], plan["python_source"])] + list(plan["reasons"])


def venv_ok_line(found, plan):
    """The line a venv that holds what the plan said gets (vllm_install's check, verify_venv.py's
    report ``found``): vLLM, torch and its CUDA, Python, the kernels and compiled extensions."""
    line = "venv ok: %s %s, torch %s (%s), Python %s" % (
        plan["vllm_package"], found["packages"][plan["vllm_package"]], found["torch_version"],
        ("CUDA %s" % (found["torch_cuda"],)) if found["torch_cuda"] else "cpu", found["python"])
    if found.get("cuda_archs"):
        line += ", kernels for " + " ".join(str(arch) for arch in found["cuda_archs"])
    if found.get("extensions_checked"):
        line += ", %s compiled extensions resolve" % (found["extensions_checked"],)
    return line


def model_preflight_lines(preflight, path):
    """What the model preflight found (vllm_model_check's result): the model's architectures,
    weights format, size and files, then its warnings."""
    facts = preflight["facts"]
    return (["Model %s: %s, %s weights, %s MiB in %s files" % (
        path, ", ".join(str(a) for a in facts["architectures"]), facts["weights_format"],
        _mib(facts["weights_bytes"]), len(facts["weight_files"]))]
        + _prefixed("Warning: ", preflight["warnings_list"]))


def summary_changes(install, model, service, wsl):
    """What this run changed on the host, for the summary's ``changed`` list (in this order:
    packages, model, server, then the WSL files)."""
    changes = []
    if install["changed"]:
        changes.append("packages installed (%s)" % (install["release"],))
    if model["generated"]:
        changes.append("model generated")
    if model.get("downloaded", False):
        changes.append("model downloaded (%s MiB)" % (_mib(model["downloaded_bytes"]),))
    if service["options_changed"]:
        changes.append("server options or environment")
    if service["restarted"]:
        changes.append("server (re)started")
    return changes + list(wsl.get("changed_files", []))


def summary_next_steps(manager, host, wsl, notices):
    """What the user does next: start the launcher at WSL's boot (no systemd), restart WSL when
    its files changed, then the roles' notices."""
    steps = []
    if manager == "launcher" and host["wsl"]["is_wsl"]:
        steps.append("add vllm-launcher start to your WSL boot command (/etc/wsl.conf [boot] command)"
                     " or enable systemd")
    if wsl.get("restart_required", False):
        steps.append(wsl["instruction"])
    return steps + list(notices)


def summary_state(ready, check_mode, rollout):
    """The summary's first word(s): READY, NOT CHECKED in check mode, else NOT READY on the release
    tried (and the release rolled back to)."""
    if ready:
        return "READY"
    if check_mode:
        return "NOT CHECKED (check mode)"
    state = "NOT READY on release %s" % (rollout.get("attempted_release", "?"),)
    if rollout.get("rolled_back", False):
        state += ", rolled back to %s" % (rollout["release"],)
    return state


def cuda_note(compat_mode, plan):
    """``, CUDA <the plan's variant> <compat mode>`` for the summary's stack line; ``''`` without
    a mode (the plan's variant is read only then)."""
    return (", CUDA %s %s" % (plan["cuda_variant"], compat_mode)) if compat_mode else ""


def summary_tail(result):
    """The summary's last lines: warnings, model warnings, compat limits, what changed, and the
    next steps and day-2 commands (indented)."""
    return (_prefixed("Warning: ", result["warnings"])
            + _prefixed("Model warning: ", result["model_warnings"])
            + _prefixed("Compat limit: ", result["compat_limits"])
            + ["Changed: " + (", ".join(str(c) for c in result["changed"]) if result["changed"]
                              else "nothing")]
            + ["Next:"] + _prefixed("  ", list(result["next_steps"]) + list(result["day2"])))


def backups_to_remove(written, secrets_kept, tls_kept):
    """The files this run's backups and kept copies left (the new files passed the gate): each
    written file's ``backup_file``, the secrets file kept aside, the TLS files kept aside."""
    paths = [w["backup_file"] for w in written if isinstance(w, dict) and "backup_file" in w]
    if isinstance(secrets_kept, dict) and "dest" in secrets_kept:
        paths.append(secrets_kept["dest"])
    return paths + [k["dest"] for k in tls_kept if isinstance(k, dict) and "dest" in k]


def rollout_failed(common, rolled_back, previous_ready, can_roll_back, install, previous_url,
                   failed_gate):
    """The rollout result of a host whose gate failed (the fleet report's row): the release and
    URL it is on after the rollback, or still the new one without one, and what failed."""
    result = dict(common)
    result.update({
        "ready": False,
        "rolled_back": rolled_back,
        "previous_ready": previous_ready,
        "release": install["previous_release"] if can_roll_back else install["release"],
        "url": previous_url if can_roll_back else common["url"],
        "diagnosis": failed_gate.get("diagnosis"),
        "stage": failed_gate.get("stage", ""),
        "detail": failed_gate["detail"] if "detail" in failed_gate else failed_gate.get("msg", ""),
    })
    return result


def rollout_message(rollout, failed_gate, can_roll_back, previous_release, previous_detail,
                    stopped):
    """What failed and what the rollback did: the gate's message, then where the host is now."""
    lines = [failed_gate.get("msg", "vLLM did not become ready")]
    if can_roll_back:
        lines.append("Rolled back to release %s and the configuration before this run: %s" % (
            previous_release, ("it answers again at %s" % (rollout["url"],)) if rollout["previous_ready"]
            else "it does NOT answer either (%s)" % (previous_detail,)))
    else:
        lines.append("No previous release to roll back to on this host; the server is down%s." % (
            " (stopped, so it does not restart in a loop: fix the cause above and run the play again)"
            if stopped else ""))
    return lines


def model_revision_note(revision, commit):
    """``@<revision> (commit <12 hex>)`` after a Hub model's id in the summary; ``''`` without a
    revision."""
    if not revision:
        return ""
    return "@%s%s" % (revision, (" (commit %s)" % (commit[:12],)) if commit else "")
