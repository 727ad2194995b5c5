#!/bin/bash
# vLLM 0.25.1 (cu130, PyPI; torch 2.11.0+cu130 is the machine's own) serving the project's builtin
# tiny model on the real GPU, with the options file and environment scripts/plan --render writes
# for this host (the vllm_service role's own templates and filters).
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; LOG="$OUT/steps.txt"
{
set -x
cd /tmp/gpu && ls -la && cat chunk.0 chunk.1 chunk.2 chunk.3 chunk.4 > payload && sha256sum payload
head -c 250100306 payload > vllm-0.25.1-cp38-abi3-manylinux_2_28_x86_64.whl && tail -c +250100307 payload > deps.tar && tar xf deps.tar && rm payload
cd - >/dev/null
time python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/vsite /tmp/gpu/vllm-0.25.1-*.whl /tmp/gpu/deps/*.whl .gpu/extra/*.whl .whl/ansible_core*.whl .whl/resolvelib*.whl
set +x
} > "$LOG" 2>&1
export PYTHONPATH=/tmp/vsite
# flashinfer (a dependency of vllm, ~0.5 GB with its cubins) is not carried: without it vLLM's
# top-k/top-p sampler check imports it and the engine core fails (No module named 'flashinfer')
export VLLM_USE_FLASHINFER_SAMPLER=0
python3 -c "import vllm, torch; print('vllm', vllm.__version__, 'torch', torch.__version__)" >> "$LOG" 2>&1
python3 scripts/plan --render /tmp/r --manager systemd --vllm-version 0.25.1 --backend cuda --python 3.12 > "$OUT/plan.txt" 2>&1
echo "plan rc=$?" >> "$OUT/plan.txt"; cat /tmp/r/etc/vllm/vllm.yaml /tmp/r/etc/vllm/vllm.env >> "$OUT/plan.txt" 2>&1
mkdir -p /var/lib/vllm/tmp /var/lib/vllm/cache/vllm /var/lib/vllm/config
MODEL=$(python3 -c "import yaml; print(yaml.safe_load(open('/tmp/r/etc/vllm/vllm.yaml'))['model'])")
python3 roles/vllm_model/files/make_tiny_model.py --force "$MODEL" >> "$LOG" 2>&1
serve() {  # name, extra args...
  local name=$1; shift
  ( set -a; . /tmp/r/etc/vllm/vllm.env; set +a
    exec timeout 200 python3 -m vllm.entrypoints.cli.main serve --config /tmp/r/etc/vllm/vllm.yaml "$@" ) > "$OUT/serve_$name.log" 2>&1 &
  local pid=$! t=0
  while [ $t -lt 180 ]; do
    if curl -sf http://127.0.0.1:8000/health >/dev/null; then break; fi
    if ! kill -0 $pid 2>/dev/null; then break; fi
    sleep 2; t=$((t+2))
  done
  {
    echo "== $name: waited ${t}s"
    curl -s -m 10 http://127.0.0.1:8000/v1/models; echo
    curl -s -m 30 http://127.0.0.1:8000/v1/completions -H 'Content-Type: application/json' \
      -d '{"model": "tiny-llama", "prompt": "Hello", "max_tokens": 8}'; echo
    curl -s -m 30 http://127.0.0.1:8000/v1/completions -H 'Content-Type: application/json' \
      -d '{"model": "tiny-llama", "prompt": "Hello", "max_tokens": 8, "stream": true}' | head -c 1500; echo
    curl -s -m 10 http://127.0.0.1:8000/metrics | grep -E "^vllm:(num_requests_running|kv_cache_usage_perc|gpu_cache_usage_perc|num_requests_waiting)" | head
    nvidia-smi --query-gpu=memory.used,memory.total --format=csv
  } >> "$OUT/answers.txt" 2>&1
  kill $pid 2>/dev/null; sleep 3; pkill -f "vllm.entrypoints" 2>/dev/null; sleep 2
  python3 scripts/doctor --json "$OUT/serve_$name.log" > "$OUT/doctor_$name.json" 2>&1
}
serve rendered
if ! grep -q '"object":"text_completion"\|"object": "text_completion"' "$OUT/answers.txt"; then
  serve bf16 --dtype bfloat16 --enforce-eager
fi
ls -la "$OUT"
