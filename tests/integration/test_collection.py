"""The project as the Ansible collection vllm_ops.workstation (issue 16).

``ansible-galaxy collection build`` makes the tarball; it is installed into a throwaway path and a
playbook uses its roles, modules and filters by their FQCN from there alone: ANSIBLE_COLLECTIONS_PATH
names only that path, the working directory is a throwaway one (no ansible.cfg of the repository),
check mode against this machine over the local connection. Then ``ansible-test sanity`` runs on the
installed copy (it must run from inside ``.../ansible_collections/vllm_ops/workstation``).

ansible-test gives each sanity test with requirements its own virtualenv and bootstraps pip in it
with a get-pip.py from ci-files.testing.ansible.com, which is unreachable here: its cached copy is
tests/tools/get_pip.py (pip from ensurepip, the pinned packages from PyPI), under a HOME of our own
(.cache/ansible-test-home), where the virtualenvs stay between runs. Measured on 2 cores: build 1 s,
install 1 s, the check-mode playbook 7 s; the 21 sanity tests 15 s once their virtualenvs exist (the
first run makes them from PyPI: about 150 s). The whole file: 28 s.

Sanity tests not run (SKIPPED_SANITY), each for a reason an ignore entry cannot carry: ansible-lint's
production profile (its ``sanity`` rule) permits only a few ignore kinds, none of these:
- pep8: the doctor's rule table (data in vllm_doctor_rules.py) holds regexes longer than 160 characters;
- pylint: ``_`` as a throwaway name (20 places), sys.exit in the launcher (a script on the host);
- replace-urlopen: vllm_readiness uses urllib, as the plain scripts that share it must.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time

import pytest

from vllm_testlib import ROOT, pypi_reachable

BIN = os.path.dirname(sys.executable)
GALAXY = shutil.which("ansible-galaxy", path=BIN) or shutil.which("ansible-galaxy")
PLAYBOOK = shutil.which("ansible-playbook", path=BIN) or shutil.which("ansible-playbook")
ANSIBLE_TEST = shutil.which("ansible-test", path=BIN) or shutil.which("ansible-test")
NAME = "vllm_ops.workstation"
TARBALL = "vllm_ops-workstation-1.0.0.tar.gz"
SANITY_HOME = os.path.join(ROOT, ".cache", "ansible-test-home")
SKIPPED_SANITY = ("pep8", "pylint", "replace-urlopen")

pytestmark = pytest.mark.skipif(None in (GALAXY, PLAYBOOK, ANSIBLE_TEST),
                                reason="ansible-core's tools are not installed (run scripts/bootstrap)")


def _env(**extra):
    """This environment without any ANSIBLE_* setting, plus ``extra``."""
    env = dict((k, v) for k, v in os.environ.items() if not k.startswith("ANSIBLE_"))
    env.update(ANSIBLE_NOCOLOR="1", **extra)
    return env


def _run(argv, cwd, env, timeout=120):
    started = time.monotonic()
    proc = subprocess.run(argv, cwd=str(cwd), env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=timeout)
    print("%s: %.1f s" % (" ".join(os.path.basename(a) for a in argv[:3]), time.monotonic() - started))
    return proc


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(work dir, environment, installed collection dir) of the freshly built tarball."""
    work = tmp_path_factory.mktemp("collection")
    collections = work / "collections"
    env = _env(ANSIBLE_COLLECTIONS_PATH=str(collections))
    built = _run([GALAXY, "collection", "build", "--output-path", str(work / "dist"), ROOT], work, env)
    assert built.returncode == 0, built.stdout
    tarball = work / "dist" / TARBALL
    assert tarball.is_file(), built.stdout
    done = _run([GALAXY, "collection", "install", "-p", str(collections), str(tarball)], work, env)
    assert done.returncode == 0 and "installed successfully" in done.stdout, done.stdout
    return work, env, tarball, collections / "ansible_collections" / "vllm_ops" / "workstation"


def test_the_tarball_holds_the_collection_and_no_checkout_tooling(installed):
    _work, _env_, tarball, _path = installed
    with tarfile.open(str(tarball)) as tar:
        names = set(tar.getnames())
    for wanted in ("MANIFEST.json", "meta/runtime.yml", "README.md", "site.yml",
                   "roles/vllm_preflight/meta/argument_specs.yml", "plugins/modules/vllm_host_facts.py",
                   "plugins/module_utils/vllm_plan.py", "plugins/filter/vllm.py", "data/vllm_compat.yml",
                   "tests/sanity/ignore-2.19.txt"):
        assert wanted in names, wanted
    for unwanted in (".venv", ".ansible", ".cache", ".artifacts", ".git", "molecule", "scripts", "tests/fixtures",
                     "tests/unit", "tests/integration", "inventories", "benchmarks", "ansible.cfg"):
        assert not any(n == unwanted or n.startswith(unwanted + "/") for n in names), unwanted
    assert os.path.getsize(str(tarball)) < 2 * 1024 * 1024


