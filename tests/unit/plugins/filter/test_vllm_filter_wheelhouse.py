"""The wheelhouse filters as tasks call them."""

import pytest

from vllm_testlib import load_filter


vllm_filter = load_filter()

TARGET = {"implementation": "cpython", "version": [3, 11], "machine": "x86_64", "libc": ["glibc", "2.36"]}


def test_filters_are_registered():
    filters = vllm_filter.FilterModule().filters()
    assert filters["vllm_wheelhouse_jobs"] is vllm_filter.vllm_wheelhouse_jobs
    assert filters["vllm_pip_source_args"]("", [], ["/opt/wheels"]) == ["--find-links=/opt/wheels"]


def test_jobs_from_host_facts():
    jobs = vllm_filter.vllm_wheelhouse_jobs([{"host": "a", "lock": "idna==3.10\n", "target": TARGET},
                                             {"host": "b", "lock": "idna==3.10\n", "target": TARGET}])
    assert len(jobs) == 1 and jobs[0]["hosts"] == ["a", "b"]


def test_unusable_facts_fail_the_task_naming_the_host():
    with pytest.raises(vllm_filter.AnsibleFilterError, match="vllm_wheelhouse_jobs: ws-07: the target's"):
        vllm_filter.vllm_wheelhouse_jobs([{"host": "ws-07", "lock": "idna==3.10\n",
                                           "target": dict(TARGET, implementation="graalpy")}])
