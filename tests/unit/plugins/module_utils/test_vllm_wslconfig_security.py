"""The .wslconfig / wsl.conf editor against hostile files: links, backups through links, line
separators WSL does not split on, FIFOs and devices, absurd sizes; and properties over arbitrary
contents (hypothesis): only the memory/swap lines change, a second edit changes nothing."""
import os
import pwd
import signal
import stat

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

import vllm_wslconfig as w

GIB = w.GIB
MEMORY_16 = [{"section": "wsl2", "key": "memory", "value": "16GB", "compare": "size"}]


def read(path):
    with open(path, "rb") as handle:
        return handle.read()


def write(path, data):
    with open(path, "wb") as handle:
        handle.write(data)


@pytest.fixture
def alarm():
    """Fail instead of hanging (a FIFO read would block for ever)."""
    def boom(signum, frame):
        raise AssertionError("blocked")
    old = signal.signal(signal.SIGALRM, boom)
    signal.alarm(10)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


# ---- B1: a linked .wslconfig ----------------------------------------------------------------

def test_a_linked_file_is_edited_in_place_and_the_link_stays(tmp_path):
    real = str(tmp_path / "dotfiles" / "wslconfig")
    os.makedirs(os.path.dirname(real))
    write(real, b"[wsl2]\r\nmemory=8GB\r\n")
    link = str(tmp_path / ".wslconfig")
    os.symlink(real, link)
    raw, where = w.read_config(link)
    assert where == real and raw == b"[wsl2]\r\nmemory=8GB\r\n"
    backup = w.write_file(link, w.edit(raw, MEMORY_16))
    assert os.path.islink(link) and os.readlink(link) == real
    assert read(real) == b"[wsl2]\r\nmemory=16GB\r\n"
    assert backup == real + ".vllm-backup" and read(backup) == raw
    assert sorted(os.listdir(str(tmp_path))) == [".wslconfig", "dotfiles"]  # no temp file beside the link


def test_a_dangling_link_is_refused_not_replaced(tmp_path):
    link = str(tmp_path / ".wslconfig")
    os.symlink(str(tmp_path / "gone"), link)
    with pytest.raises(w.WslConfigError, match=r"\.wslconfig is a link to .*gone, which does not exist; refused"):
        w.read_config(link)
    with pytest.raises(w.WslConfigError, match="which does not exist"):
        w.write_file(link, w.edit(None, MEMORY_16))
    assert os.path.islink(link) and not os.path.exists(str(tmp_path / "gone"))


def test_a_link_to_a_folder_is_refused(tmp_path):
    link = str(tmp_path / ".wslconfig")
    os.symlink(str(tmp_path), link)
    with pytest.raises(w.WslConfigError, match="which is a folder; refused"):
        w.read_config(link)


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root (chown)")
def test_a_link_to_another_users_file_is_refused(tmp_path):
    other = str(tmp_path / "theirs")
    write(other, b"[wsl2]\nmemory=8GB\n")
    nobody = pwd.getpwnam("nobody")
    os.chown(other, nobody.pw_uid, nobody.pw_gid)
    link = str(tmp_path / ".wslconfig")
    os.symlink(other, link)
    os.lchown(link, 1234, 1234)  # the link belongs to a third user, the file to nobody
    with pytest.raises(w.WslConfigError, match=r"is a link to .*theirs, owned by another user"):
        w.read_config(link)
    assert read(other) == b"[wsl2]\nmemory=8GB\n"


# ---- B2: backups never through a link -------------------------------------------------------

def test_the_backup_is_never_written_through_a_dangling_link(tmp_path):
    path = str(tmp_path / ".wslconfig")
    write(path, b"[wsl2]\nmemory=8GB\n")
    elsewhere = str(tmp_path / "elsewhere")
    os.symlink(elsewhere, path + ".vllm-backup")
    raw, _ = w.read_config(path)
    backup = w.write_file(path, w.edit(raw, MEMORY_16))
    assert not os.path.exists(elsewhere)  # the link was not followed
    assert os.path.islink(path + ".vllm-backup")
    assert backup == path + ".vllm-backup.1" and read(backup) == raw
    assert not os.path.islink(backup)


