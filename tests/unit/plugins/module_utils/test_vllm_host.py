import os

import vllm_host


def write(root, path, text):
    full = os.path.join(str(root), path.lstrip("/"))
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as handle:
        handle.write(text)


def test_os_release_parses_quotes_and_comments():
    text = '# comment\nNAME="Ubuntu"\nVERSION_ID="24.04"\nID=ubuntu\nID_LIKE=debian\nPRETTY_NAME=\'Ubuntu 24.04 LTS\'\n'
    parsed = vllm_host.parse_os_release(text)
    assert parsed["ID"] == "ubuntu"
    assert parsed["VERSION_ID"] == "24.04"
    assert parsed["PRETTY_NAME"] == "Ubuntu 24.04 LTS"


def test_wsl2_from_kernel_release(tmp_path):
    facts = vllm_host.detect_wsl("5.15.167.4-microsoft-standard-WSL2", str(tmp_path), environ={})
    assert facts["is_wsl"] and facts["version"] == 2


def test_wsl1_from_kernel_release(tmp_path):
    facts = vllm_host.detect_wsl("4.4.0-19041-Microsoft", str(tmp_path), environ={})
    assert facts["is_wsl"] and facts["version"] == 1


def test_wsl_from_interop_and_env_with_custom_kernel(tmp_path):
    write(tmp_path, "/proc/sys/fs/binfmt_misc/WSLInterop", "enabled\n")
    os.makedirs(os.path.join(str(tmp_path), "usr/lib/wsl/lib"))
    facts = vllm_host.detect_wsl("6.6.36-custom", str(tmp_path), environ={"WSL_DISTRO_NAME": "Ubuntu"})
    assert facts["is_wsl"] and facts["version"] == 2
    assert facts["distro"] == "Ubuntu"
    assert facts["interop"] is True
    assert facts["lib_dir"] == "/usr/lib/wsl/lib"


def test_native_linux_is_not_wsl(tmp_path):
    facts = vllm_host.detect_wsl("6.8.0-45-generic", str(tmp_path), environ={})
    assert facts == {"is_wsl": False, "version": None, "distro": None, "interop": False,
                     "lib_dir": None, "evidence": []}


def test_one_weak_signal_is_not_enough(tmp_path):
    facts = vllm_host.detect_wsl("6.8.0", str(tmp_path), environ={"WSL_DISTRO_NAME": "x"})
    assert not facts["is_wsl"]


def test_systemd_booted(tmp_path):
    write(tmp_path, "/proc/1/comm", "systemd\n")
    os.makedirs(os.path.join(str(tmp_path), "run/systemd/system"))
    assert vllm_host.detect_init(str(tmp_path)) == {"pid1": "systemd", "systemd_booted": True}


def test_systemd_installed_but_not_pid1(tmp_path):
    write(tmp_path, "/proc/1/comm", "init\n")  # WSL's /init, no /run/systemd/system
    assert vllm_host.detect_init(str(tmp_path)) == {"pid1": "init", "systemd_booted": False}
    write(tmp_path, "/proc/1/comm", "catatonit\n")
    os.makedirs(os.path.join(str(tmp_path), "run/systemd/system"))
    assert vllm_host.detect_init(str(tmp_path))["systemd_booted"] is False


def test_meminfo():
    text = "MemTotal:       24576000 kB\nMemFree: 100 kB\nMemAvailable:   20480000 kB\nSwapTotal: 0 kB\n"
    assert vllm_host.parse_meminfo(text) == {"total_mib": 24000, "available_mib": 20000,
                                             "swap_total_mib": 0}


def test_mount_for_picks_longest_prefix():
    mounts = ("/dev/sdc / ext4 rw 0 0\n"
              "C:\\134 /mnt/c 9p rw,aname=drvfs 0 0\n"
              "none /mnt/wslg tmpfs rw 0 0\n")
    assert vllm_host.mount_for("/mnt/c/Users/me/models", mounts)["fstype"] == "9p"
    assert vllm_host.mount_for("/mnt/cdrom", mounts)["fstype"] == "ext4"
    assert vllm_host.mount_for("/var/lib/vllm", mounts)["mountpoint"] == "/"


def test_space_for_a_path_that_does_not_exist_yet(tmp_path):
    target = os.path.join(str(tmp_path), "a", "b", "c")
    space = vllm_host.space_for(target, "")
    assert space["checked"] == str(tmp_path)
    assert space["free_mib"] > 0 and space["total_mib"] >= space["free_mib"]


def test_find_nvidia_smi_in_wsl_lib(tmp_path):
    path = os.path.join(str(tmp_path), "usr/lib/wsl/lib/nvidia-smi")
    write(tmp_path, "/usr/lib/wsl/lib/nvidia-smi", "#!/bin/sh\n")
    os.chmod(path, 0o755)
    assert vllm_host.find_nvidia_smi(str(tmp_path), path_env="/usr/bin") == "/usr/lib/wsl/lib/nvidia-smi"
    assert vllm_host.find_nvidia_smi(str(tmp_path) + "/nothing", path_env="") is None


def test_python_version_of():
    assert vllm_host.python_version_of("Python 3.14.0rc1") == "3.14"
    assert vllm_host.python_version_of("") is None


def test_wsl_seen_through_pid1_env_when_sudo_dropped_it(tmp_path):
    write(tmp_path, "/proc/1/environ", "PATH=/bin\0WSL_DISTRO_NAME=Ubuntu-24.04\0")
    os.makedirs(os.path.join(str(tmp_path), "run/WSL"))
    facts = vllm_host.detect_wsl("6.6.87.2-custom", str(tmp_path), environ={})
    assert facts["is_wsl"] and facts["version"] == 2
    assert facts["distro"] == "Ubuntu-24.04"
    assert "/run/WSL present" in facts["evidence"]
