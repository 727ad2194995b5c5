"""Print what a vLLM venv holds, as JSON (run with the venv's python)."""
import json
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
print(json.dumps(result))
