# -*- coding: utf-8 -*-
"""The doctor's reading of a log: line cleaning, log lines apart from prose, facts.

One part of the doctor (``vllm_doctor.py`` is the entry and says how a diagnosis is made): colour
codes and the prefixes wrappers add are stripped (``clean_line``), each line of a pasted post is
labelled log, prose or command (``classify_line``, ``log_line_mask``), ``parse`` makes the Line
list the rules read, ``gather_facts`` takes what the log says about the host and the start (the
Python version, WSL, the port, whether it started), and the traceback helpers find exception
lines and the frames above them. Plain data in, plain data out; imports nothing of the project.
"""
from __future__ import absolute_import, division, print_function

import re

__metaclass__ = type


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
    # journald short / short-iso: "Aug 19 18:34:30 host vllm[8707]: " (argparse's "unrecognized arguments: "
    # after a docker timestamp is no host and unit)
    re.compile(r"^(?:[A-Z][a-z]{2}\s+\d{1,2}\s+\d{2}:\d{2}:\d{2}|\d{4}-\d{2}-\d{2}T[\d:.]+(?:[+-]\d{2}:?\d{2}|Z)?)"
               r"\s+(?!unrecognized arguments?:)[^\s:]+\s+[\w.@/-]+(?:\[\d+\])?:\s"),
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
    # markdown quote "> " (logs pasted into issues and chats), and the bar a rendered quote copies as
    # (U+258E, U+2502, U+2503: a quote block copied from a chat or a rendered page)
    re.compile(r"^>+\s"),
    re.compile(u"^[\u258e\u2502\u2503]\\s"),
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


# one process prefix of vLLM's multiprocess logging ("(APIServer pid=135812)", "(VllmWorker rank=0 pid=7)",
# Ray's "(RayWorkerWrapper pid=7, ip=10.0.0.2)")
_PROC_PREFIX = r"\((?:[^()\n]{0,60}?\s)?pid=\d+(?:,\s*ip=[\d.:]+)?\)"
# such a prefix preceded by a blank inside a line (the blank captured), and a text of prefixes alone
_MID_PROC_PREFIX_RE = re.compile(r"(\s+)(?=" + _PROC_PREFIX + r"\s)")
_ONLY_PROC_PREFIXES_RE = re.compile(r"^\s*(?:" + _PROC_PREFIX + r"\s*)+$")


def _unflatten(raw):
    """A paste flattened onto one line (the newlines between the log's lines lost, the prefixes kept) as
    the lines it was: split before each process prefix after the first. A line with one prefix is one
    line."""
    if raw.count("pid=") < 2:
        return [raw]
    pieces = _MID_PROC_PREFIX_RE.split(raw)  # text, blank, text, blank, ... (the blanks captured)
    lines = [pieces[0]]
    for blank, part in zip(pieces[1::2], pieces[2::2]):
        # nested prefixes of one line ("(APIServer pid=1) (EngineCore_DP0 pid=68) ERROR ...") stay one line
        if _ONLY_PROC_PREFIXES_RE.match(lines[-1]):
            lines[-1] += blank + part
        else:
            lines.append(part)
    return lines


