"""Finer causes (``cause``) from vLLM's and its libraries' raise sites, on log lines quoted in public issues.

Each case names its source. ``category`` stays one of the twelve; the cause and its fix are finer.
"""
import pytest

import vllm_doctor as D

WRAPPER = "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}\n"

CASES = [
    # Triton's and torch.compile's dot-directories under HOME=/ (OpenShift arbitrary UIDs), retyped case
    ("cache_dir_triton", "torch._inductor.exc.InductorError: PermissionError: [Errno 13] Permission denied: "
     "'/.triton'\n" + WRAPPER, "model_files", "cache_dir_permission", ["/.triton", "vllm_service_user", "HOME"]),
    ("cache_dir_retyped", "permissionError: [error 13] Permission denied: '/.nv/ComputeCache'\n", "model_files",
     "cache_dir_permission", ["/.nv/ComputeCache"]),
    # PEP 604 unions evaluated on Python 3.9: no path names the version
    ("pep604_no_path", "TypeError: unsupported operand type(s) for |: 'type' and 'NoneType'\n",
     "python_version_unsupported", "old_python_typing", []),
    # substratusai/vllm-docker#37 (T4), vllm-project/vllm#946 (V100)
    ("dtype_t4", "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla "
     "T4 GPU has compute capability 7.5. You can use float16 instead by explicitly setting the`dtype` flag in CLI, "
     "for example: --dtype=half.\n", "cuda_driver_mismatch", "dtype_unsupported_on_gpu",
     ["dtype: half", "Tesla T4", "7.5"]),
    # vllm-project/vllm#3676
    ("max_len_command_r", "ValueError: User-specified max_model_len (131072) is greater than the derived "
     "max_model_len (None=8192 in model's config.json). This may lead to incorrect model outputs or CUDA errors.\n",
     "model_files", "max_model_len_too_large", ["max_model_len: 8192", "131072", "VLLM_ALLOW_LONG_MAX_MODEL_LEN"]),
    # xorbitsai/inference#1715 (seq_length form)
    ("max_len_seq_length", "ValueError: [address=127.0.0.1:37657, pid=3125985] User-specified max_model_len (4096) "
     "is greater than the derived max_model_len (seq_length=2048 or model_max_length=None in model's config.json).\n",
     "model_files", "max_model_len_too_large", ["max_model_len: 2048"]),
    # vllm-project/vllm-omni#1364
    ("unrecognized_omni", "usage: vllm [-h] [-v] {chat,complete,serve,bench,collect-env,run-batch} ...\n"
     "vllm: error: unrecognized arguments: --omni\n", "engine_core_generic", "unrecognized_argument",
     ["--omni", "--help=all", "vllm_service_options"]),
    # vllm-project/vllm#27389 (docker image given "serve MODEL" twice)
    ("unrecognized_path", "api_server.py: error: unrecognized arguments: /root/models/Qwen3-8B\n",
     "engine_core_generic", "unrecognized_argument", ["/root/models/Qwen3-8B"]),
    # other wordings of the causes the rules of e21efda missed in sets L-V (not the corpus lines)
    ("model_version_check", "ValueError: Currently, MiniCPMO only supports versions 2.6. Got version: (4, 0)\n"
     + WRAPPER, "model_files", "vllm_too_old_for_model", ["MiniCPMO", "vllm_install_version"]),
    ("remote_config_pickle", "_pickle.PicklingError: Can't pickle <class 'transformers_modules.acme.Foo-7B."
     "0123abcd.configuration_foo.FooConfig'>: it's not the same object as transformers_modules.acme\n",
     "trust_remote_code", "remote_code_config_not_picklable", ["vllm_install_version"]),
    ("port_overflow", "OverflowError: bind(): port must be 0-65535.\n", "port_in_use", "port_out_of_range",
     ["65535", "vllm_service_port"]),
    ("ray_no_gpu", "ValueError: Current node has no GPU available. current_node_resource={'CPU': 8.0, "
     "'memory': 1.0e10}. vLLM engine cannot start without GPU.\n", "tensor_parallel_config",
     "ray_task_no_gpu_reserved", ["num_gpus"]),
    ("ray_bundle", "ValueError: placement group bundle index 3 is invalid. Valid placement group indexes: 0-1\n",
     "tensor_parallel_config", "placement_group_too_small", ["tensor_parallel_size"]),
    ("ray_versions", "RuntimeError: Version mismatch: The cluster was started with:\n    Ray: 2.40.0\n"
     "    Python: 3.11.9\nThis process on node 10.0.0.2 was started with:\n    Ray: 2.41.0\n",
     "tensor_parallel_config", "ray_version_mismatch", ["same Ray"]),
    ("readonly_hub_cache", "OSError: [Errno 30] Read-only file system: '/mnt/models/hub/models--Qwen--Qwen3-8B/"
     ".no_exist/abc/generation_config.json'\n", "model_files", "cache_dir_permission", ["read-only"]),
    ("reasoning_parser", "KeyError: 'invalid reasoning parser: glm45 (chose from { deepseek_r1,qwen3 })'\n",
     "engine_core_generic", "unrecognized_argument", ["glm45", "reasoning_parser"]),
    ("spec_tokens", "pydantic_core._pydantic_core.ValidationError: 1 validation error for SpeculativeConfig\n"
     "  Value error, num_speculative_tokens must be provided with speculative model unless the draft model "
     "config contains an n_predict parameter.\n", "engine_core_generic", "speculative_num_tokens_missing",
     ["num_speculative_tokens"]),
    # this project's own launcher and systemd, a vllm_python_root under a 0700 folder
    ("service_user_exec_launcher", "==== vllm-launcher: starting pid 32679 at 2026-12-02T09:20:52+0000\n"
     "vllm-launcher: cannot start /var/tmp/vllm-noop-x56sl9e7/opt-vllm/current/venv/bin/python as vllm: "
     "[Errno 13] Permission denied: '/var/tmp/vllm-noop-x56sl9e7/opt-vllm/current/venv/bin/python'\n"
     "vllm-launcher: the server (pid 32679) exited with status 127 after 0 s\n",
     "engine_core_generic", "service_user_cannot_exec", ["vllm_python_root", "o+x"]),
    ("service_user_exec_systemd", "Dec 02 09:20:52 box (python)[812]: vllm.service: Failed to execute "
     "/home/alice/vllm/current/venv/bin/python: Permission denied\n"
     "Dec 02 09:20:52 box (python)[812]: vllm.service: Failed at step EXEC spawning "
     "/home/alice/vllm/current/venv/bin/python: Permission denied\n"
     "Dec 02 09:20:52 box systemd[1]: vllm.service: Main process exited, code=exited, status=203/EXEC\n"
     "Dec 02 09:20:52 box systemd[1]: vllm.service: Failed with result 'exit-code'.\n",
     "engine_core_generic", "service_user_cannot_exec", ["vllm_python_root", "o+x"]),
    # gpustack/gpustack#1268 (V0 engine, local path that is not there)
    ("local_path", "huggingface_hub.errors.HFValidationError: Repo id must be in the form 'repo_name' or "
     "'namespace/repo_name': '/data/models/cache/model_scope/deepseek-ai/DeepSeek-R1-Distill-Llama-70B'. Use "
     "`repo_type` argument if needed.\nERROR 02-20 10:13:40 engine.py:389] Repo id must be in the form 'repo_name' "
     "or 'namespace/repo_name': '/data/models/cache/model_scope/deepseek-ai/DeepSeek-R1-Distill-Llama-70B'. Use "
     "`repo_type` argument if needed.\n", "model_files", "local_path_not_found",
     ["/data/models/cache/model_scope/deepseek-ai/DeepSeek-R1-Distill-Llama-70B", "vllm_model_source"]),
    # PRIME-RL/TTRL#25 (~ is not expanded)
    ("local_path_tilde", "huggingface_hub.errors.HFValidationError: Repo id must be in the form 'repo_name' or "
     "'namespace/repo_name': '~/models/deepseek-llm-7b-chat'. Use `repo_type` argument if needed.\n",
     "model_files", "local_path_not_found", ["~/models/deepseek-llm-7b-chat"]),
    # opendatahub-io/ilab-on-ocp#26 (HOME=/ in a container)
    ("cache_root", "[rank1]: PermissionError: [Errno 13] Permission denied: '/.cache'\n", "model_files",
     "cache_dir_permission", ["/.cache", "HOME", "vllm_service_env", "vllm_service_user"]),
    # odysseus-dev/odysseus#6157
    ("cache_app", "PermissionError: [Errno 13] Permission denied: '/app/.cache/vllm'\n"
     "PermissionError: [Errno 13] Permission denied: '/app/.cache/flashinfer'\n"
     "RuntimeError: Engine core initialization failed. See root cause above.\n", "model_files",
     "cache_dir_permission", ["/app/.cache/vllm"]),
    # vllm-project/vllm#22231
    ("arch_qwen3", "ValueError: Model architectures ['Qwen3ForCausalLM'] are not supported for now. Supported "
     "architectures: ['AquilaModel', 'AquilaForCausalLM', 'ArcticForCausalLM', 'BaiChuanForCausalLM']\n",
     "model_files", "vllm_too_old_for_model", ["Qwen3ForCausalLM", "0.33.0", "vllm_install_version"]),
    # an architecture no vLLM release this project knows has (vllm_doctor_archs), and one refused for a platform
    ("arch_unknown_anywhere", "ValueError: Model architectures ['AcmeTinyForCausalLM'] are not supported for now. "
     "Supported architectures: ['LlamaForCausalLM', 'Qwen3ForCausalLM']\n", "model_files", "architecture_unsupported",
     ["AcmeTinyForCausalLM"]),
    ("arch_on_platform", "ValueError: Model architectures ['LlamaForCausalLM'] are not supported on TPU for now.\n",
     "model_files", "architecture_unsupported", []),
    ("arch_newer_log_release", "INFO 01-02 03:04:05 [__init__.py:1] vLLM API server version 0.34.1\nValueError: Model "
     "architectures ['LlamaForCausalLM'] are not supported for now.\n", "model_files", "architecture_unsupported", []),
    # other wordings of the causes the rules of 301c94e missed in set AN (not the corpus lines)
    ("numa_mempolicy_eperm", "ERROR 03-02 10:00:01 [core.py:700] RuntimeError: set_mempolicy: Operation not permitted\n"
     + WRAPPER, "engine_core_generic", "numa_syscalls_blocked_in_container", ["SYS_NICE", "nobind"]),
    ("cpu_autobind_two_ranks", "AssertionError: Not enough allowed NUMA nodes to bind threads of 2 CPUWorkers. "
     "Allowed NUMA nodes are [0].\n", "engine_core_generic", "cpu_autobind_numa_short",
     ["VLLM_CPU_OMP_THREADS_BIND", "nobind"]),
    ("nccl_invalid_usage_c10d", "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
     "NCCLUtils.hpp:317, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.21.5\n"
     "ncclInvalidUsage: This usually reflects invalid usage of NCCL library.\n", "tensor_parallel_config",
     "duplicate_gpu", ["CUDA_VISIBLE_DEVICES"]),
    ("triton_python_h", "/tmp/tmpq1w2e3/main.c:5:10: fatal error: Python.h: No such file or directory\n"
     "    5 | #include <Python.h>\ncompilation terminated.\n", "cuda_driver_mismatch",
     "triton_launcher_compile_failed", ["python3.X-dev", "CC"]),
    ("kv_connector_removed_v0", "ValueError: Unsupported connector type: SimpleConnector\n" + WRAPPER,
     "engine_core_generic", "kv_connector_v0_with_v1_engine", ["kv_transfer_config", "V1 connector"]),
    ("v1_on_tpu", "NotImplementedError: VLLM_USE_V1=1 is not supported with device type=tpu.\n",
     "cuda_driver_mismatch", "v1_engine_unsupported_on_platform", ["VLLM_USE_V1", "vllm_install_version"]),
    ("gemma2_softcap_flashinfer", "ValueError: Please use Flashinfer backend for models with logits_soft_cap (i.e., "
     "Gemma-2). Otherwise, the output might be wrong. Set Flashinfer backend by export "
     "VLLM_ATTENTION_BACKEND=FLASHINFER.\n", "cuda_driver_mismatch", "attention_backend_unsupported",
     ["VLLM_ATTENTION_BACKEND"]),
    ("v0_negative_kv_reserve", "INFO 05-01 10:00:00 worker.py:240] model weights take 14.99GiB; non_torch_memory takes "
     "0.12GiB; PyTorch activation peak memory takes 2.10GiB; the rest of the memory reserved for KV Cache is "
     "-3.40GiB.\n", "gpu_oom", "no_cache_blocks", ["gpu_memory_utilization"]),
    ("v0_cuda_blocks_zero", "INFO 03-03 12:00:00 executor_base.py:110] # cuda blocks: 0, # CPU blocks: 2048\n",
     "gpu_oom", "zero_blocks", []),
    ("kv_fp8_on_turing", "vllm serve Qwen/Qwen3-8B --kv-cache-dtype fp8\n(EngineCore_DP0 pid=9) ERROR 02-02 02:02:02 "
     "[core.py:700] ValueError: type fp8e4nv not supported in this architecture. The supported fp8 dtypes are "
     "('fp8e4b15', 'fp8e5')\n", "cuda_driver_mismatch", "kv_cache_dtype_unsupported", ["fp8_e5m2"]),
    ("fp8_checkpoint_on_turing", "vllm serve Qwen/Qwen3-8B-FP8 --kv-cache-dtype fp8\nValueError: type fp8e4nv not "
     "supported in this architecture. The supported fp8 dtypes are ('fp8e4b15', 'fp8e5')\n", "cuda_driver_mismatch",
     "quantization_unsupported", []),
    ("wrapper_cli_swift", "usage: swift [-h]\nswift: error: argument command: invalid choice: 'deploy-vllm' (choose "
     "from 'sft', 'infer', 'export')\n", "engine_core_generic", "wrapper_cli_subcommand_missing", ["vllm serve"]),
    ("vllm_cli_subcommand", "usage: vllm [-h] [-v] {chat,complete,serve} ...\nvllm: error: argument subparser: "
     "invalid choice: 'server' (choose from 'chat', 'complete', 'serve')\n", "engine_core_generic",
     "unrecognized_argument", []),
    ("vllm_imports_lib_submodule", "Traceback (most recent call last):\n  File \"/opt/venv/lib/python3.12/site-packages/"
     "vllm/distributed/kv_transfer/kv_connector/v1/lmcache_connector.py\", line 7, in <module>\n    from "
     "lmcache.integration.vllm.vllm_v1_adapter import LMCacheConnectorV1Impl\nModuleNotFoundError: No module named "
     "'lmcache.integration'\n", "engine_core_generic", "dependency_version_mismatch", ["lock file"]),
    ("numpy_banner_in_a_post", "I get this when starting the server, any idea what I should do?\nI tried reinstalling "
     "torch but it did not help, please help.\n\nA module that was compiled using NumPy 1.x cannot be run in\n"
     "NumPy 2.1.3 as it may crash. To support both 1.x and 2.x\nversions of NumPy, modules must be compiled with NumPy "
     "2.0.\nSome module may need to rebuild instead e.g. with 'pybind11>=2.12'.\n\nIf you are a user of the module, "
     "the easiest solution will be to\ndowngrade to 'numpy<2' or try to upgrade the affected module.\nWe expect that "
     "some modules will need time to support NumPy 2.\n\nTraceback (most recent call last):\n  File \"/opt/venv/"
     "lib/python3.11/site-packages/vllm/__init__.py\", line 6, in <module>\n    import torch\n", "engine_core_generic",
     "numpy_abi_mismatch", []),
    # other wordings of the causes the rules of d9fc39b missed in set AO (not the corpus lines)
    ("kv_format_encoder_decoder", "(EngineCore_DP0 pid=7) NotImplementedError: TurboQuant KV cache is not supported "
     "for encoder-decoder models.\n" + WRAPPER, "cuda_driver_mismatch", "kv_cache_dtype_unsupported",
     ["kv_cache_dtype"]),
    ("mistral_params_missing", "ValueError: Failed to load mistral 'params.json' config for model "
     "mistralai/Mistral-7B-Instruct-v0.3. Please check if the model is a mistral-format model and if the config "
     "file exists.\n", "model_files", "mistral_format_flags_on_hf_repo", []),
    ("wrapper_settings_extra_key", "pydantic_core._pydantic_core.ValidationError: 1 validation error for Settings\n"
     "model-dir\n  Extra inputs are not permitted [type=extra_forbidden, input_value='/models', input_type=str]\n",
     "engine_core_generic", "wrapper_config_key_invalid", ["hyphen"]),
    ("vllm_config_extra_key", "pydantic_core._pydantic_core.ValidationError: 1 validation error for "
     "CompilationConfig\nuse_cudagraphs\n  Extra inputs are not permitted [type=extra_forbidden, input_value=True, "
     "input_type=bool]\n", "engine_core_generic", "config_key_unknown", ["vllm_service_options", "--help=all"]),
    ("moe_backend_gpu", "ValueError: FP8 MoE backend 'TRITON' does not support the deployment configuration since "
     "kernel does not support the current device.\n", "engine_core_generic", "moe_backend_unsupported",
     ["moe_backend"]),
    ("deepgemm_jit_assert", "RuntimeError: Failed: Assertion error csrc/jit_kernels/impls/sm90_fp8_gemm_1d2d.hpp:52 "
     "'n % 64 == 0'\n", "engine_core_generic", "dependency_version_mismatch", []),
    ("chat_template_cut", "Traceback (most recent call last):\n  File \"/usr/local/lib/python3.12/dist-packages/vllm/"
     "entrypoints/openai/cli_args.py\", line 301, in validate_parsed_serve_args\n    "
     "validate_chat_template(args.chat_template)\n", "engine_core_generic", "chat_template_path_not_found", []),
    ("inductor_cut_traceback", "(Worker_TP0 pid=88) ERROR 04-04 04:04:04 [multiproc_executor.py:700]   File \"/opt/"
     "venv/lib/python3.12/site-packages/torch/_inductor/compile_fx.py\", line 2210, in _compile_fx_main\n(Worker_TP0 "
     "pid=88) ERROR 04-04 04:04:04 [multiproc_executor.py:700]     raise e.remove_dynamo_frames() from None\n",
     "engine_core_generic", "torch_compile_graph_error", ["enforce_eager"]),
    # LinkSoul-AI/LLaSM#12 (transformers' AutoConfig)
    ("arch_model_type", "The checkpoint you are trying to load has model type `llaaa` but Transformers does not "
     "recognize this architecture. This could be because of an issue with the checkpoint, or because your version "
     "of Transformers is out of date.\n", "model_files", "transformers_incompatible", ["llaaa"]),
    # other wordings of the causes the rules of f788d62 missed in set W (written from the raise sites,
    # not the corpus lines)
    ("torchvision_roi_align", "RuntimeError: operator torchvision::roi_align does not exist\n",
     "cuda_driver_mismatch", "torchvision_torch_mismatch", ["torchvision", "vllm_python_rebuild"]),
    ("torchvision_cuda_major", "RuntimeError: Detected that PyTorch and torchvision were compiled with different "
     "CUDA major versions. PyTorch has CUDA Version=12.4 and torchvision has CUDA Version=11.8. Please reinstall the "
     "torchvision that matches your PyTorch install.\n", "cuda_driver_mismatch", "torchvision_torch_mismatch",
     ["torchvision"]),
    ("windows_fcntl", "Traceback (most recent call last):\n  File \"D:\\envs\\llm\\Lib\\site-packages\\vllm\\utils.py\", "
     "line 12, in <module>\n    import fcntl\nModuleNotFoundError: No module named 'fcntl'\n", "wsl_specific",
     "native_windows_unsupported", ["WSL2", "Linux"]),
    ("windows_cut_frames", "Traceback (most recent call last):\n  File \"E:\\work\\serve.py\", line 3, in <module>\n"
     "    from vllm import LLM\n  File \"E:\\work\\.venv\\Lib\\site-packages\\vllm\\__init__.py\", line 4, in <module>\n"
     "    from vllm.engine.llm_engine import LLMEngine\n", "wsl_specific", "native_windows_unsupported", ["WSL2"]),
    ("rope_unknown_type", "ValueError: Unknown RoPE scaling type longrope\n" + WRAPPER, "model_files",
     "vllm_too_old_for_model", ["vllm_install_version"]),
    ("rope_factor_assert", "  File \"/opt/venv/lib/python3.11/site-packages/vllm/config.py\", line 1650, in "
     "_get_and_verify_max_len\n    assert 'factor' in rope_scaling\nAssertionError\n", "model_files",
     "vllm_too_old_for_model", ["vllm_install_version"]),
    ("qwen2_window_layers", "ValueError: Sliding window for some but all layers is not supported. This model uses "
     "sliding window but `max_window_layers` = 21 is less than `num_hidden_layers` = 36. Please open an issue to "
     "discuss this feature.\n", "model_files", "qwen2_sliding_window_layers_unsupported", ["use_sliding_window"]),
    ("config_path_absent", "OSError: Can't load the configuration of '/srv/models/Llama-3.1-8B'. If you were trying "
     "to load it from 'https://huggingface.co/models', make sure you don't have a local directory with the same "
     "name.\n", "model_files", "local_path_not_found", ["/srv/models/Llama-3.1-8B", "vllm_model_source"]),
    ("ray_init_twice", "RuntimeError: Maybe you called ray.init twice by accident? This error can be suppressed by "
     "passing in 'ignore_reinit_error=True' or by calling 'ray.shutdown()' prior to 'ray.init()'.\n",
     "engine_core_generic", "vllm_release_bug", ["ignore_reinit_error", "distributed_executor_backend"]),
    ("ray_stub_module", "AttributeError: module 'ray' has no attribute 'get_gpu_ids'\n", "engine_core_generic",
     "vllm_release_bug", ["get_gpu_ids", "stray ray"]),
    ("fp8_kv_scales", "ValueError: Only support per-tensor scaling factor for fp8 KV cache\n" + WRAPPER,
     "engine_core_generic", "vllm_release_bug", ["kv_cache_dtype"]),
    ("format_args", "TypeError: not enough arguments for format string\n", "engine_core_generic", "wrapper_code_bug",
     ["format"]),
    ("fork_cuda", "RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, "
     "you must use the 'spawn' start method\n" + WRAPPER, "engine_core_generic", "reinit_in_forked_subprocess",
     ["VLLM_WORKER_MULTIPROC_METHOD"]),
    ("wrapper_dep_submodule", "Traceback (most recent call last):\n  File \"/srv/app/connector/kv_bridge.py\", line 9, "
     "in <module>\n    from mooncake.store.v2 import DistributedStore\nModuleNotFoundError: No module named "
     "'mooncake.store'\n", "engine_core_generic", "wrapper_dependency_version_mismatch", ["mooncake.store", "release"]),
    ("bnb_quant_map", "KeyError: 'model.layers.3.self_attn.o_proj.weight.quant_map'\n", "model_files",
     "bnb_checkpoint_without_bnb_load_format", ["quantization: bitsandbytes"]),
    ("pickle_local_patch", "AttributeError: Can't pickle local object 'install_patches.<locals>.PatchedQuantConfig'\n",
     "engine_core_generic", "wrapper_vllm_version_mismatch", ["install_patches", "VLLM_ENABLE_V1_MULTIPROCESSING"]),
    # other wordings of open misses of earlier sets, from the raise sites (vLLM, torch, HCCL, Python)
    ("shadowed_vllm", "ModuleNotFoundError: No module named 'vllm.entrypoints'; 'vllm' is not a package\n",
     "engine_core_generic", "script_shadows_vllm_package", ["vllm.py"]),
    ("serving_models_kwarg", "TypeError: OpenAIServingModels.__init__() got an unexpected keyword argument "
     "'lora_modules'\n", "engine_core_generic", "wrapper_vllm_version_mismatch", ["lora_modules"]),
    ("local_world_size", "AssertionError: local_world_size (8) must be less than or equal to the number of visible "
     "devices (4).\n" + WRAPPER, "tensor_parallel_config", "local_world_size_exceeds_visible",
     ["tensor_parallel_size", "CUDA_VISIBLE_DEVICES"]),
    ("hccl_port", "EJ0003: Failed to bind the IP port. Reason: The IP address and port have been bound already.\n",
     "port_in_use", "hccl_port_held_by_other_process", ["HCCL_IF_BASE_PORT"]),
    ("tcpstore_race", "torch.distributed.DistNetworkError: The server socket has failed to listen on any local "
     "network address. port: 40123, useIpv6: 0, code: -99\n", "port_in_use", "internal_port_race",
     ["MASTER_PORT"]),
    ("plugin_frame", "Traceback (most recent call last):\n  File \"/opt/vllm-gaudi/vllm_gaudi/platform.py\", line 88, "
     "in check_and_update_config\n    blocks = cfg.max_num_seqs // cfg.block_size\nZeroDivisionError: integer "
     "division or modulo by zero\n", "engine_core_generic", "platform_plugin_bug", ["plugin"]),
    # common start-up errors at raise sites no corpus log had yet (CUDA runtime, the loader, vLLM's config
    # checks, numpy's ABI check, Ray's import, torch's store)
    ("gpu_exclusive", "RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable\n" + WRAPPER,
     "cuda_driver_mismatch", "gpu_busy_or_exclusive", ["nvidia-smi -c 0"]),
    ("glibc_old", "ImportError: /lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.32' not found (required by "
     "/opt/venv/lib/python3.11/site-packages/vllm/_C.abi3.so)\n", "cuda_driver_mismatch", "system_lib_too_old",
     ["glibc"]),
    ("glibcxx_old", "OSError: /usr/lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.32' not found\n",
     "cuda_driver_mismatch", "system_lib_too_old", ["libstdc++"]),
    ("store_timeout", "torch.distributed.DistStoreError: Timed out after 601 seconds waiting for clients. 1/2 "
     "clients joined.\n", "tensor_parallel_config", "nccl_network", ["GLOO_SOCKET_IFNAME"]),
    ("pp_model", "NotImplementedError: Pipeline parallelism is not supported for this model. Supported models "
     "implement the `SupportsPP` interface.\n", "tensor_parallel_config", "pp_unsupported",
     ["pipeline_parallel_size"]),
    ("quant_unknown", "ValueError: Unknown quantization method: mxfp6. Must be one of ['awq', 'fp8', 'gptq'].\n",
     "model_files", "quantization_method_unknown", ["vllm_install_version"]),
    ("lora_model", "ValueError: Phi4FlashForCausalLM does not support LoRA yet.\n" + WRAPPER, "model_files",
     "lora_unsupported_model", ["enable_lora"]),
    ("ray_missing", "  File \"/opt/venv/lib/python3.12/site-packages/vllm/executor/ray_utils.py\", line 3, in "
     "<module>\n    import ray\nModuleNotFoundError: No module named 'ray'\n", "engine_core_generic",
     "ray_not_installed", ["distributed_executor_backend: mp"]),
    ("numpy2", "A module that was compiled using NumPy 1.x cannot be run in\nNumPy 2.1.3 as it may crash. To support "
     "both 1.x and 2.x\n", "engine_core_generic", "numpy_abi_mismatch", ["numpy<2"]),
    ("tokenizer_json_newer", "Exception: data did not match any variant of untagged enum ModelWrapper at line "
     "250373 column 3\n", "model_files", "tokenizer_format_too_new", ["tokenizers"]),
    ("tokenizer_no_sentencepiece", "ValueError: Couldn't instantiate the backend tokenizer from one of: (1) a "
     "`tokenizers` library serialization file, (2) a slow tokenizer instance to convert or (3) an equivalent slow "
     "tokenizer class to instantiate and convert.\n", "model_files", "tokenizer_backend_missing", ["sentencepiece"]),
    ("rope_dict_old_stack", "ValueError: `rope_scaling` must be a dictionary with two fields, `type` and `factor`, "
     "got {'factor': 8.0, 'low_freq_factor': 1.0, 'rope_type': 'llama3'}\n", "model_files",
     "transformers_incompatible", ["vllm_install_version", "4.43"]),
    ("npu_oom", "RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 0; 60.97 GiB total capacity)\n",
     "gpu_oom", "accelerator_oom", ["accelerator ran out of memory"]),
    ("ptxas_new_arch", "ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'\n" + WRAPPER,
     "cuda_driver_mismatch", "triton_ptxas_arch_unsupported", ["TRITON_PTXAS_PATH", "vllm_install_version"]),
    ("flash_attn_abi", "ImportError: /opt/venv/lib/python3.12/site-packages/flash_attn_2_cuda.cpython-312-x86_64-"
     "linux-gnu.so: undefined symbol: _ZN3c105ErrorC2ENS_14SourceLocationESs\n", "cuda_driver_mismatch",
     "undefined_symbol", ["flash_attn_2_cuda", "torch"]),
    ("nccl_remote", "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, remote process "
     "exited or there was a network error, NCCL version 2.21.5\n", "tensor_parallel_config", "nccl_network",
     ["NCCL_SOCKET_IFNAME"]),
    # raise sites behind the misses of held-out set X (other wordings, not the corpus lines): vLLM's Ray
    # executor without a GPU on the driver's node, no platform detected (and torch.device("") after it),
    # serving wrappers calling vLLM's entry functions with another release's signature, vLLM's import
    # guards for its optional dependencies, a vllm that is not the installed package
    ("ray_driver_no_gpu", "ValueError: Ray does not allocate any GPUs on the driver node.Driver IP: 10.0.0.5, worker "
     "IPs: ['10.0.0.6', '10.0.0.6'].Consider adjusting the Ray placement group or running the driver on a GPU "
     "node.\n", "tensor_parallel_config", "ray_task_no_gpu_reserved", ["placement group"]),
    ("no_platform", "INFO 05-28 14:02:21 [__init__.py:247] No platform detected, vLLM is running on "
     "UnspecifiedPlatform\nTraceback (most recent call last):\n  File \"/usr/local/bin/vllm\", line 8, in "
     "<module>\n", "cuda_driver_mismatch", "no_gpu_visible", ["--gpus all", "nvidia-smi"]),
    ("device_string_empty", "  File \"/opt/venv/lib/python3.12/site-packages/vllm/config.py\", line 1801, in "
     "__init__\n    self.device = torch.device(self.device_type)\nRuntimeError: Device string must not be empty\n",
     "cuda_driver_mismatch", "no_gpu_visible", ["CUDA_VISIBLE_DEVICES"]),
    ("init_app_state_kwarg", "TypeError: init_app_state() got an unexpected keyword argument 'vllm_config'\n",
     "engine_core_generic", "wrapper_vllm_version_mismatch", ["'vllm_config'", "vllm_install_version"]),
    ("serving_missing_arg", "TypeError: OpenAIServingCompletion.__init__() missing 1 required keyword-only "
     "argument: 'openai_serving_render'\n", "engine_core_generic", "wrapper_vllm_version_mismatch",
     ["'openai_serving_render'", "requires"]),
    ("bitblas_old", "ImportError: bitblas version is wrong. Please install bitblas>=0.1.0\n", "engine_core_generic",
     "dependency_too_old", ["service venv", "vllm_install_version"]),
    ("bnb_guard", "ImportError: Please install bitsandbytes>=0.45.3 via `pip install bitsandbytes>=0.45.3` to use "
     "bitsandbytes quantizer.\n" + WRAPPER, "engine_core_generic", "dependency_too_old", ["service venv"]),
    ("vllm_py_circular", "ImportError: cannot import name 'LLM' from partially initialized module 'vllm' (most likely "
     "due to a circular import) (/home/ana/vllm.py)\n", "engine_core_generic", "script_shadows_vllm_package",
     ["vllm.py"]),
    ("vllm_namespace_dir", "ImportError: cannot import name 'SamplingParams' from 'vllm' (unknown location)\n",
     "engine_core_generic", "script_shadows_vllm_package", ["another directory"]),
    # common start-up errors at raise sites the corpus had not met (synthetic wordings): attention backends
    # a GPU or a model cannot use, a kernel image for another architecture, cuDNN of another CUDA major, a
    # command-line value of the wrong type, automatic tool choice without its parser
    ("fa_ampere_only", "RuntimeError: FlashAttention only supports Ampere GPUs or newer.\n" + WRAPPER,
     "cuda_driver_mismatch", "attention_backend_unsupported", ["VLLM_ATTENTION_BACKEND"]),
    ("flashinfer_sm75", "RuntimeError: FlashInfer requires GPUs with sm75 or higher\n", "cuda_driver_mismatch",
     "attention_backend_unsupported", ["FlashInfer"]),
    ("xformers_softcap", "ValueError: XFormers does not support attention logits soft capping.\n",
     "cuda_driver_mismatch", "attention_backend_unsupported", ["soft capping"]),
    ("kernel_image_invalid", "RuntimeError: Triton Error [CUDA]: device kernel image is invalid\n",
     "cuda_driver_mismatch", "no_kernel_image", ["vllm_install_cuda_variant"]),
    ("cudnn_missing", "ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory\n",
     "cuda_driver_mismatch", "cudart_missing", ["vllm_install_cuda_variant"]),
    ("invalid_int_value", "vllm serve: error: argument --max-model-len: invalid int value: '32k'\n",
     "engine_core_generic", "unrecognized_argument", ["'32k'", "vllm_service_options"]),
    ("tool_choice_no_parser", "TypeError: Error: --enable-auto-tool-choice requires --tool-call-parser\n",
     "engine_core_generic", "unrecognized_argument", ["tool_call_parser", "enable_auto_tool_choice"]),
    # vllm-project/vllm#15329 (Triton's driver build in the V1 EngineCore), apple/ml-cross-entropy#5
    ("compiler", "ERROR 03-22 09:50:04 [core.py:340]   File \"/opt/conda/lib/python3.10/site-packages/triton/runtime/"
     "build.py\", line 32, in _build\nERROR 03-22 09:50:04 [core.py:340]     raise RuntimeError(\"Failed to find C "
     "compiler. Please specify via CC environment variable.\")\nERROR 03-22 09:50:04 [core.py:340] RuntimeError: "
     "Failed to find C compiler. Please specify via CC environment variable.\n" + WRAPPER,
     "cuda_driver_mismatch", "compiler_missing", ["gcc", "CC"]),
    ("a_traceback_cut_while_the_processor_loads_is_about_model_files",
     "ERROR 03-02 10:00:00 [core.py:400]   File \"/venv/lib/python3.12/site-packages/vllm/transformers_utils/"
     "processor.py\", line 80, in get_processor\n"
     "ERROR 03-02 10:00:00 [core.py:400]     processor = processor_factory.from_pretrained(\n"
     "ERROR 03-02 10:00:00 [core.py:400]   File \"/venv/lib/python3.12/site-packages/transformers/"
     "processing_utils.py\", line 1201, in from_pretrained\n",
     "model_files", "processor_load_frame_cut", ["preprocessor_config.json"]),
    ("a_pydantic_value_error_wrapped_over_two_lines_is_read_whole",
     "pydantic_core._pydantic_core.ValidationError: 1 validation error for SchedulerConfig\n"
     "  Value error, max_num_batched_tokens (2048) is smaller than max_model_len\n"
     "  (8192). This effectively limits the maximum sequence length to max_num_batched_tokens.\n",
     "model_files", "batched_tokens_below_max_model_len", []),
    ("kernels_requiring_a_version_that_transformers_does_not_give",
     "Traceback (most recent call last):\n"
     '  File "/srv/venv/lib/python3.12/site-packages/transformers/integrations/hub_kernels.py", line 89, '
     "in <module>\n"
     '    "cuda": LayerRepository(\n'
     '  File "/srv/venv/lib/python3.12/site-packages/kernels/layer/layer.py", line 76, in __init__\n'
     '    raise ValueError("Either a revision or a version must be specified.")\n'
     "ValueError: Either a revision or a version must be specified.\n",
     "engine_core_generic", "dependency_version_mismatch", ["kernels", "transformers"]),
    ("deep_gemm_missing_for_an_fp8_layer_is_a_missing_dependency",
     '  File "/venv/lib/python3.12/site-packages/vllm/model_executor/layers/quantization/utils/fp8_utils.py", '
     "line 210, in apply\n"
     "    fp8_gemm_nt((q_input, input_scale), (weight, weight_scale), output)\n"
     '  File "/venv/lib/python3.12/site-packages/vllm/utils/deep_gemm.py", line 120, in fp8_gemm_nt\n'
     "    return _missing(*args, **kwargs)\n"
     "RuntimeError: DeepGEMM backend is not available or outdated. Please install or update the `deep_gemm` "
     "to a newer version to enable FP8 kernels.\n",
     "engine_core_generic", "dependency_too_old", ["deep_gemm", "VLLM_USE_DEEP_GEMM"]),
    ("deep_gemm_missing_in_the_kernel_warmup_is_the_releases_bug",
     "(Worker pid=88) ERROR 05-06 10:11:12 [multiproc_executor.py:800]   File \"/usr/local/lib/python3.12/dist-packages/vllm/"
     "model_executor/warmup/kernel_warmup.py\", line 40, in kernel_warmup\n"
     "(Worker pid=88) ERROR 05-06 10:11:12 [multiproc_executor.py:800]     deep_gemm_warmup(model, max_tokens)\n"
     "(Worker pid=88) ERROR 05-06 10:11:12 [multiproc_executor.py:800]   File \"/usr/local/lib/python3.12/dist-packages/vllm/"
     "utils/deep_gemm.py\", line 270, in get_mk_alignment_for_contiguous_layout\n"
     "(Worker pid=88) ERROR 05-06 10:11:12 [multiproc_executor.py:800]     return _missing()\n"
     "(Worker pid=88) ERROR 05-06 10:11:12 [multiproc_executor.py:800] RuntimeError: DeepGEMM backend is not available or "
     "outdated. Please install or update the `deep_gemm` to a newer version to enable FP8 kernels.\n",
     "engine_core_generic", "vllm_release_bug", ["VLLM_DEEP_GEMM_WARMUP"]),
    ("attention_sinks_without_flash_attention_3",
     "(EngineCore_0 pid=41) ERROR 08-06 20:57:06 [core.py:718]     assert self.vllm_flash_attn_version == 3, (\n"
     "(EngineCore_0 pid=41) ERROR 08-06 20:57:06 [core.py:718] AssertionError: Sinks are only supported in "
     "FlashAttention 3\n",
     "cuda_driver_mismatch", "attention_backend_unsupported", ["TRITON_ATTN"]),
    ("tritons_helper_not_linking_against_libcuda",
     "/usr/bin/ld: cannot find -lcuda: No such file or directory\n"
     "collect2: error: ld returned 1 exit status\n",
     "cuda_driver_mismatch", "triton_libcuda_not_found", ["TRITON_LIBCUDA_PATH"]),
    ("a_tool_using_engine_internals_another_release_had",
     "  File \"/opt/app/vllm_worker.py\", line 210, in generate\n"
     "    results_generator = engine.engine.generate(prompt, sampling_params, request_id)\n"
     "AttributeError: 'AsyncLLM' object has no attribute 'engine'\n",
     "engine_core_generic", "wrapper_vllm_version_mismatch", ["'engine'", "AsyncLLM"]),
    # other wordings of the causes the rules of 82e90e3 missed in set AB (not the corpus lines)
    ("an_old_vllm_module_built_for_another_torch",
     "ImportError: /opt/venv/lib/python3.11/site-packages/vllm/cache_ops.cpython-311-x86_64-linux-gnu.so: undefined "
     "symbol: _ZNK3c1010TensorImpl36is_contiguous_nondefault_policy_implENS_12MemoryFormatE\n",
     "cuda_driver_mismatch", "undefined_symbol", ["cache_ops", "vllm_python_rebuild"]),
    ("a_cuda_library_of_torch_meeting_an_older_sibling",
     "OSError: /usr/local/lib/python3.10/dist-packages/torch/lib/../../nvidia/cusparse/lib/libcusparse.so.12: "
     "undefined symbol: __nvJitLinkAddData_12_1, version libnvJitLink.so.12\n",
     "cuda_driver_mismatch", "cuda_library_version_skew", ["libcusparse.so.12", "libnvJitLink.so.12", "LD_LIBRARY_PATH"]),
    ("an_int8_checkpoint_on_datacenter_blackwell",
     "(EngineCore_DP0 pid=77) ERROR 09-02 11:12:13 [core.py:700] RuntimeError: Currently, only fp8 gemm is "
     "implemented for Blackwell\n" + WRAPPER,
     "cuda_driver_mismatch", "quantization_unsupported", ["Blackwell", "only fp8", "vllm_install_version"]),
    ("a_missing_directory_in_the_alphanumeric_wording",
     "huggingface_hub.errors.HFValidationError: Repo id must use alphanumeric chars or '-', '_', '.', '--' and '..' "
     "are forbidden, '-' and '.' cannot start or end the name, max length is 96: '/mnt/models/llama-3-8b/'.\n",
     "model_files", "local_path_not_found", ["/mnt/models/llama-3-8b/", "vllm_model_source"]),
    ("a_gptq_moe_expert_slice_not_a_whole_group",
     "(Worker_TP3 pid=812) ERROR 06-01 09:00:01 [multiproc_executor.py:600] RuntimeError: BLOCK_SIZE_K must "
     "divisible by group_size\n" + WRAPPER,
     "tensor_parallel_config", "quant_tp_misaligned", ["enable_expert_parallel: true", "moe_wna16"]),
    # other wordings of the causes the rules of 3364743 missed in set AG (written from the raise sites,
    # not the corpus lines)
    ("a_vision_model_without_in_flight_bitsandbytes",
     "(EngineCore_DP0 pid=90) ERROR 03-01 10:00:00 [core.py:700] AttributeError: Model "
     "Gemma3ForConditionalGeneration does not support BitsAndBytes quantization yet. No 'packed_modules_mapping' "
     "found.\n" + WRAPPER,
     "model_files", "bnb_architecture_unsupported", ["quantization: bitsandbytes", "vllm_install_version"]),
    ("mistral_tokenizer_mode_on_a_hugging_face_folder",
     "OSError: Found 0 files matching the pattern: `^tekken\\.json$|^tokenizer\\.model\\.v.*$`. Make sure that a "
     "Mistral tokenizer is present in ['config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json'].\n",
     "model_files", "mistral_format_flags_on_hf_repo", ["tokenizer_mode", "config_format"]),
    ("a_draft_model_in_speculative_config_on_v1",
     "ERROR 09-10 12:00:00 [serve.py:90] NotImplementedError: Speculative decoding with draft model is not supported "
     "yet. Please consider using other speculative decoding methods such as ngram, medusa, eagle, or mtp.\n",
     "engine_core_generic", "draft_model_spec_decode_unsupported", ["ngram", "speculative_config"]),
    ("a_patched_launcher_importing_model_code_off_the_path",
     "Traceback (most recent call last):\n"
     "  File \"/usr/local/bin/vllm\", line 5, in <module>\n"
     "    from MyOCR import modeling_myocr_vllm\n"
     "ImportError: cannot import name 'modeling_myocr_vllm' from 'MyOCR' (unknown location)\n",
     "model_files", "model_code_not_on_pythonpath", ["PYTHONPATH"]),
    # older misses read again (sets O, Q, T): the message quoted without its exception name, cupy's name
    # for NCCL's result code, the KV cache message cut down to its two numbers
    ("a_tool_importing_a_vllm_module_quoted_alone",
     "No module named 'vllm.entrypoints.openai.serving_engine'\n",
     "engine_core_generic", "wrapper_vllm_version_mismatch", ["vllm.entrypoints.openai.serving_engine"]),
    ("cupys_name_for_an_nccl_system_error",
     "ERROR 06-13 07:35:59 [core.py:517] cupy_backends.cuda.libs.nccl.NcclError: NCCL_ERROR_SYSTEM_ERROR: unhandled "
     "system error (run with NCCL_DEBUG=INFO for details)\n",
     "tensor_parallel_config", "nccl_system_error", ["NCCL"]),
    ("the_kv_cache_message_cut_to_its_numbers",
     "ValueError: 3.5 GiB KV cache is needed, available 0.42 GiB\n",
     "gpu_oom", "kv_gib", ["max_model_len"]),
    # the kernel chooser's refusal (set AH's miss, another layer type than the log's)
    ("no_scaled_mm_kernel_for_this_gpu",
     "(EngineCore_DP0 pid=51) ERROR 01-02 03:04:05 [core.py:700] ValueError: Failed to find a kernel that can "
     "implement the ScaledMM linear layer. Reasons: \n"
     "(EngineCore_DP0 pid=51) ERROR 01-02 03:04:05 [core.py:700] CutlassScaledMMLinearKernel requires capability 89, "
     "current compute capability is 70\n" + WRAPPER,
     "cuda_driver_mismatch", "quantization_unsupported_on_platform", ["compute", "capability"]),
    # other wordings of the causes the rules of eb9c779 missed in set AI (written from the raise sites in
    # torch/_inductor, FlashInfer, NIXL, torch's symmetric memory and transformers' top level, not the
    # corpus lines)
    ("a_pascal_gpu_under_torch_compile",
     "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\n"
     "RuntimeError: Found NVIDIA GeForce GTX 1080 Ti which is too old to be supported by the triton GPU compiler, "
     "which is used as the backend. Triton only supports devices of CUDA Capability >= 7.0, but your device is of "
     "CUDA capability 6.1\n",
     "cuda_driver_mismatch", "triton_gpu_too_old", ["7.0", "enforce_eager"]),
    ("a_toolkit_ptxas_without_the_architecture",
     "(EngineCore_DP0 pid=77) ERROR 02-02 10:00:00 [core.py:700] RuntimeError: Internal Triton PTX codegen error\n"
     "(EngineCore_DP0 pid=77) ERROR 02-02 10:00:00 [core.py:700] ptxas fatal   : Value 'sm_103a' is not defined for "
     "option 'gpu-name'\n" + WRAPPER,
     "cuda_driver_mismatch", "triton_ptxas_arch_unsupported", ["TRITON_PTXAS_PATH"]),
    ("flashinfer_moe_tiles_missing_for_the_architecture",
     "(EngineCore_DP0 pid=9) ERROR 05-05 05:05:05 [core.py:700] RuntimeError: [FlashInfer][ERROR] Assertion failed: "
     "Unsupported tile shape config 128128128 for MoE gemm.\n" + WRAPPER,
     "cuda_driver_mismatch", "flashinfer_moe_arch_unsupported", ["moe_backend: triton"]),
    ("flashinfer_cutlass_moe_refusing_the_device",
     "ValueError: FlashInfer-CUTLASS MoE kernel does not support current device sm_110\n",
     "cuda_driver_mismatch", "flashinfer_moe_arch_unsupported", ["moe_backend"]),
    ("nixl_without_its_ucx_backend",
     "(EngineCore_DP0 pid=31) ERROR 07-07 07:07:07 [core.py:700] nixl._bindings.nixlBackendError: NIXL_ERR_BACKEND\n"
     + WRAPPER,
     "engine_core_generic", "nixl_ucx_backend_mismatch", ["UCX", "LD_LIBRARY_PATH"]),
    ("symmetric_memory_rendezvous_on_a_gpu_without_it",
     "(Worker_TP0 pid=201) ERROR 03-03 03:03:03 [multiproc_executor.py:600] Traceback (most recent call last):\n"
     "(Worker_TP0 pid=201) ERROR 03-03 03:03:03 [multiproc_executor.py:600]   File \"/usr/lib/python3.12/site-packages/"
     "vllm/distributed/device_communicators/all_reduce_utils.py\", line 88, in init\n"
     "(Worker_TP0 pid=201) ERROR 03-03 03:03:03 [multiproc_executor.py:600]     handle = symm_mem.rendezvous(buf, "
     "group.group_name)\n"
     "(Worker_TP0 pid=201) ERROR 03-03 03:03:03 [multiproc_executor.py:600]   File \"/usr/lib/python3.12/site-packages/"
     "torch/distributed/_symmetric_memory/__init__.py\", line 1700, in rendezvous\n"
     "(Worker_TP0 pid=201) ERROR 03-03 03:03:03 [multiproc_executor.py:600]     return _SymmetricMemory.rendezvous(tensor, "
     "group_name)\n"
     "(Worker_TP0 pid=201) ERROR 03-03 03:03:03 [multiproc_executor.py:600] RuntimeError: CUDA driver error: system not "
     "yet initialized\n" + WRAPPER,
     "tensor_parallel_config", "symm_mem_rendezvous_failed", ["VLLM_ALLREDUCE_USE_SYMM_MEM"]),
    ("gaudis_torch_backend_missing",
     "INFO 04-04 04:04:04 [__init__.py:43] Platform plugin hpu is activated\n"
     "Failed to import habana_frameworks.torch.\n"
     "Traceback (most recent call last):\n",
     "cuda_driver_mismatch", "platform_plugin_load_failed", ["vllm_install_version"]),
    ("ascends_torch_backend_missing_as_an_import_error",
     "ModuleNotFoundError: No module named 'torch_npu'\n",
     "cuda_driver_mismatch", "platform_plugin_load_failed", ["torch-npu"]),
    ("a_top_level_transformers_name_in_an_installed_vllm",
     "Traceback (most recent call last):\n"
     "  File \"/opt/venv/lib/python3.12/site-packages/vllm/config/model.py\", line 30, in <module>\n"
     "    from transformers import AutoConfig, PretrainedConfig\n"
     "ImportError: cannot import name 'AutoConfig' from 'transformers' (/opt/venv/lib/python3.12/site-packages/"
     "transformers/__init__.py)\n",
     "engine_core_generic", "transformers_import_broken", ["vllm_python_rebuild"]),
    # other wordings of the causes the rules of b9547cb missed in set AJ (from the raise sites in flashinfer,
    # vLLM's attention backends and multimodal config, and a checkpoint's own code; not the corpus lines)
    ("flashinfers_jit_cache_of_another_release",
     "RuntimeError: flashinfer-jit-cache version (0.5.2) does not match flashinfer version (0.5.3). Please "
     "install the same version of both packages.\n",
     "engine_core_generic", "dependency_version_mismatch", ["vllm_python_rebuild"]),
    ("an_mla_kernel_for_another_gpu_architecture",
     "(EngineCore_DP0 pid=12) ERROR 08-01 01:01:01 [core.py:700] RuntimeError: FlashMLA requires sm_90a, got sm_86\n"
     + WRAPPER,
     "cuda_driver_mismatch", "attention_backend_unsupported", ["VLLM_ATTENTION_BACKEND"]),
    ("an_attention_metadata_builder_missing_an_attribute",
     "AttributeError: 'FlashAttentionMetadataBuilder' object has no attribute 'aot_schedule'\n",
     "engine_core_generic", "vllm_release_bug", ["attention_backend", "aot_schedule"]),
    ("remote_code_importing_a_dropped_attention_class",
     "ImportError: cannot import name 'Qwen2FlashAttention2' from 'transformers.models.qwen2.modeling_qwen2' "
     "(/opt/venv/lib/python3.12/site-packages/transformers/models/qwen2/modeling_qwen2.py)\n",
     "trust_remote_code", "remote_code_import_error", ["vllm_model_revision"]),
    ("a_multimodal_limit_for_a_text_only_model",
     "ValueError: `limit_mm_per_prompt` is only supported for multimodal models.\n",
     "model_files", "architecture_unsupported", ["vllm_install_version"]),
    ("a_segfault_right_after_the_platform_is_detected",
     "INFO 03-01 10:00:00 [__init__.py:241] Automatically detected platform cuda.\n"
     "Segmentation fault (core dumped)\n",
     "engine_core_generic", "dependency_version_mismatch", ["torch"]),
    # other wordings of the causes the rules of 607d265 missed in set AK (from the raise sites in vLLM's
    # weight loader, envs.py and worker classes, and the structured-output libraries; not the corpus lines)
    ("a_split_gate_projection_the_model_class_does_not_fuse",
     "(EngineCore_DP0 pid=7) ValueError: There is no module or parameter named 'gate_proj' in Qwen3NextMLP\n"
     + WRAPPER,
     "engine_core_generic", "vllm_release_bug", ["gate_up_proj", "vllm_install_version"]),
    ("a_kubernetes_service_named_vllm_in_a_newer_release",
     "ValueError: VLLM_PORT 'tcp://10.96.0.12:8000' appears to be a URI. This may be caused by a Kubernetes "
     "service discovery issue, check the warning in: https://docs.vllm.ai/en/stable/serving/env_vars.html\n",
     "port_in_use", "k8s_service_env_vllm_port", ["enableServiceLinks"]),
    ("a_platform_worker_without_an_abstract_method_python312",
     "TypeError: Can't instantiate abstract class HPUWorker without an implementation for abstract method "
     "'determine_num_available_blocks'\n",
     "engine_core_generic", "vllm_release_bug", ["HPUWorker", "plugin release"]),
    ("a_model_runner_built_with_a_missing_argument",
     "TypeError: TPUModelRunner.__init__() missing 1 required positional argument: 'vllm_config'\n",
     "engine_core_generic", "vllm_release_bug", ["TPUModelRunner"]),
    ("xgrammar_of_another_release",
     "ImportError: cannot import name 'allocate_token_bitmask' from 'xgrammar.kernels' "
     "(/opt/venv/lib/python3.12/site-packages/xgrammar/kernels/__init__.py)\n",
     "engine_core_generic", "dependency_version_mismatch", ["lock file"]),
    ("an_architecture_refused_on_another_platform",
     "ValueError: Model architectures ['Gemma2ForCausalLM'] are not supported on TPU for now. Supported "
     "architectures: ['LlamaForCausalLM']\n",
     "model_files", "architecture_unsupported", ["Gemma2ForCausalLM"]),
    # other wordings of the causes the rules of aab4aea missed in set AL (from the raise sites in vLLM's
    # custom all-reduce, torch's CUDA graph capture, ZeroMQ and argparse; not the corpus lines)
    ("custom_all_reduce_ipc_on_another_line",
     "Failed: Cuda error /workspace/csrc/custom_all_reduce.cuh:164 'invalid argument'\n"
     "(EngineCore_DP0 pid=1) ERROR 09-10 10:00:00 [multiproc_executor.py:150] Worker proc VllmWorker-0 died "
     "unexpectedly, shutting down executor.\n",
     "engine_core_generic", "custom_allreduce_ipc_failed", ["disable_custom_all_reduce", "expandable_segments"]),
    ("graph_capture_on_the_default_stream_with_the_hint",
     "RuntimeError: CUDA graphs must be captured on a non-default stream. (However, after capture, it's ok "
     "to replay them on the default stream.)\n" + WRAPPER,
     "engine_core_generic", "vllm_release_bug", ["vllm_install_version"]),
    ("an_unbound_local_in_older_pythons_wording",
     "UnboundLocalError: local variable 'quant_method' referenced before assignment\n" + WRAPPER,
     "engine_core_generic", "vllm_release_bug", ["vllm_install_version"]),
    ("a_json_option_in_key_value_form",
     "vllm serve: error: argument --hf-overrides: Value max_model_len=4096 cannot be converted to "
     "<function loads at 0x7f00deadbeef>.\n",
     "engine_core_generic", "unrecognized_argument", ["JSON", "--hf-overrides"]),
    # other wordings of the causes the rules of 635d9c6 missed in set AM (from the raise sites in vLLM's
    # platforms, Marlin, torch's inductor cache, the container runtime and transformers' processors)
    ("a_mig_uuid_as_the_only_device",
     "  File \"/usr/local/lib/python3.12/dist-packages/vllm/platforms/cuda.py\", line 91, in get_device_name\n"
     "ValueError: invalid literal for int() with base 10: 'MIG-5f2c9a1e-0b7d-4c3e-9a8f-1b2c3d4e5f60'\n" + WRAPPER,
     "tensor_parallel_config", "mig_uuid_in_cuda_visible_devices", ["MIG"]),
    ("openshift_random_uid",
     "KeyError: 'getpwuid(): uid not found: 1000680000'\n",
     "engine_core_generic", "nonroot_uid_without_passwd_entry", ["passwd", "TORCHINDUCTOR_CACHE_DIR"]),
    ("groupadd_under_a_read_only_root",
     "groupadd: cannot lock /etc/group; try again later.\n",
     "engine_core_generic", "read_only_rootfs_entrypoint_writes_etc", ["/etc", "read-only"]),
    ("cdi_device_of_another_vendor_name",
     "Error: failed to create containerd task: failed to create shim task: OCI runtime create failed: could "
     "not apply required modification to OCI specification: error modifying OCI spec: failed to inject CDI "
     "devices: unresolvable CDI devices nvidia.com/gpu=all: unknown\n",
     "cuda_driver_mismatch", "cdi_spec_missing_for_vendor", ["nvidia-ctk cdi generate"]),
    ("marlin_tile_of_k",
     "(Worker_TP3 pid=90) RuntimeError: size_k = 1344 is not divisible by tile_k_size = 128\n" + WRAPPER,
     "tensor_parallel_config", "quant_tp_misaligned", ["tensor_parallel_size"]),
    ("a_processing_info_called_with_a_new_argument",
     "TypeError: LlavaOnevisionProcessingInfo.get_num_image_tokens() got an unexpected keyword argument "
     "'mm_kwargs'\n" + WRAPPER,
     "multimodal_processor", "mm_dummy_warmup_api_drift", ["vllm_install_version"]),
    ("a_processor_given_an_argument_it_no_longer_takes",
     "TypeError: Qwen2VLProcessor.__init__() got an unexpected keyword argument 'video_processor'\n",
     "multimodal_processor", "hf_processor_transformers_version_mismatch", ["transformers", "lock file"]),
    # set AP's rules, each in another wording than the held-out log it came from
    ("torch_library_against_another_runtime",
     "ImportError: /usr/lib/python3/dist-packages/torch/lib/libtorch_cuda.so: undefined symbol: "
     "cusparseSpSM_analysis\n",
     "cuda_driver_mismatch", "stack_library_skew", ["libtorch_cuda.so needs cusparseSpSM_analysis", "LD_PRELOAD"]),
    ("an_encoder_decoder_model_on_a_decoder_only_backend",
     "(EngineCore_DP0 pid=9) NotImplementedError: Encoder self-attention is not implemented for "
     "RocmAttentionImpl\n" + WRAPPER,
     "cuda_driver_mismatch", "attention_backend_unsupported", ["VLLM_ATTENTION_BACKEND"]),
    ("a_habana_op_the_installed_release_lacks",
     "AttributeError: module 'habana_frameworks.torch.hpu' has no attribute 'fused_rms_norm'\n",
     "cuda_driver_mismatch", "platform_torch_mismatch", ["torch extension"]),
    ("cann_without_a_kernel_for_this_soc",
     "[ERROR] 2025-06-01-10:00:00 (PID:1, Device:0, RankID:-1) EZ9999: Cannot find binary for op MatMulV2.\n",
     "cuda_driver_mismatch", "accelerator_generation_unsupported", ["CANN"]),
    ("hami_core_refusing_an_allocation",
     "[HAMI-core ERROR (pid:77 thread=1 allocator.c:52)]: Device 0 OOM 34359738368 / 17179869184\n",
     "cuda_driver_mismatch", "gpu_sharing_layer_failed", ["HAMi"]),
    ("the_venvs_python_under_another_users_home",
     "python3: error while loading shared libraries: /home/builder/.local/share/uv/python/cpython-3.11.9/lib/"
     "libpython3.11.so.1.0: cannot open shared object file: Permission denied\n",
     "engine_core_generic", "image_python_unreadable_nonroot", []),
    ("a_wrapper_building_the_v1_engine_on_a_v0_fallback",
     "WARNING 01-01 00:00:00 [arg_utils.py:1] Compute Capability < 8.0 is not supported by the V1 Engine. "
     "Falling back to V0.\n"
     "ValueError: Using V1 LLMEngine, but envs.VLLM_USE_V1=False. This should not happen.\n",
     "cuda_driver_mismatch", "v1_engine_unsupported_on_platform", ["compute capability 8.0"]),
    ("a_traceback_cut_at_the_scheme_check",
     '  File "/venv/lib/python3.12/site-packages/vllm/model_executor/layers/quantization/compressed_tensors/'
     'compressed_tensors.py", line 301, in _check_scheme_supported\n'
     "    raise RuntimeError(\n",
     "cuda_driver_mismatch", "quantization_capability_check", ["compute capability"]),
    # set AQ's rules
    ("lora_enabled_for_a_model_class_without_it",
     "ValueError: Model Phi3VForCausalLM does not support LoRA, but LoRA is enabled. Support for this model may "
     "be added in the future.\n",
     "model_files", "lora_unsupported_model", []),
    ("harmony_vocab_behind_a_proxy",
     "openai_harmony.HarmonyError: error downloading or loading vocab file: failed to download vocab file from "
     "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken\n",
     "model_files", "tokenizer_vocab_download_failed", ["TIKTOKEN_ENCODINGS_BASE"]),
    ("tiktoken_without_blobfile",
     '  File "/opt/venv/lib/python3.11/site-packages/tiktoken/load.py", line 11, in read_file\n'
     "    import blobfile\n"
     "ModuleNotFoundError: No module named 'blobfile'\n",
     "trust_remote_code", "remote_code_dependency_missing", ["blobfile"]),
    ("sentencepiece_missing_message_cut",
     "ImportError: LlamaTokenizer requires the SentencePiece library but it was not found in your envi\n",
     "model_files", "tokenizer_backend_missing", ["sentencepiece"]),
    # set AR's rules
    ("hccl_listen_port_taken",
     "[ERROR] HCCL(812,):2026-01-02-10:00:00.000.001 [hccl_socket.cc:110] [812][HcclSocket][Listen] socket "
     "type[1], listen on ip[10.0.0.5] and specific port[60001] fail. Please check the port status\n",
     "port_in_use", "hccl_port_held_by_other_process", []),
    ("a_processor_of_another_transformers_release",
     "AttributeError: 'LlavaNextVideoProcessor' object has no attribute 'video_token'\n" + WRAPPER,
     "multimodal_processor", "hf_processor_transformers_version_mismatch", []),
    ("remote_code_module_in_a_ray_actor",
     "(RayWorkerWrapper pid=4411) ModuleNotFoundError: No module named 'transformers_modules'\n",
     "trust_remote_code", "remote_code_module_unavailable", ["HF_MODULES_CACHE"]),
    ("the_main_script_run_again_by_a_spawned_worker",
     'Traceback (most recent call last):\n  File "<string>", line 1, in <module>\n'
     '  File "/usr/lib/python3.12/multiprocessing/spawn.py", line 122, in spawn_main\n'
     '  File "/usr/lib/python3.12/multiprocessing/spawn.py", line 246, in prepare\n'
     '  File "/usr/lib/python3.12/multiprocessing/spawn.py", line 297, in _fixup_main_from_path\n'
     '  File "/work/bench.py", line 4, in <module>\n',
     "engine_core_generic", "spawn_without_main_guard", []),
    ("a_reasoning_parser_this_process_never_registered",
     "KeyError: \"Reasoning parser 'my_think' not found. Available parsers: deepseek_r1, qwen3\"\n",
     "engine_core_generic", "unrecognized_argument", ["my_think", "reasoning_parser_plugin"]),
    # set AS's rules, each in another wording than the held-out log it came from
    ("another_process_holding_gigabytes_of_the_gpu",
     "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.02 GiB. GPU 1 has a total capacity of 23.57 "
     "GiB of which 612.44 MiB is free. Process 99120 has 9.30 GiB memory in use. Including non-PyTorch memory, "
     "this process has 13.60 GiB memory in use.\n" + WRAPPER,
     "gpu_oom", "gpu_memory_held_by_other_processes", ["process 99120 has 9.30 GiB", "nvidia-smi"]),
    ("xla_resource_exhausted_at_compile",
     "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory "
     "in memory space hbm. Used 17.21G of 15.75G hbm.\n",
     "gpu_oom", "accelerator_oom", ["accelerator ran out of memory", "gpu_memory_utilization"]),
    ("tt_metal_l1_buffer",
     "Out of Memory: Not enough space to allocate 4194304 B L1 buffer across 64 banks, where each bank needs to "
     "store 65536 B\n",
     "gpu_oom", "accelerator_oom", ["accelerator ran out of memory"]),
    ("xpu_oom_during_load",
     "(EngineCore_DP0 pid=812) ERROR 05-02 10:11:12 [core.py:700] RuntimeError: XPU out of memory. Tried to "
     "allocate 1.50 GiB (GPU 0; 15.11 GiB total capacity; 14.02 GiB already allocated)\n"
     "  File \"/opt/venv/lib/python3.12/site-packages/vllm/model_executor/model_loader/default_loader.py\", "
     "line 300, in load_weights\n",
     "gpu_oom", "accelerator_oom", ["accelerator ran out of memory"]),
    ("mps_backend_oom",
     "RuntimeError: MPS backend out of memory (MPS allocated: 17.50 GB, other allocations: 1.20 GB, max allowed: "
     "18.13 GB). Tried to allocate 512.00 MB on private pool.\n",
     "gpu_oom", "accelerator_oom", ["accelerator ran out of memory"]),
    ("a_gpu_oom_of_another_wording_stays_generic",
     "RuntimeError: GPU out of memory while allocating the KV cache on device 0\n",
     "gpu_oom", "cuda_oom_generic", ["expandable_segments"]),
    ("an_architecture_refused_with_the_line_cut",
     "ValueError: Model architectures ['Gemma3ForSequenceClassification'] are not supported for n\n",
     "model_files", "architecture_unsupported", []),
    ("pipeline_parallel_architecture_list",
     "NotImplementedError: Pipeline parallelism is only supported for the following architectures: "
     "['LlamaForCausalLM', 'MistralForCausalLM'].\n",
     "tensor_parallel_config", "pp_unsupported", []),
    ("c10d_store_unreachable",
     "[W socket.cpp:663] [c10d] The client socket has failed to connect to [10.1.2.3]:29500 (errno: 113 - No "
     "route to host).\n",
     "tensor_parallel_config", "distributed_init_addr_unreachable", ["10.1.2.3:29500", "VLLM_HOST_IP"]),
    ("c10d_store_timed_out",
     "[E socket.cpp:957] [c10d] The client socket has timed out after 600s while trying to connect to "
     "(192.168.0.7, 35111).\n",
     "tensor_parallel_config", "distributed_init_addr_unreachable", ["192.168.0.7:35111"]),
    ("a_vllm_module_without_its_compiled_extensions",
     "ImportError: vllm.vllm_flash_attn requires the CUDA flash attention extensions (_vllm_fa3_C).\n",
     "engine_core_generic", "vllm_install_incomplete", ["vllm.vllm_flash_attn", "clean venv"]),
    ("mla_cache_data_type",
     "ValueError: FlashMLA kv_data_type torch.float8_e5m2 is not supported on this device\n" + WRAPPER,
     "cuda_driver_mismatch", "kv_cache_dtype_unsupported", []),
    ("linker_without_libcuda_in_german",
     "/usr/bin/ld: kann -lcuda nicht finden: Datei oder Verzeichnis nicht gefunden\n"
     "collect2: error: ld returned 1 exit status\n",
     "cuda_driver_mismatch", "triton_libcuda_not_found", []),
    ("triton_asks_for_a_libcuda_symlink",
     "AssertionError: libcuda.so cannot found!\nPossible files are located at ['/usr/lib/wsl/lib/libcuda.so.1']."
     "Please create a symlink of libcuda.so to any of the files.\n",
     "cuda_driver_mismatch", "triton_libcuda_not_found", []),
    ("triton_cuda_utils_error_path",
     "TypeError: CalledProcessError.__init__() missing 1 required positional argument: 'cmd'\n",
     "cuda_driver_mismatch", "triton_launcher_compile_failed", []),
    ("registry_inspection_subprocess",
     "subprocess.CalledProcessError: Command '['/venv/bin/python3', '-m', 'vllm.model_executor.models.registry']' "
     "returned non-zero exit status 1.\n",
     "model_files", "transformers_incompatible", []),
    ("a_tokenizer_cut_at_all_special_tokens_extended",
     'Traceback (most recent call last):\n'
     '  File "/venv/lib/python3.11/site-packages/vllm/transformers_utils/tokenizer.py", line 91, in '
     'get_cached_tokenizer\n'
     '    tokenizer.all_special_tokens_extended)\n',
     "model_files", "transformers_incompatible", []),
    ("hub_cache_directory_missing",
     "huggingface_hub.errors.CacheNotFound: Cache directory not found: /mnt/models/hf. Please use `cache_dir` "
     "argument or set `HF_HUB_CACHE` environment variable.\n",
     "model_files", "hf_cache_dir_not_found", ["HF_HUB_CACHE"]),
    ("pascal_refused_by_capability",
     "RuntimeError: GPUs with compute capability below 7.0 are not supported.\n",
     "cuda_driver_mismatch", "accelerator_generation_unsupported", ["compute capability", "7.0"]),
    ("xformers_for_another_torch",
     "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
     "    PyTorch 2.4.0+cu124 with CUDA 1204 (you have 2.4.0+cu121)\n"
     "NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:\n",
     "cuda_driver_mismatch", "xformers_torch_cuda_mismatch", ["xformers"]),
    ("cuda_home_with_a_leading_colon",
     "[3/9] :/opt/cuda/bin/nvcc --generate-dependencies-with-compile --dependency-output x.cuda.o.d -c x.cu\n"
     "FAILED: x.cuda.o\n",
     "cuda_driver_mismatch", "cuda_home_env_malformed", ["CUDA_HOME"]),
    ("flashinfer_missing_under_its_backend",
     'Traceback (most recent call last):\n'
     '  File "/venv/lib/python3.10/site-packages/vllm/attention/backends/flashinfer.py", line 215, in '
     '_get_decode_wrapper\n'
     '    self._decode_wrapper = BatchDecodeWithPagedKVCacheWrapper(\n'
     "TypeError: 'NoneType' object is not callable\n",
     "engine_core_generic", "flashinfer_not_installed", ["VLLM_ATTENTION_BACKEND"]),
    ("a_draft_model_and_token_count_refused",
     "ValueError: Expected both speculative_model and num_speculative_tokens to be provided, but found "
     "speculative_model='/models/draft' and num_speculative_tokens=8.\n" + WRAPPER,
     "engine_core_generic", "speculative_config_invalid", []),
    ("a_cjk_label_before_the_pasted_error",
     "\u547d\u4ee4\uff1avllm serve /data/qwen\n"
     "\u62a5\u9519\uff1asafetensors_rust.SafetensorError: Error while deserializing header: MetadataIncompleteBuffer\n"
     "\u6211\u8bd5\u4e86\u91cd\u65b0\u4e0b\u8f7d\u4f46\u662f\u8fd8\u662f\u4e0d\u884c\n",
     "model_files", "safetensors_header", []),
    # rules from set AT's misses, in wordings of other releases, models and hosts
    ("metadata_missing_before_no_platform",
     "WARNING 03-02 08:00:01 [__init__.py:31] The vLLM package was not found, so its version could not be "
     "inspected. This may cause platform detection to fail.\n"
     "INFO 03-02 08:00:01 [__init__.py:250] No platform detected, vLLM is running on UnspecifiedPlatform\n"
     "RuntimeError: Device string must not be empty\n",
     "engine_core_generic", "vllm_dist_metadata_missing", ["VLLM_TARGET_DEVICE"]),
    ("a_second_llm_in_the_notebook",
     "AssertionError: pipeline model parallel group is already initialized\n",
     "engine_core_generic", "multiple_llm_instances_one_process_unsupported", ["destroy_model_parallel"]),
    ("model_runner_v2_forced_for_prefill_context_parallel",
     "ValueError: Model Runner V2 does not yet support: prefill context parallelism\n" + WRAPPER,
     "engine_core_generic", "model_runner_v2_unsupported", ["VLLM_USE_V2_MODEL_RUNNER"]),
    ("pp_in_the_offline_class_of_0_6",
     "NotImplementedError: Pipeline parallelism is only supported through AsyncLLMEngine as performance will "
     "be severely degraded otherwise.\n",
     "tensor_parallel_config", "pp_offline_llm_engine_unsupported", ["pipeline_parallel_size"]),
    ("deepseek_mtp_layer_left_empty",
     "ValueError: Following weights were not initialized from checkpoint: {'model.layers.61.eh_proj.weight', "
     "'model.layers.61.enorm.weight'}\n" + WRAPPER,
     "engine_core_generic", "mtp_weights_not_loaded", ["vllm_install_version"]),
    ("asymmetric_experts_refused",
     "(EngineCore_DP0 pid=88) AssertionError: Only symmetric quantization is supported for MoE\n" + WRAPPER,
     "model_files", "moe_quant_scheme_unsupported", ["symmetric"]),
    ("gptq_mixtral_router_gate_quantized",
     "KeyError: 'model.layers.3.block_sparse_moe.gate.qzeros'\n",
     "model_files", "quantized_moe_gate_layer_unsupported", ["mlp.gate"]),
    ("llama_tokenizer_of_an_old_release",
     "RuntimeError: Failed to load the tokenizer. If you are using a LLaMA-based model, use "
     "'hf-internal-testing/llama-tokenizer' instead of the original tokenizer.\n",
     "model_files", "llama_tokenizer_load_failed", ["sentencepiece"]),
    ("ray_worker_name_missing",
     "ImportError: cannot import name 'RayWorker' from 'vllm.engine.ray_utils' (/opt/vllm/vllm/engine/ray_utils.py)\n",
     "engine_core_generic", "ray_import_failed", ["import ray"]),
    ("nccl_refused_on_a_kvm_vgpu",
     "node1:77:77 [0] init.cc:430 NCCL WARN Cuda failure 'operation not supported'\n"
     "RuntimeError: NCCL error: unhandled cuda error\n",
     "cuda_driver_mismatch", "nccl_cuda_operation_not_supported", ["NCCL_CUMEM_ENABLE"]),
    ("nvls_failing_in_a_gke_pod",
     "gpu-pod:12:12 [3] transport/nvls.cc:161 NCCL WARN Cuda failure 801 'operation not supported'\n"
     "RuntimeError: NCCL error: unhandled cuda error\n",
     "cuda_driver_mismatch", "nccl_nvls_multicast_setup_failed", ["NCCL_NVLS_ENABLE"]),
    ("libuv_store_on_windows",
     "  File \"C:\\venv\\Lib\\site-packages\\torch\\distributed\\rendezvous.py\", line 189, in _create_c10d_store\n"
     "RuntimeError: use_libuv was requested but PyTorch was built without libuv support\n",
     "wsl_specific", "windows_torch_without_libuv", ["WSL2"]),
    ("gloo_device_on_windows",
     "RuntimeError: makeDeviceForHostname(): unsupported gloo device\n",
     "wsl_specific", "gloo_device_unsupported_on_windows", ["GLOO_SOCKET_IFNAME"]),
    ("tpu_metadata_from_a_container",
     "requests.exceptions.ConnectionError: HTTPConnectionPool(host='metadata.google.internal', port=80): Max "
     "retries exceeded with url: /computeMetadata/v1/instance/attributes/accelerator-type\n",
     "cuda_driver_mismatch", "tpu_metadata_server_unreachable", ["TPU_ACCELERATOR_TYPE"]),
    ("vllm_built_on_windows",
     "      AssertionError: vLLM only supports Linux platform (including WSL).\n"
     "error: subprocess-exited-with-error\n",
     "engine_core_generic", "vllm_linux_only_platform_assert", ["WSL2"]),
    ("pip_on_an_intel_python_on_a_mac",
     "  \u2570\u2500\u25b6 Because torch==2.9.0 has no wheels with a matching platform tag (e.g., "
     "`macosx_15_0_x86_64`) and you require torch==2.9.0, we can conclude that your requirements are "
     "unsatisfiable.\n",
     "python_version_unsupported", "x86_64_python_on_apple_silicon", ["arm64"]),
    ("wsl_circular_import_of_torch_utils",
     "ImportError: cannot import name 'is_pin_memory_available' from partially initialized module "
     "'vllm.utils.torch_utils' (most likely due to a circular import)\n",
     "wsl_specific", "wsl_pin_memory_warning_once_circular_import", ["48444"]),
    ("sigill_on_vllm_cpu",
     "run.sh: line 4:  311 Illegal instruction     (core dumped) vllm serve /models/q --device cpu\n",
     "cuda_driver_mismatch", "cpu_isa_missing", ["AVX"]),
    ("cublas_rejects_a_strided_gemm",
     "RuntimeError: CUDA error: CUBLAS_STATUS_INVALID_VALUE when calling `cublasGemmStridedBatchedEx(handle, "
     "opa, opb, (int)m, (int)n, (int)k, (void*)&falpha, a, CUDA_R_16BF)`\n",
     "cuda_driver_mismatch", "cuda_library_version_skew", ["vllm_python_rebuild"]),
    ("config_mapping_keyerror_of_a_new_model",
     "Traceback (most recent call last):\n"
     '  File "/venv/lib/python3.12/site-packages/transformers/models/auto/configuration_auto.py", line 1180, in '
     "from_pretrained\n"
     '    config_class = CONFIG_MAPPING[config_dict["model_type"]]\n'
     '  File "/venv/lib/python3.12/site-packages/transformers/models/auto/configuration_auto.py", line 870, in '
     "__getitem__\n"
     "    raise KeyError(key)\n"
     "KeyError: 'qwen3_5_moe'\n",
     "model_files", "transformers_incompatible", ["'qwen3_5_moe'", "vllm_install_version"]),
    ("gguf_model_type_unknown",
     "RuntimeError: Unknown gguf model_type: phi4\n",
     "model_files", "gguf_architecture_unsupported", ["phi4"]),
    ("bnb_statistic_named_alone",
     "ERROR 01-10 10:00:00 engine.py:366] 'model.layers.5.self_attn.q_proj.weight.quant_map'\n",
     "model_files", "bnb_checkpoint_without_bnb_load_format", ["bitsandbytes"]),
    ("vllm_c_missing_on_native_windows",
     "PS C:\\work> vllm serve Qwen/Qwen2.5-0.5B\n"
     "WARNING 01-02 10:00:00 _custom_ops.py:20] Failed to import from vllm._C with "
     "ModuleNotFoundError(\"No module named 'vllm._C'\")\n",
     "wsl_specific", "native_windows_unsupported", ["WSL2"]),
    ("placement_group_of_two_gpu_bundles",
     "ValueError: Placement group bundle cannot have more than 1 GPU.\n",
     "tensor_parallel_config", "ray_placement_group_bundle_multi_gpu", ["placement_group_bundles"]),
    ("a_quote_bar_before_a_wrapped_message",
     "\u258e ValueError: To serve at least one request with the model's max seq len (131072),\n"
     "\u258e 16.00 GiB KV cache is needed, which is larger than the available KV cache memory (9.50 GiB).\n",
     "gpu_oom", "kv_gib", ["max_model_len"]),
    # rules from set AU's misses, in wordings of other releases, models and hosts
    ("a_model_file_the_release_lacks",
     "ModuleNotFoundError: No module named 'vllm.model_executor.models.gemma4'\n",
     "model_files", "vllm_too_old_for_model", ["vllm_install_version"]),
    ("an_interface_removed_in_a_release",
     "AttributeError: SamplingParams.logits_processors has been removed in v0.10. Use a LogitsProcessor "
     "class instead.\n",
     "engine_core_generic", "wrapper_vllm_version_mismatch", []),
    ("nvml_partial_on_a_vgpu",
     "pynvml.NVMLError_NotSupported: Not Supported\n" + WRAPPER,
     "cuda_driver_mismatch", "nvml_not_supported", ["NVML"]),
    ("ascend_kernel_missing_for_the_chip",
     "EZ9999: Inner Error!\n"
     "EZ9999  AclOpKernelInit failed opType. Maybe caused by the following reasons:\n",
     "cuda_driver_mismatch", "npu_op_kernel_unavailable", ["CANN"]),
    ("ascend_image_for_another_driver",
     "RuntimeError: SetPrecisionMode:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:158 NPU function error: "
     "at_npu::native::AclSetCompileopt(aclCompileOpt::ACL_PRECISION_MODE, precision_mode), error code is 500001\n",
     "cuda_driver_mismatch", "cann_driver_mismatch", ["npu-smi"]),
    ("ascend_device_index_absent",
     "        rtSetDevice execute failed, reason=[device id error][FUNC:FuncErrorReason]\n",
     "tensor_parallel_config", "gpus_exceed", []),
    ("deepgemm_headers_for_sm110",
     "RuntimeError: Assertion error (include_parser.hpp:69): Failed to open: "
     "/venv/lib/python3.12/site-packages/deep_gemm/include/deep_gemm/impls/sm110_fp8_gemm_1d2d.cuh\n",
     "cuda_driver_mismatch", "deepgemm_arch_unsupported", ["VLLM_USE_DEEP_GEMM"]),
    ("deepgemm_nvcc_failed",
     "RuntimeError: Assertion error (csrc/jit/kernel_runtime.hpp:52): exit_code == 0\n",
     "cuda_driver_mismatch", "deepgemm_jit_compile_failed", ["VLLM_USE_DEEP_GEMM"]),
    ("triton_lds_on_an_mi50",
     "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 98304, Hardware limit: "
     "65536. Reducing block sizes or `num_stages` may help.\n",
     "cuda_driver_mismatch", "triton_shared_memory_exceeded", ["VLLM_ATTENTION_BACKEND"]),
    ("fa3_kernel_on_ada",
     "CUDA error (/build/flash-attention/hopper/flash_fwd_launch_template.h:190): invalid argument\n" + WRAPPER,
     "cuda_driver_mismatch", "attention_backend_unsupported", []),
    ("trl_vllm_device_absent",
     "ValueError: The requested device for vllm (cuda:3) is not available. You are likely using vLLM without "
     "restricting the number of GPUs for training.\n",
     "tensor_parallel_config", "wrapper_vllm_device_not_visible", ["CUDA_VISIBLE_DEVICES"]),
    ("a_trainer_waiting_for_health",
     "TimeoutError: Timeout waiting for vLLM server to be healthy\n",
     "engine_core_generic", "ready_timeout", []),
    ("compiled_graph_hash_unreadable",
     "AssertionError: failed to get the hash of the compiled graph\n" + WRAPPER,
     "engine_core_generic", "torch_compile_cache_stale", ["torch_compile_cache"]),
    ("nvcc_and_headers_of_two_releases",
     "CUDA compiler and CUDA toolkit headers are incompatible\n",
     "cuda_driver_mismatch", "cuda_library_version_skew", ["CUDA_HOME"]),
    ("flashinfer_jit_ninja",
     "RuntimeError: Ninja build failed. Ninja output:\n"
     "ninja: Entering directory `/root/.cache/flashinfer/0.5.3/90/generated/batch_prefill_fp16'\n",
     "cuda_driver_mismatch", "flashinfer_jit_build_failed", ["flashinfer"]),
    ("ptx_version_too_old_for_the_target",
     "ptxas /tmp/x.ptx, line 6; error   : PTX .version 8.5 does not support .target sm_121a\n",
     "cuda_driver_mismatch", "triton_ptxas_arch_unsupported", []),
    ("ray_actor_wrapping_the_wrapper",
     "ray.exceptions.ActorDiedError: The actor died because of an error raised in its creation task, "
     "ray::LLMActor.__init__() (pid=9, ip=10.0.0.2)\n" + WRAPPER,
     "engine_core_generic", "core_init_failed", []),
    # rules from set AV's misses, in other wordings
    ("an_option_retyped_without_spaces",
     "vllm: error:unrecognized arguments:--enable-prefix-cachin\n",
     "engine_core_generic", "unrecognized_argument", []),
    ("custom_modeling_file_on_an_offline_host",
     "OSError: We couldn't connect to 'https://huggingface.co' to load this file, couldn't find it in the cached "
     "files and it looks like internlm/internlm2-chat-7b is not the path to a directory containing a file named "
     "modeling_internlm2.py.\n",
     "trust_remote_code", "remote_code_file_unreachable", ["auto_map"]),
    ("hub_http_error_cut_in_its_raise",
     "Traceback (most recent call last):\n"
     '  File "/venv/lib/python3.12/site-packages/huggingface_hub/utils/_http.py", line 409, in hf_raise_for_status\n'
     "    response.raise_for_status()\n",
     "model_files", "hf_access", []),
    # rules from set AW's misses, in other wordings
    ("a_kv_connector_without_hma_support",
     "ValueError: Connector LMCacheConnectorV1 does not support HMA but HMA is enabled. Please set "
     "`--disable-hybrid-kv-cache-manager`.\n",
     "engine_core_generic", "kv_connector_lacks_hybrid_kv_support", ["disable_hybrid_kv_cache_manager",
                                                                     "kv_transfer_config"]),
    ("hybrid_specs_with_the_manager_off",
     "(EngineCore_DP0 pid=88) ValueError: Hybrid KV cache manager is disabled but failed to convert the KV cache "
     "specs to one unified type.\n" + WRAPPER,
     "engine_core_generic", "kv_connector_lacks_hybrid_kv_support", ["hybrid"]),
    ("lora_on_an_moe_model_without_expert_mapping",
     "AttributeError: To support LoRA for MoE model, get_expert_mapping must be implemented\n" + WRAPPER,
     "model_files", "lora_unsupported_model", ["enable_lora"]),
    ("compressed_tensors_without_a_scheme",
     "(EngineCore_DP0 pid=12) NotImplementedError: No compressed-tensors compatible scheme was found.\n",
     "model_files", "compressed_tensors_scheme_unsupported", ["vllm_install_version"]),
    ("fused_moe_scheme_w8a8_int",
     "RuntimeError: Unsupported FusedMoe scheme: num_bits=8 type='int' symmetric=False group_size=None "
     "strategy='channel'\n",
     "model_files", "moe_quant_scheme_unsupported", ["fused-MoE kernel", "W4A16, W8A8", "vllm_model_source"]),
    ("gguf_split_over_two_gpus",
     "ValueError: GGUF quantization hasn't supported tensor parallelism yet.\n",
     "tensor_parallel_config", "gguf_tensor_parallel_unsupported", ["tensor_parallel_size: 1"]),
    ("cpu_backend_given_v0",
     '    raise ValueError("CPU backend only supports V1.")\nValueError: CPU backend only supports V1.\n',
     "engine_core_generic", "cpu_backend_v0_refused", ["VLLM_USE_V1"]),
    ("nixl_handshake_with_another_engine",
     "RuntimeError: Remote NIXL agent engine ID mismatch. Expected 5c1e-prefill, received 9ab2-decode.\n",
     "tensor_parallel_config", "nixl_side_channel_host_wrong_node", ["VLLM_NIXL_SIDE_CHANNEL_HOST",
                                                                    "VLLM_NIXL_SIDE_CHANNEL_PORT"]),
    ("peer_access_between_two_consumer_gpus",
     "torch.AcceleratorError: CUDA error: peer access is not supported between these two devices\n",
     "tensor_parallel_config", "gpu_peer_access_unsupported", ["disable_custom_all_reduce", "NCCL_P2P_DISABLE"]),
    ("numpy2_removed_alias",
     "AttributeError: `np.float_` was removed in the NumPy 2.0 release. Use `np.float64` instead.\n",
     "engine_core_generic", "dependency_version_mismatch", ["NumPy 2 removed"]),
    ("quantization_choice_this_release_lacks",
     "vllm: error: argument --quantization/-q: invalid choice: 'mxfp4' (choose from 'awq', 'gptq', 'fp8')\n",
     "model_files", "quantization_method_unknown", ["vllm_install_version"]),
    ("qwen_mtp_norms_left_unloaded",
     "ValueError: Following weights were not initialized from checkpoint: {'mtp.pre_fc_norm_hidden.weight', "
     "'mtp.pre_fc_norm_embedding.weight'}\n",
     "engine_core_generic", "mtp_weights_not_loaded", []),
    ("cudart_under_a_hashed_wheel_name",
     "OSError: /venv/lib/python3.12/site-packages/torchvision.libs/libcudart.41118559.so.12: cannot open shared "
     "object file: No such file or directory\n",
     "cuda_driver_mismatch", "cudart_missing", []),
]


