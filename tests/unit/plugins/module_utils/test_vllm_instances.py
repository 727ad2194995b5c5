"""Several servers on one host (vllm_instances): the list's checks, the GPU assignment, the memory
split through the one sizing model, and which instances a run removes."""
import base64

import pytest

import vllm_instances as vi
import vllm_options as o
import vllm_sizing as s

GB = 10 ** 9
QWEN_7B = {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 3584,
           "intermediate_size": 18944, "num_attention_heads": 28, "num_key_value_heads": 4,
           "num_hidden_layers": 28, "max_position_embeddings": 32768, "vocab_size": 152064,
           "torch_dtype": "bfloat16"}
TINY = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 64,
        "intermediate_size": 128, "num_attention_heads": 2, "num_key_value_heads": 2,
        "num_hidden_layers": 2, "max_position_embeddings": 2048, "vocab_size": 1000,
        "torch_dtype": "float32"}


def gpu(index, total=24576, used=0, uuid=None):
    return {"index": index, "name": "NVIDIA RTX 4090", "memory_total_mib": total,
            "memory_used_mib": used, "compute_capability": "8.9",
            "uuid": uuid or "GPU-%08d-aaaa-bbbb-cccc-dddddddddddd" % index}


def host(gpus=(), ram_mib=65536, wsl=False):
    return {"gpu": {"gpus": list(gpus)}, "wsl": {"is_wsl": wsl}, "memory": {"total_mib": ram_mib},
            "cpus": 8}


TWO = host([gpu(0), gpu(1)])


def plan(instances, h=TWO, backend="cuda"):
    return vi.plan_instances(instances, h, backend, "/etc/vllm", "/var/log/vllm")


# -- checks ---------------------------------------------------------------------------------

def test_a_good_list_has_no_errors():
    items = [{"name": "chat", "port": 8001, "model": "Qwen/Qwen2.5-7B", "gpus": [0]},
             {"name": "embed", "port": 8002, "gpus": ["GPU-00000001-aaaa-bbbb-cccc-dddddddddddd"],
              "options": {"max_model_len": 4096}}]
    assert vi.instance_errors(items, TWO, router_port=30000) == []


def test_empty_and_absent_are_fine():
    assert vi.instance_errors([], TWO) == []
    assert vi.instance_errors(None, TWO) == []


def test_not_a_list():
    (err,) = vi.instance_errors({"name": "a"}, TWO)
    assert err.startswith("vllm_instances is {'name': 'a'}; accepted: a list")


@pytest.mark.parametrize("name", ["Chat", "a b", "vllm@x", "../x", "", "x" * 33, "a%i", 7])
def test_names_must_be_unit_safe(name):
    (err,) = vi.instance_errors([{"name": name, "port": 8001}], TWO)
    assert err.startswith("vllm_instances[0].name is %r" % name if isinstance(name, str)
                          else "vllm_instances[0].name is 7")
    assert "accepted: 1 to 32 of lower-case letters" in err


def test_names_and_ports_unique_and_not_the_routers():
    errors = vi.instance_errors([{"name": "a", "port": 8001}, {"name": "a", "port": 8001},
                                 {"name": "c", "port": 30000}, {"name": "d", "port": 70000}],
                                TWO, router_port=30000)
    assert "vllm_instances[1].name is 'a', as vllm_instances[0].name; accepted: a name no other " \
           "instance has" in errors
    assert "vllm_instances[1].port is 8001, as vllm_instances[0].port; accepted: a port no other " \
           "instance uses" in errors
    assert any(e.startswith("vllm_instances[2].port is 30000, the port of vllm-router") for e in errors)
    assert "vllm_instances[3].port is 70000; accepted: an integer from 1 to 65535" in errors


def test_gpus_must_exist_on_the_host_by_index_or_uuid():
    errors = vi.instance_errors([{"name": "a", "port": 8001, "gpus": [2, "GPU-nope", True, 0, "0"]}],
                                TWO)
    assert errors[0].startswith("vllm_instances[0].gpus[0] is 2; accepted: a list of this host's "
                                "GPUs by index or UUID: 0 (GPU-00000000")
    assert errors[1].startswith("vllm_instances[0].gpus[1] is 'GPU-nope'")
    assert errors[2].startswith("vllm_instances[0].gpus[2] is True")
    assert errors[3] == "vllm_instances[0].gpus[4] is '0', GPU 0 again; accepted: each GPU once"


def test_gpus_on_a_cpu_host():
    (err,) = vi.instance_errors([{"name": "a", "port": 8001, "gpus": [0]}], host())
    assert err == ("vllm_instances[0].gpus[0] is 0; accepted: an empty list: this host has no "
                   "NVIDIA GPU (the CPU backend)")


