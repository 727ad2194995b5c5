# -*- coding: utf-8 -*-
"""How the context around a finding changes it: the traceback above it, the phase, the kernel.

One part of the doctor (``vllm_doctor.py`` is the entry and says how a diagnosis is made):
``_adjust`` weighs the findings of the rules by what surrounds them (a bare kill needs support to
be host OOM, an unknown exception is placed by the frame that raised it, a cut traceback by where
it stopped), ``_caller_findings`` reads who called vLLM from the frames above an exception, and
``_dmesg_names_vllm`` matches the kernel's OOM-killer lines to the pids of the log.
"""
from __future__ import absolute_import, division, print_function

import re

try:  # in the collection: module_utils import each other relatively
    from .vllm_doctor_text import (_EXCEPTION_RE, _FRAME_PATH_RE, _TRANSFORMERS_IMPORT_RE, _exception_after,
                                   _exception_lines, _frames_above, _position, _raising_frame, _version_tuple)
    from .vllm_doctor_rules import (CONTEXT, CONTEXT_WEAK, Finding, LIKELY, SPECIFIC, WRAPPER, _MEMORY_PHASE_RE,
                                    _NCCL_RE, _OOM_WORD_RE)
    from .vllm_doctor_archs import known_architectures
except ImportError:  # copied beside the launcher, or scripts/doctor: the parts lie side by side
    from vllm_doctor_text import (_EXCEPTION_RE, _FRAME_PATH_RE, _TRANSFORMERS_IMPORT_RE, _exception_after,
                                  _exception_lines, _frames_above, _position, _raising_frame, _version_tuple)
    from vllm_doctor_rules import (CONTEXT, CONTEXT_WEAK, Finding, LIKELY, SPECIFIC, WRAPPER, _MEMORY_PHASE_RE,
                                   _NCCL_RE, _OOM_WORD_RE)
    from vllm_doctor_archs import known_architectures

__metaclass__ = type


# the process prefix vLLM gives each of several API server processes (api_server_count > 1)
_API_SERVER_PROC_RE = re.compile(r"\(ApiServer_\w+ pid=")
# kv_cache_dtype fp8 (e4m3) asked for, and a checkpoint that is not FP8 itself: then an FP8 type the GPU
# lacks is the KV cache's, not the weights'
_KV_FP8_RE = re.compile(r"kv[-_]cache[-_]dtype['\"]?\s*[=: ]\s*['\"]?fp8(?:_e4m3)?\b", re.I)
_FP8_CHECKPOINT_RE = re.compile(r"quantization['\"]?\s*[=: ]\s*['\"]?(?:fp8|fbgemm_fp8|ptpc_fp8|modelopt|"
                                r"compressed[-_]tensors)\b|[-_/]fp8\b", re.I)
# argparse of another program than vLLM refusing a subcommand ("TRL CLI: error: argument command: ...")
_WRAPPER_SUBCOMMAND_RE = re.compile(r"^([^:]{1,40}): error: argument (?:command|subcommand|subparser|cmd|"
                                    r"\{[^}]*\}): invalid choice: '([\w.-]+)'")


