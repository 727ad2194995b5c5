# -*- coding: utf-8 -*-
"""Name the root cause of a failed vLLM start from its log.

Pure standard-library logic, shared by ``scripts/doctor``, the readiness gate (imported as
``ansible_collections.vllm_ops.workstation.plugins.module_utils.vllm_doctor``) and the unit tests. Nothing here touches the host: facts
that only a live host can give (kernel OOM-killer lines, who holds a port, free GPU memory) come in
through the ``live`` argument, gathered by ``vllm_doctor_live``.

The parts (each imports only those above it; this file is the entry, ``diagnose``):

- ``vllm_doctor_text``: line cleaning, log lines apart from prose, ``parse``, ``gather_facts`` and
  the traceback helpers;
- ``vllm_doctor_archs``: the architectures the newest vLLM this project knows serves (a table written
  by scripts/doctor-archs), read by the fixes and the adjustments;
- ``vllm_doctor_rules``: the strength tiers, _RULE_TABLE and the other word tables as data, and
  ``_match_rules`` (lines -> findings);
- ``vllm_doctor_fixes``: the fix texts (_FIXED_TABLE, _WORDED_FIXES, _WORD_FIXES, _PATH_FIXES), the
  fixers per category and ``fix_for``, which picks one;
- ``vllm_doctor_adjust``: ``_adjust``, how the context around a finding changes it (the traceback
  above it, the phase, the kernel's OOM-killer lines);
- ``vllm_doctor`` (here): shutdown noise, start attempts, the choice of the finding, its
  confidence and the result. The public names of the parts are importable from here too.

On a host they are copied side by side (roles/vllm_service) and import each other by file name;
in the collection they import each other relatively.

How a diagnosis is made
-----------------------
0. A pasted post (advice prose, suggested commands, then the real log) is read for its log lines
   only: ``classify_line`` labels each line, ``log_line_mask`` keeps the log output and leaves the
   prose and commands out (``ignored_lines`` counts them). A plain log is read whole.
1. Every line is cleaned: colour codes (real ESC, ``^[[``, syslog ``#033[``), CRLF, and the
   prefixes that wrappers add (journald, docker/compose, Buildkite, GKE, ``[rank0]:``,
   ``(EngineCore_DP0 pid=1)``, ``(RayWorkerWrapper pid=1, ip=...)``, vLLM's ``ERROR 01-02 ...
   [core.py:1]`` header) are stripped, repeatedly, so the message itself is matched.
2. Rules written from the root causes in vLLM's source and issue tracker match message lines.
   Each finding has a strength: a specific error message (``CUDA out of memory``, ``Total number
   of attention heads (32) must be divisible by ...``) is strong; context (a multimodal profiling
   frame, a WSL marker, a bare ``Killed``) is weaker; the wrappers (``Engine core initialization
   failed``, ``EngineDeadError``, ``WorkerProc initialization failed``) are weakest. The strongest
   finding wins, the earliest one on a tie, because later errors are usually consequences. The
   rule that won is the result's ``cause`` (finer than the twelve categories, each with its own
   fix: ``dtype_unsupported_on_gpu``, ``compiler_missing``, ``quantization_unsupported``,
   ``attention_backend_unsupported`` and ``container_runtime_mode`` under cuda_driver_mismatch,
   ``max_model_len_too_large``, ``architecture_unsupported``, ``gguf_architecture_unsupported``,
   ``quantization_mismatch``, ``batched_tokens_below_max_model_len``, ``transformers_incompatible``,
   ``local_path_not_found`` and ``cache_dir_permission`` under model_files, ``quant_tp_misaligned``
   and ``nccl_network`` under tensor_parallel_config, ``wsl_make_resident`` under wsl_specific,
   ``unrecognized_argument`` under engine_core_generic, where a start fails before any engine runs;
   ``torchvision_torch_mismatch``, ``system_lib_too_old``, ``native_windows_unsupported``,
   ``vllm_too_old_for_model``, ``pp_unsupported``, ``reinit_in_forked_subprocess``, ``ray_not_installed``,
   ``dependency_too_old``, ``dependency_version_mismatch``, ``v1_engine_unsupported``,
   ``attention_backend_unknown``, ``triton_libcuda_not_found``, ``vllm_not_installed``,
   ``wrapper_config_key_missing``, ``embedding_checkpoint_needs_pooling_task`` and more: each rule's comment in _RULE_TABLE names the raise site it
   was written from).
   Some causes need the traceback around the exception line (``_caller_findings``): who passed vLLM
   an argument or imported a vllm module it lacks (a wrapper written for another release:
   ``wrapper_vllm_version_mismatch``; vLLM's own code: ``vllm_install_incomplete``; a native Windows
   Python: ``native_windows_unsupported``), which code asked
   the Hub for a local directory (``local_path_taken_for_hub_id``), whether a KeyError came from
   load_weights (``checkpoint_weight_name_mismatch``).
3. An exception no rule knows is placed by the frame that raised it (uvloop, the multimodal
   processor, the weight loader, torch.cuda init); a traceback cut before its exception line
   counts weakly by where it stopped. A real but unknown exception behind a wrapper gives
   ``unknown`` with that exception as evidence rather than blaming the wrapper.
4. A bare kill (``Killed``, SIGKILL, exit code -9/137, ``Failed core proc(s): {...: -9}``) counts
   as host OOM only with support: an OOM word, a memory-heavy phase right before it, or the
   kernel's OOM-killer line in ``live['dmesg']`` (naming a pid from the log: near certain).
   Otherwise it stays engine_core_generic, and the fix says how to check for the OOM killer.
   Errors printed after an external stop (SIGTERM, Ctrl-C, uvicorn's ``Shutting down``,
   systemd ``Stopping``) are shutdown noise and are ignored; a journal holding several start
   attempts is judged on the last attempt that shows a cause. Only the last MAX_LINES lines
   are read.
5. The fix names this project's variables (``vllm_service_options``, ``vllm_service_env``,
   ``vllm_service_port``, ``vllm_python_version``, ``vllm_install_*``, ``vllm_model_source``,
   ``vllm_wsl_memory``/``vllm_wsl_swap``) with numbers taken from the log where it gives them.
"""
from __future__ import absolute_import, division, print_function

