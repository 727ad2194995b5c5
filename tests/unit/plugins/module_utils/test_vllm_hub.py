import os

import pytest

import vllm_hub as h

COMMIT = "c1899de289a04d12100db370d81485cdf75e47ca"


@pytest.mark.parametrize("value,ok", [
    ("Qwen/Qwen3-VL-8B-Instruct", True), ("meta-llama/Llama-3.1-8B", True), ("a/b", True),
    ("/srv/models/x", False), ("./x/y", False), ("a/b/c", False), ("org/../x", False),
    ("org--x/y", False), ("org/x.git", False), ("builtin", False), ("", False), (None, False),
    ("-org/x", False),
])
def test_repo_ids(value, ok):
    assert h.is_repo_id(value) is ok


def test_store_layout(tmp_path):
    store = str(tmp_path)
    assert h.snapshot_dir(store, "Qwen/Qwen3-0.6B", COMMIT) == os.path.join(
        store, "hub", "Qwen--Qwen3-0.6B", "snapshots", COMMIT)
    assert h.ref_file(store, "Qwen/Qwen3-0.6B", "refs/pr/1").endswith("/refs/refs%2Fpr%2F1")


def test_select_files_leaves_other_weight_formats_out_when_safetensors_exist():
    names = ["config.json", "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors",
             "model.safetensors.index.json", "pytorch_model.bin", "original/consolidated.00.pth",
             "consolidated.safetensors", "tokenizer.json", "model.gguf", "README.md"]
    assert h.select_files(names) == ["README.md", "config.json", "model-00001-of-00002.safetensors",
                                     "model-00002-of-00002.safetensors", "model.safetensors.index.json",
                                     "tokenizer.json"]


def test_select_files_keeps_everything_without_safetensors():
    names = ["config.json", "pytorch_model.bin", "tokenizer.model"]
    assert h.select_files(names) == sorted(names)
    mistral_only = ["params.json", "consolidated.safetensors", "tekken.json"]
    assert h.select_files(mistral_only) == sorted(mistral_only)


def test_plan_without_a_recorded_ref_needs_the_network(tmp_path):
    decided = h.plan(str(tmp_path), "org/m", "main")
    assert decided["network"] and decided["commit"] is None
    assert "has not been resolved" in decided["reason"]


def test_plan_with_a_complete_snapshot_needs_no_network(tmp_path):
    store = str(tmp_path)
    snap = h.snapshot_dir(store, "org/m", COMMIT)
    os.makedirs(snap)
    with open(os.path.join(snap, "config.json"), "w") as handle:
        handle.write("{}")
    # a commit revision: the snapshot is unfinished without its marker
    assert h.plan(store, "org/m", COMMIT)["network"]
    h.write_marker(snap, "org/m", "main", COMMIT, {"config.json": 2})
    assert h.write_ref(store, "org/m", "main", COMMIT)
    assert not h.write_ref(store, "org/m", "main", COMMIT), "an unchanged ref is not rewritten"
    for revision in ("main", COMMIT):
        decided = h.plan(store, "org/m", revision)
        assert decided == {"commit": COMMIT, "snapshot": snap, "complete": True, "network": False,
                           "reason": "commit %s is in the store" % COMMIT}
    assert h.plan(store, "org/m", "main", refresh=True)["network"]


def test_a_file_that_changed_size_makes_the_snapshot_incomplete(tmp_path):
    snap = str(tmp_path / "snap")
    os.makedirs(snap)
    with open(os.path.join(snap, "model.safetensors"), "wb") as handle:
        handle.write(b"\0" * 10)
    h.write_marker(snap, "org/m", "main", COMMIT, {"model.safetensors": 100})
    complete, problem = h.snapshot_complete(snap)
    assert not complete and "is 10 bytes, 100 expected" in problem
    os.remove(os.path.join(snap, "model.safetensors"))
    assert "is missing" in h.snapshot_complete(snap)[1]
