"""Unit tests for vllm_doctor: real logs (shared corpus and our own collection) and edge cases."""
import csv
import os
import re

import pytest

import vllm_doctor as D

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))
try:
    from conftest import CORPUS  # tests/conftest.py: ../shared/corpus relative to the repo root
except ImportError:  # pragma: no cover - conftest not importable as a module
    CORPUS = os.path.join(os.path.dirname(ROOT), "shared", "corpus")
CORPUS_LOGS = os.path.join(CORPUS, "logs")
FIXTURE_LOGS = os.path.join(ROOT, "tests", "fixtures", "logs")


def _rows(directory, prefix):
    """Rows of every PREFIX*.tsv in DIRECTORY (labels.tsv, labels_set4.tsv, ...), in name order."""
    rows = []
    names = sorted(n for n in os.listdir(directory) if n.startswith(prefix) and n.endswith(".tsv")) \
        if os.path.isdir(directory) else []
    for name in names:
        with open(os.path.join(directory, name), newline="", encoding="utf-8") as handle:
            rows.extend(csv.DictReader(handle, delimiter="\t"))
    return rows


def _labels(directory):
    return [(row["file"], row["category"]) for row in _rows(directory, "labels")]


def _xfail(directory):
    """Known misses (xfail*.tsv: file, reason): run as strict xfails, so a fix must also remove the row."""
    return dict((row["file"], row["reason"]) for row in _rows(directory, "xfail"))


def _read(directory, name):
    with open(os.path.join(directory, name), encoding="utf-8", errors="replace", newline="") as handle:
        return handle.read()


def _log_lines(text):
    """The log's lines as the doctor may quote them: colour codes and outer whitespace removed."""
    return set(D.strip_ansi(line).strip() for line in re.split(r"\r\n|\n|\r", text))


def _check(text, expected):
    result = D.diagnose(text)
    assert result["category"] == expected, (result["category"], result["evidence"])
    assert set(result) >= {"category", "evidence", "fix", "confidence", "other_findings"}
    assert 0.0 <= result["confidence"] <= 1.0
    assert result["evidence"] in _log_lines(text), result["evidence"]
    assert result["fix"]
    return result


CORPUS_CASES = _labels(CORPUS_LOGS)
FIXTURE_CASES = _labels(FIXTURE_LOGS)


@pytest.mark.skipif(not os.path.isdir(CORPUS_LOGS), reason="shared corpus not present at %s" % CORPUS_LOGS)
@pytest.mark.parametrize("name,expected", CORPUS_CASES or [("none", "none")], ids=[c[0] for c in CORPUS_CASES]
                         or ["none"])
def test_shared_corpus(name, expected):
    if name == "none":
        pytest.skip("shared corpus has no labels.tsv")
    _check(_read(CORPUS_LOGS, name), expected)


FIXTURE_XFAIL = _xfail(FIXTURE_LOGS)


@pytest.mark.parametrize("name,expected", [
    pytest.param(name, expected, id=name, marks=[pytest.mark.xfail(strict=True, reason=FIXTURE_XFAIL[name])]
                 if name in FIXTURE_XFAIL else []) for name, expected in FIXTURE_CASES])
def test_collected_logs(name, expected):
    _check(_read(FIXTURE_LOGS, name), expected)


def test_collected_logs_cover_every_category_four_times():
    counts = {}
    for _, category in FIXTURE_CASES:
        counts[category] = counts.get(category, 0) + 1
    assert set(counts) == set(D.CATEGORIES)
    assert min(counts.values()) >= 4, counts


def test_every_xfail_names_a_labelled_fixture():
    assert set(FIXTURE_XFAIL) <= set(name for name, _ in FIXTURE_CASES)


def test_every_fixture_is_labelled():
    logs = set(name for name in os.listdir(FIXTURE_LOGS) if name.endswith(".log"))
    assert logs == set(name for name, _ in FIXTURE_CASES)


