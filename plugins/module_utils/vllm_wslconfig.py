# -*- coding: utf-8 -*-
"""Edit WSL's INI files (``.wslconfig``, ``/etc/wsl.conf``) line by line, keeping everything else.

Pure standard library: used by the ``vllm_wslconfig`` module, ``scripts/wslconfig`` and the tests.

How WSL reads these files (its parser descends from git's config parser): ``[section]`` headers,
``key = value`` lines, ``#`` or ``;`` starts a comment (also after a value, outside double
quotes), section and key names are matched case-insensitively, and when a key appears twice the
last one wins. Windows reads ``.wslconfig`` as UTF-8; a file saved as UTF-16 (what Notepad and
PowerShell's ``Out-File`` wrote for years) is ignored without a word.

An edit changes only the lines that must change: a value is replaced in place (key spelling,
spaces around ``=``, quotes and a trailing comment stay); a missing key is added after the last
key of its section (or a new section at the end); comments, order, casing, blank lines, every
line's own ending (CRLF or LF) and a UTF-8 BOM are kept.

The memory rule (``plan_memory``) is documented on the function.
"""
from __future__ import absolute_import, division, print_function

import difflib
import re

__metaclass__ = type

KIB = 1024
MIB = 1024 * KIB
GIB = 1024 * MIB

_SECTION = re.compile(r"^(\s*)\[([^\]]*)\](.*)$")
_KEY = re.compile(r"^(\s*)([^=\s#;\[][^=]*?)(\s*)=(.*)$")
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*$", re.I)
_UNITS = {"": 1, "k": KIB, "m": MIB, "g": GIB, "t": 1024 * GIB}


class WslConfigError(Exception):
    """Bad input (a size, a setting) or a file that cannot be read as text."""


# ---------------------------------------------------------------------------------------------
# encodings


def decode(raw):
    """Bytes of a config file -> (text, encoding). ``encoding`` is one of ``utf-8``,
    ``utf-8-sig`` (UTF-8 with a BOM), ``utf-16-le``, ``utf-16-be`` (with or without a BOM).
    Raises WslConfigError for bytes that are neither."""
    try:
        return _decode(raw)
    except UnicodeDecodeError as exc:
        raise WslConfigError("not UTF-8 or UTF-16 text (%s)" % exc)


def _decode(raw):
    if raw.startswith(b"\xef\xbb\xbf"):
        return raw[3:].decode("utf-8"), "utf-8-sig"
    if raw.startswith(b"\xff\xfe"):
        return raw[2:].decode("utf-16-le"), "utf-16-le"
    if raw.startswith(b"\xfe\xff"):
        return raw[2:].decode("utf-16-be"), "utf-16-be"
    if len(raw) >= 4 and b"\x00" in raw:
        # UTF-16 without a BOM: ASCII text has a NUL in every other byte
        even, odd = raw[0::2], raw[1::2]
        if odd.count(0) > len(odd) * 0.4 and even.count(0) < len(even) * 0.1:
            return raw.decode("utf-16-le"), "utf-16-le"
        if even.count(0) > len(even) * 0.4 and odd.count(0) < len(odd) * 0.1:
            return raw.decode("utf-16-be"), "utf-16-be"
    return raw.decode("utf-8"), "utf-8"


def is_utf16(encoding):
    return encoding.startswith("utf-16")


def encode(text, encoding):
    """Text -> bytes. UTF-16 files are written as UTF-8 (Windows ignores UTF-16); a BOM stays."""
    if encoding == "utf-8-sig":
        return b"\xef\xbb\xbf" + text.encode("utf-8")
    return text.encode("utf-8")


# ---------------------------------------------------------------------------------------------
# sizes


