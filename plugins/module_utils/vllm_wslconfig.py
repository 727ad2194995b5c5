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

Lines end at ``\n`` only (a ``\r`` before it is part of the ending), as WSL splits them: a form
feed, a vertical tab or a Unicode line separator (U+2028, U+2029, U+0085) inside a comment is part
of that line. Blanks are WSL's (C's ``isspace``: space, tab, CR, VT, FF), not Unicode's.

Reading and writing (``read_config``, ``write_file``) trust no link and no special file: only a
regular file of at most 1 MiB is read (a FIFO or ``/dev/zero`` is refused, never read); a linked
file is edited in place when its target is a regular file owned by the link's owner (the new
content is written beside the target and renamed over it; the link stays), else refused naming
the link; backups are new files (O_CREAT|O_EXCL|O_NOFOLLOW), never written through a link.

Sizes given by the user (``vllm_wsl_memory``, ``vllm_wsl_swap`` ...) are whole numbers with a
unit, within bounds (``user_size``); the rule's own results are checked against the same bounds.

The memory rule (``plan_memory``) is documented on the function.
"""
from __future__ import absolute_import, division, print_function

import difflib
import errno
import os
import re
import stat
from fractions import Fraction

from .vllm_common import atomic_write

__metaclass__ = type

KIB = 1024
MIB = 1024 * KIB
GIB = 1024 * MIB

# WSL's blanks (C isspace without the newline that ends a line), not Python's Unicode whitespace
_WS = " \t\r\x0b\x0c"
_SECTION = re.compile(r"^([ \t\r\x0b\x0c]*)\[([^\]]*)\](.*)$", re.S)
_KEY = re.compile(r"^([ \t\r\x0b\x0c]*)([^= \t\r\x0b\x0c#;\[][^=]*?)([ \t\r\x0b\x0c]*)=(.*)$", re.S)
_SIZE = re.compile(r"^[ \t]*(\d{1,30}(?:\.\d{1,30})?)[ \t]*([kmgt]?)(?:i?b)?[ \t]*$", re.I)
_USER_SIZE = re.compile(r"^[ \t]*(\d{1,30})[ \t]*([kmgt]?)(?:i?b)?[ \t]*$", re.I)
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
    """Text -> bytes. UTF-16 files are written as UTF-8 (Windows ignores UTF-16); a BOM stays.
    Text that starts with U+FEFF (a UTF-16 file with two BOMs) gets a BOM before it, so the
    character is not read back as a BOM and lost."""
    if encoding == "utf-8-sig" or text.startswith("\ufeff"):
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
    exact = Fraction(match.group(1)) * _UNITS[match.group(2).lower()]
    if exact.denominator != 1:  # never rounded silently into another number
        raise WslConfigError("%r is not a whole number of bytes; accepted: a number with KB, MB, GB or TB, e.g. "
                             "8GB or 512MB" % (value,))
    return int(exact)


# Bounds for sizes given by the user or computed by the rule (WSL's VM needs at least 1 GB to boot
# a distro; swap is off (0) or at least 1 GB, as the rule rounds it).
MIN_MEMORY = GIB
MIN_SWAP = GIB
MAX_SIZE = 64 * 1024 * GIB  # 64 TB: more than any Windows machine holds
NAMES = {"memory": "vllm_wsl_memory", "swap": "vllm_wsl_swap", "windows_memory": "vllm_wsl_windows_memory",
         "overhead": "vllm_wsl_runtime_overhead"}
# kind -> (minimum, 0 allowed)
# Windows' RAM must leave MIN_MEMORY to WSL once Windows keeps its share (4 GB at least): 5 GB
SIZE_KINDS = {"memory": (MIN_MEMORY, False), "swap": (MIN_SWAP, True), "windows_memory": (5 * GIB, False),
              "overhead": (0, True)}


def size_rule(kind):
    """What a size of ``kind`` may be, in words (for error messages)."""
    minimum, zero = SIZE_KINDS[kind]
    if not minimum:
        span = "from 0 to %s" % format_size(MAX_SIZE)
    else:
        span = "%sfrom %s to %s" % ("0 or " if zero else "", format_size(minimum), format_size(MAX_SIZE))
    return "a whole number with KB, MB, GB or TB (e.g. 16GB or 512MB; bytes without a unit), %s" % span


def size_problem(value, kind):
    """None when ``value`` is an acceptable user-given size of ``kind`` (see SIZE_KINDS), else what
    is wrong with it, in words."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        return "not a size"
    if isinstance(value, int):
        number = value
    else:
        match = _USER_SIZE.match(strip_quotes(value))
        if not match:
            return "not a size" if not _SIZE.match(strip_quotes(value)) else "not a whole number"
        number = int(match.group(1)) * _UNITS[match.group(2).lower()]
    minimum, zero = SIZE_KINDS[kind]
    if number == 0 and zero:
        return None
    if number < minimum:
        return "below %s" % format_size(minimum)
    if number > MAX_SIZE:
        return "above %s" % format_size(MAX_SIZE)
    return None


