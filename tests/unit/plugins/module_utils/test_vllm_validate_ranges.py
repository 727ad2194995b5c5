"""Range and type checks of the preflight: the numbers of the roles' variables, the bind address,
and vllm_service_options values against data/vllm_option_constraints.yml (vLLM's own Field
bounds). Each of these values used to pass the preflight, restart the server and roll back."""
import os

import pytest
import yaml

import vllm_validate as v

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))))


def opt_errors(options):
    return v.validate_inputs({"vllm_service_options": options})


@pytest.mark.parametrize("key,value,needle", [
    ("kv_cache_memory_bytes", -1, "at least 1"),
    ("kv_cache_memory_bytes", 0, "at least 1"),
    ("gpu_memory_utilization", 7, "greater than 0 and at most 1"),
    ("gpu_memory_utilization", 0, "greater than 0 and at most 1"),
    ("gpu_memory_utilization", 1.0000001, "at most 1"),
    ("gpu_memory_utilization", True, "a number"),
    ("gpu_memory_utilization", "0.9x", "a number"),
    ("max_model_len", -5, "or -1 or auto"),
    ("max_model_len", 0, "at least 1"),
    ("max_model_len", "1.5K", "8K = 8192"),   # vLLM refuses decimals with binary suffixes
    ("max_model_len", "10.24", "whole number"),
    ("max_num_seqs", 0, "at least 1"),
    ("max_num_seqs", True, "whole number"),   # a bool is not an int
    ("max_num_seqs", 2.5, "whole number"),
    ("max_num_batched_tokens", -2048, "at least 1"),
    ("tensor_parallel_size", 0, "at least 1"),
    ("pipeline_parallel_size", False, "whole number"),
    ("data_parallel_size", [2], "whole number"),
    ("cpu_offload_gb", -4, "at least 0"),
    ("swap_space", -1.5, "at least 0"),
    ("block_size", 0, "greater than 0"),
    ("block_size", "16k?", "whole number"),
    ("max_logprobs", -2, "at least -1"),
])
def test_out_of_range_option_values_are_refused(key, value, needle):
    [error] = opt_errors({key: value})
    assert error.startswith("vllm_service_options.%s is %s;" % (key, repr(value) if isinstance(value, str)
                                                                 else value))
    assert needle in error
    assert "vLLM's vllm/config/" in error   # where the bound comes from


def test_a_value_refused_as_an_injection_is_not_also_range_checked():
    [error] = opt_errors({"gpu_memory_utilization": float("nan")})
    assert "non-finite number" in error
    [error] = opt_errors({"max_num_seqs": "-1"})
    assert "starting with '-'" in error


@pytest.mark.parametrize("spelling", ["gpu-memory-utilization", "--gpu_memory_utilization",
                                      "--gpu-memory-utilization"])
def test_every_spelling_of_an_option_is_range_checked(spelling):
    [error] = opt_errors({spelling: 7})
    assert error.startswith("vllm_service_options.%s is 7;" % spelling)


@pytest.mark.parametrize("options", [
    {"gpu_memory_utilization": 0.9}, {"gpu_memory_utilization": 1}, {"gpu_memory_utilization": "0.85"},
    {"max_model_len": 8192}, {"max_model_len": "32k"}, {"max_model_len": "8K"}, {"max_model_len": -1},
    {"max_model_len": "auto"}, {"max_model_len": "AUTO"}, {"max_model_len": "25.6k"},
    {"kv_cache_memory_bytes": 4294967296}, {"kv_cache_memory_bytes": "4G"},
    {"max_num_seqs": 1}, {"max_num_seqs": "16"}, {"tensor_parallel_size": 2},
    {"cpu_offload_gb": 0}, {"cpu_offload_gb": 2.5}, {"block_size": 16}, {"max_logprobs": -1},
    {"seed": 0}, {"seed": 1234},
    {"enforce_eager": True}, {"dtype": "bfloat16"},          # not numeric: not in the table
])
def test_values_vllm_accepts_pass(options):
    assert opt_errors(options) == []


def test_all_problems_are_reported_at_once():
    errors = opt_errors({"kv_cache_memory_bytes": -1, "gpu_memory_utilization": 7, "max_model_len": -5})
    assert [e.split(" is ")[0] for e in errors] == [
        "vllm_service_options.gpu_memory_utilization", "vllm_service_options.kv_cache_memory_bytes",
        "vllm_service_options.max_model_len"]


def test_the_constraints_table_names_its_vllm_source_for_every_entry():
    with open(os.path.join(ROOT, "data", "vllm_option_constraints.yml")) as handle:
        table = yaml.safe_load(handle)["options"]
    assert {"gpu_memory_utilization", "max_model_len", "kv_cache_memory_bytes", "max_num_seqs",
            "max_num_batched_tokens", "tensor_parallel_size", "pipeline_parallel_size",
            "cpu_offload_gb", "block_size"} <= set(table)
    for name, entry in table.items():
        assert entry["source"].startswith("vllm/"), name
        assert name in entry["source"], name
        assert entry["type"] in ("int", "human_int", "float"), name


def test_a_broken_table_is_refused(tmp_path):
    path = tmp_path / "bad.yml"
    path.write_text("options: {max_num_seqs: {ge: 1}}\n")
    with pytest.raises(ValueError, match="needs a type"):
        v.load_option_constraints(str(path))


@pytest.mark.parametrize("value", [-1, 0, 86401, "-1", "900s", True, 1.5, None, ""])
def test_ready_timeout_range(value):
    [error] = v.validate_inputs({"vllm_service_ready_timeout": value})
    assert error.startswith("vllm_service_ready_timeout is ")
    assert "1 to 86400" in error


@pytest.mark.parametrize("value", [1, 900, "900", 86400])
def test_ready_timeout_ok(value):
    assert v.validate_inputs({"vllm_service_ready_timeout": value}) == []


@pytest.mark.parametrize("value", [0, 59, -3600, "1h", False])
def test_install_timeout_range(value):
    [error] = v.validate_inputs({"vllm_install_timeout": value})
    assert error.startswith("vllm_install_timeout is ") and "60 to 86400" in error




@pytest.mark.parametrize("host", ["127.0.0.1\n", "127.0.0.1 ", " 127.0.0.1", "1.2.3.4.5", "999.1.1.1",
                                  "[::1]", "-h", "--port", "a..b", "", "host name", "a_b", "x" * 64,
                                  "fe80::1%eth0", "127.0.0.1\u2028", "0.0.0.0#", "h\x00", 8000,
                                  None, True, "127.0.0.1:8000", "a.-b"])
def test_bad_bind_addresses(host):
    [error] = v.validate_inputs({"vllm_service_host": host})
    assert error.startswith("vllm_service_host is %s;" % (repr(host) if isinstance(host, str) else host))
    assert "an IP address" in error and "host name" in error


@pytest.mark.parametrize("host", ["127.0.0.1", "0.0.0.0", "::1", "::", "fd00::10", "localhost",
                                  "gpu-1.lab.example", "gpu-1.lab.example.", "vllm"])
def test_good_bind_addresses(host):
    assert v.validate_inputs({"vllm_service_host": host}) == []
