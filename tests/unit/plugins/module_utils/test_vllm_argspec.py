"""Types and choices of every role's variables come from the roles' meta/argument_specs.yml
(checked in the preflight by validate_argument_spec); vllm_argspec merges the specs, names the
inputs and words the check's errors as the preflight's others: variable, value, accepted."""
import os

import pytest
import yaml

import vllm_argspec as a
import vllm_validate as v
from vllm_testlib import ROOT

ROLES = os.path.join(ROOT, "roles")


def _load(path):
    with open(path) as handle:
        return yaml.safe_load(handle)


def _preflight_roles():
    return _load(os.path.join(ROLES, "vllm_preflight", "vars", "main.yml"))["__vllm_preflight_roles"]


SPECS = [_load(os.path.join(ROLES, role, "meta", "argument_specs.yml")) for role in _preflight_roles()]
OPTIONS = a.spec_options(SPECS)


def _own_variables(name):
    """A role with public variables of its own has defaults; vllm_rollout has none (its spec declares
    the vllm_python_* and vllm_service_* variables it reads, as their owners declare them)."""
    return os.path.isfile(os.path.join(ROLES, name, "defaults", "main.yml"))


def test_the_preflight_reads_the_spec_of_every_role():
    assert sorted(_preflight_roles()) == sorted(
        name for name in os.listdir(ROLES)
        if os.path.isfile(os.path.join(ROLES, name, "meta", "argument_specs.yml")) and _own_variables(name))


def test_a_role_without_variables_of_its_own_declares_them_as_their_owners_do():
    for name in os.listdir(ROLES):
        spec_file = os.path.join(ROLES, name, "meta", "argument_specs.yml")
        if _own_variables(name) or not os.path.isfile(spec_file):
            continue
        for option, declared in _load(spec_file)["argument_specs"]["main"]["options"].items():
            owner = OPTIONS[option]
            assert (declared["type"], declared.get("default"), declared.get("choices")) == (
                owner["type"], owner.get("default"), owner.get("choices")), (name, option)


def test_every_default_is_an_option_of_its_role_spec_with_a_type():
    """A new variable touches its role's defaults, its spec and the sample inventory: the
    preflight's inputs are the specs' options."""
    for role in _preflight_roles():
        options = a.spec_options([_load(os.path.join(ROLES, role, "meta", "argument_specs.yml"))])
        defaults = _load(os.path.join(ROLES, role, "defaults", "main.yml")) or {}
        assert sorted(defaults) == sorted(options), role
        for name, option in options.items():
            assert option.get("type"), (role, name)
            if option["type"] == "list":
                assert option.get("elements"), (role, name)


def test_a_variable_several_roles_declare_is_declared_alike():
    seen = {}
    for spec in SPECS:
        for name, option in spec["argument_specs"]["main"]["options"].items():
            assert seen.setdefault(name, option) == option, name
    assert list(OPTIONS)[0] == "vllm_host_facts_nvidia_smi"


@pytest.mark.parametrize("value", ["gpu", "CPU", "", None])
def test_unknown_backend_names_variable_value_and_choices(value):
    [error] = a.check(OPTIONS, {"vllm_install_backend": value})
    assert error == "vllm_install_backend is %r; accepted: auto, cpu, cuda" % (value,)


