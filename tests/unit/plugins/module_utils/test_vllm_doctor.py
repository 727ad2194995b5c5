"""Unit tests for vllm_doctor: real logs (shared corpus and our own collection) and edge cases."""
import csv
import glob
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


def _rows(directory, pattern):
    """The rows of every ``pattern`` file (labels*.tsv, xfail*.tsv) in ``directory``, in file order."""
    rows = []
    for path in sorted(glob.glob(os.path.join(directory, pattern))):
        with open(path, newline="", encoding="utf-8") as handle:
            rows += list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    return rows


def _labels(directory):
    return [(row["file"], row["category"]) for row in _rows(directory, "labels*.tsv")]


def _read(directory, name):
    with open(os.path.join(directory, name), encoding="utf-8", errors="replace", newline="") as handle:
        return handle.read()


def _log_lines(text):
    """The log's lines as the doctor may quote them: colour codes and outer whitespace removed; a paste
    flattened onto one line counts as the lines the doctor splits it into (each a piece of the line)."""
    lines = set(D.strip_ansi(line).strip() for line in re.split(r"\r\n|\n|\r", text))
    pieces = set(D.strip_ansi(line).strip() for line in D.split_lines(text))
    assert all(any(piece in line for line in lines) for piece in pieces)
    return lines | pieces


def _check(text, expected, cause=None):
    result = D.diagnose(text)
    assert result["category"] == expected, (result["category"], result["evidence"])
    if cause:
        assert result.get("cause") == cause, (result.get("cause"), result["evidence"])
    assert set(result) >= {"category", "evidence", "fix", "confidence", "other_findings"}
    assert 0.0 <= result["confidence"] <= 1.0
    assert result["evidence"] in _log_lines(text), result["evidence"]
    assert result["fix"]
    return result


CORPUS_CASES = _labels(CORPUS_LOGS)
FIXTURE_CASES = _labels(FIXTURE_LOGS)
# the finer cause, where a row names one (the held-out sets do; the first rows predate the column)
FIXTURE_CAUSES = dict((row["file"], (row.get("cause") or "").strip()) for row in _rows(FIXTURE_LOGS, "labels*.tsv"))
# logs the rules still name wrongly: strict xfails, so a rule that starts getting one right must move it out
FIXTURE_XFAIL = dict((row["file"], row["reason"]) for row in _rows(FIXTURE_LOGS, "xfail*.tsv"))
# per category, how many labelled logs the collection has now (development set plus held-out set A)
CATEGORY_FLOOR = {
    "gpu_oom": 17, "host_oom": 7, "cuda_driver_mismatch": 13, "python_version_unsupported": 6,
    "trust_remote_code": 7, "uvloop_event_loop": 4, "model_files": 16, "wsl_specific": 7,
    "engine_core_generic": 9, "tensor_parallel_config": 13, "multimodal_processor": 10, "port_in_use": 8,
}


@pytest.mark.skipif(not os.path.isdir(CORPUS_LOGS), reason="shared corpus not present at %s" % CORPUS_LOGS)
@pytest.mark.parametrize("name,expected", CORPUS_CASES or [("none", "none")], ids=[c[0] for c in CORPUS_CASES]
                         or ["none"])
def test_shared_corpus(name, expected):
    if name == "none":
        pytest.skip("shared corpus has no labels.tsv")
    _check(_read(CORPUS_LOGS, name), expected)


@pytest.mark.parametrize("name,expected", [
    pytest.param(name, expected, marks=pytest.mark.xfail(strict=True, reason=FIXTURE_XFAIL[name]))
    if name in FIXTURE_XFAIL else (name, expected) for name, expected in FIXTURE_CASES],
    ids=[c[0] for c in FIXTURE_CASES])
def test_collected_logs(name, expected):
    _check(_read(FIXTURE_LOGS, name), expected, FIXTURE_CAUSES.get(name))


def test_collected_logs_cover_every_category():
    counts = {}
    for _, category in FIXTURE_CASES:
        counts[category] = counts.get(category, 0) + 1
    assert set(counts) == set(D.CATEGORIES) == set(CATEGORY_FLOOR)
    short = dict((c, (counts[c], CATEGORY_FLOOR[c])) for c in counts if counts[c] < CATEGORY_FLOOR[c])
    assert not short, short


