"""Model relocation against an attacker: links and special files in the source, links planted in
the store, modes, resuming a killed copy, and a service user (``nobody`` here) that owns the store.

The relocation runs as root; nothing it writes may land where the store's owner could not write.
"""
import hashlib
import json
import os
import pwd
import shutil
import stat
import subprocess
import tempfile

import pytest

import vllm_relocate as r

ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (setuid to nobody, chown, mknod)")


def make(root, files, mode=None):
    for rel, data in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as handle:
            handle.write(data)
        if mode is not None:
            os.chmod(path, mode)
    return root


def digest_tree(root):
    out = {}
    for directory, dirs, names in os.walk(root):
        for name in dirs + names:
            full = os.path.join(directory, name)
            rel = os.path.relpath(full, root)
            info = os.lstat(full)
            if stat.S_ISREG(info.st_mode):
                with open(full, "rb") as handle:
                    out[rel] = ("file", stat.S_IMODE(info.st_mode), hashlib.sha256(handle.read()).hexdigest())
            elif stat.S_ISLNK(info.st_mode):
                out[rel] = ("link", os.readlink(full))
            else:
                out[rel] = ("dir", stat.S_IMODE(info.st_mode))
    return out


MODEL = {"config.json": b'{"architectures": ["X"]}', "model.safetensors": os.urandom(256 * 1024),
         "sub/extra.txt": b"extra", "tokenizer.json": b"{}"}


@pytest.fixture
def secret(tmp_path):
    path = str(tmp_path / "secret")
    with open(path, "wb") as handle:
        handle.write(b"root:$6$hash:19000:0:99999:7:::\n")
    os.chmod(path, 0o600)
    return path


# ---- A1: the source -------------------------------------------------------------------------

@pytest.mark.parametrize("outside", ["secret", "/etc/shadow", "/etc/passwd"])
def test_a_link_leaving_the_model_folder_is_refused(tmp_path, secret, outside):
    target = secret if outside == "secret" else outside
    if not os.path.exists(target):
        pytest.skip("%s does not exist here" % target)
    src = make(str(tmp_path / "win" / "m"), MODEL)
    os.symlink(target, os.path.join(src, "leak.json"))
    store = str(tmp_path / "store")
    with pytest.raises(r.RelocateError) as err:
        r.relocate(src, store, "m")
    assert os.path.join(src, "leak.json") in str(err.value) and os.path.realpath(target) in str(err.value)
    assert "outside the model folder" in str(err.value)
    assert not os.path.exists(os.path.join(store, "m")) and not os.path.exists(os.path.join(store, ".m.partial"))


def test_a_relative_link_climbing_out_of_a_hugging_face_repo_is_refused(tmp_path, secret):
    repo = str(tmp_path / "hub" / "models--org--tiny")
    make(os.path.join(repo, "blobs"), {"a" * 40: b"{}"})
    snap = os.path.join(repo, "snapshots", "1111")
    os.makedirs(snap)
    os.symlink("../../blobs/" + "a" * 40, os.path.join(snap, "config.json"))  # fine: inside the repo
    os.symlink("../../../../secret", os.path.join(snap, "tokenizer.json"))   # leaves the repo
    make(os.path.join(repo, "refs"), {"main": b"1111"})
    with pytest.raises(r.RelocateError, match=r"tokenizer.json is a link to .*secret, outside the model folder"):
        r.relocate(repo, str(tmp_path / "store"), "tiny")


def test_refs_main_cannot_point_outside_the_snapshots(tmp_path):
    repo = str(tmp_path / "hub" / "models--org--tiny")
    make(os.path.join(repo, "snapshots", "1111"), {"config.json": b"{}"})
    make(str(tmp_path), {"elsewhere/config.json": b"{}"})
    make(os.path.join(repo, "refs"), {"main": b"../../../elsewhere"})
    with pytest.raises(r.RelocateError, match="not a revision"):
        r.relocate(repo, str(tmp_path / "store"), "tiny")


def test_a_snapshot_folder_linked_outside_the_repo_is_refused(tmp_path):
    repo = str(tmp_path / "hub" / "models--org--tiny")
    make(str(tmp_path), {"elsewhere/config.json": b"{}"})
    os.makedirs(os.path.join(repo, "snapshots"))
    os.symlink(str(tmp_path / "elsewhere"), os.path.join(repo, "snapshots", "1111"))
    with pytest.raises(r.RelocateError, match="outside the repository folder"):
        r.relocate(repo, str(tmp_path / "store"), "tiny")


