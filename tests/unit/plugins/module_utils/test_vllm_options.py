import yaml

import vllm_launcher
import vllm_options as o

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
    budget = (8192 * o.MIB - 4 * o.GIB - o.CPU_RAM_RESERVE) // 2
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
