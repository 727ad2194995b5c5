#!/bin/bash
# One prepared GPU check: the project's GPU code on a real NVIDIA GPU (see scripts/gpu-check),
# the preflight of site.yml in check mode through Ansible, and real torch/NCCL failures for the doctor.
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
PY=$(command -v python3)
{
  echo "== date"; date -u
  echo "== python"; $PY --version; echo "$PY"; ls -la /usr/bin/python3* 2>&1 | head
  echo "== nvidia-smi"; nvidia-smi 2>&1
  echo "== nvidia-smi -L"; nvidia-smi -L 2>&1
  echo "== nvidia-smi --query-gpu"; nvidia-smi --query-gpu=index,uuid,name,pci.bus_id,memory.total,memory.used,compute_cap,driver_version --format=csv 2>&1
  echo "== nvidia-smi -q (head)"; nvidia-smi -q 2>&1 | head -120
  echo "== uname"; uname -a; cat /etc/os-release | head -4
  echo "== which nvidia-smi / libcuda"; command -v nvidia-smi; ldconfig -p | grep -E "libcuda\.so|libnvidia-ml" | head
} > "$OUT/nvidia-smi.txt" 2>&1

echo "== gpu-check"
timeout 120 $PY scripts/gpu-check --out "$OUT" --torch-python "$PY" > "$OUT/gpu-check.txt" 2>&1
echo "gpu-check rc=$?" >> "$OUT/gpu-check.txt"

echo "== ansible preflight (check mode)"
timeout 60 $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl > "$OUT/ansible.txt" 2>&1
export PYTHONPATH=/tmp/site
{
  ANSIBLE_FORCE_COLOR=0 timeout 240 $PY -m ansible.cli.playbook site.yml -i tests/device/hosts.yml --check --tags preflight -e vllm_install_backend=auto
  echo "ansible rc=$?"
  echo "== vllm_host facts"; cat .artifacts/vllm-report.json 2>/dev/null | head -c 4000
} >> "$OUT/ansible.txt" 2>&1
unset PYTHONPATH

echo "== real failures for the doctor"
E="$OUT/errors.txt"; : > "$E"
run_case() {  # name, command...
  local name=$1; shift
  echo "=== CASE $name" >> "$E"
  timeout 120 "$@" >> "$E" 2>&1
  echo "=== END $name rc=$?" >> "$E"
}
run_case oom $PY -c "import torch; x = torch.empty(int(300 * 2**30), dtype=torch.uint8, device='cuda')"
run_case no_visible env CUDA_VISIBLE_DEVICES= $PY -c "import torch; torch.zeros(1).cuda()"
run_case bad_ordinal $PY -c "import torch; torch.zeros(1, device='cuda:3')"
run_case bad_visible env CUDA_VISIBLE_DEVICES=GPU-00000000-0000-0000-0000-000000000000 $PY -c "import torch; print(torch.cuda.device_count()); torch.zeros(1).cuda()"
cat > /tmp/nccl_dup.py <<'PY'
import os, torch, torch.distributed as dist, torch.multiprocessing as mp
def work(rank):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="29511")
    torch.cuda.set_device(0)
    dist.init_process_group("nccl", rank=rank, world_size=2)
    t = torch.ones(1, device="cuda")
    dist.all_reduce(t)
    torch.cuda.synchronize()
    print("rank", rank, t.item())
if __name__ == "__main__":
    mp.spawn(work, nprocs=2)
PY
run_case nccl_duplicate_gpu env NCCL_DEBUG=WARN $PY /tmp/nccl_dup.py
run_case port_in_use $PY -c "
import socket, torch.distributed as dist, os
s = socket.socket(); s.bind(('127.0.0.1', 29512)); s.listen()
dist.init_process_group('gloo', init_method='tcp://127.0.0.1:29512', rank=0, world_size=1)"
echo "== doctor on each case"
$PY - "$E" > "$OUT/doctor.json" 2>&1 <<'PY'
import json, re, subprocess, sys
text = open(sys.argv[1]).read()
out = {}
for name, body in re.findall(r"=== CASE (\S+)\n(.*?)=== END \1", text, re.S):
    proc = subprocess.run([sys.executable, "scripts/doctor", "--json", "-"], input=body,
                          capture_output=True, text=True, timeout=60)
    try:
        out[name] = json.loads(proc.stdout)
    except ValueError:
        out[name] = {"rc": proc.returncode, "stdout": proc.stdout[-2000:], "stderr": proc.stderr[-2000:]}
print(json.dumps(out, indent=1))
PY
ls -la "$OUT"
