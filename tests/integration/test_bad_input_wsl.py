"""The WSL variables, wrong, stop the real site.yml in preflight before anything changes."""
import pytest

from test_bad_input import run_site


@pytest.mark.parametrize("extra,needles", [
    ({"vllm_wsl_memory": "lots"}, ["vllm_wsl_memory is", "lots", "accepted: \"\" or \"auto\" or a size such as 16GB"]),
    ({"vllm_model_relocate_mode": "rsync"}, ["vllm_model_relocate_mode is 'rsync'; accepted: copy, move"]),
    ({"vllm_wsl_wslconfig_settings": {"processors": 8}}, ["has the key 'processors'; accepted: SECTION.KEY"]),
])
def test_bad_wsl_input_fails_in_preflight(tmp_path, extra, needles):
    proc, root, store = run_site(tmp_path, extra)
    assert proc.returncode != 0, proc.stdout[-3000:]
    for needle in needles:
        assert needle in proc.stdout, proc.stdout[-3000:]
    assert "nothing was changed" in proc.stdout
    assert not root.exists() and not store.exists()
    assert "changed=0" in proc.stdout