import re

# the names the entry uses, and the parts' public names for its callers (scripts/doctor, the tests)
try:  # in the collection: module_utils import each other relatively
    from .vllm_doctor_text import (BLANK, COMMAND, FENCE, LOG, Line, MAX_LINES, MIXED_MIN_PROSE, MIXED_MIN_SHARE,
                                   NEUTRAL, PROSE, classify_line, clean_line, gather_facts, log_line_mask, parse,
                                   split_lines, strip_ansi, _EXCEPTION_RE, _STARTED_RE, _START_MARK_RE, _contributing,
                                   _exception_lines)
    from .vllm_doctor_rules import (CERTAIN, CONTEXT, CONTEXT_WEAK, Finding, LIKELY, RULES, Rule, SPECIFIC, WRAPPER,
                                    _SHUTDOWN_TRIGGER_RE, _match_rules)
    from .vllm_doctor_fixes import fix_for
    from .vllm_doctor_adjust import log_pids, _adjust, _dmesg_names_vllm
except ImportError:  # copied beside the launcher, or scripts/doctor: the parts lie side by side
    from vllm_doctor_text import (BLANK, COMMAND, FENCE, LOG, Line, MAX_LINES, MIXED_MIN_PROSE, MIXED_MIN_SHARE,
                                  NEUTRAL, PROSE, classify_line, clean_line, gather_facts, log_line_mask, parse,
                                  split_lines, strip_ansi, _EXCEPTION_RE, _STARTED_RE, _START_MARK_RE, _contributing,
                                  _exception_lines)
    from vllm_doctor_rules import (CERTAIN, CONTEXT, CONTEXT_WEAK, Finding, LIKELY, RULES, Rule, SPECIFIC, WRAPPER,
                                   _SHUTDOWN_TRIGGER_RE, _match_rules)
    from vllm_doctor_fixes import fix_for
    from vllm_doctor_adjust import log_pids, _adjust, _dmesg_names_vllm

__metaclass__ = type

CATEGORIES = (
    "gpu_oom",
    "host_oom",
    "cuda_driver_mismatch",
    "python_version_unsupported",
    "uvloop_event_loop",
    "model_files",
    "trust_remote_code",
    "tensor_parallel_config",
    "multimodal_processor",
    "wsl_specific",
    "port_in_use",
    "engine_core_generic",
)
UNKNOWN = "unknown"


# --------------------------------------------------------------------------------------------
# Shutdown noise and start attempts
# --------------------------------------------------------------------------------------------

def _shutdown_noise(lines):
    """Indexes of lines that are shutdown noise, and how the last stop happened.

    An external stop (SIGTERM, Ctrl-C, uvicorn's bare "Shutting down", systemd "Stopping") turns
    everything after it into noise until the next start attempt: the EngineDeadError and
    cancelled-task tracebacks printed while stopping are not why a start failed.
    """
    noise = set()
    in_noise = False
    started = False
    last_stop = None
    for line in lines:
        if _START_MARK_RE.search(line.text) or _START_MARK_RE.search(line.raw):
            in_noise = False
            started = False
            last_stop = None
        if _STARTED_RE.search(line.text):
            started = True
        if not in_noise and _SHUTDOWN_TRIGGER_RE.search(line.text):
            in_noise = True
            last_stop = (line, "after_start" if started else "during_start")
        if in_noise:
            noise.add(line.idx)
    return noise, last_stop