def test_a_fifo_is_refused_not_skipped_or_read(tmp_path):
    src = make(str(tmp_path / "m"), MODEL)
    os.mkfifo(os.path.join(src, "pipe.json"))
    with pytest.raises(r.RelocateError, match=r"pipe.json is a FIFO; refused"):
        r.relocate(src, str(tmp_path / "store"), "m")


@ROOT_ONLY
def test_a_device_is_refused(tmp_path):
    src = make(str(tmp_path / "m"), MODEL)
    os.mknod(os.path.join(src, "zero.bin"), 0o644 | stat.S_IFCHR, os.makedev(1, 5))
    with pytest.raises(r.RelocateError, match=r"zero.bin is a character device; refused"):
        r.relocate(src, str(tmp_path / "store"), "m")


def test_a_link_to_a_folder_is_refused(tmp_path):
    src = make(str(tmp_path / "m"), MODEL)
    os.symlink("sub", os.path.join(src, "again"))
    with pytest.raises(r.RelocateError, match="again is a link to the folder"):
        r.relocate(src, str(tmp_path / "store"), "m")


def _swap_during_the_copy(monkeypatch, action):
    """Run ``action`` once, while the first file is being copied (after every check)."""
    original = r.Progress
    state = {"done": False}

    class Every(original):
        def __init__(self, total, report, interval=0.0):
            def hook(done, total_, current):
                if not state["done"]:
                    state["done"] = True
                    action()
            original.__init__(self, total, hook, 0.0)

    monkeypatch.setattr(r, "Progress", Every)
    monkeypatch.setattr(r, "CHUNK", 4096)


def test_a_file_swapped_for_a_link_after_the_check_is_refused(tmp_path, monkeypatch, secret):
    src = make(str(tmp_path / "m"), MODEL)
    victim = os.path.join(src, "tokenizer.json")
    # the secret takes the place of tokenizer.json with the same size and mtime: only the inode differs
    with open(secret, "wb") as handle:
        handle.write(b"S!")  # as long as "{}"
    info = os.stat(victim)
    os.utime(secret, ns=(info.st_atime_ns, info.st_mtime_ns))

    def swap():
        os.unlink(victim)
        os.symlink(secret, victim)

    _swap_during_the_copy(monkeypatch, swap)
    with pytest.raises(r.RelocateError, match="tokenizer.json changed since it was checked"):
        r.relocate(src, str(tmp_path / "store"), "m", progress=lambda *a: None)
    assert not os.path.exists(str(tmp_path / "store" / "m"))


def test_a_folder_swapped_for_a_link_after_the_check_is_refused(tmp_path, monkeypatch, secret):
    src = make(str(tmp_path / "m"), MODEL)
    elsewhere = make(str(tmp_path / "elsewhere"), {"extra.txt": b"SECRE"})
    os.chmod(os.path.join(elsewhere, "extra.txt"), 0o600)
    info = os.stat(os.path.join(src, "sub", "extra.txt"))
    os.utime(os.path.join(elsewhere, "extra.txt"), ns=(info.st_atime_ns, info.st_mtime_ns))

    def swap():
        shutil.rmtree(os.path.join(src, "sub"))
        os.symlink(elsewhere, os.path.join(src, "sub"))

    _swap_during_the_copy(monkeypatch, swap)
    with pytest.raises(r.RelocateError, match="changed since it was checked|is a link; refused"):
        r.relocate(src, str(tmp_path / "store"), "m", progress=lambda *a: None)
    assert not os.path.exists(str(tmp_path / "store" / "m"))


# ---- A2: modes, links in the target tree ----------------------------------------------------

def test_modes_are_kept_never_widened(tmp_path):
    src = make(str(tmp_path / "m"), {"config.json": b"{}"})
    modes = {"private.bin": 0o600, "group.bin": 0o640, "plain.bin": 0o644, "exec.sh": 0o755, "suid.bin": 0o4755,
             "wide.bin": 0o666}
    for name, mode in modes.items():
        make(src, {name: b"x"}, mode)
    old = os.umask(0o022)
    try:
        r.relocate(src, str(tmp_path / "store"), "m")
    finally:
        os.umask(old)
    got = dict((name, stat.S_IMODE(os.stat(str(tmp_path / "store" / "m" / name)).st_mode)) for name in modes)
    assert got == {"private.bin": 0o600, "group.bin": 0o640, "plain.bin": 0o644, "exec.sh": 0o755,
                   "suid.bin": 0o755, "wide.bin": 0o644}


