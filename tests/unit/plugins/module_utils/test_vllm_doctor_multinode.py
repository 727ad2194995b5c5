"""The doctor names the multi-node failures: NCCL, Gloo, Ray placement, vLLM's --nnodes options."""
import pytest

import vllm_doctor as D

CASES = [
    ("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, "
     "unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5\n", "nccl_system_error"),
    ("NCCL error: remote process exited or there was a network error\n", "nccl_network"),
    ("RuntimeError: Gloo connectFullMesh failed with [../third_party/gloo/gloo/transport/tcp/pair.cc:144] no error\n",
     "nccl_network"),
    ("RuntimeError: Unable to find address for: eth1\n", "nccl_network"),
    ("torch.distributed.DistStoreError: Timed out after 601 seconds waiting for clients. 1/2 clients joined.\n",
     "nccl_network"),
    ("(autoscaler +7s) Error: No available node types can fulfill resource request {'GPU': 1.0}. Add suitable node "
     "types to this cluster to resolve this issue.\n", "ray_resources_unavailable"),
    ("(autoscaler +12s) Error: No available node types can fulfill resource request {'GPU': 1.0, "
     "'node:10.0.0.5': 0.001}. Add suitable node types to this cluster to resolve this issue.\n",
     "ray_node_ip_mismatch"),
    ("ValueError: Invalid data-parallel launch options: `--nnodes 3` must evenly divide the total world size (2). "
     "Adjust `--nnodes`, `--data-parallel-size`, `--pipeline-parallel-size`, `--tensor-parallel-size`, or "
     "`--prefill-context-parallel-size`.\n", "multinode_launch_options"),
    ("ValueError: Invalid data-parallel launch options: `--node-rank` must be between 0 and 1; got "
     "`--node-rank 2`. Set it to this node's zero-based index.\n", "multinode_launch_options"),
]


@pytest.mark.parametrize("log,cause", CASES, ids=["%s-%d" % (c[1], i) for i, c in enumerate(CASES)])
def test_multinode_failures_are_named(log, cause):
    result = D.diagnose(log)
    assert result["category"] == "tensor_parallel_config"
    assert result["cause"] == cause, (result.get("cause"), result["evidence"])
    assert result["fix"] and "No known cause" not in result["fix"]


def test_the_real_cpu_pipeline_parallel_failure_is_named():
    from vllm_testlib import ROOT
    import os
    with open(os.path.join(ROOT, "tests", "fixtures", "logs_cpu", "multinode", "pp2_worker.log")) as handle:
        result = D.diagnose(handle.read())
    assert result["cause"] == "pp_intermediate_tensors_missing"
    assert "vllm_cluster_pipeline_parallel_size: 1" in result["fix"]