@pytest.mark.parametrize("name,log,category,cause,needles", CASES, ids=[c[0] for c in CASES])
def test_finer_causes(name, log, category, cause, needles):
    result = D.diagnose(log)
    assert (result["category"], result.get("cause")) == (category, cause), result
    assert result["category"] in D.CATEGORIES
    assert result["evidence"] in [line.strip() for line in log.splitlines()]
    for needle in needles:
        assert needle in result["fix"], (needle, result["fix"])


def test_error_802_outside_symmetric_memory_stays_the_drivers():
    result = D.diagnose("ERROR 02-20 16:43:12 engine.py:389] Unexpected error from cudaGetDeviceCount(). Did you run "
                        "some cuda functions before calling NumCudaDevices() that might have already set an error? "
                        "Error 802: system not yet initialized\n")
    assert (result["category"], result["cause"]) == ("cuda_driver_mismatch", "err_802")
    assert "fabricmanager" in result["fix"]


def test_a_transformers_name_some_releases_lack_stays_a_version_gap():
    result = D.diagnose("ImportError: cannot import name 'Qwen3VLForConditionalGeneration' from 'transformers' "
                        "(/opt/venv/lib/python3.12/site-packages/transformers/__init__.py)\n")
    assert (result["category"], result["cause"]) == ("model_files", "transformers_incompatible")