def split_lines(log_text):
    """Split on LF, CRLF and lone CR (progress bars), returning raw lines; a line that holds several of
    vLLM's process prefixes (a flattened paste) is split before each of them."""
    if isinstance(log_text, bytes):
        log_text = log_text.decode("utf-8", "replace")
    return [part for raw in re.split(r"\r\n|\n|\r", log_text or "") for part in _unflatten(raw)]


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
    re.compile(r"^" + _LEVELS + r":[\w.]+:\S"),                            # Python logging's LEVEL:logger:message
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
    # the toolchain's own lines (a JIT build's compiler, linker, ninja), in any locale
    re.compile(r"^(?:/[\w./-]+/)?(?:ld(?:\.\w+)?|collect2|gcc|g\+\+|cc|c\+\+|nvcc|ninja): |"
               r"^[\w./-]+\.(?:c|cc|cpp|cu|cuh|h|hpp):\d+(?::\d+)?: (?:fatal )?error: "),
    re.compile(r"^\S+\.pyx?:\d+: \w*(?:Warning|Error)\b"),                     # Python warnings.warn output
    re.compile(r"^\d+ validation errors? for \w+|^Value error, |\[type=\w+, input_value="),  # pydantic
    re.compile(r"^usage: [\w.-]+ \[|^[\w.-]+: error: "),                             # argparse
    re.compile(r"^[\w.-]+: (?:[a-z]+ )?(?:error|warning|fatal)\b", re.I),               # "nvidia-container-cli: ..."
    re.compile(r"^(?:[a-z_]\w*\.)*[a-z]\w*(?:error|exception):\s", re.I),              # exceptions retyped
    # NumPy's ABI banner (numpy/core/_multiarray_umath), printed without a prefix and addressed to the reader
    re.compile(r"^A module that was compiled using NumPy 1\.x|^NumPy 2\.\S* as it may crash|"
               r"^versions of NumPy, modules must be compiled with NumPy 2|^Some module may need to rebuild instead|"
               r"^If you are a user of the module, the easiest solution will be to|^downgrade to 'numpy<2' or try|"
               r"^We expect that some modules will need time to support NumPy 2"),
]
# CJK letters (kana, ideographs, hangul) and, for _CJK_RE, the full-width punctuation written with them
_CJK_LETTERS = u"\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af"
_CJK_RE = re.compile(u"[" + _CJK_LETTERS + u"\uff01-\uff5e\u3001-\u3011]")
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
# a short label written in CJK and a colon before a pasted line ("报错：", "错误信息: "): the line after it
_CJK_LABEL_RE = re.compile(u"^[" + _CJK_LETTERS + u"]{1,8}\\s*[:\uff1a]\\s*")
_FENCE_RE = re.compile(r"^(?:```|~~~)")
# bash/sh `set -x`: each command traced as "+ cmd" ("++ cmd" in a subshell)
_XTRACE_RE = re.compile(r"^\+{1,3} (?:\[\[|\w+=|[\w./-]+(?:\s|$))")


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
    labelled = _CJK_LABEL_RE.match(unquoted)
    if labelled and any(regex.search(unquoted[labelled.end():]) for regex in _LOG_LINE_RES):
        return LOG  # "报错：RuntimeError: ..." (a short label in CJK before the line it pasted)
    if _COMMAND_RE.match(text) or _COMMAND_RE.match(unquoted) or _PROMPT_RE.match(unquoted):
        return COMMAND
    if _CJK_RE.search(text):
        return PROSE
    if line[:1] in (" ", "\t") or body[:1] in (" ", "\t"):
        return NEUTRAL  # indented: a code line, a wrapped message or a markdown code block
    if _XTRACE_RE.match(unquoted) and not _PROSE_WORD_RE.search(unquoted):
        return COMMAND  # a shell's `set -x` trace of the command it runs, not a markdown list
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
    kept (blank ones too), prose and commands dropped, and neutral lines follow the nearest labelled line before
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
    # a blank line carries nothing to read either way: kept, so the kept lines' positions stay the log's
    return [label in (LOG, NEUTRAL, BLANK) for label in resolved]


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
# Tracebacks: exception lines and the frames above them
# --------------------------------------------------------------------------------------------

_EXCEPTION_RE = re.compile(r"^(?:[A-Za-z_][\w]*\.)*([A-Z]\w*(?:Error|Exception|Exit|Interrupt|Failure))\b:?\s*(.*)$")
_FRAME_RE = re.compile(r'^(?:File "[^"]+", line \d+|File [^\s,]+:\d+, in |-> \d+ |\d+ )')


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


_FRAME_PATH_RE = re.compile(r'^File "([^"]+)", line \d+, in \S+|^File (\S+?):\d+, in \S+')
_TRANSFORMERS_IMPORT_RE = re.compile(r"^(?:from transformers[\w.]* import|import transformers)\b")


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


def _raising_frame(lines, idx, limit=8):
    """Path of the innermost traceback frame right above exception line ``idx``, if any."""
    for line in reversed(lines[max(0, idx - limit):idx]):
        match = _FRAME_PATH_RE.match(line.text)
        if match:
            return match.group(1) or match.group(2)
        if _EXCEPTION_RE.match(line.text) and not line.text.startswith("raise "):
            return None
    return None


# a Python environment on a Windows drive under WSL (a contributing fact, and the multimodal fix's path)
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