# ---------------------------------------------------------------------------------------------
# Line cleaning
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("raw,clean", [
    ("\x1b[1;36m(EngineCore_DP0 pid=412)\x1b[0;0m \x1b[31mERROR\x1b[0m 01-26 09:25:37 [core.py:935] ValueError: x",
     "ValueError: x"),
    ("^[[0;36m(APIServer pid=1)^[[0;0m INFO 01-27 00:31:44 [gpu_model_runner.py:3808] Starting", "Starting"),
    ("#033[1;36m(VllmWorker TP2 pid=415)#033[0;0m ERROR 08-31 04:18:45 [multiproc_executor.py:559] boom#015", "boom"),
    ("[1;36m(APIServer pid=670293)[0;0m   File \"x.py\", line 1, in f", "File \"x.py\", line 1, in f"),
    ("Aug 19 18:34:30 vllm vllm[8707]: (APIServer pid=8707) RuntimeError: y", "RuntimeError: y"),
    ("[2026-01-28T23:59:42Z] (EngineCore_DP0 pid=972) ERROR 01-28 15:59:42 [core.py:935] ValueError: z",
     "ValueError: z"),
    ("vllm-1  | ERROR 11-18 18:07:28 engine.py:366] ValueError: q", "ValueError: q"),
    ("  | (EngineCore_DP0 pid=6804) ValueError: w", "ValueError: w"),
    ("(RayWorkerWrapper pid=1463574, ip=192.168.10.60) INFO 03-27 10:29:01 [worker.py:267] m", "m"),
    ("(MapWorker(MapBatches(vLLMEngineStageUDF)) pid=162837) (Worker pid=186718) ERROR 09-23 17:01:43 "
     "[multiproc_executor.py:585] WorkerProc failed to start.", "WorkerProc failed to start."),
    ("INFO 2025-11-19T20:16:36.096625454Z [resource.labels.containerName: vllm] (EngineCore_DP0 pid=270) ERROR "
     "11-19 12:16:36 [v1/engine/core.py:842] torch.OutOfMemoryError: CUDA", "torch.OutOfMemoryError: CUDA"),
    ("[rank0]: ValueError: The model's max seq len", "ValueError: The model's max seq len"),
    ("ERROR:    [Errno 98] error while attempting", "[Errno 98] error while attempting"),
    ("[ 2457.202332] VLLM::EngineCor invoked oom-killer: gfp_mask=0x140cca", "VLLM::EngineCor invoked oom-killer: "
                                                                          "gfp_mask=0x140cca"),
    ("2024-01-22 14:32:27 | ERROR | stderr |   File \"/x.py\", line 1", "File \"/x.py\", line 1"),
])
def test_clean_line_strips_wrappers(raw, clean):
    assert D.clean_line(raw)[0] == clean


def test_clean_line_keeps_level():
    assert D.clean_line("(APIServer pid=1) WARNING 05-22 10:02:31 [interface.py:729] Using x")[1] == "WARNING"


# ---------------------------------------------------------------------------------------------
# Edge cases (synthetic, built from message shapes in vLLM's source and issues)
# ---------------------------------------------------------------------------------------------

FREE_MEM = ("ValueError: Free memory on device cuda:0 (5.2/23.99 GiB) on startup is less than desired GPU memory "
            "utilization (0.9, 21.59 GiB). Decrease GPU memory utilization or reduce GPU memory used by other "
            "processes.")


def test_ansi_colour_codes_and_prefixes():
    log = ("\x1b[1;36m(EngineCore_DP0 pid=412)\x1b[0;0m \x1b[31mERROR\x1b[0m 01-26 09:25:37 [core.py:935] "
           + FREE_MEM + "\n")
    result = _check(log, "gpu_oom")
    assert "gpu_memory_utilization: 0.19" in result["fix"]
    assert "\x1b" not in result["evidence"]


