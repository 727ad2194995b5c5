"""The vllm_stdout callback's "still running" lines, through real ansible-playbook runs."""
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
PLAYBOOK_BIN = os.path.join(os.path.dirname(sys.executable), "ansible-playbook")
PLAY = """- name: Sleep
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Sleep three seconds
      ansible.builtin.command: sleep 3
      changed_when: false
    - name: Quick one
      ansible.builtin.command: "true"
      changed_when: false
"""


def run(tmp_path, interval):
    playbook = tmp_path / "sleep.yml"
    playbook.write_text(PLAY)
    env = dict(os.environ, ANSIBLE_NOCOLOR="1", VLLM_PROGRESS_INTERVAL=str(interval))
    # from the repository root: its ansible.cfg sets stdout_callback = vllm_stdout
    out = subprocess.run([PLAYBOOK_BIN, "-i", "localhost,", "-c", "local",
                          "-e", "ansible_python_interpreter=%s" % sys.executable, str(playbook)],
                         cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True, timeout=120)
    assert out.returncode == 0, out.stdout
    return out.stdout


def test_a_three_second_task_at_one_second_shows_progress(tmp_path):
    stdout = run(tmp_path, 1)
    before, after = stdout.split("TASK [Quick one]", 1)
    lines = [line for line in before.splitlines() if "... still running:" in line]
    assert len(lines) >= 2, stdout
    assert all(line.startswith("  ... still running: Sleep three seconds [localhost] ") for line in lines), lines
    seconds = [int(line.rsplit(" ", 2)[1]) for line in lines]
    # a line a second, counting up from the first second (a loaded machine may skip one)
    assert seconds == sorted(set(seconds)) and seconds[0] <= 2, lines
    # the lines stop with the task: none for it after its result (on a loaded machine even
    # "true" can take over a second, and then the quick task has its own line, which is right)
    assert "still running: Sleep three seconds" not in after, after


def test_interval_zero_prints_none(tmp_path):
    assert "still running" not in run(tmp_path, 0)


def test_progress_lines_are_written_under_the_display_lock():
    import threading
    sys.path.insert(0, os.path.join(ROOT, "plugins", "callback"))
    import vllm_stdout

    class FakeDisplay(object):
        def __init__(self):
            self._lock = threading.RLock()
            self.lines = []

        def display(self, msg, **kwargs):
            # RLock has no public "held by me"; a non-blocking acquire from another thread fails
            # while this thread holds it
            held = []
            probe = threading.Thread(target=lambda: held.append(not self._lock.acquire(blocking=False)))
            probe.start()
            probe.join()
            self.lines.append((msg, held[0]))

    callback = vllm_stdout.CallbackModule.__new__(vllm_stdout.CallbackModule)
    callback._display = FakeDisplay()
    callback._progress_write("  ... still running: T [h] 10 s")
    assert callback._display.lines == [("  ... still running: T [h] 10 s", True)]