def test_bad_alloc_while_the_weights_load_stays_a_memory_shortage():
    result = D.diagnose("INFO 03-01 10:00:00 [__init__.py:241] Automatically detected platform cpu.\n"
                        "INFO 03-01 10:00:09 [default_loader.py:262] Loading weights took 41.2 seconds\n"
                        "terminate called after throwing an instance of 'std::bad_alloc'\n"
                        "  what():  std::bad_alloc\n")
    assert result["category"] == "host_oom", result


def test_a_cause_behind_the_wrapper_is_not_capped_like_the_wrapper():
    result = D.diagnose("vllm: error: unrecognized arguments: --disable-uvloop\n" + WRAPPER)
    assert result["cause"] == "unrecognized_argument"
    assert result["confidence"] >= 0.85


def test_a_hub_id_is_not_a_missing_local_path():
    log = ("huggingface_hub.errors.HFValidationError: Repo id must be in the form 'repo_name' or "
           "'namespace/repo_name': 'Qwen/Qwen2.5/7B'. Use `repo_type` argument if needed.\n")
    assert D.diagnose(log).get("cause") != "local_path_not_found"


def test_cuda_home_warning_on_a_gpu_less_host_is_no_compiler_problem():
    log = ("W1201 10:49:30.876000 18069 torch/utils/cpp_extension.py:183] No CUDA runtime is found, using "
           "CUDA_HOME='/usr/local'\nRuntimeError: Failed to infer device type\n")
    assert D.diagnose(log)["cause"] == "no_gpu_visible"


