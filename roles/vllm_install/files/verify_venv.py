"""Print what a vLLM venv holds, as JSON (run with the venv's python)."""
import glob
import json
import os
import subprocess
import sys
from importlib import metadata

result = {"python": "%d.%d" % sys.version_info[:2], "errors": []}
try:
    import torch

    result["torch_version"] = torch.__version__
    result["torch_cuda"] = torch.version.cuda
    result["cuda_available"] = bool(torch.cuda.is_available())
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
    # the host lacks (libnuma for the CPU kernels) would only show as a missing op at start-up.
    env = dict(os.environ)
    if "torch" in sys.modules:
        env["LD_LIBRARY_PATH"] = os.path.join(os.path.dirname(torch.__file__), "lib")
    missing = set()
    for lib in sorted(glob.glob(os.path.join(os.path.dirname(vllm.__file__), "*.so"))):
        out = subprocess.run(["ldd", lib], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, universal_newlines=True).stdout
        missing.update(line.split("=>")[0].strip() for line in out.splitlines()
                       if "not found" in line)
    result["missing_libraries"] = sorted(missing)
    if missing:
        result["errors"].append("vLLM's kernels need system libraries this host lacks: %s"
                                % ", ".join(sorted(missing)))
print(json.dumps(result))
