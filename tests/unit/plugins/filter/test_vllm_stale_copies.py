"""vllm_stale_copies: which of the service's helpers the copy must write, from one find."""
import grp
import hashlib
import os
import pwd

import pytest
from ansible.errors import AnsibleFilterError
from ansible.modules.find import statinfo

from vllm_testlib import load_filter

F = load_filter()
STALE = F.FilterModule().filters()["vllm_stale_copies"]
NAMES = ["vllm_launcher.py", "vllm_doctor.py", "vllm_doctor_text.py"]
ME = pwd.getpwuid(os.getuid()).pw_name
MY_GROUP = grp.getgrgid(os.getgid()).gr_name


def _tree(root, files, mode=0o644):
    os.makedirs(str(root), exist_ok=True)
    for name, text in files.items():
        path = os.path.join(str(root), name)
        with open(path, "w") as handle:
            handle.write(text)
        os.chmod(path, mode)


def _found(host_dir):
    """What ``ansible.builtin.find`` with get_checksum registers, built by the module's own code."""
    files = []
    for name in sorted(os.listdir(str(host_dir))):
        path = os.path.join(str(host_dir), name)
        entry = statinfo(os.lstat(path))
        entry["path"] = path
        if entry["isreg"]:
            with open(path, "rb") as handle:
                entry["checksum"] = hashlib.sha1(handle.read()).hexdigest()
        files.append(entry)
    return {"changed": False, "files": files, "matched": len(files)}


@pytest.fixture()
def src(tmp_path):
    _tree(tmp_path / "src", {n: "print(%r)\n" % n for n in NAMES})
    return tmp_path / "src"


def test_an_empty_host_gets_every_file_in_order(src, tmp_path):
    (tmp_path / "host").mkdir()
    assert STALE(_found(tmp_path / "host"), str(src), NAMES, ME, MY_GROUP) == NAMES
    # a find of a directory that does not exist yet (check mode on a fresh host)
    assert STALE({"files": [], "skipped_paths": {"/x": "not a directory"}}, str(src), NAMES) == NAMES


def test_the_same_files_need_no_copy(src, tmp_path):
    _tree(tmp_path / "host", {n: "print(%r)\n" % n for n in NAMES})
    assert STALE(_found(tmp_path / "host"), str(src), NAMES, ME, MY_GROUP) == []


def test_a_changed_part_alone_is_copied(src, tmp_path):
    _tree(tmp_path / "host", {n: "print(%r)\n" % n for n in NAMES})
    _tree(tmp_path / "host", {"vllm_doctor.py": "print('old release of the rules')\n"})
    assert STALE(_found(tmp_path / "host"), str(src), NAMES, ME, MY_GROUP) == ["vllm_doctor.py"]


def test_a_mode_owner_or_group_drift_is_copied_again(src, tmp_path):
    _tree(tmp_path / "host", {n: "print(%r)\n" % n for n in NAMES})
    os.chmod(str(tmp_path / "host" / "vllm_launcher.py"), 0o666)
    found = _found(tmp_path / "host")
    assert STALE(found, str(src), NAMES, ME, MY_GROUP) == ["vllm_launcher.py"]
    assert STALE(found, str(src), NAMES, "nobody-else", MY_GROUP) == NAMES
    assert STALE(found, str(src), NAMES, ME, "no-such-group") == NAMES


def test_a_link_in_place_of_a_file_is_replaced(src, tmp_path):
    _tree(tmp_path / "host", {n: "print(%r)\n" % n for n in NAMES if n != "vllm_doctor.py"})
    _tree(tmp_path / "elsewhere", {"vllm_doctor.py": "print('vllm_doctor.py')\n"})
    os.symlink(str(tmp_path / "elsewhere" / "vllm_doctor.py"), str(tmp_path / "host" / "vllm_doctor.py"))
    found = _found(tmp_path / "host")
    # same bytes behind it, but not a regular file of its own: the copy replaces the link
    assert STALE(found, str(src), NAMES, ME, MY_GROUP) == ["vllm_doctor.py"]


def test_a_missing_source_names_the_file(src):
    with pytest.raises(AnsibleFilterError, match="vllm_nope.py"):
        STALE({"files": []}, str(src), ["vllm_nope.py"])


def test_the_role_lists_files_that_exist_beside_the_filter():
    import yaml
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))))
    with open(os.path.join(root, "roles", "vllm_service", "vars", "main.yml")) as handle:
        names = yaml.safe_load(handle)["__vllm_service_lib_files"]
    src = os.path.join(root, "plugins", "module_utils")
    assert STALE({"files": []}, src, names) == names
