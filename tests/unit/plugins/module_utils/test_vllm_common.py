import os
import re
import shutil
import stat
import subprocess
import sys

import pytest

import vllm_common as c

MODULE_UTILS = os.path.dirname(os.path.abspath(c.__file__))


# --------------------------------------------------------------------------- atomic_write

def _leftovers(folder):
    return sorted(n for n in os.listdir(str(folder)) if n.endswith(".tmp"))


def test_atomic_write_text_and_bytes(tmp_path):
    path = tmp_path / "f.json"
    c.atomic_write(str(path), u"caf\u00e9\n")
    assert path.read_bytes() == b"caf\xc3\xa9\n"
    c.atomic_write(str(path), b"\x00\x01")
    assert path.read_bytes() == b"\x00\x01"
    c.atomic_write(str(path), b"", fsync=False)
    assert path.read_bytes() == b""
    assert _leftovers(tmp_path) == []


def test_atomic_write_replaces_a_link_and_never_writes_through_one(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("keep")
    (tmp_path / "f").symlink_to(victim)
    (tmp_path / "f.tmp").symlink_to(victim)  # a link planted under the old, guessable name
    c.atomic_write(str(tmp_path / "f"), "new\n")
    assert victim.read_text() == "keep"
    assert not os.path.islink(str(tmp_path / "f"))
    assert (tmp_path / "f").read_text() == "new\n"
    assert os.path.islink(str(tmp_path / "f.tmp"))


def test_atomic_write_modes(tmp_path):
    old = os.umask(0o027)
    try:
        c.atomic_write(str(tmp_path / "plain"), "x")             # as open(): 0666 less the umask
        c.atomic_write(str(tmp_path / "created"), "x", mode=0o644)
        c.atomic_write(str(tmp_path / "forced"), "x", chmod=0o644)  # the umask does not apply
        c.atomic_write(str(tmp_path / "private"), "x", chmod=0o600)
    finally:
        os.umask(old)

    def mode(name):
        return stat.S_IMODE(os.stat(str(tmp_path / name)).st_mode)

    assert mode("plain") == 0o640
    assert mode("created") == 0o640
    assert mode("forced") == 0o644
    assert mode("private") == 0o600


def test_atomic_write_like_keeps_the_old_files_mode(tmp_path):
    path = tmp_path / "cfg"
    path.write_text("old")
    os.chmod(str(path), 0o604)
    c.atomic_write(str(path), "new", mode=0o600, like=os.stat(str(path)))
    assert stat.S_IMODE(os.stat(str(path)).st_mode) == 0o604
    c.atomic_write(str(tmp_path / "fresh"), "new", mode=0o600, like=None)
    assert stat.S_IMODE(os.stat(str(tmp_path / "fresh")).st_mode) == 0o600


def test_atomic_write_failure_leaves_the_target_and_no_temporary_file(tmp_path):
    target = tmp_path / "dir"
    target.mkdir()
    (target / "inside").write_text("kept")
    with pytest.raises(OSError):
        c.atomic_write(str(target), "x")  # a rename over a non-empty folder fails
    assert (target / "inside").read_text() == "kept"
    assert _leftovers(tmp_path) == []


def test_atomic_write_missing_folder_raises(tmp_path):
    with pytest.raises(OSError):
        c.atomic_write(str(tmp_path / "no" / "such"), "x")


def test_json_text():
    assert c.json_text({"b": 1, "a": [1]}, indent=1, sort_keys=True) == '{\n "a": [\n  1\n ],\n "b": 1\n}\n'


# --------------------------------------------------------------------------- version_tuple

@pytest.mark.parametrize("text,expected", [
    ("570.211.01", (570, 211, 1)), (" 12.8 ", (12, 8)), ("12.8.1rc2", (12, 8, 1)), ("13", (13,)),
    (580, (580,)), (None, None), ("", None), ("N/A", None), ("v12.8", None), ("ERR!", None),
])
def test_version_tuple(text, expected):
    assert c.version_tuple(text) == expected


# --------------------------------------------------------------------------- option names

@pytest.mark.parametrize("name,key,flag", [
    ("--max-model-len", "max_model_len", "max-model-len"),
    ("max-model-len", "max_model_len", "max-model-len"),
    ("max_model_len", "max_model_len", "max-model-len"),
    ("--max_model_len", "max_model_len", "max-model-len"),
    ("-tp", "tp", "tp"),
    (7, "7", "7"),
])
def test_option_names(name, key, flag):
    assert c.option_key(name) == key
    assert c.option_flag(name) == flag


def test_option_key_variants():
    assert c.option_key(" --max-model-len ", strip=True) == "max_model_len"
    assert c.option_key(" --max-model-len ") == " __max_model_len "
    assert c.option_key("--max-model-len", dashes=False) == "__max_model_len"
    assert c.option_key("max-model-len", dashes=False) == "max_model_len"
    assert c.option_flag("  --max_model_len ") == "max-model-len"


# --------------------------------------------------------------------------- YAML

def test_parse_and_read_yaml(tmp_path):
    assert c.parse_yaml("a: 1\nb: [x, 'y']\n") == {"a": 1, "b": ["x", "y"]}
    assert c.parse_yaml('{"a": 1}') == {"a": 1}
    assert c.parse_yaml("") is None
    path = tmp_path / "t.yml"
    path.write_text("---\nk: v\n")
    assert c.read_yaml(str(path)) == {"k": "v"}


def test_parse_yaml_without_pyyaml_reads_json(monkeypatch):
    monkeypatch.setitem(sys.modules, "yaml", None)  # import yaml -> ImportError
    assert c.parse_yaml('{"a": [1, 2]}') == {"a": [1, 2]}
    with pytest.raises(c.NoYamlError) as info:
        c.parse_yaml("a: 1\n")
    assert isinstance(info.value, ValueError)
    assert "PyYAML" in str(info.value)


# --------------------------------------------------------------------------- who imports it

# what roles/vllm_service copies beside the launcher on the host (vars/main.yml)
HOST_FILES = c.read_yaml(os.path.join(MODULE_UTILS, "..", "..", "roles", "vllm_service", "vars",
                                      "main.yml"))["__vllm_service_lib_files"]


def test_the_host_files_are_the_launcher_and_every_part_of_the_doctor():
    doctor = sorted(n for n in os.listdir(MODULE_UTILS) if n.startswith("vllm_doctor") and n.endswith(".py")
                    and n != "vllm_doctor_live.py")  # the live facts: scripts/doctor and the module only
    assert sorted(HOST_FILES) == sorted(["vllm_launcher.py"] + doctor)


@pytest.mark.parametrize("name", HOST_FILES)
def test_files_copied_to_hosts_alone_import_no_project_module(name):
    """roles/vllm_service copies these files alone to the host (tasks/launcher.yml, tasks/systemd.yml),
    side by side: each may import only the others (by file name there, relatively in the collection);
    tests/tools/score_frozen.py loads the doctor's parts alone from a commit."""
    with open(os.path.join(MODULE_UTILS, name)) as handle:
        text = handle.read()
    own = set(n[:-3] for n in os.listdir(MODULE_UTILS) if n.endswith(".py"))
    imported = set(re.findall(r"^\s*(?:import|from)\s+(?:ansible\.module_utils\.|\.)?(\w+)", text, re.M))
    allowed = set(n[:-3] for n in HOST_FILES if n != name)
    assert imported & own <= allowed


def test_the_host_files_alone_in_a_directory_diagnose(tmp_path):
    """As on a host: the launcher imports the doctor from its own directory, the doctor its parts by
    file name (no package, nothing else of the project on the path)."""
    for name in HOST_FILES:
        shutil.copy(os.path.join(MODULE_UTILS, name), str(tmp_path / name))
    code = ("import sys; sys.path.insert(0, %r); import vllm_launcher; "
            "print(vllm_launcher.diagnose_text('RuntimeError: UVA is not available\\n'))" % str(tmp_path))
    out = subprocess.run([sys.executable, "-I", "-c", code], cwd=str(tmp_path), capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("wsl_specific: RuntimeError: UVA is not available; fix: "), out.stdout
