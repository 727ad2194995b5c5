# -*- coding: utf-8 -*-
"""The model preflight: is a model folder complete, readable by the installed vLLM, and can it fit?

Run after every download or change of the model and before the service renders or restarts
anything, so a bad model never reaches the server. Every problem is one line that says what is
wrong, with the numbers, and what to do. Pure standard library (safetensors headers are read by
hand: an 8-byte little-endian header length, then that many bytes of JSON).

What it checks:
- ``config.json`` present and parseable; the architectures known to the installed vLLM (the list
  comes from the venv's own ``ModelRegistry``), or custom code that needs ``trust_remote_code``;
- the tokenizer files the folder and its ``tokenizer_config.json`` imply;
- every shard named in ``model.safetensors.index.json`` present; every safetensors header parses,
  every tensor's byte range matches its dtype and shape and fits inside its file (a truncated
  download fails here);
- the weights against GPU memory (CUDA) or RAM (CPU): refused when they cannot fit at all, a
  warning when only a small KV cache would remain.
"""
from __future__ import absolute_import, division, print_function

import difflib
import json
import os
import struct

from .vllm_common import option_key
from .vllm_options import model_facts
from .vllm_sizing import (CPU_KV_CACHE_FLOOR, CPU_RAM_RESERVE, GIB, MIB, QUANT_FACTOR,
                          kv_bytes_per_token, sizing_options, size_cpu, size_cuda)

__metaclass__ = type

# Bits per element of every safetensors dtype (safetensors 0.8 / its spec).
DTYPE_BITS = {
    "BOOL": 8, "U8": 8, "I8": 8, "F8_E5M2": 8, "F8_E4M3": 8, "F8_E8M0": 8,
    "I16": 16, "U16": 16, "F16": 16, "BF16": 16,
    "I32": 32, "U32": 32, "F32": 32, "I64": 64, "U64": 64, "F64": 64,
    "F4": 4, "F6_E2M3": 6, "F6_E3M2": 6, "C64": 64,
}
# A header larger than this is not a safetensors header (the library itself caps it at 100 MB).
MAX_HEADER_BYTES = 100 * 1000 * 1000
INDEX_FILE = "model.safetensors.index.json"
BIN_INDEX_FILE = "pytorch_model.bin.index.json"
# Context to judge a "small" KV cache by when the model's own is longer.
KV_WARN_TOKENS = 4096
MAX_LISTED = 5


class ModelFileError(Exception):
    """A weights file that cannot be read as what it claims to be."""


def _gib(n_bytes):
    return "%.2f GiB" % (float(n_bytes) / GIB)


def _size(n_bytes):
    n_bytes = int(n_bytes)
    if n_bytes >= GIB:
        return _gib(n_bytes)
    if n_bytes >= MIB:
        return "%.1f MiB" % (float(n_bytes) / MIB)
    return "%d bytes" % n_bytes


def _listed(names):
    names = sorted(names)
    shown = ", ".join(names[:MAX_LISTED])
    return shown + (" and %d more" % (len(names) - MAX_LISTED) if len(names) > MAX_LISTED else "")