def test_windows_crlf_log():
    log = ("INFO 01-01 00:00:00 [api_server.py:1] vLLM API server version 0.11.0\r\n"
           "INFO:     Application startup complete.\r\n"
           "ERROR:    [Errno 98] error while attempting to bind on address ('0.0.0.0', 8123): address already "
           "in use\r\n")
    result = _check(log, "port_in_use")
    assert "8123" in result["fix"] and "vllm_service_port" in result["fix"]
    assert not result["evidence"].endswith("\r")


def test_port_holder_from_live_facts_is_named():
    log = "ERROR:    [Errno 98] error while attempting to bind on address ('0.0.0.0', 8000): address already in use\n"
    live = {"port_holders": {8000: "pid 77 (python3): python3 -m http.server 8000"}}
    result = D.diagnose(log, live=live)
    assert result["category"] == "port_in_use"
    assert "pid 77 (python3)" in result["fix"]


def test_shutdown_noise_after_sigterm_is_not_a_failed_start():
    log = """(APIServer pid=1) INFO 07-15 10:00:00 [api_server.py:1] vLLM API server version 0.25.0
(APIServer pid=1) INFO:     Application startup complete.
(APIServer pid=1) INFO 07-15 10:04:59 [launcher.py:110] Shutting down FastAPI HTTP server.
(APIServer pid=1) INFO:     Shutting down
(APIServer pid=1) INFO:     Waiting for application shutdown.
(APIServer pid=1) ERROR 07-15 10:05:00 [async_llm.py:480] AsyncLLM output_handler failed.
(APIServer pid=1) ERROR 07-15 10:05:00 [async_llm.py:480] Traceback (most recent call last):
(APIServer pid=1) ERROR 07-15 10:05:00 [async_llm.py:480] vllm.v1.engine.exceptions.EngineDeadError: EngineCore \
encountered an issue. See stack trace (above) for the root cause.
(APIServer pid=1) ERROR 07-15 10:05:00 [core_client.py:605] Engine core proc EngineCore_DP0 died unexpectedly, \
shutting down client.
"""
    result = D.diagnose(log)
    assert result["category"] == "unknown"
    assert "shutdown noise" in result["fix"]


def test_failure_after_an_earlier_clean_stop_is_still_found():
    log = """INFO 07-15 10:00:00 [api_server.py:1] vLLM API server version 0.25.0
INFO:     Application startup complete.
INFO:     Shutting down
vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue.
INFO 07-15 11:00:00 [api_server.py:1] vLLM API server version 0.25.0
(EngineCore_DP0 pid=9) ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization`.
RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}
"""
    _check(log, "gpu_oom")


def test_cuda_oom_in_graph_capture_beats_the_generic_last_line():
    log = """(EngineCore_DP0 pid=5) INFO 01-01 00:00:00 [gpu_model_runner.py:1] Capturing CUDA graphs: 40%
(EngineCore_DP0 pid=5) ERROR 01-01 00:00:01 [core.py:700]   File "/x/vllm/compilation/cuda_graph.py", line 1, in __call__
(EngineCore_DP0 pid=5) ERROR 01-01 00:00:01 [core.py:700]     with torch.cuda.graph(cudagraph, pool=self.graph_pool):
(EngineCore_DP0 pid=5) ERROR 01-01 00:00:01 [core.py:700] torch.OutOfMemoryError: CUDA out of memory. Tried to \
allocate 20.00 MiB. GPU 0 has a total capacity of 23.53 GiB of which 3.44 MiB is free.
(APIServer pid=1) RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}
RuntimeError: something generic went wrong
"""
    result = _check(log, "gpu_oom")
    assert "enforce_eager: true" in result["fix"]


def test_oom_during_multimodal_profiling_is_gpu_oom_not_processor():
    log = """  File "/x/vllm/multimodal/profiling.py", line 173, in _get_dummy_mm_inputs
    return self.processor.apply(
  File "/x/vllm/model_executor/models/qwen2_vl.py", line 1, in forward
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.6 GiB \
of which 1.1 GiB is free.
"""
    _check(log, "gpu_oom")