def _adjust(findings, lines, facts, live):
    """Context-dependent promotions and demotions. Returns the adjusted list."""
    specific_idx = set(f.line.idx for f in findings if f.kind == "error" and f.strength >= LIKELY)
    # vLLM's package metadata missing: the platform check that reads it then finds no platform, so "no
    # platform detected" and the empty device string after it are its consequences, not a missing GPU
    no_metadata = any(f.rule == "vllm_dist_metadata_missing" for f in findings)
    out = []
    for finding in findings:
        rule = finding.rule
        if no_metadata and rule == "no_gpu_visible":
            finding = Finding(finding.category, CONTEXT, finding.line, rule, finding.match, "context")
        if rule == "mm_frame":
            # A generic exception raised inside the multimodal processor/profiler is a processor failure;
            # an OOM or another known cause raised there keeps its own category (it is stronger).
            exc = _exception_after(lines, finding.line.idx)
            if exc is not None and exc.idx not in specific_idx and not _EXC_WRAPPER_RE.search(exc.text):
                finding = Finding(finding.category, LIKELY, exc, rule, finding.match, "error")
        elif rule == "vllm_install_incomplete" and facts["windows"] and "vllm._C" in finding.line.text:
            # vllm._C missing under a native Windows Python (drive-letter paths, a PowerShell prompt): the
            # PyPI package has no Windows build, so nothing is incomplete that an install could complete
            finding = Finding("wsl_specific", finding.strength, finding.line, "native_windows_unsupported",
                              finding.match, finding.kind)
        elif rule == "cuda_unknown":
            if facts["wsl"]:
                finding = Finding("wsl_specific", 50, finding.line, rule, finding.match, "error")
        elif rule == "dependency_too_old" and "DeepGEMM" in finding.line.text and any(
                _WARMUP_FRAME_RE.search(path) for path, _code in _frames_above(lines, _position(lines, finding.line))):
            # raised from vLLM's kernel warmup (0.20-0.22 run the DeepGEMM warmup for every model on
            # Hopper/Blackwell), not from an FP8 layer that needs the kernel: the release's bug
            finding = Finding(finding.category, finding.strength, finding.line, "vllm_release_bug", finding.match,
                              finding.kind)
        elif rule == "eaddrinuse" and "ZMQError" in finding.line.text and _API_SERVER_PROC_RE.search(finding.line.raw):
            # vllm/v1/utils.py and vllm/v1/engine/core_client.py: with api_server_count > 1 each API server
            # process (ApiServer_N) binds its ZMQ sockets to the engine on ports vLLM picked itself
            # (get_open_port finds a free one and lets it go), so one found taken was taken between the
            # pick and the bind: a race with another API server or process, not a port of the configuration
            finding = Finding(finding.category, finding.strength + 3, finding.line, "internal_port_race",
                              finding.match, finding.kind)
        elif rule == "err_802" and any(_SYMM_MEM_PATH_RE.search(path) for path, _code in
                                       _frames_above(lines, _position(lines, finding.line))):
            # raised in torch's symmetric memory rendezvous (vLLM's all-reduce between the GPUs of a
            # node), not at the driver's start: that feature is what the driver cannot set up here
            finding = Finding("tensor_parallel_config", SPECIFIC + 5, finding.line, "symm_mem_rendezvous_failed",
                              finding.match, finding.kind)
        elif rule == "transformers_incompatible" and finding.match is not None and _CORE_TRANSFORMERS_RE.search(
                finding.line.text):
            # a name every transformers release exports at its top level: no version lacks it, so the
            # package was imported half-way (a second thread, a circular import) or is broken; vLLM
            # run from a source checkout (no site-packages in its frames) makes that checkout the suspect
            source_tree = _vllm_source_checkout(lines)
            finding = Finding("engine_core_generic", SPECIFIC, finding.line,
                              "vllm_release_bug" if source_tree else "transformers_import_broken",
                              finding.match, finding.kind)
        elif rule == "wrapper_config_key_invalid" and _VLLM_CONFIG_CLASS_RE.match(
                _pydantic_model(lines, finding.line) or ""):
            # one of vLLM's own config classes: a key a JSON option gives that this release does not have
            finding = Finding(finding.category, SPECIFIC, finding.line, "config_key_unknown", finding.match,
                              finding.kind)
        elif rule == "architecture_unsupported" and known_architectures(finding.line.text, facts.get("vllm_version")):
            # an architecture a later vLLM has (vllm_doctor_archs): the installed release predates the model
            finding = Finding(finding.category, finding.strength, finding.line, "vllm_too_old_for_model",
                              finding.match, finding.kind)
        elif rule == "quantization_unsupported" and "not supported in this architecture" in finding.line.text and any(
                _KV_FP8_RE.search(l.raw) for l in lines) and not any(_FP8_CHECKPOINT_RE.search(l.raw) for l in lines):
            # Triton's FP8 type check fails for the KV cache's kernels: fp8 KV cache on a GPU without e4m3
            finding = Finding(finding.category, finding.strength, finding.line, "kv_cache_dtype_unsupported",
                              finding.match, finding.kind)
        elif rule == "unrecognized_argument" and _wrapper_subcommand(finding.line.text):
            finding = Finding(finding.category, finding.strength, finding.line, "wrapper_cli_subcommand_missing",
                              finding.match, finding.kind)
        elif rule == "platform_plugin_load_failed" and any(f.rule == "no_gpu_visible" for f in findings):
            # the platform plugin that failed to load is why no platform (device) was found
            finding = Finding(finding.category, SPECIFIC + 5, finding.line, rule, finding.match, finding.kind)
        elif rule == "no_driver" and facts["wsl"]:
            finding = Finding("wsl_specific", LIKELY, finding.line, rule, finding.match, "error")
        elif rule == "no_current_loop" and any(f.rule == "died" for f in findings):
            finding = Finding(finding.category, CONTEXT_WEAK, finding.line, rule, finding.match, "noise")
        elif rule == "tokenizer_class":
            # trust_remote_code already on (vLLM's own advice on the finding's line does not count)
            if any("trust_remote_code=true" in l.low.replace(" ", "") or "'trust_remote_code': true" in l.low
                   for l in lines if l is not finding.line):
                finding = Finding(finding.category, 35, finding.line, rule, finding.match, finding.kind)
        out.append(finding)

    # Stopped (SIGTERM, Ctrl-C) inside the multimodal processor while it warmed up or profiled on dummy
    # input: the slow video warm-up outlasted the patience of whoever stopped the start.
    stop = facts.get("stop")
    if stop and stop[1] == "during_start":
        frames = [f for f in out if f.rule == "mm_frame" and f.kind == "frame" and f.line.idx < stop[0].idx]
        between = [l for l in lines if frames and frames[-1].line.idx < l.idx < stop[0].idx]
        if frames and not any(_EXCEPTION_RE.match(l.text) and not l.text.startswith(("raise ", "except "))
                              or (l.level in ("INFO", "DEBUG") and not re.search(r"multi-?modal|profil|warm|dummy",
                                                                                 l.text, re.I))
                              for l in between):
            frame_lines = [f.line for f in frames if f.line.text.startswith("File ")] or [f.line for f in frames]
            warm = next((l for l in frame_lines if re.search(r"warmup|profil|dummy", l.text, re.I)),
                        frame_lines[-1])
            out.append(Finding("multimodal_processor", LIKELY, warm, "mm_warmup_interrupted", None, "error"))

    # A native abort while vLLM was still importing (its platform detected, no model loading, no Python
    # exception): vLLM's compiled extensions and torch are not builds of one pair. A std::bad_alloc there is
    # no memory shortage (nothing large was allocated yet).
    abort = _import_time_abort(lines)
    if abort is not None:
        out = [f for f in out if not (f.rule == "enomem" and "bad_alloc" in f.line.text)]
        out.append(Finding("engine_core_generic", LIKELY, abort, "dependency_version_mismatch", None, "error"))

    # Who called or imported what: a traceback says whether vLLM or the code around it is out of step.
    out.extend(_caller_findings(lines, out))

    # Where an otherwise unrecognised exception was raised says what it is about.
    for line, _match in _exception_lines(lines, specific_idx, _EXC_WRAPPER_RE.search):
        frame = _raising_frame(lines, line.idx)
        if frame is None:
            continue
        for regex, category, name in _FRAME_HINTS:
            if regex.search(frame):
                out.append(Finding(category, 62, line, name, None, "error"))
                break
        else:
            # raised in (or right under) a hardware platform plugin's own code: the plugin's bug, or a
            # plugin and vLLM release that are not a pair
            if any(_PLATFORM_PLUGIN_PATH_RE.search(path) for path, _code in
                   _frames_above(lines, _position(lines, line))[:3]):
                out.append(Finding("engine_core_generic", 60, line, "platform_plugin_bug", None, "error"))

    # A traceback cut short (no exception line after its last frame): where it stopped still says
    # something, weakly.
    last_frame = None
    for line in lines:
        if _FRAME_PATH_RE.match(line.text):
            last_frame = line
        elif _EXCEPTION_RE.match(line.text) and not line.text.startswith("raise "):
            last_frame = None
    at = _position(lines, last_frame) if last_frame is not None else 0
    if last_frame is not None and _VLLM_PATH_RE.search(last_frame.text) and any(
            _TRANSFORMERS_IMPORT_RE.match(l.text) for l in lines[at + 1:at + 3]):
        # cut at vLLM's own model file importing from transformers: the import that failed
        out.append(Finding("model_files", CONTEXT, last_frame, "transformers_incompatible", None, "frame"))
    elif last_frame is not None:
        tail = " ".join(l.text for l in lines[last_frame.idx:last_frame.idx + 3])
        hints = [h for h in _FRAME_HINTS if h[1] != "uvloop_event_loop"]  # uvloop frames wrap everything
        for regex, category, name in _CUT_LOAD_HINTS + hints + _CUT_FRAME_HINTS:
            if regex.search(last_frame.text) or (category == "port_in_use" and regex.search(tail)):
                out.append(Finding(category, CONTEXT, last_frame, name + "_cut", None, "frame"))
                break

    # Python version from paths: old Pythons fail at import with typing syntax errors.
    py = _version_tuple(facts.get("python"))
    if py:
        for line in lines:
            if re.search(r"TypeError: '?type'? object is not subscriptable|unsupported operand type\(s\) for \|: "
                         r"'type' and|TypeError: 'ABCMeta' object is not subscriptable|SyntaxError: invalid syntax|"
                         r"cannot import name '\w+' from 'typing'", line.text):
                if py < (3, 10):
                    out.append(Finding("python_version_unsupported", SPECIFIC, line, "old_python_typing", None,
                                       "error"))
                    break
        if py < (3, 10) and not any(f.category == "python_version_unsupported" for f in out):
            # a traceback through an installed vLLM under Python 3.9 or older: no vLLM this project
            # plans runs there, whatever the import then tripped on (a cut paste has no exception line)
            for line in lines:
                if re.search(r"python%d\.%d/site-packages/vllm/" % py[:2], line.text):
                    out.append(Finding("python_version_unsupported", CONTEXT, line, "old_python_typing", None,
                                       "frame"))
                    break
    else:
        # PEP 604's "X | None" evaluated on Python 3.9 or older: on 3.10+ a type and None combine
        for line in lines:
            if re.search(r"unsupported operand type\(s\) for \|: 'type' and 'NoneType'", line.text):
                out.append(Finding("python_version_unsupported", LIKELY, line, "old_python_typing", None, "error"))
                break
    if py:
        vllm_v = _version_tuple(facts.get("vllm_version"))
        if py >= (3, 14) and vllm_v and vllm_v < (0, 20):
            marker = next((l for l in lines if re.search(r"python3\.1[4-9]", l.raw)), lines[0] if lines else None)
            if marker is not None:
                out.append(Finding("python_version_unsupported", 55, marker, "py314_old_vllm", None, "context"))

    # WSL: multi-GPU NCCL trouble under WSL is the WSL limitation, not a plain TP misconfiguration.
    if facts["wsl"]:
        out = [Finding(f.category, 55, f.line, f.rule, f.match, f.kind)
               if f.rule == "bus_error" and "nccl" in f.line.low else f for f in out]
        for line in lines:
            if _NCCL_RE.search(line.text) and re.search(r"error|fail", line.low):
                out.append(Finding("wsl_specific", 60, line, "wsl_nccl", None, "error"))
                break
        if (facts.get("tp") or 1) > 1 and not any(f.strength >= LIKELY for f in out):
            marker = next((f.line for f in out if f.rule == "wsl_marker"), None)
            if marker is not None:
                out.append(Finding("wsl_specific", CONTEXT, marker, "wsl_multi_gpu", None, "marker"))
        if any(re.search(r"cudaErrorNotSupported|operation not supported|pin_memory|cudaHostRegister",
                         l.text) and re.search(r"error", l.low) for l in lines):
            line = next(l for l in lines if re.search(r"cudaErrorNotSupported|operation not supported|"
                                                      r"cudaHostRegister", l.text) or
                        ("pin_memory" in l.text and "error" in l.low))
            out.append(Finding("wsl_specific", 65, line, "wsl_pinned", None, "error"))

    # Kills: host OOM only with support, else the generic wrapper.
    support = _oom_support(out, lines, live)
    final = []
    for finding in out:
        if finding.kind == "kill":
            near = lines[max(0, finding.line.idx - 25):finding.line.idx]
            context_support = any(_MEMORY_PHASE_RE.search(l.text) for l in near)
            if support or context_support or _OOM_WORD_RE.search(finding.line.text):
                strength = 68 if support else 58
                finding = Finding("host_oom", strength, finding.line, finding.rule, finding.match, "error")
            else:
                finding = Finding("engine_core_generic", WRAPPER + 2, finding.line, finding.rule, finding.match,
                                  "wrapper")
        final.append(finding)
    return final