def _attempt_start(lines):
    """Index where the last start attempt begins (0 when none is marked). The process's own INFO/WARNING
    lines just before its mark (vLLM's import-time platform detection, printed before the server's
    banner) belong to that attempt: the start moves back over them, up to a line of another level."""
    last, pos = 0, None
    for at, line in enumerate(lines):
        if _START_MARK_RE.search(line.text) or _START_MARK_RE.search(line.raw):
            last, pos = line.idx, at
    while pos and lines[pos - 1].level in ("INFO", "WARNING", "DEBUG") and lines[pos - 1].idx + 1 == last:
        pos -= 1
        last = lines[pos].idx
    return last


# --------------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------------

def _confidence(best, findings):
    conf = best.strength / 100.0
    same = [f for f in findings if f.category == best.category and f is not best and f.kind != "marker"]
    conf += min(0.06, 0.03 * len(same))
    rivals = [f for f in findings if f.category != best.category and f.kind != "wrapper"
              and f.strength >= best.strength - 10]
    if rivals:
        conf -= 0.1
    if best.category == "engine_core_generic" and best.kind == "wrapper":
        conf = min(conf + 0.2, 0.45)
    return round(max(0.05, min(0.98, conf)), 2)


def _evidence(line):
    return line.raw.strip() or line.text


def _choose(findings):
    return max(findings, key=lambda f: (f.strength, -f.line.idx))


def diagnose(log_text, live=None):
    """Diagnose a vLLM start-up log.

    ``live`` (optional) holds facts from the host: ``dmesg`` (kernel log text), ``port_holders``
    ({port: "pid 12 (python3): cmdline"}), ``gpu_free_mib`` (list of ints), ``port`` (int).
    Returns {"category", "evidence", "fix", "confidence", "other_findings": [...], "ignored_lines"}
    and, when a cause is named, "cause" (the finer rule) and "contributing_facts" (facts of the log
    that made it worse: a venv on a Windows drive, a stop during start-up). ``ignored_lines``
    counts the lines of prose and suggested commands around a pasted log that were not read.
    """
    lines, ignored = parse(log_text, log_only=True)
    result = _diagnose_lines(lines, live or {})
    result["ignored_lines"] = ignored
    # The headline is the strongest finding: nothing listed under it may claim more confidence.
    for other in result["other_findings"]:
        other["confidence"] = min(other["confidence"], result["confidence"])
    return result


