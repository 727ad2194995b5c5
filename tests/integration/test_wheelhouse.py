"""The wheelhouse, for real, without a fleet: roles/vllm_install/tasks/wheelhouse.yml run by a
throwaway play against three inventory hosts on this machine (local connection, each with its own
venv and wheel folder), ``serial: 1`` as in a rolling update.

Hosts a and b share one lock file, host c has another: the controller must download lock A once
(the second batch finds its files and fetches nothing), lock B once, copy each host its lock's
wheels, and the role's own sync command (``__vllm_install_sync_argv``) must install every venv
from that copy with ``--no-index`` while uv runs offline with an empty cache, so nothing else can
be fetched. Small wheels stand in for vLLM: two pure-Python ones and one platform wheel.
"""
import functools
import http.server
import json
import os
import shutil
import subprocess
import sys
import threading

import pytest

import vllm_wheelhouse
from vllm_testlib import ROOT, free_port, pypi_reachable

PLAYBOOK = shutil.which("ansible-playbook", path=os.path.dirname(sys.executable)) or \
    shutil.which("ansible-playbook")
UV = shutil.which("uv", path=os.path.dirname(sys.executable)) or shutil.which("uv")

pytestmark = pytest.mark.skipif(PLAYBOOK is None or UV is None,
                                reason="ansible-playbook or uv is not installed (run scripts/bootstrap)")
needs_pypi = pytest.mark.skipif(not pypi_reachable(), reason="PyPI is unreachable")
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="the role copies the wheels as root:root")

LOCK_A = ("idna==3.10\n    # via -r requirements.in\nmarkupsafe==3.0.2\n"
          "    # via -r requirements.in\nsix==1.17.0\n    # via -r requirements.in\n")
LOCK_B = "idna==3.10\n    # via -r requirements.in\n"

PLAY = """
- name: Wheelhouse through the role's own tasks
  hosts: boxes
  gather_facts: false
  serial: {serial}
  vars:
    vllm_install_wheelhouse: {mode}
    vllm_install_wheelhouse_dir: {wheelhouse}
    vllm_install_find_links: []
    vllm_install_plan_indexes: false
    vllm_install_cache_dir: {uv_cache}
    vllm_preflight_plan:
      index_url: ""
      extra_index_urls: []
      index_strategy: ""
      remove_after_install: []
    vllm_python_result:
      uv: {uv}
      venv: "{{{{ box_root }}}}/venv"
      release_dir: "{{{{ box_root }}}}"
  tasks:
    - name: Read the host's lock file, as main.yml does
      ansible.builtin.slurp:
        src: "{{{{ box_root }}}}/requirements.lock"
      register: __vllm_install_lock_text

    - name: Run the role's wheelhouse tasks
      ansible.builtin.include_role:
        name: vllm_install
        tasks_from: wheelhouse.yml
        public: true

    - name: Record what the downloads did in this batch
      ansible.builtin.copy:
        content: "{{{{ __vllm_install_wheel_download | to_json }}}}"
        dest: "{{{{ out_dir }}}}/download-{{{{ inventory_hostname }}}}.json"
        mode: "0644"

    - name: Install with the role's sync command and an empty uv cache
      ansible.builtin.command:
        argv: "{{{{ __vllm_install_sync_argv }}}}"
      environment: "{{{{ __vllm_install_uv_env | combine({uv_env}) }}}}"
      register: sync
      changed_when: true

    - name: Record the sync command
      ansible.builtin.copy:
        content: "{{{{ __vllm_install_sync_argv | to_json }}}}"
        dest: "{{{{ out_dir }}}}/sync-{{{{ inventory_hostname }}}}.json"
        mode: "0644"
"""


def _make_host(tmp_path, name, lock):
    root = tmp_path / name
    root.mkdir()
    (root / "requirements.lock").write_text(lock)
    subprocess.run([UV, "venv", "--quiet", "--python", sys.executable, str(root / "venv")],
                   check=True, env=dict(os.environ, UV_NO_CONFIG="1"))
    return root


