# -*- coding: utf-8 -*-
"""The vLLM server's options: computed from host and model facts, merged with the user's.

Every computed option carries a one-line reason the run's summary shows. The result is rendered
once, as vLLM's ``--config`` YAML (keys are the long CLI option names) plus an environment file
that both systemd (``EnvironmentFile=``) and the launcher read. Pure standard library.
"""
from __future__ import absolute_import, division, print_function

import json
import re

__metaclass__ = type

MIB = 1024 * 1024
GIB = 1024 * MIB
DTYPE_BYTES = {"float32": 4, "float": 4, "float16": 2, "half": 2, "bfloat16": 2, "auto": 2}
# Environment every server gets: no telemetry, no network at start (the model is local).
BASE_ENV = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "VLLM_NO_USAGE_STATS": "1",
    "DO_NOT_TRACK": "1",
}
CPU_KV_CACHE_FLOOR = 64 * MIB
CPU_RAM_RESERVE = 2 * GIB


def model_facts(config):
    """The facts vLLM's sizing depends on, from a model's config.json (a dict)."""
    config = config or {}
    text_cfg = config.get("text_config") or config.get("llm_config") or config
    heads = text_cfg.get("num_attention_heads")
    hidden = text_cfg.get("hidden_size")
    head_dim = text_cfg.get("head_dim") or (hidden // heads if hidden and heads else None)
    kv_heads = text_cfg.get("num_key_value_heads") or heads
    dtype = str(text_cfg.get("torch_dtype") or config.get("torch_dtype") or
                text_cfg.get("dtype") or config.get("dtype") or "auto")
    arch = config.get("architectures") or []
    return {
        "architectures": arch,
        "model_type": config.get("model_type"),
        "num_attention_heads": heads,
        "num_key_value_heads": kv_heads,
        "head_dim": head_dim,
        "num_hidden_layers": text_cfg.get("num_hidden_layers"),
        "max_position_embeddings": text_cfg.get("max_position_embeddings")
        or config.get("max_position_embeddings"),
        "dtype": dtype,
        "multimodal": bool(config.get("vision_config") or config.get("audio_config")
                           or any(re.search(r"VL|Vision|Llava|ForConditionalGeneration", a)
                                  for a in arch)),
    }


def kv_bytes_per_token(facts):
    """K and V for every layer: 2 x layers x kv_heads x head_dim x bytes of the KV dtype."""
    try:
        return (2 * int(facts["num_hidden_layers"]) * int(facts["num_key_value_heads"])
                * int(facts["head_dim"]) * DTYPE_BYTES.get(facts.get("dtype"), 2))
    except (KeyError, TypeError, ValueError):
        return None


def compute_options(backend, host, model, served_name, bind_host, port, user_options=None,
                    weights_bytes=0):
    """Return ``(options, reasons)``: vLLM options (underscore names) and why each was chosen.

    ``host`` is the vllm_host fact, ``model`` the output of :func:`model_facts`. The user's
    options are merged last and win; their reason says so.
    """
    user_options = dict(user_options or {})
    options = {}
    reasons = {}

    options["served_model_name"] = served_name
    reasons["served_model_name"] = "the name clients ask for"
    options["host"] = bind_host
    reasons["host"] = ("loopback only (set vllm_service_host to expose it)"
                       if bind_host in ("127.0.0.1", "::1", "localhost") else "set by vllm_service_host")
    options["port"] = int(port)
    reasons["port"] = "vllm_service_port"

    max_pos = model.get("max_position_embeddings")
    max_num_seqs = user_options.get("max_num_seqs")
    if backend == "cpu":
        cpus = int(host.get("cpus") or 1)
        if max_num_seqs is None:
            max_num_seqs = max(1, min(8, cpus * 2))
            options["max_num_seqs"] = max_num_seqs
            reasons["max_num_seqs"] = "%d CPUs: at most %d concurrent sequences" % (cpus, max_num_seqs)
        max_len = int(max_pos) if max_pos else 2048
        per_token = kv_bytes_per_token(model)
        ram = (host.get("memory") or {}).get("total_mib") or 0
        budget = max(CPU_KV_CACHE_FLOOR, ram * MIB - int(weights_bytes or 0) - CPU_RAM_RESERVE) // 2
        if per_token:
            need = per_token * max_len * int(max_num_seqs)
            kv = max(CPU_KV_CACHE_FLOOR, min(need, budget))
            if kv < per_token * max_len:
                max_len = max(256, kv // per_token)
                options["max_model_len"] = int(max_len)
                reasons["max_model_len"] = ("capped at %d tokens: the KV cache the RAM allows "
                                            "holds no more" % max_len)
            reasons["kv_cache_memory_bytes"] = (
                "%d MiB: %d sequences of %d tokens at %d bytes/token, within half of the RAM left "
                "after the weights (%d MiB)" % (kv // MIB, int(max_num_seqs), max_len, per_token,
                                                budget // MIB))
        else:
            kv = max(CPU_KV_CACHE_FLOOR, min(4 * GIB, budget))
            reasons["kv_cache_memory_bytes"] = ("%d MiB: model geometry unknown, a quarter of the "
                                                "RAM budget" % (kv // MIB))
        options["kv_cache_memory_bytes"] = int(kv)
        if "max_model_len" not in options and max_pos:
            options["max_model_len"] = int(max_pos)
            reasons["max_model_len"] = "the model's context length (%d)" % int(max_pos)
    elif max_pos:
        options["max_model_len"] = int(max_pos)
        reasons["max_model_len"] = "the model's context length (%d)" % int(max_pos)

    for key, value in sorted(user_options.items()):
        norm = str(key).lstrip("-").replace("-", "_")
        options[norm] = value
        reasons[norm] = "set in vllm_service_options"
    return options, reasons


def to_cli_yaml(options):
    """Render options as vLLM ``--config`` YAML: long option names with dashes, stable order.

    JSON is a subset of YAML 1.2 that vLLM's loader (PyYAML) reads; each value is emitted as
    JSON so strings, numbers, booleans, lists and dicts (e.g. limit_mm_per_prompt) survive.
    """
    lines = []
    for key in sorted(options):
        value = options[key]
        if value is None:
            continue
        lines.append("%s: %s" % (key.replace("_", "-"), json.dumps(value, sort_keys=True)))
    return "\n".join(lines) + "\n"


def _env_quote(value):
    value = str(value)
    for char in ('\\', '"', "$", "`"):
        value = value.replace(char, "\\" + char)
    return '"%s"' % value


def to_env_file(env):
    """KEY="value" lines, read by systemd's EnvironmentFile= and by vllm_launcher.parse_env_file."""
    return "".join("%s=%s\n" % (key, _env_quote(env[key])) for key in sorted(env))


def kernel_at_least(release, minimum):
    """'5.15.167.4-microsoft-standard-WSL2' >= (4, 19, 121)? Unknown releases count as new."""
    match = re.match(r"^(\d+)\.(\d+)(?:\.(\d+))?", release or "")
    if not match:
        return True
    return tuple(int(x or 0) for x in match.groups()) >= tuple(minimum)


def service_env(backend, host, user_env=None, state_dir=None):
    """The server's environment: offline and quiet, caches in the service's state directory,
    plus the user's variables (which win)."""
    env = dict(BASE_ENV)
    reasons = {key: "offline start, no telemetry" for key in env}
    if state_dir:
        for key, sub in (("VLLM_CACHE_ROOT", "cache/vllm"), ("XDG_CACHE_HOME", "cache"),
                         ("XDG_CONFIG_HOME", "config"), ("TMPDIR", "tmp")):
            env[key] = "%s/%s" % (state_dir.rstrip("/"), sub)
            reasons[key] = "vLLM and torch write here, not under a shared /tmp or a missing home"
    wsl = (host or {}).get("wsl") or {}
    if backend == "cuda" and wsl.get("is_wsl"):
        env["LD_LIBRARY_PATH"] = "/usr/lib/wsl/lib"
        reasons["LD_LIBRARY_PATH"] = "WSL: libcuda.so is the Windows driver's, in /usr/lib/wsl/lib"
        if kernel_at_least(host.get("kernel"), (4, 19, 121)):
            env["VLLM_WSL2_ENABLE_PIN_MEMORY"] = "1"
            reasons["VLLM_WSL2_ENABLE_PIN_MEMORY"] = (
                "WSL disables pinned memory, which vLLM's V2 model runner needs (UVA); the kernel "
                "(>= 4.19.121) allows turning it back on")
        else:
            env["VLLM_USE_V2_MODEL_RUNNER"] = "0"
            reasons["VLLM_USE_V2_MODEL_RUNNER"] = (
                "WSL kernel older than 4.19.121 cannot pin memory: the V1 model runner instead")
    if backend == "cpu":
        env["VLLM_CPU_OMP_THREADS_BIND"] = "auto"
        reasons["VLLM_CPU_OMP_THREADS_BIND"] = "pin OpenMP threads to the CPUs (vLLM's default)"
    for key, value in sorted((user_env or {}).items()):
        env[key] = "" if value is None else str(value)
        reasons[key] = "set in vllm_service_env"
    return env, reasons


def option_lines(options, reasons=None):
    """One readable line per option, with the reason it has its value: '  port: 8000  (why)'."""
    reasons = reasons or {}
    return ["  %s: %s  (%s)" % (key.replace("_", "-"), json.dumps(options[key], sort_keys=True),
                                reasons.get(key, "set"))
            for key in sorted(options)]