def test_labels_are_unique_and_name_a_set_and_category():
    rows = _rows(FIXTURE_LOGS, "labels*.tsv")
    names = [row["file"] for row in rows]
    assert len(names) == len(set(names)), "a log is labelled twice"
    assert set(FIXTURE_XFAIL) <= set(names), set(FIXTURE_XFAIL) - set(names)
    for row in rows:
        assert (row.get("set") or "").strip(), ("a row without its set", row["file"])
        assert row["category"] in D.CATEGORIES, row


def test_every_fixture_is_labelled():
    logs = set(name for name in os.listdir(FIXTURE_LOGS) if name.endswith(".log"))
    assert logs == set(name for name, _ in FIXTURE_CASES)
    assert all(os.path.exists(os.path.join(FIXTURE_LOGS, name)) for name in FIXTURE_XFAIL), FIXTURE_XFAIL


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
    """Every labelled log, re-wrapped the way journals, compose and issue pastes wrap lines."""
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


# ---------------------------------------------------------------------------------------------
# Rules written from the misses of sets D-K (branch doctor4). Each case is a wording of the same
# root cause that no collected log has (another release, another argument, another tool), so the
# rules are held to the cause and not to the lines they were written from.
# ---------------------------------------------------------------------------------------------

_TB = "Traceback (most recent call last):\n"
NEW_RULE_CASES = [
    # a wrapper written for another vLLM release: Python 3.8 names no class, the call above says whose
    (_TB + '  File "/opt/conda/lib/python3.8/site-packages/verl/workers/rollout/vllm_rollout.py", line 90, in '
     "__init__\n    self.inference_engine = LLM(\n"
     '  File "/opt/conda/lib/python3.8/site-packages/vllm/entrypoints/llm.py", line 118, in __init__\n'
     "    engine_args = EngineArgs(\n"
     "TypeError: __init__() got an unexpected keyword argument 'enable_sleep_mode'\n",
     "engine_core_generic", "wrapper_vllm_version_mismatch"),
    ("TypeError: AsyncEngineArgs.__init__() got an unexpected keyword argument 'disable_log_requests'\n",
     "engine_core_generic", "wrapper_vllm_version_mismatch"),
    (_TB + '  File "/srv/app/bridge/server.py", line 12, in <module>\n'
     "    from vllm.entrypoints.openai.serving_engine import LoRAModulePath\n"
     "ImportError: cannot import name 'LoRAModulePath' from 'vllm.entrypoints.openai.serving_engine' "
     "(/srv/venv/lib/python3.11/site-packages/vllm/entrypoints/openai/serving_engine.py)\n",
     "engine_core_generic", "wrapper_vllm_version_mismatch"),
    ("ImportError: vllm<=0.6.3,>=0.5.5 is required for a normal functioning of this module, but found "
     "vllm==0.7.2.\n", "engine_core_generic", "wrapper_vllm_version_mismatch"),
    ("RuntimeError: Unsupported vLLM version 0.9.0 for this plugin (supported: 0.8.4, 0.8.5)\n",
     "engine_core_generic", "wrapper_vllm_version_mismatch"),
    # vLLM's own module importing one the install lacks
    (_TB + '  File "/opt/venv/lib/python3.12/site-packages/vllm/model_executor/layers/quantization/__init__.py", '
     "line 5, in <module>\n    from vllm.model_executor.layers.quantization.awq_marlin import AWQMarlinConfig\n"
     "ModuleNotFoundError: No module named 'vllm.model_executor.layers.quantization.awq_marlin'\n",
     "engine_core_generic", "vllm_install_incomplete"),
    ("ModuleNotFoundError: No module named 'vllm._C'\n", "engine_core_generic", "vllm_install_incomplete"),
    # torch.compile failing on the graph
    ("torch._dynamo.exc.BackendCompilerFailed: backend='<vllm.compilation.backends.VllmBackend object at "
     "0x7f3a2c>' raised:\nAssertionError: expected size 4096==8192, stride 1==1 at dim=0\n",
     "engine_core_generic", "torch_compile_graph_error"),
    # an AttributeError on vLLM's own layer object
    ("(EngineCore_DP0 pid=88) AttributeError: 'RowParallelLinear' object has no attribute 'weight_scale'\n",
     "engine_core_generic", "vllm_release_bug"),
    # the container runtime cannot exec the image's Python (podman/crun, permission denied)
    ("Error: crun: executable file `python3` not found in $PATH: No such file or directory: OCI runtime "
     "attempted to invoke a command that was not found\n", "engine_core_generic",
     "image_python_unreadable_nonroot"),
    ('docker: Error response from daemon: OCI runtime create failed: runc create failed: unable to start container '
     'process: exec: "python3": permission denied: unknown.\n', "engine_core_generic",
     "image_python_unreadable_nonroot"),
    # engine start timeouts, spelled right (later releases) and as a source line of a cut traceback
    ("(ApiServer_0 pid=10466) TimeoutError: Timed out waiting for engines to send initial message on input "
     "socket.\n", "engine_core_generic", "ready_timeout"),
    # /dev/shm too small: NCCL's older warning, torch's DataLoader hint
    ("node1:168:168 [0] misc/shmutils.cc:72 NCCL WARN Error: failed to extend /dev/shm/nccl-UbzKZ9 to 33030528 "
     "bytes\n", "host_oom", "bus_error"),
    ("ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).\n",
     "host_oom", "bus_error"),
    # the bfloat16 message's tail, with the space the message had in other releases
    ("You can use float16 instead by explicitly setting the `dtype` flag in CLI, for example: --dtype=half.\n",
     "cuda_driver_mismatch", "dtype_unsupported_on_gpu"),
    # signal handlers outside the main thread: asyncio's and signal.signal()'s wording
    ("RuntimeError: set_wakeup_fd only works in main thread of the main interpreter\n", "uvloop_event_loop",
     "signal_handler_non_main_thread"),
    ("ValueError: signal only works in main thread of the main interpreter\n", "uvloop_event_loop",
     "signal_handler_non_main_thread"),
    # a release without the architecture: the Transformers fallback refuses it, or multimodal options; an
    # architecture a later vLLM serves (vllm_doctor_archs) is a release too old for the model
    ("ValueError: Qwen2_5OmniForConditionalGeneration has no vLLM implementation and the Transformers "
     "implementation is not compatible with vLLM. Try setting VLLM_USE_V1=0.\n", "model_files",
     "vllm_too_old_for_model"),
    ("ValueError: Cannot find model module. 'Glm4vMoeForConditionalGeneration' is not a registered model in the "
     "Transformers library (only relevant if the model is meant to be in Transformers)\n", "model_files",
     "vllm_too_old_for_model"),
    ("ValueError: Cannot find model module. 'AcmeVisionForConditionalGeneration' is not a registered model in the "
     "Transformers library (only relevant if the model is meant to be in Transformers)\n", "model_files",
     "architecture_unsupported"),
    ("pydantic_core._pydantic_core.ValidationError: 1 validation error for ModelConfig\n"
     "  Value error, `mm_processor_kwargs` is only supported for multimodal models. [type=value_error]\n",
     "model_files", "architecture_unsupported"),
    # transformers out of step with vLLM's model code
    ("ImportError: cannot import name 'Qwen3VLForConditionalGeneration' from 'transformers' "
     "(/usr/lib/python3/site-packages/transformers/__init__.py)\n", "model_files", "transformers_incompatible"),
    ("ValueError: Model architectures ['Gemma3ForConditionalGeneration'] failed to be inspected. Please check the "
     "logs for more details.\n", "model_files", "transformers_incompatible"),
    ('ERROR 04-05 10:00:01 [registry.py:351]   File "/venv/lib/python3.11/site-packages/vllm/model_executor/models/'
     'mllama4.py", line 30, in <module>\n'
     "ERROR 04-05 10:00:01 [registry.py:351]     from transformers.models.llama4.image_processing_llama4_fast "
     "import (\n", "model_files", "transformers_incompatible"),
    # a .gguf path on a release without a GGUF loader
    ("ValueError: No supported config format found in /models/qwen2.5-7b-instruct-q4_k_m.gguf\n", "model_files",
     "gguf_unsupported"),
    # an object-store model validated as a Hub repo id (the URI, or the temp dir it was pulled to)
    ("huggingface_hub.errors.HFValidationError: Repo id must be in the form 'repo_name' or 'namespace/repo_name': "
     "'gs://bucket/llama-3-8b/'. Use `repo_type` argument if needed.\n", "model_files", "s3_uri_path_bug"),
    ("HFValidationError: Repo id must be in the form 'repo_name' or 'namespace/repo_name': '/var/tmp/tmpab12_xyz'. "
     "Use `repo_type` argument if needed.\n", "model_files", "s3_uri_path_bug"),
    # checkpoint tensors that do not fit the class: a prefix, a deeper name, an extra tied lm_head
    ("ValueError: There is no module or parameter named '_orig_mod' in Qwen2ForCausalLM\n", "model_files",
     "checkpoint_prefix_mismatch"),
    ("ValueError: There is no module or parameter named 'model.layers.11.mlp.gate.e_score_correction_bias' in "
     "TransformersMoEForCausalLM\n", "model_files", "checkpoint_weight_name_mismatch"),
    ('  File "/usr/lib/python3.10/site-packages/vllm/model_executor/models/qwen2.py", line 400, in load_weights\n'
     "    param = params_dict[name]\n"
     "KeyError: 'model.layers.0.self_attn.qkv_proj.weight_scale'\n", "model_files",
     "checkpoint_weight_name_mismatch"),
    ("(RayWorkerWrapper pid=5) KeyError: 'model.lm_head.weight'\n", "model_files", "checkpoint_extra_lm_head_tied"),
    ("RuntimeError: Cannot find any model weights with `/ckpt/run1/global_step_300/actor/huggingface`\n",
     "model_files", "unmerged_fsdp_checkpoint"),
    # pre-quantized bitsandbytes where the release cannot load it
    ("ValueError: Prequant BitsAndBytes models with tensor parallelism is not supported. Please try with pipeline "
     "parallelism.\n", "model_files", "bnb_prequantized_unsupported"),
    # an existing local directory asked for on the Hub by vLLM's own lookup of a file it lacks
    (_TB + '  File "/venv/lib/python3.11/site-packages/vllm/transformers_utils/config.py", line 300, in '
     "get_hf_file_to_dict\n    hf_hub_file = hf_hub_download(model, file_name, revision=revision)\n"
     '  File "/venv/lib/python3.11/site-packages/huggingface_hub/utils/_validators.py", line 106, in _inner_fn\n'
     "    validate_repo_id(arg_value)\n"
     "huggingface_hub.errors.HFValidationError: Repo id must be in the form 'repo_name' or 'namespace/repo_name': "
     "'/srv/models/bge-m3'. Use `repo_type` argument if needed.\n", "model_files", "local_path_taken_for_hub_id"),
    # vLLM inside a launcher's torch.distributed world
    ("RuntimeError: world_size (4) is not equal to tensor_model_parallel_size (2) x pipeline_model_parallel_size "
     "(1)\n", "tensor_parallel_config", "external_launcher_world_size"),
    # the placement group pinned to a node address Ray does not have (bundle keys in the other order)
    ("(autoscaler +12s) Error: No available node types can fulfill resource request {'GPU': 1.0, "
     "'node:10.0.0.5': 0.001}. Add suitable node types to this cluster to resolve this issue.\n",
     "tensor_parallel_config", "ray_node_ip_mismatch"),
    # multimodal limits never set up in the worker
    ("(VllmWorker rank=1 pid=77) KeyError: 'Cannot find `mm_limits` for model=Qwen/Qwen2.5-VL-3B-Instruct. Did you "
     "forget to call `init_mm_limits_per_prompt`?'\n", "multimodal_processor", "mm_limits_not_initialized"),
]