def test_the_backup_never_overwrites_an_existing_link_target(tmp_path):
    path = str(tmp_path / ".wslconfig")
    write(path, b"[wsl2]\nmemory=8GB\n")
    victim = str(tmp_path / "victim")
    write(victim, b"keep")
    os.symlink(victim, path + ".vllm-backup")
    raw, _ = w.read_config(path)
    backup = w.write_file(path, w.edit(raw, MEMORY_16))
    assert read(victim) == b"keep" and backup == path + ".vllm-backup.1"


def test_backup_name_counts_a_dangling_link_as_taken(tmp_path):
    path = str(tmp_path / "f")
    os.symlink(str(tmp_path / "nowhere"), path + ".vllm-backup")
    assert w.backup_name(path) == path + ".vllm-backup.1"


# ---- B3: lines end at \n only ---------------------------------------------------------------

@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85", "\x0c", "\x0b", "\r", "\x1c", "\x1d", "\x1e"])
def test_a_separator_inside_a_comment_is_not_a_line_break(separator):
    text = "[wsl2]\r\nmemory=8GB\r\n# was:%smemory=2GB\r\n" % separator
    doc = w.Document(text)
    assert doc.get("wsl2", "memory") == "8GB"
    assert len(doc.lines) == 3
    result = w.edit(text.encode("utf-8"), MEMORY_16)
    assert result["after"] == text.replace("memory=8GB", "memory=16GB").encode("utf-8")
    assert w.split_lines(text) == ["[wsl2]\r\n", "memory=8GB\r\n", "# was:%smemory=2GB\r\n" % separator]


def test_unicode_spaces_are_not_blanks_to_wsl():
    # a no-break space before the key makes another key name for WSL; it is not our memory line
    doc = w.Document("[wsl2]\n\u00a0memory=2GB\nmemory=8GB\n")
    assert doc.get("wsl2", "memory") == "8GB"
    doc = w.Document("[wsl2]\nmemory=8GB\nmemory\u2028=2GB\n")
    assert doc.get("wsl2", "memory") == "8GB"


# ---- B4: only a regular file, bounded -------------------------------------------------------

def test_a_fifo_is_refused_without_blocking(tmp_path, alarm):
    path = str(tmp_path / ".wslconfig")
    os.mkfifo(path)
    with pytest.raises(w.WslConfigError, match=r"\.wslconfig is a FIFO; refused"):
        w.read_config(path)
    os.unlink(path)
    os.symlink("/dev/zero", path)
    with pytest.raises(w.WslConfigError, match="a character device; refused"):
        w.read_config(path)
    with pytest.raises(w.WslConfigError, match="/dev/zero is a character device; refused"):
        w.read_config("/dev/zero")


def test_a_large_file_is_refused_with_its_size(tmp_path):
    path = str(tmp_path / ".wslconfig")
    write(path, b"#" * (w.MAX_BYTES + 1))
    with pytest.raises(w.WslConfigError, match=r"is 1048577 bytes; accepted: at most 1048576 bytes"):
        w.read_config(path)
    write(path, b"[wsl2]\n" + b"#" * 1000 + b"\n")
    assert w.read_config(path)[0].startswith(b"[wsl2]")


def test_a_missing_file_reads_as_none(tmp_path):
    path = str(tmp_path / "wsl.conf")
    assert w.read_config(path) == (None, path)


# ---- B5: sizes ------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs,message", [
    ({"memory": "0"}, "vllm_wsl_memory: '0' is below 1GB; accepted: a whole number"),
    ({"memory": "1KB"}, "vllm_wsl_memory: '1KB' is below 1GB"),
    ({"memory": "512MB"}, "vllm_wsl_memory: '512MB' is below 1GB"),
    ({"memory": "1.5GB"}, "vllm_wsl_memory: '1.5GB' is not a whole number"),
    ({"memory": "99999999999999999999TB"}, "vllm_wsl_memory: '99999999999999999999TB' is above 64TB"),
    ({"memory": "128GB"}, "vllm_wsl_memory: '128GB' is more than the machine's RAM (32GB)"),
    ({"swap": "1KB"}, "vllm_wsl_swap: '1KB' is below 1GB; accepted: a whole number with KB, MB, GB or TB"),
    ({"swap": "-1GB"}, "vllm_wsl_swap: '-1GB' is not a size"),
    ({"swap": "lots"}, "vllm_wsl_swap: 'lots' is not a size"),
])
def test_user_sizes_outside_the_bounds_name_the_variable(kwargs, message):
    with pytest.raises(w.WslConfigError) as err:
        w.plan_memory(32 * GIB, 8 * GIB, **kwargs)
    assert message in str(err.value)
    assert "accepted:" in str(err.value)