def test_processor_error_inside_multimodal_profiling():
    log = """  File "/x/vllm/multimodal/profiling.py", line 173, in _get_dummy_mm_inputs
    return self.processor.apply(
  File "/x/transformers/models/qwen2_vl/processing_qwen2_vl.py", line 1, in __call__
KeyError: 'video_grid_thw'
"""
    result = _check(log, "multimodal_processor")
    assert result["evidence"] == "KeyError: 'video_grid_thw'"


def test_uvloop_frames_alone_do_not_make_a_uvloop_problem():
    log = """  File "uvloop/loop.pyx", line 1518, in uvloop.loop.Loop.run_until_complete
  File "/x/uvloop/__init__.py", line 48, in wrapper
    return await main
  File "/x/vllm/engine/arg_utils.py", line 1, in create_engine_config
ValueError: Total number of attention heads (40) must be divisible by tensor parallel size (3).
"""
    result = _check(log, "tensor_parallel_config")
    assert "tensor_parallel_size: 2" in result["fix"]


def test_bare_killed_without_support_is_generic():
    log = "INFO 01-01 00:00:00 [api_server.py:1] vLLM API server version 0.9.0\nKilled\n"
    result = _check(log, "engine_core_generic")
    assert "OOM" in result["fix"]


def test_bare_killed_right_after_weight_loading_is_host_oom():
    log = """INFO 01-01 00:00:00 [model_runner.py:1] Starting to load model /models/big...
Loading safetensors checkpoint shards:  50% Completed | 2/4 [00:10<00:10,  5.0s/it]
Killed
"""
    _check(log, "host_oom")


def test_killed_with_oom_killer_line_from_live_host():
    log = "INFO 01-01 00:00:00 [api_server.py:1] vLLM API server version 0.9.0\nKilled\n"
    live = {"dmesg": "[ 812.1] Out of memory: Killed process 4242 (VLLM::EngineCor) total-vm:99kB, anon-rss:9kB"}
    result = D.diagnose(log, live=live)
    assert result["category"] == "host_oom"
    assert result["confidence"] >= 0.85


def test_live_oom_killer_sharpens_an_empty_failed_core_list():
    log = "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}\n"
    assert D.diagnose(log)["category"] == "engine_core_generic"
    live = {"dmesg": "oom-kill:constraint=CONSTRAINT_NONE,task=python3,pid=4242,uid=1000\n"
                     "Out of memory: Killed process 4242 (python3) total-vm:1kB"}
    assert D.diagnose(log, live=live)["category"] == "host_oom"


def test_oom_killer_naming_the_logged_pid_is_near_certain():
    log = ("(EngineCore_DP0 pid=223840) INFO 10-25 13:08:01 [gpu_model_runner.py:1] Starting to load model x\n"
           "(APIServer pid=223598) RuntimeError: Engine core initialization failed. See root cause above. "
           "Failed core proc(s): {}\n")
    live = {"dmesg": "[9.1] Out of memory: Killed process 223840 (VLLM::EngineCor) total-vm:1kB\n"}
    result = D.diagnose(log, live=live)
    assert result["category"] == "host_oom"
    assert result["confidence"] >= 0.95
    assert "223840" in result["fix"]


def test_unrelated_oom_kill_in_dmesg_does_not_blame_vllm():
    log = "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}\n"
    live = {"dmesg": "Out of memory: Killed process 999 (firefox) total-vm:1kB"}
    assert D.diagnose(log, live=live)["category"] == "engine_core_generic"


def test_empty_core_list_mentions_a_kill():
    log = "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}\n"
    result = _check(log, "engine_core_generic")
    assert "killed by a signal" in result["fix"]