_EXC_WRAPPER_RE = re.compile(r"Engine core initialization failed|WorkerProc initialization failed|EngineDeadError|"
                             r"Engine process failed|died unexpectedly|AsyncEngineDeadError|KeyboardInterrupt|"
                             r"CancelledError", re.I)
_WARMUP_FRAME_RE = re.compile(r"[/\\]warmup[/\\]|deep_gemm_warmup|kernel_warmup")
_FRAME_HINTS = [
    (re.compile(r"uvloop[/\\.]"), "uvloop_event_loop", "uvloop_raise_frame"),
    (re.compile(r"vllm[/\\]multimodal[/\\]|transformers[/\\](?:processing_utils|image_processing|"
                r"video_processing|feature_extraction|models[/\\][^/\\]+[/\\](?:processing|image_processing|"
                r"video_processing))"), "multimodal_processor", "mm_raise_frame"),
    (re.compile(r"transformers[/\\]dynamic_module_utils\.py"), "trust_remote_code", "remote_raise_frame"),
    # vLLM's own config classes for models transformers lacked (vllm/transformers_utils/configs): they build
    # on transformers' config helpers, whose signatures move between releases (transformers 5)
    (re.compile(r"vllm[/\\]transformers_utils[/\\]configs[/\\]"), "model_files", "transformers_incompatible"),
    (re.compile(r"safetensors[/\\]|weight_utils\.py|model_loader[/\\]|huggingface_hub[/\\]"), "model_files",
     "model_raise_frame"),
    (re.compile(r"torch[/\\]cuda[/\\]__init__\.py"), "cuda_driver_mismatch", "cuda_raise_frame"),
]


