# -*- coding: utf-8 -*-
# Copyright: (c) 2026, vLLM provisioner maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""ansible-core's default screen output, with each plain task failure printed once.

ansible-core 2.19's ``default`` callback prints a task that fails by its own message (``fail``,
``assert``, a module's ``fail_json``) twice: an ``[ERROR]: Task failed: Action failed: <msg>``
line with the task's source excerpt (from the result's ``exception``), then the ``fatal: [host]:
FAILED! => {...}`` block, whose ``msg`` is the same text. This callback leaves out the first when
it adds nothing (no traceback, no cause beyond the message); the ``fatal`` block and the task
path stay. Errors with more to say (a template error, a module's exception, an undefined
variable) are printed as the default callback prints them.

While a task runs, a line every ``progress_interval`` seconds (10; ``VLLM_PROGRESS_INTERVAL``,
0 turns it off) says which task on which hosts it waits for and for how long so far:
``  ... still running: vllm_service : Wait until the server answers [wsl-box] 20 s``. A daemon
thread prints it through Ansible's display, which serialises output with its own lock; the
bookkeeping is plugins/module_utils/vllm_progress.py.
"""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: vllm_stdout
type: stdout
short_description: The default screen output, each plain task failure printed once
description:
  - >-
    ansible-core's C(default) output callback, except that a task failing by its own message
    (C(fail), C(assert), a module's C(fail_json)) is not printed a second time as an
    "[ERROR]: Task failed" line, since its message is in the C(fatal) block. Failures with a
    traceback or a cause beyond the message are printed in full; C(-vvv) prints everything.
  - >-
    While a task runs longer than C(progress_interval) seconds, a line every interval names the
    task, the hosts it still runs on and the seconds so far.
options:
  progress_interval:
    description: Seconds between "still running" lines for a running task; 0 turns them off.
    type: float
    default: 10
    env:
      - name: VLLM_PROGRESS_INTERVAL
    ini:
      - section: callback_vllm_stdout
        key: progress_interval
extends_documentation_fragment:
  - default_callback
  - result_format_callback
requirements:
  - set as stdout in configuration (C(stdout_callback = vllm_stdout) in ansible.cfg)
"""

import os
import sys

from ansible.plugins.callback.default import CallbackModule as DefaultCallback

# plugins/ on the path: module_utils as a package (its modules import each other relatively)
_PLUGINS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _PLUGINS not in sys.path:
    sys.path.insert(0, _PLUGINS)

from module_utils import vllm_progress  # noqa: E402  pylint: disable=wrong-import-position


def _text(msg):
    return msg if isinstance(msg, str) else str(msg)


def only_repeats_the_message(summary, result):
    """Whether an error summary says no more than the result's ``msg``: ``Task failed`` caused by
    ``Action failed``/``Module failed`` caused by the message itself, with no traceback."""
    msg = result.get("msg")
    if summary is None or not msg:
        return False
    event, depth = getattr(summary, "event", None), 0
    while event is not None:
        if getattr(event, "formatted_traceback", None) or getattr(event, "events", None):
            return False
        chain = getattr(event, "chain", None)
        if chain is None:
            break
        event, depth = chain.event, depth + 1
    return event is not None and depth == 2 and event.msg == _text(msg)


class CallbackModule(DefaultCallback):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "stdout"
    CALLBACK_NAME = "vllm_stdout"

    def _handle_exception(self, result, use_stderr=False):
        current = getattr(self, "_current_task_result", None)
        summary = getattr(current, "exception", None) if current is not None else None
        if self._display.verbosity < 3 and only_repeats_the_message(summary, result):
            result.pop("exception", None)
            return
        super(CallbackModule, self)._handle_exception(result, use_stderr=use_stderr)

    # ---- progress lines for long tasks ------------------------------------------------------

    def _progress_start(self):
        if getattr(self, "_progress", None) is not None:
            return
        try:
            interval = self.get_option("progress_interval")
        except KeyError:  # options not loaded (a test building the object by hand)
            interval = None
        interval = vllm_progress.parse_interval(
            interval if interval is not None else os.environ.get("VLLM_PROGRESS_INTERVAL"))
        self._progress = vllm_progress.Progress(interval)
        self._ticker = vllm_progress.Ticker(self._progress, self._progress_write)
        self._ticker.start()

    def _progress_write(self, line):
        # Display.display takes the display's own lock; holding it here as well keeps a line from
        # landing inside another writer's banner where a display has no lock of its own
        lock = getattr(self._display, "_lock", None)
        if lock is None:
            self._display.display(line)
            return
        with lock:
            self._display.display(line)

    @staticmethod
    def _progress_key(result):
        host = getattr(result, "host", None) or getattr(result, "_host", None)
        task = getattr(result, "task", None) or getattr(result, "_task", None)
        return getattr(task, "_uuid", None) or id(task), host.get_name() if host is not None else "?"

    def _progress_done(self, result):
        if getattr(self, "_progress", None) is not None:
            task_id, host = self._progress_key(result)
            self._progress.finish(task_id, host)

    def v2_playbook_on_play_start(self, play):
        self._progress_start()
        self._progress.clear()
        super(CallbackModule, self).v2_playbook_on_play_start(play)

    def v2_runner_on_start(self, host, task):
        self._progress_start()
        self._progress.start(getattr(task, "_uuid", None) or id(task), task.get_name().strip(), host.get_name())
        super(CallbackModule, self).v2_runner_on_start(host, task)

    def v2_runner_on_ok(self, result):
        self._progress_done(result)
        super(CallbackModule, self).v2_runner_on_ok(result)

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._progress_done(result)
        super(CallbackModule, self).v2_runner_on_failed(result, ignore_errors=ignore_errors)

    def v2_runner_on_skipped(self, result):
        self._progress_done(result)
        super(CallbackModule, self).v2_runner_on_skipped(result)

    def v2_runner_on_unreachable(self, result):
        self._progress_done(result)
        super(CallbackModule, self).v2_runner_on_unreachable(result)

    def v2_playbook_on_stats(self, stats):
        if getattr(self, "_progress", None) is not None:
            self._ticker.stop()
            self._progress.clear()
        super(CallbackModule, self).v2_playbook_on_stats(stats)