def test_permission_denied_on_a_model_file_is_not_a_cache_directory():
    got = D.diagnose("PermissionError: [Errno 13] Permission denied: '/models/llama/model.safetensors'\n")
    assert got.get("cause") != "cache_dir_permission", got


def test_a_cut_traceback_under_python_310_is_not_blamed_on_python():
    log = ('Traceback (most recent call last):\n  File "/venv/lib/python3.10/site-packages/vllm/entrypoints/'
           'cli/main.py", line 5, in <module>\n    class RequestFuncInput:\n')
    assert D.diagnose(log)["category"] != "python_version_unsupported"
    old = log.replace("python3.10", "python3.9")
    got = D.diagnose(old)
    assert got["category"] == "python_version_unsupported" and got["cause"] == "old_python_typing", got


def test_a_linux_traceback_is_not_native_windows():
    log = ('Traceback (most recent call last):\n  File "/opt/venv/lib/python3.12/site-packages/vllm/__init__.py", '
           'line 4, in <module>\n    from vllm.engine.llm_engine import LLMEngine\n')
    assert D.diagnose(log).get("cause") != "native_windows_unsupported"


def test_a_package_missing_its_own_submodule_is_no_wrapper_mismatch():
    # the importer is the package itself (an incomplete install), or vLLM: not a wrapper's release
    own = ('Traceback (most recent call last):\n  File "/opt/venv/lib/python3.12/site-packages/mooncake/__init__.py", '
           'line 2, in <module>\n    from mooncake.store import x\nModuleNotFoundError: No module named '
           "'mooncake.store'\n")
    assert D.diagnose(own).get("cause") != "wrapper_dependency_version_mismatch"
    bare = "ModuleNotFoundError: No module named 'mooncake.store'\n"
    assert D.diagnose(bare).get("cause") != "wrapper_dependency_version_mismatch"