def parse_size(value):
    """WSL size -> bytes: ``8GB``, ``8G``, ``512MB``, ``1.5GB``, ``1TB``, ``1048576`` (bytes).
    Units are binary, as WSL counts them (1GB = 1024 MB). Raises WslConfigError."""
    if isinstance(value, bool):
        raise WslConfigError("%r is not a size" % (value,))
    if isinstance(value, int):
        return value
    text = strip_quotes(str(value))
    match = _SIZE.match(text)
    if not match:
        raise WslConfigError("%r is not a size; accepted: a number with KB, MB, GB or TB, e.g. 8GB or 512MB"
                             % (value,))
    return int(float(match.group(1)) * _UNITS[match.group(2).lower()])


def format_size(num_bytes):
    """Bytes -> the shortest exact WSL size: ``16GB``, ``1536MB``; 0 -> ``0``."""
    num_bytes = int(num_bytes)
    if num_bytes == 0:
        return "0"
    for unit, factor in (("TB", 1024 * GIB), ("GB", GIB), ("MB", MIB), ("KB", KIB)):
        if num_bytes % factor == 0:
            return "%d%s" % (num_bytes // factor, unit)
    return str(num_bytes)


def round_up_gib(num_bytes):
    return -(-int(num_bytes) // GIB) * GIB


def strip_quotes(value):
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return value[1:-1]
    return value


# ---------------------------------------------------------------------------------------------
# the document


def _split_value(rest):
    """The part after ``=`` -> (leading spaces, value, trailing: spaces + comment + nothing else).

    A ``#`` or ``;`` outside double quotes starts a comment."""
    lead = rest[:len(rest) - len(rest.lstrip(" \t"))]
    body = rest[len(lead):]
    quoted = False
    end = len(body)
    for index, char in enumerate(body):
        if char == '"':
            quoted = not quoted
        elif char in "#;" and not quoted:
            end = index
            break
    value = body[:end].rstrip(" \t")
    return lead, value, body[len(value):]


class Line(object):
    """One physical line: ``text`` without its ending, ``eol`` the ending (``\\r\\n``, ``\\n``, '')."""

    def __init__(self, text, eol):
        self.text = text
        self.eol = eol
        self.kind = "other"
        self.section = None
        self.key = None
        match = _SECTION.match(text)
        if match and (not match.group(3).strip() or match.group(3).strip()[0] in "#;"):
            self.kind = "section"
            self.section = match.group(2).strip()
            return
        stripped = text.strip()
        if not stripped:
            self.kind = "blank"
        elif stripped[0] in "#;":
            self.kind = "comment"
        else:
            match = _KEY.match(text)
            if match:
                self.kind = "key"
                self.key = match.group(2).strip()
                self._indent, self._key_raw, self._pre_eq = match.group(1), match.group(2), match.group(3)
                self._lead, self.raw_value, self._trail = _split_value(match.group(4))

    @property
    def value(self):
        return strip_quotes(self.raw_value)

    def set_value(self, value):
        quoted = len(self.raw_value) >= 2 and self.raw_value[0] == self.raw_value[-1] == '"'
        self.raw_value = '"%s"' % value if quoted else value
        trail = self._trail
        if not self.raw_value and trail and not trail[0].isspace():
            trail = " " + trail
        self.text = "%s%s%s=%s%s%s" % (self._indent, self._key_raw, self._pre_eq, self._lead,
                                       self.raw_value, trail)


class Document(object):
    """A parsed INI file that writes itself back byte for byte unless a value is set."""

    def __init__(self, text, encoding="utf-8"):
        self.encoding = encoding
        self.lines = []
        for chunk in text.splitlines(True):
            body = chunk.rstrip("\r\n")
            self.lines.append(Line(body, chunk[len(body):]))
        crlf = sum(1 for line in self.lines if line.eol == "\r\n")
        lf = sum(1 for line in self.lines if line.eol == "\n")
        self.newline = "\r\n" if crlf > lf else "\n"
        current = None
        for line in self.lines:
            if line.kind == "section":
                current = line.section
            line.owner = current

    @classmethod
    def from_bytes(cls, raw):
        text, encoding = decode(raw)
        return cls(text, encoding)

    def text(self):
        return "".join(line.text + line.eol for line in self.lines)

    def to_bytes(self):
        return encode(self.text(), self.encoding)

    def _keys(self, section, key):
        return [line for line in self.lines
                if line.kind == "key" and _same(line.owner, section) and _same(line.key, key)]

    def get(self, section, key):
        """The effective value (the last occurrence, quotes removed), or None."""
        found = self._keys(section, key)
        return found[-1].value if found else None

    def set(self, section, key, value):
        """Set ``section.key`` to ``value``; True when a line changed or was added."""
        value = str(value)
        found = self._keys(section, key)
        if found:
            line = found[-1]
            if line.value == value:
                return False
            line.set_value(value)
            return True
        self._insert(section, key, value)
        return True

    def _insert(self, section, key, value):
        new = Line("%s=%s" % (key, value), self.newline)
        new.owner = section
        headers = [i for i, line in enumerate(self.lines) if line.kind == "section" and _same(line.section, section)]
        if headers:
            start = headers[-1]
            position = start + 1
            for index in range(start + 1, len(self.lines)):
                line = self.lines[index]
                if line.kind == "section":
                    break
                if line.kind == "key":
                    position = index + 1
            self._ensure_eol(position - 1)
            self.lines.insert(position, new)
            return
        if self.lines:
            self._ensure_eol(len(self.lines) - 1)
            if self.lines[-1].kind != "blank":
                self.lines.append(_blank(self.newline))
        header = Line("[%s]" % section, self.newline)
        header.owner = section
        self.lines.extend([header, new])

    def _ensure_eol(self, index):
        if 0 <= index < len(self.lines) and not self.lines[index].eol:
            self.lines[index].eol = self.newline


def _blank(eol):
    line = Line("", eol)
    line.owner = None
    return line


def _same(left, right):
    if left is None or right is None:
        return left is right
    return left.strip().lower() == right.strip().lower()


def unified_diff(before, after, path):
    """A unified diff of two texts; line endings shown as ``\\r`` where they differ."""
    return "".join(difflib.unified_diff(before.splitlines(True), after.splitlines(True),
                                        fromfile=path + " (before)", tofile=path + " (after)"))


# ---------------------------------------------------------------------------------------------
# values that hold


def value_holds(current, wanted, compare="equal"):
    """Whether ``current`` (a string from the file, or None) already satisfies ``wanted``.

    ``equal``: the same text, booleans case-insensitively; ``size``: the same number of bytes
    (``16GB`` holds for ``16384MB``); ``size_at_least``: at least that many bytes."""
    if current is None:
        return False
    if compare in ("size", "size_at_least"):
        try:
            have = parse_size(current)
        except WslConfigError:
            return False
        want = parse_size(wanted)
        return have >= want if compare == "size_at_least" else have == want
    if str(wanted).lower() in ("true", "false"):
        return current.strip().lower() == str(wanted).lower()
    return current == str(wanted)


def apply_settings(doc, settings):
    """Apply ``settings``: a list of ``{"section", "key", "value", "compare"}`` (compare as in
    value_holds; a default value, ``effective``, may stand for a key that is absent).
    Returns the list of settings that changed a line, each with ``old`` and ``new``."""
    changed = []
    for item in settings:
        current = doc.get(item["section"], item["key"])
        effective = current if current is not None else item.get("effective")
        if value_holds(effective, item["value"], item.get("compare", "equal")):
            continue
        if doc.set(item["section"], item["key"], item["value"]):
            changed.append(dict(item, old=current, new=str(item["value"])))
    return changed


def parse_assignment(text):
    """``SECTION.KEY=VALUE`` (as given to scripts/wslconfig --set) -> setting dict."""
    if "=" not in text or "." not in text.split("=", 1)[0]:
        raise WslConfigError("%r: expected SECTION.KEY=VALUE, e.g. wsl2.processors=8" % text)
    name, value = text.split("=", 1)
    section, key = name.rsplit(".", 1)
    if not section.strip() or not key.strip():
        raise WslConfigError("%r: expected SECTION.KEY=VALUE, e.g. wsl2.processors=8" % text)
    return {"section": section.strip(), "key": key.strip(), "value": value.strip(), "compare": "equal"}


# ---------------------------------------------------------------------------------------------
# the memory rule

WINDOWS_RESERVE_MIN = 4 * GIB
RUNTIME_OVERHEAD = 4 * GIB


def wsl_default_memory(ram_bytes):
    """WSL2's VM gets half of Windows' RAM when ``memory`` is not set."""
    return ram_bytes // 2


def wsl_default_swap(ram_bytes):
    """WSL2's swap is a quarter of Windows' RAM, rounded up to a whole GB, when ``swap`` is not set."""
    return round_up_gib(ram_bytes // 4)


def plan_memory(ram_bytes, model_bytes, current_memory=None, current_swap=None,
                overhead_bytes=RUNTIME_OVERHEAD, memory=None, swap=None):
    """Decide ``[wsl2] memory`` and ``swap`` for a vLLM server.

    The rule:

    - need = model size on disk + runtime overhead (default 4 GiB: Python, torch, vLLM's engine
      processes, the tokenizer, CUDA's host side). Weights pass through host memory while loading.
    - Windows keeps max(4 GiB, a quarter of its RAM); the VM gets at most ``cap`` = RAM - that.
    - memory: the VM must hold min(need, cap), rounded up to a whole GB. The current value (or
      WSL's default, half the RAM, when the line is absent) holds when it is at least that; else
      it is raised to exactly that.
    - swap: what does not fit in memory goes to swap: need - memory, rounded up to a whole GB.
      The current value (or WSL's default, a quarter of the RAM) holds when it is at least that.
    - ``memory`` / ``swap`` given by the user (a size) are set exactly, no rule applied.
    - RAM unknown (no interop and no variable): memory can only be checked, not computed; the
      current value holds when it covers the need, else the decision says so and changes nothing.

    Returns ``{"settings": [...for apply_settings], "need", "cap", "reasons": [str], "warnings": [str]}``.
    """
    reasons, warnings, settings = [], [], []
    need = int(model_bytes) + int(overhead_bytes)
    cap = None
    if ram_bytes:
        cap = int(ram_bytes) - max(WINDOWS_RESERVE_MIN, int(ram_bytes) // 4)
    reasons.append("need %s (model %s + runtime %s)" % (_human(need), _human(model_bytes), _human(overhead_bytes)))

    def effective(current, default_fn):
        if current is not None:
            return current
        return format_size(default_fn(ram_bytes)) if ram_bytes else None

    if memory:
        settings.append({"section": "wsl2", "key": "memory", "value": format_size(parse_size(memory)),
                         "compare": "size", "reason": "memory set by the user"})
        memory_final = parse_size(memory)
    elif cap is None:
        memory_final = _size_or_none(current_memory)
        if memory_final is None or memory_final < need:
            warnings.append("the machine's RAM is unknown (no WSL interop and vllm_wsl_windows_memory unset): "
                            "memory is left as it is although the model needs %s; set vllm_wsl_windows_memory "
                            "or vllm_wsl_memory" % _human(need))
    else:
        target = round_up_gib(min(need, cap))
        if need > cap:
            warnings.append("the model needs %s but only %s of %s RAM can go to WSL; the rest goes to swap "
                            "(slow)" % (_human(need), _human(cap), _human(ram_bytes)))
        settings.append({"section": "wsl2", "key": "memory", "value": format_size(target),
                         "compare": "size_at_least",
                         "effective": effective(current_memory, wsl_default_memory),
                         "reason": "memory at least %s (need %s, at most %s of %s RAM for WSL)"
                         % (format_size(target), _human(need), _human(cap), _human(ram_bytes))})
        have = _size_or_none(effective(current_memory, wsl_default_memory)) or 0
        memory_final = max(have, target)
    if swap:
        settings.append({"section": "wsl2", "key": "swap", "value": format_size(parse_size(swap)),
                         "compare": "size", "reason": "swap set by the user"})
    elif memory_final is not None:
        swap_target = round_up_gib(max(0, need - memory_final))
        settings.append({"section": "wsl2", "key": "swap", "value": format_size(swap_target),
                         "compare": "size_at_least",
                         "effective": effective(current_swap, wsl_default_swap),
                         "reason": "swap at least %s (need %s - memory %s)"
                         % (format_size(swap_target), _human(need), _human(memory_final))})
    for item in settings:
        reasons.append(item["reason"])
    return {"settings": settings, "need": need, "cap": cap, "reasons": reasons, "warnings": warnings}


def _size_or_none(value):
    try:
        return parse_size(value) if value is not None else None
    except WslConfigError:
        return None


def _human(num_bytes):
    num_bytes = int(num_bytes or 0)
    if num_bytes >= GIB:
        return "%.1f GiB" % (num_bytes / float(GIB))
    return "%.1f MiB" % (num_bytes / float(MIB))


# ---------------------------------------------------------------------------------------------
# one edit, start to end (no I/O: the caller reads and writes)


def edit(raw, settings, path="config"):
    """Bytes of a file (or None when it does not exist) and settings -> the decision:
    ``{"changed", "before", "after" (bytes), "diff", "changes", "encoding", "converted"}``.
    ``converted`` is True when a UTF-16 file had to be rewritten as UTF-8."""
    if raw is None:
        doc, before_text = Document(""), ""
    else:
        doc = Document.from_bytes(raw)
        before_text = doc.text()
    encoding = doc.encoding
    changes = apply_settings(doc, settings)
    converted = is_utf16(encoding)
    after = doc.to_bytes()
    changed = bool(changes) or converted
    diff = unified_diff(before_text, doc.text(), path)
    if converted:
        diff = "# %s was %s (Windows ignores it silently); written as UTF-8\n%s" % (path, encoding.upper(), diff)
    return {"changed": changed, "before": raw, "after": after if changed else raw, "diff": diff,
            "changes": changes, "encoding": encoding, "converted": converted}


# ---------------------------------------------------------------------------------------------
# writing: a verified backup first, then one rename


def backup_name(path, exists):
    """``FILE.vllm-backup`` for the first change (the user's original, never overwritten), then
    ``FILE.vllm-backup.1``, ``.2`` ..."""
    candidate = path + ".vllm-backup"
    number = 0
    while exists(candidate):
        number += 1
        candidate = "%s.vllm-backup.%d" % (path, number)
    return candidate


def write_file(path, result, backup=True):
    """Write an edit's result: copy the old bytes to a backup and read it back, then write the
    new bytes to a temporary file beside ``path`` and rename it over. Keeps the old file's mode.
    Returns the backup's path (None when there was nothing to back up)."""
    import os
    import tempfile

    backup_path = None
    mode = None
    if result["before"] is not None:
        try:
            mode = os.stat(path).st_mode & 0o7777
        except OSError:
            mode = None
        if backup:
            backup_path = backup_name(path, os.path.exists)
            with open(backup_path, "wb") as handle:
                handle.write(result["before"])
                handle.flush()
                os.fsync(handle.fileno())
            with open(backup_path, "rb") as handle:
                if handle.read() != result["before"]:
                    raise WslConfigError("the backup %s does not read back as written; %s left as it was"
                                         % (backup_path, path))
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(result["after"])
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            try:
                os.chmod(tmp, mode)
            except OSError:
                pass  # drvfs without metadata: modes are not kept anyway
        os.rename(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return backup_path
