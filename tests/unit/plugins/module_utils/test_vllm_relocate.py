"""Model relocation: the mount table, the copy engine, and the faults it must survive.

Every fault test ends with the source intact and either a verified copy or a clear error.
"""
import hashlib
import json
import os
import subprocess
import sys
import textwrap

import pytest

import vllm_relocate as r
from vllm_testlib import ROOT

MODULE_UTILS = os.path.join(ROOT, "plugins", "module_utils")

# Real lines from WSL2 (9p drvfs), WSL1 (drvfs), a Windows drive mounted by hand, and Linux mounts.
MOUNTS = textwrap.dedent(r"""
    /dev/sdc / ext4 rw,relatime,discard,errors=remount-ro,data=ordered 0 0
    none /mnt/wsl tmpfs rw,relatime 0 0
    drivers /usr/lib/wsl/drivers 9p ro,nosuid,nodev,noatime,dirsync,aname=drivers;fmask=222;dmask=222,mmap,access=client,msize=65536,trans=fd,rfd=8,wfd=8 0 0
    C:\134 /mnt/c 9p rw,noatime,dirsync,aname=drvfs;path=C:\;uid=1000;gid=1000;symlinkroot=/mnt/,mmap,access=client,msize=65536,trans=fd,rfd=5,wfd=5 0 0
    D:\134 /mnt/d 9p rw,noatime,dirsync,aname=drvfs;path=D:\;uid=1000;gid=1000;symlinkroot=/mnt/,mmap,access=client,msize=65536,trans=fd,rfd=5,wfd=5 0 0
    E: /mnt/e drvfs rw,noatime,uid=1000,gid=1000,case=off 0 0
    /dev/sdd /mnt/cdata ext4 rw,relatime 0 0
    F:\134Models /mnt/my\040models virtiofs rw,relatime 0 0
    /dev/sde /data ext4 rw,relatime 0 0
""")


@pytest.mark.parametrize("path,expected", [
    ("/mnt/c/Users/me/models/qwen", True),
    ("/mnt/d", True),
    ("/mnt/e/models", True),                  # WSL1 drvfs
    ("/mnt/cdata/models", False),             # a /mnt/c prefix, but ext4
    ("/data/models", False),
    ("/home/me/models", False),
    ("/mnt/my models/x", True),               # octal escape, a C:\ source
    ("/usr/lib/wsl/drivers/nv", True),        # 9p, listed as a Windows fstype by default
])
def test_windows_drive_from_the_mount_table(path, expected):
    assert r.windows_drive(path, r.parse_mounts(MOUNTS))[0] is expected


def test_a_drive_letter_path_on_ext4_is_not_windows():
    mounts = r.parse_mounts("/dev/sdc / ext4 rw 0 0\n/dev/sdb /mnt/c ext4 rw 0 0\n")
    assert r.windows_drive("/mnt/c/models", mounts) == (False, mounts[1])


def test_fstypes_are_configurable():
    mounts = r.parse_mounts("/dev/sdc / ext4 rw 0 0\ntmpfs /mnt/c tmpfs rw 0 0\n")
    assert not r.windows_drive("/mnt/c/m", mounts)[0]
    assert r.windows_drive("/mnt/c/m", mounts, fstypes=["9p", "tmpfs"])[0]


def test_this_machines_mount_table_parses():
    with open("/proc/self/mounts") as handle:
        mounts = r.parse_mounts(handle.read())
    assert r.mount_of(os.path.realpath(os.getcwd()), mounts) is not None


# ---- helpers ----------------------------------------------------------------------------------

def make_model(root, files):
    os.makedirs(root, exist_ok=True)
    for rel, data in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as handle:
            handle.write(data)
    return root


def tree(root):
    """{relpath: sha256} of the regular files under root (links followed), our manifest left out."""
    out = {}
    for directory, _, names in os.walk(root, followlinks=True):
        for name in names:
            full = os.path.join(directory, name)
            rel = os.path.relpath(full, root)
            if rel in (r.MANIFEST,):
                continue
            with open(full, "rb") as handle:
                out[rel] = hashlib.sha256(handle.read()).hexdigest()
    return out


MODEL = {"config.json": b'{"architectures": ["LlamaForCausalLM"]}',
         "tokenizer.json": b"{}" * 1000,
         "model-00001-of-00002.safetensors": os.urandom(3 * 1024 * 1024 + 7),
         "model-00002-of-00002.safetensors": os.urandom(2 * 1024 * 1024),
         "sub/extra.txt": b"x"}


@pytest.fixture
def model(tmp_path):
    src = make_model(str(tmp_path / "win" / "Qwen"), MODEL)
    return src, str(tmp_path / "store"), tree(src)