def test_wrapper_with_an_unrecognised_real_error_is_unknown():
    log = """(EngineCore_DP0 pid=5) ERROR 01-01 00:00:01 [core.py:700] KeyError: 'model.layers.0.mlp.experts.w13'
(APIServer pid=1) RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}
"""
    result = D.diagnose(log)
    assert result["category"] == "unknown"
    assert "KeyError" in result["evidence"]


def test_empty_and_clean_logs_are_unknown():
    assert D.diagnose("")["category"] == "unknown"
    assert D.diagnose("INFO 01-01 00:00:00 [api_server.py:1] Started\n")["category"] == "unknown"


def test_last_start_attempt_wins_in_a_journal():
    log = """Jan 01 10:00:00 host vllm[1]: INFO 01-01 10:00:00 [api_server.py:1] vLLM API server version 0.11.0
Jan 01 10:00:05 host vllm[1]: ValueError: Total number of attention heads (32) must be divisible by tensor parallel \
size (3).
Jan 01 10:05:00 host vllm[2]: INFO 01-01 10:05:00 [api_server.py:1] vLLM API server version 0.11.0
Jan 01 10:05:30 host vllm[2]: ERROR:    [Errno 98] error while attempting to bind on address ('0.0.0.0', 8000): \
address already in use
"""
    _check(log, "port_in_use")


def test_cause_from_an_earlier_attempt_is_flagged():
    log = """INFO 01-01 10:00:00 [api_server.py:1] vLLM API server version 0.11.0
ValueError: Total number of attention heads (32) must be divisible by tensor parallel size (3).
INFO 01-01 10:05:00 [api_server.py:1] vLLM API server version 0.11.0
RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {'EngineCore_DP0': 1}
"""
    result = _check(log, "tensor_parallel_config")
    assert result["fix"].startswith("(Seen in an earlier start attempt")
    assert result["confidence"] <= 0.85


def test_warning_mentions_are_weaker_than_errors():
    log = """WARNING 10-10 10:22:58 _custom_ops.py:18] Failed to import from vllm._C with ImportError('libcuda.so.1: \
cannot open shared object file: No such file or directory')
ValueError: Total number of attention heads (28) must be divisible by tensor parallel size (8).
"""
    _check(log, "tensor_parallel_config")


def test_kv_cache_fix_uses_the_numbers_from_the_log():
    log = ("ValueError: To serve at least one request with the models's max seq len (131072), (52.66 GiB KV cache "
           "is needed, which is larger than the available KV cache memory (23.37 GiB). Based on the available "
           "memory, the estimated maximum model length is 58148. Try increasing `gpu_memory_utilization` or "
           "decreasing `max_model_len` when initializing the engine.\n")
    result = _check(log, "gpu_oom")
    assert "max_model_len: 57344" in result["fix"]
    assert "52.66" in result["fix"]


def test_python_version_named_in_fix():
    log = ("ERROR: Package 'vllm' requires a different Python: 3.14.0 not in '<3.14,>=3.10'\n")
    result = _check(log, "python_version_unsupported")
    assert "vllm_python_version" in result["fix"] and "3.14" in result["fix"]


def test_wsl_uva_fix_names_env_variables():
    result = _check("(EngineCore pid=88) RuntimeError: UVA is not available\n", "wsl_specific")
    assert "VLLM_WSL2_ENABLE_PIN_MEMORY" in result["fix"] and "vllm_service_env" in result["fix"]


def test_host_oom_on_wsl_points_at_wslconfig():
    log = ("WARNING 05-22 10:02:31 [interface.py:729] Using 'pin_memory=False' as WSL is detected.\n"
           "Loading safetensors checkpoint shards:  25% Completed | 1/4\nKilled\n")
    result = _check(log, "host_oom")
    assert "vllm_wsl_memory" in result["fix"]


def test_systemd_journal_oom_kill_is_host_oom():
    log = ("Jan 01 10:00:00 host systemd[1]: vllm.service: A process of this unit has been killed by the OOM "
           "killer.\nJan 01 10:00:00 host systemd[1]: vllm.service: Failed with result 'oom-kill'.\n")
    _check(log, "host_oom")


