import pytest

import vllm_validate as v


@pytest.mark.parametrize("value", [0, 65536, -1, "80a", "", None, True, 3.5e9])
def test_port_out_of_range(value):
    [error] = v.validate_inputs({"vllm_service_port": value})
    assert "vllm_service_port is" in error and "1 to 65535" in error


@pytest.mark.parametrize("value", [1, 8000, "8000", 65535])
def test_port_ok(value):
    assert v.validate_inputs({"vllm_service_port": value}) == []


def test_model_source_builtin_needs_no_path():
    assert v.validate_inputs({"vllm_model_source": "builtin"}, None) == []


def test_model_source_missing_path():
    [error] = v.validate_inputs({"vllm_model_source": "/no/such/model"}, False)
    assert "vllm_model_source is '/no/such/model', which does not exist" in error


@pytest.mark.parametrize("exists,needle", [("not_a_dir", "not a folder"), ("no_config", "no config.json")])
def test_model_source_wrong_kind(exists, needle):
    [error] = v.validate_inputs({"vllm_model_source": "/srv/m"}, exists)
    assert needle in error


def test_model_source_relative_path():
    for value in ("./models/x", "a/b/c", "models", "org/../x"):
        [error] = v.validate_inputs({"vllm_model_source": value}, None)
        assert "'builtin'" in error and "Hub id (org/name" in error and "absolute path" in error


def test_model_source_hub_id():
    for value in ("Qwen/Qwen3-VL-8B-Instruct", "meta-llama/Llama-3.1-8B", "org/name.v2"):
        assert v.validate_inputs({"vllm_model_source": value}, None) == []


def test_model_revision_and_endpoint():
    ok = {"vllm_model_revision": "main", "vllm_model_hub_endpoint": ""}
    assert v.validate_inputs(ok) == []
    assert v.validate_inputs({"vllm_model_revision": "a" * 40,
                              "vllm_model_hub_endpoint": "https://hf-mirror.example.internal/"}) == []
    [rev] = v.validate_inputs({"vllm_model_revision": "main branch"})
    assert "vllm_model_revision is 'main branch'; accepted: a branch, tag or commit" in rev
    [url] = v.validate_inputs({"vllm_model_hub_endpoint": "hf-mirror.local"})
    assert "vllm_model_hub_endpoint is 'hf-mirror.local'; accepted: empty" in url


def test_options_reserved_keys_point_to_the_variable():
    errors = v.validate_inputs({"vllm_service_options": {"port": 9000, "--host": "0.0.0.0",
                                                          "max_model_len": 128}})
    assert len(errors) == 2
    assert any("vllm_service_port" in e for e in errors)
    assert any("vllm_service_host" in e for e in errors)


def test_options_must_be_a_mapping():
    [error] = v.validate_inputs({"vllm_service_options": ["--enforce-eager"]})
    assert "vllm_service_options is" in error and "mapping" in error


def test_env_names_and_values():
    errors = v.validate_inputs({"vllm_service_env": {"1BAD": "x", "GOOD": "a\nb", "OK": 1}})
    assert len(errors) == 2
    assert "'1BAD'" in errors[0]
    assert "vllm_service_env.GOOD" in errors[1]


def test_host_user_and_paths():
    errors = v.validate_inputs({"vllm_service_host": "0.0.0.0; rm -rf /",
                                "vllm_service_user": "Root User",
                                "vllm_python_root": "opt/vllm",
                                "vllm_model_store": "/var/lib/vllm/models"})
    assert [e.split(" is ")[0] for e in errors] == ["vllm_service_host", "vllm_service_user",
                                                    "vllm_python_root"]


def test_all_good_defaults():
    assert v.validate_inputs({
        "vllm_install_backend": "auto", "vllm_service_port": 8000, "vllm_service_host": "127.0.0.1",
        "vllm_service_user": "vllm", "vllm_service_options": {}, "vllm_service_env": {},
        "vllm_python_root": "/opt/vllm", "vllm_model_store": "/var/lib/vllm/models",
        "vllm_model_source": "builtin"}) == []


def test_small_dev_shm_is_a_host_problem_with_the_fix():
    [problem] = v.host_problems({"space": {"shm": {"free_mib": 62, "total_mib": 64}}})
    assert "62 MiB free" in problem and "--shm-size" in problem


def test_wsl1_is_a_host_problem():
    [problem] = v.host_problems({"wsl": {"is_wsl": True, "version": 1}})
    assert "wsl --set-version" in problem


