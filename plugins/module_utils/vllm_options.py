# -*- coding: utf-8 -*-
"""The vLLM server's options: computed from host and model facts, merged with the user's.

Every computed option carries a one-line reason the run's summary shows. The result is rendered
once, as vLLM's ``--config`` YAML (keys are the long CLI option names) plus an environment file
that both systemd (``EnvironmentFile=``) and the launcher read. Pure standard library.
"""
from __future__ import absolute_import, division, print_function

import json
import re

from .vllm_common import option_key

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
# CUDA sizing. Estimates, not measurements: every reason quotes the numbers it used, and the
# user's vllm_service_options win over all of them.
GPU_UTIL_MAX = 0.95              # never more: the allocator and the driver need some slack
GPU_UTIL_CAP_NATIVE = 0.92       # a dedicated GPU (vLLM's own default is 0.90)
GPU_UTIL_CAP_WSL = 0.90          # the Windows desktop shares the GPU and grows while vLLM runs
GPU_UTIL_VLLM_DEFAULT = 0.90     # what vLLM takes when --gpu-memory-utilization is not given
GPU_UTIL_FLOOR = 0.10            # below this there is nothing left to serve with: refuse
GPU_UTIL_LOW = 0.50              # below this the reason names what holds the memory
GPU_HEADROOM_MIB = 512           # native: other processes, allocator slack
GPU_HEADROOM_FRACTION = 0.02
WSL_HEADROOM_MIB = 1536          # WSL: room for the desktop (DWM, browsers) to grow
WSL_HEADROOM_FRACTION = 0.06
WSL_DESKTOP_GUESS_MIB = 1024     # WSL GPU that does not report its used memory
RUNTIME_OVERHEAD_MIB = 1024      # CUDA context, cuBLAS/NCCL workspaces, fragmentation
CUDA_GRAPH_MIB = 512             # CUDA graph pools (none in eager mode)
MM_ENCODER_MIB = 1024            # the vision encoder's profiling run on the largest dummy input
SMALL_GPU_MIB = 12 * 1024        # below this: eager mode
BIG_GPU_MIB = 70 * 1024          # vLLM schedules 8192 tokens per step from here (2048 below)
KV_SAFETY = 0.85                 # vLLM's profile may find less room than the estimate
MIN_CONTEXT = 2048               # the shortest context worth serving (or the model's, if shorter)
MAX_NUM_SEQS_CAP = 256           # vLLM's default on most GPUs
SEQ_TOKENS = 1024                # a typical request with its context, to size max_num_seqs
MAX_GPUS_SUGGESTED = 16
# In-memory size of 16-bit weights under on-the-fly quantization (vllm_service_options.quantization).
QUANT_FACTOR = {"fp8": 0.5, "fbgemm_fp8": 0.5, "ptpc_fp8": 0.5, "bitsandbytes": 0.3}

# Families whose vLLM processor takes video (and profiles it at start-up unless the limit is 0).
VIDEO_ARCH = re.compile(r"Qwen2VL|Qwen2_5_VL|Qwen3VL|Omni|Video|LlavaOnevision|Glm4v|Keye")


def _text_config(config):
    """The language model's part of a config: nested (VL models, Omni thinkers) or the top level."""
    thinker = config.get("thinker_config") or {}
    for candidate in (config.get("text_config"), config.get("llm_config"),
                      config.get("language_config"), thinker.get("text_config")):
        if isinstance(candidate, dict) and candidate:
            return candidate
    return config


def _has_video(config, arch):
    """Video input: a video token, a vision tower with temporal patches, or a video-capable family."""
    vision = (config.get("vision_config")
              or (config.get("thinker_config") or {}).get("vision_config") or {})
    return bool(config.get("video_token_id") is not None
                or config.get("video_token_index") is not None
                or (isinstance(vision, dict) and vision.get("temporal_patch_size"))
                or any(VIDEO_ARCH.search(a) for a in arch))


