"""The .wslconfig / wsl.conf editor over real files: only the lines that must change do."""
import difflib
import glob
import os

import pytest

import vllm_wslconfig as w
from vllm_testlib import CORPUS, ROOT

GIB = w.GIB
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "wslconfig")
# the shared corpus's files are also copied into the fixtures (same names): test each name once,
# so the suite runs the same in a clone without ../shared
_BY_NAME = {os.path.basename(p): p for p in glob.glob(os.path.join(CORPUS, "wslconfig", "*.wslconfig"))}
_BY_NAME.update({os.path.basename(p): p for p in glob.glob(os.path.join(FIXTURES, "*.wslconfig"))})
FILES = sorted(_BY_NAME.values())

# (windows RAM, model size, user memory, user swap): raise memory, add swap, user values
PLANS = [
    (32 * GIB, 15 * GIB, None, None),
    (16 * GIB, 20 * GIB, None, None),
    (64 * GIB, 1 * GIB, None, None),
    (32 * GIB, 1 * GIB, "12GB", "4GB"),
]


def read(path):
    with open(path, "rb") as handle:
        return handle.read()


def test_there_are_real_files():
    assert len(FILES) >= 14
    names = {os.path.basename(path) for path in FILES}
    # every file of the shared corpus is among them (the fixtures hold copies)
    assert {"01_inline_comments_commented_memory_swap128.wslconfig",
            "05_ms_sample_comments_memory8_processors2_swapfile.wslconfig"} <= names
    assert set(os.listdir(os.path.join(CORPUS, "wslconfig"))) - {"sources.tsv"} <= names \
        if os.path.isdir(os.path.join(CORPUS, "wslconfig")) else True


def assert_only_lines(before, after, keys):
    """``after`` differs from ``before`` only in key lines for ``keys`` (replaced or added, plus a
    section header when the section was missing); every other line is byte-identical."""
    old, new = before.splitlines(True), after.splitlines(True)
    unterminated = [line for line in old if not line.endswith("\n")]
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        assert tag != "delete", "lines removed: %r" % old[i1:i2]
        for line in new[j1:j2]:
            parsed = w.Line(line.rstrip("\r\n"), "")
            ok = (parsed.kind == "key" and parsed.key.lower() in keys) or parsed.kind in ("section", "blank") \
                or line.rstrip("\r\n") in unterminated  # a missing final newline may be completed
            assert ok, "unexpected new line %r" % line
        for line in old[i1:i2]:
            parsed = w.Line(line.rstrip("\r\n"), "")
            ok = (parsed.kind == "key" and parsed.key.lower() in keys) or \
                (line in unterminated and any(n.rstrip("\r\n") == line for n in new[j1:j2]))
            assert ok, "changed line %r" % line


