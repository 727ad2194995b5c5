"""vllm_monitor's dashboards task for real (ansible-playbook, this machine, paths under tmp): the
dashboards are fetched from an HTTP server on 127.0.0.1 standing in for vLLM's repository; the
good ones are written unchanged, one that is not a dashboard and one that is missing are named in
the run's output and not written, the run does not fail, a second run changes nothing, and a
check run writes nothing."""
import json
import os
import subprocess
import sys
import threading
from functools import partial
from http.server import HTTPServer, SimpleHTTPRequestHandler

import pytest

from vllm_testlib import ROOT

PLAYBOOK = os.path.join(os.path.dirname(sys.executable), "ansible-playbook")
GOOD = {"title": "vLLM / Test", "uid": "vllm-test",
        "panels": [{"type": "timeseries", "targets": [{"expr": "vllm:kv_cache_usage_perc"}]}]}
PLAY = """
- name: The monitor's dashboards
  hosts: testbox
  gather_facts: false
  tasks:
    - name: Dashboards
      ansible.builtin.include_role:
        name: vllm_monitor
        tasks_from: dashboards.yml
"""


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def repository(tmp_path):
    folder = tmp_path / "repo"
    folder.mkdir()
    (folder / "vllm_overview.json").write_text(json.dumps(GOOD, indent=2))
    (folder / "vllm_instances.json").write_text(json.dumps(dict(GOOD, uid="vllm-instances")))
    (folder / "vllm_kv_cache.json").write_text("<html>rate limited</html>")
    # vllm_speculative_decoding.json: missing (404)
    server = HTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield "http://127.0.0.1:%d" % server.server_address[1], folder
    server.shutdown()
    server.server_close()


def _run(tmp_path, url, *extra):
    (tmp_path / "play.yml").write_text(PLAY)
    (tmp_path / "hosts.yml").write_text(
        "all:\n  hosts:\n    testbox:\n      ansible_connection: local\n"
        "      ansible_python_interpreter: %s\n" % sys.executable)
    variables = {"vllm_monitor_dashboards_url": url, "vllm_monitor_dashboards_dir": str(tmp_path / "dash")}
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               ANSIBLE_STDOUT_CALLBACK="ansible.builtin.default",
               ANSIBLE_CALLBACK_RESULT_FORMAT="json", ANSIBLE_DISPLAY_ARGS_TO_STDOUT="0", no_proxy="127.0.0.1", NO_PROXY="127.0.0.1")
    proc = subprocess.run([PLAYBOOK, "-i", str(tmp_path / "hosts.yml"), str(tmp_path / "play.yml"),
                           "-e", json.dumps(variables)] + list(extra), cwd=ROOT, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=180)
    assert proc.returncode == 0, proc.stdout[-4000:]
    return proc.stdout


def _changed(out):
    return int(out.rsplit("changed=", 1)[1].split()[0])


def test_good_dashboards_are_written_and_the_rest_named(tmp_path, repository):
    url, folder = repository
    out = _run(tmp_path, url, "--check", "--diff")
    assert not (tmp_path / "dash").exists()            # a check run writes nothing
    out = _run(tmp_path, url)
    written = sorted(os.listdir(str(tmp_path / "dash")))
    assert written == ["vllm_instances.json", "vllm_overview.json"]
    assert (tmp_path / "dash" / "vllm_overview.json").read_text() == (folder / "vllm_overview.json").read_text()
    assert "2 of vLLM's dashboards not written" in out
    assert "vllm_kv_cache.json: not JSON" in out
    assert "vllm_speculative_decoding.json: not fetched from %s/vllm_speculative_decoding.json: HTTP 404" % url in out
    assert _changed(_run(tmp_path, url)) == 0           # idempotent


def test_an_unreachable_repository_does_not_fail_the_run(tmp_path):
    out = _run(tmp_path, "http://127.0.0.1:9/nothing")
    assert "4 of vLLM's dashboards not written" in out
    assert os.listdir(str(tmp_path / "dash")) == []
