# -*- coding: utf-8 -*-
"""Progress lines for tasks that run long: what a run waits for, and for how long so far.

Pure standard-library logic shared by the ``vllm_stdout`` callback (ansible-playbook) and
``scripts/provision`` (ansible-runner events). A :class:`Progress` is told when a task starts
on a host and when its result is in; :meth:`Progress.due` gives, at most once per interval and
per running task, one line per task still running::

      ... still running: vllm_service : Wait until the server answers [wsl-box] 20 s

The clock is passed in (``clock``), so tests need no sleeping. :class:`Ticker` is the small
daemon thread that asks for due lines and hands them to a writer; it holds no state of its own.
"""
from __future__ import absolute_import, division, print_function

import threading
import time

__metaclass__ = type

DEFAULT_INTERVAL = 10.0
PREFIX = "  ... still running: "


def parse_interval(value, default=DEFAULT_INTERVAL):
    """Seconds between progress lines from an option or environment value; 0 (or less): off.
    Anything unreadable is the default."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return default
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        return default
    return max(seconds, 0.0)


def progress_line(task, hosts, elapsed):
    """``  ... still running: <task> [h1, h2] 20 s``."""
    return "%s%s [%s] %d s" % (PREFIX, task, ", ".join(hosts), int(elapsed))


class Progress(object):
    """Tasks running now, per task and per host.

    ``start(task_id, label, host)``: a host started a task; ``finish(task_id, host)``: its result
    is in; ``clear()``: the play or the run ended. ``due()`` returns the lines to print now: one
    per task with hosts still running, once the task ran ``interval`` seconds and then every
    ``interval`` seconds; elapsed time counts from the first host's start of that task.
    """

    def __init__(self, interval=DEFAULT_INTERVAL, clock=time.monotonic):
        self.interval = float(interval)
        self.clock = clock
        self._lock = threading.Lock()
        self._tasks = {}

    @property
    def enabled(self):
        return self.interval > 0

    def start(self, task_id, label, host):
        now = self.clock()
        with self._lock:
            entry = self._tasks.setdefault(task_id, {"label": label, "since": now, "hosts": [],
                                                     "next": now + self.interval})
            if host not in entry["hosts"]:
                entry["hosts"].append(host)

    def finish(self, task_id, host):
        with self._lock:
            entry = self._tasks.get(task_id)
            if entry is None:
                return
            if host in entry["hosts"]:
                entry["hosts"].remove(host)
            if not entry["hosts"]:
                del self._tasks[task_id]

    def clear(self):
        with self._lock:
            self._tasks.clear()

    def running(self):
        """``{task_id: [hosts]}`` of tasks still running."""
        with self._lock:
            return dict((k, list(v["hosts"])) for k, v in self._tasks.items())

    def due(self):
        """Lines to print now (see the class); [] when off or nothing is due."""
        if not self.enabled:
            return []
        now = self.clock()
        lines = []
        with self._lock:
            for entry in sorted(self._tasks.values(), key=lambda e: e["since"]):
                if now + 1e-9 < entry["next"]:
                    continue
                lines.append(progress_line(entry["label"], entry["hosts"], now - entry["since"]))
                # the next line one interval later, not a burst after a stall
                while entry["next"] <= now + 1e-9:
                    entry["next"] += self.interval
        return lines


_RUNNER_DONE = ("runner_on_ok", "runner_on_failed", "runner_on_skipped", "runner_on_unreachable")


def feed_event(progress, event):
    """Follow one ansible-runner event (``scripts/provision``): a ``runner_on_start`` starts a
    task on its host, its result ends it, a new play or the stats end everything."""
    kind = event.get("event")
    data = event.get("event_data") or {}
    task_id = data.get("task_uuid") or data.get("task")
    host = data.get("host") or "?"
    if kind == "runner_on_start":
        task = str(data.get("task") or "?").strip()
        role = data.get("role")
        label = ("%s : %s" % (role, task)) if role and not task.startswith("%s : " % role) else task
        progress.start(task_id, label, host)
    elif kind in _RUNNER_DONE:
        progress.finish(task_id, host)
    elif kind in ("playbook_on_play_start", "playbook_on_stats"):
        progress.clear()


class Ticker(object):
    """A daemon thread that writes ``progress.due()`` lines through ``write(line)`` every ``tick``
    seconds (a fraction of the interval) until :meth:`stop`."""

    def __init__(self, progress, write, tick=None):
        self.progress = progress
        self.write = write
        self.tick = tick if tick is not None else min(1.0, max(progress.interval / 4.0, 0.05))
        self._stop = threading.Event()
        self._thread = None

    def start(self):
        if not self.progress.enabled or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="vllm-progress", daemon=True)
        self._thread.start()

    def _run(self):
        while not self._stop.wait(self.tick):
            for line in self.progress.due():
                try:
                    self.write(line)
                except Exception:  # pylint: disable=broad-except
                    # a progress line must never break the run it reports on
                    pass

    def stop(self):
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2)
        self._thread = None