def _diagnose_lines(lines, live):
    facts = gather_facts(lines)
    if live.get("port") and not facts.get("port"):
        facts["port"] = live["port"]

    noise, last_stop = _shutdown_noise(lines)
    facts["stop"] = last_stop
    if last_stop:
        raised = next((l for l in lines[last_stop[0].idx:last_stop[0].idx + 5] if _EXCEPTION_RE.match(l.text)
                       and not l.text.startswith("raise ")), last_stop[0])
        facts["stop_text"] = raised.text[:80]
    considered = [line for line in lines if line.idx not in noise]
    findings = _adjust(_match_rules(considered), considered, facts, live)

    # Live facts the log cannot show.
    oom_line, same_pid = _dmesg_names_vllm(live.get("dmesg") or "", log_pids(lines))
    if oom_line:
        pseudo = Line(-1, oom_line, oom_line, None)
        findings.append(Finding("host_oom", CERTAIN + 2 if same_pid else SPECIFIC + 5, pseudo,
                                "live_oom_killer", None, "error"))
    port = facts.get("port")
    holders = live.get("port_holders") or {}
    if port is not None and (holders.get(port) or holders.get(str(port))) and not any(
            f.category == "port_in_use" for f in findings):
        holder = holders.get(port) or holders.get(str(port))
        text = "port %s is held by %s" % (port, holder)
        pseudo = Line(-1, text, text, None)
        if "vllm" not in holder.lower() or not facts["started"]:
            findings.append(Finding("port_in_use", CONTEXT, pseudo, "live_port_holder", None, "context"))

    free = [x for x in (live.get("gpu_free_mib") or []) if isinstance(x, int)]
    if free and min(free) < 1024:
        text = "GPU memory free now: %s MiB (another process holds the GPU)" % ", ".join(str(x) for x in free)
        pseudo = Line(-1, text, text, None)
        findings.append(Finding("gpu_oom", CONTEXT - 5, pseudo, "live_gpu_full", None, "context"))

    attempt = _attempt_start(lines)
    in_attempt = [f for f in findings if f.line.idx >= attempt or f.line.idx < 0]
    pool = [f for f in in_attempt if f.strength >= CONTEXT] or [f for f in findings if f.strength >= CONTEXT] \
        or in_attempt or findings

    if not pool:
        if last_stop:
            stop_line, how = last_stop
            fix = ("No start-up failure found: the server %s and was then stopped by a signal; the errors after "
                   "that are shutdown noise." % ("had started" if how == "after_start" else "was still starting"))
            if how == "during_start":
                fix += (" If systemd stopped it, raise TimeoutStartSec / VLLM_ENGINE_READY_TIMEOUT_S in "
                        "vllm_service_env for slow first starts.")
            return {"category": UNKNOWN, "evidence": _evidence(stop_line), "fix": fix, "confidence": 0.2,
                    "other_findings": []}
        exc = None
        for line in reversed(considered):
            if _EXCEPTION_RE.match(line.text) and not line.text.startswith("raise "):
                exc = line
                break
        return {
            "category": UNKNOWN,
            "evidence": _evidence(exc) if exc else "",
            "fix": ("No known cause matched. %s" % ("The last error was: %s" % exc.text[:200] if exc else
                                                     "The log holds no error line; capture the full start-up log.")),
            "confidence": 0.1 if exc is None else 0.2,
            "other_findings": [],
        }

    best = _choose(pool)
    if best.strength < CONTEXT and best.kind in ("marker", "frame"):
        # A WSL marker or a stray frame alone is no failure: a healthy log carries them too.
        failed = any(f.kind in ("wrapper", "kill", "error") for f in findings) or any(
            _EXCEPTION_RE.match(l.text) and not l.text.startswith("raise ") for l in considered)
        if not failed:
            started = facts["started"]
            return {
                "category": UNKNOWN,
                "evidence": "",
                "fix": ("No failure found in the log%s; %s was noted only as context."
                        % (" (the server reported it had started)" if started else "", best.category)),
                "confidence": 0.15,
                "other_findings": _others(findings, None),
            }
    # A real but unrecognised exception beats a bare wrapper: say so instead of blaming the wrapper.
    if best.category == "engine_core_generic" and best.kind == "wrapper" and best.rule not in ("ready_timeout",):
        unknown_exc = _unrecognised_exception([l for l in considered if l.idx >= attempt] or considered,
                                              findings)
        if unknown_exc is not None:
            others = _others(findings, None)
            return {
                "category": UNKNOWN,
                "evidence": _evidence(unknown_exc),
                "fix": ("The engine failed with an error outside the known causes: %s. Fix that error; the "
                        "'Engine core initialization failed' line is only vLLM's wrapper." % unknown_exc.text[:200]),
                "confidence": 0.3,
                "other_findings": others,
            }

    fix = fix_for(best, facts, live, considered)
    confidence = _confidence(best, findings)
    if 0 <= best.line.idx < attempt:
        fix = "(Seen in an earlier start attempt; the last attempt shows no cause of its own.) " + fix
        confidence = round(max(0.05, confidence - 0.15), 2)
    return {
        "category": best.category,
        "cause": best.rule,
        "evidence": _evidence(best.line),
        "fix": fix,
        "confidence": confidence,
        "other_findings": _others(findings, best),
        "contributing_facts": _contributing(facts, lines),
    }


_GENERIC_EXC_IGNORE = re.compile(r"^(?:RuntimeError: Engine|Exception: WorkerProc|KeyboardInterrupt|"
                                 r"AttributeError: '\w*Communicator' object|Exception ignored|BrokenPipeError|"
                                 r"ConnectionResetError|ConnectionRefusedError|zmq\.error\.|ProcessLookupError|"
                                 r"queue\.Empty|ChildProcessError|SystemError: <built-in|OSError: \[Errno 9\]|"
                                 r"asyncio\.exceptions\.CancelledError|CancelledError|SystemExit|"
                                 r"\w*EngineDeadError|UserWarning|DeprecationWarning|FutureWarning|RuntimeWarning|"
                                 r"ResourceWarning|"
                                 # Ray's actor wrapper: the creation task's own error is inside it
                                 r"ray\.exceptions\.ActorDiedError: The actor died because of an error raised in "
                                 r"its creation task)")


def _unrecognised_exception(lines, findings):
    known = set(f.line.idx for f in findings)
    for line, match in _exception_lines(lines, known, _GENERIC_EXC_IGNORE.match):
        if line.level in ("WARNING", "WARN", "INFO", "DEBUG"):
            continue
        if not match.group(2):
            continue
        return line
    return None


def _others(findings, best):
    seen = {best.category} if best is not None else set()
    out = []
    for finding in sorted(findings, key=lambda f: (-f.strength, f.line.idx)):
        if finding.category in seen or finding.strength < CONTEXT_WEAK - 5:
            continue
        seen.add(finding.category)
        out.append({"category": finding.category, "evidence": _evidence(finding.line),
                    "confidence": round(min(0.9, finding.strength / 100.0), 2)})
    return out