def read_safetensors_header(path):
    """Parse a safetensors file's header and check every tensor against the file.

    Returns ``{"tensors": {name: {"dtype", "shape", "data_offsets"}}, "metadata": {...},
    "header_bytes": N, "file_bytes": N, "data_bytes": N}``; raises :class:`ModelFileError` with
    the numbers when the file is shorter than its header says, the header is not JSON, a tensor's
    byte range does not match its dtype and shape, or a range ends beyond the end of the file.
    """
    file_bytes = os.path.getsize(path)
    name = os.path.basename(path)
    if file_bytes < 8:
        raise ModelFileError("%s is %d bytes, too short for a safetensors header (8 bytes of length "
                             "first)" % (name, file_bytes))
    with open(path, "rb") as handle:
        (header_len,) = struct.unpack("<Q", handle.read(8))
        if header_len > MAX_HEADER_BYTES or 8 + header_len > file_bytes:
            raise ModelFileError("%s: its header claims %d bytes but the file is %d bytes: truncated "
                                 "or not a safetensors file" % (name, header_len, file_bytes))
        raw = handle.read(header_len)
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as err:
        raise ModelFileError("%s: the header is not valid JSON (%s): corrupted or not a safetensors "
                             "file" % (name, err))
    if not isinstance(header, dict):
        raise ModelFileError("%s: the header is not a JSON object" % name)
    data_len = file_bytes - 8 - header_len
    tensors = {}
    for key, info in header.items():
        if key == "__metadata__":
            continue
        try:
            dtype = info["dtype"]
            shape = [int(d) for d in info["shape"]]
            begin, end = (int(x) for x in info["data_offsets"])
        except (KeyError, TypeError, ValueError):
            raise ModelFileError("%s: tensor %s has no valid dtype, shape and data_offsets" % (name, key))
        bits = DTYPE_BITS.get(dtype)
        if bits is None:
            raise ModelFileError("%s: tensor %s has the unknown dtype %s" % (name, key, dtype))
        count = 1
        for dim in shape:
            count *= dim
        expected = (count * bits + 7) // 8
        if begin < 0 or end < begin or end - begin != expected:
            raise ModelFileError("%s: tensor %s (%s %s) should take %d bytes but its data_offsets "
                                 "[%d, %d] give %d" % (name, key, dtype, shape, expected, begin, end,
                                                       end - begin))
        if end > data_len:
            raise ModelFileError("%s is truncated: tensor %s ends at byte %d of the data but the file "
                                 "holds %d bytes of data (%d bytes in all, %d missing)"
                                 % (name, key, end, data_len, file_bytes,
                                    end - data_len))
        tensors[key] = {"dtype": dtype, "shape": shape, "data_offsets": [begin, end]}
    data_bytes = max([t["data_offsets"][1] for t in tensors.values()] or [0])
    return {"tensors": tensors, "metadata": header.get("__metadata__") or {},
            "header_bytes": header_len, "file_bytes": file_bytes, "data_bytes": data_bytes}


def _load_json(path):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def check_config(path):
    """``(config, problems)``: the parsed config.json of a model folder, or why there is none."""
    config_path = os.path.join(path, "config.json")
    if not os.path.isfile(config_path):
        return None, ["%s has no config.json: this is not a complete Hugging Face model folder; copy "
                      "config.json from the model's repository (or download the model again)" % path]
    try:
        config = _load_json(config_path)
    except (OSError, UnicodeDecodeError, ValueError) as err:
        return None, ["%s cannot be parsed (%s): the file is damaged; download the model again"
                      % (config_path, err)]
    if not isinstance(config, dict):
        return None, ["%s holds no JSON object: the file is damaged; download the model again"
                      % config_path]
    return config, []


def check_architecture(config, supported, trust_remote_code=False, model_impl=None, vllm_label="vLLM",
                       transformers_archs=None):
    """``(errors, warnings)`` for the config's architectures against the installed vLLM's list.

    ``supported`` is the list the venv's ``ModelRegistry.get_supported_archs()`` printed, or None
    when it is not known yet (check mode on a new host): then only the shape of the config counts.
    ``transformers_archs``: the model classes the venv's transformers has; vLLM serves those it
    lacks itself through its Transformers backend, so they are a warning, not a refusal.
    """
    errors, warnings = [], []
    archs = config.get("architectures")
    auto_map = config.get("auto_map") or {}
    if not archs or not isinstance(archs, list):
        errors.append("config.json names no architectures: vLLM cannot tell which model class to load; "
                      "use the config.json from the model's repository")
        return errors, warnings
    if model_impl == "transformers":
        warnings.append("architecture %s served through vLLM's Transformers backend "
                        "(vllm_service_options.model_impl: transformers)" % ", ".join(archs))
        return errors, warnings
    unknown = [a for a in archs if supported is not None and a not in supported]
    if auto_map and (unknown or supported is None):
        if not trust_remote_code:
            errors.append("%s is custom code shipped with the model (config.json auto_map), which vLLM "
                          "only runs with trust_remote_code: set vllm_service_options: "
                          "{trust_remote_code: true} if you trust this model's code"
                          % ", ".join(archs))
        else:
            warnings.append("%s runs the model's own code (trust_remote_code is on)" % ", ".join(archs))
        return errors, warnings
    for arch in unknown:
        if arch in (transformers_archs or ()):
            warnings.append("architecture %s has no implementation of its own in the installed %s: it will be "
                            "served through vLLM's Transformers backend (transformers has the class), usually "
                            "slower; a newer vLLM (vllm_install_version) may have it natively"
                            % (arch, vllm_label))
            continue
        close = difflib.get_close_matches(arch, supported, n=3, cutoff=0.75)
        errors.append("architecture %s is not supported by the installed %s (%d architectures known)%s; "
                      "use a model with a supported architecture, a newer vLLM (vllm_install_version), "
                      "or vllm_service_options: {model_impl: transformers} to try the Transformers "
                      "backend" % (arch, vllm_label, len(supported),
                                   (": close to " + ", ".join(close)) if close else ""))
    return errors, warnings