def test_unknown_keys_options_env_and_served_name():
    errors = vi.instance_errors([{"name": "a", "port": 8001, "gpu": 0, "options": [],
                                  "env": "X=1", "served_name": "bad name", "model": 3}], TWO)
    assert errors[0] == ("vllm_instances[0] has the unknown keys gpu; accepted: name, model, port, "
                         "gpus, options, served_name, env")
    assert any(e.startswith("vllm_instances[0].model is 3") for e in errors)
    assert any(e.startswith("vllm_instances[0].served_name is 'bad name'") for e in errors)
    assert any(e.startswith("vllm_instances[0].options is []") for e in errors)
    assert any(e.startswith("vllm_instances[0].env is 'X=1'") for e in errors)


# -- GPU assignment -------------------------------------------------------------------------

def test_spread_over_the_gpus_when_none_given():
    assigned = vi.assign_gpus([{"name": "a"}, {"name": "b"}, {"name": "c"}], TWO)
    assert assigned == {"a": [0], "b": [1], "c": [0]}


def test_explicit_gpus_count_before_the_spread():
    assigned = vi.assign_gpus([{"name": "a"}, {"name": "b", "gpus": ["GPU-00000000-aaaa-bbbb-cccc-dddddddddddd"]}],
                              TWO)
    assert assigned == {"a": [1], "b": [0]}


def test_cpu_host_gets_no_gpus():
    assert vi.assign_gpus([{"name": "a"}], host()) == {"a": []}


def test_environment_and_files():
    (a, b) = plan([{"name": "a", "port": 8001, "gpus": [1, 0]}, {"name": "b", "port": 8002,
                                                                  "env": {"X": 1}}])
    assert a["env"] == {"CUDA_DEVICE_ORDER": "PCI_BUS_ID", "CUDA_VISIBLE_DEVICES": "1,0"}
    assert b["env"] == {"CUDA_DEVICE_ORDER": "PCI_BUS_ID", "CUDA_VISIBLE_DEVICES": "0", "X": "1"}
    assert a["unit"] == "vllm@a.service"
    assert a["options_file"] == "/etc/vllm/instances/a.yaml"
    assert a["env_file"] == "/etc/vllm/instances/a.env"
    assert a["pidfile"] == "/run/vllm/a.pid" and a["log_file"] == "/var/log/vllm/a.log"
    assert a["model"] == "builtin" and b["sharing"] == ["a"]


def test_cpu_plan_has_no_cuda_environment():
    (a,) = plan([{"name": "a", "port": 8001}], host(), "cpu")
    assert a["env"] == {} and a["gpus"] == [] and "gpu_memory_utilization" not in a["options"]


def test_cpu_instances_get_disjoint_cores_split_evenly_in_list_order():
    h = dict(host(), cpu_ids=[0, 1, 2, 3, 4, 5, 6, 8])  # an affinity set with a hole
    a, b, c = plan([{"name": "a", "port": 8001}, {"name": "b", "port": 8002},
                    {"name": "c", "port": 8003}], h, "cpu")
    assert [p["env"]["VLLM_CPU_OMP_THREADS_BIND"] for p in (a, b, c)] == ["0-2", "3-5", "6,8"]
    assert "OMP_NUM_THREADS" not in a["env"]
    assert a["cpu_bind"]["reason"].startswith("cores 0-2 of 0-6,8, its own (3 instances")


def test_a_cpu_instance_with_ranks_gets_one_core_list_per_rank():
    a, b = plan([{"name": "a", "port": 8001, "options": {"tensor_parallel_size": 2}},
                 {"name": "b", "port": 8002}], host(), "cpu")  # cpus 8, no cpu_ids: 0-7
    assert a["env"]["VLLM_CPU_OMP_THREADS_BIND"] == "0-1|2-3"
    assert b["env"]["VLLM_CPU_OMP_THREADS_BIND"] == "4-7"


def test_fewer_cores_than_ranks_run_unbound_with_one_thread_each():
    h = dict(host(), cpus=2, cpu_ids=[0, 1])
    a, b, c = plan([{"name": n, "port": 8001 + i} for i, n in enumerate("abc")], h, "cpu")
    for p in (a, b, c):
        assert p["env"]["VLLM_CPU_OMP_THREADS_BIND"] == "nobind"
        assert p["env"]["OMP_NUM_THREADS"] == "1"
    assert "3 instances with 3 ranks in all on 2 free cores" in a["cpu_bind"]["reason"]