def test_trust_remote_code_fix():
    log = ("ValueError: Loading deepseek-ai/DeepSeek-V2-Lite requires you to execute the configuration file in that "
           "repo on your local machine. Make sure you have read the code there to avoid malicious use, then set the "
           "option `trust_remote_code=True` to remove this error.\n")
    result = _check(log, "trust_remote_code")
    assert "trust_remote_code: true" in result["fix"]


def test_other_findings_list_secondary_causes():
    log = """WARNING 06-01 01:06:23 utils.py:465] Using 'pin_memory=False' as WSL is detected.
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.
"""
    result = _check(log, "gpu_oom")
    assert [o["category"] for o in result["other_findings"]] == ["wsl_specific"]


def test_live_gpu_memory_shows_in_gpu_fixes_and_other_findings():
    log = "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization`.\n"
    result = D.diagnose(log, live={"gpu_free_mib": [312]})
    assert "312 MiB" in result["fix"]
    generic = D.diagnose("RuntimeError: Engine core initialization failed. See root cause above. "
                         "Failed core proc(s): {'EngineCore_0': 1}\n", live={"gpu_free_mib": [312]})
    # Only the wrapper in the log, but the GPU is full while vLLM is down: someone else holds it.
    assert generic["category"] == "gpu_oom"
    assert generic["confidence"] < 0.5
    assert "nvidia-smi" in generic["fix"]


def test_healthy_wsl_log_is_not_a_failure():
    log = ("WARNING 05-22 10:02:31 [interface.py:729] Using 'pin_memory=False' as WSL is detected.\n"
           "INFO 05-22 10:02:40 [api_server.py:1] Starting vLLM API server 0 on http://0.0.0.0:8000\n"
           "INFO:     Application startup complete.\n")
    assert D.diagnose(log)["category"] == "unknown"


WRAPS = {
    "journald": lambda l: "Nov 30 02:15:01 gpu-box vllm[4242]: " + l,
    "compose": lambda l: "vllm-server-1  | " + l,
    "ansi": lambda l: "\x1b[0;36m" + l + "\x1b[0m",
    "crlf": lambda l: l + "\r",
    "buildkite": lambda l: "[2026-01-28T23:59:42Z] " + l,
    "docker_timestamps": lambda l: "2024-02-08T08:40:56.016480879Z " + l,
    "markdown_quote": lambda l: "> " + l,
    "indent": lambda l: "    " + l,
}


@pytest.mark.parametrize("wrap", sorted(WRAPS))
def test_category_survives_outer_wrappers(wrap):
    """Every labelled log (known misses in xfail*.tsv aside), re-wrapped the way journals, compose and issue pastes wrap lines."""
    cases = [(FIXTURE_LOGS, name, cat) for name, cat in FIXTURE_CASES if name not in FIXTURE_XFAIL]
    cases += [(CORPUS_LOGS, name, cat) for name, cat in CORPUS_CASES]
    wrong = []
    for directory, name, expected in cases:
        lines = _read(directory, name).replace("\r\n", "\n").split("\n")
        got = D.diagnose("\n".join(WRAPS[wrap](line) for line in lines))["category"]
        if got != expected:
            wrong.append((name, expected, got))
    assert not wrong


def test_sigkilled_core_proc_exit_code():
    wrapper = ("RuntimeError: Engine core initialization failed. See root cause above. "
               "Failed core proc(s): {'EngineCore_DP0': -9}\n")
    assert D.diagnose(wrapper)["category"] == "engine_core_generic"
    assert D.diagnose("Loading safetensors checkpoint shards:  10% Completed | 1/10\n" + wrapper)["category"] \
        == "host_oom"


