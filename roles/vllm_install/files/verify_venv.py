"""Print what a vLLM venv holds, as JSON (run with the venv's python).

What it reads, and what it leaves to the driver:
- torch's version, its CUDA build (``torch.version.cuda``) and the GPU architectures its
  kernels were compiled for (``torch.cuda.get_arch_list()``, read from the build itself);
- the versions of the packages named on the command line, and whether ``vllm`` imports;
- whether the shared libraries of every compiled extension under ``vllm/`` resolve, with the
  library path torch itself uses (``torch/lib`` and the ``nvidia/*/lib`` folders of the CUDA
  wheels). The driver's own libraries (``libcuda.so.1``, ``libnvidia-ml.so.1``) come with the
  NVIDIA driver, not with the venv: where they are missing the check says "not checked: no
  driver" in ``notes`` instead of failing;
- whether torch sees a GPU, only where the host has NVIDIA device nodes (``/dev/nvidia*``, or
  ``/dev/dxg`` under WSL2). Without any, ``torch.cuda.is_available()`` cannot mean anything:
  ``cuda_available`` is null and ``notes`` says "not checked: no device".
"""
import glob
import json
import os
import subprocess
import sys
from importlib import metadata

DRIVER_LIBRARIES = ("libcuda.so.1", "libcuda.so", "libnvidia-ml.so.1", "libnvidia-ml.so")


def gpu_device_nodes():
    """The NVIDIA device nodes this host shows (native Linux: /dev/nvidia*; WSL2: /dev/dxg)."""
    nodes = sorted(glob.glob("/dev/nvidia*"))
    if os.path.exists("/dev/dxg"):
        nodes.append("/dev/dxg")
    return nodes


result = {"python": "%d.%d" % sys.version_info[:2], "errors": [], "notes": []}
result["gpu_devices"] = gpu_device_nodes()
try:
    import torch

    result["torch_version"] = torch.__version__
    result["torch_cuda"] = torch.version.cuda
    if torch.version.cuda:
        try:
            result["cuda_archs"] = list(torch.cuda.get_arch_list())
        except Exception as err:  # noqa: BLE001 - a finding, not a crash
            result["cuda_archs"] = None
            result["notes"].append("compiled GPU architectures not read: %s" % err)
        if result["gpu_devices"]:
            result["cuda_available"] = bool(torch.cuda.is_available())
            if result["cuda_available"]:
                result["cuda_devices"] = [
                    {"name": torch.cuda.get_device_name(i),
                     "compute_capability": "%d.%d" % torch.cuda.get_device_capability(i)}
                    for i in range(torch.cuda.device_count())]
        else:
            result["cuda_available"] = None
            result["notes"].append("torch.cuda.is_available() not checked: no device "
                                   "(no /dev/nvidia* or /dev/dxg on this host)")
    else:
        result["cuda_available"] = False
except Exception as err:  # noqa: BLE001 - any import failure is a finding
    result["errors"].append("import torch: %s" % err)
for name in sys.argv[1:]:
    try:
        result.setdefault("packages", {})[name] = metadata.version(name)
    except metadata.PackageNotFoundError:
        result.setdefault("packages", {})[name] = None
try:
    import vllm  # noqa: F401

    result["vllm_importable"] = True
except Exception as err:  # noqa: BLE001
    result["vllm_importable"] = False
    result["errors"].append("import vllm: %s" % err)
else:
    # vLLM's compiled kernels are loaded later, by the engine: a system library they need and
    # the host lacks (libnuma for the CPU kernels, a CUDA library of the wrong major) would only
    # show as a missing op at start-up.
    env = dict(os.environ)
    paths = []
    if "torch" in sys.modules:
        site = os.path.dirname(os.path.dirname(torch.__file__))
        paths.append(os.path.join(os.path.dirname(torch.__file__), "lib"))
        paths.extend(sorted(glob.glob(os.path.join(site, "nvidia", "*", "lib"))))
    if env.get("LD_LIBRARY_PATH"):
        paths.append(env["LD_LIBRARY_PATH"])
    env["LD_LIBRARY_PATH"] = os.pathsep.join(paths)
    root = os.path.dirname(vllm.__file__)
    libraries = sorted(glob.glob(os.path.join(root, "**", "*.so"), recursive=True))
    missing, driver_missing = set(), set()
    for lib in libraries:
        out = subprocess.run(["ldd", lib], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, universal_newlines=True).stdout
        for line in out.splitlines():
            if "not found" not in line:
                continue
            name = line.split("=>")[0].strip()
            (driver_missing if name in DRIVER_LIBRARIES else missing).add(name)
    result["extensions_checked"] = len(libraries)
    result["missing_libraries"] = sorted(missing)
    result["driver_libraries_missing"] = sorted(driver_missing)
    if missing:
        result["errors"].append("vLLM's kernels need libraries this host lacks: %s"
                                % ", ".join(sorted(missing)))
    if driver_missing:
        result["notes"].append("%s not checked: no driver (the NVIDIA driver provides %s)"
                               % ("loading vLLM's kernels", ", ".join(sorted(driver_missing))))
print(json.dumps(result))
