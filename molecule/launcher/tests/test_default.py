"""Placeholder checks for the `launcher` scenario: no systemd as PID 1, zombies are reaped."""
import time

PYPI_PROBE = "https://pypi.org/simple/uv/"


def test_systemd_is_not_booted(host):
    assert host.file("/proc/1/comm").content_string.strip() != "systemd"
    assert not host.file("/run/systemd/system").exists
    assert host.run("systemctl is-system-running").rc != 0


def test_pid_1_reaps_orphans(host):
    # The subshell exits at once, so the sleep is re-parented to PID 1; when the sleep ends,
    # only an init that reaps children keeps it from staying a zombie.
    host.run_expect([0], "sh -c 'sleep 1 & exit 0'")
    time.sleep(3)
    zombies = host.run("ps -eo pid=,ppid=,stat=,comm= | awk '$3 ~ /^Z/'").stdout
    assert zombies.strip() == "", zombies


def test_python3_is_bookworm_311(host):
    version = host.run_expect([0], "python3 -c 'import sys; print(*sys.version_info[:2])'")
    assert version.stdout.split() == ["3", "11"]


def test_pypi_reachable_through_proxy(host):
    code = host.run_expect([0], "curl -sS -o /dev/null -w '%%{http_code}' %s", PYPI_PROBE)
    assert code.stdout == "200"


def test_shared_caches_mounted(host):
    assert host.file("/var/cache/vllm-provision/uv").is_directory
    assert host.file("/opt/vllm-find-links").is_directory
    assert host.run("touch /opt/vllm-find-links/.probe").rc != 0, "find-links must be read-only"
