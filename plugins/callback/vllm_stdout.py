# -*- coding: utf-8 -*-
"""ansible-core's default screen output, with each plain task failure printed once.

ansible-core 2.19's ``default`` callback prints a task that fails by its own message (``fail``,
``assert``, a module's ``fail_json``) twice: an ``[ERROR]: Task failed: Action failed: <msg>``
line with the task's source excerpt (from the result's ``exception``), then the ``fatal: [host]:
FAILED! => {...}`` block, whose ``msg`` is the same text. This callback leaves out the first when
it adds nothing (no traceback, no cause beyond the message); the ``fatal`` block and the task
path stay. Errors with more to say (a template error, a module's exception, an undefined
variable) are printed as the default callback prints them.
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
extends_documentation_fragment:
  - default_callback
  - result_format_callback
requirements:
  - set as stdout in configuration (C(stdout_callback = vllm_stdout) in ansible.cfg)
"""

from ansible.plugins.callback.default import CallbackModule as DefaultCallback


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