def test_a_specific_error_on_native_windows_keeps_its_own_cause():
    log = ('Traceback (most recent call last):\n  File "C:\\py\\Lib\\site-packages\\vllm\\worker.py", line 8, '
           'in load\n    x = torch.empty(n)\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n')
    assert D.diagnose(log)["category"] == "gpu_oom"


def test_a_message_wrapped_over_two_lines_is_read_whole():
    # a terminal or a paste breaks vLLM's one-line messages; the rule for the whole message still names it
    kv = ("ValueError: To serve at least one request with the model's max seq len (65536), (9.5 GiB KV cache\n"
          "is needed, which is larger than the available KV cache memory (6.25 GiB).\n")
    got = D.diagnose(kv)
    assert (got["category"], got["cause"]) == ("gpu_oom", "kv_gib"), got
    free = ("ValueError: Free memory on device cuda:1 (20.5/79.1 GiB) on startup is less than desired GPU memory\n"
            "utilization (0.9, 71.2 GiB). Decrease GPU memory utilization or reduce GPU memory used by other "
            "processes.\n")
    got = D.diagnose(free)
    assert (got["category"], got["cause"]) == ("gpu_oom", "free_lt_util"), got


def test_a_new_message_on_the_next_line_is_not_joined():
    # the next line starts a message of its own (a capital): nothing is read across the break
    log = ("ValueError: To serve at least one request with the model's max seq len (65536), (9.5 GiB KV cache\n"
           "Is needed, which is larger than the available KV cache memory (6.25 GiB).\n")
    assert D.diagnose(log).get("cause") != "kv_gib"