# ---- the copy ---------------------------------------------------------------------------------

def test_copy_then_second_run_copies_nothing(model):
    src, store, before = model
    lines = []
    result = r.relocate(src, store, "qwen", progress=lambda d, t, c: lines.append((d, t, c)))
    target = os.path.join(store, "qwen")
    assert result["changed"] and result["relocated"] and result["path"] == target
    assert result["copied_files"] == 5 and result["verified_files"] == 5
    assert result["copied_bytes"] == result["total_bytes"] == sum(len(v) for v in MODEL.values())
    assert tree(target) == before and tree(src) == before
    assert lines[-1][0] == lines[-1][1] == result["total_bytes"]
    assert not os.path.exists(os.path.join(store, ".qwen.partial"))
    manifest = json.load(open(result["manifest"]))
    assert manifest["source"] == src and set(manifest["files"]) == set(MODEL)
    assert manifest["files"]["config.json"]["sha256"] == hashlib.sha256(MODEL["config.json"]).hexdigest()

    again = r.relocate(src, store, "qwen")
    assert not again["changed"] and again["copied_files"] == 0 and again["verified_files"] == 5
    full = r.relocate(src, store, "qwen", verify="full")
    assert not full["changed"] and full["verified_bytes"] == full["total_bytes"]


def test_check_mode_changes_nothing(model):
    src, store, _ = model
    result = r.relocate(src, store, "qwen", check_mode=True)
    assert result["changed"] and result["copied_files"] == 5
    assert not os.path.exists(store)


def test_a_folder_that_is_not_ours_is_left_alone(model):
    src, store, _ = model
    make_model(os.path.join(store, "qwen"), {"mine.txt": b"keep me"})
    with pytest.raises(r.RelocateError, match="not made by this relocation"):
        r.relocate(src, store, "qwen")
    assert open(os.path.join(store, "qwen", "mine.txt"), "rb").read() == b"keep me"


def test_a_changed_source_is_copied_again(model):
    src, store, _ = model
    r.relocate(src, store, "qwen")
    with open(os.path.join(src, "config.json"), "ab") as handle:
        handle.write(b" ")
    result = r.relocate(src, store, "qwen")
    assert result["copied_files"] == 1 and result["reused_files"] == 4
    assert tree(os.path.join(store, "qwen")) == tree(src)


def test_move_removes_the_source_only_after_the_switch(model):
    src, store, before = model
    result = r.relocate(src, store, "qwen", mode="move")
    assert result["removed_source"] and not os.path.exists(src)
    assert tree(os.path.join(store, "qwen")) == before
    # the next run: the source is gone, the copy verifies
    again = r.relocate(src, store, "qwen", mode="move")
    assert not again["changed"] and again["verified_files"] == 5


def hf_cache(root):
    """models--org--tiny with two snapshots sharing one blob, refs/main naming the newer."""
    repo = os.path.join(root, "models--org--tiny")
    blobs = {"a" * 40: b'{"model_type": "llama"}', "b" * 40: os.urandom(1024 * 1024), "c" * 40: b"old weights"}
    make_model(os.path.join(repo, "blobs"), blobs)
    for rev, files in (("1111", {"config.json": "a" * 40, "model.safetensors": "b" * 40}),
                       ("0000", {"config.json": "a" * 40, "model.safetensors": "c" * 40})):
        snap = os.path.join(repo, "snapshots", rev)
        os.makedirs(snap)
        for name, blob in files.items():
            os.symlink(os.path.join("..", "..", "blobs", blob), os.path.join(snap, name))
    make_model(os.path.join(repo, "refs"), {"main": b"1111"})
    return repo, blobs


def test_hugging_face_cache_layout(tmp_path):
    repo, blobs = hf_cache(str(tmp_path / "hub"))
    store = str(tmp_path / "store")
    result = r.relocate(repo, store, "tiny")
    target = os.path.join(store, "tiny")
    assert result["source"] == os.path.join(repo, "snapshots", "1111")
    assert not os.path.islink(os.path.join(target, "model.safetensors"))
    assert open(os.path.join(target, "model.safetensors"), "rb").read() == blobs["b" * 40]
    # the snapshot folder itself works too, and is the same copy
    assert not r.relocate(os.path.join(repo, "snapshots", "1111"), store, "tiny")["changed"]