def _run(tmp_path, playbook, inventory):
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               ANSIBLE_STDOUT_CALLBACK="ansible.builtin.default")
    return subprocess.run([PLAYBOOK, "-i", str(inventory), str(playbook)], cwd=ROOT, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)


@needs_pypi
@needs_root
def test_fleet_downloads_each_lock_once_and_installs_without_an_index(tmp_path):
    wheelhouse = tmp_path / "wheelhouse"
    out = tmp_path / "out"
    out.mkdir()
    hosts = {"box-a": _make_host(tmp_path, "box-a", LOCK_A),
             "box-b": _make_host(tmp_path, "box-b", LOCK_A),
             "box-c": _make_host(tmp_path, "box-c", LOCK_B)}
    inventory = tmp_path / "hosts.yml"
    inventory.write_text("boxes:\n  hosts:\n" + "".join(
        "    %s:\n      ansible_connection: local\n      ansible_python_interpreter: %s\n"
        "      box_root: %s\n      out_dir: %s\n"
        "      vllm_install_wheelhouse_host_dir: %s\n"
        % (name, sys.executable, root, out, root / "host-wheels") for name, root in hosts.items()))
    playbook = tmp_path / "play.yml"
    # uv offline: the wheels can only come from the host's copy
    playbook.write_text(PLAY.format(wheelhouse=wheelhouse, uv=UV, uv_cache=tmp_path / "uv-cache",
                                    serial=1, mode="controller", uv_env={"UV_OFFLINE": "1"}))

    proc = _run(tmp_path, playbook, inventory)
    assert proc.returncode == 0, proc.stdout[-6000:]

    sha_a, sha_b = vllm_wheelhouse.lock_sha256(LOCK_A), vllm_wheelhouse.lock_sha256(LOCK_B)
    # one pip download per batch, for the batch's lock: a and b share lock A, c has lock B
    downloads = {}
    for name in hosts:
        result = json.loads((out / ("download-%s.json" % name)).read_text())
        assert len(result["results"]) == 1, result
        downloads[name] = result["results"][0]
        assert downloads[name]["item"]["hosts"] == [name]
    assert downloads["box-a"]["item"]["sha256"] == downloads["box-b"]["item"]["sha256"] == sha_a
    assert downloads["box-c"]["item"]["sha256"] == sha_b
    # lock A fetched in the first batch; the second finds its record and files: pip does not run
    assert downloads["box-a"]["changed"] is True and downloads["box-a"]["downloaded"] is True
    assert downloads["box-b"]["changed"] is False and downloads["box-b"]["downloaded"] is False
    assert downloads["box-b"]["files"] == downloads["box-a"]["files"]
    assert downloads["box-b"]["archive"] == downloads["box-a"]["archive"]
    argv = downloads["box-a"]["cmd"]
    for arg in ("--no-deps", "--only-binary=:all:", "--python-version", "--abi", "--platform"):
        assert arg in argv

    # the controller's wheelhouse: exactly the locked files, the lock beside them
    wheels_a = sorted(p.name for p in (wheelhouse / sha_a).glob("*.whl"))
    assert sorted(w.split("-")[0].lower() for w in wheels_a) == ["idna", "markupsafe", "six"]
    assert any("manylinux" in w for w in wheels_a)  # the platform wheel for this host's target
    assert (wheelhouse / sha_a / "requirements.lock").read_text() == LOCK_A
    assert sorted(p.name for p in (wheelhouse / sha_b).glob("*.whl")) == \
        [w for w in wheels_a if w.startswith("idna")]

    # each job's wheels packed once into one archive, which the hosts received and unpacked
    assert sorted(p.name for p in (wheelhouse / sha_a).glob("wheels-*.tar")) == \
        [os.path.basename(downloads["box-a"]["archive"])]
    for name, root in hosts.items():
        sha = sha_a if name != "box-c" else sha_b
        copy = root / "host-wheels" / sha
        assert sorted(p.name for p in copy.glob("*.whl")) == sorted(
            p.name for p in (wheelhouse / sha).glob("*.whl"))
        assert not list(copy.glob("*.tar"))
        assert all(oct(p.stat().st_mode & 0o777) == "0o644" and p.stat().st_uid == 0
                   for p in copy.glob("*.whl"))
        sync = json.loads((out / ("sync-%s.json" % name)).read_text())
        assert sync[-3:] == ["--no-index", "--find-links", str(copy)]
        assert not any(a.startswith(("--index-url", "--extra-index-url")) for a in sync)
        freeze = subprocess.run([UV, "pip", "freeze", "--python", str(root / "venv" / "bin" / "python")],
                                check=True, capture_output=True, text=True,
                                env=dict(os.environ, UV_NO_CONFIG="1")).stdout
        expected = LOCK_A if name != "box-c" else LOCK_B
        assert vllm_wheelhouse_pins(freeze) == vllm_wheelhouse_pins(expected)

    # a second run (a retry, or the next rollout of the same release) downloads nothing and
    # sends nothing; a host that lost a wheel gets the archive again
    lost = next((hosts["box-b"] / "host-wheels" / sha_a).glob("six-*.whl"))
    lost.unlink()
    again = _run(tmp_path, playbook, inventory)
    assert again.returncode == 0, again.stdout[-6000:]
    for name in hosts:
        result = json.loads((out / ("download-%s.json" % name)).read_text())
        assert result["results"][0]["changed"] is False and result["results"][0]["downloaded"] is False
    sent = [line for line in again.stdout.splitlines() if line.startswith(("changed:", "ok:", "skipping:"))
            and "box-" in line]
    assert lost.exists()
    assert again.stdout.count("TASK [vllm_install : Send this host the wheels it lacks") == 3
    assert "changed: [box-b]" in _task_block(again.stdout, "Send this host the wheels it lacks", 1)
    for index in (0, 2):
        assert "skipping:" in _task_block(again.stdout, "Send this host the wheels it lacks", index), sent