def check_tokenizer(path, files, config, tokenizer_option=None):
    """Errors for tokenizer files the folder implies but lacks. ``files``: names in the folder."""
    if tokenizer_option:
        return []  # a separate tokenizer (vllm_service_options.tokenizer) is vLLM's to load
    have = set(files)
    tok_config = {}
    if "tokenizer_config.json" in have:
        try:
            tok_config = _load_json(os.path.join(path, "tokenizer_config.json"))
        except (OSError, UnicodeDecodeError, ValueError) as err:
            return ["%s/tokenizer_config.json cannot be parsed (%s): download the model again"
                    % (path, err)]
        if not isinstance(tok_config, dict):
            tok_config = {}
    if (tok_config.get("auto_map") or {}) and not have & {"tokenizer.json", "tokenizer.model"}:
        return []  # a custom tokenizer class (trust_remote_code) that may keep its files anywhere
    tok_class = str(tok_config.get("tokenizer_class") or "")
    tiktoken = any(f.endswith(".tiktoken") for f in have) or "tiktoken.model" in have
    sets = {
        "tokenizer.json": "tokenizer.json" in have,
        "tokenizer.model (SentencePiece)": "tokenizer.model" in have,
        "vocab.json + merges.txt (BPE)": {"vocab.json", "merges.txt"} <= have,
        "vocab.txt (WordPiece)": "vocab.txt" in have,
        "tekken.json (Mistral)": "tekken.json" in have,
        "*.tiktoken": tiktoken,
    }
    if not any(sets.values()):
        hint = ""
        if "vocab.json" in have:
            hint = " (vocab.json is there but merges.txt is missing)"
        elif "merges.txt" in have:
            hint = " (merges.txt is there but vocab.json is missing)"
        return ["%s has no tokenizer%s: expected one of %s%s; copy the tokenizer files from the model's "
                "repository, or set vllm_service_options: {tokenizer: <path or Hub id>}"
                % (path, hint, ", ".join(sorted(sets)),
                   (" for %s (tokenizer_config.json)" % tok_class) if tok_class else "")]
    slow_sentencepiece = tok_class and not tok_class.endswith("Fast") and any(
        tok_class.startswith(p) for p in ("Llama", "T5", "Gemma", "Mistral", "XLNet", "Albert",
                                          "Camembert", "XLMRoberta", "Baichuan", "InternLM"))
    if slow_sentencepiece and not have & {"tokenizer.model", "tokenizer.json"}:
        return ["%s: tokenizer_config.json names %s, which reads tokenizer.model (SentencePiece), and the "
                "folder has neither tokenizer.model nor tokenizer.json; copy them from the model's "
                "repository" % (path, tok_class)]
    return []