@pytest.mark.parametrize("log,category,cause", NEW_RULE_CASES, ids=[c[2] for c in NEW_RULE_CASES])
def test_rules_from_the_sets_d_to_k_misses(log, category, cause):
    result = _check(log, category, cause)
    assert all(o["confidence"] <= result["confidence"] for o in result["other_findings"])


NEW_RULE_NEGATIVES = [
    # an unexpected keyword argument of the trainer's own class, not of vLLM's
    (_TB + '  File "/app/train.py", line 40, in main\n    trainer = GRPOTrainer(\n'
     "TypeError: GRPOTrainer.__init__() got an unexpected keyword argument 'tokenizer'\n",
     "wrapper_vllm_version_mismatch", None),
    # a tool's version advice in a start that went well is no failure
    ("UserWarning: TRL currently only supports vLLM version `0.10.2`. You have version 0.11.0 installed.\n" + HEALTHY,
     "wrapper_vllm_version_mismatch", "unknown"),
    # pip's resolver noise before a start that failed on something else
    ("ERROR: pip's dependency resolver does not currently take into account all the packages that are installed. "
     "foo 1.0 requires vllm==0.6.3, but you have vllm 0.7.0 which is incompatible.\n"
     "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n", "wrapper_vllm_version_mismatch",
     "gpu_oom"),
    # no vLLM in the venv at all is not a mismatch of two releases
    ("ModuleNotFoundError: No module named 'vllm'\n", "vllm_install_incomplete", None),
    ("ModuleNotFoundError: No module named 'vllm'\n", "wrapper_vllm_version_mismatch", None),
    # torch.compile failing on a cache directory it may not write is that permission problem
    ("torch._inductor.exc.InductorError: PermissionError: [Errno 13] Permission denied: '/.triton/cache'\n",
     "torch_compile_graph_error", "model_files"),
    # a tokenizer object without an attribute is transformers, not a vLLM layer
    ("AttributeError: 'Qwen2Tokenizer' object has no attribute 'all_special_tokens_extended'\n", "vllm_release_bug",
     "model_files"),
    # another binary than Python missing in the container
    ('OCI runtime create failed: runc create failed: unable to start container process: exec: "nvidia-smi": '
     "executable file not found in $PATH: unknown\n", "image_python_unreadable_nonroot", None),
    # an engine core that died of CUDA OOM before the API server gave up waiting
    ("(EngineCore_DP0 pid=9) torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB.\n"
     "(APIServer pid=8) TimeoutError: Timed out waiting for engines to send initial message on input socket.\n",
     "ready_timeout", "gpu_oom"),
    # GPU shared memory of a Triton kernel is not /dev/shm
    ("triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 98304, Hardware limit: 65536\n",
     "bus_error", None),
    # NCCL's /dev/shm segment failing under WSL stays the WSL multi-GPU limitation
    ("Linux version 5.15.153.1-microsoft-standard-WSL2\n"
     "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, "
     "unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5\n"
     "Error while creating shared memory segment /dev/shm/nccl-g0wGsu (size 9637888)\n", "bus_error",
     "wsl_specific"),
    # bfloat16 cast warnings are no GPU capability error
    ("WARNING 01-02 03:04:05 [config.py:1] Casting torch.bfloat16 to torch.float16.\n" + HEALTHY,
     "dtype_unsupported_on_gpu", "unknown"),
    # an event loop missing in a thread is the event-loop cause, not the signal handler one
    ("RuntimeError: There is no current event loop in thread 'Thread-1'.\n", "signal_handler_non_main_thread",
     "uvloop_event_loop"),
    # the Transformers fallback in a start that went well
    ("WARNING 03-13 03:20:24 [registry.py:1] MyModelForCausalLM has no vLLM implementation, falling back to "
     "Transformers implementation. Some features may not be supported.\n" + HEALTHY, "architecture_unsupported",
     "unknown"),
    # another library's import failure is not transformers
    ("ImportError: cannot import name 'broadcast_shapes' from 'numpy' (/venv/lib/numpy/__init__.py)\n",
     "transformers_incompatible", None),
    # a config missing from a plain directory is no GGUF question
    ("ValueError: No supported config format found in /models/qwen\n", "gguf_unsupported", "model_files"),
    # a plain local path that does not exist
    ("HFValidationError: Repo id must be in the form 'repo_name' or 'namespace/repo_name': '/data/models/llama'. "
     "Use `repo_type` argument if needed.\n", "s3_uri_path_bug", "model_files"),
    # transformers' own lookup: the directory does not exist (no vLLM hub call in the traceback)
    (_TB + '  File "/venv/lib/python3.11/site-packages/transformers/utils/hub.py", line 403, in cached_file\n'
     "    resolved_file = hf_hub_download(\n"
     '  File "/venv/lib/python3.11/site-packages/huggingface_hub/utils/_validators.py", line 106, in _inner_fn\n'
     "    validate_repo_id(arg_value)\n"
     "huggingface_hub.errors.HFValidationError: Repo id must be in the form 'repo_name' or 'namespace/repo_name': "
     "'/srv/models/missing'. Use `repo_type` argument if needed.\n", "local_path_taken_for_hub_id", "model_files"),
    # a weight-name KeyError outside any weight loading
    ("KeyError: 'model.layers.0.mlp.weight'\n", "checkpoint_weight_name_mismatch", None),
    # a deeper tensor name is not a prefix mismatch
    ("ValueError: There is no module or parameter named 'visual.blocks.0.attn.qkv.weight' in "
     "Qwen2ForCausalLM\n", "checkpoint_prefix_mismatch", "model_files"),
    # lm_head named in a warning, not a KeyError
    ("WARNING 01-01 00:00:00 [utils.py:1] Some weights of the checkpoint were not used: ['lm_head.weight']\n" + HEALTHY,
     "checkpoint_extra_lm_head_tied", "unknown"),
    # no weights in an ordinary directory
    ("RuntimeError: Cannot find any model weights with `/models/llama`\n", "unmerged_fsdp_checkpoint",
     "model_files"),
    # a GPTQ config missing a key is not bitsandbytes
    ("ValueError: Cannot find any of ['group_size'] in the model's quantization config.\n",
     "bnb_prequantized_unsupported", None),
    # more processes than visible GPUs on one node is not the launcher's world
    ("AssertionError: local_world_size (16) must be less than or equal to the number of visible devices (8).\n",
     "external_launcher_world_size", None),
    # a GPU bundle no node can hold is a GPU shortage, not an address
    ("(autoscaler +7s) Error: No available node types can fulfill resource request {'GPU': 1.0}. Add suitable node "
     "types to this cluster to resolve this issue.\n", "ray_node_ip_mismatch", None),
    # the limit check inside init_mm_limits_per_prompt is the user's limit, not a missing initialisation
    (_TB + '  File "/venv/lib/python3.12/site-packages/vllm/multimodal/registry.py", line 280, in '
     "init_mm_limits_per_prompt\n    raise ValueError(\n"
     "ValueError: You set image=4 (or defaulted to 1) in `--limit-mm-per-prompt`, but this model only supports at "
     "most 1 image items.\n", "mm_limits_not_initialized", "multimodal_processor"),
]


