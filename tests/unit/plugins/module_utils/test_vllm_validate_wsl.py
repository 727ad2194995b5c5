"""The WSL variables fail in preflight with the variable, the value and what is accepted."""
import pytest

from vllm_validate import check_wsl_inputs, validate_inputs

GOOD = {
    "vllm_model_relocate": "auto", "vllm_model_relocate_mode": "copy", "vllm_model_relocate_verify": "quick",
    "vllm_model_windows_fstypes": ["9p", "drvfs", "v9fs"], "vllm_model_relocate_timeout": 21600,
    "vllm_wsl_manage": True, "vllm_wsl_systemd": "true", "vllm_wsl_windows_profile": "",
    "vllm_wsl_memory": "auto", "vllm_wsl_swap": "0", "vllm_wsl_windows_memory": "", "vllm_wsl_runtime_overhead": "4GB",
    "vllm_wsl_wslconfig_settings": {"wsl2.processors": 8}, "vllm_wsl_conf_settings": {},
}


def test_defaults_and_sizes_pass():
    assert check_wsl_inputs(GOOD) == []
    assert check_wsl_inputs(dict(GOOD, vllm_wsl_memory="24GB", vllm_wsl_swap="", vllm_wsl_windows_memory="64GB",
                                 vllm_wsl_windows_profile="/mnt/c/Users/me")) == []


# the choices of vllm_model_relocate*, and the bools, are the argument specs' (test_vllm_argspec.py)
@pytest.mark.parametrize("name,value,message", [
    ("vllm_model_windows_fstypes", "9p", "accepted: a non-empty list of filesystem types"),
    ("vllm_model_windows_fstypes", [], "accepted: a non-empty list of filesystem types"),
    ("vllm_model_relocate_timeout", 5, "vllm_model_relocate_timeout is 5; accepted: seconds, at least 60"),
    ("vllm_wsl_memory", "lots", "vllm_wsl_memory is 'lots'; accepted: \"\" or \"auto\" or a size such as 16GB"),
    ("vllm_wsl_swap", "-1GB", "vllm_wsl_swap is '-1GB'"),
    ("vllm_wsl_windows_memory", "auto", "vllm_wsl_windows_memory is 'auto'; accepted: \"\" or a size"),
    ("vllm_wsl_runtime_overhead", "", "vllm_wsl_runtime_overhead is ''; accepted: a size such as 16GB"),
    ("vllm_wsl_windows_profile", "C:\\Users\\me", "vllm_wsl_windows_profile is 'C:\\\\Users\\\\me'"),
    ("vllm_wsl_wslconfig_settings", {"processors": 8}, "has the key 'processors'; accepted: SECTION.KEY"),
    ("vllm_wsl_conf_settings", ["boot.systemd=true"], "accepted: a mapping of SECTION.KEY to a value"),
])
def test_bad_values_are_named(name, value, message):
    errors = validate_inputs(dict(GOOD, **{name: value}))
    assert len(errors) == 1, errors
    assert message in errors[0]


@pytest.mark.parametrize("name,value,message", [
    ("vllm_wsl_memory", "0", "vllm_wsl_memory is '0'; accepted: \"\" or \"auto\" or a size such as 16GB"),
    ("vllm_wsl_memory", "1KB", "(this is below 1GB)"),
    ("vllm_wsl_memory", "1.5GB", "(this is not a whole number)"),
    ("vllm_wsl_memory", "99999999999999999999TB", "(this is above 64TB)"),
    ("vllm_wsl_swap", "512MB", "vllm_wsl_swap is '512MB'; accepted: \"\" or \"auto\" or a size"),
    ("vllm_wsl_windows_memory", "4GB", "(this is below 5GB)"),
])
def test_wsl_sizes_outside_the_bounds_are_named(name, value, message):
    errors = validate_inputs(dict(GOOD, **{name: value}))
    assert len(errors) == 1 and message in errors[0], errors


def test_wsl_sizes_inside_the_bounds_pass():
    assert check_wsl_inputs(dict(GOOD, vllm_wsl_memory="1GB", vllm_wsl_swap="0GB",
                                 vllm_wsl_windows_memory="34359738368", vllm_wsl_runtime_overhead="0")) == []