def test_a_bind_the_user_gives_is_kept_and_its_cores_left_to_it():
    h = dict(host(), cpus=4, cpu_ids=[0, 1, 2, 3])
    a, b, c = plan([{"name": "a", "port": 8001, "env": {"VLLM_CPU_OMP_THREADS_BIND": "0-1"}},
                    {"name": "b", "port": 8002}, {"name": "c", "port": 8003}], h, "cpu")
    assert a["env"]["VLLM_CPU_OMP_THREADS_BIND"] == "0-1" and a["cpu_bind"] is None
    assert (b["env"]["VLLM_CPU_OMP_THREADS_BIND"], c["env"]["VLLM_CPU_OMP_THREADS_BIND"]) == ("2", "3")
    # set for every server in vllm_service_env: the planner binds none
    plans = vi.plan_instances([{"name": "a", "port": 8001}, {"name": "b", "port": 8002}], h, "cpu",
                              "/etc/vllm", "/var/log/vllm",
                              service_env={"VLLM_CPU_OMP_THREADS_BIND": "nobind"})
    assert all("VLLM_CPU_OMP_THREADS_BIND" not in p["env"] and p["cpu_bind"] is None for p in plans)


def test_one_cpu_instance_or_a_gpu_host_is_left_to_vllm():
    (a,) = plan([{"name": "a", "port": 8001}], dict(host(), cpu_ids=[0, 1]), "cpu")
    assert "VLLM_CPU_OMP_THREADS_BIND" not in a["env"] and a["cpu_bind"] is None
    a, b = plan([{"name": "a", "port": 8001}, {"name": "b", "port": 8002}])
    assert "VLLM_CPU_OMP_THREADS_BIND" not in a["env"] and b["cpu_bind"] is None


def test_cpu_id_list_syntax():
    assert vi.cpu_id_list([5, 2, 3, 4, 0]) == "0,2-5"
    assert vi.cpu_id_list([7]) == "7"


# -- memory split ---------------------------------------------------------------------------

def test_alone_on_a_gpu_takes_what_one_server_would():
    (a, b) = plan([{"name": "a", "port": 8001}, {"name": "b", "port": 8002}])
    single, _ = s._utilization([gpu(0)], False)
    assert a["options"]["gpu_memory_utilization"] == single == 0.92
    assert a["sharing"] == [] and "shared" not in a["share_reason"]


def test_sharing_a_gpu_splits_the_single_servers_utilisation():
    (a, b) = plan([{"name": "a", "port": 8001, "gpus": [0]}, {"name": "b", "port": 8002, "gpus": [0]}])
    assert a["options"]["gpu_memory_utilization"] == b["options"]["gpu_memory_utilization"] == 0.46
    assert a["options"]["gpu_memory_utilization"] + b["options"]["gpu_memory_utilization"] <= 0.92
    assert "shared by 2 instances (a, b), 0.46 each" in a["share_reason"]


def test_wsl_and_used_memory_lower_the_whole_before_the_split():
    h = host([gpu(0, used=4096)], wsl=True)
    (a, b) = plan([{"name": "a", "port": 8001}, {"name": "b", "port": 8002}], h)
    single, _ = s._utilization([gpu(0, used=4096)], True)
    assert a["options"]["gpu_memory_utilization"] == int(single / 2 * 100) / 100.0
    assert a["options"]["gpu_memory_utilization"] * 2 <= single


def test_given_shares_over_the_whole_are_refused_with_the_figures():
    with pytest.raises(s.OptionsError) as err:
        plan([{"name": "a", "port": 8001, "gpus": [0], "options": {"gpu_memory_utilization": 0.6}},
              {"name": "b", "port": 8002, "gpus": [0], "options": {"gpu_memory_utilization": 0.5}}])
    text = str(err.value)
    assert "a and b share GPU 0 with gpu_memory_utilization 0.60 + 0.50, 1.10 in all" in text
    assert "one server may take 0.92 there" in text


def test_a_model_too_big_for_its_share_is_refused_naming_both_instances():
    plans = plan([{"name": "chat", "port": 8001, "gpus": [0]}, {"name": "embed", "port": 8002, "gpus": [0]}])
    weights = {"chat": int(15.2 * GB), "embed": int(1 * GB)}
    with pytest.raises(s.OptionsError) as err:
        vi.instance_options(plans[0], QWEN_7B, "cuda", TWO, "127.0.0.1", weights)
    text = str(err.value)
    assert text.startswith("instance chat (vllm_instances, port 8001) sharing GPU 0 with embed: ")
    assert "0.46" in text or "11304" in text  # the share (0.46 of 24576 MiB) in the figures
    # alone on the GPU it fits
    (alone,) = plan([{"name": "chat", "port": 8001}])
    options, reasons = vi.instance_options(alone, QWEN_7B, "cuda", TWO, "127.0.0.1", weights)
    assert options["gpu_memory_utilization"] == 0.92 and options["port"] == 8001