def test_healthy_host_has_no_problems():
    assert v.host_problems({"space": {"shm": {"free_mib": 12000}},
                            "wsl": {"is_wsl": True, "version": 2}}) == []


def test_release_and_rollout_inputs_name_the_variable_and_what_is_accepted():
    # vllm_python_rebuild's type is its argument spec's (test_vllm_argspec.py)
    errors = v.validate_inputs({"vllm_python_rebuild": "maybe", "vllm_python_keep_releases": 1,
                              "vllm_rollout_serial": ["1", "0%"], "vllm_rollout_max_fail_percentage": "150"})
    assert errors == [
        "vllm_python_keep_releases is 1; accepted: a whole number from 2 to 100 "
        "(2 or more keeps a release to roll back to)",
        "vllm_rollout_serial is ['1', '0%']; accepted: a batch size (1, 5), a percentage (\"25%\") or a list of them",
        "vllm_rollout_max_fail_percentage is 150; accepted: a whole number from 0 to 100 (percent of a batch)",
    ]
    assert v.validate_inputs({"vllm_python_rebuild": "true", "vllm_python_keep_releases": "3",
                            "vllm_rollout_serial": [1, "100%"], "vllm_rollout_max_fail_percentage": 0}) == []


# --- reserved options in any spelling, and values vLLM's --config loader turns into flags ------

@pytest.mark.parametrize("options", [
    {"seed": [0, "--host", "0.0.0.0"]},                 # a list item becomes an argv item
    {"seed": "--port"},                                 # a scalar too
    {"limit_mm_per_prompt": {"video": ["--api-key", "x"]}},
    {"host ": "0.0.0.0"}, {"api_key ": "k"}, {" host": "x"},
    {"API-KEY": "k"}, {"Host": "x"}, {"HOST": "x"},
    {"h\u043est": "x"},                                 # Cyrillic o
    {"ho\u200bst": "x"},                                # zero-width space
    {"host=0.0.0.0": True}, {"seed=1 --host": True},
    {"host.x": 1}, {"-O": "3"}, {"---host": "x"},
    {"api-key": "k"}, {"api_key": "k"}, {"--api_key": "k"}, {"served_model_name": "x"},
    {"served-model-name": "x"}, {"config": "/tmp/x.yaml"}, {"model": "/x"}, {"uds": "/tmp/s"},
    {"ho": "0.0.0.0"}, {"serve": "x"}, {"api": "k"}, {"conf": "x"}, {"p": 1},  # abbreviations
    {"host\n": "x"}, {"": 1}, {1: 2},
    {"max_model_len": 128, "max-model-len": 256},       # the same option twice
    {"seed": float("-inf")}, {"seed": [float("nan")]},
])
def test_options_that_would_set_a_reserved_or_second_option_are_refused(options):
    errors = v.validate_inputs({"vllm_service_options": options})
    assert errors, options
    assert all(e.startswith("vllm_service_options") for e in errors)
    assert all("accepted" in e or "instead" in e or "set it once" in e for e in errors)


def test_option_errors_name_the_value_and_path():
    [error] = v.validate_inputs({"vllm_service_options": {"seed": [0, "--host", "0.0.0.0"]}})
    assert "vllm_service_options.seed[1] is '--host'" in error
    [error] = v.validate_inputs({"vllm_service_options": {"host ": "0.0.0.0"}})
    assert "'host '" in error and "lower case letters" in error
    [error] = v.validate_inputs({"vllm_service_options": {"ho": "0.0.0.0"}})
    assert "--host" in error and "vllm_service_host" in error


@pytest.mark.parametrize("options", [
    {"max_model_len": 4096, "--enforce-eager": True, "limit-mm-per-prompt": {"video": 0}},
    {"seed": -1, "kv_cache_dtype": "fp8", "gpu_memory_utilization": 0.9},
    {"model_impl": "vllm", "hostname_suffix": "x", "port_range": [1, 2], "config_format": "auto"},
    {"compilation_config": {"cudagraph_sizes": [1, 2], "level": 3}, "enable_prefix_caching": False},
])
def test_ordinary_options_pass(options):
    assert v.validate_inputs({"vllm_service_options": options}) == []


@pytest.mark.parametrize("name", ["vllm_service_served_name", "vllm_model_name"])
@pytest.mark.parametrize("value", ["tiny\nhost: 0.0.0.0", "tiny\n", "a\rb", "a\u2028b", "a\u2029b",
                                   "a\x85b", "a\x00b", "a b", "-x", "a#b", "x" * 129, 5])
