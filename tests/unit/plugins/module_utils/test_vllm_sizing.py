"""The one sizing model (vllm_sizing), and the proof that the model preflight (check_fit) and the
service's options (compute_options) size a model the same way: same GPUs, same usable memory,
same refusals."""
import pytest

import vllm_model_check as mc
import vllm_options as o
import vllm_sizing as s

GB = 10 ** 9
LLAMA_8B = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
            "intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8,
            "num_hidden_layers": 32, "max_position_embeddings": 131072, "vocab_size": 128256,
            "torch_dtype": "bfloat16"}
QWEN_7B = {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 3584,
           "intermediate_size": 18944, "num_attention_heads": 28, "num_key_value_heads": 4,
           "num_hidden_layers": 28, "max_position_embeddings": 32768, "vocab_size": 152064,
           "torch_dtype": "bfloat16"}
QWEN_VL_8B = {"architectures": ["Qwen3VLForConditionalGeneration"], "model_type": "qwen3_vl",
              "video_token_id": 151656,
              "text_config": {"hidden_size": 4096, "intermediate_size": 12288, "head_dim": 128,
                              "num_attention_heads": 32, "num_key_value_heads": 8,
                              "num_hidden_layers": 36, "max_position_embeddings": 262144,
                              "vocab_size": 151936, "dtype": "bfloat16"},
              "vision_config": {"depth": 27, "temporal_patch_size": 2}}
LLAMA_70B = dict(LLAMA_8B, hidden_size=8192, intermediate_size=28672, num_attention_heads=64,
                 num_hidden_layers=80)
TINY = {"architectures": ["LlamaForCausalLM"], "hidden_size": 64, "num_attention_heads": 2,
        "num_key_value_heads": 2, "num_hidden_layers": 2, "max_position_embeddings": 2048,
        "torch_dtype": "float32"}
MODELS = {"llama-8b": (LLAMA_8B, int(16.07 * GB)), "qwen-7b": (QWEN_7B, int(15.23 * GB)),
          "qwen-vl-8b": (QWEN_VL_8B, int(17.53 * GB)), "llama-70b": (LLAMA_70B, int(141.1 * GB)),
          "tiny": (TINY, 1200000)}


def host(total_mib, count=1, wsl=False, used=4, cc="8.9", ram_mib=128000):
    return {"cpus": 16, "memory": {"total_mib": ram_mib}, "wsl": {"is_wsl": wsl},
            "gpu": {"present": True, "gpus": [
                {"index": i, "name": "GPU", "memory_total_mib": total_mib, "memory_used_mib": used,
                 "compute_capability": cc} for i in range(count)]}}


def sized(model, gpu_host, user=None, weights=None):
    config, size = MODELS[model]
    return s.size_cuda(gpu_host, o.model_facts(config), user or {},
                       size if weights is None else weights, model)


# ---- the model alone --------------------------------------------------------------------------
def test_one_24gb_gpu_sizes_llama_8b_with_every_number():
    sizing = sized("llama-8b", host(24564))
    assert sizing["gpus"] == 1 and sizing["sized"] and sizing["fits"] is True
    assert sizing["refusal"] is None
    assert sizing["utilization"] == 0.92 and "at most 0.92" in sizing["utilization_reason"]
    assert sizing["usable_bytes"] == sizing["usable_bytes_per_gpu"] == int(0.92 * 24564 * s.MIB)
    assert sizing["weights_gpu_bytes"] == int(16.07 * GB)
    room = sizing["usable_bytes_per_gpu"] - sizing["weights_gpu_bytes"] - sizing["overhead_bytes"]
    assert abs(sizing["kv_room_bytes"] - room) <= 2  # each figure rounded down to whole bytes
    assert sizing["kv_bytes_per_token"] == 128 * 1024
    assert sizing["kv_tokens"] == sizing["kv_usable_bytes"] // (128 * 1024)
    assert sizing["max_model_len"] == sizing["options"]["max_model_len"] < 131072
    assert "capped at" in sizing["reasons"]["max_model_len"]


def test_tensor_parallel_is_the_most_gpus_that_divide_the_heads():
    sizing = sized("qwen-7b", host(24564, 8))  # 28 heads, 4 KV heads: 4 of 8 GPUs
    assert sizing["gpus"] == 4 and len(sizing["gpus_used"]) == 4
    assert "4 of 8 GPUs" in sizing["reasons"]["tensor_parallel_size"]
    assert sizing["usable_bytes"] == 4 * sizing["usable_bytes_per_gpu"]


def test_wsl_keeps_more_free_and_says_why():
    native, wsl = sized("llama-8b", host(24564)), sized("llama-8b", host(24564, wsl=True, used=1100))
    assert wsl["utilization"] < native["utilization"] and wsl["utilization"] <= 0.90
    assert "Windows desktop" in wsl["utilization_reason"]
    assert wsl["options"]["enforce_eager"] is True


def test_a_model_too_big_is_refused_with_the_numbers_and_ways_out():
    sizing = sized("llama-70b", host(81559))
    assert sizing["fits"] is False and sizing["gpus"] == 1
    err = sizing["refusal"]
    assert isinstance(err, o.OptionsError) and "does not fit" in err.reason
    assert "0.92 x 81559 MiB" in err.reason and "smaller model" in err.way_out