def test_hugging_face_move_keeps_blobs_other_snapshots_use(tmp_path):
    repo, blobs = hf_cache(str(tmp_path / "hub"))
    r.relocate(repo, str(tmp_path / "store"), "tiny", mode="move")
    left = sorted(os.listdir(os.path.join(repo, "blobs")))
    assert left == ["a" * 40, "c" * 40]  # config.json is shared with snapshot 0000; b only in 1111
    assert not os.path.exists(os.path.join(repo, "snapshots", "1111"))
    assert open(os.path.join(repo, "snapshots", "0000", "config.json"), "rb").read() == blobs["a" * 40]


def test_hugging_face_cache_without_ref_and_two_snapshots_asks(tmp_path):
    repo, _ = hf_cache(str(tmp_path / "hub"))
    os.unlink(os.path.join(repo, "refs", "main"))
    with pytest.raises(r.RelocateError, match="2 snapshots"):
        r.relocate(repo, str(tmp_path / "store"), "tiny")


# ---- faults -----------------------------------------------------------------------------------

def test_not_enough_space_refuses_with_the_numbers(model):
    src, store, before = model
    with pytest.raises(r.RelocateError) as err:
        r.relocate(src, store, "qwen", free=1024 * 1024)
    message = str(err.value)
    assert "needs 5.0 MiB more" in message and "only 1.0 MiB is free" in message
    assert tree(src) == before
    assert not os.path.exists(os.path.join(store, "qwen"))


CHILD = textwrap.dedent("""
    import sys, time
    sys.path.insert(0, sys.argv[1])
    import vllm_relocate as r
    r.CHUNK = 256 * 1024
    def report(done, total, current):
        print("progress %d %d %s" % (done, total, current), flush=True)
        time.sleep(0.002)
    m = r.Progress
    class Every(m):
        def __init__(self, total, report, interval=0.0):
            m.__init__(self, total, report, 0.0)
    r.Progress = Every
    r.relocate(sys.argv[2], sys.argv[3], "big", progress=report)
    print("finished", flush=True)
""")


def test_killed_half_way_then_resumed(tmp_path):
    names = ["shard-%d.bin" % i for i in range(5)]
    src = make_model(str(tmp_path / "win" / "big"), dict((n, os.urandom(2 * 1024 * 1024)) for n in names))
    before = tree(src)
    store = str(tmp_path / "store")
    child = subprocess.Popen([sys.executable, "-c", CHILD, MODULE_UTILS, src, store],
                             stdout=subprocess.PIPE, universal_newlines=True)
    killed_in = None
    for line in child.stdout:
        if line.startswith("progress") and line.split()[3] == names[2]:
            child.kill()  # SIGKILL in the middle of the third file
            killed_in = line
            break
    child.wait()
    assert killed_in, "the child finished before it could be killed"
    assert child.returncode == -9
    partial = os.path.join(store, ".big.partial")
    assert os.path.isdir(partial) and not os.path.exists(os.path.join(store, "big"))
    journal = r.read_journal(os.path.join(partial, r.JOURNAL))
    assert sorted(journal) == names[:2]

    result = r.relocate(src, store, "big")
    assert result["reused_files"] == 2 and result["copied_files"] == 3  # finished files not copied again
    assert tree(os.path.join(store, "big")) == before == tree(src)
    assert not os.path.exists(partial)


def test_resume_does_not_trust_a_damaged_partial_file(tmp_path):
    src = make_model(str(tmp_path / "src"), {"a.bin": os.urandom(4096), "b.bin": os.urandom(4096)})
    store = str(tmp_path / "store")
    partial = os.path.join(store, ".m.partial")
    # a journal that says a.bin is done, but the file there is damaged
    os.makedirs(partial)
    files = r.list_files(src)
    with open(os.path.join(partial, "a.bin"), "wb") as handle:
        handle.write(b"\0" * 4096)
    r._append_journal(os.path.join(partial, r.JOURNAL), {
        "path": "a.bin", "source": src, "size": 4096, "mtime_ns": files["a.bin"]["mtime_ns"],
        "sha256": hashlib.sha256(open(os.path.join(src, "a.bin"), "rb").read()).hexdigest()})
    result = r.relocate(src, store, "m")
    assert result["copied_files"] == 2 and tree(os.path.join(store, "m")) == tree(src)


def test_target_file_corrupted_after_the_copy(model):
    src, store, before = model
    r.relocate(src, store, "qwen")
    shard = os.path.join(store, "qwen", "model-00001-of-00002.safetensors")
    with open(shard, "r+b") as handle:
        handle.seek(1000)
        handle.write(b"\xff")
    result = r.relocate(src, store, "qwen")
    assert result["changed"] and result["copied_files"] == 1 and result["reused_files"] == 4
    assert tree(os.path.join(store, "qwen")) == before == tree(src)


