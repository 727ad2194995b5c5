"""The doctor on whole posts (advice prose, suggested commands, then a real log): only the log is read."""
import csv
import glob
import os

import pytest

import vllm_doctor as D
from vllm_testlib import ROOT

try:
    from conftest import CORPUS
except ImportError:  # pragma: no cover
    CORPUS = os.path.join(os.path.dirname(ROOT), "shared", "corpus")
POSTS = os.path.join(ROOT, "tests", "fixtures", "posts")
CORPUS_POST = os.path.join(CORPUS, "posts", "01_forum_post_wsl_py314_qwen3vl_video_warmup_terminated.txt")


def _read(path):
    with open(path, encoding="utf-8", errors="replace", newline="") as handle:
        return handle.read()


# ---------------------------------------------------------------------------------------------
# The line classifier, on real lines (the corpus post and the collected logs)
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("raw,label", [
    # log output
    ("(APIServer pid=3720) Traceback (most recent call last):", D.LOG),
    (u"(APIServer pid=3720) File \u201c/mnt/c/Users/AI-Space001/venv-vllm/bin/vllm\u201d, line 8, in", D.LOG),
    ("(APIServer pid=3720) KeyboardInterrupt: terminated", D.LOG),
    ("(EngineCore_DP0 pid=412) ERROR 01-26 09:25:37 [core.py:935] ValueError: x", D.LOG),
    ("INFO 12-01 10:00:00 [api_server.py:1] vLLM API server version 0.11.0", D.LOG),
    ("WARNING 05-22 10:02:31 [interface.py:729] Using 'pin_memory=False' as WSL is detected.", D.LOG),
    ("ERROR:    [Errno 98] error while attempting to bind on address ('0.0.0.0', 8000): address already in use",
     D.LOG),
    ("2024-02-08T08:40:56.161618385Z Traceback (most recent call last):", D.LOG),
    ('  File "/usr/local/lib/python3.12/dist-packages/uvloop/__init__.py", line 109, in run', D.LOG),
    ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB.", D.LOG),
    ("           ^^^^^^^^^^^^^^", D.LOG),
    ("Loading safetensors checkpoint shards:  50% Completed | 2/4 [00:10<00:10,  5.0s/it]", D.LOG),
    ("/tmp/v/lib/python3.11/site-packages/vllm/triton_utils/dispatcher.py:138: FutureWarning: x", D.LOG),
    ("> ValueError: Total number of attention heads (32) must be divisible by tensor parallel size (3).", D.LOG),
    ("  **ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0.**", D.LOG),
    ("`vllm: error: unrecognized arguments: --config`", D.LOG),
    ("usage: vllm [-h] [-v] {chat,complete,serve,bench,collect-env,run-batch} ...", D.LOG),
    ("nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.4, please update your driver to a "
     "newer version, or use an earlier cuda container: unknown.", D.LOG),
    ("valueerror: loading internvl2-8b/ requires you to execute the configuration file in that repo on your local "
     "machine.", D.LOG),
    # prose (the corpus post's advice) and markdown
    (u"\u65e5\u5fd7\u7279\u5f81\uff1a\u5b50\u8fdb\u7a0b\u65e5\u5fd7\u542b CUDA out of memory / cannot allocate tensor",
     D.PROSE),
    ("### Your current environment", D.PROSE),
    ("I tried to run Qwen3-VL with vllm serve and got the following error:", D.PROSE),
    ("Does anyone know how to fix this?", D.PROSE),
    # commands: what someone typed or suggests typing
    ("pip install -U vllm==0.6.3", D.COMMAND),
    ("$ vllm serve Qwen/Qwen3-VL-8B-Instruct --max-model-len 8192", D.COMMAND),
    ("--tensor-parallel-size 1 \\", D.COMMAND),
    ("--log-level debug --enable-metrics", D.COMMAND),
    # a shell's `set -x` trace, not a markdown list; a "+" list item that reads as prose stays prose
    ("+ docker logs vllm-service", D.COMMAND),
    ("+ [[ 0 -ge 200 ]]", D.COMMAND),
    ("++ MODEL_DIR=/models/qwen", D.COMMAND),
    ("+ I tried the fix from the docs but it did not help", D.PROSE),
    # no signal of its own
    ("    return self._loop.run_until_complete(task)", D.NEUTRAL),
    ("# GPU blocks: 0, # CPU blocks: 2048", D.NEUTRAL),  # vLLM 0.x without its header, not a heading
    ("Killed", D.LOG),
    ("```", D.FENCE),
    ("", D.BLANK),
])
def test_classify_line(raw, label):
    assert D.classify_line(raw) == label