def test_a_link_planted_as_the_partial_folder_is_replaced(tmp_path):
    src = make(str(tmp_path / "m"), MODEL)
    victim = make(str(tmp_path / "victim"), {"keep.txt": b"keep"})
    before = digest_tree(victim)
    store = str(tmp_path / "store")
    os.makedirs(store)
    os.symlink(victim, os.path.join(store, ".m.partial"))
    r.relocate(src, store, "m")
    assert digest_tree(victim) == before
    assert sorted(os.listdir(os.path.join(store, "m"))) == sorted([r.MANIFEST, "config.json", "model.safetensors",
                                                                   "sub", "tokenizer.json"])


def test_links_planted_inside_the_partial_folder_never_redirect_a_write(tmp_path):
    src = make(str(tmp_path / "m"), MODEL)
    victim = make(str(tmp_path / "victim"), {"config.json": b"victim", "journal": b"victim", "extra.txt": b"v"})
    before = digest_tree(victim)
    store = str(tmp_path / "store")
    partial = os.path.join(store, ".m.partial")
    os.makedirs(partial)
    os.symlink(os.path.join(victim, "config.json"), os.path.join(partial, "config.json"))
    os.symlink(os.path.join(victim, "journal"), os.path.join(partial, r.JOURNAL))
    os.symlink(victim, os.path.join(partial, "sub"))
    os.symlink(os.path.join(victim, "manifest"), os.path.join(partial, r.MANIFEST + ".tmp"))
    r.relocate(src, store, "m")
    assert digest_tree(victim) == before
    with open(os.path.join(store, "m", "sub", "extra.txt"), "rb") as handle:
        assert handle.read() == b"extra"
    assert not os.path.islink(os.path.join(store, "m", "sub"))


def test_a_link_as_the_target_folder_is_refused(tmp_path):
    src = make(str(tmp_path / "m"), MODEL)
    r.relocate(src, str(tmp_path / "elsewhere"), "m")  # a real copy of ours, with a manifest
    store = str(tmp_path / "store")
    os.makedirs(store)
    os.symlink(str(tmp_path / "elsewhere" / "m"), os.path.join(store, "m"))
    with pytest.raises(r.RelocateError, match="is a link, not made by this relocation"):
        r.relocate(src, store, "m")
    assert os.path.islink(os.path.join(store, "m"))


# ---- A3: resume after a kill when the store is nearly full ----------------------------------

@pytest.fixture
def tiny_fs(tmp_path):
    point = str(tmp_path / "tiny")
    os.makedirs(point)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", point],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if done.returncode != 0:
        pytest.skip("cannot mount a tmpfs here: %s" % done.stderr.strip())
    yield point
    subprocess.run(["umount", point])


def test_resume_counts_a_half_written_file_as_space_that_comes_back(tmp_path, tiny_fs, monkeypatch):
    monkeypatch.setattr(r, "SPACE_MARGIN", 0)
    src = make(str(tmp_path / "src"), {"a.bin": os.urandom(3 * 1024 * 1024), "b.bin": os.urandom(4 * 1024 * 1024)})
    files = r.list_files(src)
    # what a kill in the middle of b.bin leaves: a.bin verified and journaled, 3 MiB of b.bin written
    partial = os.path.join(tiny_fs, ".m.partial")
    os.makedirs(partial)
    shutil.copy(os.path.join(src, "a.bin"), os.path.join(partial, "a.bin"))
    with open(os.path.join(src, "b.bin"), "rb") as source, open(os.path.join(partial, "b.bin"), "wb") as half:
        half.write(source.read(3 * 1024 * 1024))
    with open(os.path.join(src, "a.bin"), "rb") as handle:
        digest = hashlib.sha256(handle.read()).hexdigest()
    r._append_journal(os.path.join(partial, r.JOURNAL), {"path": "a.bin", "source": src, "size": 3 * 1024 * 1024,
                                                          "mtime_ns": files["a.bin"]["mtime_ns"], "sha256": digest})
    assert r.free_bytes(tiny_fs) < 4 * 1024 * 1024  # b.bin does not fit beside its own half
    result = r.relocate(src, tiny_fs, "m")
    assert result["reused_files"] == 1 and result["copied_files"] == 1
    with open(os.path.join(tiny_fs, "m", "b.bin"), "rb") as copy, open(os.path.join(src, "b.bin"), "rb") as orig:
        assert copy.read() == orig.read()