def _task_block(stdout, task, index):
    """The output of the index-th run of a task (one per serial batch)."""
    blocks = stdout.split("TASK [")
    matching = [block for block in blocks if task in block.split("]", 1)[0]]
    return matching[index]


def vllm_wheelhouse_pins(text):
    import vllm_lock
    return vllm_lock.parse_pins(text)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    requests = []

    def log_message(self, fmt, *args):  # keep the paths asked for, print nothing
        _QuietHandler.requests.append(self.path)


@needs_pypi
@needs_root
def test_mirror_host_downloads_once_and_hosts_install_from_its_url(tmp_path):
    """vllm_install_wheelhouse: <mirror host>: the mirror (here a third local host) downloads the
    lock's wheels once for both hosts; they install from the URL it serves them at, no index."""
    mirror_dir = tmp_path / "mirror-wheelhouse"
    mirror_dir.mkdir()
    handler = functools.partial(_QuietHandler, directory=str(mirror_dir))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = "http://127.0.0.1:%d/" % server.server_address[1]
    out = tmp_path / "out"
    out.mkdir()
    hosts = {"box-m1": _make_host(tmp_path, "box-m1", LOCK_A),
             "box-m2": _make_host(tmp_path, "box-m2", LOCK_A)}
    inventory = tmp_path / "hosts.yml"
    inventory.write_text(
        "all:\n  hosts:\n    mirror-01:\n      ansible_connection: local\n"
        "      ansible_python_interpreter: %s\n"
        "boxes:\n  vars:\n    vllm_install_wheelhouse_url: %s\n"
        "    vllm_install_wheelhouse_python: %s\n  hosts:\n" % (sys.executable, url, sys.executable)
        + "".join("    %s:\n      ansible_connection: local\n      ansible_python_interpreter: %s\n"
                  "      box_root: %s\n      out_dir: %s\n"
                  "      vllm_install_wheelhouse_host_dir: %s\n"
                  % (name, sys.executable, root, out, root / "host-wheels")
                  for name, root in hosts.items()))
    playbook = tmp_path / "play.yml"
    playbook.write_text(PLAY.format(wheelhouse=mirror_dir, uv=UV, uv_cache=tmp_path / "uv-cache",
                                    serial="'100%'", mode="mirror-01", uv_env={}))
    try:
        proc = _run(tmp_path, playbook, inventory)
    finally:
        server.shutdown()
    assert proc.returncode == 0, proc.stdout[-6000:]

    sha = vllm_wheelhouse.lock_sha256(LOCK_A)
    result = json.loads((out / "download-box-m1.json").read_text())
    assert len(result["results"]) == 1 and result["results"][0]["item"]["hosts"] == ["box-m1", "box-m2"]
    assert result["results"][0]["cmd"][0] == sys.executable
    wheels = sorted(p.name for p in (mirror_dir / sha).glob("*.whl"))
    assert len(wheels) == 3
    for name, root in hosts.items():
        sync = json.loads((out / ("sync-%s.json" % name)).read_text())
        assert sync[-3:] == ["--no-index", "--find-links", "%s%s/" % (url, sha)]
        assert not (root / "host-wheels").exists()  # nothing copied: the hosts read the mirror
        freeze = subprocess.run([UV, "pip", "freeze", "--python", str(root / "venv" / "bin" / "python")],
                                check=True, capture_output=True, text=True,
                                env=dict(os.environ, UV_NO_CONFIG="1")).stdout
        assert vllm_wheelhouse_pins(freeze) == vllm_wheelhouse_pins(LOCK_A)
    # every wheel went over HTTP from the mirror (once: uv's cache serves the second host)
    fetched = [p.rsplit("/", 1)[-1] for p in _QuietHandler.requests if p.endswith(".whl")]
    assert sorted(set(fetched)) == wheels