def user_size(kind, value, names=None):
    """A size the user gave (``kind``: memory, swap, windows_memory, overhead) -> bytes, or
    WslConfigError naming the variable (``names`` maps kinds to names; default the role's
    variables), the value and what is accepted."""
    name = (names or NAMES).get(kind, kind)
    problem = size_problem(value, kind)
    if problem:
        raise WslConfigError("%s: %r is %s; accepted: %s" % (name, value, problem, size_rule(kind)))
    return parse_size(value)


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
    value = value.strip(_WS)
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return value[1:-1]
    return value


# ---------------------------------------------------------------------------------------------
# the document


def _split_value(rest):
    """The part after ``=`` -> (leading spaces, value, trailing: spaces + comment + nothing else).

    A ``#`` or ``;`` outside double quotes starts a comment."""
    lead = rest[:len(rest) - len(rest.lstrip(_WS))]
    body = rest[len(lead):]
    quoted = False
    end = len(body)
    for index, char in enumerate(body):
        if char == '"':
            quoted = not quoted
        elif char in "#;" and not quoted:
            end = index
            break
    value = body[:end].rstrip(_WS)
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
        if match and (not match.group(3).strip(_WS) or match.group(3).strip(_WS)[0] in "#;"):
            self.kind = "section"
            self.section = match.group(2).strip(_WS)
            return
        stripped = text.strip(_WS)
        if not stripped:
            self.kind = "blank"
        elif stripped[0] in "#;":
            self.kind = "comment"
        else:
            match = _KEY.match(text)
            if match:
                self.kind = "key"
                self.key = match.group(2).strip(_WS)
                self._indent, self._key_raw, self._pre_eq = match.group(1), match.group(2), match.group(3)
                self._lead, self.raw_value, self._trail = _split_value(match.group(4))

    @property
    def value(self):
        return strip_quotes(self.raw_value)

    def set_value(self, value):
        quoted = len(self.raw_value) >= 2 and self.raw_value[0] == self.raw_value[-1] == '"'
        self.raw_value = '"%s"' % value if quoted else value
        trail = self._trail
        if not self.raw_value and trail and trail[0] not in _WS:
            trail = " " + trail
        self.text = "%s%s%s=%s%s%s" % (self._indent, self._key_raw, self._pre_eq, self._lead,
                                       self.raw_value, trail)


class Document(object):
    """A parsed INI file that writes itself back byte for byte unless a value is set."""

    def __init__(self, text, encoding="utf-8"):
        self.encoding = encoding
        self.lines = []
        for chunk in split_lines(text):
            if chunk.endswith("\r\n"):
                body, eol = chunk[:-2], "\r\n"
            elif chunk.endswith("\n"):
                body, eol = chunk[:-1], "\n"
            else:
                body, eol = chunk, ""
            self.lines.append(Line(body, eol))
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