@pytest.mark.parametrize("path", FILES, ids=os.path.basename)
@pytest.mark.parametrize("plan", PLANS, ids=lambda p: "ram%d-model%d-%s-%s" % (p[0] // GIB, p[1] // GIB, p[2], p[3]))
def test_edit_changes_only_memory_and_swap(path, plan):
    ram, model, memory, swap = plan
    raw = read(path)
    doc = w.Document.from_bytes(raw)
    decision = w.plan_memory(ram, model, doc.get("wsl2", "memory"), doc.get("wsl2", "swap"),
                             memory=memory, swap=swap)
    result = w.edit(raw, decision["settings"], path)
    before_text = w.decode(raw)[0]
    after_text = w.decode(result["after"])[0]
    assert_only_lines(before_text, after_text, {"memory", "swap"})
    edited = w.Document.from_bytes(result["after"])
    for item in decision["settings"]:
        value = edited.get("wsl2", item["key"])
        effective = value if value is not None else item.get("effective")
        assert w.value_holds(effective, item["value"], item["compare"]), (item, value)
    # every line keeps its own ending; a CRLF file stays CRLF
    if b"\r\n" in raw and not w.is_utf16(result["encoding"]):
        assert after_text.count("\n") == after_text.count("\r\n")
    # the BOM of a UTF-8 file stays; UTF-16 becomes UTF-8
    assert result["after"].startswith(b"\xef\xbb\xbf") == raw.startswith(b"\xef\xbb\xbf")
    assert result["converted"] == w.is_utf16(result["encoding"])
    # a second edit with the same wish changes nothing
    again = w.edit(result["after"], w.plan_memory(ram, model, edited.get("wsl2", "memory"),
                                                  edited.get("wsl2", "swap"), memory=memory, swap=swap)["settings"])
    assert not again["changed"], again["diff"]
    assert again["after"] == result["after"]


def test_ms_sample_raises_memory_in_place():
    raw = read(os.path.join(FIXTURES, "05_ms_sample_comments_memory8_processors2_swapfile.wslconfig"))
    decision = w.plan_memory(32 * GIB, 12 * GIB, "8GB", "8GB")
    result = w.edit(raw, decision["settings"])
    assert result["changed"]
    assert [c["key"] for c in result["changes"]] == ["memory"]
    assert b"\nmemory=16GB\n" in result["after"]
    assert result["after"].replace(b"memory=16GB", b"memory=8GB") == raw
    # swap 8GB already covers need - memory = 0: holds
    assert b"swap=8GB" in result["after"]


def test_inline_comment_and_spacing_kept():
    raw = read(os.path.join(FIXTURES, "01_inline_comments_commented_memory_swap128.wslconfig"))
    result = w.edit(raw, [{"section": "wsl2", "key": "swap", "value": "16GB", "compare": "size"}])
    assert b"swap=16GB              # Set swap size (increase to 8GB, or whatever you need)\n" in result["after"]
    # the commented "# memory=22GB" is a comment, not a value: a new key goes after the last key
    result = w.edit(raw, [{"section": "wsl2", "key": "memory", "value": "20GB", "compare": "size"}])
    assert result["after"].endswith(b"location\nmemory=20GB\n")
    assert b"# memory=22GB\n" in result["after"]


def test_quoted_value_stays_quoted_and_key_casing_kept():
    doc = w.Document('[WSL2]\n  Memory = "8GB"   ; mine\n')
    assert doc.get("wsl2", "memory") == "8GB"
    assert doc.set("wsl2", "MEMORY", "16GB")
    assert doc.text() == '[WSL2]\n  Memory = "16GB"   ; mine\n'


def test_hash_inside_quotes_is_not_a_comment():
    doc = w.Document('[wsl2]\nkernelCommandLine = "a#b" # real comment\n')
    assert doc.get("wsl2", "kernelCommandLine") == "a#b"


def test_last_occurrence_wins_and_is_the_one_edited():
    doc = w.Document("[wsl2]\nmemory=4GB\n[experimental]\nsparseVhd=true\n[wsl2]\nmemory=6GB\n")
    assert doc.get("wsl2", "memory") == "6GB"
    doc.set("wsl2", "memory", "10GB")
    assert doc.text() == "[wsl2]\nmemory=4GB\n[experimental]\nsparseVhd=true\n[wsl2]\nmemory=10GB\n"


def test_missing_section_is_appended_with_the_files_line_ending():
    doc = w.Document("[experimental]\r\nsparseVhd=true")
    doc.set("wsl2", "memory", "8GB")
    assert doc.text() == "[experimental]\r\nsparseVhd=true\r\n\r\n[wsl2]\r\nmemory=8GB\r\n"


def test_new_file():
    result = w.edit(None, [{"section": "boot", "key": "systemd", "value": "true"}], "/etc/wsl.conf")
    assert result["changed"] and result["after"] == b"[boot]\nsystemd=true\n"


def test_wsl_conf_boolean_holds_case_insensitively():
    raw = b"[boot]\nsystemd = True\n\n[user]\ndefault=me\n"
    assert not w.edit(raw, [{"section": "boot", "key": "systemd", "value": "true"}])["changed"]
    result = w.edit(b"[automount]\nenabled=true\n[boot]\nsystemd=false # off\ncommand=service ssh start\n",
                    [{"section": "boot", "key": "systemd", "value": "true"}])
    assert result["after"] == b"[automount]\nenabled=true\n[boot]\nsystemd=true # off\ncommand=service ssh start\n"


@pytest.mark.parametrize("text,expected", [
    ("8GB", 8 * GIB), ("8G", 8 * GIB), ("8gb", 8 * GIB), ("512MB", 512 * w.MIB), ("1TB", 1024 * GIB),
    ("1.5GB", 3 * GIB // 2), ("0", 0), ("0GB", 0), ("17825792000", 17825792000), ('"16GB"', 16 * GIB),
    (" 4GB ", 4 * GIB), ("4GiB", 4 * GIB),
])
def test_parse_size(text, expected):
    assert w.parse_size(text) == expected


@pytest.mark.parametrize("text", ["lots", "8XB", "-1GB", "", "GB"])
def test_parse_size_refuses(text):
    with pytest.raises(w.WslConfigError, match="accepted"):
        w.parse_size(text)


@pytest.mark.parametrize("num,text", [(16 * GIB, "16GB"), (1536 * w.MIB, "1536MB"), (0, "0"),
                                      (2048 * GIB, "2TB"), (1000, "1000")])
def test_format_size(num, text):
    assert w.format_size(num) == text


def test_utf16_without_bom_detected():
    raw = "[wsl2]\r\nmemory=4GB\r\n".encode("utf-16-le")
    text, encoding = w.decode(raw)
    assert encoding == "utf-16-le" and text.startswith("[wsl2]")
    result = w.edit(raw, [{"section": "wsl2", "key": "memory", "value": "4GB", "compare": "size"}], "x")
    # the value holds, but the file is still converted: Windows would ignore it
    assert result["changed"] and result["converted"] and not result["changes"]
    assert result["after"] == b"[wsl2]\r\nmemory=4GB\r\n"
    assert "UTF-16-LE" in result["diff"]


def test_binary_garbage_is_an_error():
    with pytest.raises(w.WslConfigError):
        w.decode(b"\xff\xff\xfe\x00\x81")


# ---- the memory rule ------------------------------------------------------------------------

def test_rule_defaults_hold_when_the_model_fits_in_half_the_ram():
    decision = w.plan_memory(64 * GIB, 8 * GIB)  # need 12 GiB, default memory 32 GiB
    result = w.edit(b"[wsl2]\nprocessors=8\n", decision["settings"])
    assert not result["changed"]


def test_rule_raises_memory_to_the_need():
    decision = w.plan_memory(32 * GIB, 14 * GIB)  # need 18, default 16, cap 24
    memory = [s for s in decision["settings"] if s["key"] == "memory"][0]
    assert memory["value"] == "18GB"
    result = w.edit(b"[wsl2]\n", decision["settings"])
    assert result["after"] == b"[wsl2]\nmemory=18GB\n"


def test_rule_caps_memory_and_puts_the_rest_on_swap():
    decision = w.plan_memory(16 * GIB, 15 * GIB, current_swap="0")  # need 19, cap 12
    values = dict((s["key"], s["value"]) for s in decision["settings"])
    assert values == {"memory": "12GB", "swap": "7GB"}
    assert decision["warnings"] and "swap" in decision["warnings"][0]
    result = w.edit(b"[wsl2]\nswap=0\n", decision["settings"])
    assert result["after"] == b"[wsl2]\nswap=7GB\nmemory=12GB\n"


def test_rule_keeps_a_larger_user_value():
    decision = w.plan_memory(64 * GIB, 4 * GIB, current_memory="48GB", current_swap="0")
    assert not w.edit(b"[wsl2]\nmemory=48GB\nswap=0\n", decision["settings"])["changed"]


def test_rule_without_ram_only_checks():
    decision = w.plan_memory(None, 10 * GIB, current_memory="8GB")
    assert not [s for s in decision["settings"] if s["key"] == "memory"]
    assert "RAM is unknown" in decision["warnings"][0]
    assert w.plan_memory(None, 1 * GIB, current_memory="8GB")["warnings"] == []


def test_user_values_are_exact():
    decision = w.plan_memory(64 * GIB, 1 * GIB, memory="16384MB", swap="0")
    assert w.edit(b"[wsl2]\nmemory=16GB\nswap=0\n", decision["settings"])["changed"] is False
    result = w.edit(b"[wsl2]\nmemory=48GB\n", decision["settings"])
    assert result["after"] == b"[wsl2]\nmemory=16GB\nswap=0\n"


# ---- writing ----------------------------------------------------------------------------------

def test_write_file_backs_up_once_then_numbers(tmp_path):
    path = str(tmp_path / ".wslconfig")
    original = b"[wsl2]\r\nmemory=4GB\r\n"
    with open(path, "wb") as handle:
        handle.write(original)
    result = w.edit(original, [{"section": "wsl2", "key": "memory", "value": "8GB", "compare": "size"}])
    backup = w.write_file(path, result)
    assert backup == path + ".vllm-backup"
    assert read(backup) == original
    assert read(path) == b"[wsl2]\r\nmemory=8GB\r\n"
    second = w.edit(read(path), [{"section": "wsl2", "key": "memory", "value": "9GB", "compare": "size"}])
    assert w.write_file(path, second) == path + ".vllm-backup.1"
    assert read(path + ".vllm-backup") == original
    assert sorted(os.listdir(str(tmp_path))) == [".wslconfig", ".wslconfig.vllm-backup", ".wslconfig.vllm-backup.1"]


def test_assignment_parsing():
    assert w.parse_assignment("wsl2.processors=8") == {"section": "wsl2", "key": "processors", "value": "8",
                                                        "compare": "equal"}
    assert w.parse_assignment("boot.command=service ssh start")["value"] == "service ssh start"
    for bad in ("processors=8", "wsl2.=8", ".x=1", "wsl2.memory"):
        with pytest.raises(w.WslConfigError, match="SECTION.KEY=VALUE"):
            w.parse_assignment(bad)