def test_a_playbook_uses_the_installed_roles_modules_and_filters_by_fqcn(installed):
    work, env, _tarball, path = installed
    listed = _run([GALAXY, "collection", "list", NAME, "--format", "json"], work, env)
    assert listed.returncode == 0, listed.stdout
    found = json.loads(listed.stdout[listed.stdout.index("{"):])
    assert list(found) == [str(path.parent.parent)], found  # only the throwaway copy
    (work / "hosts.yml").write_text(
        "all:\n  hosts:\n    testbox:\n      ansible_connection: local\n"
        "      ansible_python_interpreter: %s\n" % sys.executable)
    (work / "play.yml").write_text("""---
- name: The collection from its installed copy alone
  hosts: testbox
  gather_facts: false
  roles:
    - role: vllm_ops.workstation.vllm_host_facts
  tasks:
    - name: The module by its FQCN
      vllm_ops.workstation.vllm_host_facts:
        paths: {root: /}
      check_mode: false
      register: facts

    - name: The role's fact, the module's result and a filter's refusal of bad input
      vars:
        # a range (vllm_validate); a choice like the backend's is the argument spec's, checked
        # by the preflight's validate_argument_spec task
        errors: "{{ {'vllm_service_port': 70000} | vllm_ops.workstation.vllm_input_errors }}"
      ansible.builtin.assert:
        that:
          - vllm_host.cpus | int > 0
          - facts.ansible_facts.vllm_host.cpus == vllm_host.cpus
          - errors | length == 1
          - "'70000' in errors[0]"
        quiet: true
""")
    proc = _run([PLAYBOOK, "-i", "hosts.yml", "play.yml", "--check"], work, env)
    assert proc.returncode == 0, proc.stdout[-4000:]
    assert "TASK [vllm_ops.workstation.vllm_host_facts : Gather vLLM host facts" in proc.stdout
    assert "ok=5" in proc.stdout and "failed=0" in proc.stdout, proc.stdout[-2000:]


def _sanity_tests(env, cwd):
    """The names ansible-test sanity --list-tests prints (its warnings go to stderr)."""
    listed = subprocess.run([ANSIBLE_TEST, "sanity", "--list-tests", "--python", "%d.%d" % sys.version_info[:2]],
                            cwd=str(cwd), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            timeout=60)
    assert listed.returncode == 0, listed.stdout + listed.stderr
    return [line for line in listed.stdout.splitlines() if re.fullmatch(r"[a-z0-9-]+", line)]


def _pip_bootstrap(home):
    """tests/tools/get_pip.py where ansible-test looks for its cached get-pip.py."""
    import types
    from ansible_test._internal.python_requirements import get_venv_packages
    version = get_venv_packages(types.SimpleNamespace(version="%d.%d" % sys.version_info[:2]))["pip"]
    cache = os.path.join(home, ".ansible", "test", "cache")
    os.makedirs(cache, exist_ok=True)
    shutil.copyfile(os.path.join(ROOT, "tests", "tools", "get_pip.py"),
                    os.path.join(cache, "get_pip_%s.py" % version.replace(".", "_")))


def test_ansible_test_sanity_passes_on_the_installed_collection(installed):
    _work, env, _tarball, path = installed
    venvs = os.path.join(SANITY_HOME, ".ansible", "test", "venv")
    if not os.path.isdir(venvs) and not pypi_reachable():
        pytest.skip("ansible-test sanity needs PyPI once for its virtualenvs, and pypi.org:443 is not reachable")
    _pip_bootstrap(SANITY_HOME)
    env = dict(env, HOME=SANITY_HOME)
    tests = [t for t in _sanity_tests(env, path) if t not in SKIPPED_SANITY]
    assert {"validate-modules", "compile", "import", "yamllint", "ansible-doc", "runtime-metadata"} <= set(tests)
    argv = [ANSIBLE_TEST, "sanity", "--local", "--python", "%d.%d" % sys.version_info[:2], "--color", "no"]
    for name in tests:
        argv += ["--test", name]
    proc = _run(argv, path, env, timeout=560)
    assert proc.returncode == 0, proc.stdout[-6000:]
    ran = [line.split('"')[1] for line in proc.stdout.splitlines() if line.startswith("Running sanity test ")]
    assert sorted(ran) == sorted(tests), proc.stdout[-3000:]
    assert "Skipping" not in proc.stdout, proc.stdout[-3000:]