# torch's symmetric memory (torch/distributed/_symmetric_memory), which vLLM's all-reduce rendezvous uses
_SYMM_MEM_PATH_RE = re.compile(r"torch[/\\]distributed[/\\]_symmetric_memory[/\\]")
# "cannot import name X from 'transformers'" for an X at the package's top level in every release since 4.0
_CORE_TRANSFORMERS_RE = re.compile(r"cannot import name '(?:GenerationConfig|AutoConfig|AutoTokenizer|AutoModel|"
                                   r"AutoModelForCausalLM|AutoProcessor|PreTrainedModel|PreTrainedTokenizer|"
                                   r"PreTrainedTokenizerFast|PreTrainedTokenizerBase)' from 'transformers'")
# a frame of vLLM's own package outside site-packages/dist-packages: vLLM run from a source checkout
_VLLM_SOURCE_FRAME_RE = re.compile(r"[/\\]vllm[/\\]vllm[/\\]")


_NATIVE_ABORT_RE = re.compile(r"^(?:Aborted \(core dumped\)|Segmentation fault \(core dumped\)|terminate called after "
                              r"throwing an instance of 'std::bad_alloc'|Fatal Python error: Aborted)", re.I)
# vLLM's first log lines, printed on import (platform detection)
_VLLM_IMPORT_MARK_RE = re.compile(r"Automatically detected platform \w+|No platform detected")
_LOADING_RE = re.compile(r"Starting to load model|Loading (?:safetensors|pt) checkpoint|Loading weights|"
                         r"Initializing a V\d LLM engine|Initializing an LLM engine|non-default args|"
                         r"Resolved architecture|Using max model len|vLLM API server version", re.I)