def test_resume_still_refuses_what_does_not_fit(tmp_path, monkeypatch):
    monkeypatch.setattr(r, "SPACE_MARGIN", 0)
    src = make(str(tmp_path / "src"), {"a.bin": os.urandom(64 * 1024), "b.bin": os.urandom(64 * 1024)})
    partial = str(tmp_path / "store" / ".m.partial")
    make(partial, {"b.bin": os.urandom(16 * 1024)})
    with pytest.raises(r.RelocateError, match="needs"):
        r.relocate(src, str(tmp_path / "store"), "m", free=64 * 1024)


# ---- A4: a service user that owns the store -------------------------------------------------

def as_nobody(action):
    """Run ``action()`` in a forked child that has dropped to nobody; its exit status (0: done)."""
    nobody = pwd.getpwnam("nobody")
    pid = os.fork()
    if pid == 0:  # the child: never return into pytest
        code = 1
        try:
            os.setgroups([])
            os.setgid(nobody.pw_gid)
            os.setuid(nobody.pw_uid)
            action()
            code = 0
        except BaseException:
            import traceback
            traceback.print_exc()
        finally:
            os._exit(code)
    return os.waitpid(pid, 0)[1]


@pytest.fixture
def shared(tmp_path):
    """A folder nobody can reach (tmp_path is root-only): the store owned by nobody, a root-owned
    victim folder beside it that nobody can read but not write."""
    base = tempfile.mkdtemp(prefix="relocate-", dir="/tmp")
    os.chmod(base, 0o755)
    store = os.path.join(base, "store")
    os.makedirs(store)
    nobody = pwd.getpwnam("nobody")
    os.chown(store, nobody.pw_uid, nobody.pw_gid)
    victim = make(os.path.join(base, "victim"), {"config.json": b"victim", "extra.txt": b"victim"})
    os.chmod(victim, 0o755)
    yield base, store, victim
    shutil.rmtree(base, ignore_errors=True)


@ROOT_ONLY
def test_nobody_cannot_make_the_relocation_write_outside_the_store(tmp_path, shared):
    base, store, victim = shared
    src = make(str(tmp_path / "m"), MODEL)
    before = digest_tree(victim)

    def plant():
        assert not os.access(victim, os.W_OK)  # really unprivileged
        partial = os.path.join(store, ".m.partial")
        os.makedirs(partial)
        os.symlink(os.path.join(victim, "config.json"), os.path.join(partial, "config.json"))
        os.symlink(os.path.join(victim, "journal"), os.path.join(partial, r.JOURNAL))
        os.symlink(victim, os.path.join(partial, "sub"))
        os.symlink(victim, os.path.join(store, ".m.old"))

    assert as_nobody(plant) == 0
    r.relocate(src, store, "m")
    assert digest_tree(victim) == before
    with open(os.path.join(store, "m", "config.json"), "rb") as handle:
        assert handle.read() == MODEL["config.json"]


@ROOT_ONLY
def test_nobody_racing_the_copy_cannot_redirect_a_write(tmp_path, shared, monkeypatch):
    base, store, victim = shared
    src = make(str(tmp_path / "m"), MODEL)
    before = digest_tree(victim)
    assert as_nobody(lambda: os.makedirs(os.path.join(store, ".m.partial"))) == 0  # its own partial folder

    def race():  # while the first file is copied: sub/ (not made yet) becomes a link to the victim
        assert as_nobody(lambda: os.symlink(victim, os.path.join(store, ".m.partial", "sub"))) == 0

    _swap_during_the_copy(monkeypatch, race)
    r.relocate(src, store, "m", progress=lambda *a: None)
    assert digest_tree(victim) == before
    assert not os.path.islink(os.path.join(store, "m", "sub"))