def test_instance_options_see_only_their_gpus():
    plans = plan([{"name": "a", "port": 8001, "gpus": [1]}])
    view = vi.instance_host(plans[0], host([gpu(0, total=8192), gpu(1)]), "cuda")
    assert [g["index"] for g in view["gpu"]["gpus"]] == [1]


def test_cpu_kv_space_split_from_the_ram():
    h = host(ram_mib=8192)
    plans = plan([{"name": "a", "port": 8001}, {"name": "b", "port": 8002}], h, "cpu")
    weights = {"a": 100 * s.MIB, "b": 300 * s.MIB}
    room = 8192 * s.MIB - 400 * s.MIB - s.CPU_RAM_RESERVE
    for p in plans:
        view = vi.instance_host(p, h, "cpu", weights)
        budget = s.size_cpu(view["memory"]["total_mib"] * s.MIB, weights[p["name"]])["kv_budget_bytes"]
        assert abs(budget - room // 4) <= s.MIB
    single = s.size_cpu(8192 * s.MIB, 400 * s.MIB)["kv_budget_bytes"]
    options = [vi.instance_options(p, TINY, "cpu", h, "127.0.0.1", weights)[0] for p in plans]
    assert sum(opt["kv_cache_memory_bytes"] for opt in options) <= single


def test_cpu_instances_that_do_not_fit_the_ram_are_refused():
    h = host(ram_mib=3072)
    plans = plan([{"name": "a", "port": 8001}, {"name": "b", "port": 8002}], h, "cpu")
    with pytest.raises(s.OptionsError) as err:
        vi.instance_options(plans[0], TINY, "cpu", h, "127.0.0.1", {"a": 600 * s.MIB, "b": 400 * s.MIB})
    assert "the instances a, b do not fit the RAM together: 3072 MiB of RAM, 1000 MiB of weights" \
        in str(err.value)


def test_a_single_options_reason_names_the_instance():
    (a,) = plan([{"name": "a", "port": 8001}], host(), "cpu")
    options, reasons = vi.instance_options(a, TINY, "cpu", host(), "127.0.0.1", {"a": 1000})
    assert options["port"] == 8001 and reasons["port"] == "vllm_instances: instance a"
    assert options == o.compute_options("cpu", vi.instance_host(a, host(), "cpu", {"a": 1000}),
                                        o.model_facts(TINY), "", "127.0.0.1", 8001, {}, 1000)[0]


# -- removal --------------------------------------------------------------------------------

def test_instances_to_remove_are_those_with_files_but_no_plan():
    plans = plan([{"name": "a", "port": 8001}])
    files = ["/etc/vllm/instances/a.yaml", "/etc/vllm/instances/b.yaml", "/etc/vllm/instances/b.env",
             "/etc/vllm/instances/x.launcher.json", "/etc/vllm/instances/Bad Name.yaml"]
    assert vi.instances_to_remove(files, plans) == ["b"]
    assert vi.instances_to_remove([], plans) == []


# -- gate and summary -----------------------------------------------------------------------

def test_gate_row_names_a_failed_instance():
    (a,) = plan([{"name": "a", "port": 8001}], host(), "cpu")
    ok = vi.gate_row({"item": a, "ready": True, "stage": "ready", "elapsed_s": 12.5})
    assert ok == {"name": "a", "port": 8001, "unit": "vllm@a.service", "ready": True, "stage": "ready",
                  "elapsed_s": 12.5, "diagnosis": None, "message": None}
    bad = vi.gate_row({"item": a, "ready": False, "stage": "health", "msg": "vLLM is not ready",
                       "diagnosis": {"category": "oom"}})
    assert bad["message"] == "instance a (port 8001): vLLM is not ready" and bad["diagnosis"] == "oom"


def test_summary_line():
    (a,) = plan([{"name": "a", "port": 8001}])
    result = {"instance_urls": {"a": "http://127.0.0.1:8001/v1"},
              "instances_ready": [{"name": "a", "ready": True}]}
    computed = {"a": {"served_name": "tiny", "options": {"gpu_memory_utilization": 0.92}}}
    assert vi.summary_line(a, result, computed) == (
        "Instance a: READY at http://127.0.0.1:8001/v1 (model tiny, vllm@a.service, GPU 0, "
        "gpu-memory-utilization 0.92)")
    assert "not gated (check mode)" in vi.summary_line(a, {}, computed)


COMPUTED_AB = {"a": {"model_path": "/m/a", "options": {"port": 8001}},
               "b": {"model_path": "/m/b", "options": {"port": 8002}}}


def slurp(p, text):
    """A slurp loop result of ``text`` for plan ``p``."""
    return {"item": p, "content": base64.b64encode(text.encode()).decode()}


def test_restart_only_when_a_value_or_the_environment_changed():
    (a, b) = plan([{"name": "a", "port": 8001}, {"name": "b", "port": 8002}], host(), "cpu")
    computed = COMPUTED_AB
    same_values = "# managed\n# vLLM options, why: reworded\n" + o.to_cli_yaml({"model": "/m/a", "port": 8001})
    before = [slurp(a, same_values), {"item": b, "failed": True}]
    assert vi.restart_needed([a, b], computed, before, []) == ["b"]
    before = [slurp(a, same_values), slurp(b, o.to_cli_yaml({"model": "/m/b", "port": 9999}))]
    assert vi.restart_needed([a, b], computed, before, [{"item": a, "changed": True}]) == ["a", "b"]
    before = [slurp(a, same_values), slurp(b, o.to_cli_yaml({"model": "/m/b", "port": 8002}))]
    assert vi.restart_needed([a, b], computed, before, [{"item": a, "changed": False}]) == []


def test_a_change_of_the_cores_alone_restarts_nothing():
    (a, b) = plan([{"name": "a", "port": 8001}, {"name": "b", "port": 8002}], host(), "cpu")
    computed = COMPUTED_AB
    opts = [slurp(a, o.to_cli_yaml({"model": "/m/a", "port": 8001})),
            slurp(b, o.to_cli_yaml({"model": "/m/b", "port": 8002}))]
    env = {"HF_HUB_OFFLINE": "1", "VLLM_CPU_OMP_THREADS_BIND": "0"}
    written = [{"item": a, "changed": True}, {"item": b, "changed": True}]
    before = [slurp(a, o.to_env_file(env)), slurp(b, o.to_env_file(dict(env, X="1")))]
    # a: its neighbour removed, its cores back to vLLM's choice; b: another value changed too
    after = [slurp(a, o.to_env_file(dict(env, VLLM_CPU_OMP_THREADS_BIND="auto"))),
             slurp(b, o.to_env_file(dict(env, X="2", VLLM_CPU_OMP_THREADS_BIND="1")))]
    assert vi.restart_needed([a, b], computed, opts, written, before, after) == ["b"]
    # unbound with one thread each, then bound: the cores alone again
    after = [slurp(a, o.to_env_file(dict(env, VLLM_CPU_OMP_THREADS_BIND="nobind", OMP_NUM_THREADS="1"))),
             slurp(b, o.to_env_file(dict(env, X="1")))]
    assert vi.restart_needed([a, b], computed, opts, written, before, after) == ["b"]
    # nothing to compare (a new file, check mode's unwritten file): the change restarts
    assert vi.restart_needed([a, b], computed, opts, written, [{"item": a, "failed": True}],
                             after) == ["a", "b"]
    assert vi.restart_needed([a, b], computed, opts, written, before, before) == ["a", "b"]


def test_a_given_share_is_taken_before_the_others_split_the_rest():
    (a, b, c) = plan([{"name": "a", "port": 8001, "gpus": [0]}, {"name": "b", "port": 8002, "gpus": [0]},
                      {"name": "c", "port": 8003, "gpus": [0], "options": {"gpu_memory_utilization": 0.5}}])
    assert c["options"]["gpu_memory_utilization"] == 0.5
    assert a["options"]["gpu_memory_utilization"] == b["options"]["gpu_memory_utilization"] == 0.21
    assert 0.21 * 2 + 0.5 <= 0.92
    assert "0.50 given to c; shared by 2 instances (a, b), 0.21 each" in a["share_reason"]


def test_a_given_share_that_leaves_the_others_too_little_is_refused():
    with pytest.raises(s.OptionsError) as err:
        plan([{"name": "a", "port": 8001, "gpus": [0]}, {"name": "b", "port": 8002, "gpus": [0]},
              {"name": "greedy", "port": 8003, "gpus": [0], "options": {"gpu_memory_utilization": 0.9}}])
    text = str(err.value)
    assert "a, b, greedy share GPU 0: greedy gives gpu_memory_utilization 0.90 (0.90 in all) of the 0.92" in text
    assert "leaving 0.02 for a and b, less than 0.05 each" in text
