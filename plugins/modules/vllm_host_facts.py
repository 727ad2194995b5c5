#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, vLLM provisioner maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Gather what the vLLM provisioner needs to know about a host."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: vllm_host_facts
short_description: Gather OS, WSL, init system, CPU, RAM, GPU and free-space facts for vLLM
description:
  - Reads C(/etc/os-release), C(/proc), the kernel release and C(nvidia-smi) (also from
    C(/usr/lib/wsl/lib) where WSL keeps it off C(PATH)) and returns them as one fact, C(vllm_host).
  - GPU facts come from NVML (the C(pynvml) module of C(nvidia-ml-py), where the interpreter
    running the module has it) and from C(nvidia-smi). With both, NVML's facts are used
    (C(gpu.source) is C(nvml)) and any disagreement between the two is a line in C(gpu.warnings);
    without NVML (no C(pynvml), no C(libnvidia-ml.so.1), driver not loaded) the nvidia-smi facts
    are used and C(gpu.nvml.reason) says why.
  - Changes nothing on the host; safe in check mode.
options:
  paths:
    description:
      - Paths whose filesystem free space matters (the venv root, the model store). They need not
        exist yet; the nearest existing parent is measured.
    type: dict
    default: {}
  nvidia_smi:
    description: Path of C(nvidia-smi). When empty it is searched on C(PATH) and in the usual places.
    type: str
    default: ""
  python_candidates:
    description: Interpreter names to look for, newest first.
    type: list
    elements: str
    default: [python3.14, python3.13, python3.12, python3.11, python3.10, python3]
  cuda_driver_minimums:
    description:
      - NVIDIA's CUDA driver table, C(cuda_driver_minimums) of the project's C(data/vllm_compat.yml)
        (CUDA version to C(linux) and C(windows) minimum driver), from which C(gpu.cuda_version_from_driver)
        is derived when C(nvidia-smi) does not show the CUDA version.
      - When not given, no CUDA version is derived from the driver number (the module carries no
        copy of the table).
    type: dict
author:
  - vLLM provisioner maintainers (!UNKNOWN)
"""

EXAMPLES = r"""
- name: Gather host facts
  vllm_host_facts:
    paths:
      venv_root: /opt/vllm
      model_store: /var/lib/vllm/models
"""

RETURN = r"""
ansible_facts:
  description: Facts returned.
  returned: always
  type: dict
  contains:
    vllm_host:
      description: >-
        os, arch, kernel, wsl, init, cpus, cpu_ids (the affinity set), memory, python, gpu, space. C(gpu.source) is C(nvml),
        C(query) or C(table); C(gpu.nvml) has C(used), C(reason) and C(disagreements).
      type: dict
