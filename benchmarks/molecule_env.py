"""What the benchmarks share: Molecule run the way scripts/test runs it, and a scenario's inventory."""
import glob
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def env():
    """The environment scripts/test gives Molecule (podman settings, the venv first on PATH)."""
    out = subprocess.run(["bash", "-c", "source scripts/lib/podman-env.sh >/dev/null && env -0"],
                         cwd=ROOT, check=True, stdout=subprocess.PIPE).stdout
    result = dict(item.split("=", 1) for item in out.decode().split("\0") if "=" in item)
    result["PATH"] = os.path.join(ROOT, ".venv", "bin") + os.pathsep + result.get("PATH", "")
    # the scenarios' inventories reach their containers through molecule/shared/plugins/connection
    # (vllm_podman: podman exec -i, pipelined as over SSH), which the repository's ansible.cfg
    # does not list
    result["ANSIBLE_CONNECTION_PLUGINS"] = os.path.join(ROOT, "molecule", "shared", "plugins", "connection")
    return result


def molecule(action, scenario, environ):
    subprocess.run([os.path.join(ROOT, ".venv", "bin", "molecule"), action, "-s", scenario],
                   cwd=ROOT, env=environ, check=True)


def inventory(scenario, environ):
    """Molecule's generated inventory for the scenario (after `molecule create`): it lives in the
    scenario's ephemeral folder, ~/.ansible/tmp/molecule.<hash>.<scenario>/inventory."""
    home = environ.get("HOME") or os.path.expanduser("~")
    found = sorted(glob.glob(os.path.join(home, ".ansible", "tmp", "molecule.*.%s" % scenario, "inventory")),
                   key=os.path.getmtime)
    if not found:
        raise SystemExit("no Molecule inventory for %s under ~/.ansible/tmp after `molecule create`" % scenario)
    return found[-1]