@needs_pypi
def test_pip_download_args_fetch_another_targets_wheel(tmp_path):
    """The target arguments, not this machine, decide which file pip fetches: an aarch64 CPython
    3.12 host on glibc 2.35 (Ubuntu jammy) gets that platform's wheel."""
    tags = vllm_wheelhouse.target_tags({"implementation": "cpython", "version": [3, 12],
                                        "machine": "aarch64", "libc": ["glibc", "2.35"]})
    lock = tmp_path / "requirements.lock"
    lock.write_text("markupsafe==3.0.2\n")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--progress-bar", "off",
         "--disable-pip-version-check", "--dest", str(tmp_path / "wh"), "--requirement", str(lock)]
        + vllm_wheelhouse.pip_download_args(tags),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:]
    files = [p.name for p in (tmp_path / "wh").iterdir()]
    assert len(files) == 1, files
    assert "-cp312-cp312-" in files[0] and "aarch64" in files[0], files


def test_misspelt_wheelhouse_fails_in_the_preflight_before_any_change(tmp_path):
    """The real site.yml: a wheelhouse that is neither none, controller nor an inventory host
    stops the run in the preflight with the variable, the value and what is accepted."""
    root = tmp_path / "opt-vllm"
    inventory = tmp_path / "hosts.yml"
    inventory.write_text("vllm_hosts:\n  hosts:\n    testbox:\n      ansible_connection: local\n"
                         "      ansible_python_interpreter: %s\n" % sys.executable)
    extra = {"vllm_python_root": str(root), "vllm_model_store": str(tmp_path / "models"),
             "vllm_install_backend": "cpu", "vllm_install_wheelhouse": "contoller"}
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               ANSIBLE_STDOUT_CALLBACK="ansible.builtin.default")
    proc = subprocess.run([PLAYBOOK, "-i", str(inventory), os.path.join(ROOT, "site.yml"),
                           "-e", json.dumps(extra)], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=300)
    assert proc.returncode != 0, proc.stdout[-3000:]
    assert "vllm_install_wheelhouse is 'contoller', which is not a host of the inventory" in proc.stdout, \
        proc.stdout[-3000:]
    assert "nothing was changed" in proc.stdout
    assert not root.exists()
