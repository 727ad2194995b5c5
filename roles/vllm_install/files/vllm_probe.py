"""Ask an installed vLLM for its ``--help=all`` text and its model architectures, in ONE process.

Run with the release's own Python at the end of the install (vllm_install)::

    <venv>/bin/python vllm_probe.py --venv VENV --help-file FILE --archs-file FILE -- bin/python -m MODULE

The words after ``--`` are the server command relative to the venv (``bin/vllm serve`` or
``bin/python -m vllm.entrypoints.openai.api_server``). The command runs inside this process
(runpy) with ``--help=all`` added, its stdout going to the help file exactly as a shell
redirect would write it; the same import of vLLM then gives ``ModelRegistry``'s architectures
and the model classes transformers knows, as JSON. Each file is written beside its final name
and renamed into place only when complete, so a failed probe leaves no half file.

A CUDA build on a host where it sees no GPU cannot even build its parser ("Failed to infer
device type"): the probe then runs itself once more with ``VLLM_TARGET_DEVICE=cpu`` (the same
build) and says so on stdout. Any other failure prints vLLM's error output and exits 1.
"""
import json
import os
import runpy
import subprocess
import sys

NO_DEVICE_MARKER = "Failed to infer device type"
RETRY_NOTE = "no GPU visible here: the options were read with VLLM_TARGET_DEVICE=cpu from the same build"
HELP_FLAG = "--help=all"


class ProbeError(Exception):
    """A server command this probe cannot run."""


def run_plan(venv, command):
    """How to run ``command`` (relative to ``venv``) in this process: ``(kind, target, argv)``.

    ``kind`` is ``module`` (``bin/python -m MODULE ARGS``: runpy.run_module) or ``script``
    (``bin/<console script> ARGS``: runpy.run_path); ``argv`` is what the command would see as
    ``sys.argv[1:]``, ``--help=all`` added.
    """
    command = list(command or [])
    if not command:
        raise ProbeError("no server command given after --")
    first = command[0]
    if os.path.isabs(first):
        raise ProbeError("the server command %r must be relative to the venv" % (command,))
    if os.path.basename(first).startswith("python"):
        if len(command) < 3 or command[1] != "-m":
            raise ProbeError("a python server command must be 'bin/python -m MODULE ...', got %r"
                             % (command,))
        return "module", command[2], command[3:] + [HELP_FLAG]
    return "script", os.path.join(venv, first), command[1:] + [HELP_FLAG]


def needs_cpu_retry(error_text, environ):
    """True when a CUDA build saw no GPU and this process did not already try the CPU target."""
    return NO_DEVICE_MARKER in (error_text or "") and not environ.get("VLLM_TARGET_DEVICE")


def exit_ok(code):
    """argparse ends ``--help`` with SystemExit(0) (or None); anything else is a failure."""
    return code in (None, 0)


def archs_payload(vllm_archs, mappings):
    """The architecture list as the model preflight reads it: vLLM's own architectures and the
    model classes of transformers' causal-LM and image-text-to-text mappings (values are a
    class name or a tuple of them)."""
    classes = set()
    for mapping in mappings:
        for value in mapping.values():
            classes.update([value] if isinstance(value, str) else value)
    return {"vllm": sorted(vllm_archs), "transformers": sorted(classes)}


def tmp_name(path):
    return "%s.tmp" % path


def write_json_atomic(path, payload):
    """json.dump (default separators, no newline) to ``path.tmp``, fsync, rename."""
    tmp = tmp_name(path)
    with open(tmp, "w") as handle:
        json.dump(payload, handle)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def _run_help(kind, target, argv, help_file, err_file):
    """Run the server command's ``--help=all`` here with fd 1 on ``help_file.tmp`` and fd 2 on
    ``err_file``; return ``(ok, error_text)``."""
    tmp = tmp_name(help_file)
    saved_out, saved_err = os.dup(1), os.dup(2)
    ok = False
    with open(tmp, "wb") as out, open(err_file, "wb") as err:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(out.fileno(), 1)
        os.dup2(err.fileno(), 2)
        try:
            if kind == "module":
                sys.argv = [target] + argv  # run_module puts the module's file in argv[0]
                runpy.run_module(target, run_name="__main__", alter_sys=True)
            else:
                sys.argv = [target] + argv
                runpy.run_path(target, run_name="__main__")
            ok = True  # a command that prints its help without SystemExit
        except SystemExit as stop:
            ok = exit_ok(stop.code)
            if not ok:
                sys.stderr.write("exit status %r\n" % (stop.code,))
        except BaseException:  # noqa: BLE001 - vLLM's error text decides, reported below
            import traceback
            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved_out, 1)
            os.dup2(saved_err, 2)
            os.close(saved_out)
            os.close(saved_err)
    with open(err_file, "r", errors="replace") as handle:
        error_text = handle.read()
    return ok, error_text


def _write_archs(archs_file):
    from vllm.model_executor.models import ModelRegistry
    from transformers.models.auto import modeling_auto as auto
    write_json_atomic(archs_file, archs_payload(
        ModelRegistry.get_supported_archs(),
        (auto.MODEL_FOR_CAUSAL_LM_MAPPING_NAMES, auto.MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES)))


def parse_args(argv):
    """``(venv, help_file, archs_file, command)`` from this script's own arguments."""
    if "--" not in argv:
        raise ProbeError("usage: vllm_probe.py --venv VENV --help-file FILE --archs-file FILE "
                         "-- SERVER COMMAND")
    split = argv.index("--")
    own, command = argv[:split], argv[split + 1:]
    values = {}
    it = iter(own)
    for word in it:
        if word not in ("--venv", "--help-file", "--archs-file"):
            raise ProbeError("unknown argument %r (accepted: --venv, --help-file, --archs-file)" % word)
        try:
            values[word] = next(it)
        except StopIteration:
            raise ProbeError("%s needs a value" % word)
    missing = [k for k in ("--venv", "--help-file", "--archs-file") if k not in values]
    if missing:
        raise ProbeError("missing %s" % ", ".join(missing))
    return values["--venv"], values["--help-file"], values["--archs-file"], command


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    try:
        venv, help_file, archs_file, command = parse_args(argv)
        kind, target, run_argv = run_plan(venv, command)
    except ProbeError as err:
        sys.stderr.write("vllm_probe: %s\n" % err)
        return 2
    err_file = "%s.err" % help_file
    ok, error_text = _run_help(kind, target, run_argv, help_file, err_file)
    if not ok:
        if os.path.exists(tmp_name(help_file)):
            os.unlink(tmp_name(help_file))
        if needs_cpu_retry(error_text, os.environ):
            env = dict(os.environ, VLLM_TARGET_DEVICE="cpu")
            rc = subprocess.call([sys.executable, os.path.abspath(__file__)] + list(argv), env=env)
            if rc == 0:
                print(RETRY_NOTE)
            return rc
        sys.stderr.write(error_text)
        return 1
    os.unlink(err_file)
    os.replace(tmp_name(help_file), help_file)
    _write_archs(archs_file)
    return 0


if __name__ == "__main__":
    sys.exit(main())
