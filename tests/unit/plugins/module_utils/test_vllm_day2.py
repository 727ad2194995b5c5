"""vllm_day2: the commands the summary prints under "Next:" for a host, by its service manager."""
import pytest

import vllm_day2


def test_systemd_commands():
    assert vllm_day2.service_commands("systemd", unit="vllm.service") == [
        ("status", "systemctl status vllm"), ("log", "journalctl -u vllm -f"),
        ("restart", "systemctl restart vllm"), ("stop", "systemctl stop vllm")]


def test_launcher_commands():
    assert vllm_day2.service_commands("launcher", log_file="/var/log/vllm/vllm.log") == [
        ("status", "/usr/local/sbin/vllm-launcher status"), ("log", "tail -f /var/log/vllm/vllm.log"),
        ("restart", "/usr/local/sbin/vllm-launcher restart"), ("stop", "/usr/local/sbin/vllm-launcher stop")]


def test_unknown_manager_is_an_error():
    with pytest.raises(ValueError, match="unknown service manager 'auto'"):
        vllm_day2.service_commands("auto")


def test_next_lines_of_a_served_host_name_its_manager_only():
    lines = vllm_day2.next_lines("launcher", host="wsl-box")
    assert lines[:4] == ["status: /usr/local/sbin/vllm-launcher status", "log: tail -f /var/log/vllm/vllm.log",
                         "restart: /usr/local/sbin/vllm-launcher restart", "stop: /usr/local/sbin/vllm-launcher stop"]
    assert not any("systemctl" in line for line in lines)
    assert "remove the server (model store kept): ansible-playbook site.yml -l wsl-box -e vllm_state=absent" in lines
    back = [line for line in lines if line.startswith("back to an earlier release")][0]
    assert back == ("back to an earlier release (through the readiness gate): ls /opt/vllm/releases; "
                    "ansible-playbook site.yml -l wsl-box -e vllm_python_release=NAME (keep it set to stay "
                    "there; empty: the planned release again)")
    # the ungated module call is no longer what a user is told to do
    assert not any("-m vllm_release" in line for line in lines)
    assert any(line.startswith("upgrade vLLM: change vllm_install_version") for line in lines)


def test_next_lines_under_systemd_restart_with_systemctl():
    lines = vllm_day2.next_lines("systemd", unit="vllm.service", python_root="/srv/vllm")
    assert lines[1] == "log: journalctl -u vllm -f"
    assert "ls /srv/vllm/releases; ansible-playbook site.yml -e vllm_python_release=NAME" in lines[5]


def test_a_removed_host_is_told_how_to_come_back():
    assert vllm_day2.next_lines("systemd", removed=True, host="a") == [
        "bring it back: ansible-playbook site.yml -l a (the model store was kept: no download)"]
    assert vllm_day2.next_lines("launcher", removed=True, store_kept=False) == [
        "bring it back: ansible-playbook site.yml (the model is fetched again)"]
