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
# The one sizing model (the preflight's too) and its constants
from .vllm_sizing import (CPU_KV_CACHE_FLOOR, GIB, MIB, OptionsError, kv_bytes_per_token, size_cpu,
                          size_cuda)

__metaclass__ = type

# Environment every server gets: no telemetry, no network at start (the model is local).
BASE_ENV = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "VLLM_NO_USAGE_STATS": "1",
    "DO_NOT_TRACK": "1",
}

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


def _cuda_options(host, model, given, served_name, weights_bytes):
    """Options for a CUDA host (vllm_sizing.size_cuda's); raises its OptionsError when the
    weights cannot fit."""
    sizing = size_cuda(host, model, given, weights_bytes, served_name)
    if sizing["refusal"] is not None:
        raise sizing["refusal"]
    return sizing["options"], sizing["reasons"]


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
    of :func:`model_facts`, ``weights_bytes`` the weights the model preflight measured (0:
    unknown). The user's options (underscore or dash names) steer the sizing where they set a quantity
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
        budget = size_cpu(ram * MIB, weights_bytes)["kv_budget_bytes"]
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


def custom_all_reduce_in_use(options):
    """Whether vLLM's custom all-reduce may run with these (computed) options: tensor parallel
    over more than one GPU, not turned off with disable_custom_all_reduce."""
    options = dict((option_key(k), v) for k, v in (options or {}).items())
    tp = options.get("tensor_parallel_size") or 1
    off = options.get("disable_custom_all_reduce", False)
    return int(str(tp)) > 1 and str(off).lower() not in ("true", "1", "yes")


# vLLM's custom all-reduce shares its CUDA-graph buffers between the ranks with cudaIpcGetMemHandle,
# which refuses memory from torch's expandable segments (CUDA VMM ranges): a server with
# tensor_parallel_size > 1 dies right after graph capture with only "Cuda error
# .../custom_all_reduce.cuh:NNN 'invalid argument'" (vLLM #42609, #49101, #56180; later releases
# turn custom all-reduce off themselves when they see expandable segments, PR #55135/#56193)
EXPANDABLE_SEGMENTS_WITH_TP = (
    "not set: tensor_parallel_size %d uses vLLM's custom all-reduce, which shares CUDA-graph buffers "
    "over CUDA IPC that expandable segments' memory cannot give (the server dies after graph "
    "capture, vLLM #42609); set disable_custom_all_reduce: true to have both")


def service_env(backend, host, user_env=None, state_dir=None, options=None):
    """The server's environment: offline and quiet, caches in the service's state directory,
    plus the user's variables (which win). ``options``: the server's computed options (on CUDA,
    expandable segments only where vLLM's custom all-reduce is not in use)."""
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
    if backend == "cuda" and not custom_all_reduce_in_use(options):
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
