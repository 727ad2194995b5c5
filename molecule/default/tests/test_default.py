"""Placeholder checks for the `default` scenario: systemd is PID 1 and the network works."""

PYPI_PROBE = "https://pypi.org/simple/uv/"


def test_systemd_is_pid_1_and_running(host):
    assert host.file("/proc/1/comm").content_string.strip() == "systemd"
    state = host.run("systemctl is-system-running --wait")
    assert state.stdout.strip() == "running", host.run("systemctl --failed --no-pager").stdout


def test_python3_is_bookworm_311(host):
    version = host.run_expect([0], "python3 -c 'import sys; print(*sys.version_info[:2])'")
    assert version.stdout.split() == ["3", "11"]


def test_pypi_reachable_through_proxy(host):
    # Needs the host's CA bundle (bind-mounted) to trust the intercepting proxy.
    code = host.run_expect([0], "curl -sS -o /dev/null -w '%%{http_code}' %s", PYPI_PROBE)
    assert code.stdout == "200"


def test_shared_caches_mounted(host):
    assert host.file("/var/cache/vllm-provision/uv").is_directory
    assert host.file("/opt/vllm-find-links").is_directory
    assert host.run("touch /opt/vllm-find-links/.probe").rc != 0, "find-links must be read-only"
