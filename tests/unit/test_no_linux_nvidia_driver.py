"""Under WSL the GPU driver is Windows': nothing here may install a Linux NVIDIA driver."""
import os
import re

from vllm_testlib import ROOT

DRIVER = re.compile(r"nvidia-(driver|dkms|kernel|headless)|cuda-drivers|libnvidia-compute|nvidia-utils-\d", re.I)


def test_no_role_or_playbook_installs_a_linux_nvidia_driver():
    offenders = []
    for top in ("roles", "playbooks", "data", "plugins"):
        for directory, _, names in os.walk(os.path.join(ROOT, top)):
            for name in names:
                if not name.endswith((".yml", ".yaml", ".j2", ".py", ".txt")):
                    continue
                path = os.path.join(directory, name)
                with open(path, encoding="utf-8", errors="replace") as handle:
                    for number, line in enumerate(handle, 1):
                        if DRIVER.search(line) and not line.lstrip().startswith("#"):
                            offenders.append("%s:%d: %s" % (os.path.relpath(path, ROOT), number, line.strip()))
    assert offenders == []


def test_the_check_would_see_one():
    assert DRIVER.search("    name: [nvidia-driver-550, nvidia-dkms-550]")
    assert DRIVER.search("apt install cuda-drivers")
    assert not DRIVER.search("nvidia-smi --query-gpu=name")