def model_facts(config):
    """The facts vLLM's sizing depends on, from a model's config.json (a dict)."""
    config = config or {}
    text_cfg = _text_config(config)

    def pick(*keys):
        for key in keys:
            for source in (text_cfg, config):
                if source.get(key) is not None:
                    return source.get(key)
        return None

    heads = text_cfg.get("num_attention_heads")
    hidden = text_cfg.get("hidden_size")
    head_dim = text_cfg.get("head_dim") or (hidden // heads if hidden and heads else None)
    kv_heads = text_cfg.get("num_key_value_heads") or heads
    dtype = str(text_cfg.get("torch_dtype") or config.get("torch_dtype") or
                text_cfg.get("dtype") or config.get("dtype") or "auto")
    arch = config.get("architectures") or []
    quant = config.get("quantization_config") or text_cfg.get("quantization_config") or {}
    return {
        "architectures": arch,
        "model_type": config.get("model_type"),
        "num_attention_heads": heads,
        "num_key_value_heads": kv_heads,
        "head_dim": head_dim,
        "hidden_size": hidden,
        "intermediate_size": text_cfg.get("intermediate_size"),
        "vocab_size": pick("vocab_size"),
        "num_hidden_layers": text_cfg.get("num_hidden_layers"),
        "max_position_embeddings": pick("max_position_embeddings", "max_sequence_length",
                                        "seq_length", "n_positions"),
        "dtype": dtype,
        "quantization": (quant.get("quant_method") or "unknown") if quant else None,
        "multimodal": bool(config.get("vision_config") or config.get("audio_config")
                           or any(re.search(r"VL|Vision|Llava|ForConditionalGeneration", a)
                                  for a in arch)),
        "video": _has_video(config, arch),
    }


def kv_bytes_per_token(facts):
    """K and V for every layer: 2 x layers x kv_heads x head_dim x bytes of the KV dtype."""
    try:
        return (2 * int(facts["num_hidden_layers"]) * int(facts["num_key_value_heads"])
                * int(facts["head_dim"]) * DTYPE_BYTES.get(facts.get("dtype"), 2))
    except (KeyError, TypeError, ValueError):
        return None


class OptionsError(Exception):
    """The model cannot be served on this host as asked: ``reason`` with the numbers, ``way_out``
    what the user can change."""

    def __init__(self, reason, way_out=None):
        self.reason = reason
        self.way_out = way_out
        Exception.__init__(self, "%s; %s" % (reason, way_out) if way_out else reason)


def _human_number(value, integer=True):
    """A positive number from a user's option as vLLM reads it ('8k' = 8000, '8K' = 8192, 0.9);
    None for anything else, including -1 and 'auto' (vLLM then decides)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        number = value
    else:
        match = re.match(r"^\s*(\d+(?:\.\d+)?)\s*([kKmMgGtT]?)\s*$", str(value))
        if not match:
            return None
        number = float(match.group(1))
        if match.group(2):
            power = "kmgt".index(match.group(2).lower()) + 1
            number *= (1024 if match.group(2).isupper() else 1000) ** power
    if number <= 0:
        return None
    return int(number) if integer else float(number)


def _gib(n_bytes):
    return "%.1f GiB" % (float(n_bytes) / GIB)


def _tp_candidates(count, heads, kv_heads):
    """GPU counts up to ``count`` that vLLM accepts: they divide the attention heads, and divide
    the KV heads or are a multiple of them (KV heads are then replicated), largest first."""
    for tp in range(int(count), 0, -1):
        if heads and int(heads) % tp:
            continue
        if kv_heads and int(kv_heads) % tp and tp % int(kv_heads):
            continue
        yield tp


def _per_gpu_kv_bytes_per_token(model, tp, kv_cache_dtype=None):
    """KV bytes per token on one GPU: the KV heads split over ``tp`` GPUs (at least one each)."""
    try:
        kv_heads = int(model["num_key_value_heads"])
        per_gpu_heads = max(1, kv_heads // int(tp))
        size = (2 * int(model["num_hidden_layers"]) * per_gpu_heads * int(model["head_dim"])
                * DTYPE_BYTES.get(model.get("dtype"), 2))
    except (KeyError, TypeError, ValueError):
        return None
    if str(kv_cache_dtype or "").startswith("fp8"):
        size //= 2
    return size


def _activation_bytes(model, batched_tokens, seqs):
    """Peak activations of one step (MLP and attention intermediates) plus the sampler's logits."""
    hidden = model.get("hidden_size") or ((model.get("num_attention_heads") or 0)
                                          * (model.get("head_dim") or 0)) or 4096
    inter = model.get("intermediate_size") or 4 * hidden
    vocab = model.get("vocab_size") or 32000
    return (int(batched_tokens) * (2 * int(inter) + 4 * int(hidden)) * 2
            + int(seqs) * int(vocab) * 8)


def _gpu_label(gpu):
    return "GPU %s" % gpu["index"] if gpu.get("index") is not None else "the GPU"


def _utilization(gpus, wsl):
    """(fraction, reason): what vLLM may take of each GPU's total, from the worst GPU's free memory.

    vLLM refuses to start when a GPU's free memory is below utilization x total; under WSL the
    Windows desktop already holds some and grows, so more headroom and a lower cap.
    """
    cap = GPU_UTIL_CAP_WSL if wsl else GPU_UTIL_CAP_NATIVE
    worst = None
    for gpu in gpus:
        total = float(gpu["memory_total_mib"])
        used = gpu.get("memory_used_mib")
        guessed = used is None
        used = float((WSL_DESKTOP_GUESS_MIB if wsl else 0) if guessed else used)
        if wsl:
            headroom = max(WSL_HEADROOM_MIB, WSL_HEADROOM_FRACTION * total)
        else:
            headroom = max(GPU_HEADROOM_MIB, GPU_HEADROOM_FRACTION * total)
        fraction = (total - used - headroom) / total
        if worst is None or fraction < worst[0]:
            worst = (fraction, gpu, total, used, headroom, guessed)
    fraction, gpu, total, used, headroom, guessed = worst
    util = min(cap, GPU_UTIL_MAX, max(0.0, fraction))
    util = int(util * 100 + 1e-9) / 100.0
    label = _gpu_label(gpu)
    if guessed and wsl:
        held = "about %d MiB assumed in use by the Windows desktop (not reported)" % used
    elif guessed:
        held = "used memory not reported"
    else:
        held = "%d MiB already in use%s" % (used, " (the Windows desktop shares it under WSL)"
                                            if wsl else "")
    reason = "%.2f of %s's %d MiB: %s, %d MiB kept free" % (util, label, total, held, headroom)
    if fraction > cap:
        reason += ", at most %.2f %s" % (cap, "under WSL" if wsl else "(vLLM's default is %.2f)" % GPU_UTIL_VLLM_DEFAULT)
    elif util < GPU_UTIL_LOW:
        reason += "; low: other processes hold the GPU (see nvidia-smi), free it for more room"
    return util, reason


def _fits(weights, tp, budget, overhead, kv_bytes):
    return weights / tp + overhead + kv_bytes <= budget


def _capability(gpus):
    """The lowest compute capability of ``gpus`` as a float (None when any is unknown)."""
    try:
        return min(float(str(g.get("compute_capability"))) for g in gpus)
    except (TypeError, ValueError):
        return None


def _way_out(served_name, model, weights, tp_now, budget, overhead, min_tokens, per_tp_kv, count,
             quantized, capability):
    """What would make the model fit: fp8, more GPUs like these, a smaller model, CPU offload."""
    ways = []
    heads, kv_heads = model.get("num_attention_heads"), model.get("num_key_value_heads")
    fp8_ok = capability is None or capability >= 8.0
    if not quantized and DTYPE_BYTES.get(model.get("dtype"), 2) >= 2:
        if fp8_ok and _fits(weights * QUANT_FACTOR["fp8"], tp_now, budget, overhead,
                            per_tp_kv(tp_now) * min_tokens):
            ways.append("quantize on load: vllm_service_options: {quantization: fp8} halves 16-bit "
                        "weights to about %s per GPU (compute capability 8.0 or newer)"
                        % _gib(weights * QUANT_FACTOR["fp8"] / tp_now))
        elif fp8_ok:
            ways.append("a pre-quantized (AWQ/GPTQ, 4-bit) checkpoint of %s, or "
                        "vllm_service_options: {quantization: fp8} with more GPUs" % served_name)
        else:
            ways.append("a pre-quantized (AWQ/GPTQ, 4-bit) checkpoint of %s (fp8 needs compute "
                        "capability 8.0, these GPUs have %.1f)" % (served_name, capability))
    for tp in sorted(_tp_candidates(MAX_GPUS_SUGGESTED, heads, kv_heads)):
        if tp > tp_now and _fits(weights, tp, budget, overhead, per_tp_kv(tp) * min_tokens):
            ways.append("%d GPUs like this one (tensor_parallel_size %d%s)"
                        % (tp, tp, "" if tp <= count else "; the host has %d" % count))
            break
    ways.append("a smaller model")
    ways.append("as a slow last resort, cpu_offload_gb in vllm_service_options")
    return "ways out: " + "; or ".join(ways)


def _cuda_options(host, model, given, served_name, weights_bytes):
    """Options for a CUDA host; raises OptionsError when the weights cannot fit."""
    options, reasons = {}, {}
    # the user's quantities that steer the sizing (absent: unparsable, 'auto' or -1)
    given = dict(given)
    for key, integer in (("tensor_parallel_size", True), ("gpu_memory_utilization", False),
                         ("cpu_offload_gb", False), ("max_num_batched_tokens", True),
                         ("max_num_seqs", True), ("max_model_len", True),
                         ("kv_cache_memory_bytes", True)):
        if key in given:
            number = _human_number(given.pop(key), integer)
            if number is not None:
                given[key] = number
    gpus = [g for g in ((host.get("gpu") or {}).get("gpus") or []) if isinstance(g, dict)]
    wsl = bool((host.get("wsl") or {}).get("is_wsl"))
    ctx = int(model["max_position_embeddings"]) if model.get("max_position_embeddings") else None
    heads, kv_heads = model.get("num_attention_heads"), model.get("num_key_value_heads")

    # -- tensor_parallel_size
    if "tensor_parallel_size" in given:
        tp = int(given["tensor_parallel_size"])
        if gpus and tp > len(gpus):
            raise OptionsError("tensor_parallel_size %d in vllm_service_options, but the host shows "
                               "%d GPU(s)" % (tp, len(gpus)), "set it to at most %d" % len(gpus))
    elif len(gpus) > 1 and not heads:
        tp = 1
        options["tensor_parallel_size"] = 1
        reasons["tensor_parallel_size"] = ("one of %d GPUs: the model's head count is unknown"
                                           % len(gpus))
    else:
        tp = next(_tp_candidates(max(1, len(gpus)), heads, kv_heads))
        options["tensor_parallel_size"] = tp
        if len(gpus) <= 1:
            reasons["tensor_parallel_size"] = "one GPU"
        elif tp == len(gpus):
            reasons["tensor_parallel_size"] = ("all %d GPUs: they divide the model's %d attention "
                                               "heads (%d KV heads)" % (tp, heads, kv_heads or heads))
        else:
            reasons["tensor_parallel_size"] = ("%d of %d GPUs: the largest count that divides the "
                                               "model's %d attention heads (%d KV heads)"
                                               % (tp, len(gpus), heads, kv_heads or heads))
    used = gpus[:tp]
    sized = bool(used) and all(g.get("memory_total_mib") for g in used)
    total_mib = min(float(g["memory_total_mib"]) for g in used) if sized else None

    # -- enforce_eager
    eager = given.get("enforce_eager")
    if eager is None and sized and total_mib < SMALL_GPU_MIB:
        eager = True
        options["enforce_eager"] = True
        reasons["enforce_eager"] = ("%d MiB GPU (under %d GiB): no CUDA graphs, which would take "
                                    "about %d MiB and a slower start"
                                    % (total_mib, SMALL_GPU_MIB // 1024, CUDA_GRAPH_MIB))
    elif eager is None and wsl:
        eager = True
        options["enforce_eager"] = True
        reasons["enforce_eager"] = ("WSL: no CUDA graph capture, a faster start and about %d MiB more "
                                    "for a GPU the Windows desktop shares" % CUDA_GRAPH_MIB)

    def context_only(why):
        if ctx and "max_model_len" not in given:
            options["max_model_len"] = ctx
            reasons["max_model_len"] = "the model's context length (%d); %s" % (ctx, why)
        return options, reasons

    if not sized:
        return context_only("GPU memory not reported, vLLM sizes the KV cache at start")

    # -- gpu_memory_utilization
    if "gpu_memory_utilization" in given:
        util = float(given["gpu_memory_utilization"])
    else:
        util, why = _utilization(used, wsl)
        if util < GPU_UTIL_FLOOR:
            raise OptionsError(
                "GPU memory is nearly full: %s leaves only %.2f for vLLM"
                % (why.split(": ", 1)[1], util),
                "stop what holds the GPU (nvidia-smi lists it), or set gpu_memory_utilization in "
                "vllm_service_options if you know better")
        options["gpu_memory_utilization"] = util
        reasons["gpu_memory_utilization"] = why

    if not weights_bytes:
        return context_only("the weights' size is unknown, vLLM checks the KV cache at start")

    # -- what the weights, the runtime and the KV cache need per GPU
    quant = given.get("quantization")
    quantized = bool(model.get("quantization") or quant)
    factor = 1.0
    if quant and not model.get("quantization") and DTYPE_BYTES.get(model.get("dtype"), 2) >= 2:
        factor = QUANT_FACTOR.get(str(quant).lower(), 1.0)
    offload = float(given.get("cpu_offload_gb") or 0) * GIB
    weights = weights_bytes * factor
    weights_gpu = max(0.0, weights / tp - offload)
    budget = util * total_mib * MIB
    batched = int(given.get("max_num_batched_tokens")
                  or (8192 if total_mib >= BIG_GPU_MIB else 2048))
    seqs_for_overhead = int(given.get("max_num_seqs") or MAX_NUM_SEQS_CAP)
    overhead = (RUNTIME_OVERHEAD_MIB * MIB + (0 if eager else CUDA_GRAPH_MIB * MIB)
                + (MM_ENCODER_MIB * MIB if model.get("multimodal") else 0)
                + _activation_bytes(model, batched, seqs_for_overhead))
    kv_dtype = given.get("kv_cache_dtype")

    def per_tp_kv(n):
        return _per_gpu_kv_bytes_per_token(model, n, kv_dtype) or 0

    per_token = per_tp_kv(tp)
    min_tokens = int(given.get("max_model_len") or min(MIN_CONTEXT, ctx or MIN_CONTEXT))
    user_kv = given.get("kv_cache_memory_bytes")
    label = _gpu_label(used[0])
    name = used[0].get("name") or "GPU"
    if user_kv:
        kv_room = float(user_kv)
    else:
        kv_room = budget - weights_gpu - overhead

    # -- refusals: only where the user has not taken the sizing into their own hands
    in_use = max(float(g.get("memory_used_mib") or 0) for g in used)
    held = ", %d MiB of it already in use" % in_use if in_use > 0.05 * total_mib else ""
    where = "%s (%s, %d MiB%s)" % (label, name, total_mib, held)
    if not quant and not offload and not user_kv:
        need_kv = per_token * min_tokens
        too_big = weights_gpu + RUNTIME_OVERHEAD_MIB * MIB > budget
        no_room = kv_room < need_kv and "gpu_memory_utilization" not in given
        if too_big or no_room:
            way = _way_out(served_name, model, weights, tp, budget, overhead, min_tokens, per_tp_kv,
                           len(gpus), quantized, _capability(used))
            if too_big:
                raise OptionsError(
                    "%s does not fit: its weights (%s, %s per GPU with tensor_parallel_size %d) are "
                    "more than vLLM may use of %s: %.2f x %d MiB = %s, less about %d MiB for the "
                    "CUDA runtime"
                    % (served_name, _gib(weights), _gib(weights_gpu), tp, where, util, total_mib,
                       _gib(budget), RUNTIME_OVERHEAD_MIB), way)
            raise OptionsError(
                "%s does not fit: on %s vLLM may use %s; the weights take %s per GPU and the runtime "
                "about %s, leaving %s for the KV cache, which needs %s for one %d-token sequence"
                % (served_name, where, _gib(budget), _gib(weights_gpu), _gib(overhead),
                   _gib(max(0, kv_room)), _gib(need_kv), min_tokens),
                way + "; or, if this estimate is too cautious, set gpu_memory_utilization or "
                "kv_cache_memory_bytes in vllm_service_options (vLLM then checks at start)")

    # -- max_model_len and max_num_seqs from the KV room
    if not per_token or kv_room <= 0:
        return context_only("the KV cache room could not be estimated, vLLM checks it at start")
    usable = kv_room if user_kv else kv_room * KV_SAFETY
    kv_tokens = int(usable) // per_token
    if user_kv:
        room = "kv_cache_memory_bytes %s holds about %d tokens" % (_gib(kv_room), kv_tokens)
    else:
        room = ("vLLM may use %s per GPU: %s of weights, about %s of runtime, about %s of KV cache "
                "(%d%% margin kept) for about %d tokens at %d KiB/token"
                % (_gib(budget), _gib(weights_gpu), _gib(overhead), _gib(usable),
                   round((1 - KV_SAFETY) * 100), kv_tokens, per_token // 1024))
    max_len = given.get("max_model_len")
    if max_len is None and ctx:
        if kv_tokens >= ctx:
            max_len = ctx
            reasons["max_model_len"] = "the model's context length (%d): %s" % (ctx, room)
        else:
            max_len = max(256, kv_tokens - kv_tokens % 256)
            reasons["max_model_len"] = ("capped at %d tokens (the model supports %d): %s"
                                        % (max_len, ctx, room))
        options["max_model_len"] = max_len
    if "max_num_seqs" not in given:
        typical = min(int(max_len or SEQ_TOKENS), SEQ_TOKENS)
        seqs = max(1, min(MAX_NUM_SEQS_CAP, kv_tokens // typical))
        if seqs >= 16:
            seqs -= seqs % 8
        options["max_num_seqs"] = seqs
        reasons["max_num_seqs"] = ("%d: the KV cache holds about %d tokens, %d sequences of %d tokens "
                                   "(at most %d, vLLM's default)" % (seqs, kv_tokens, seqs, typical,
                                                                     MAX_NUM_SEQS_CAP))
    return options, reasons


# The options that steer torch.compile: any of them in vllm_service_options and the user decides
# how the CPU server compiles; cpu_start_options then adds nothing.
COMPILE_OPTIONS = ("optimization_level", "enforce_eager", "compilation_config")
# What the CPU server starts with instead of vLLM's default -O2 (benchmarks/start.py measures it).
# -O0, not enforce_eager: eager mode also skips the kernel warm-up, and the suite's Molecule
# scenarios, which send many requests, took 35-50% longer with it (default 1314 s against 880 s
# with -O0; benchmarks/README.md).
CPU_START_OPTIONS = {"optimization_level": 0}
CPU_START_REASON = (
    "CPU start: -O0, no torch.compile; the default -O2 compiles the model again on every "
    "start (its AOT cache never loads on the CPU: 'function' object has no attribute "
    "'finalize_loading'); set optimization_level, enforce_eager or compilation_config in "
    "vllm_service_options to compile")


def cpu_start_options(given):
    """``(options, reasons)`` the CPU backend adds for a fast start, given the user's options
    (underscore names): nothing when the user set any of :data:`COMPILE_OPTIONS`."""
    if any(key in given for key in COMPILE_OPTIONS):
        return {}, {}
    return dict(CPU_START_OPTIONS), dict((key, CPU_START_REASON) for key in CPU_START_OPTIONS)


def compute_options(backend, host, model, served_name, bind_host, port, user_options=None,
                    weights_bytes=0, tls=None):
    """Return ``(options, reasons)``: vLLM options (underscore names) and why each was chosen.

    ``host`` is the vllm_host fact (``gpu.gpus[]`` with ``memory_total_mib``/``memory_used_mib``/
    ``compute_capability``, ``wsl.is_wsl``, ``memory.total_mib``, ``cpus``), ``model`` the output
    of :func:`model_facts`, ``weights_bytes`` the checkpoint's size on disk (0: unknown). The
    user's options (underscore or dash names) steer the sizing where they set a quantity
    (tensor_parallel_size, gpu_memory_utilization, max_model_len, quantization, ...), are merged
    last and win; their reason says so. Every reason is one line.

    CUDA raises :class:`OptionsError` (numbers and the ways out) when the weights cannot fit the
    GPUs, or leave no KV cache for one short sequence, unless the user took that sizing over.
    ``tls``: ``{"certfile": path, "keyfile": path}`` of the certificate and key the service
    wrote (empty: plain http); the paths only, never the key.
    """
    user_options = dict(user_options or {})
    problems = option_problems("vllm_service_options", user_options)
    if problems:
        raise OptionsError("; ".join(problems))
    given = dict((option_key(k), v) for k, v in user_options.items())
    options = {}
    reasons = {}

    options["served_model_name"] = served_name
    reasons["served_model_name"] = "the name clients ask for"
    options["host"] = bind_host
    reasons["host"] = ("loopback only (set vllm_service_host to expose it)"
                       if bind_host in ("127.0.0.1", "::1", "localhost") else "set by vllm_service_host")
    options["port"] = int(port)
    reasons["port"] = "vllm_service_port"
    if tls:
        options["ssl_certfile"] = tls["certfile"]
        reasons["ssl_certfile"] = "https: vllm_service_tls_cert, written by the service"
        options["ssl_keyfile"] = tls["keyfile"]
        reasons["ssl_keyfile"] = ("https: vllm_service_tls_key, written by the service "
                                  "(root:<service group> 0640)")

    max_pos = model.get("max_position_embeddings")
    max_num_seqs = given.get("max_num_seqs")
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
        start, why = cpu_start_options(given)
        options.update(start)
        reasons.update(why)
    elif backend == "cuda":
        cuda, why = _cuda_options(host or {}, model, given, served_name, int(weights_bytes or 0))
        options.update(cuda)
        reasons.update(why)
    elif max_pos:
        options["max_model_len"] = int(max_pos)
        reasons["max_model_len"] = "the model's context length (%d)" % int(max_pos)

    if model.get("video") and "limit_mm_per_prompt" not in given:
        options["limit_mm_per_prompt"] = {"video": 0}
        reasons["limit_mm_per_prompt"] = (
            "video off: profiling dummy video dominates start-up (about half, vLLM PR #19756); "
            "set limit_mm_per_prompt in vllm_service_options to accept video")

    for key, value in sorted(user_options.items()):
        norm = option_key(key)
        options[norm] = value
        reasons[norm] = "set in vllm_service_options"
    return options, reasons


# --- what the service alone may set, and how vLLM reads its --config file ---------------------
# vLLM's FlexibleArgumentParser.load_config_file turns each key into "--<key>" and each value
# into argv items: True -> the bare flag, False -> "--no-<key>" where that exists, a list -> one
# str(item) argv item per element, a dict -> one JSON argument, anything else -> str(value).
# argparse then normalises "_" to "-" in the name, splits "--name=value", treats "." as a nested
# JSON key and accepts any unique prefix of an option (allow_abbrev). So a key other than a plain
# option name, or an argv item that starts with "-", can set any option, the reserved ones too.
RESERVED_OPTIONS = {
    "model": "vllm_model_source",
    "served-model-name": "vllm_service_served_name",
    "host": "vllm_service_host",
    "port": "vllm_service_port",
    "uds": "vllm_service_host and vllm_service_port (the service binds a TCP port)",
    "api-key": "vllm_service_api_key (kept out of the options file)",
    "config": "(the service passes its own --config file)",
    "ssl-certfile": "vllm_service_tls_cert (the service writes it to its own file)",
    "ssl-keyfile": "vllm_service_tls_key (the service writes it to its own file)",
}
# A long option name as vLLM prints it, or with underscores; an optional leading "--".
_OPTION_NAME = re.compile(r"(?:--)?[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*")
OPTION_NAME_ACCEPTED = ("a vLLM option name of lower case letters and digits separated by single "
                        "- or _ (e.g. max_model_len), optionally with a leading --")
# Options known to take a value that starts with "-" (none yet: add one only with its reason).
DASH_VALUE_OPTIONS = frozenset()


class UnsafeOption(ValueError):
    """An option the options file cannot carry without changing another option."""


def option_cli_name(key):
    """'--max_model_len' / 'max-model-len' -> 'max-model-len', as vLLM's parser normalises it;
    None when ``key`` is not a plain option name (see _OPTION_NAME)."""
    if not isinstance(key, str) or not _OPTION_NAME.fullmatch(key):
        return None
    return key[2:].replace("_", "-") if key.startswith("--") else key.replace("_", "-")


def reserved_option(cli_name):
    """The reserved option ``cli_name`` stands for (itself, or an abbreviation argparse expands
    to it), or None."""
    for name in RESERVED_OPTIONS:
        if name == cli_name or name.startswith(cli_name):
            return name
    return None


def _dash_strings(value, path):
    """(path, string) for every argv-like string in ``value`` that starts with "-"."""
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, str):
        return [(path, value)] if value.startswith("-") else []
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return [(path, value)]  # str() of these is "nan"/"inf"/"-inf", not a number to argparse
    if isinstance(value, dict):
        found = []
        for key in sorted(value, key=str):
            found.extend(_dash_strings(key, "%s key" % path) if isinstance(key, str) else [])
            found.extend(_dash_strings(value[key], "%s.%s" % (path, key)))
        return found
    if isinstance(value, (list, tuple)):
        found = []
        for index, item in enumerate(value):
            found.extend(_dash_strings(item, "%s[%d]" % (path, index)))
        return found
    return []


def option_problems(name, options, reserved_ok=False):
    """Why ``options`` (a mapping of option names to values) cannot go into the options file:
    sentences naming the variable, the key or value (repr) and what is accepted. ``reserved_ok``:
    the service's own mapping, where the reserved options are expected."""
    problems = []
    seen = {}
    for key in sorted(options, key=repr):
        cli = option_cli_name(key)
        if cli is None:
            problems.append("%s has the key %r; accepted: %s" % (name, key, OPTION_NAME_ACCEPTED))
            continue
        if cli in seen:
            problems.append("%s sets %r and %r, the same vLLM option --%s; set it once"
                            % (name, seen[cli], key, cli))
        seen[cli] = key
        reserved = reserved_option(cli)
        if reserved and not (reserved_ok and reserved == cli):
            problems.append("%s sets %r (vLLM reads it as --%s); set %s instead"
                            % (name, key, reserved, RESERVED_OPTIONS[reserved]))
            continue
        if cli in DASH_VALUE_OPTIONS:
            continue
        for path, text in _dash_strings(options[key], "%s.%s" % (name, key)):
            problems.append(
                "%s is %r; vLLM's --config loader would read a value starting with '-' (or a "
                "non-finite number) as another option; accepted: values that do not start with "
                "'-' (a negative number as a number, not a string)" % (path, text))
    return problems


def _yaml_string(text):
    """A YAML double-quoted scalar holding exactly ``text``: printable ASCII as it is (as JSON
    writes it), everything else escaped, so no character can end the scalar or the line."""
    out = ['"']
    for char in text:
        code = ord(char)
        if char == '"' or char == "\\":
            out.append("\\" + char)
        elif 0x20 <= code < 0x7f:
            out.append(char)
        elif code <= 0xffff:
            out.append("\\u%04x" % code)
        else:
            out.append("\\U%08x" % code)
    out.append('"')
    return "".join(out)


def _yaml_value(value):
    """JSON-style flow YAML (what json.dumps(sort_keys=True) writes for ordinary values) that
    PyYAML's safe_load reads back as ``value``; ValueError for what it cannot carry."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise UnsafeOption("%r is not a finite number" % value)
        text = repr(value)
        if "e" in text and "." not in text.split("e")[0]:
            text = text.replace("e", ".0e", 1)  # PyYAML reads 1e-05 as a string, 1.0e-05 as a float
        return text
    if isinstance(value, str):
        return _yaml_string(value)
    if isinstance(value, dict):
        if not all(isinstance(key, str) for key in value):
            raise UnsafeOption("%r has a key that is not a string" % (value,))
        return "{%s}" % ", ".join("%s: %s" % (_yaml_string(key), _yaml_value(value[key]))
                                  for key in sorted(value))
    if isinstance(value, (list, tuple)):
        return "[%s]" % ", ".join(_yaml_value(item) for item in value)
    raise UnsafeOption("%r is not a string, number, boolean, list or mapping" % (value,))


# Plain scalars YAML 1.1 (PyYAML) resolves to booleans or null, not strings (lower case: the only
# spelling _OPTION_NAME lets through).
_YAML_WORDS = frozenset(["yes", "no", "true", "false", "on", "off", "null"])


def to_cli_yaml(options):
    """Render options as vLLM ``--config`` YAML: long option names with dashes, stable order.

    Each value is written as JSON-style flow YAML that PyYAML (vLLM's loader) reads back exactly;
    strings are double-quoted with every character outside printable ASCII escaped, so no value
    can start a line. Raises UnsafeOption for a key that is not a plain option name or a value
    vLLM would read as another option (see option_problems).
    """
    problems = option_problems("the options file", options, reserved_ok=True)
    if problems:
        raise UnsafeOption("; ".join(problems))
    lines = []
    for key in sorted(options, key=lambda k: option_cli_name(k).replace("-", "_")):
        value = options[key]
        if value is None:
            continue
        name = option_cli_name(key)
        if name in _YAML_WORDS:  # PyYAML would read a plain `on:` as the key True
            name = _yaml_string(name)
        lines.append("%s: %s" % (name, _yaml_value(value)))
    return "\n".join(lines) + "\n"


def yaml_comment(text):
    """``text`` for one YAML comment line: every character outside printable ASCII written as
    \\uXXXX, so no line break (\\n, \\r, U+0085, U+2028, U+2029) can end the comment."""
    return _yaml_string(str(text))[1:-1].replace('\\"', '"').replace("\\\\", "\\")


def options_file(options, reasons, model_path, served_name):
    """The whole options file below the managed header: why each option is set (comments), then
    the ``--config`` YAML with ``model`` first in the mapping. Nothing the user wrote reaches a
    comment unescaped."""
    lines = ["# vLLM options for %s; read with --config. Why each is set:" % yaml_comment(served_name)]
    for key in sorted(reasons):
        lines.append("#   %s: %s" % (yaml_comment(key), yaml_comment(reasons[key])))
    merged = {"model": model_path}
    merged.update(options)
    return "\n".join(lines) + "\n" + to_cli_yaml(merged)


# --- environment files ------------------------------------------------------------------------
_ENV_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
ENV_VALUE_ACCEPTED = ("a single-line value without control characters or Unicode line or "
                      "paragraph separators")


_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASS|CREDENTIAL|AUTH", re.I)


def env_value_shown(key, value):
    """``value`` as an error message may show it: repr, or a placeholder for a secret's."""
    return "(hidden: a secret)" if _SECRET_NAME.search(str(key)) else repr(value)


def env_value_problem(value):
    """Why ``value`` cannot be written to an environment file that systemd and the launcher
    read back exactly (None when it can)."""
    for char in value:
        code = ord(char)
        if code < 0x20 or 0x7f <= code < 0xa0 or char in "\u2028\u2029":
            return "holds the control or line-break character %r" % char
        if 0xd800 <= code < 0xe000:
            return "holds the lone surrogate %r (not UTF-8)" % char
    return None


def _env_quote(value):
    value = str(value)
    for char in ('\\', '"', "$", "`"):
        value = value.replace(char, "\\" + char)
    return '"%s"' % value


def to_env_file(env):
    """KEY="value" lines, read by systemd's EnvironmentFile= and by vllm_launcher.parse_env_file.

    Raises ValueError for a key that is not an environment variable name or a value that would
    not read back exactly (line breaks and other control characters)."""
    problems = []
    for key in sorted(env, key=repr):
        if not isinstance(key, str) or not _ENV_KEY.fullmatch(key):
            problems.append("the environment file has the key %r; accepted: letters, digits and _, "
                            "not starting with a digit" % (key,))
            continue
        why = env_value_problem(str(env[key]))
        if why:
            problems.append("the environment variable %s is %s, which %s; accepted: %s"
                            % (key, env_value_shown(key, str(env[key])),
                               why if not _SECRET_NAME.search(key) else "holds a control or "
                               "line-break character", ENV_VALUE_ACCEPTED))
    if problems:
        raise ValueError("; ".join(problems))
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
    if backend == "cuda":
        env["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True"
        reasons["PYTORCH_CUDA_ALLOC_CONF"] = ("expandable segments: less fragmentation, fewer "
                                              "out-of-memory errors near the limit")
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
