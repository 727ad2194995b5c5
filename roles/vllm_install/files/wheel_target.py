"""Print, as JSON, what decides which wheels this interpreter accepts (run with the venv's python).

The controller or mirror host downloads the release's wheels for this target with pip's
--platform/--python-version/--implementation/--abi (see plugins/module_utils/vllm_wheelhouse.py).
Standard library only.
"""
import json
import platform
import sys
import sysconfig


def main():
    libc = platform.libc_ver()
    print(json.dumps({
        "implementation": sys.implementation.name,
        "version": list(sys.version_info[:2]),
        "debug": bool(sysconfig.get_config_var("Py_DEBUG")),
        "free_threaded": bool(sysconfig.get_config_var("Py_GIL_DISABLED")),
        "pypy_abi": "".join(str(v) for v in getattr(sys, "pypy_version_info", ())[:2]) or None,
        "machine": platform.machine(),
        "bits": 64 if sys.maxsize > 2 ** 32 else 32,
        "libc": [libc[0], libc[1]],
    }))


if __name__ == "__main__":
    main()