@pytest.mark.parametrize("name,value,message", [
    ("vllm_state", "gone", "vllm_state is 'gone'; accepted: present, absent"),
    ("vllm_service_manager", "upstart", "vllm_service_manager is 'upstart'; accepted: auto, systemd, launcher"),
    ("vllm_service_manager", "systemd\n", "vllm_service_manager is 'systemd\\n'; accepted: auto, systemd, launcher"),
    ("vllm_model_relocate", "sometimes", "vllm_model_relocate is 'sometimes'; accepted: auto, always, never"),
    ("vllm_model_relocate_mode", "rsync", "vllm_model_relocate_mode is 'rsync'; accepted: copy, move"),
    ("vllm_model_relocate_verify", "deep", "vllm_model_relocate_verify is 'deep'; accepted: quick, full"),
    ("vllm_python_provider", "conda", "vllm_python_provider is 'conda'; accepted: auto, distro, deadsnakes, uv"),
    ("vllm_python_rebuild", "maybe", "vllm_python_rebuild is 'maybe'; accepted: true or false"),
    ("vllm_service_allow_unauthenticated", "maybe",
     "vllm_service_allow_unauthenticated is 'maybe'; accepted: true or false"),
    ("vllm_wsl_systemd", "maybe", "vllm_wsl_systemd is 'maybe'; accepted: true or false"),
    ("vllm_wsl_manage", [1], "vllm_wsl_manage is [1]; accepted: true or false"),
    ("vllm_model_refresh", "sometimes", "vllm_model_refresh is 'sometimes'; accepted: true or false"),
    ("vllm_install_plan_indexes", {}, "vllm_install_plan_indexes is {}; accepted: true or false"),
    ("vllm_install_environment", "HTTP_PROXY", "vllm_install_environment is 'HTTP_PROXY'; accepted: a mapping"),
])
def test_types_and_choices_are_the_specs_and_name_variable_value_and_accepted(name, value, message):
    assert a.check(OPTIONS, {name: value}) == [message]
    assert v.validate_inputs({name: value}) == []


@pytest.mark.parametrize("name,value", [
    ("vllm_state", "absent"), ("vllm_python_rebuild", "yes"), ("vllm_wsl_systemd", "true"),
    ("vllm_service_allow_unauthenticated", "on"), ("vllm_wsl_manage", False), ("vllm_service_port", "8000"),
])
def test_values_the_specs_accept(name, value):
    assert a.check(OPTIONS, {name: value}) == []


def test_a_secret_is_never_shown():
    options = {"vllm_service_api_key": {"type": "int", "no_log": True}}
    message = "argument 'vllm_service_api_key' is of type <class 'str'> and we were unable to convert to int: 'sk-9'"
    [error] = a.spec_errors([message], options, {"vllm_service_api_key": "sk-9"})
    assert "sk-9" not in error and error.startswith("vllm_service_api_key is not a whole number")
    assert all(OPTIONS[name]["no_log"] for name in ("vllm_service_api_key", "vllm_service_hf_token",
                                                    "vllm_service_tls_key", "vllm_model_hf_token"))


def test_errors_follow_the_spec_order_one_line_each():
    messages = ["value of vllm_state must be one of: present, absent, got: x\ny",
                "argument 'vllm_host_facts_paths' is of type <class 'str'> and we were unable to convert to dict",
                "something\nabout nothing"]
    values = {"vllm_state": "x\ny", "vllm_host_facts_paths": "p"}
    assert a.spec_errors(messages, OPTIONS, values) == [
        "vllm_host_facts_paths is 'p'; accepted: a mapping",
        "vllm_state is 'x\\ny'; accepted: present, absent",
        "something about nothing"]


def test_a_variable_with_its_own_check_keeps_that_check_s_words():
    type_errors = ["vllm_service_port is '80a'; accepted: a whole number",
                   "vllm_service_manager is 'x'; accepted: auto, systemd, launcher"]
    errors = ["vllm_service_port is '80a'; accepted: an integer from 1 to 65535"]
    assert a.merge_errors(type_errors, errors) == [type_errors[1], errors[0]]
    assert a.check(OPTIONS, {"vllm_service_port": "80a"}) == ["vllm_service_port is '80a'; accepted: a whole number"]


def test_accepted_words_lists_and_their_elements():
    assert a.accepted({"type": "list", "elements": "str"}) == "a list of strings"
    assert a.accepted({"type": "str", "choices": ["a", "b"]}) == "a, b"
    assert a.accepted({}) == "text"