def check_weights(path, files):
    """``(errors, warnings, facts)`` for the weights in a model folder.

    ``facts``: ``format`` (safetensors, pytorch, gguf, none), ``files`` (the weight files),
    ``weights_bytes`` (tensor bytes for safetensors, else file sizes) and ``tensors``.
    """
    errors, warnings = [], []
    have = set(files)
    facts = {"format": "none", "files": [], "weights_bytes": 0, "tensors": 0}
    index_path = os.path.join(path, INDEX_FILE)
    expected = None  # {shard: [tensor names]} from the index
    if INDEX_FILE in have:
        try:
            index = _load_json(index_path)
            weight_map = index["weight_map"]
            if not isinstance(weight_map, dict):
                raise TypeError("weight_map is not an object")
        except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as err:
            errors.append("%s cannot be read (%s): download the model again" % (index_path, err))
            return errors, warnings, facts
        expected = {}
        for tensor, shard in weight_map.items():
            expected.setdefault(shard, []).append(tensor)
        shards = sorted(expected)
        missing = [s for s in shards if not os.path.isfile(os.path.join(path, s))]
        if missing:
            errors.append("%d of the %d shards named in %s are missing: %s; download the model again "
                          "(or copy the missing files)" % (len(missing), len(shards), INDEX_FILE,
                                                           _listed(missing)))
        candidates = [s for s in shards if s not in missing]
    else:
        candidates = sorted(f for f in have if f.endswith(".safetensors"))
    if candidates or expected is not None:
        facts["format"] = "safetensors"
        for name in candidates:
            try:
                header = read_safetensors_header(os.path.join(path, name))
            except ModelFileError as err:
                errors.append("%s; download the model again" % err)
                continue
            except OSError as err:
                errors.append("%s cannot be read (%s)" % (os.path.join(path, name), err))
                continue
            facts["files"].append(name)
            facts["weights_bytes"] += header["data_bytes"]
            facts["tensors"] += len(header["tensors"])
            if expected is not None:
                absent = [t for t in expected.get(name, []) if t not in header["tensors"]]
                if absent:
                    errors.append("%s lacks %d tensors that %s places there (%s): the shard does not "
                                  "belong to this index; download the model again"
                                  % (name, len(absent), INDEX_FILE, _listed(absent)))
        return errors, warnings, facts
    bins = sorted(f for f in have if f.endswith(".bin") and f.startswith("pytorch_model")) \
        or sorted(f for f in have if f.endswith((".pt", ".pth")))
    if BIN_INDEX_FILE in have:
        try:
            bin_map = _load_json(os.path.join(path, BIN_INDEX_FILE))["weight_map"]
            wanted = sorted(set(bin_map.values()))
        except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError) as err:
            errors.append("%s/%s cannot be read (%s): download the model again" % (path, BIN_INDEX_FILE, err))
            return errors, warnings, facts
        missing = [s for s in wanted if s not in have]
        if missing:
            errors.append("%d of the %d shards named in %s are missing: %s; download the model again"
                          % (len(missing), len(wanted), BIN_INDEX_FILE, _listed(missing)))
        bins = [s for s in wanted if s in have]
    if bins:
        facts["format"] = "pytorch"
        warnings.append("weights are PyTorch pickles (%s): their contents cannot be checked before loading; "
                        "prefer the model's safetensors files" % _listed(bins))
    else:
        ggufs = sorted(f for f in have if f.endswith(".gguf"))
        if ggufs:
            facts["format"] = "gguf"
            bins = ggufs
            warnings.append("GGUF weights (%s) are not checked; vLLM's GGUF support is experimental"
                            % _listed(ggufs))
    if not bins:
        if not errors:
            errors.append("%s has no weights: no *.safetensors, %s or pytorch_model*.bin; download the "
                          "model again (or copy its weight files)" % (path, INDEX_FILE))
        return errors, warnings, facts
    for name in bins:
        facts["files"].append(name)
        facts["weights_bytes"] += os.path.getsize(os.path.join(path, name))
    return errors, warnings, facts


def _norm(options):
    """The options with underscored keys ('max-model-len' -> 'max_model_len'; dashes in front stay)."""
    return dict((option_key(k, dashes=False), v) for k, v in (options or {}).items())