def split_lines(text):
    """Lines as WSL sees them: each ends at ``\n`` (kept, with a ``\r`` before it); ``\r`` alone,
    form feeds, vertical tabs and Unicode line separators are characters of the line."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _blank(eol):
    line = Line("", eol)
    line.owner = None
    return line


def _same(left, right):
    if left is None or right is None:
        return left is right
    return left.strip(_WS).lower() == right.strip(_WS).lower()


def unified_diff(before, after, path):
    """A unified diff of two texts; line endings shown as ``\\r`` where they differ."""
    return "".join(difflib.unified_diff(split_lines(before), split_lines(after),
                                        fromfile=path + " (before)", tofile=path + " (after)"))


# ---------------------------------------------------------------------------------------------
# values that hold


def value_holds(current, wanted, compare="equal"):
    """Whether ``current`` (a string from the file, or None) already satisfies ``wanted``.

    ``equal``: the same text, booleans case-insensitively; ``size``: the same number of bytes
    (``16GB`` holds for ``16384MB``); ``size_at_least``: at least that many bytes; ``if_absent``:
    any value already there holds (a key set only where the file lacks it)."""
    if current is None:
        return False
    if compare == "if_absent":  # any value the user put there stays
        return True
    if compare in ("size", "size_at_least"):
        try:
            have = parse_size(current)
        except WslConfigError:
            return False
        want = parse_size(wanted)
        return have >= want if compare == "size_at_least" else have == want
    if str(wanted).lower() in ("true", "false"):
        return current.strip(_WS).lower() == str(wanted).lower()
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
                overhead_bytes=RUNTIME_OVERHEAD, memory=None, swap=None, names=None):
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
    - bounds (WslConfigError naming the variable, ``names`` as in user_size): user sizes are whole
      numbers, memory from 1 GB to the machine's RAM, swap 0 or from 1 GB; the RAM must leave at
      least 1 GB to WSL; what the rule computes is checked against the same bounds.

    Returns ``{"settings": [...for apply_settings], "need", "cap", "reasons": [str], "warnings": [str]}``.
    """
    reasons, warnings, settings = [], [], []
    names = dict(NAMES, **(names or {}))
    if ram_bytes:
        user_size("windows_memory", int(ram_bytes), names)
    user_size("overhead", int(overhead_bytes), names)
    if memory:
        memory = format_size(user_size("memory", memory, names))
        if ram_bytes and parse_size(memory) > int(ram_bytes):
            raise WslConfigError("%s: %r is more than the machine's RAM (%s); accepted: %s, at most the RAM"
                                 % (names["memory"], memory, format_size(ram_bytes), size_rule("memory")))
    if swap:
        swap = format_size(user_size("swap", swap, names))
    need = max(0, int(model_bytes)) + int(overhead_bytes)
    cap = None
    if ram_bytes:
        cap = int(ram_bytes) - max(WINDOWS_RESERVE_MIN, int(ram_bytes) // 4)
        if cap < MIN_MEMORY:
            raise WslConfigError("%s: %s of RAM leaves %s to WSL once Windows keeps max(4 GB, a quarter); accepted: "
                                 "RAM that leaves at least %s (%s or more)" % (
                                     names["windows_memory"], format_size(ram_bytes), _human(max(cap, 0)),
                                     format_size(MIN_MEMORY), format_size(MIN_MEMORY + WINDOWS_RESERVE_MIN)))
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
        target = max(MIN_MEMORY, round_up_gib(min(need, cap)))
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
    for item in settings:  # what the rule computed holds to the same bounds as what a user gives
        user_size(item["key"], item["value"], names)
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


MAX_BYTES = 1024 * 1024  # a .wslconfig is a few hundred bytes; a larger file is not one


def _kind(mode):
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder")):
        if test(mode):
            return name
    return "not a regular file"


def _lstat(path):
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None


def resolve_config(path):
    """The file an edit of ``path`` reads and replaces. A link is followed only to a regular file
    owned by the link's owner (or by us): that file is edited in place and the link stays. A link
    to anything else (missing, a folder, a FIFO, another user's file) is refused, naming it."""
    info = _lstat(path)
    if info is None or not stat.S_ISLNK(info.st_mode):
        return path
    target = os.path.realpath(path)
    found = _lstat(target)
    if found is None:
        raise WslConfigError("%s is a link to %s, which does not exist; refused (the link is not replaced): point "
                             "it at a file or remove it" % (path, target))
    if not stat.S_ISREG(found.st_mode):
        raise WslConfigError("%s is a link to %s, which is %s; refused" % (path, target, _kind(found.st_mode)))
    if found.st_uid not in (info.st_uid, os.geteuid()):
        raise WslConfigError("%s is a link to %s, owned by another user (uid %d, the link's owner is uid %d); "
                             "refused" % (path, target, found.st_uid, info.st_uid))
    return target


def read_config(path, limit=MAX_BYTES):
    """-> (bytes, or None when the file does not exist; the real path an edit writes).

    Only a regular file is read (lstat, then opened with O_NONBLOCK and O_NOFOLLOW and fstat'ed:
    a FIFO never blocks, a device is never read), and at most ``limit`` bytes; anything else, or
    a larger file, is refused with the reason."""
    real = resolve_config(path)
    info = _lstat(real)
    if info is None:
        return None, real
    if not stat.S_ISREG(info.st_mode):
        raise WslConfigError("%s is %s; refused: only a regular file is read" % (real, _kind(info.st_mode)))
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(real, flags)
    try:
        now = os.fstat(fd)
        if not stat.S_ISREG(now.st_mode) or (now.st_dev, now.st_ino) != (info.st_dev, info.st_ino):
            raise WslConfigError("%s changed while it was opened; refused" % real)
        if now.st_size > limit:
            raise WslConfigError("%s is %d bytes; accepted: at most %d bytes (%d KiB) - that is not a WSL config "
                                 "file" % (real, now.st_size, limit, limit // 1024))
        chunks, size = [], 0
        while size <= limit:
            block = os.read(fd, limit + 1 - size)
            if not block:
                break
            chunks.append(block)
            size += len(block)
        if size > limit:
            raise WslConfigError("%s is more than %d bytes; accepted: at most %d bytes" % (real, limit, limit))
        return b"".join(chunks), real
    finally:
        os.close(fd)


def backup_name(path, exists=os.path.lexists):
    """``FILE.vllm-backup`` for the first change (the user's original, never overwritten), then
    ``FILE.vllm-backup.1``, ``.2`` ... (a dangling link counts as taken)."""
    candidate = path + ".vllm-backup"
    number = 0
    while exists(candidate):
        number += 1
        candidate = "%s.vllm-backup.%d" % (path, number)
    return candidate


def _write_backup(path, data, mode):
    """A new backup file beside ``path``: O_CREAT|O_EXCL|O_NOFOLLOW, so an existing file or a link
    (dangling or not) is never followed or overwritten; the next free name is taken instead."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(1000):
        candidate = backup_name(path)
        try:
            fd = os.open(candidate, flags, mode)
        except OSError as exc:
            if exc.errno in (errno.EEXIST, errno.ELOOP):
                continue  # taken meanwhile
            raise
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        return candidate
    raise WslConfigError("no free backup name beside %s" % path)


def write_file(path, result, backup=True):
    """Write an edit's result: copy the old bytes to a new backup and read it back, then write the
    new bytes to a temporary file beside the real file (the target when ``path`` is a link, see
    resolve_config) and rename it over. Keeps the old file's mode (and owner, as root).
    Returns the backup's path (None when there was nothing to back up)."""
    real = resolve_config(path)
    backup_path = None
    old = None
    if result["before"] is not None:
        old = _lstat(real)
        if old is not None and not stat.S_ISREG(old.st_mode):
            raise WslConfigError("%s is %s; refused" % (real, _kind(old.st_mode)))
        if backup:
            mode = stat.S_IMODE(old.st_mode) & 0o666 if old is not None else 0o600
            backup_path = _write_backup(real, result["before"], mode)
            flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
            fd = os.open(backup_path, flags)
            try:
                back = os.read(fd, len(result["before"]) + 1)
            finally:
                os.close(fd)
            if back != result["before"]:
                raise WslConfigError("the backup %s does not read back as written; %s left as it was"
                                     % (backup_path, path))
    # a new file keeps the old one's mode and owner (drvfs without metadata: not kept anyway);
    # a file written for the first time is 0600, as mkstemp made it
    atomic_write(real, result["after"], mode=0o600, like=old)
    return backup_path


def windows_ram(given, probe):
    """Windows' RAM for the .wslconfig sizing: the value given (vllm_wsl_windows_memory), else
    what the probe printed when it ran, succeeded and printed a number, else ``''``."""
    if len(given) > 0:
        return given
    if probe.get("skipped", False) or probe["rc"] != 0:
        return ""
    text = str(probe["stdout"]).strip()
    return text if re.match("^[0-9]+$", text) else ""


def wsl_notices(profile, wslconfig, conf):
    """What the WSL role tells the user: that .wslconfig was left alone (no Windows profile),
    then the rule warnings of the .wslconfig and /etc/wsl.conf edits (their registered results)."""
    notices = [] if len(profile) > 0 else [
        ".wslconfig left alone: WSL interop is off and vllm_wsl_windows_profile is empty"]
    return notices + wslconfig.get("warnings_rule", []) + conf.get("warnings_rule", [])