def test_no_room_for_one_sequence_is_refused_unless_the_user_sets_the_utilization():
    gpu = host(19000)  # the weights fit, the KV cache for one 2048-token sequence does not
    refused = sized("llama-8b", gpu)
    assert refused["fits"] is False and "for one 2048-token sequence" in refused["refusal"].reason
    user = sized("llama-8b", gpu, {"gpu_memory_utilization": 0.95})
    assert user["refusal"] is None and user["utilization"] == 0.95 and user["utilization_given"]
    assert "gpu_memory_utilization" not in user["options"]


def test_the_users_options_steer_the_sizing():
    sizing = sized("llama-8b", host(24564, 2), {"tensor_parallel_size": "1", "max_model_len": "8k"})
    assert sizing["gpus"] == 1 and "tensor_parallel_size" not in sizing["options"]
    assert sizing["max_model_len"] == 8000 and "max_model_len" not in sizing["options"]
    too_many = sized("llama-8b", host(24564, 2), {"tensor_parallel_size": 4})
    assert too_many["fits"] is False and "shows 2 GPU(s)" in str(too_many["refusal"])


def test_unknown_gpu_memory_or_weights_leave_the_fit_unknown():
    unknown_gpu = {"gpu": {"gpus": [{"name": "GB10", "memory_total_mib": None}]}}
    sizing = sized("llama-8b", unknown_gpu)
    assert not sizing["sized"] and sizing["fits"] is None and sizing["usable_bytes"] is None
    assert sizing["max_model_len"] == 131072
    sizing = sized("llama-8b", host(24564), weights=0)
    assert sizing["sized"] and sizing["fits"] is None and sizing["usable_bytes"] > 0


def test_a_full_gpu_is_refused():
    sizing = sized("tiny", host(24564, used=23000))
    assert sizing["fits"] is False and "nearly full" in str(sizing["refusal"])


def test_cpu_room_and_kv_budget():
    cpu = s.size_cpu(8192 * s.MIB, 4 * s.GIB)
    assert cpu["room_bytes"] == 8192 * s.MIB - 4 * s.GIB - s.CPU_RAM_RESERVE and cpu["fits"]
    assert cpu["kv_budget_bytes"] == cpu["room_bytes"] // 2
    small = s.size_cpu(6 * s.GIB, 4 * s.GIB)
    assert not small["fits"] and small["kv_budget_bytes"] == s.CPU_KV_CACHE_FLOOR // 2


def test_user_quantities_are_read_as_vllm_reads_them():
    assert s.sizing_options({"max_model_len": "8K", "tensor_parallel_size": "auto",
                             "gpu_memory_utilization": "0.8", "quantization": "fp8"}) == \
        {"max_model_len": 8192, "gpu_memory_utilization": 0.8, "quantization": "fp8"}


# ---- the preflight and the service agree --------------------------------------------------------
HOSTS = {
    "8gb": host(8188), "16gb": host(16376), "24gb": host(24564), "2x24gb": host(24564, 2),
    "4x24gb": host(24564, 4), "8x24gb": host(24564, 8), "80gb": host(81559), "2x80gb": host(81559, 2),
    "24gb-wsl": host(24564, wsl=True, used=1100), "24gb-busy": host(24564, used=9000),
    "24gb-full": host(24564, used=23500), "2x10600": host(10600, 2), "2x10400": host(10400, 2),
    "old-16gb": host(16376, cc="7.5"),
}
USER = {"none": {}, "tp1": {"tensor_parallel_size": 1}, "tp2": {"tensor_parallel_size": 2},
        "util95": {"gpu_memory_utilization": 0.95}, "fp8": {"quantization": "fp8"},
        "ctx8k": {"max_model_len": 8192}, "kv2g": {"kv_cache_memory_bytes": 2 * 1024 ** 3}}


@pytest.mark.parametrize("user", sorted(USER))
@pytest.mark.parametrize("host_name", sorted(HOSTS))
@pytest.mark.parametrize("model", sorted(MODELS))
def test_check_fit_refuses_exactly_when_the_service_does(model, host_name, user):
    config, weights = MODELS[model]
    gpu_host, options = HOSTS[host_name], USER[user]
    errors, _warnings, numbers = mc.check_fit(weights, "cuda", gpu_host, config, options, model)
    try:
        computed, _reasons = o.compute_options("cuda", gpu_host, o.model_facts(config), model,
                                               "127.0.0.1", 8000, options, weights)
    except o.OptionsError as err:
        (error,) = errors
        assert str(err) in error and "cannot fit" in error
        assert numbers["fits"] is False
        return
    assert errors == [] and numbers["fits"] is True
    tp = computed["tensor_parallel_size"]
    util = computed["gpu_memory_utilization"]
    total = gpu_host["gpu"]["gpus"][0]["memory_total_mib"]
    assert numbers["gpus"] == tp and numbers["utilization"] == util
    assert numbers["usable_bytes"] == int(util * total * s.MIB) * tp
    assert numbers["max_model_len"] == computed["max_model_len"]


def test_the_agreement_covers_both_outcomes():
    """The table above holds refusals and fits alike (or the agreement proves little)."""
    outcomes = set()
    for config, weights in MODELS.values():
        for gpu_host in HOSTS.values():
            outcomes.add(bool(mc.check_fit(weights, "cuda", gpu_host, config)[0]))
    assert outcomes == {True, False}