def _cuda_fit(weights_bytes, host, facts, options, served_name, numbers):
    """check_fit on a CUDA host: vllm_sizing.size_cuda, the service's own sizing."""
    errors, warnings = [], []
    sizing = size_cuda(host, facts, options, weights_bytes, served_name)
    if sizing["weights_bytes"] is not None:
        numbers["weights_bytes"] = sizing["weights_bytes"]
    numbers.update({"gpus": sizing["gpus"], "utilization": sizing["utilization"],
                    "usable_bytes": sizing["usable_bytes"], "kv_room_bytes": sizing["kv_room_bytes"],
                    "kv_tokens": sizing["kv_tokens"], "max_model_len": sizing["max_model_len"],
                    "fits": sizing["fits"]})
    if sizing["refusal"] is not None:
        errors.append("this model cannot fit as the service would size it: %s" % sizing["refusal"])
        return errors, warnings
    if not sizing["sized"]:
        warnings.append("GPU memory unknown (nvidia-smi reports none): the weights (%s) were not "
                        "compared with it" % _size(numbers["weights_bytes"]))
        return errors, warnings
    per_token, tokens = sizing["kv_bytes_per_token"], sizing["kv_tokens"]
    want_tokens = min(numbers["context"], KV_WARN_TOKENS)
    if per_token and tokens is not None and tokens < want_tokens:
        used = [g["memory_total_mib"] for g in sizing["gpus_used"]]
        label = "%d x %s" % (len(used), _gib(min(used) * MIB)) if len(set(used)) == 1 else \
            " + ".join(_gib(s * MIB) for s in used)
        warnings.append(
            "only %s per GPU would remain for the KV cache after the weights (%s per GPU) and the "
            "runtime on %s GPU at %d%%: about %d tokens at %d bytes/token per GPU, less than one "
            "%d-token sequence; expect a short max_model_len and few concurrent requests (a quantized "
            "variant or more GPUs leave more)"
            % (_size(sizing["kv_usable_bytes"] or 0), _gib(sizing["weights_gpu_bytes"]), label,
               int(round(sizing["utilization"] * 100)), tokens, per_token, want_tokens))
    return errors, warnings