def test_prose_sandwiched_in_a_traceback_is_kept():
    # transformers' own message reads like prose ("You can ..."): between log lines it is log
    raws = ["I ran the server and got this:", "Please help, what should I do?", "Thanks in advance for any help.",
            "Traceback (most recent call last):",
            '  File "/x/transformers/dynamic_module_utils.py", line 598, in resolve_trust_remote_code',
            "You can avoid this prompt in future by passing the argument `trust_remote_code=True`.",
            "EOFError: EOF when reading a line"]
    assert D.log_line_mask(raws) == [False, False, False, True, True, True, True]


def test_command_output_is_log_and_the_command_is_not():
    raws = ["Here is what I did, and you can see it fails:", "We use WSL2 and I have a 4090.",
            "My environment is below, please have a look.",
            "$ python -m vllm.entrypoints.openai.api_server --port 8000", "Killed"]
    assert D.log_line_mask(raws) == [False, False, False, False, True]


def test_a_sentence_quoting_the_error_is_weaker_evidence_than_the_log_line():
    log = (u"\u90e8\u7f72\u62a5\u9519 Total number of attention heads (40) must be divisible by tensor parallel "
           "size (6)\n\n[rank0]: ValueError: Total number of attention heads (40) must be divisible by tensor "
           "parallel size (6).\n")
    assert D.diagnose(log)["evidence"].startswith("[rank0]: ValueError: Total number")


def test_a_little_prose_keeps_the_whole_text():
    raws = ["Refer to the documentation on how to address the out of memory issue: https://docs.ray.io/",
            "Killed"]
    assert D.log_line_mask(raws) == [True, True]


# ---------------------------------------------------------------------------------------------
# No regressions: every plain log is read whole
# ---------------------------------------------------------------------------------------------

PLAIN_LOGS = sorted(glob.glob(os.path.join(ROOT, "tests", "fixtures", "logs*", "*.log"))
                    + glob.glob(os.path.join(CORPUS, "logs", "*.log")))


@pytest.mark.parametrize("path", PLAIN_LOGS, ids=[os.path.basename(p) for p in PLAIN_LOGS])
def test_plain_logs_are_all_log(path):
    assert all(D.log_line_mask(D.split_lines(_read(path))))
    assert D.diagnose(_read(path))["ignored_lines"] == 0


# ---------------------------------------------------------------------------------------------
# The post this project started from
# ---------------------------------------------------------------------------------------------

@pytest.mark.skipif(not os.path.exists(CORPUS_POST), reason="shared corpus post not present")
def test_corpus_post_names_the_video_warmup():
    text = _read(CORPUS_POST)
    result = D.diagnose(text)
    assert result["category"] == "multimodal_processor", result
    assert result["cause"] == "mm_warmup_interrupted"
    assert "_warmup_mm_processor" in result["evidence"]
    assert "limit_mm_per_prompt: '{\"video\": 0}'" in result["fix"]
    assert "/mnt/" in result["fix"] and "vllm_python_root" in result["fix"]
    facts = " ".join(result["contributing_facts"])
    assert "/mnt/c/Users/AI-Space001/venv-vllm/" in facts and "stopped while it was still starting" in facts
    assert "(KeyboardInterrupt: terminated)" in facts and "(KeyboardInterrupt: terminated)" in result["fix"]
    # the prose is not read: its suggested version, its search words, its flags
    assert result["ignored_lines"] >= 60
    assert "0.6.3" not in result["fix"]
    assert not any(o["category"] in ("gpu_oom", "host_oom") for o in result["other_findings"])
    facts = D.gather_facts(D.parse(text, log_only=True)[0])
    assert facts["vllm_version"] is None and facts["python"] == "3.14"


def test_nothing_also_seen_outranks_the_headline():
    log = ("INFO 01-01 10:00:00 [api_server.py:1] vLLM API server version 0.11.0\n"
           "ValueError: Total number of attention heads (32) must be divisible by tensor parallel size (3).\n"
           "INFO 01-01 10:05:00 [api_server.py:1] vLLM API server version 0.11.0\n"
           "WARNING 05-22 10:02:31 [interface.py:729] Using 'pin_memory=False' as WSL is detected.\n"
           "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}\n")
    result = D.diagnose(log)
    assert result["other_findings"]
    assert all(o["confidence"] <= result["confidence"] for o in result["other_findings"])


# ---------------------------------------------------------------------------------------------
# Real posts collected from public trackers and forums (tests/fixtures/posts/labels.tsv)
# ---------------------------------------------------------------------------------------------

def _post_cases():
    path = os.path.join(POSTS, "labels.tsv")
    if not os.path.exists(path):
        return []
    with open(path, newline="", encoding="utf-8") as handle:
        return [(row["file"], row["category"], row["cause"]) for row in csv.DictReader(handle, delimiter="\t")]


POST_CASES = _post_cases()


@pytest.mark.parametrize("name,category,cause", POST_CASES, ids=[c[0] for c in POST_CASES])
def test_collected_posts(name, category, cause):
    text = _read(os.path.join(POSTS, name))
    result = D.diagnose(text)
    assert result["category"] == category, (result["category"], result.get("cause"), result["evidence"])
    if cause:
        assert result.get("cause") == cause, (result.get("cause"), result["evidence"])
    assert result["evidence"].strip() in text
    assert all(o["confidence"] <= result["confidence"] for o in result["other_findings"])