# vLLM's pydantic config classes (vllm/config/*.py) and its engine arguments
_VLLM_CONFIG_CLASS_RE = re.compile(r"^(?:Vllm|Model|Cache|Parallel|Scheduler|Device|Load|LoRA|Lora|Speculative|"
                                   r"StructuredOutputs|Decoding|Observability|KVTransfer|KVEvents|ECTransfer|"
                                   r"Compilation|CUDAGraph|Pass|Pooler|MultiModal|Attention|Kernel|EPLB|Profiler|"
                                   r"Speech\w*|Token\w*)Config$|^(?:Async)?EngineArgs$")


def _pydantic_model(lines, line):
    """The model a pydantic error line belongs to ("1 validation error for X" at most four lines above)."""
    at = _position(lines, line)
    for before in reversed(lines[max(0, at - 4):at]):
        match = re.search(r"validation errors? for (\w+)", before.text)
        if match:
            return match.group(1)
    return None


def _wrapper_subcommand(text):
    """The subcommand another program's argparse refused (not vLLM's own command line), else None."""
    match = _WRAPPER_SUBCOMMAND_RE.match(text)
    return match.group(2) if match and "vllm" not in match.group(1).lower() else None


def _import_time_abort(lines):
    """The line of a native abort printed while vLLM was importing: after vLLM's platform detection,
    with no engine start, model loading or Python exception before it; else None."""
    seen_import = False
    for line in lines:
        if _VLLM_IMPORT_MARK_RE.search(line.text):
            seen_import = True
        elif _LOADING_RE.search(line.text) or _MEMORY_PHASE_RE.search(line.text):
            return None
        elif _EXCEPTION_RE.match(line.text) and not line.text.startswith("raise "):
            return None
        elif _NATIVE_ABORT_RE.match(line.text):
            return line if seen_import or line.text.startswith("terminate called") else None
    return None