def test_silent_corruption_is_caught_by_full_verification(model):
    src, store, before = model
    r.relocate(src, store, "qwen")
    shard = os.path.join(store, "qwen", "model-00002-of-00002.safetensors")
    info = os.stat(shard)
    with open(shard, "r+b") as handle:
        handle.write(b"\x00\x01")
    os.utime(shard, ns=(info.st_atime_ns, info.st_mtime_ns))  # size and mtime as before
    assert not r.relocate(src, store, "qwen")["changed"]  # the quick check cannot see it
    result = r.relocate(src, store, "qwen", verify="full")
    assert result["copied_files"] == 1
    assert tree(os.path.join(store, "qwen")) == before


def test_source_changed_during_the_copy(tmp_path):
    src = make_model(str(tmp_path / "src"), {"w.bin": os.urandom(3 * 1024 * 1024), "b.bin": b"b"})
    before_w = open(os.path.join(src, "w.bin"), "rb").read()
    store = str(tmp_path / "store")
    old_chunk, r.CHUNK = r.CHUNK, 1024 * 1024
    state = {"done": False}

    def writer(done, total, current):
        if current == "w.bin" and not state["done"]:
            state["done"] = True
            with open(os.path.join(src, "w.bin"), "ab") as handle:  # someone writes to the model
                handle.write(b"more")

    original = r.Progress

    class Every(original):
        def __init__(self, total, report, interval=0.0):
            original.__init__(self, total, report, 0.0)

    try:
        r.Progress = Every
        with pytest.raises(r.RelocateError, match="w.bin changed during the copy"):
            r.relocate(src, store, "m", progress=writer)
    finally:
        r.Progress, r.CHUNK = original, old_chunk
    assert open(os.path.join(src, "w.bin"), "rb").read() == before_w + b"more"  # the source as the writer left it
    assert not os.path.exists(os.path.join(store, "m"))
    assert not os.path.exists(os.path.join(store, ".m.partial", "w.bin"))
    result = r.relocate(src, store, "m")  # once it is stable, the copy completes
    assert result["copied_files"] == 1 and result["reused_files"] == 1
    assert tree(os.path.join(store, "m")) == tree(src)


@pytest.fixture
def tiny_fs(tmp_path):
    """A 2 MiB tmpfs as the model store (root only; skipped where mounting is not permitted)."""
    point = str(tmp_path / "tiny")
    os.makedirs(point)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", point],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if done.returncode != 0:
        pytest.skip("cannot mount a tmpfs here: %s" % done.stderr.strip())
    yield point
    subprocess.run(["umount", point])


def test_full_target_refused_before_copying(model, tiny_fs):
    src, _, before = model
    with pytest.raises(r.RelocateError, match=r"needs 5\.0 MiB more in .* but only 2\.0 MiB is free"):
        r.relocate(src, tiny_fs, "qwen")
    assert tree(src) == before and os.listdir(tiny_fs) == []


def test_full_target_while_copying(tmp_path, tiny_fs):
    # the check passes (another writer fills the disk meanwhile): ENOSPC mid-copy
    src = make_model(str(tmp_path / "src"), {"a.bin": os.urandom(1024 * 1024), "b.bin": os.urandom(1536 * 1024)})
    before = tree(src)
    with pytest.raises(r.RelocateError, match="filled up while copying .*b.bin"):
        r.relocate(src, tiny_fs, "m", check_free=False)
    assert tree(src) == before
    partial = os.path.join(tiny_fs, ".m.partial")
    assert sorted(os.listdir(partial)) == [r.JOURNAL, "a.bin"]  # a.bin verified and kept; no torn b.bin
    assert not os.path.exists(os.path.join(tiny_fs, "m"))
    # room again (the store moves to a bigger disk): the next run resumes there
    bigger = str(tmp_path / "bigger")
    os.makedirs(bigger)
    subprocess.run(["cp", "-a", partial, bigger], check=True)
    result = r.relocate(src, bigger, "m")
    assert result["reused_files"] == 1 and result["copied_files"] == 1
    assert tree(os.path.join(bigger, "m")) == before


@pytest.mark.parametrize("src,name", [
    ("/mnt/c/models/Qwen3-8B", "Qwen3-8B"), ("/mnt/c/models/Qwen3-8B/", "Qwen3-8B"),
    ("/mnt/c/hf/hub/models--Qwen--Qwen3-8B", "Qwen--Qwen3-8B"),
    ("/mnt/c/hf/hub/models--Qwen--Qwen3-8B/snapshots/abc123", "Qwen--Qwen3-8B"),
])
def test_default_name(src, name):
    assert r.default_name(src) == name
