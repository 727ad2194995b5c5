"""vllm_model_relocate (the module) refuses a source link leaving the model folder and a link
planted as the copy, with the reason, and copies nothing."""
import os

from vllm_testlib import load_module

vllm_model_relocate = load_module("vllm_model_relocate")


def test_a_link_out_of_the_model_fails_naming_it(module_runner, tmp_path):
    src = tmp_path / "m"
    src.mkdir()
    (src / "config.json").write_text("{}")
    secret = tmp_path / "secret"
    secret.write_text("root only")
    os.chmod(str(secret), 0o600)
    (src / "tokenizer.json").symlink_to(secret)
    store = tmp_path / "store"
    result = module_runner(vllm_model_relocate, {"src": str(src), "store": str(store), "name": "m", "force": True})
    assert result["failed"] and "tokenizer.json is a link to %s, outside the model folder" % secret in result["msg"]
    assert not (store / "m").exists() and not (store / ".m.partial").exists()


def test_a_link_planted_as_the_copy_is_refused(module_runner, tmp_path):
    src = tmp_path / "m"
    src.mkdir()
    (src / "config.json").write_text("{}")
    store = tmp_path / "store"
    store.mkdir()
    (store / "m").symlink_to(tmp_path)
    result = module_runner(vllm_model_relocate, {"src": str(src), "store": str(store), "name": "m", "force": True})
    assert result["failed"] and "is a link, not made by this relocation" in result["msg"]


def test_the_progress_file_is_never_written_through_a_link(module_runner, tmp_path):
    src = tmp_path / "m"
    src.mkdir()
    (src / "config.json").write_text("{}")
    victim = tmp_path / "victim"
    victim.write_text("keep")
    progress = tmp_path / "progress"
    (tmp_path / "progress.tmp").symlink_to(victim)
    result = module_runner(vllm_model_relocate, {"src": str(src), "store": str(tmp_path / "store"), "name": "m",
                                                 "force": True, "progress_file": str(progress)})
    assert result["changed"] and victim.read_text() == "keep"
    assert progress.read_text().startswith("done: 1 files copied")
