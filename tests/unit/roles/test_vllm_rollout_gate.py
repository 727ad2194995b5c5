"""The service's restart and start (vllm_service's systemd.yml or launcher.yml, included by
vllm_rollout) run inside the readiness gate's block, whose rescue is the rollback: a restart
handler or a start that fails (a unit systemd refuses, a launcher that cannot start the server)
ends in the rollback instead of ending the play with the new files in place. Ansible runs
handlers flushed inside a block under that block's rescue (ansible-core 2.19)."""
import os

import yaml

from vllm_testlib import ROOT

TASKS = os.path.join(ROOT, "roles", "vllm_service", "tasks")
ROLLOUT = os.path.join(ROOT, "roles", "vllm_rollout", "tasks")


def load(name, folder=TASKS):
    with open(os.path.join(folder, name)) as handle:
        return yaml.safe_load(handle)


def _starts(tasks):
    """The tasks that include the service's manager setup (and its restart and start)."""
    return [t for t in tasks if "__vllm_service_manager" in str(t.get("ansible.builtin.include_tasks", ""))
            or "__vllm_service_manager" in str(t.get("ansible.builtin.include_role", ""))]


def test_the_manager_setup_is_the_first_step_of_the_gated_block():
    main = load("main.yml", ROLLOUT)
    [gate] = [t for t in main if "block" in t and "rescue" in t]
    includes = [t for t in gate["block"] if "ansible.builtin.include_role" in t]
    assert includes and gate["block"][0] is includes[0]
    assert includes[0]["ansible.builtin.include_role"] == {"name": "vllm_service",
                                                           "tasks_from": "{{ __vllm_service_manager }}.yml"}
    assert any("vllm_ops.workstation.vllm_ready" in t for t in gate["block"])
    assert any(t.get("ansible.builtin.include_tasks") == "rollback.yml" for t in gate["rescue"])
    # nowhere else: a setup outside the block would restart outside the rescue
    assert [t for t in main if t is not gate and _starts([t])] == []
    assert _starts(load("main.yml")) == []


def test_the_switch_comes_before_the_gate_and_the_pruning_after_it():
    main = load("main.yml", ROLLOUT)
    names = [t["name"] for t in main]
    switch = [i for i, n in enumerate(names) if n.startswith("Switch the server")]
    gate = [i for i, n in enumerate(names) if n.startswith("Gate the release")]
    prune = [i for i, n in enumerate(names) if n.startswith("Remove old releases")]
    assert len(switch) == len(gate) == len(prune) == 1
    assert switch[0] < gate[0] < prune[0]
    # the service role renders, the rollout switches: no release module left in vllm_service
    assert "vllm_release" not in str(load("main.yml"))
    # the block itself runs in check mode too (the setup reports what it would change)
    assert "when" not in gate


def test_each_manager_flushes_the_restart_before_its_start():
    for name, start in (("systemd.yml", "ansible.builtin.systemd_service"),
                        ("launcher.yml", "ansible.builtin.command")):
        tasks = load(name)
        kinds = [next(iter(k for k in t if k.startswith("ansible.builtin."))) for t in tasks]
        flush = kinds.index("ansible.builtin.meta")
        assert tasks[flush]["ansible.builtin.meta"] == "flush_handlers"
        assert start in kinds[flush + 1:], name
