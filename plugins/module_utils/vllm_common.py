# -*- coding: utf-8 -*-
"""The small helpers every other file of the project uses, in one place.

Pure Python (stdlib only; PyYAML when installed): used by the modules as
``ansible_collections.vllm_ops.workstation.plugins.module_utils.vllm_common``, by the other
module_utils files as ``from .vllm_common import ...``, by the filters and scripts as the package
``module_utils`` (``plugins/`` on ``sys.path``), by the callbacks with ``plugins/module_utils`` on
``sys.path``.

* ``atomic_write``: a file replaced in one rename, never written through a link;
* ``version_tuple``: '570.211.01' -> (570, 211, 1);
* ``option_key`` / ``option_flag``: vLLM option names ('--max-model-len', 'max_model_len');
* ``parse_yaml`` / ``read_yaml``: YAML with PyYAML, JSON (a subset of YAML) without it.

Not imported by the files copied to the hosts alone (vllm_launcher.py, the doctor's vllm_doctor*.py).
"""

from __future__ import absolute_import, division, print_function

import binascii
import errno
import json
import os
import re

__metaclass__ = type

_NEW_FILE = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
             | getattr(os, "O_CLOEXEC", 0))


# --------------------------------------------------------------------------- files

def _new_temp(path, mode):
    """(fd, name) of a new file beside ``path``: a fresh name, O_EXCL|O_NOFOLLOW, so neither an
    existing file nor a link planted under a guessable name is ever written through."""
    directory, base = os.path.split(os.path.abspath(path))
    for _ in range(100):
        tmp = os.path.join(directory, ".%s.%s.tmp" % (base, binascii.hexlify(os.urandom(4)).decode("ascii")))
        try:
            return os.open(tmp, _NEW_FILE, mode), tmp
        except OSError as exc:
            if exc.errno != errno.EEXIST:
                raise
    raise OSError(errno.EEXIST, "no free temporary name beside %s" % path)


def atomic_write(path, data, mode=0o666, chmod=None, like=None, fsync=True):
    """Replace ``path`` with ``data`` (bytes; text is written as UTF-8) in one rename.

    The bytes go to a new temporary file in the same folder (see _new_temp), are fsync'd
    (``fsync=False``: not, for a file rewritten often that needs no durability) and the file is
    renamed over ``path`` (a link at ``path`` is replaced, not followed). On any error the
    temporary file is removed and ``path`` is left as it was.

    Modes, as each caller had them: ``mode`` is the mode the file is created with (the umask
    applies, as with ``open()``); ``chmod`` a mode set afterwards (the umask does not apply);
    ``like`` an ``os.stat_result`` whose mode (and owner, as root) the new file takes, where the
    file system allows it (drvfs without metadata does not: ignored).
    """
    if not isinstance(data, bytes):
        data = data.encode("utf-8")
    fd, tmp = _new_temp(path, mode)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if fsync:
                os.fsync(handle.fileno())
        if chmod is not None:
            os.chmod(tmp, chmod)
        if like is not None:
            try:
                os.chmod(tmp, like.st_mode & 0o7777)
                if os.geteuid() == 0:
                    os.chown(tmp, like.st_uid, like.st_gid)
            except OSError:
                pass
        os.rename(tmp, path)
    except BaseException:
        if os.path.lexists(tmp):
            os.unlink(tmp)
        raise


def json_text(data, **kwargs):
    """``json.dump(data, handle, **kwargs)`` and a newline, as text (what the writers store)."""
    return json.dumps(data, **kwargs) + "\n"


# --------------------------------------------------------------------------- versions

def version_tuple(text):
    """'570.211.01' -> (570, 211, 1); the leading dotted number only ('12.8.1rc2' -> (12, 8, 1));
    None or junk -> None."""
    if text is None:
        return None
    m = re.match(r"^\s*(\d+(?:\.\d+)*)", str(text))
    if not m:
        return None
    return tuple(int(p) for p in m.group(1).split("."))


# --------------------------------------------------------------------------- option names

def option_key(name, strip=False, dashes=True):
    """A vLLM option's name as a key: '--max-model-len' / 'max-model-len' / 'max_model_len'
    -> 'max_model_len'. ``strip``: white space around the name is dropped first; ``dashes=False``:
    leading dashes are kept (and turned into underscores like the others)."""
    name = str(name)
    if strip:
        name = name.strip()
    if dashes:
        name = name.lstrip("-")
    return name.replace("-", "_")


def option_flag(name):
    """A vLLM option's name as its flag, without the dashes: '--max_model_len' /
    ' max-model-len' / 'max_model_len' -> 'max-model-len'."""
    return str(name).strip().lstrip("-").replace("_", "-")


# --------------------------------------------------------------------------- YAML

class NoYamlError(ValueError):
    """PyYAML is not installed and the text is not JSON either."""


def parse_yaml(text):
    """The data of a YAML text (PyYAML's safe_load); without PyYAML, of a JSON text (JSON is
    YAML), else NoYamlError (a ValueError). PyYAML's own errors pass through."""
    try:
        import yaml
    except ImportError:  # pragma: no cover - PyYAML is optional off the controller
        try:
            return json.loads(text)
        except ValueError as exc:
            raise NoYamlError("not JSON, and PyYAML is not installed to read it as YAML: %s" % exc)
    return yaml.safe_load(text)


def read_yaml(path):
    """parse_yaml of a file's text."""
    with open(path) as handle:
        return parse_yaml(handle.read())