def _vllm_source_checkout(lines):
    """Whether the log's frames run vLLM from a source checkout (.../vllm/vllm/..., no site-packages)."""
    paths = [m.group(1) or m.group(2) for m in (_FRAME_PATH_RE.match(l.text) for l in lines) if m]
    # a .../vllm/vllm/ path is a vLLM path (_VLLM_PATH_RE) already: no separate list of those is needed
    return any(_VLLM_SOURCE_FRAME_RE.search(p) and "-packages" not in p and not re.search(r"[/\\]vllm_\w+[/\\]", p)
               for p in paths)


# a hardware platform plugin's package directory (vllm-ascend, vllm-gaudi, ...) in a frame path
_PLATFORM_PLUGIN_PATH_RE = re.compile(r"[/\\]vllm_(?:ascend|gaudi|hpu|spyre|rbln|metax|kunlun|musa|mlu|neuron|"
                                      r"tt|xpu|npu)[/\\]")
# vLLM's own package directory in a frame path: site-/dist-packages/vllm/, or a .../vllm/ of a path outside
# site-packages (a source checkout's vllm/vllm/); not a wrapper's vllm_engine.py or vllm_ascend/, nor another
# package's vllm folder under site-packages (xinference/model/llm/vllm/core.py)
_VLLM_PATH_RE = re.compile(r"(?:site|dist)-packages[/\\]vllm[/\\]|^(?!.*(?:site|dist)-packages)(?:.*[/\\])?vllm[/\\]")
# an engine argument the installed release lacks, where Python names no class (3.9 and older) or the
# class is vLLM's: the call on the code line above says whose __init__ it was
_UNEXPECTED_KWARG_RE = re.compile(r"^TypeError: (?:\w+\.)?__init__\(\) got an unexpected keyword argument '(\w+)'")
_VLLM_ENTRY_CALL_RE = re.compile(r"\b(?:Async)?EngineArgs\(|(?:^|[\s=(.])LLM\(|\bAsyncLLMEngine\.from_engine_args\(|"
                                 r"\bLLMEngine\.from_engine_args\(|\bSamplingParams\(")
# a frame path of a native Windows Python into vLLM: the package directory or pip's console-script
# launcher (Scripts\vllm.exe\__main__.py) on a drive letter
_WINDOWS_VLLM_PATH_RE = re.compile(r"^[A-Za-z]:\\.*\\(?:vllm\\|Scripts\\vllm\.exe\\)")
# a vLLM module or name that is not there
# (the message alone, without its exception name, where a reporter quoted only it)
_VLLM_IMPORT_RE = re.compile(r"^(?:(?:ModuleNotFoundError|ImportError): )?No module named '(vllm\.[\w.]+)'(?!; )|"
                             r"^ImportError: cannot import name '(\w+)' from '(vllm(?:\.[\w.]+)?)'|"
                             r"^AttributeError: module '(vllm(?:\.[\w.]+)?)' has no attribute '(\w+)'")
# load_weights() indexing its parameters by a checkpoint tensor's name
_WEIGHT_KEYERROR_RE = re.compile(r"^KeyError: '((?:[\w]+\.)+(?:weight|bias|qweight|qzeros|scales|g_idx|\w*_scale|"
                                 r"absmax|quant_map|nested_\w+|"
                                 r"bitsandbytes__\w+))'")
# bitsandbytes' statistics tensors: a pre-quantized bnb checkpoint read as a plain one
_BNB_TENSOR_RE = re.compile(r"\.(?:absmax|quant_map|nested_\w+|bitsandbytes__\w+|quant_state\.\w+)$")
# a dotted module whose first part imports (a wrapper importing a submodule its dependency lacks)
_DEP_SUBMODULE_RE = re.compile(r"^(?:ModuleNotFoundError|ImportError): No module named '([A-Za-z_]\w*)\.([\w.]+)'")
# a top-level package that is missing (no dot: not a submodule of an installed package)
_DEP_MISSING_RE = re.compile(r"^(?:ModuleNotFoundError|ImportError): No module named '([A-Za-z_]\w*)'$")
# a call into another package with a keyword it does not take, raised where neither side is vLLM
_DEP_KWARG_RE = re.compile(r"^TypeError: ([\w.]+)\(\) got an unexpected keyword argument '(\w+)'")
_SITE_PACKAGE_RE = re.compile(r"[/\\](?:site|dist)-packages[/\\]([A-Za-z_]\w*)[/\\]")
_NIXL_RE = re.compile(r"nixl_handshake|nixl_connector|NIXL_SIDE_CHANNEL", re.I)
_HUB_CALL_RE = re.compile(r"\b(?:hf_hub_download|snapshot_download|model_info|list_repo_files)\(")


