"""The wheelhouse, for real, without a fleet: roles/vllm_install/tasks/wheelhouse.yml run by a
throwaway play against three inventory hosts on this machine (local connection, each with its own
venv and wheel folder), ``serial: 1`` as in a rolling update.

Hosts a and b share one lock file, host c has another: the controller must download lock A once
(the second batch finds its files and fetches nothing), lock B once, copy each host its lock's
wheels, and the role's own sync command (``__vllm_install_sync_argv``) must install every venv
from that copy with ``--no-index`` while uv runs offline with an empty cache, so nothing else can
be fetched. Small wheels stand in for vLLM: two pure-Python ones and one platform wheel.
"""
import json
import os
import shutil
import subprocess
import sys

import pytest

import vllm_wheelhouse
from vllm_testlib import ROOT, pypi_reachable

PLAYBOOK = shutil.which("ansible-playbook", path=os.path.dirname(sys.executable)) or \
    shutil.which("ansible-playbook")
UV = shutil.which("uv", path=os.path.dirname(sys.executable)) or shutil.which("uv")

pytestmark = [
    pytest.mark.skipif(PLAYBOOK is None or UV is None,
                       reason="ansible-playbook or uv is not installed (run scripts/bootstrap)"),
    pytest.mark.skipif(os.geteuid() != 0, reason="the role copies the wheels as root:root"),
    pytest.mark.skipif(not pypi_reachable(), reason="PyPI is unreachable"),
]

LOCK_A = ("idna==3.10\n    # via -r requirements.in\nmarkupsafe==3.0.2\n"
          "    # via -r requirements.in\nsix==1.17.0\n    # via -r requirements.in\n")
LOCK_B = "idna==3.10\n    # via -r requirements.in\n"

PLAY = """
- name: Wheelhouse through the role's own tasks
  hosts: boxes
  gather_facts: false
  serial: 1
  vars:
    vllm_install_wheelhouse: controller
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

    - name: Install with the role's sync command, uv offline with an empty cache
      ansible.builtin.command:
        argv: "{{{{ __vllm_install_sync_argv }}}}"
      environment: "{{{{ __vllm_install_uv_env | combine({{'UV_OFFLINE': '1'}}) }}}}"
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
    playbook.write_text(PLAY.format(wheelhouse=wheelhouse, uv=UV, uv_cache=tmp_path / "uv-cache"))

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
    # lock A fetched in the first batch, found complete in the second (nothing saved again)
    assert downloads["box-a"]["changed"] is True
    assert downloads["box-b"]["changed"] is False, downloads["box-b"]["stdout"]
    assert "Saved" not in downloads["box-b"]["stdout"]
    assert "File was already downloaded" in downloads["box-b"]["stdout"]
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

    for name, root in hosts.items():
        sha = sha_a if name != "box-c" else sha_b
        copy = root / "host-wheels" / sha
        assert sorted(p.name for p in copy.glob("*.whl")) == sorted(
            p.name for p in (wheelhouse / sha).glob("*.whl"))
        sync = json.loads((out / ("sync-%s.json" % name)).read_text())
        assert sync[-3:] == ["--no-index", "--find-links", str(copy)]
        assert not any(a.startswith(("--index-url", "--extra-index-url")) for a in sync)
        freeze = subprocess.run([UV, "pip", "freeze", "--python", str(root / "venv" / "bin" / "python")],
                                check=True, capture_output=True, text=True,
                                env=dict(os.environ, UV_NO_CONFIG="1")).stdout
        expected = LOCK_A if name != "box-c" else LOCK_B
        assert vllm_wheelhouse_pins(freeze) == vllm_wheelhouse_pins(expected)

    # a second run (a retry, or the next rollout of the same release) downloads nothing new
    again = _run(tmp_path, playbook, inventory)
    assert again.returncode == 0, again.stdout[-6000:]
    for name in hosts:
        result = json.loads((out / ("download-%s.json" % name)).read_text())
        assert result["results"][0]["changed"] is False
    assert "Saved " not in again.stdout


def vllm_wheelhouse_pins(text):
    import vllm_lock
    return vllm_lock.parse_pins(text)


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