def test_names_that_cannot_be_rendered_safely_are_refused(name, value):
    [error] = v.validate_inputs({name: value})
    assert error.startswith("%s is %r; accepted:" % (name, value))


@pytest.mark.parametrize("value", ["", "tiny-llama", "Qwen/Qwen3-VL-2B-Instruct", "m:1.5_b"])
def test_ordinary_names_pass(value):
    assert v.validate_inputs({"vllm_service_served_name": value, "vllm_model_name": value}) == []


@pytest.mark.parametrize("key", ["GOOD\n", "A B", "A=B", "\u0410", ""])
def test_env_keys_are_matched_whole(key):
    [error] = v.validate_inputs({"vllm_service_env": {key: "x"}})
    assert "has the key %r" % key in error


@pytest.mark.parametrize("value", ["a\u2028B=1", "a\u2029b", "a\x85b", "a\x0bb", "a\x1cb", "a\tb",
                                   "a\x7fb", "a\ud800b"])
def test_env_values_with_line_separators_or_controls_are_refused(value):
    [error] = v.validate_inputs({"vllm_service_env": {"GOOD": value}})
    assert error.startswith("vllm_service_env.GOOD is %r" % value)


def test_env_errors_hide_secret_values():
    [error] = v.validate_inputs({"vllm_service_env": {"HF_TOKEN": "hf_secret\nX=1"}})
    assert "hf_secret" not in error and "HF_TOKEN" in error


@pytest.mark.parametrize("key", ["VLLM_API_KEY", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"])
def test_env_cannot_set_the_secrets_another_way(key):
    [error] = v.validate_inputs({"vllm_service_env": {key: "x"}})
    assert "vllm_service_env sets %s" % key in error and "vllm_service_" in error


@pytest.mark.parametrize("value", ["-x", "--port", "0.0.0.0\n", "\n0.0.0.0"])
def test_bind_host_cannot_look_like_an_option_or_hold_a_newline(value):
    [error] = v.validate_inputs({"vllm_service_host": value})
    assert error.startswith("vllm_service_host is %r" % value)


# "[::]" is refused: vLLM binds the address as it is (a URL's brackets make it no address)
@pytest.mark.parametrize("value", ["0.0.0.0", "127.0.0.1", "::", "::1", "gpu-1.lan"])
def test_bind_hosts_pass(value):
    assert v.validate_inputs({"vllm_service_host": value}) == []


@pytest.mark.parametrize("value", ["/models/tiny\nhost: 0.0.0.0", "/models/a\u2028b", "/m\x00"])
def test_model_folder_names_with_line_breaks_are_refused(value):
    [error] = v.validate_inputs({"vllm_model_source": value}, True)
    assert error.startswith("vllm_model_source is %r, which holds" % value)


@pytest.mark.parametrize("name", ["vllm_python_root", "vllm_service_config_dir",
                                  "vllm_service_state_dir", "vllm_service_log_dir"])
@pytest.mark.parametrize("value", ["/opt/v llm", "/opt/vllm\nExecStartPre=/bin/sh", "/opt/%h",
                                   '/opt/"x"', "/opt/a\\b", "opt/vllm", "/opt/\u2028"])
def test_paths_written_into_the_unit_are_plain(name, value):
    [error] = v.validate_inputs({name: value})
    assert error.startswith("%s is %r; accepted: an absolute path" % (name, value))


@pytest.mark.parametrize("value", ["/opt/vllm", "/var/lib/vllm", "/etc/vllm", "/srv/vllm-2.0_x"])
def test_plain_unit_paths_pass(value):
    assert v.validate_inputs({"vllm_python_root": value, "vllm_service_state_dir": value}) == []


def test_model_store_refuses_line_breaks_and_group_is_a_name():
    errors = v.validate_inputs({"vllm_model_store": "/models\nx", "vllm_service_group": "a b"})
    assert sorted(e.split(" is ")[0] for e in errors) == ["vllm_model_store", "vllm_service_group"]


@pytest.mark.parametrize("name", ["vllm_service_api_key", "vllm_service_hf_token",
                                  "vllm_model_hf_token"])
def test_secrets_with_line_breaks_are_refused_without_showing_them(name):
    [error] = v.validate_inputs({name: "sk-abc123\nX=1"})
    assert error.startswith(name) and "sk-abc123" not in error
    assert v.validate_inputs({name: ""}) == [] and v.validate_inputs({name: "sk-abc_123"}) == []


# --- exposure: a server bound beyond loopback needs an API key, or an explicit yes ---------------

@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.20", "fd00::10", "gpu-1.lan",
                                  "::ffff:10.0.0.1", "128.0.0.1"])