"""

import os
import platform

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.vllm_ops.workstation.plugins.module_utils.vllm_host import (
    PY_PROBE,
    detect_init,
    detect_wsl,
    find_nvidia_smi,
    parse_meminfo,
    parse_os_release,
    python_version_of,
    space_for,
    world_accessible,
)
from ansible_collections.vllm_ops.workstation.plugins.module_utils.vllm_gpu import (
    NVML_SOURCE, choose_gpu_facts, gather_nvml, read_nvidia_smi, use_cuda_driver_minimums)


def gather_nvidia_smi(module, nvidia_smi):
    """Run nvidia-smi (query first, the plain table too) and parse what it prints."""
    if not nvidia_smi:
        return {"present": False, "reason": "nvidia-smi not found on PATH nor in /usr/lib/wsl/lib",
                "gpus": [], "driver_version": None, "cuda_version": None}
    env = None
    wsl_lib = "/usr/lib/wsl/lib"
    if os.path.isdir(wsl_lib):
        env = {"LD_LIBRARY_PATH": wsl_lib + ":" + os.environ.get("LD_LIBRARY_PATH", "")}
    parsed, error = read_nvidia_smi(
        lambda args: module.run_command([nvidia_smi] + args, environ_update=env))
    if parsed is None:
        return {"present": False, "nvidia_smi": nvidia_smi, "gpus": [],
                "driver_version": None, "cuda_version": None,
                "reason": "nvidia-smi failed: %s" % error}
    parsed["present"] = bool(parsed.get("gpus"))
    parsed["nvidia_smi"] = nvidia_smi
    if not parsed["present"]:
        parsed["reason"] = "nvidia-smi ran but listed no GPU"
    return parsed


def gather_gpu(module, nvidia_smi, wsl=False):
    """NVML (pynvml, where this Python has it) and nvidia-smi; NVML's facts win where both work,
    their disagreements become warnings; without NVML the nvidia-smi facts, as before, with
    ``nvml.reason`` saying why."""
    smi = gather_nvidia_smi(module, nvidia_smi)
    nvml, nvml_reason = gather_nvml(wsl=wsl)
    chosen = choose_gpu_facts(nvml, nvml_reason, smi, smi.get("reason"))
    if chosen.get("source") == NVML_SOURCE:
        chosen["present"] = True
        chosen.pop("reason", None)
        if nvidia_smi:
            chosen["nvidia_smi"] = nvidia_smi
    return chosen


def gather_python(module, candidates):
    """Interpreters by version. One every user can run (the service user must reach it through
    the venv's symlink) wins over one under a private home such as /root/.pyenv."""
    found = {}
    dirs = os.environ.get("PATH", "").split(os.pathsep) + ["/usr/local/bin", "/usr/bin"]
    for name in candidates:
        for directory in dirs:
            path = os.path.join(directory, name)
            if not directory or not os.access(path, os.X_OK):
                continue
            real = os.path.realpath(path)
            rc, out, err = module.run_command([path, "-c", PY_PROBE])
            if rc != 0:
                continue
            version, prefix = (out.strip().split(None, 1) + [""])[:2]
            exe = real if "/shims/" not in path else os.path.realpath(prefix)
            shared = world_accessible(exe)
            old = found.get(version)
            if old is None or (shared and not old["shared"]):
                found[version] = {"path": exe, "shared": shared}
    rc, out, err = module.run_command(["python3", "--version"]) if module.get_bin_path("python3") \
        else (1, "", "")
    return {
        "system": python_version_of(out or err) if rc == 0 else None,
        "available": dict((v, found[v]["path"]) for v in sorted(found)),
        "private": sorted(v for v in found if not found[v]["shared"]),
    }


def main():
    module = AnsibleModule(
        argument_spec=dict(
            paths=dict(type="dict", default={}),
            nvidia_smi=dict(type="str", default=""),
            python_candidates=dict(type="list", elements="str",
                                   default=["python3.14", "python3.13", "python3.12",
                                            "python3.11", "python3.10", "python3"]),
            cuda_driver_minimums=dict(type="dict"),
        ),
        supports_check_mode=True,
    )
    if module.params["cuda_driver_minimums"] is not None:
        use_cuda_driver_minimums(module.params["cuda_driver_minimums"])
    os_release = parse_os_release(_read_text("/etc/os-release") or _read_text("/usr/lib/os-release"))
    kernel = platform.release()
    mounts = _read_text("/proc/mounts") or ""
    cpu_ids = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else list(range(os.cpu_count() or 1))
    cpus = len(cpu_ids)
    nvidia_smi = module.params["nvidia_smi"] or find_nvidia_smi()
    wsl = detect_wsl(kernel)
    facts = {
        "os": {
            "id": os_release.get("ID"),
            "id_like": os_release.get("ID_LIKE", "").split(),
            "version_id": os_release.get("VERSION_ID"),
            "codename": os_release.get("VERSION_CODENAME"),
            "pretty_name": os_release.get("PRETTY_NAME"),
        },
        "arch": platform.machine(),
        "kernel": kernel,
        "wsl": wsl,
        "init": detect_init(),
        "cpus": cpus,
        "cpu_ids": cpu_ids,
        "memory": parse_meminfo(_read_text("/proc/meminfo")),
        "python": gather_python(module, module.params["python_candidates"]),
        "gpu": gather_gpu(module, nvidia_smi, wsl=wsl["is_wsl"]),
        "space": dict((name, space_for(path, mounts))
                      for name, path in sorted(module.params["paths"].items())),
    }
    module.exit_json(changed=False, ansible_facts={"vllm_host": facts})


def _read_text(path):
    try:
        with open(path, "r") as handle:
            return handle.read()
    except (IOError, OSError):
        return None


if __name__ == "__main__":
    main()