@pytest.mark.parametrize("log,cause,category", NEW_RULE_NEGATIVES, ids=["%s-%d" % (c[1], i) for i, c in
                                                                           enumerate(NEW_RULE_NEGATIVES)])
def test_rules_from_the_sets_d_to_k_misses_stay_out(log, cause, category):
    """A text like the cause's must not be named as it; where the right answer is known, it is that."""
    result = D.diagnose(log)
    assert result.get("cause") != cause, (result.get("cause"), result["evidence"])
    if category:
        assert result["category"] == category, (result["category"], result.get("cause"), result["evidence"])


def test_wrapper_mismatch_fix_names_the_argument_and_the_project_variable():
    result = D.diagnose(NEW_RULE_CASES[0][0])
    assert "'enable_sleep_mode'" in result["fix"] and "vllm_install_version" in result["fix"]
    result = D.diagnose(NEW_RULE_CASES[3][0])
    assert "vllm<=0.6.3,>=0.5.5" in result["fix"] and "0.7.2" in result["fix"]


def test_shm_fix_says_how_to_grow_dev_shm():
    fix = D.diagnose("Error while creating shared memory segment /dev/shm/nccl-AbCd12 (size 33030528)\n")["fix"]
    assert "--shm-size" in fix and "medium: Memory" in fix and "NCCL_SHM_DISABLE" in fix


