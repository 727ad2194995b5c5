"""The service's restart and start run inside the readiness gate's block, whose rescue is the
rollback: a restart handler or a start that fails (a unit systemd refuses, a launcher that cannot
start the server) ends in the rollback instead of ending the play with the new files in place.
Ansible runs handlers flushed inside a block under that block's rescue (ansible-core 2.19)."""
import os

import yaml

from vllm_testlib import ROOT

TASKS = os.path.join(ROOT, "roles", "vllm_service", "tasks")


def load(name):
    with open(os.path.join(TASKS, name)) as handle:
        return yaml.safe_load(handle)


def test_the_manager_setup_is_the_first_step_of_the_gated_block():
    main = load("main.yml")
    [gate] = [t for t in main if "block" in t and "rescue" in t]
    includes = [t for t in gate["block"] if "ansible.builtin.include_tasks" in t]
    assert includes and gate["block"][0] is includes[0]
    assert includes[0]["ansible.builtin.include_tasks"] == "{{ __vllm_service_manager }}.yml"
    assert any("vllm_ops.workstation.vllm_ready" in t for t in gate["block"])
    assert any(t.get("ansible.builtin.include_tasks") == "rollback.yml" for t in gate["rescue"])
    # nowhere else: a setup outside the block would restart outside the rescue
    outside = [t for t in main if t is not gate and "__vllm_service_manager" in
               str(t.get("ansible.builtin.include_tasks", ""))]
    assert outside == []
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