def _third_party_call(lines, pos, frames):
    """Whether the innermost frame above ``lines[pos]`` is another package's code, not vLLM's nor the
    user's: a file under site-/dist-packages, or a module's import-time code (``in <module>``) reached
    through vLLM's own imports."""
    path, code = frames[0]
    if _VLLM_PATH_RE.search(path) or re.search(r"\bvllm\b", code):
        return False
    if _SITE_PACKAGE_RE.search(path):
        return True
    innermost = next((l.text for l in reversed(lines[max(0, pos - 8):pos]) if _FRAME_PATH_RE.match(l.text)), "")
    return innermost.rstrip().endswith("in <module>") and any(_VLLM_PATH_RE.search(p) for p, _ in frames[1:])


def _caller_findings(lines, findings):
    """Findings that need the traceback around an exception line, not the line alone."""
    out = []
    known = dict((f.line.idx, f) for f in findings if f.kind == "error" and f.strength >= LIKELY)
    for pos, line in enumerate(lines):
        text = line.text
        match = _UNEXPECTED_KWARG_RE.match(text)
        if match and line.idx not in known:
            code = [l.text for l in lines[max(0, pos - 5):pos] if not re.match(r"^[~^\s]+$", l.text)]
            if any(_VLLM_ENTRY_CALL_RE.search(c) for c in code[-2:]):
                out.append(Finding("engine_core_generic", SPECIFIC, line, "wrapper_vllm_version_mismatch", match,
                                   "error"))
            continue
        match = _VLLM_IMPORT_RE.match(text)
        if match:
            module = match.group(1) or match.group(3) or match.group(4)
            frames = _frames_above(lines, pos)
            if any(_WINDOWS_VLLM_PATH_RE.search(path) for path, _code in frames):
                # vLLM's own modules missing under a native Windows Python (drive-letter paths into the
                # vllm package or its Scripts\vllm.exe launcher): there is no vLLM for Windows to be
                # out of step with; the PyPI package has no Windows build (no vllm._C, no CLI)
                out.append(Finding("wsl_specific", SPECIFIC, line, "native_windows_unsupported", match, "error"))
                continue
            inside = bool(frames) and bool(_VLLM_PATH_RE.search(frames[0][0]))
            private = any(part.startswith("_") for part in module.split(".")[1:])
            rule = "vllm_install_incomplete" if inside or private else "wrapper_vllm_version_mismatch"
            out.append(Finding("engine_core_generic", SPECIFIC, line, rule, match, "error"))
            continue
        match = _WEIGHT_KEYERROR_RE.match(text)
        if match and line.idx not in known:
            frames = _frames_above(lines, pos, limit=8)
            if _BNB_TENSOR_RE.search(match.group(1)):
                # only a bitsandbytes checkpoint has such tensors: the name says it without a frame
                out.append(Finding("model_files", SPECIFIC, line, "bnb_checkpoint_without_bnb_load_format", match,
                                   "error"))
            elif any(re.search(r"load_weights|params_dict\[", p + " " + c) for p, c in frames) or any(
                    "params_dict[" in l.text for l in lines[max(0, pos - 3):pos]):
                out.append(Finding("model_files", SPECIFIC, line, "checkpoint_weight_name_mismatch", match, "error"))
            continue
        match = _DEP_SUBMODULE_RE.match(text)
        if match and line.idx not in known and match.group(1) not in ("vllm", "google", "azure"):
            # Python names the first part of a dotted import that is missing, so the package itself is
            # there and lacks the submodule: the importer was written for another release of it
            frames = _frames_above(lines, pos)
            importer = frames[0][0] if frames else ""
            top = match.group(1)
            if importer and not _VLLM_PATH_RE.search(importer) and not re.search(
                    r"[/\\]%s[/\\]" % re.escape(top), importer):
                out.append(Finding("engine_core_generic", SPECIFIC, line, "wrapper_dependency_version_mismatch",
                                   match, "error"))
            elif importer and _VLLM_PATH_RE.search(importer) and not _VLLM_PATH_RE.search(
                    "/%s/" % top.replace(".", "/")):
                # vLLM's own code imports a submodule the installed package lacks: the two are releases that
                # do not fit each other
                out.append(Finding("engine_core_generic", LIKELY, line, "dependency_version_mismatch", match,
                                   "error"))
            continue
        match = _DEP_MISSING_RE.match(text)
        if match and line.idx not in known and match.group(1) != "vllm":
            # a package vLLM's own code (or a package vLLM imports) needs is not in the venv: the
            # traceback passes through vLLM's files (seen on an H200: flashinfer, tvm_ffi)
            if any(_VLLM_PATH_RE.search(path) for path, _ in _frames_above(lines, pos, limit=60)):
                out.append(Finding("engine_core_generic", SPECIFIC, line, "vllm_dependency_missing", match, "error"))
            continue
        if "Cannot assign requested address" in text and line.idx not in known and any(
                _NIXL_RE.search(l.text) for l in lines[max(0, pos - 30):pos + 30]):
            # the NIXL handshake listener binds VLLM_NIXL_SIDE_CHANNEL_HOST: an address of another node
            out.append(Finding("tensor_parallel_config", SPECIFIC, line, "nixl_side_channel_host_wrong_node",
                               None, "error"))
            continue
        match = _DEP_KWARG_RE.match(text)
        if match and line.idx not in known:
            # one third-party package calls another with a keyword it lacks: releases that do not fit
            # (seen on an H200: xgrammar 0.2.9 calling an apache-tvm-ffi 0.1.9)
            frames = _frames_above(lines, pos, limit=60)
            if frames and _third_party_call(lines, pos, frames):
                out.append(Finding("engine_core_generic", SPECIFIC, line, "dependency_call_mismatch", match, "error"))
            continue
        finding = known.get(line.idx)
        if finding is not None and finding.rule == "local_path_not_found":
            # transformers looks a path up on the Hub only when no such directory exists; a hub call made
            # by vLLM or a wrapper (get_hf_file_to_dict: hf_hub_download(model, file_name) when the file is
            # not in the directory) takes an existing local directory for a repo id
            if any(_HUB_CALL_RE.search(c) and not re.search(r"[/\\](?:transformers|huggingface_hub)[/\\]", p)
                   for p, c in _frames_above(lines, pos, limit=20)):
                out.append(Finding("model_files", finding.strength + 1, line, "local_path_taken_for_hub_id",
                                   finding.match, "error"))
    return out


