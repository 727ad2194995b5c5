# -*- coding: utf-8 -*-
"""One sizing model for a model on a host: the GPUs it uses, how much of their memory vLLM may
take and why, what the weights, the runtime and the KV cache need, the longest context that fits,
and whether it fits at all (with the numbers).

Both the model preflight (vllm_model_check.check_fit) and the service's options
(vllm_options.compute_options) ask :func:`size_cuda` (GPUs) or :func:`size_cpu` (RAM), so they
cannot disagree. Estimates, not measurements: every reason quotes the numbers it used, and the
user's vllm_service_options win over all of them. Pure standard library.
"""
from __future__ import absolute_import, division, print_function

import re

__metaclass__ = type

MIB = 1024 * 1024
GIB = 1024 * MIB
DTYPE_BYTES = {"float32": 4, "float": 4, "float16": 2, "half": 2, "bfloat16": 2, "auto": 2}
CPU_KV_CACHE_FLOOR = 64 * MIB
CPU_RAM_RESERVE = 2 * GIB
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



# The user's quantities that steer the sizing, and whether each is a whole number.
SIZING_QUANTITIES = (("tensor_parallel_size", True), ("gpu_memory_utilization", False),
                     ("cpu_offload_gb", False), ("max_num_batched_tokens", True),
                     ("max_num_seqs", True), ("max_model_len", True),
                     ("kv_cache_memory_bytes", True))


def sizing_options(given):
    """The user's options (underscore names) with the quantities that steer the sizing read as
    vLLM reads them; one that is unparsable, 'auto' or -1 is left out (vLLM then decides)."""
    given = dict(given or {})
    for key, integer in SIZING_QUANTITIES:
        if key in given:
            number = _human_number(given.pop(key), integer)
            if number is not None:
                given[key] = number
    return given


def _choose_tp(gpus, model, given, options, reasons):
    """The tensor parallel size: the user's, else the most GPUs that divide the heads; raises
    OptionsError when the user asks for more GPUs than the host shows."""
    heads, kv_heads = model.get("num_attention_heads"), model.get("num_key_value_heads")
    if "tensor_parallel_size" in given:
        tp = int(given["tensor_parallel_size"])
        if gpus and tp > len(gpus):
            raise OptionsError("tensor_parallel_size %d in vllm_service_options, but the host shows "
                               "%d GPU(s)" % (tp, len(gpus)), "set it to at most %d" % len(gpus))
        return tp
    if len(gpus) > 1 and not heads:
        options["tensor_parallel_size"] = 1
        reasons["tensor_parallel_size"] = ("one of %d GPUs: the model's head count is unknown"
                                           % len(gpus))
        return 1
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
    return tp


def _choose_eager(given, total_mib, wsl, options, reasons):
    """Eager mode (no CUDA graphs) on a small GPU or under WSL, unless the user decided."""
    eager = given.get("enforce_eager")
    if eager is None and total_mib is not None and total_mib < SMALL_GPU_MIB:
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
    return eager


def _new_sizing(gpus, wsl):
    return {"options": {}, "reasons": {}, "refusal": None, "fits": None, "sized": False,
            "wsl": wsl, "gpu_count": len(gpus), "gpus": None, "gpus_used": [],
            "gpu_total_mib": None, "utilization": None, "utilization_reason": None,
            "utilization_given": False, "usable_bytes_per_gpu": None, "usable_bytes": None,
            "weights_bytes": None, "weights_gpu_bytes": None, "overhead_bytes": None,
            "kv_bytes_per_token": None, "min_tokens": None, "kv_room_bytes": None,
            "kv_usable_bytes": None, "kv_tokens": None, "max_model_len": None}