def check_fit(weights_bytes, backend, host, config, options=None, served_name="the model"):
    """``(errors, warnings, numbers)``: can the weights fit the GPUs (CUDA) or the RAM (CPU)?

    CUDA: the service's own sizing (vllm_sizing.size_cuda): refused exactly when the service's
    options would be (the numbers and the ways out), a warning when the KV cache would hold less
    than one sequence of the model's context (at most ``KV_WARN_TOKENS``). CPU: refused when the
    RAM cannot hold the weights and a minimal KV cache (vllm_sizing.size_cpu). ``host`` is the
    vllm_host fact, ``options`` the user's vllm_service_options (quantization, tensor parallelism,
    memory utilisation and a fixed KV cache size change the arithmetic), ``served_name`` the name
    a refusal calls the model by.
    """
    errors, warnings = [], []
    options = sizing_options(_norm(options))
    facts = model_facts(config or {})
    per_token = kv_bytes_per_token(facts)
    context = int(options.get("max_model_len") or facts.get("max_position_embeddings") or 2048)
    want_tokens = min(context, KV_WARN_TOKENS)
    numbers = {"backend": backend, "weights_bytes": int(weights_bytes or 0),
               "kv_bytes_per_token": per_token, "context": context}
    host = host or {}
    if backend == "cuda":
        errors, warnings = _cuda_fit(weights_bytes, host, facts, options, served_name, numbers)
        return errors, warnings, numbers
    if backend == "cpu":
        factor = QUANT_FACTOR.get(str(options.get("quantization") or ""), 1.0)
        weights = int(int(weights_bytes or 0) * factor)
        numbers["weights_bytes"] = weights
        ram = int(((host.get("memory") or {}).get("total_mib") or 0) * MIB)
        if not ram:
            warnings.append("RAM size unknown: the weights (%s) were not compared with it" % _size(weights))
            return errors, warnings, numbers
        fixed_kv = options.get("kv_cache_memory_bytes")
        sizing = size_cpu(ram, weights)
        numbers.update({"ram_bytes": ram, "kv_room_bytes": max(sizing["room_bytes"], 0) // 2})
        if not sizing["fits"]:
            errors.append(
                "the weights need %s but the host has %s of RAM, %s of which the OS and vLLM's runtime need: "
                "this model cannot fit (the CPU backend keeps the weights and the KV cache, at least %d MiB, "
                "in RAM); use a smaller or quantized model, or a host with more memory"
                % (_gib(weights), _gib(ram), _gib(CPU_RAM_RESERVE), CPU_KV_CACHE_FLOOR // MIB))
            return errors, warnings, numbers
        kv = int(fixed_kv) if isinstance(fixed_kv, int) else sizing["room_bytes"] // 2
        if isinstance(fixed_kv, int) and weights + kv + CPU_RAM_RESERVE > ram:
            errors.append(
                "the weights (%s) and the KV cache set in vllm_service_options.kv_cache_memory_bytes (%s) with "
                "%s for the OS exceed the RAM (%s); lower kv_cache_memory_bytes"
                % (_gib(weights), _size(kv), _gib(CPU_RAM_RESERVE), _gib(ram)))
        elif per_token and kv < per_token * want_tokens:
            warnings.append(
                "only %s of RAM would be left for the KV cache after the weights (%s of %s RAM): about %d tokens "
                "at %d bytes/token, less than one %d-token sequence; expect a short max_model_len"
                % (_size(kv), _gib(weights), _gib(ram), kv // per_token, per_token, want_tokens))
        return errors, warnings, numbers
    return errors, warnings, numbers


def folder_bytes(path):
    """The folder's size as ``du -sbL`` counts it: the apparent size of every file below it,
    symbolic links followed (a Hub snapshot links into its blobs), each file and folder once."""
    total, seen_files, seen_dirs = 0, set(), set()
    for root, dirs, files in os.walk(path, followlinks=True):
        real = os.path.realpath(root)
        if real in seen_dirs:
            dirs[:] = []
            continue
        seen_dirs.add(real)
        for name in files:
            try:
                stat = os.stat(os.path.join(root, name))
            except OSError:
                continue  # a dangling link: du -L reports it and counts nothing
            if (stat.st_dev, stat.st_ino) not in seen_files:
                seen_files.add((stat.st_dev, stat.st_ino))
                total += stat.st_size
    return total


def check_model(path, supported_archs=None, backend=None, host=None, options=None, vllm_label="vLLM",
                transformers_archs=None):
    """Run every check on a model folder. Returns ``{"ok", "errors", "warnings", "facts"}``.

    ``supported_archs``: the installed vLLM's architectures (None: unknown, not checked);
    ``backend``/``host``: where it will run (None: the size is not checked); ``options``: the
    user's vllm_service_options (trust_remote_code, tokenizer, model_impl, sizing).
    """
    options = _norm(options)
    errors, warnings = [], []
    facts = {"path": path, "architectures": [], "weights_format": "none", "weight_files": [],
             "weights_bytes": 0, "tensors": 0, "folder_bytes": 0}
    if not os.path.isdir(path):
        errors.append("%s is not a folder" % path)
        return {"ok": False, "errors": errors, "warnings": warnings, "facts": facts}
    files = sorted(os.listdir(path))
    facts["folder_bytes"] = folder_bytes(path)
    config, problems = check_config(path)
    errors.extend(problems)
    if config is not None:
        facts["architectures"] = config.get("architectures") or []
        facts["model_type"] = config.get("model_type")
        arch_errors, arch_warnings = check_architecture(
            config, supported_archs, bool(options.get("trust_remote_code")), options.get("model_impl"),
            vllm_label, transformers_archs)
        errors.extend(arch_errors)
        warnings.extend(arch_warnings)
    errors.extend(check_tokenizer(path, files, config or {}, options.get("tokenizer")))
    weight_errors, weight_warnings, weights = check_weights(path, files)
    errors.extend(weight_errors)
    warnings.extend(weight_warnings)
    facts.update({"weights_format": weights["format"], "weight_files": weights["files"],
                  "weights_bytes": weights["weights_bytes"], "tensors": weights["tensors"]})
    if backend and not weight_errors and weights["weights_bytes"]:
        fit_errors, fit_warnings, numbers = check_fit(weights["weights_bytes"], backend, host, config or {},
                                                      options, os.path.basename(path.rstrip("/")) or path)
        errors.extend(fit_errors)
        warnings.extend(fit_warnings)
        facts["fit"] = numbers
    return {"ok": not errors, "errors": errors, "warnings": warnings, "facts": facts}


def model_kind(source):
    """``builtin``, ``folder`` (an absolute path) or ``hub`` (org/name) for vllm_model_source."""
    if source == "builtin":
        return "builtin"
    return "folder" if str(source).startswith("/") else "hub"


def model_path(kind, source, builtin_dir):
    """The folder served: the builtin model's, the folder given, or ``''`` for a Hub model (the
    download decides it)."""
    if kind == "builtin":
        return builtin_dir
    return source if kind == "folder" else ""


def model_default_name(kind, source):
    """The served name when none is given: ``tiny-llama``, the Hub id, or the folder's name."""
    if kind == "builtin":
        return "tiny-llama"
    return source if kind == "hub" else os.path.basename(source)