def test_eaddrinuse_from_torchs_store_stays_a_port_in_use():
    log = ("torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
           "port: 29500, useIpv6: 0, code: -98, name: EADDRINUSE, message: address already in use\n")
    got = D.diagnose(log)
    assert got["category"] == "port_in_use" and got["cause"] != "internal_port_race", got


def test_no_platform_line_yields_to_an_error_of_its_own():
    # the INFO line only says no device was found; an error of its own later in the log comes first
    log = ("INFO 05-28 14:02:21 [__init__.py:247] No platform detected, vLLM is running on UnspecifiedPlatform\n"
           "ERROR 05-28 14:02:30 [core.py:400] ValueError: Bfloat16 is only supported on GPUs with compute capability "
           "of at least 8.0. Your Tesla T4 GPU has compute capability 7.5.\n")
    assert D.diagnose(log).get("cause") == "dtype_unsupported_on_gpu"


def test_the_installed_vllm_lacking_a_name_is_no_shadowing_package():
    # the path Python names is the installed package: not a folder or a script in its way
    log = ("ImportError: cannot import name 'LLM' from 'vllm' "
           "(/opt/venv/lib/python3.12/site-packages/vllm/__init__.py)\n")
    assert D.diagnose(log).get("cause") != "script_shadows_vllm_package"


# ---------------------------------------------------------------------------------------------
# Rules written after held-out set Y (heldout-y) was scored: other wordings of the same causes
# ---------------------------------------------------------------------------------------------

def test_a_config_option_value_of_another_form_is_an_argument_error():
    # vllm/engine/arg_utils.py parses config-class options with pydantic; argparse reports its error
    log = ("usage: api_server.py [-h] [--speculative-config SPECULATIVE_CONFIG]\n"
           "api_server.py: error: argument --speculative-config: 2 validation errors for SpeculativeConfig\n"
           "  Input should be an object [type=dataclass_type, input_value='ngram', input_type=str]\n")
    got = D.diagnose(log)
    assert (got["category"], got["cause"]) == ("engine_core_generic", "unrecognized_argument"), got
    assert "--speculative-config" in got["fix"] and "SpeculativeConfig" in got["fix"]
    assert "vllm_service_options" in got["fix"]


def test_a_feature_the_v1_engine_did_not_have_with_vllm_use_v1_set():
    log = ("INFO 04-07 10:00:01 [config.py:583] This model supports multiple tasks.\n"
           "NotImplementedError: VLLM_USE_V1=1 is not supported with --kv-cache-dtype.\n")
    got = D.diagnose(log)
    assert (got["category"], got["cause"]) == ("engine_core_generic", "v1_engine_unsupported"), got
    assert "--kv-cache-dtype" in got["fix"] and "VLLM_USE_V1" in got["fix"]