def size_cuda(host, model, given, weights_bytes, served_name="the model"):
    """The sizing of ``model`` (:func:`vllm_options.model_facts`) on a CUDA ``host`` (the vllm_host
    fact: ``gpu.gpus[]`` with ``memory_total_mib``/``memory_used_mib``/``compute_capability``,
    ``wsl.is_wsl``), ``weights_bytes`` the measured weights (0: unknown), ``given`` the user's
    vllm_service_options (underscore names).

    Returns a dict: ``options`` and ``reasons`` (what the service sets and why), ``gpus`` (the
    tensor parallel size) and ``gpus_used``, ``utilization`` with ``utilization_reason``,
    ``usable_bytes_per_gpu`` (utilization x the smallest used GPU's total) and ``usable_bytes``
    (that x ``gpus``), ``weights_gpu_bytes``, ``overhead_bytes``, ``kv_room_bytes`` and
    ``kv_tokens`` (per GPU), ``max_model_len`` (the cap), ``sized`` (GPU memory known),
    ``fits`` (True, False, or None when unknown) and ``refusal``: the :class:`OptionsError`
    (reason with the numbers, way out) when the model cannot be served as asked, else None.
    """
    given = sizing_options(given)
    gpus = [g for g in (((host or {}).get("gpu") or {}).get("gpus") or []) if isinstance(g, dict)]
    wsl = bool(((host or {}).get("wsl") or {}).get("is_wsl"))
    sizing = _new_sizing(gpus, wsl)
    try:
        _size_cuda(sizing, gpus, wsl, model, given, int(weights_bytes or 0), served_name)
    except OptionsError as err:
        sizing["refusal"] = err
        sizing["fits"] = False
    return sizing


def _size_cuda(sizing, gpus, wsl, model, given, weights_bytes, served_name):
    """:func:`size_cuda`'s arithmetic, filling ``sizing``; raises OptionsError for a refusal."""
    options, reasons = sizing["options"], sizing["reasons"]
    ctx = int(model["max_position_embeddings"]) if model.get("max_position_embeddings") else None

    def context_only(why):
        if ctx and "max_model_len" not in given:
            options["max_model_len"] = ctx
            reasons["max_model_len"] = "the model's context length (%d); %s" % (ctx, why)
        sizing["max_model_len"] = given.get("max_model_len") or ctx

    tp = _choose_tp(gpus, model, given, options, reasons)
    used = gpus[:tp]
    sized = bool(used) and all(g.get("memory_total_mib") for g in used)
    total_mib = min(float(g["memory_total_mib"]) for g in used) if sized else None
    sizing.update(gpus=tp, gpus_used=used, sized=sized, gpu_total_mib=total_mib)
    eager = _choose_eager(given, total_mib, wsl, options, reasons)
    if not sized:
        return context_only("GPU memory not reported, vLLM sizes the KV cache at start")

    # -- gpu_memory_utilization
    if "gpu_memory_utilization" in given:
        util = float(given["gpu_memory_utilization"])
        why = "set in vllm_service_options"
        sizing["utilization_given"] = True
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
    budget = util * total_mib * MIB
    sizing.update(utilization=util, utilization_reason=why, usable_bytes_per_gpu=int(budget),
                  usable_bytes=int(budget) * tp)

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
    sizing.update(weights_bytes=int(weights), weights_gpu_bytes=int(weights_gpu),
                  overhead_bytes=int(overhead), kv_bytes_per_token=per_token or None,
                  min_tokens=min_tokens, kv_room_bytes=int(kv_room), fits=True)

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
        sizing.update(kv_usable_bytes=0, kv_tokens=0 if per_token else None)
        return context_only("the KV cache room could not be estimated, vLLM checks it at start")
    usable = kv_room if user_kv else kv_room * KV_SAFETY
    kv_tokens = int(usable) // per_token
    sizing.update(kv_usable_bytes=int(usable), kv_tokens=kv_tokens)
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
    sizing["max_model_len"] = max_len
    if "max_num_seqs" not in given:
        typical = min(int(max_len or SEQ_TOKENS), SEQ_TOKENS)
        seqs = max(1, min(MAX_NUM_SEQS_CAP, kv_tokens // typical))
        if seqs >= 16:
            seqs -= seqs % 8
        options["max_num_seqs"] = seqs
        reasons["max_num_seqs"] = ("%d: the KV cache holds about %d tokens, %d sequences of %d tokens "
                                   "(at most %d, vLLM's default)" % (seqs, kv_tokens, seqs, typical,
                                                                     MAX_NUM_SEQS_CAP))


def size_cpu(ram_bytes, weights_bytes):
    """The CPU backend's RAM sizing: ``room_bytes`` (the RAM left after the weights and
    CPU_RAM_RESERVE for the OS and vLLM's runtime), ``kv_budget_bytes`` (half of that room, at
    least CPU_KV_CACHE_FLOOR) and ``fits`` (the room holds at least CPU_KV_CACHE_FLOOR)."""
    room = int(ram_bytes) - int(weights_bytes or 0) - CPU_RAM_RESERVE
    return {"ram_bytes": int(ram_bytes), "room_bytes": room,
            "kv_budget_bytes": max(CPU_KV_CACHE_FLOOR, room) // 2,
            "fits": room >= CPU_KV_CACHE_FLOOR}