def test_teardown_noise_does_not_hide_a_wrapper_only_log():
    log = ("(RayWorkerVllm pid=1) AttributeError: 'NCCLCommunicator' object has no attribute 'comm'\n"
           "RuntimeError: Engine process failed to start. See stack trace for the root cause.\n")
    assert D.diagnose(log)["category"] == "engine_core_generic"


def test_engine_ready_timeout_fix():
    log = ("TimeoutError: Timed out waiting for engine core processes to start. This can happen when the engine "
           "core startup takes longer than VLLM_ENGINE_READY_TIMEOUT_S (600s).\n")
    result = _check(log, "engine_core_generic")
    assert "VLLM_ENGINE_READY_TIMEOUT_S" in result["fix"]


HEALTHY = """INFO 08-19 13:12:30 [__init__.py:241] Automatically detected platform cuda.
(APIServer pid=11) INFO 08-19 13:12:33 [api_server.py:1805] vLLM API server version 0.10.1
(APIServer pid=11) INFO 08-19 13:12:33 [utils.py:326] non-default args: {'model': 'Qwen/Qwen2.5-VL-7B-Instruct', \
'trust_remote_code': True, 'max_model_len': 32768, 'tensor_parallel_size': 2, 'limit_mm_per_prompt': {'video': 0}, \
'gpu_memory_utilization': 0.9, 'load_format': 'safetensors', 'port': 8000}
(APIServer pid=11) INFO 08-19 13:12:39 [__init__.py:1750] Using max model len 32768
(EngineCore_0 pid=12) INFO 08-19 13:12:47 [core.py:74] Initializing a V1 LLM engine (v0.10.1) with config: \
model='Qwen/Qwen2.5-VL-7B-Instruct', trust_remote_code=True, dtype=torch.bfloat16, max_seq_len=32768, \
tensor_parallel_size=2, load_format=LoadFormat.SAFETENSORS, enforce_eager=False
(EngineCore_0 pid=12) INFO 08-19 13:12:50 [gpu_model_runner.py:1] Capturing cudagraphs for decoding. If \
out-of-memory error occurs during cudagraph capture, consider decreasing `gpu_memory_utilization` or switching to \
eager mode. You can also reduce the `max_num_seqs` as needed to decrease memory usage.
(EngineCore_0 pid=12) INFO 08-19 13:12:55 [gpu_worker.py:276] Available KV cache memory: 13.69 GiB
(EngineCore_0 pid=12) INFO 08-19 13:12:55 [kv_cache_utils.py:1] GPU KV cache size: 188,640 tokens
(APIServer pid=11) INFO 08-19 13:13:01 [api_server.py:1] Starting vLLM API server 0 on http://0.0.0.0:8000
(APIServer pid=11) INFO:     Started server process [11]
(APIServer pid=11) INFO:     Application startup complete.
"""


def test_healthy_start_log_with_config_echoes_is_unknown():
    result = D.diagnose(HEALTHY)
    assert result["category"] == "unknown", result


def test_config_echoes_do_not_outrank_the_wrapper():
    log = HEALTHY.split("(APIServer pid=11) INFO 08-19 13:13:01")[0] + (
        "decord                     0.6.0\nVLLM_ENGINE_READY_TIMEOUT_S=1200\n"
        "RuntimeError: Engine core initialization failed. See root cause above. "
        "Failed core proc(s): {'EngineCore_DP0': 1}\n")
    assert D.diagnose(log)["category"] == "engine_core_generic"


def test_long_log_is_bounded_and_keeps_the_cause_at_the_end():
    filler = "".join("(EngineCore_DP0 pid=1) INFO 01-01 00:00:00 [loggers.py:1] Avg generation throughput: %d.0 "
                     "tokens/s\n" % i for i in range(D.MAX_LINES + 5000))
    log = filler + "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization`.\n"
    assert D.diagnose(log)["category"] == "gpu_oom"


def test_categories_are_the_documented_twelve():
    assert len(D.CATEGORIES) == 12
    assert D.UNKNOWN == "unknown"
