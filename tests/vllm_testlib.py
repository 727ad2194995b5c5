"""Helpers shared by the tests: repository paths, the shared corpus, loading a module file."""
import importlib.util
import os
import socket

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(os.path.dirname(ROOT), "shared", "corpus")


def load_module(name):
    """Import plugins/modules/<name>.py (modules are not on sys.path: names may clash)."""

    path = os.path.join(ROOT, "plugins", "modules", name + ".py")
    spec = importlib.util.spec_from_file_location("vllm_test_module_" + name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_filter(name="vllm"):
    """Import plugins/filter/<name>.py by path (the name ``vllm`` may be the real package elsewhere)."""
    path = os.path.join(ROOT, "plugins", "filter", name + ".py")
    spec = importlib.util.spec_from_file_location("vllm_test_filter_" + name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return port


def pypi_reachable():
    """Whether pypi.org answers on 443 (tests that need the registry skip otherwise)."""
    try:
        socket.create_connection(("pypi.org", 443), timeout=5).close()
        return True
    except OSError:
        return False


def make_tls_cert(directory, san="IP:127.0.0.1,DNS:localhost", name="server"):
    """A self-signed certificate and its key made with openssl (PEM files ``name``.pem and
    ``name``-key.pem in ``directory``); returns (cert_path, key_path, cert_text, key_text)."""
    import subprocess
    cert = os.path.join(str(directory), name + ".pem")
    key = os.path.join(str(directory), name + "-key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj", "/CN=vllm-test",
                    "-addext", "subjectAltName=" + san, "-keyout", key, "-out", cert],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
    with open(cert) as handle:
        cert_text = handle.read()
    with open(key) as handle:
        key_text = handle.read()
    return cert, key, cert_text, key_text


# systemd-analyze security: the unit's exposure; the role's units stay at or below this ("OK")
MAX_EXPOSURE = 3.5
SYSTEMD_ANALYZE = __import__("shutil").which("systemd-analyze")


def _needs_systemd_analyze():
    import pytest
    return pytest.mark.skipif(SYSTEMD_ANALYZE is None,
                              reason="systemd-analyze is not installed (apt-get install systemd)")


needs_systemd_analyze = _needs_systemd_analyze()


def unit_exposure(unit):
    """(score, report) of ``systemd-analyze security --offline=true`` for a unit file (vllm.service,
    vllm-router.service: the file's name is the unit's)."""
    import re
    import subprocess
    proc = subprocess.run([SYSTEMD_ANALYZE, "security", "--offline=true", "--no-pager", str(unit)],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120,
                          universal_newlines=True)
    name = re.escape(str(unit).rsplit("/", 1)[-1])
    match = re.search(r"Overall exposure level for %s: (\d+(?:\.\d+)?) (\w+)" % name, proc.stdout)
    assert match, proc.stdout[-3000:]
    return float(match.group(1)), proc.stdout