def test_at_least_ten_posts_are_collected_with_sources():
    assert len(POST_CASES) >= 10
    names = set(os.listdir(POSTS)) - {"labels.tsv", "README.md"}
    assert names == set(name for name, _, _ in POST_CASES)
    # most of them carry enough prose that the doctor must leave it out
    mixed = [name for name, _, _ in POST_CASES if D.diagnose(_read(os.path.join(POSTS, name)))["ignored_lines"]]
    assert len(mixed) >= 4, mixed


def test_shell_prompts_are_commands_and_their_output_is_log():
    # the shape of zai-org/GLM-V#162: a prompt with the command, its continuation lines, then the output
    raws = [u"\u542f\u52a8", u"\u5185\u5b58\u589e\u52a0", u"\u62a5\u9519\uff1a",
            "(llama-factory) root@cdss-server13:/home/szs# vllm serve /home/szs/GLM-4.5V-FP8 \\",
            "     --tensor-parallel-size 8 \\", "     --allowed-local-media-path /",
            "INFO 08-26 09:11:57 [__init__.py:241] Automatically detected platform cuda."]
    assert D.classify_line(raws[3]) == D.COMMAND
    assert D.classify_line("PS C:\\Users\\me> vllm serve Qwen/Qwen3-8B") == D.COMMAND
    assert D.classify_line("(glm) PS D:\\Open-AutoGLM> python -m vllm.entrypoints.openai.api_server --port 8000") \
        == D.COMMAND
    assert D.classify_line("D:\\AI-Apps\\vLLM2>uv pip install uvloop") == D.COMMAND
    assert D.log_line_mask(raws) == [False] * 6 + [True]


def test_log_messages_that_read_like_sentences_do_not_make_a_long_log_a_post():
    log = ["(EngineCore_DP0 pid=1) INFO 01-01 00:00:%02d [core.py:1] step %d" % (i % 60, i) for i in range(80)]
    log[10] = "You are using a model of type qwen2 to instantiate a model of type llama. This is not supported."
    log[40] = "There was a problem when trying to write in your cache folder (/nonexistent/.cache/huggingface/hub)."
    log[41] = "You should set the environment variable TRANSFORMERS_CACHE to a writable directory."
    log[42] = "Please make sure you have read the code there to avoid malicious use, then set the option."
    assert all(D.log_line_mask(log))


def test_a_stop_after_the_multimodal_profiling_finished_is_not_blamed_on_it():
    log = ('(EngineCore_DP0 pid=5) INFO 01-01 00:00:00 [gpu_model_runner.py:1] Starting profile run for multi-modal '
           'encoder.\n'
           '(EngineCore_DP0 pid=5) INFO 01-01 00:00:30 [gpu_worker.py:1] Available KV cache memory: 13.69 GiB\n'
           '(EngineCore_DP0 pid=5) INFO 01-01 00:00:31 [gpu_model_runner.py:1] Capturing CUDA graphs: 40%\n'
           '(APIServer pid=1) KeyboardInterrupt: terminated\n')
    assert D.diagnose(log).get("cause") != "mm_warmup_interrupted"


def test_what_a_sentence_ending_in_a_colon_introduces_is_log():
    post = ("I am serving Qwen2.5-7B on my 3090 and it never starts.\n"
            "I tried a lower max-model-len but it did not help, and we have no other process on the GPU.\n"
            "(APIServer pid=1) INFO 01-01 00:00:00 [api_server.py:1] vLLM API server version 0.8.5\n"
            "When I start the server I get this error:\n"
            "No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing "
            "the engine.\n"
            "Does anyone know what to do?\n")
    result = D.diagnose(post)
    assert result["category"] == "gpu_oom", result
    assert result["ignored_lines"] == 4


def test_two_lines_of_advice_are_enough_to_be_left_out():
    post = ("If you see CUDA out of memory, lower the gpu memory utilization and try again.\n"
            "You should also check that nothing else is using the port.\n"
            "(APIServer pid=1) File \"/x/vllm/multimodal/processing.py\", line 1, in _call_hf_processor\n"
            "(APIServer pid=1) KeyError: 'video_grid_thw'\n")
    result = D.diagnose(post)
    assert result["category"] == "multimodal_processor", result
    assert result["ignored_lines"] == 2
    assert result["other_findings"] == []


def test_a_post_with_no_log_line_is_read_whole():
    post = ("### Anything you want to discuss about vllm.\n\n"
            "I want to deploy it, but there is a problem:Total number of attention heads (40) must be divisible by "
            "tensor parallel size (6).how could I do?\n")
    result = D.diagnose(post)
    assert result["category"] == "tensor_parallel_config"
    assert result["ignored_lines"] == 0