@ROOT_ONLY
def test_a_store_reached_through_nobodys_link_is_refused(tmp_path, shared):
    base, store, victim = shared
    src = make(str(tmp_path / "m"), MODEL)
    before = digest_tree(victim)
    assert as_nobody(lambda: os.symlink(victim, os.path.join(store, "models"))) == 0
    with pytest.raises(r.RelocateError, match="is a link .* in a folder another user can write"):
        r.relocate(src, os.path.join(store, "models"), "m")
    assert digest_tree(victim) == before


@ROOT_ONLY
def test_a_store_reached_through_roots_own_link_is_followed(tmp_path, shared):
    base, store, victim = shared
    src = make(str(tmp_path / "m"), MODEL)
    real = os.path.join(base, "real-store")
    os.makedirs(real)
    os.symlink(real, os.path.join(base, "models"))  # root's link in a root-owned folder: trusted
    r.relocate(src, os.path.join(base, "models"), "m")
    assert os.path.isfile(os.path.join(real, "m", "config.json"))


@ROOT_ONLY
def test_nobody_cannot_make_move_delete_outside_the_source(tmp_path, shared, monkeypatch):
    base, store, victim = shared
    src = make(os.path.join(base, "win", "m"), MODEL)
    for directory, dirs, names in os.walk(os.path.join(base, "win")):
        for name in dirs + names:
            os.lchown(os.path.join(directory, name), pwd.getpwnam("nobody").pw_uid, -1)
    os.chown(os.path.join(base, "win"), pwd.getpwnam("nobody").pw_uid, -1)
    before = digest_tree(victim)
    original = r._remove_source

    def swapped(*args):
        # between the switch and the removal, nobody turns sub/ into a link to the victim
        def swap():
            shutil.rmtree(os.path.join(src, "sub"))
            os.symlink(victim, os.path.join(src, "sub"))
        assert as_nobody(swap) == 0
        return original(*args)

    monkeypatch.setattr(r, "_remove_source", swapped)
    r.relocate(src, store, "m", mode="move")
    assert digest_tree(victim) == before


def test_what_the_partial_folder_holds_beyond_the_plan_never_reaches_the_copy(tmp_path):
    src = make(str(tmp_path / "m"), MODEL)
    store = str(tmp_path / "store")
    partial = os.path.join(store, ".m.partial")
    make(partial, {"planted.py": b"import os", "sub/planted.txt": b"x", "other/x.bin": b"y"})
    os.mkfifo(os.path.join(partial, "pipe"))
    r.relocate(src, store, "m")
    target = os.path.join(store, "m")
    assert sorted(os.listdir(target)) == sorted([r.MANIFEST, "config.json", "model.safetensors", "sub",
                                                 "tokenizer.json"])
    assert os.listdir(os.path.join(target, "sub")) == ["extra.txt"]


@ROOT_ONLY
def test_move_keeps_the_source_when_nobody_forged_the_copy(tmp_path, shared):
    base, store, victim = shared
    src = make(str(tmp_path / "m"), MODEL)
    before = digest_tree(src)
    listing = r.list_files(src)
    target = os.path.join(store, "m")

    def forge():  # a copy of the right sizes and mtimes but other bytes, and a manifest vouching for it
        entries = {}
        for rel, info in listing.items():
            path = os.path.join(target, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as handle:
                handle.write(b"\0" * info["size"])
            entries[rel] = {"size": info["size"], "mtime_ns": info["mtime_ns"], "sha256": "0" * 64,
                            "target_mtime_ns": os.stat(path).st_mtime_ns}
        with open(os.path.join(target, r.MANIFEST), "w") as handle:
            json.dump({"source": src, "name": "m", "total_bytes": 0, "files": entries}, handle)

    assert as_nobody(forge) == 0
    with pytest.raises(r.RelocateError, match="does not hold what the source holds .*the source is kept"):
        r.relocate(src, store, "m", mode="move")
    assert digest_tree(src) == before


def test_move_after_a_resumed_copy_checks_what_it_did_not_copy(tmp_path):
    src = make(str(tmp_path / "m"), MODEL)
    store = str(tmp_path / "store")
    r.relocate(src, store, "m")
    result = r.relocate(src, store, "m", mode="move")  # nothing copied: every file checked against the source
    assert result["removed_source"] and not os.path.exists(src)