def test_user_sizes_inside_the_bounds():
    decision = w.plan_memory(32 * GIB, 8 * GIB, memory="1GB", swap="0")
    assert dict((s["key"], s["value"]) for s in decision["settings"]) == {"memory": "1GB", "swap": "0"}
    decision = w.plan_memory(None, 8 * GIB, memory="1024MB", swap="1GB")
    assert dict((s["key"], s["value"]) for s in decision["settings"]) == {"memory": "1GB", "swap": "1GB"}


def test_too_little_ram_is_named():
    with pytest.raises(w.WslConfigError, match=r"vllm_wsl_windows_memory: 4294967296 is below 5GB"):
        w.plan_memory(4 * GIB, 8 * GIB)  # Windows keeps 4 GB: nothing left for WSL
    with pytest.raises(w.WslConfigError, match=r"vllm_wsl_windows_memory: 1024 is below 5GB"):
        w.plan_memory(1024, 8 * GIB)
    assert w.plan_memory(5 * GIB, 0)["settings"][0]["value"] == "1GB"


def test_the_rule_never_writes_less_than_1gb():
    # nothing to hold (no model, no overhead) and an unreadable current value: memory=0 was written
    decision = w.plan_memory(64 * GIB, 0, current_memory="lots", overhead_bytes=0)
    memory = [s for s in decision["settings"] if s["key"] == "memory"][0]
    assert memory["value"] == "1GB"
    result = w.edit(b"[wsl2]\nmemory=lots\n", decision["settings"])
    assert b"memory=1GB\n" in result["after"]


def test_sizes_are_never_rounded_into_another_number():
    with pytest.raises(w.WslConfigError, match="not a whole number of bytes"):
        w.parse_size("1.3MB")
    assert w.parse_size("99999999999999999999") == 99999999999999999999  # exact, not a float
    assert w.parse_size("1.5GB") == 3 * GIB // 2


@pytest.mark.parametrize("kind,value,ok", [
    ("memory", "1GB", True), ("memory", "0", False), ("memory", "1KB", False), ("memory", "64TB", True),
    ("memory", "65TB", False), ("swap", "0", True), ("swap", "0GB", True), ("swap", "512MB", False),
    ("swap", "8GB", True), ("windows_memory", "34359738368", True), ("overhead", "0", True),
    ("overhead", "4GB", True), ("memory", True, False), ("memory", 2 * GIB, True), ("memory", "2.0GB", False),
])
def test_size_problem(kind, value, ok):
    assert (w.size_problem(value, kind) is None) is ok


# ---- B6: properties over arbitrary contents -------------------------------------------------

PIECES = ["[wsl2]", "[WSL2]", " [wsl2] ", "[experimental]", "[boot]", "memory", "Memory", "swap", "SWAP", "=",
          " = ", "8GB", "16GB", "0", "1.5GB", "lots", '"', "#", ";", " # c", "processors=2", "\n", "\r\n", "\r",
          "\x0c", "\x0b", "\u2028", "\u2029", "\x85", "\ufeff", "\u00a0", " ", "\t", "\u00e9", "\u4e0a", "x",
          "memory=4GB\n", "swap=0\r\n", "[wsl2]\n", "[wsl2]\r\n"]
TEXTS = st.lists(st.one_of(st.sampled_from(PIECES), st.characters(blacklist_categories=("Cs",),
                                                                      blacklist_characters="\x00")),
                 max_size=40).map("".join)
