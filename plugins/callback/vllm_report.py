# -*- coding: utf-8 -*-
# Copyright: (c) 2026, vLLM provisioner maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet report at the end of every ansible-playbook run (table and JSON).

A callback, not a play: when every host of a play fails, or a batch exceeds the failure budget
(``max_fail_percentage``), ansible-core 2.19 ends the whole run and later plays never start. A
callback still sees the end of the run. It is fed the same shapes as ansible-runner's events,
so ``scripts/provision`` and this plugin build the report with the same code
(``plugins/module_utils/vllm_report.py``).
"""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: vllm_report
type: aggregate
short_description: Fleet rollout report (release, versions, ready or not, diagnosis) at the end of a run
description:
  - Follows the hosts of every play that runs one of this project's roles (C(vllm_*)), in every batch.
  - At the end of the run, also when Ansible stopped it early, prints a table of every targeted host
    (ready, rolled back, not ready with the doctor's diagnosis, failed with the task and its message,
    unreachable, not reached) and writes the same report as JSON.
  - A host's release, versions and diagnosis come from its C(vllm_service_rollout) fact. A host that
    failed before any task on it reported a change is C(refused) (nothing was changed), with what
    served before the run from its C(vllm_preflight_serving) fact.
  - With C(timings), also prints the slowest task runs with their durations, before the report.
requirements:
  - enabled in ansible.cfg (C(callbacks_enabled = vllm_report), C(callback_plugins = plugins/callback))
options:
  path:
    description:
      - Controller path of the JSON report; empty for none. The extra variable C(vllm_report_path)
        (C(-e vllm_report_path=...)) overrides it. Default C(.artifacts/vllm-report.json) in this repository.
    type: str
    env:
      - name: VLLM_REPORT_PATH
    ini:
      - section: vllm_report
        key: path
  timings:
    description:
      - Print the slowest task runs (host, task, duration) and each host's total task time before
        the report, like C(ansible.posix.profile_tasks) but without that collection and keeping the report.
    type: bool
    default: false
    env:
      - name: VLLM_REPORT_TIMINGS
    ini:
      - section: vllm_report
        key: timings
  timings_count:
    description: How many of the slowest task runs C(timings) prints.
    type: int
    default: 15
    env:
      - name: VLLM_REPORT_TIMINGS_COUNT
    ini:
      - section: vllm_report
        key: timings_count
"""

import os
import sys
import time

from ansible import context
from ansible.plugins.callback import CallbackBase

# plugins/ on the path: module_utils as a package (its modules import each other relatively)
_PLUGINS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _PLUGINS not in sys.path:
    sys.path.insert(0, _PLUGINS)

from module_utils import vllm_report  # noqa: E402  pylint: disable=wrong-import-position
from module_utils.vllm_common import atomic_write, json_text  # noqa: E402  pylint: disable=wrong-import-position

DEFAULT_PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                            ".artifacts", "vllm-report.json")
ROLE_PREFIX = "vllm_"
EXTRA_VAR = "vllm_report_path"


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "vllm_report"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self, *args, **kwargs):
        super(CallbackModule, self).__init__(*args, **kwargs)
        self._collector = vllm_report.EventCollector()
        self._hosts = []
        self._followed = False
        self._pattern = ""
        self._extra_path = None
        self._started = {}

    # ---- plays: which hosts this run targets ---------------------------------------------

    def v2_playbook_on_play_start(self, play):
        roles = [role.get_name() for role in play.get_roles()]
        self._followed = any(name.startswith(ROLE_PREFIX) for name in roles)
        pattern = play.hosts
        self._pattern = ",".join(pattern) if isinstance(pattern, (list, tuple)) else str(pattern)
        manager = play.get_variable_manager()
        extra = getattr(manager, "extra_vars", None) or {}
        if EXTRA_VAR in extra:
            self._extra_path = str(extra[EXTRA_VAR] or "")
        if not self._followed:
            return
        inventory = getattr(manager, "_inventory", None)
        try:
            # with serial, the inventory is restricted to the current batch: look past that
            # (the --limit still applies)
            hosts = ([host.name for host in inventory.get_hosts(play.hosts, ignore_restrictions=True)]
                     if inventory is not None else [])
        except Exception:  # pylint: disable=broad-except  # a templated pattern: fall back to hosts seen
            hosts = []
        for name in hosts:
            if name not in self._hosts:
                self._hosts.append(name)

    # ---- task results, in runner event shape ---------------------------------------------

    def v2_runner_on_start(self, host, task):
        self._started[(host.get_name(), task._uuid)] = time.time()

    def _feed(self, kind, result, ignore_errors=False):
        if not self._followed:
            return
        host = result.host.get_name()
        task = result.task
        began = self._started.pop((host, task._uuid), None)
        role = getattr(task, "_role", None)
        self._collector.feed({"event": kind, "event_data": {
            "host": host,
            "task": task.name or task.action,
            "task_action": task.action,
            "role": role.get_name() if role is not None else None,
            "play_pattern": self._pattern,
            "res": dict(result.result),
            "ignore_errors": ignore_errors,
            "duration": (time.time() - began) if began else None,
        }})

    def v2_runner_on_ok(self, result):
        self._feed("runner_on_ok", result)

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._feed("runner_on_failed", result, ignore_errors)

    def v2_runner_on_skipped(self, result):
        self._feed("runner_on_skipped", result)

    def v2_runner_on_unreachable(self, result):
        self._feed("runner_on_unreachable", result)

    # ---- the end of the run ---------------------------------------------------------------

    def v2_playbook_on_stats(self, stats):
        if not self._hosts and not self._collector.seen:
            return
        self._collector.feed({"event": "playbook_on_stats", "event_data": {
            key: dict(getattr(stats, key, {}) or {})
            for key in ("ok", "changed", "failures", "dark", "skipped", "processed", "rescued", "ignored")}})
        args = context.CLIARGS
        report = self._collector.report(
            self._hosts, check_mode=bool(args.get("check")),
            require_gate=vllm_report.gate_in_run(list(args.get("tags") or []), list(args.get("skip_tags") or [])))
        if self._option("timings", False):
            self._display.banner("VLLM TASK TIMINGS")
            for line in vllm_report.render_timings(self._collector.timings, int(self._option("timings_count", 15))):
                self._display.display(line)
        self._display.banner("VLLM FLEET REPORT")
        for line in vllm_report.render_table(report):
            self._display.display(line)
        path = self._extra_path if self._extra_path is not None else self._path_option()
        if path:
            self._write(path, report)

    def _option(self, name, default):
        try:
            value = self.get_option(name)
        except KeyError:
            value = None
        return default if value is None else value

    def _path_option(self):
        try:
            value = self.get_option("path")
        except KeyError:
            value = None
        return DEFAULT_PATH if value is None else value

    def _write(self, path, report):
        path = os.path.abspath(os.path.expanduser(path))
        try:
            directory = os.path.dirname(path)
            if not os.path.isdir(directory):
                os.makedirs(directory, 0o700)
            atomic_write(path, json_text(report, indent=2, sort_keys=True, default=str), chmod=0o600)
            self._display.display("Report: %s" % path)
        except (IOError, OSError) as err:
            self._display.warning("vllm_report: cannot write %s: %s" % (path, err))