def test_an_exposed_server_without_a_key_is_refused_naming_both_variables(host):
    [error] = v.validate_inputs({"vllm_service_host": host, "vllm_service_api_key": ""})
    assert error.startswith("vllm_service_host is %r, which exposes the server" % host)
    assert "vllm_service_api_key is empty" in error
    # what to do: each way out
    assert "Set vllm_service_api_key" in error and "bind to 127.0.0.1" in error
    assert "vllm_service_allow_unauthenticated: true" in error


@pytest.mark.parametrize("host", ["127.0.0.1", "127.8.9.10", "::1", "localhost", "LOCALHOST",
                                  "localhost.", "::ffff:127.0.0.1"])
def test_loopback_serves_without_a_key(host):
    assert v.validate_inputs({"vllm_service_host": host, "vllm_service_api_key": ""}) == []


def test_an_exposed_server_with_a_key_passes_and_the_key_is_never_shown():
    assert v.validate_inputs({"vllm_service_host": "0.0.0.0", "vllm_service_api_key": "sk-1"}) == []
    errors = v.validate_inputs({"vllm_service_host": "0.0.0.0", "vllm_service_api_key": "sk-9\n"})
    assert len(errors) == 1 and "sk-9" not in errors[0] and errors[0].startswith("vllm_service_api_key")


# what Ansible reads as true (the spec's bool type accepts its words: on, y, 1 too)
@pytest.mark.parametrize("allow, refused", [(True, False), ("true", False), ("yes", False), ("on", False),
                                            ("Y", False), (1, False), (False, True), ("false", True),
                                            ("no", True), ("off", True), (0, True)])
def test_allow_unauthenticated_lets_it_serve_without_a_key(allow, refused):
    errors = v.validate_inputs({"vllm_service_host": "0.0.0.0", "vllm_service_api_key": "",
                                "vllm_service_allow_unauthenticated": allow})
    assert bool(errors) is refused
    assert all("exposes the server" in e for e in errors)


def test_an_invalid_bind_address_gets_its_own_error_only():
    [error] = v.validate_inputs({"vllm_service_host": "0.0.0.0;id", "vllm_service_api_key": ""})
    assert error.startswith("vllm_service_host is '0.0.0.0;id'; accepted:")


def test_check_exposure_directly():
    assert v.check_exposure("0.0.0.0", "") != []
    assert v.check_exposure("0.0.0.0", None, False) != []
    assert v.check_exposure("0.0.0.0", "k") == []
    assert v.check_exposure("127.0.0.1", "") == []
    assert v.check_exposure("0.0.0.0", "", True) == []


def test_a_number_given_as_text_is_shown_as_the_number_read():
    # -e vllm_service_port=70000 arrives as the string '70000'
    assert v.check_port("vllm_service_port", "70000") == [
        "vllm_service_port is 70000; accepted: an integer from 1 to 65535"]
    assert v.check_port("vllm_service_port", "80a") == [
        "vllm_service_port is '80a'; accepted: an integer from 1 to 65535"]
    assert v.check_int_range(1, 10)("x", "11") == ["x is 11; accepted: a whole number from 1 to 10"]


def test_a_missing_model_folder_lists_every_accepted_kind():
    [error] = v.check_model_source("vllm_model_source", "/models/gone", False)
    assert "does not exist on the host" in error
    assert "'builtin'" in error and "Hugging Face Hub id (org/name" in error and "absolute path" in error


def test_the_restart_policy_is_range_checked():
    errors = v.validate_inputs({"vllm_service_restart_sec": 0, "vllm_service_start_limit_burst": "many",
                                "vllm_service_start_limit_interval": 86401})
    assert errors == [
        "vllm_service_restart_sec is 0; accepted: a whole number from 1 to 3600 seconds (the wait "
        "before a server that ended is started again)",
        "vllm_service_start_limit_burst is 'many'; accepted: a whole number from 1 to 1000 (starts "
        "within vllm_service_start_limit_interval before giving up)",
        "vllm_service_start_limit_interval is 86401; accepted: a whole number from 1 to 86400 seconds "
        "(the window vllm_service_start_limit_burst counts in)"]
    assert v.validate_inputs({"vllm_service_restart_sec": 10, "vllm_service_start_limit_burst": 5,
                              "vllm_service_start_limit_interval": "600"}) == []