# a traceback cut while transformers loads the processor's parts from the model directory (before
# any multimodal input is processed): a processor file is missing or unreadable
_CUT_LOAD_HINTS = [
    (re.compile(r"processing_utils\.py\S*,? line \d+, in (?:from_pretrained|_get_arguments_from_pretrained)\b"),
     "model_files", "processor_load_frame"),
]
_CUT_FRAME_HINTS = [
    (re.compile(r"zmq[/\\]sugar[/\\]socket\.py.*in bind|\.bind\((?:socket_addr|addr|\(|\"|')"), "port_in_use",
     "bind_frame"),
]


def _oom_support(findings, lines, live):
    if any(f.category == "host_oom" and f.kind == "error" and f.strength >= SPECIFIC for f in findings):
        return True
    if live and _dmesg_names_vllm(live.get("dmesg") or "")[0]:
        return True
    return False


_DMESG_OOM_RE = re.compile(r"Out of memory: Kill(?:ed)? process (\d+) \(([^)]*)\)|"
                           r"(\S+) invoked oom-killer|oom-kill:.*task=([^,\s]+),pid=(\d+)", re.I)
_VLLM_PROC_RE = re.compile(r"vllm|python|EngineCor|VLLM::|ray::|pt_main_thread|cicc|uvicorn|torch", re.I)


_LOG_PID_RES = [re.compile(r"\bpid=(\d+)"), re.compile(r"Worker PID: (\d+)"), re.compile(r"\w\[(\d+)\]: "),
                re.compile(r"Started server process \[(\d+)\]"), re.compile(r"\bpid (\d+)\b")]
_DMESG_PID_RE = re.compile(r"Kill(?:ed)? process (\d+)|,pid=(\d+)")


def log_pids(lines):
    """Process ids the log names (vLLM prefixes, Ray, journald, uvicorn)."""
    pids = set()
    for line in lines:
        for regex in _LOG_PID_RES:
            pids.update(int(x) for x in regex.findall(line.raw))
    return pids


def _dmesg_names_vllm(dmesg, pids=None):
    """The kernel OOM line that names a vLLM process: by pid from the log first, else by name."""
    by_name = None
    for line in dmesg.splitlines():
        if not _DMESG_OOM_RE.search(line):
            continue
        if pids:
            for match in _DMESG_PID_RE.finditer(line):
                pid = match.group(1) or match.group(2)
                if pid and int(pid) in pids:
                    return line.strip(), True
        if by_name is None and _VLLM_PROC_RE.search(line):
            by_name = line.strip()
    return (by_name, False) if by_name else (None, False)
