"""roles/vllm_install/files/startup_hooks/: every hook the compatibility table names exists, and
amx_tile_permission asks Linux for the AMX tile state in a fresh Python, as a .pth file in a venv
makes every Python there (the API server and each worker vLLM spawns) do."""
import os
import subprocess
import sys
import textwrap

import pytest
import yaml

from vllm_testlib import ROOT

HOOKS = os.path.join(ROOT, "roles", "vllm_install", "files", "startup_hooks")
# ARCH_GET_XCOMP_SUPP / ARCH_GET_XCOMP_PERM, bit 18 (XTILEDATA): offered, granted
READ_STATE = textwrap.dedent("""
    import ctypes, sys
    v = ctypes.c_ulong(0)
    libc = ctypes.CDLL(None)
    libc.syscall(158, 0x1021, ctypes.byref(v)); supported = v.value >> 18 & 1
    libc.syscall(158, 0x1022, ctypes.byref(v)); granted = v.value >> 18 & 1
    print(supported, granted)
""")
LINUX_X86 = sys.platform.startswith("linux") and os.uname().machine == "x86_64"


def table_hooks():
    with open(os.path.join(ROOT, "data", "vllm_compat.yml"), encoding="utf-8") as handle:
        table = yaml.safe_load(handle)
    names = set()
    for backend in ("cpu", "cuda"):
        for release in (table["backends"][backend].get("releases") or {}).values():
            names.update(release.get("startup_hooks") or [])
    return names


def test_every_hook_the_table_names_has_its_file():
    assert table_hooks() == {"amx_tile_permission"}
    for name in table_hooks():
        assert os.path.isfile(os.path.join(HOOKS, name + ".py")), name


def python_with_pth(tmp_path, hook):
    """A site directory holding the hook and the .pth that imports it, as the role writes them."""
    site = tmp_path / "site-packages"
    site.mkdir()
    with open(os.path.join(HOOKS, hook + ".py"), encoding="utf-8") as source:
        (site / ("vllm_provision_%s.py" % hook)).write_text(source.read())
    (site / ("vllm_provision_%s.pth" % hook)).write_text("import vllm_provision_%s\n" % hook)
    return site


@pytest.mark.skipif(not LINUX_X86, reason="AMX is an x86_64 Linux matter")
def test_a_fresh_python_holds_the_amx_tile_state_where_the_cpu_offers_it(tmp_path):
    site = python_with_pth(tmp_path, "amx_tile_permission")
    # without the hook: a fresh process never holds it (permission is asked per process)
    before = subprocess.run([sys.executable, "-c", READ_STATE], check=True, capture_output=True,
                            text=True).stdout.split()
    assert before[1] == "0"
    # with it, loaded through the .pth of a site directory as in the venv
    code = "import site; site.addsitedir(%r)\n" % str(site) + READ_STATE
    supported, granted = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                                        text=True).stdout.split()
    assert granted == supported


def test_the_hook_never_raises_and_says_whether_it_was_granted(tmp_path, monkeypatch):
    site = python_with_pth(tmp_path, "amx_tile_permission")
    monkeypatch.syspath_prepend(str(site))
    import vllm_provision_amx_tile_permission as hook

    assert hook.request_amx_tile_permission() in (True, False)
    monkeypatch.setattr(hook.sys, "platform", "darwin")
    assert hook.request_amx_tile_permission() is False
