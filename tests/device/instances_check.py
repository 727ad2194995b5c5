"""Two vLLM instances sharing one real GPU, as vllm_instances plans them (a device check, not part
of the suite: tests/device/README.md).

The host's facts come from scripts/gpu-check (the vllm_host_facts code on the real driver). Two
tiny models (roles/vllm_model/files/make_tiny_model.py) are given to two instances on GPU 0, the
first by index, the second by the GPU's UUID; vllm_instances.plan_instances shares the GPU's
memory out, instance_options computes each one's options and vllm_options.options_file writes the
``--config`` file the role would write. The instances start one after the other (the role's
order), each waited for on /health (bounded); both are asked a completion and their /metrics.
Then a third server asks for the whole GPU's share beside them: the planner refuses that plan
(the message is recorded) and vLLM, started anyway, fails; its log goes to scripts/doctor.
Everything lands in $OUT (JSON and logs)."""
import json
import os
import subprocess
import sys
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "plugins"))
from module_utils import vllm_instances, vllm_options  # noqa: E402

OUT = os.environ.get("OUT", "/tmp/out")
WORK = "/tmp/inst"
RESULT = {"started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "steps": []}


def note(step, **data):
    data["step"] = step
    data["t"] = round(time.time() - T0, 1)
    RESULT["steps"].append(data)
    print(json.dumps(data), flush=True)
    with open(os.path.join(OUT, "instances.json"), "w") as handle:
        json.dump(RESULT, handle, indent=1)


def get(url, body=None, timeout=30):
    req = urllib.request.Request(url, data=json.dumps(body).encode() if body else None,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, resp.read().decode(errors="replace")
    except Exception as err:  # noqa: BLE001 - recorded
        return None, repr(err)


def nvidia_smi():
    out = subprocess.run(["nvidia-smi", "--query-gpu=memory.used,memory.total", "--format=csv,noheader,nounits"],
                         capture_output=True, text=True, timeout=30)
    return out.stdout.strip()


def start(name, config, env, port, wait=240):
    log = os.path.join(OUT, "serve_%s.log" % name)
    full = dict(os.environ)
    full.update(env)
    proc = subprocess.Popen([sys.executable, "-m", "vllm.entrypoints.cli.main", "serve", "--config", config],
                            env=full, stdout=open(log, "w"), stderr=subprocess.STDOUT)
    began = time.time()
    while time.time() - began < wait:
        if get("http://127.0.0.1:%d/health" % port, timeout=3)[0] == 200:
            return proc, round(time.time() - began, 1), log
        if proc.poll() is not None:
            break
        time.sleep(2)
    return proc, None, log


def main():
    os.makedirs(OUT, exist_ok=True)
    os.makedirs(WORK, exist_ok=True)
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gpu-check"), "--out", WORK],
                   capture_output=True, timeout=300)
    with open(os.path.join(WORK, "gpu-check.json")) as handle:
        check = json.load(handle)
    host, gpu = check["host"], check["gpu"]
    facts = {"gpu": gpu, "wsl": host["wsl"], "memory": host["memory"], "cpus": host["cpus"], "kernel": host["kernel"]}
    uuid = gpu["gpus"][0]["uuid"]
    note("facts", gpus=[(g["index"], g["name"], g["memory_total_mib"], g["uuid"]) for g in gpu["gpus"]],
         nvidia_smi=nvidia_smi())
    models = {}
    for name in ("chat", "second"):
        path = os.path.join(WORK, "models", name)
        subprocess.run([sys.executable, os.path.join(ROOT, "roles", "vllm_model", "files", "make_tiny_model.py"),
                        "--force", path], check=True, capture_output=True, timeout=300)
        with open(os.path.join(path, "config.json")) as handle:
            config = json.load(handle)
        weights = sum(os.path.getsize(os.path.join(path, f)) for f in os.listdir(path) if f.endswith(".safetensors"))
        models[name] = (path, config, weights)
    instances = [{"name": "chat", "port": 8001, "model": models["chat"][0], "served_name": "tiny-chat", "gpus": [0]},
                 {"name": "second", "port": 8002, "model": models["second"][0], "served_name": "tiny-second",
                  "gpus": [uuid]}]
    errors = vllm_instances.instance_errors(instances, facts)
    note("instance_errors", errors=errors)
    plans = vllm_instances.plan_instances(instances, facts, "cuda", WORK + "/etc", WORK + "/log")
    weights = dict((n, models[n][2]) for n in models)
    env_base, _why = vllm_options.service_env("cuda", facts)
    procs = []
    for plan in plans:
        options, reasons = vllm_instances.instance_options(plan, models[plan["name"]][1], "cuda", facts,
                                                           "127.0.0.1", weights)
        config = os.path.join(WORK, "%s.yaml" % plan["name"])
        with open(config, "w") as handle:
            handle.write(vllm_options.options_file(options, reasons, plan["model"], plan["served_name"]))
        env = dict(env_base)
        env.update(plan["env"])
        env["VLLM_USE_FLASHINFER_SAMPLER"] = "0"  # flashinfer is not carried (tests/device/README.md)
        note("planned", name=plan["name"], gpus=plan["gpus"], env=plan["env"], options=options,
             share_reason=plan["share_reason"])
        proc, took, log = start(plan["name"], config, env, plan["port"])
        procs.append(proc)
        note("started", name=plan["name"], ready_after_s=took, exit=proc.poll(), nvidia_smi=nvidia_smi())
        if took is None:
            break
    for plan in plans:
        base = "http://127.0.0.1:%d" % plan["port"]
        status, body = get(base + "/v1/completions", {"model": plan["served_name"], "prompt": "Hello", "max_tokens": 8})
        _s, metrics = get(base + "/metrics")
        kv = [line for line in metrics.splitlines()
              if line.startswith(("vllm:kv_cache_usage_perc", "vllm:cache_config_info", "vllm:num_gpu_blocks"))]
        note("answered", name=plan["name"], status=status, body=body[:400], metrics=kv[:6])
    # a third server asking for one server's whole share beside the two
    greedy = instances + [{"name": "greedy", "port": 8003, "model": models["chat"][0], "gpus": [0],
                           "options": {"gpu_memory_utilization": 0.9}}]
    try:
        vllm_instances.plan_instances(greedy, facts, "cuda", WORK + "/etc", WORK + "/log")
        note("greedy_plan", refused=False)
    except vllm_options.OptionsError as err:
        note("greedy_plan", refused=True, message=str(err))
    config = os.path.join(WORK, "greedy.yaml")
    with open(config, "w") as handle:
        handle.write("model: %s\nport: 8003\nhost: 127.0.0.1\ngpu-memory-utilization: 0.9\nmax-model-len: 2048\n"
                     % models["chat"][0])
    env = dict(env_base, CUDA_VISIBLE_DEVICES="0", CUDA_DEVICE_ORDER="PCI_BUS_ID", VLLM_USE_FLASHINFER_SAMPLER="0")
    proc, took, log = start("greedy", config, env, 8003, wait=150)
    note("greedy_started", ready_after_s=took, exit=proc.poll())
    if proc.poll() is None:
        proc.kill()
    doctor = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "doctor"), "--json", log],
                            capture_output=True, text=True, timeout=120)
    note("greedy_doctor", rc=doctor.returncode, out=doctor.stdout[-3000:])
    for proc in procs:
        proc.terminate()
    for proc in procs:
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
    note("done", nvidia_smi=nvidia_smi())


T0 = time.time()
if __name__ == "__main__":
    main()