PLANS = st.sampled_from([
    (32 * GIB, 15 * GIB, None, None), (16 * GIB, 20 * GIB, None, None), (64 * GIB, 1 * GIB, None, None),
    (32 * GIB, 1 * GIB, "12GB", "4GB"), (None, 8 * GIB, None, None), (None, 8 * GIB, "8GB", "0"),
    (64 * GIB, 0, None, "0"),
])
ENCODINGS = st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "utf-16-le-bom", "utf-16-be-bom"])


def encode(text, encoding):
    if encoding == "utf-16-le-bom":
        return b"\xff\xfe" + text.encode("utf-16-le")
    if encoding == "utf-16-be-bom":
        return b"\xfe\xff" + text.encode("utf-16-be")
    return text.encode(encoding)


def wsl_lines(text):
    """(line with its ending, is a [wsl2] memory/swap line) as WSL splits them: at "\n" only.
    Done here, not with the editor's own splitter, so the test does not trust what it tests."""
    parts = text.split("\n")
    chunks = [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
    out, section = [], None
    for chunk in chunks:
        body = chunk[:-2] if chunk.endswith("\r\n") else chunk[:-1] if chunk.endswith("\n") else chunk
        parsed = w.Line(body, "")
        if parsed.kind == "section":
            section = parsed.section
        size = parsed.kind == "key" and section is not None and section.strip().lower() == "wsl2" and \
            parsed.key.strip().lower() in ("memory", "swap")
        out.append((chunk, size))
    return out


def _plan(raw, plan):
    ram, model, memory, swap = plan
    doc = w.Document.from_bytes(raw)
    return w.plan_memory(ram, model, doc.get("wsl2", "memory"), doc.get("wsl2", "swap"), memory=memory,
                         swap=swap)["settings"]


@settings(max_examples=1500, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXTS, plan=PLANS, encoding=ENCODINGS)
def test_only_the_memory_and_swap_lines_change_and_a_second_edit_changes_nothing(text, plan, encoding):
    raw = encode(text, encoding)
    try:
        before_text = w.decode(raw)[0]
    except w.WslConfigError:
        assume(False)  # not text (a UTF-16 heuristic on odd bytes): refused, nothing to edit
    result = w.edit(raw, _plan(raw, plan))
    after_text = w.decode(result["after"])[0]
    kept_before = [line for line, size in wsl_lines(before_text) if not size]
    kept_after = [line for line, size in wsl_lines(after_text) if not size]
    assert len(kept_after) >= len(kept_before)
    for index, (old, new) in enumerate(zip(kept_before, kept_after)):
        # the same characters and ending; a last line without one may get one
        assert old == new or (index == len(kept_before) - 1 and not old.endswith("\n")
                              and new in (old + "\n", old + "\r\n")), (index, old, new)
    for extra in kept_after[len(kept_before):]:  # at most a blank line and a new [wsl2] header
        assert extra.rstrip("\r\n") in ("", "[wsl2]"), extra
    if not w.is_utf16(result["encoding"]):  # UTF-8 in and out: the same characters are the same bytes
        assert result["after"].startswith(b"\xef\xbb\xbf") == raw.startswith(b"\xef\xbb\xbf")
        assert result["after"].decode("utf-8-sig") == after_text
    again = w.edit(result["after"], _plan(result["after"], plan))
    assert not again["changed"], again["diff"]
    assert again["after"] == result["after"]


@settings(max_examples=200, deadline=None, database=None)
@given(data=st.binary(max_size=200))
def test_arbitrary_bytes_are_either_refused_or_kept(data):
    try:
        result = w.edit(data, [])
    except w.WslConfigError:
        return
    if not result["converted"]:
        assert result["after"] == data and not result["changed"]


def test_a_utf16_file_starting_with_a_second_bom_keeps_that_character():
    # found by the property above: U+FEFF after the BOM, written as UTF-8, read back as a BOM
    raw = "\ufeff\ufeff# x\r\n".encode("utf-16-le")
    result = w.edit(raw, [])
    assert result["converted"] and w.decode(result["after"])[0] == "\ufeff# x\r\n"
    assert not w.edit(result["after"], [])["changed"]