def test_a_failed_llm_without_its_engine_is_no_version_mismatch():
    # LLM() failed earlier and its __del__ found no llm_engine: a consequence, not the cause
    log = "AttributeError: 'LLM' object has no attribute 'llm_engine'\n"
    assert D.diagnose(log).get("cause") != "wrapper_vllm_version_mismatch"


def test_an_attention_backend_the_release_does_not_have():
    # VLLM_ATTENTION_BACKEND kept from an older recipe (XFORMERS went with the V0 engine)
    log = ("(EngineCore_DP0 pid=812) ERROR 10-02 09:14:03 [core.py:700] ValueError: Invalid attention backend: "
           "'XFORMERS'. Valid backends are: ['FLASH_ATTN', 'TRITON_ATTN', 'FLASHINFER', 'FLEX_ATTENTION']\n")
    got = D.diagnose(log)
    assert (got["category"], got["cause"]) == ("engine_core_generic", "attention_backend_unknown"), got
    assert "VLLM_ATTENTION_BACKEND" in got["fix"] and "vllm_service_env" in got["fix"]
    got = D.diagnose("ValueError: Invalid attention backend for cuda\n")
    assert got.get("cause") == "attention_backend_unknown", got


# ---------------------------------------------------------------------------------------------
# Rules written after held-out set AC (heldout-ac) was scored: other wordings of the same causes
# ---------------------------------------------------------------------------------------------

def test_a_process_that_cannot_import_vllm_at_all():
    # a Ray worker's runtime environment without vLLM; "No module named 'vllm.x'" stays another cause
    got = D.diagnose("(LLMRayActor pid=311) ModuleNotFoundError: No module named 'vllm'\n")
    assert (got["category"], got["cause"]) == ("engine_core_generic", "vllm_not_installed"), got
    assert "runtime_env" in got["fix"] and "vllm_install_version" in got["fix"]
    assert D.diagnose("ModuleNotFoundError: No module named vllm\n").get("cause") == "vllm_not_installed"
    assert D.diagnose("ModuleNotFoundError: No module named 'vllm.entrypoints.foo'\n").get("cause") != \
        "vllm_not_installed"


def test_a_data_parallel_rank_past_the_visible_gpus():
    # vllm/v1/worker/gpu_worker.py init_device, the wordings of several releases
    for line in ("AssertionError: DP adjusted local rank 3 is out of bounds for 2 devices.\n",
                 "(Worker_DP1 pid=90) AssertionError: DP adjusted local rank 1 is out of bounds. \n"):
        got = D.diagnose(line)
        assert (got["category"], got["cause"]) == ("tensor_parallel_config", "gpus_exceed"), (line, got)
        assert "data_parallel_size" in got["fix"] and "vllm_service_options" in got["fix"]
    # with no device at all the process sees no GPU
    for line in ("AssertionError: DP adjusted local rank 0 is out of bounds for 0 devices.\n",
                 "AssertionError: DP adjusted local rank 0 is out of bounds. Device count: 0\n"):
        got = D.diagnose(line)
        assert (got["category"], got["cause"]) == ("cuda_driver_mismatch", "no_gpu_visible"), (line, got)


def test_a_multi_stage_server_stage_needing_more_devices():
    # vLLM-Omni's stage planner, two wordings
    for line in ("RuntimeError: Orchestrator initialization failed: Stage 1 requires 2 devices, but only 1 device "
                 "is visible\n",
                 "ValueError: Stage 0 requires 4 device(s) based on parallel_config, but 2 device(s) are available: "
                 "['0', '1']\n"):
        got = D.diagnose(line)
        assert (got["category"], got["cause"]) == ("tensor_parallel_config", "gpus_exceed"), (line, got)
        assert "stage" in got["fix"]


def test_nvml_asked_for_a_gpu_index_the_host_lacks():
    log = ("  File \"/opt/venv/lib/python3.12/site-packages/vllm/platforms/cuda.py\", line 409, in get_device_name\n"
           "    handle = pynvml.nvmlDeviceGetHandleByIndex(physical_device_id)\n"
           "pynvml.NVMLError_InvalidArgument: Invalid Argument\n")
    got = D.diagnose(log)
    assert (got["category"], got["cause"]) == ("tensor_parallel_config", "invalid_ordinal"), got
    assert "CUDA_VISIBLE_DEVICES" in got["fix"] and "nvidia-smi -L" in got["fix"]


def test_vllm_rewording_a_custom_tokenizer_it_could_not_load():
    # vllm/transformers_utils/tokenizer.py; its own advice on the line is no sign the option is set
    got = D.diagnose("RuntimeError: Failed to load the tokenizer. If the tokenizer is a custom tokenizer not yet "
                     "available in the HuggingFace transformers library, consider setting `trust_remote_code=True` "
                     "in LLM or using the `--trust-remote-code` flag in the CLI.\n")
    assert (got["category"], got["cause"]) == ("trust_remote_code", "tokenizer_class"), got
    assert "trust_remote_code: true" in got["fix"]


def test_argparse_message_without_its_program_prefix():
    # a wrapper that re-raises argparse's message alone
    got = D.diagnose("unrecognized arguments: --stage-1-gpu-memory-utilization 0.4\n")
    assert (got["category"], got["cause"]) == ("engine_core_generic", "unrecognized_argument"), got
    assert "--stage-1-gpu-memory-utilization" in got["fix"]
    # prose that merely mentions the words is not a log line of argparse
    assert D.diagnose("I keep getting unrecognized arguments: what does it mean\n").get("cause") != \
        "unrecognized_argument"


def test_ray_older_than_its_llm_modules():
    for module in ("ray.serve.llm", "ray.data.llm", "ray.llm._internal.serve"):
        got = D.diagnose("ModuleNotFoundError: No module named '%s'\n" % module)
        assert (got["category"], got["cause"]) == ("engine_core_generic", "wrapper_dependency_version_mismatch"), got
        assert "ray" in got["fix"]
    # Ray itself missing stays its own cause
    assert D.diagnose("ModuleNotFoundError: No module named 'ray'\n").get("cause") == "ray_not_installed"


def test_a_wrapper_config_without_a_key_it_reads():
    for line, key in (("omegaconf.errors.ConfigAttributeError: Missing key rollout_n\n", "rollout_n"),
                      ("omegaconf.errors.ConfigKeyError: Missing key engine_args\n", "engine_args"),
                      ("omegaconf.errors.MissingMandatoryValue: Missing mandatory value: "
                       "actor_rollout_ref.model.path\n", "actor_rollout_ref.model.path")):
        got = D.diagnose(line)
        assert (got["category"], got["cause"]) == ("engine_core_generic", "wrapper_config_key_missing"), got
        assert key in got["fix"]


def test_a_classification_head_in_a_generative_class():
    # a sequence-classification / reward checkpoint whose config.json keeps the generative architecture
    for line in ("ValueError: There is no module or parameter named 'score' in Qwen2ForCausalLM\n",
                 "ValueError: There is no module or parameter named 'classifier' in LlamaForCausalLM\n"):
        got = D.diagnose(line)
        assert (got["category"], got["cause"]) == ("model_files", "embedding_checkpoint_needs_pooling_task"), got
        assert "runner: pooling" in got["fix"]
    # another top-level name is still a prefix mismatch
    got = D.diagnose("ValueError: There is no module or parameter named 'language_model' in LlamaForCausalLM\n")
    assert got.get("cause") == "checkpoint_prefix_mismatch", got


def test_numba_refusing_the_installed_numpy():
    for line in ("ImportError: Numba needs NumPy 2.4 or less. Got NumPy 2.5.\n",
                 "ImportError: Numba needs NumPy 1.22 or greater. Got NumPy 1.21.\n"):
        got = D.diagnose(line)
        assert (got["category"], got["cause"]) == ("engine_core_generic", "dependency_version_mismatch"), got
        assert "NumPy" in got["fix"] and "numba" in got["fix"]
    # the kernels/transformers pair keeps its own fix
    got = D.diagnose("ValueError: Either a revision or a version must be specified.\n")
    assert got["cause"] == "dependency_version_mismatch" and "LayerRepository" in got["fix"]


def test_marlin_kernels_missing_from_a_build_for_another_platform():
    # vLLM's CPU build and ROCm (vllm#12267, vllm#19727) lack the CUDA Marlin ops
    for op in ("gptq_marlin_repack", "awq_marlin_repack", "marlin_gemm"):
        got = D.diagnose("AttributeError: '_OpNamespace' '_C' object has no attribute '%s'\n" % op)
        assert (got["category"], got["cause"]) == ("cuda_driver_mismatch", "quantization_unsupported"), got
        assert op in got["fix"] and "vllm_model_source" in got["fix"]


def test_a_hub_id_in_the_alphanumeric_wording_is_no_missing_local_path():
    log = ("huggingface_hub.errors.HFValidationError: Repo id must use alphanumeric chars or '-', '_', '.', '--' and "
           "'..' are forbidden, '-' and '.' cannot start or end the name, max length is 96: 'Qwen/Qwen2.5--7B'.\n")
    assert D.diagnose(log).get("cause") != "local_path_not_found"


def test_a_missing_symbol_of_another_c_plus_plus_library_is_no_torch_mismatch():
    log = ("ImportError: /usr/lib/x86_64-linux-gnu/libgrpc.so.29: undefined symbol: "
           "_ZN4absl12lts_2023080212log_internal9LogMessageC1EPKci\n")
    assert D.diagnose(log).get("cause") != "undefined_symbol"


# ---------------------------------------------------------------------------------------------
# Rules written after held-out set AD (heldout-ad) was scored: other wordings of the same causes
# ---------------------------------------------------------------------------------------------

def test_torchs_out_of_memory_body_without_its_head():
    # c10/cuda/CUDACachingAllocator.cpp's message, quoted after a wrapper's own head (units of format_size)
    for log in ("model load failed: insufficient VRAM\n"
                "GPU 1 has a total capacity of 79.19 GiB of which 512.00 MiB is free. Including non-PyTorch "
                "memory, this process has 78.66 GiB memory in use.\n",
                "[worker] GPU 0 has a total capacity of 191.98 GiB of which 0 bytes is free.\n",
                "RuntimeError: loading failed\nthis process has 23.41 GiB memory in use. Of the allocated memory "
                "22.9 GiB is allocated by PyTorch\n"):
        got = D.diagnose(log)
        assert (got["category"], got["cause"]) == ("gpu_oom", "cuda_oom"), (log, got)
        assert "gpu_memory_utilization" in got["fix"]


def test_api_server_processes_racing_for_a_zmq_port():
    # vllm/v1/engine/core_client.py: an API server process binds ZMQ sockets on ports vLLM picked itself
    for line in ("(ApiServer_3 pid=4411) zmq.error.ZMQError: Address already in use (addr='tcp://10.1.2.3:51234')\n",
                 "(ApiServer_0 pid=77) ERROR 05-02 10:11:12 [launcher.py:40] ZMQError: Address in use "
                 "(addr='tcp://127.0.0.1:40001')\n"):
        got = D.diagnose(line)
        assert (got["category"], got["cause"]) == ("port_in_use", "internal_port_race"), (line, got)
        assert "api_server_count" in got["fix"]
    # a KV connector's side channel or a user's port stays a port held by another process
    got = D.diagnose("(EngineCore_DP0 pid=5) zmq.error.ZMQError: Address already in use (addr='tcp://10.0.0.1:14579')\n")
    assert (got["category"], got["cause"]) == ("port_in_use", "eaddrinuse"), got
    # the HTTP port of an API server is a port of the configuration
    got = D.diagnose("(ApiServer_1 pid=9) OSError: [Errno 98] Address already in use\n")
    assert got["category"] == "port_in_use" and got["cause"] != "internal_port_race", got


def test_vllms_own_module_missing_one_of_its_own_kernels():
    # a global-namespace C++ name (_Z<len><name>) in vLLM's own .so is a kernel of vLLM the build left out
    for line in ("ImportError: /opt/venv/lib/python3.10/site-packages/vllm/_moe_C.abi3.so: undefined symbol: "
                 "_Z20topk_softmax_kernelRN2at6TensorES1_S1_S1_\n",
                 "OSError: /usr/lib/python3/dist-packages/vllm/_rocm_C.abi3.so: undefined symbol: _Z17paged_attention_v1RN2at6TensorE\n",
                 "ImportError: _C.abi3.so: undefined symbol: _Z14awq_marlin_repackRKN2at6TensorEllll\n"):
        got = D.diagnose(line)
        assert (got["category"], got["cause"]) == ("engine_core_generic", "vllm_release_bug"), (line, got)
        assert "vllm_install_backend" in got["fix"] and "vllm_install_version" in got["fix"]
    # torch's own namespaces stay a torch ABI mismatch
    got = D.diagnose("ImportError: /opt/venv/lib/python3.12/site-packages/vllm/_C.abi3.so: undefined symbol: "
                     "_ZN3c104cuda9SetDeviceEi\n")
    assert (got["category"], got["cause"]) == ("cuda_driver_mismatch", "undefined_symbol"), got


def test_a_transformers_5_tokenizer_class_under_transformers_4():
    # transformers' AutoTokenizer: the base classes transformers 5 writes into tokenizer_config.json
    for name in ("TokenizersBackend", "SentencePieceBackend", "PythonBackend"):
        got = D.diagnose("  File \"/venv/lib/python3.11/site-packages/transformers/models/auto/tokenization_auto.py\", "
                         "line 1010, in from_pretrained\nValueError: Tokenizer class %s does not exist or is not "
                         "currently imported.\n" % name)
        assert (got["category"], got["cause"]) == ("model_files", "transformers_incompatible"), (name, got)
        assert name in got["fix"] and "tokenizer" in got["fix"]
    # a model family's own class stays a tokenizer that needs its code (or trust_remote_code)
    got = D.diagnose("ValueError: Tokenizer class QWenTokenizer does not exist or is not currently imported.\n")
    assert got["category"] == "trust_remote_code", got
# Rules written after held-out set AE (heldout-ae) was scored: other wordings of the same causes
# ---------------------------------------------------------------------------------------------

def test_a_worker_killed_by_sigbus_is_shared_memory():
    # Python's faulthandler and abseil's failure-signal handler (Ray workers) on SIGBUS
    for log in ("(RayWorkerWrapper pid=812) *** SIGBUS received at time=1712000000 on cpu 11 ***\n"
                "(RayWorkerWrapper pid=812) PC: @     0x7f3a1c2b4c10  (unknown)  memcpy\n",
                "(VllmWorker rank=1 pid=4410) Fatal Python error: Bus error\n"
                "(VllmWorker rank=1 pid=4410) \n"
                "(VllmWorker rank=1 pid=4410) Thread 0x00007f55e1fff640 (most recent call first):\n"):
        got = D.diagnose(log)
        assert (got["category"], got["cause"]) == ("host_oom", "bus_error"), (log, got)
        assert "--shm-size" in got["fix"] and "--ipc=host" in got["fix"]


def test_a_cutlass_kernel_missing_for_the_gpus_compute_capability():
    # vLLM's CUTLASS entry points (scaled_mm, sparse, azp): the build has no kernel for the GPU
    for line, cap in (("NotImplementedError: No compiled cutlass_scaled_mm for CUDA device capability: 120. "
                       "Required capability: 90 or 100\n", "120"),
                      ("RuntimeError: No compiled cutlass_scaled_sparse_mm for a compute capability less than CUDA "
                       "device capability: 80\n", "80"),
                      ("(EngineCore_DP0 pid=77) NotImplementedError: No compiled cutlass_scaled_mm_azp for a compute "
                       "capability less than CUDA device capability: 72\n", "72")):
        got = D.diagnose(line)
        assert (got["category"], got["cause"]) == ("cuda_driver_mismatch", "no_kernel_image"), (line, got)
        assert cap in got["fix"] and "TORCH_CUDA_ARCH_LIST" in got["fix"] and "vllm_install_version" in got["fix"]