# --------------------------------------------------------------------------- the parts

PARTS = ["vllm_doctor_text", "vllm_doctor_archs", "vllm_doctor_rules", "vllm_doctor_fixes", "vllm_doctor_adjust",
         "vllm_doctor"]


def test_each_part_imports_only_the_parts_before_it():
    """text <- rules <- fixes, adjust <- the entry (archs, a table, for fixes and adjust): no cycle, and the
    fixes do not weigh findings."""
    allowed = {"vllm_doctor_text": set(), "vllm_doctor_archs": {"vllm_doctor_text"},
               "vllm_doctor_rules": {"vllm_doctor_text"},
               "vllm_doctor_fixes": {"vllm_doctor_archs", "vllm_doctor_text", "vllm_doctor_rules"},
               "vllm_doctor_adjust": {"vllm_doctor_archs", "vllm_doctor_text", "vllm_doctor_rules"},
               "vllm_doctor": {"vllm_doctor_text", "vllm_doctor_rules", "vllm_doctor_fixes", "vllm_doctor_adjust"}}
    for part in PARTS:
        with open(os.path.join(os.path.dirname(D.__file__), part + ".py"), encoding="utf-8") as handle:
            imported = set(re.findall(r"^\s*from \.?(vllm_\w+) import", handle.read(), re.M))
        assert imported == allowed[part], part


def test_the_public_names_of_the_parts_stay_importable_from_the_entry():
    import vllm_doctor_rules
    import vllm_doctor_text
    for module in (vllm_doctor_text, vllm_doctor_rules):
        for name in dir(module):
            if not name.startswith("_") and name not in ("absolute_import", "division", "print_function", "re"):
                assert getattr(D, name) is getattr(module, name), name
