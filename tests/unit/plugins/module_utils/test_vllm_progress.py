"""vllm_progress: which "still running" lines are due when, on a fake clock."""
import threading

import pytest

import vllm_progress
from vllm_progress import Progress, Ticker, parse_interval, progress_line


class Clock(object):
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


@pytest.mark.parametrize("value, expected", [
    (None, 10.0), ("", 10.0), ("5", 5.0), (2, 2.0), ("0", 0.0), ("-3", 0.0), ("soon", 10.0), (0.5, 0.5)])
def test_parse_interval(value, expected):
    assert parse_interval(value) == expected


def test_line_names_task_hosts_and_seconds():
    assert progress_line("vllm_service : Wait until the server answers", ["wsl-box"], 20.7) == (
        "  ... still running: vllm_service : Wait until the server answers [wsl-box] 20 s")


def test_nothing_due_before_the_interval_then_once_per_interval():
    clock = Clock()
    progress = Progress(10, clock)
    progress.start("t1", "vllm_install : Install", "a")
    clock.now += 9.9
    assert progress.due() == []
    clock.now += 0.1
    assert progress.due() == ["  ... still running: vllm_install : Install [a] 10 s"]
    assert progress.due() == []  # not twice in the same interval
    clock.now += 10
    assert progress.due() == ["  ... still running: vllm_install : Install [a] 20 s"]


def test_a_stall_gives_one_line_not_a_burst():
    clock = Clock()
    progress = Progress(10, clock)
    progress.start("t1", "T", "a")
    clock.now += 35
    assert len(progress.due()) == 1
    clock.now += 4.9
    assert progress.due() == []
    clock.now += 0.1
    assert progress.due() == ["  ... still running: T [a] 40 s"]


def test_lines_stop_when_every_host_reported():
    clock = Clock()
    progress = Progress(10, clock)
    progress.start("t1", "T", "a")
    progress.start("t1", "T", "b")
    clock.now += 10
    assert progress.due() == ["  ... still running: T [a, b] 10 s"]
    progress.finish("t1", "a")
    clock.now += 10
    assert progress.due() == ["  ... still running: T [b] 20 s"]
    progress.finish("t1", "b")
    clock.now += 10
    assert progress.due() == []
    assert progress.running() == {}
    progress.finish("t1", "b")  # a late or repeated result is harmless
    progress.finish("unknown", "a")


def test_tasks_are_tracked_apart_and_clear_ends_all():
    clock = Clock()
    progress = Progress(5, clock)
    progress.start("t1", "first", "a")
    clock.now += 2
    progress.start("t2", "second", "b")
    clock.now += 3
    assert progress.due() == ["  ... still running: first [a] 5 s"]
    clock.now += 2
    assert progress.due() == ["  ... still running: second [b] 5 s"]
    progress.clear()
    clock.now += 20
    assert progress.due() == []


def test_interval_zero_is_off():
    clock = Clock()
    progress = Progress(0, clock)
    progress.start("t1", "T", "a")
    clock.now += 1000
    assert progress.due() == []
    assert not progress.enabled


def test_ticker_writes_due_lines_from_its_thread_and_stops():
    clock = Clock()
    progress = Progress(1, clock)
    lines, wrote = [], threading.Event()

    def write(line):
        lines.append(line)
        wrote.set()
    ticker = Ticker(progress, write, tick=0.01)
    progress.start("t1", "T", "a")
    clock.now += 1
    ticker.start()
    assert wrote.wait(5)
    ticker.stop()
    count = len(lines)
    clock.now += 10
    threading.Event().wait(0.05)
    assert len(lines) == count
    assert lines[0] == "  ... still running: T [a] 1 s"


def test_ticker_survives_a_failing_writer():
    clock = Clock()
    progress = Progress(1, clock)
    calls = []

    def write(line):
        calls.append(line)
        raise IOError("closed")
    ticker = Ticker(progress, write, tick=0.01)
    progress.start("t1", "T", "a")
    ticker.start()
    for _ in range(3):
        clock.now += 1
        threading.Event().wait(0.05)
    ticker.stop()
    assert len(calls) >= 2


def test_ticker_off_starts_no_thread():
    ticker = Ticker(Progress(0), lambda line: None)
    ticker.start()
    assert ticker._thread is None
    ticker.stop()
    assert vllm_progress.DEFAULT_INTERVAL == 10.0


def test_runner_events_start_and_end_tasks():
    clock = Clock()
    progress = Progress(10, clock)

    def event(kind, host="ws", task="Install", role="vllm_install", uuid="u1"):
        return {"event": kind, "event_data": {"host": host, "task": task, "role": role, "task_uuid": uuid}}
    vllm_progress.feed_event(progress, event("runner_on_start"))
    vllm_progress.feed_event(progress, event("runner_on_start", host="b"))
    clock.now += 10
    assert progress.due() == ["  ... still running: vllm_install : Install [ws, b] 10 s"]
    vllm_progress.feed_event(progress, event("runner_on_ok"))
    vllm_progress.feed_event(progress, event("runner_on_failed", host="b"))
    assert progress.running() == {}
    vllm_progress.feed_event(progress, event("runner_on_start", uuid="u2"))
    vllm_progress.feed_event(progress, {"event": "playbook_on_stats", "event_data": {}})
    assert progress.running() == {}