def test_a_platform_plugin_that_fails_to_load():
    # vllm/plugins/__init__.py load_plugins_by_group; with no platform left vLLM cannot infer the device
    log = ("INFO 06-02 10:12:01 [__init__.py:36] Available plugins for group vllm.platform_plugins:\n"
           "INFO 06-02 10:12:01 [__init__.py:38] - gaudi -> vllm_gaudi:register\n"
           "ERROR 06-02 10:12:01 [__init__.py:51] Failed to load plugin gaudi\n"
           "ImportError: libhl-thunk.so: cannot open shared object file: No such file or directory\n"
           "INFO 06-02 10:12:02 [__init__.py:220] No platform detected, vLLM is running on UnspecifiedPlatform\n"
           "RuntimeError: Failed to infer device type\n")
    got = D.diagnose(log)
    assert (got["category"], got["cause"]) == ("cuda_driver_mismatch", "platform_plugin_load_failed"), got
    assert "Failed to load plugin" in got["fix"] and "vllm_install_version" in got["fix"]
    # a general plugin that fails to load does not outrank the error that stopped the start
    log = ("ERROR 06-02 10:12:01 [__init__.py:51] Failed to load plugin lora_filesystem_resolver\n"
           "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
           "23.64 GiB of which 1.02 GiB is free.\n")
    assert D.diagnose(log)["category"] == "gpu_oom"


# ---------------------------------------------------------------------------------------------
# Rules written after held-out set AF (heldout-af) was scored: other wordings of the same causes
# ---------------------------------------------------------------------------------------------

def test_python_3_13_inspect_without_firstlineno_is_a_python_too_new_for_the_release():
    # inspect.findsource of Python 3.13+ on a class without __firstlineno__ (vLLM reading its config
    # classes' source for the CLI help, releases before its Python 3.13 support)
    for log in ('  File "/opt/venv/lib/python3.13/site-packages/vllm/config/utils.py", line 141, in get_attr_docs\n'
                "    cls_node = ast.parse(textwrap.dedent(inspect.getsource(cls))).body[0]\n"
                '  File "/usr/lib/python3.13/inspect.py", line 1087, in findsource\n'
                "    lnum = vars(object)['__firstlineno__'] - 1\n"
                "KeyError: '__firstlineno__'\n"
                "\nDuring handling of the above exception, another exception occurred:\n\n"
                "OSError: source code not available\n",
                "(APIServer pid=1) KeyError: '__firstlineno__'\n"):
        got = D.diagnose(log)
        assert (got["category"], got["cause"]) == ("python_version_unsupported", "py_not_supported"), (log, got)
        assert "vllm_python_version" in got["fix"] and "3.12" in got["fix"] and "__firstlineno__" in got["fix"]
    # another missing key is no Python version
    assert D.diagnose("KeyError: 'firstlineno'\n")["category"] != "python_version_unsupported"


def test_a_triton_kernel_handed_a_tensor_of_another_device():
    # triton's launcher: the engine's GPU is not the process's current device (device='cuda:N')
    for log in ("[rank0]: ValueError: Pointer argument (at 0) cannot be accessed from Triton (cpu tensor?)\n",
                "(VllmWorker rank=1 pid=331) ERROR 05-02 10:11:12 [multiproc_executor.py:470] ValueError: Pointer "
                "argument (at 3) cannot be accessed from Triton (cpu tensor?)\n" + WRAPPER):
        got = D.diagnose(log)
        assert (got["category"], got["cause"]) == ("engine_core_generic", "vllm_release_bug"), (log, got)
        assert "CUDA_VISIBLE_DEVICES" in got["fix"] and "vllm_service_env" in got["fix"]


def test_a_triton_launch_option_the_backend_does_not_know():
    # triton's JITFunction.run on a launch option of another backend or release
    for log in ("ERROR 04-15 19:30:19 [core.py:390] KeyError: 'Keyword argument maxnreg was specified but "
                "unrecognised'\n",
                "KeyError: 'Keyword argument waves_per_eu was specified but unrecognised'\n" + WRAPPER):
        got = D.diagnose(log)
        assert (got["category"], got["cause"]) == ("engine_core_generic", "vllm_release_bug"), (log, got)
        assert "Triton" in got["fix"] and "vllm_install_version" in got["fix"]


def test_a_serving_layer_refusing_a_gpu_it_gave_another_vllm_model():
    # Xinference's worker (allocate_devices_with_gpu_idx): replicas or models with overlapping GPU lists
    for log in ("RuntimeError: [address=0.0.0.0:34567, pid=12] User specified GPU index 0 has been occupied with a "
                "vLLM model: qwen2-instruct-1-0, therefore cannot allocate GPU memory for a new model.\n",
                "xinference.core.worker ERROR User specified GPU index 3 has been occupied with a vLLM model: "
                "glm4-chat-0, therefore cannot allocate GPU memory for a new model.\n"):
        got = D.diagnose(log)
        assert (got["category"], got["cause"]) == ("tensor_parallel_config", "wrapper_gpu_already_assigned"), got
        assert "vllm_instances" in got["fix"] and "CUDA_VISIBLE_DEVICES" in got["fix"]


def test_vllm_modules_missing_under_a_native_windows_python():
    # drive-letter paths into the vllm package or its Scripts\vllm.exe launcher: no Windows build
    for log in ("Traceback (most recent call last):\n"
                '  File "C:\\Users\\me\\miniconda3\\envs\\v\\Scripts\\vllm.exe\\__main__.py", line 4, in <module>\n'
                '  File "C:\\Users\\me\\miniconda3\\envs\\v\\lib\\site-packages\\vllm\\_custom_ops.py", line 9, in '
                "<module>\n"
                "    import vllm._C\n"
                "ModuleNotFoundError: No module named 'vllm._C'\n",
                "Traceback (most recent call last):\n"
                '  File "D:\\work\\.venv\\Scripts\\vllm.exe\\__main__.py", line 2, in <module>\n'
                "    from vllm.entrypoints.cli.main import main\n"
                "ModuleNotFoundError: No module named 'vllm.entrypoints'\n"):
        got = D.diagnose(log)
        assert (got["category"], got["cause"]) == ("wsl_specific", "native_windows_unsupported"), (log, got)
        assert "WSL2" in got["fix"]
    # the same import under Linux stays an incomplete install
    log = ('  File "/opt/venv/lib/python3.12/site-packages/vllm/_custom_ops.py", line 9, in <module>\n'
           "    import vllm._C\n"
           "ModuleNotFoundError: No module named 'vllm._C'\n")
    assert D.diagnose(log)["category"] != "wsl_specific"


def test_a_flattened_paste_is_read_as_the_lines_it_was():
    """A paste whose newlines were lost keeps vLLM's process prefixes: each starts a line again, so the
    exception line in the middle of the one long line is found."""
    flat = ("(APIServer pid=7)   File \"/venv/lib/python3.12/site-packages/vllm/config/model.py\", line 60, in "
            "__post_init__ (APIServer pid=7)     raise ValueError( (APIServer pid=7) ValueError: Model architectures "
            "['FooForCausalLM'] are not supported for now. (APIServer pid=7) INFO 01-01 00:00:00 [launcher.py:1] done\n")
    result = D.diagnose(flat)
    assert (result["category"], result["cause"]) == ("model_files", "architecture_unsupported"), result
    assert result["evidence"].startswith("(APIServer pid=7) ValueError: Model architectures"), result["evidence"]
    assert result["evidence"] in flat


def test_nested_process_prefixes_stay_one_line():
    line = "(APIServer pid=1) (EngineCore_DP0 pid=68) ERROR 02-06 16:34:06 [core.py:936] RuntimeError: boom"
    assert D.split_lines(line + "\n" + line) == [line, line]
    assert D.split_lines("(pid=3) a (pid=3) b") == ["(pid=3) a", "(pid=3) b"]
    assert D.split_lines("killed worker (pid=3) once") == ["killed worker (pid=3) once"]


def test_a_signature_error_in_vllms_own_model_configs_is_transformers_drift():
    """vLLM's config classes for models transformers lacked build on transformers' helpers; a TypeError raised
    there (a helper's signature that moved, transformers 5) is transformers against the release."""
    log = ('Traceback (most recent call last):\n'
           '  File "/venv/lib/python3.12/site-packages/vllm/transformers_utils/configs/olmo3.py", line 70, in __init__\n'
           "    rope_config_validation(self, ignore_keys)\n"
           "TypeError: rope_config_validation() got an unexpected keyword argument 'ignore_keys'\n")
    result = D.diagnose(log)
    assert (result["category"], result["cause"]) == ("model_files", "transformers_incompatible"), result
    # the same error raised in the program's own code stays no transformers question
    other = log.replace("vllm/transformers_utils/configs/olmo3.py", "myapp/settings.py")
    assert D.diagnose(other)["cause"] != "transformers_incompatible"


def test_an_undefined_symbol_fix_follows_the_rule_that_matched():
    # the fix names the library the matching rule read, not the first undefined symbol of the log: an
    # unrelated program's library (libgrpc) before torch's own library against another ROCm
    log = ("WARNING 05-02 10:11:12 [utils.py:12] grpc plugin not loaded: /opt/app/lib/libgrpc.so.40: undefined "
           "symbol: _ZN4absl12lts_2024011612log_internal9LogMessageD1Ev\n"
           "Traceback (most recent call last):\n"
           "  File \"/opt/venv/lib/python3.12/site-packages/torch/__init__.py\", line 367, in <module>\n"
           "    from torch._C import *  # noqa: F403\n"
           "ImportError: /opt/venv/lib/python3.12/site-packages/torch/lib/libtorch_hip.so: undefined symbol: "
           "rsmi_dev_gpu_metrics_info_get\n")
    got = D.diagnose(log)
    assert (got["category"], got["cause"]) == ("cuda_driver_mismatch", "stack_library_skew"), got
    assert "libtorch_hip.so needs rsmi_dev_gpu_metrics_info_get" in got["fix"], got["fix"]
    assert "libgrpc" not in got["fix"]
    # a CUDA library's versioned symbol: both libraries named from the rule's own match
    got = D.diagnose("ImportError: /venv/lib/python3.11/site-packages/nvidia/cusolver/lib/libcusolver.so.11: "
                     "undefined symbol: __nvJitLinkAddData_12_1, version libnvJitLink.so.12\n")
    assert got["cause"] == "cuda_library_version_skew", got
    assert "(libcusolver.so.11) needs a newer libnvJitLink.so.12" in got["fix"], got["fix"]


def test_any_processor_without_a_multimodal_attribute():
    # a *Processor class whose name says nothing of images (a new model family's) is still a multimodal
    # processor when what it lacks only a multimodal processor has
    for line in ("AttributeError: 'KeyeProcessor' object has no attribute 'image_token'\n",
                 "AttributeError: 'Ernie4_5_VLMoeProcessor' object has no attribute 'video_processor'\n",
                 "AttributeError: 'PhiOProcessor' object has no attribute 'feature_extractor'\n",
                 "AttributeError: 'MiniMaxProcessor' object has no attribute 'num_image_tokens'\n"):
        got = D.diagnose(line)
        assert (got["category"], got["cause"]) == ("multimodal_processor",
                                                   "hf_processor_transformers_version_mismatch"), (line, got)
    # a logits processor or a text-only attribute stays out of it
    for line in ("AttributeError: 'MinPLogitsProcessor' object has no attribute 'min_p_cpu'\n",
                 "AttributeError: 'ChatProcessor' object has no attribute 'eos_token_id'\n"):
        assert D.diagnose(line).get("cause") != "hf_processor_transformers_version_mismatch", line


def test_a_sibling_cuda_context_is_not_another_program_holding_the_gpu():
    # a few hundred MiB is a CUDA context (a trainer's worker, a monitor): the OOM is the server's own budget
    got = D.diagnose("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
                     "capacity of 22.05 GiB of which 1.02 GiB is free. Process 29529 has 796.00 MiB memory in use. "
                     "Including non-PyTorch memory, this process has 20.20 GiB memory in use.\n")
    assert got["cause"] == "cuda_oom", got


def test_the_model_runner_v2_fallback_warning_is_no_failure():
    # left unset, vLLM logs the gap and runs the V1 runner: no colon after "support", not an error
    result = D.diagnose("WARNING 05-01 10:00:00 [vllm.py:2267] Model Runner V2 does not yet support ngram/ngram_gpu "
                        "speculative decoding; using the V1 model runner instead.\n")
    assert result.get("cause") != "model_runner_v2_unsupported"


def test_vllm_c_missing_on_linux_is_an_incomplete_install():
    result = D.diagnose("WARNING 01-02 10:00:00 _custom_ops.py:20] Failed to import from vllm._C with "
                        "ModuleNotFoundError(\"No module named 'vllm._C'\")\n")
    assert (result["category"], result["cause"]) == ("engine_core_generic", "vllm_install_incomplete")


def test_a_vllm_folder_of_another_package_is_not_vllms_own():
    # xinference/model/llm/vllm/core.py importing a module vLLM removed: the wrapper's, not vLLM's install
    log = ("Traceback (most recent call last):\n"
           '  File "/env/lib/python3.10/site-packages/xinference/model/llm/vllm/core.py", line 383, in load\n'
           "    from vllm.executor.executor_base import ExecutorBase\n"
           "ModuleNotFoundError: No module named 'vllm.executor'\n")
    assert D.diagnose(log)["cause"] == "wrapper_vllm_version_mismatch"
    inside = log.replace("xinference/model/llm/vllm/core.py", "vllm/engine/llm_engine.py")
    assert D.diagnose(inside)["cause"] == "vllm_install_incomplete"


def test_sigill_without_a_cpu_backend_stays_an_illegal_instruction():
    result = D.diagnose("run.sh: line 4:  311 Illegal instruction     (core dumped) vllm serve /models/q\n"
                        "Fatal Python error: Illegal instruction\n")
    assert result["cause"] != "cpu_isa_missing"


def test_weights_not_initialized_outside_mtp_layers_are_not_mtp():
    result = D.diagnose("ValueError: Following weights were not initialized from checkpoint: "
                        "{'model.layers.3.mlp.experts.w13_weight'}\n")
    assert result.get("cause") != "mtp_weights_not_loaded"


def test_import_time_lines_before_the_banner_belong_to_its_attempt():
    # vLLM detects the platform at import, before the server prints its banner: the same attempt
    log = ("WARNING 06-21 19:07:50 [__init__.py:25] The vLLM package was not found, so its version could not be "
           "inspected. This may cause platform detection to fail.\n"
           "INFO 06-21 19:07:50 [__init__.py:243] No platform detected, vLLM is running on UnspecifiedPlatform\n"
           "INFO 06-21 19:07:56 [api_server.py:1043] vLLM API server version 0.8.5\n")
    result = D.diagnose(log)
    assert result["cause"] == "vllm_dist_metadata_missing"
    assert "earlier start attempt" not in result["fix"]
    # an error line before those is an earlier attempt's: the last attempt's own cause comes first
    earlier = D.diagnose("ERROR 06-21 19:00:00 [core.py:700] torch.OutOfMemoryError: CUDA out of memory.\n" + log)
    assert earlier["cause"] == "vllm_dist_metadata_missing"
    assert "earlier start attempt" not in earlier["fix"]


def test_python_loggings_default_format_is_log():
    # "LEVEL:logger:message" (logging.basicConfig), a wrapper's own log of vLLM's error
    log = ("Loading the model now, this may take a while\n"
           "ERROR:app.engine:Failed to load model: MyProcessor._get_data_parser has been moved to "
           "`BaseProcessingInfo.build_data_parser` in v0.16. You should override it instead.\n")
    result = D.diagnose(log)
    assert result["cause"] == "wrapper_vllm_version_mismatch"
    assert result["evidence"].startswith("ERROR:app.engine:")


def test_a_process_without_a_nvml_answer_on_wsl_is_still_named():
    result = D.diagnose("pynvml.NVMLError_NotSupported: Not Supported\n")
    assert result["cause"] == "nvml_not_supported"
    assert "WSL2" in result["fix"]



def test_an_invalid_choice_of_another_option_stays_a_wrong_value():
    result = D.diagnose("vllm: error: argument --dtype: invalid choice: 'fp33' (choose from 'auto', 'half')\n")
    assert result["cause"] == "unrecognized_argument", result


def test_numbas_numpy_range_keeps_its_own_fix():
    # the NumPy 2 removal's fix is chosen by its own words, not by "NumPy 2" anywhere in the line
    result = D.diagnose("ImportError: Numba needs NumPy 2.0 or less. Got NumPy 2.1.\n")
    assert result["cause"] == "dependency_version_mismatch" and "numba" in result["fix"]
    assert "NumPy 2 removed" not in result["fix"]
