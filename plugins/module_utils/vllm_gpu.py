# -*- coding: utf-8 -*-
"""GPU facts from ``nvidia-smi`` output, as plain data.

Pure Python (stdlib only): used by the Ansible modules as ``ansible_collections.vllm_ops.workstation.plugins.module_utils.vllm_gpu``,
by ``scripts/plan`` and by the unit tests. Nothing here runs a command.

What ``nvidia-smi`` prints varies a lot, and all of it is parsed here:

* the query interface (``--query-gpu=... --format=csv``), with or without the header line,
  with or without units, and the error an old driver prints for a field it does not know
  (``Field "compute_cap" is not a valid field to query.``);
* the plain table, every layout since the 3xx drivers: the old 79-column one, the
  87/89-column ones of the 5xx drivers, Windows ``nvidia-smi.exe`` (``TCC/WDDM``), WSL
  (the ``NVIDIA-SMI`` number is the Linux-side library, ``Driver Version`` the Windows
  driver), ``CUDA Version: ERR!``, memory ``Not Supported`` (GB10), and the newest drivers
  that print ``KMD Version`` / ``CUDA UMD Version``; pasted output with prompts, ``watch``
  headers or other text around it, and output cut off half-way;
* ``nvidia-smi -q`` (``==============NVSMI LOG==============``).

Whatever cannot be read is ``None`` and a line in ``warnings`` says why.
"""

from __future__ import absolute_import, division, print_function

import os
import re

from .vllm_common import read_yaml, version_tuple

__metaclass__ = type

# The query we prefer. compute_cap exists from driver 510 on; older drivers reject the whole
# query with 'Field "compute_cap" is not a valid field to query.': run QUERY_ARGS_FALLBACK then.
# uuid comes last: stand-ins that print the first six columns still parse (uuid None).
QUERY_FIELDS = ("index", "name", "memory.total", "memory.used", "driver_version", "compute_cap", "uuid")
QUERY_FIELDS_FALLBACK = ("index", "name", "memory.total", "memory.used", "driver_version", "uuid")
QUERY_ARGS = ["--query-gpu=" + ",".join(QUERY_FIELDS), "--format=csv,noheader,nounits"]
QUERY_ARGS_FALLBACK = ["--query-gpu=" + ",".join(QUERY_FIELDS_FALLBACK), "--format=csv,noheader,nounits"]

# NVIDIA's "CUDA Toolkit and Corresponding Driver Versions" table is data: cuda_driver_minimums
# in data/vllm_compat.yml (CUDA -> the oldest Linux and Windows driver of its GA release). The
# module is given it as an option (the vllm_host_facts role reads the file); the scripts read the
# file (use_cuda_driver_minimums); anything else running from this repository reads the file the
# first time it is needed. Off the repository and never given, the table is empty: no CUDA
# version is derived from a driver number.
DEFAULT_COMPAT_TABLE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                    "data", "vllm_compat.yml")
_DRIVER_ROWS = None  # [(cuda, linux minimum, windows minimum)], newest CUDA first; None: not read yet

# Compute capability by product name, for outputs that do not carry compute_cap (the table,
# old drivers). From NVIDIA's CUDA GPUs list. Checked in order: first match wins, so more
# specific patterns come first. Matched case-insensitively against the name with any
# "NVIDIA "/"GeForce "/"Tesla "/"Quadro " prefix kept (patterns are searched, not anchored).
_CC_BY_NAME = (
    # Blackwell
    (r"\bGB10\b", "12.1"),
    (r"\bRTX\s*PRO\s*\d{4}.*Blackwell", "12.0"),
    (r"\bRTX\s*50[5-9]0", "12.0"),
    (r"\bB300\b|\bGB300\b", "10.3"),
    (r"\bB200\b|\bGB200\b|\bB100\b", "10.0"),
    (r"\bThor\b", "11.0"),
    # Hopper
    (r"\bH100\b|\bH200\b|\bH800\b|\bH20\b|\bGH200\b", "9.0"),
    # Ada
    (r"\bRTX\s*40[5-9]0", "8.9"),
    (r"\bL40S?\b|\bL4\b|\bL20\b", "8.9"),
    (r"RTX\s*\d{4}\s*Ada|RTX\s*[\d]+\s*Ada Generation", "8.9"),
    # Ampere
    (r"\bA100\b|\bA800\b|\bA30\b", "8.0"),
    (r"\bRTX\s*30[5-9]0", "8.6"),
    (r"\bA10G?\b|\bA16\b|\bA2\b|\bA40\b", "8.6"),
    (r"\bRTX\s*A\d{4}\b|\bA[2456]000\b", "8.6"),
    (r"\bOrin\b", "8.7"),
    # Turing
    (r"\bRTX\s*20[6-8]0|\bRTX\s*207", "7.5"),
    (r"\bGTX\s*16[5-6]0", "7.5"),
    (r"\bT4\b|\bT1000\b|\bT[46]00\b|\bT1200\b", "7.5"),
    (r"Quadro\s*RTX\s*\d{4}|\bTITAN\s*RTX\b", "7.5"),
    (r"\bMX[45]50\b", "7.5"),
    # Volta
    (r"\bV100\b|\bTITAN\s*V\b|\bQuadro\s*GV100\b", "7.0"),
    # Pascal
    (r"\bP100\b", "6.0"),
    (r"\bGTX\s*10[5-8]0|\bP40\b|\bP4\b|\bP6000\b|\bTITAN\s*Xp?\b|\bMX[1-3]50\b|\bMX2[35]0\b", "6.1"),
    # Maxwell
    (r"\bGTX\s*9[5-8]0|\bM40\b|\bM60\b|\bGTX\s*TITAN\s*X\b|\b9[2-4]0MX\b", "5.2"),
    (r"\bGTX\s*750|\bGTX\s*9[456]0M\b", "5.0"),
    # Kepler
    (r"\bK80\b", "3.7"),
    (r"\bGTX\s*780|\bGTX\s*TITAN\b|\bK40\b|\bK20\b", "3.5"),
    (r"\bGTX\s*6[5-9]0|\bGTX\s*770\b|\bK10\b", "3.0"),
)


def driver_rows(minimums):
    """[(cuda, linux minimum, windows minimum)], newest CUDA first, from a table's
    ``cuda_driver_minimums`` mapping (``{"12.8": {"linux": "570.26", "windows": "570.65"}}``)."""
    rows = [(str(cuda), str(mins["linux"]), str(mins["windows"])) for cuda, mins in (minimums or {}).items()]
    return sorted(rows, key=lambda row: version_tuple(row[0]) or (), reverse=True)


def load_cuda_driver_minimums(path=None):
    """``cuda_driver_minimums`` of data/vllm_compat.yml (or of the table at ``path``: YAML, or JSON
    without PyYAML); {} when the file is not there."""
    path = path or DEFAULT_COMPAT_TABLE
    if not os.path.isfile(path):
        return {}
    data = read_yaml(path)
    minimums = data.get("cuda_driver_minimums") if isinstance(data, dict) else None
    return minimums if isinstance(minimums, dict) else {}


def use_cuda_driver_minimums(minimums):
    """The table cuda_from_driver and min_driver_for_cuda read from now on, when not given one."""
    global _DRIVER_ROWS  # pylint: disable=global-statement
    _DRIVER_ROWS = driver_rows(minimums)


def _driver_rows(minimums=None):
    if minimums is not None:
        return driver_rows(minimums)
    if _DRIVER_ROWS is None:
        use_cuda_driver_minimums(load_cuda_driver_minimums())
    return _DRIVER_ROWS


def cuda_from_driver(driver_version, windows=False, minimums=None):
    """Newest CUDA a driver supports, from NVIDIA's table (``minimums``, else the one in use, see
    use_cuda_driver_minimums); None when unknown.

    ``windows`` selects the Windows column: under WSL2 ``Driver Version`` is the Windows
    driver's number (537.13 -> 12.2, 591.86 -> 13.1).
    """
    drv = version_tuple(driver_version)
    if drv is None:
        return None
    col = 2 if windows else 1
    for row in _driver_rows(minimums):
        if drv >= version_tuple(row[col]):
            return row[0]
    return None


def min_driver_for_cuda(cuda, windows=False, minimums=None):
    """Oldest driver (string) whose newest supported CUDA is at least ``cuda``; None if unknown."""
    want = version_tuple(cuda)
    if want is None:
        return None
    best = None
    for row in _driver_rows(minimums):
        if version_tuple(row[0]) >= want[:2]:
            best = row[2 if windows else 1]
    return best


def compute_capability_from_name(name):
    """Compute capability ('8.6') guessed from a product name; None when not known."""
    if not name:
        return None
    for pattern, cc in _CC_BY_NAME:
        if re.search(pattern, name, re.IGNORECASE):
            return cc
    return None


# --------------------------------------------------------------------------- helpers

_NA = ("", "n/a", "[n/a]", "na", "not supported", "[not supported]", "unknown error",
       "[unknown error]", "err!", "[err!]", "insufficient permissions", "[insufficient permissions]")


def _clean(value):
    if value is None:
        return None
    value = value.strip().strip('"').strip()
    if value.lower() in _NA:
        return None
    return value


def _mib(value):
    """'24576 MiB' / '24576' / '23.5 GiB' / '4095MB' -> int MiB; None when not a size."""
    value = _clean(value)
    if value is None:
        return None
    m = re.match(r"^(\d+(?:\.\d+)?)\s*(MiB|MB|GiB|GB|KiB)?$", value, re.IGNORECASE)
    if not m:
        return None
    number = float(m.group(1))
    unit = (m.group(2) or "MiB").lower()
    if unit in ("gib", "gb"):
        number *= 1024
    elif unit == "kib":
        number /= 1024.0
    return int(round(number))


def _cc(value):
    value = _clean(value)
    if value is None:
        return None
    m = re.match(r"^(\d+)\.(\d+)$", value)
    if not m:
        return None
    return "%d.%d" % (int(m.group(1)), int(m.group(2)))


def _version(value):
    value = _clean(value)
    if value is None:
        return None
    m = re.match(r"^(\d+(?:\.\d+)+)$", value)
    return m.group(1) if m else None


def _new_gpu(index=None, name=None):
    return {
        "index": index,
        "name": name,
        "memory_total_mib": None,
        "memory_used_mib": None,
        "compute_capability": None,
        "compute_capability_source": None,
    }


def _result(source):
    return {
        "driver_version": None,
        "cuda_version": None,
        "cuda_version_from_driver": None,
        "nvidia_smi_version": None,
        "driver_platform": None,
        "wsl_suspected": False,
        "gpus": [],
        "source": source,
        "warnings": [],
    }


def _finish(res):
    """Fill compute capability from names, derive CUDA from the driver, sanity warnings."""
    for gpu in res["gpus"]:
        if gpu["compute_capability"] is None:
            cc = compute_capability_from_name(gpu["name"])
            if cc is not None:
                gpu["compute_capability"] = cc
                gpu["compute_capability_source"] = "name"
            elif gpu["name"]:
                res["warnings"].append(
                    "GPU %s (%s): compute capability not reported and not known from the name"
                    % (gpu["index"], gpu["name"]))
        else:
            gpu["compute_capability_source"] = gpu["compute_capability_source"] or "query"
        if gpu["name"] and gpu["name"].endswith("..."):
            res["warnings"].append(
                "GPU %s: nvidia-smi truncated the name to %r" % (gpu["index"], gpu["name"]))
    if res["driver_version"]:
        windows = res["driver_platform"] == "windows" or res["wsl_suspected"]
        res["cuda_version_from_driver"] = cuda_from_driver(res["driver_version"], windows=windows)
    if not res["gpus"] and not any("no GPU" in w for w in res["warnings"]):
        res["warnings"].append("no GPU found in the %s output"
                               % ("NVML" if res["source"] == NVML_SOURCE else "nvidia-smi"))
    return res


# --------------------------------------------------------------------------- CSV query

# names nvidia-smi accepts in --query-gpu, mapped to ours
_FIELD_ALIASES = {
    "index": "index",
    "name": "name",
    "gpu_name": "name",
    "memory.total": "memory.total",
    "memory.used": "memory.used",
    "driver_version": "driver_version",
    "compute_cap": "compute_cap",
    "uuid": "uuid",
    "gpu_uuid": "uuid",
}
_KNOWN_QUERY_FIELDS = set(_FIELD_ALIASES) | {
    "timestamp", "count", "serial", "gpu_serial", "pci.bus_id", "gpu_bus_id",
    "pci.domain", "pci.bus", "pci.device", "pci.device_id", "pci.sub_device_id", "memory.free",
    "memory.reserved", "utilization.gpu", "utilization.memory", "temperature.gpu",
    "temperature.memory", "power.draw", "power.limit", "power.min_limit", "power.max_limit",
    "fan.speed", "pstate", "compute_mode", "vbios_version", "persistence_mode",
    "mig.mode.current", "mig.mode.pending", "clocks.sm", "clocks.mem", "clocks.gr",
    "clocks.current.graphics", "clocks.current.sm", "clocks.current.memory", "display_mode",
    "pcie.link.gen.current", "pcie.link.gen.max", "pcie.link.width.current",
    "pcie.link.width.max", "driver_model.current", "enforced.power.limit", "vgpu_driver_capability.heterogenous_multivGPU",
    "gpu_operation_mode.current", "ecc.mode.current", "inforom.img", "accounting.mode",
}


def _header_field(cell):
    """'memory.total [MiB]' -> 'memory.total'; None when the cell is not a field name."""
    cell = cell.strip().strip('"').strip()
    name = re.sub(r"\s*\[[^\]]*\]\s*$", "", cell).strip().lower()
    if name in _KNOWN_QUERY_FIELDS or re.match(r"^[a-z_]+(\.[a-z_]+)+$", name):
        return name
    return None


def _split_csv(line):
    return [c.strip() for c in line.split(",")]


_QUERY_ERROR = re.compile(r'Field "([^"]+)" is not a valid field to query', re.IGNORECASE)
_FAILURES = (
    (re.compile(r"NVIDIA-SMI has failed|couldn't communicate with the NVIDIA driver", re.I),
     "nvidia-smi could not talk to the driver (no driver loaded, or a driver/library mismatch)"),
    (re.compile(r"Failed to initialize NVML", re.I), "nvidia-smi failed to initialize NVML"),
    (re.compile(r"No devices were found", re.I), "nvidia-smi found no devices"),
    (re.compile(r"command not found|No such file or directory", re.I), "nvidia-smi is not installed here"),
    (re.compile(r"Segmentation fault", re.I), "nvidia-smi crashed (segmentation fault)"),
)


def _looks_like_query(text):
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    if not lines:
        return False
    if any(re.search(r"(?:NVIDIA-SMI|Driver Version:|KMD Version:|NVSMI LOG)", l) for l in lines):
        return False
    if any(_QUERY_ERROR.search(l) for l in lines):
        return True
    data = [l for l in lines if "," in l and not l.startswith(("$", "#", "nvidia-smi"))]
    if data:
        return True
    # a single-column query with a header line: "compute_cap\n8.9"
    return any(_header_field(l) for l in lines if " " not in l.strip())


def _guess_columns(rows):
    """Column roles for CSV without a header: best effort from the values themselves."""
    roles = {}
    width = max(len(r) for r in rows)
    for col in range(width):
        values = [r[col] for r in rows if col < len(r)]
        cleaned = [_clean(v) for v in values]
        present = [v for v in cleaned if v is not None]
        if not present:
            continue
        if all(re.match(r"^\d{3}\.\d{2,3}(\.\d{1,3})?$", v) for v in present) \
                and "driver_version" not in roles.values() and len(set(present)) == 1:
            roles[col] = "driver_version"
        elif all(re.match(r"^\d+(\.\d+)?\s*(MiB|MB|GiB)$", v, re.I) for v in present):
            roles[col] = "memory"
        elif all(re.match(r"^\d{1,2}\.\d$", v) for v in present) and "compute_cap" not in roles.values():
            roles[col] = "compute_cap"
        elif col == 0 and all(re.match(r"^\d{1,2}$", v) for v in present):
            roles[col] = "index"
        elif "name" not in roles.values() and all(
                re.search(r"[A-Za-z]", v) and not re.match(r"^(GPU-|0x|MIG-|\d{4,8}:)", v)
                and v.lower() not in ("default", "enabled", "disabled", "exclusive_process", "prohibited")
                and not re.match(r"^P\d{1,2}$", v) for v in present):
            roles[col] = "name"
    mem_cols = [c for c, r in roles.items() if r == "memory"]
    if mem_cols:
        for c in mem_cols:
            roles[c] = "memory.other"
        roles[mem_cols[0]] = "memory.total"  # nvidia-smi users ask total first by far most often
    return roles


def _parse_query(text, fields=None):
    res = _result("query")
    lines = [l.strip() for l in text.replace("\r", "").splitlines()]
    for line in lines:
        m = _QUERY_ERROR.search(line)
        if m:
            res["query_error"] = m.group(1)
            res["warnings"].append(
                'nvidia-smi rejected the query field "%s" (driver too old for it); '
                "run the query again without it" % m.group(1))
    names = None
    if fields:
        names = [_FIELD_ALIASES.get(f.strip().lower(), f.strip().lower()) for f in fields]
    else:
        for line in lines:  # an echoed command line tells the column order
            m = re.search(r"--query-gpu[= ]([A-Za-z0-9_.,]+)", line)
            if m:
                names = [_FIELD_ALIASES.get(f, f) for f in m.group(1).lower().split(",") if f]
                break
    rows = []
    header_seen = False
    for line in lines:
        if not line or _QUERY_ERROR.search(line):
            continue
        if re.search(r"--query-gpu|--format", line) or line.startswith(("$", "#", ">")):
            continue
        cells = _split_csv(line)
        header = [_header_field(c) for c in cells]
        if all(header) and not any(re.match(r"^[\d.]+$", c) for c in cells):
            names = [_FIELD_ALIASES.get(h, h) for h in header]
            header_seen = True
            continue
        if len(cells) == 1 and not re.match(r"^[\w .\-()\[\]/]+$", cells[0]):
            continue
        rows.append(cells)
    if not rows:
        if "query_error" not in res:
            res["warnings"].append("no GPU rows in the nvidia-smi query output")
        return res
    if names is None:
        roles = _guess_columns(rows)
        res["warnings"].append("CSV query output without a header: columns guessed from their values")
    else:
        roles = dict(enumerate(names))
        if not header_seen and not fields:
            res["warnings"].append("CSV query output without a header: columns taken from the echoed command")
    drivers = set()
    for pos, cells in enumerate(rows):
        gpu = _new_gpu()
        for col, value in enumerate(cells):
            role = roles.get(col)
            if role == "index":
                v = _clean(value)
                gpu["index"] = int(v) if v and v.isdigit() else None
            elif role == "name":
                gpu["name"] = _clean(value)
            elif role == "memory.total":
                gpu["memory_total_mib"] = _mib(value)
            elif role == "memory.used":
                gpu["memory_used_mib"] = _mib(value)
            elif role == "driver_version":
                v = _version(value)
                if v:
                    drivers.add(v)
            elif role == "compute_cap":
                gpu["compute_capability"] = _cc(value)
                if gpu["compute_capability"]:
                    gpu["compute_capability_source"] = "query"
            elif role == "uuid":
                v = _clean(value)
                if v and re.match(r"^(GPU|MIG)-[0-9A-Fa-f-]+$", v):
                    gpu["uuid"] = v
        if gpu["index"] is None:
            gpu["index"] = pos
        mem_cols = [c for c, r in roles.items() if r == "memory.total"]
        if mem_cols and gpu["memory_total_mib"] is None:
            shown = cells[mem_cols[0]] if mem_cols[0] < len(cells) else ""
            res["warnings"].append("GPU %s: memory.total not reported (%r)" % (gpu["index"], shown))
        res["gpus"].append(gpu)
    if drivers:
        res["driver_version"] = sorted(drivers, key=version_tuple)[0]
        if len(drivers) > 1:
            res["warnings"].append("GPUs report different driver versions: %s" % ", ".join(sorted(drivers)))
    res["warnings"].append("the query output does not show the CUDA version; it is derived from the driver")
    return res


# --------------------------------------------------------------------------- -q log

def _parse_log(text):
    res = _result("table")
    res["warnings"].append("parsed 'nvidia-smi -q' output")
    section = None
    gpu = None
    for raw in text.replace("\r", "").splitlines():
        line = raw.strip()
        if not line:
            continue
        m = re.match(r"^(Driver Version|KMD Version)\s*:\s*(\S+)", line)
        if m:
            res["driver_version"] = _version(m.group(2)) or res["driver_version"]
            continue
        m = re.match(r"^CUDA (?:UMD )?Version\s*:\s*(\S+)", line)
        if m:
            res["cuda_version"] = _version(m.group(1))
            if res["cuda_version"] is None:
                res["warnings"].append("CUDA Version shows %r" % m.group(1))
            continue
        if re.match(r"^GPU [0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d$", line):
            gpu = _new_gpu(index=len(res["gpus"]))
            res["gpus"].append(gpu)
            section = None
            continue
        if gpu is None:
            continue
        m = re.match(r"^Product Name\s*:\s*(.+)$", line)
        if m:
            gpu["name"] = _clean(m.group(1))
            continue
        m = re.match(r"^GPU UUID\s*:\s*((?:GPU|MIG)-[0-9A-Fa-f-]+)$", line)
        if m:
            gpu["uuid"] = m.group(1)
            continue
        if ":" not in line:
            section = line
            continue
        m = re.match(r"^(Total|Used)\s*:\s*(.+)$", line)
        if m and section == "FB Memory Usage":
            key = "memory_total_mib" if m.group(1) == "Total" else "memory_used_mib"
            gpu[key] = _mib(m.group(2))
            continue
        m = re.match(r"^Current\s*:\s*(WDDM|TCC|MCDM)$", line)
        if m and section == "Driver Model":
            # only Windows drivers have a driver model (nvidia-smi.exe, or WSL2 with the Windows
            # driver: a -q output alone cannot tell those two apart)
            res["driver_platform"] = "windows"
            continue
        m = re.match(r"^(?:Current|Compute Capability)\s*:\s*(\d+\.\d+)$", line)
        if m and section in ("CUDA Compute Capability", "Compute Capability"):
            gpu["compute_capability"] = _cc(m.group(1))
            gpu["compute_capability_source"] = "query"
    return res


# --------------------------------------------------------------------------- table

_HDR_SMI = re.compile(r"NVIDIA-SMI\s+(\d+(?:\.\d+)+)")
_HDR_DRIVER = re.compile(r"(?:Driver|KMD)\s+Version:\s*(\S+)")
_HDR_CUDA = re.compile(r"CUDA(?:\s+UMD)?\s+Version:\s*(\S+)")
_MEM = re.compile(r"(\d+(?:\.\d+)?)\s*(MiB|MB|GiB)\s*/\s*(\d+(?:\.\d+)?)\s*(MiB|MB|GiB)", re.I)
_GPU_ROW = re.compile(r"^\s*(\d+)\s+(.*?)\s*$")
_BUS_ID = re.compile(r"^[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d")
_MODES = ("On", "Off", "WDDM", "TCC", "N/A", "MCDM")


def _cells(line):
    """'| a | b | c |' -> ['a', 'b', 'c'] (outer bars stripped, inner cells stripped)."""
    s = line.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|"):
        s = s[:-1]
    return [c.strip() for c in s.split("|")]


def _parse_table(text):
    res = _result("table")
    lines = text.replace("\r", "").replace("\t", "    ").splitlines()
    in_gpus = False
    last_gpu = None
    rows_since_gpu = 0
    for raw in lines:
        line = raw.strip()
        if res["driver_version"] is None or res["nvidia_smi_version"] is None:
            m = _HDR_SMI.search(line)
            if m and res["nvidia_smi_version"] is None:
                res["nvidia_smi_version"] = m.group(1)
            m = _HDR_DRIVER.search(line)
            if m:
                res["driver_version"] = _version(m.group(1))
                if res["driver_version"] is None:
                    res["warnings"].append("Driver Version shows %r" % m.group(1))
                m2 = _HDR_CUDA.search(line)
                if m2:
                    res["cuda_version"] = _version(m2.group(1))
                    if res["cuda_version"] is None:
                        res["warnings"].append(
                            "CUDA Version shows %r (the driver's CUDA library could not be "
                            "queried); the newest CUDA is derived from the driver number" % m2.group(1))
                else:
                    res["warnings"].append("the header shows no CUDA version (driver older than R410?)")
                continue
        if re.match(r"^\|?\s*Processes\s*:|^\|?\s*MIG devices\s*:", line):
            in_gpus = False
            last_gpu = None
            continue
        if re.match(r"^\|?\s*=+(\+=+)*\s*\|?$", line) or re.match(r"^\|=+", line):
            if res["driver_version"] is not None or res["nvidia_smi_version"] is not None:
                in_gpus = not res["gpus"] or in_gpus
            continue
        if "GPU  Name" in line or "TCC/WDDM" in line:
            if "TCC/WDDM" in line:
                res["driver_platform"] = "windows"
            continue
        if not in_gpus or not line.startswith("|"):
            continue
        cells = _cells(line)
        first = cells[0] if cells else ""
        m = _GPU_ROW.match(first)
        if m and len(cells) >= 2 and (_BUS_ID.match(cells[1]) or "MiB" not in first):
            name_part = m.group(2)
            mode = None
            for candidate in _MODES:
                if name_part.endswith(" " + candidate) or name_part == candidate:
                    mode = candidate
                    name_part = name_part[: -len(candidate)].rstrip()
                    break
            if mode in ("WDDM", "TCC", "MCDM"):
                res["driver_platform"] = "windows"
            gpu = _new_gpu(index=int(m.group(1)), name=_clean(name_part))
            res["gpus"].append(gpu)
            last_gpu = gpu
            rows_since_gpu = 0
            continue
        if last_gpu is None:
            continue
        rows_since_gpu += 1
        if rows_since_gpu > 2:
            continue
        joined = " | ".join(cells)
        mm = _MEM.search(joined)
        if mm and last_gpu["memory_total_mib"] is None:
            last_gpu["memory_used_mib"] = _mib(mm.group(1) + " " + mm.group(2))
            last_gpu["memory_total_mib"] = _mib(mm.group(3) + " " + mm.group(4))
        elif re.search(r"Not Supported", joined) and rows_since_gpu == 1:
            res["warnings"].append(
                "GPU %s (%s): memory shows 'Not Supported' (unified memory, e.g. GB10); "
                "size it from host memory" % (last_gpu["index"], last_gpu["name"]))
    if res["nvidia_smi_version"] and res["driver_version"] \
            and res["nvidia_smi_version"] != res["driver_version"]:
        # The Linux-side nvidia-smi (libnvidia-ml) differs from the driver only under WSL2,
        # where Driver Version is the Windows driver's number.
        res["wsl_suspected"] = True
        res["driver_platform"] = "windows"
        res["warnings"].append(
            "NVIDIA-SMI %s differs from driver %s: WSL2 with a Windows driver"
            % (res["nvidia_smi_version"], res["driver_version"]))
    if res["driver_version"] is None:
        res["warnings"].append("no driver version found in the nvidia-smi output")
    return res


# --------------------------------------------------------------------------- entry points

def parse_nvidia_smi(text, fields=None):
    """Parse any nvidia-smi output (table, -q, CSV query) into a plain dict.

    ``fields``: the --query-gpu field list when the caller ran a query with
    ``noheader`` (e.g. ``QUERY_FIELDS``); without it the header, an echoed command line or
    the values themselves tell the columns.
    """
    text = text or ""
    if not text.strip():
        res = _result("table")
        res["warnings"].append("empty nvidia-smi output")
        return _finish(res)
    failures = [msg for rx, msg in _FAILURES if rx.search(text)]
    if fields or _looks_like_query(text):
        res = _parse_query(text, fields)
    elif re.search(r"NVSMI LOG|^\s*Product Name\s*:", text, re.M) and not _HDR_DRIVER.search(text):
        res = _parse_log(text)
    else:
        res = _parse_table(text)
    res["warnings"].extend(failures)
    if res["cuda_version"] is None and res["source"] == "table" and res["driver_version"]:
        pass  # reason already stated where the header was read
    return _finish(res)


def merge_query_and_table(query_text, table_text, fields=QUERY_FIELDS):
    """Combine the query (exact numbers, compute capability) with the table (CUDA version).

    Either text may be None or empty. Per-GPU fields missing in the query are taken from the
    table by index.
    """
    query = parse_nvidia_smi(query_text, fields=fields) if (query_text or "").strip() else None
    table = parse_nvidia_smi(table_text) if (table_text or "").strip() else None
    if query is None and table is None:
        return parse_nvidia_smi("")
    if query is None or (not query["gpus"] and table is not None):
        out = table
        if query is not None:
            out["warnings"] = query["warnings"] + out["warnings"]
        return out
    out = query
    if table is None:
        return out
    by_index = dict((g["index"], g) for g in table["gpus"])
    for gpu in out["gpus"]:
        other = by_index.get(gpu["index"])
        if other is None:
            continue
        for key in ("name", "memory_total_mib", "memory_used_mib", "uuid"):
            if gpu.get(key) is None and other.get(key) is not None:
                gpu[key] = other[key]
        if gpu["compute_capability"] is None and other["compute_capability"] is not None:
            gpu["compute_capability"] = other["compute_capability"]
            gpu["compute_capability_source"] = other["compute_capability_source"]
    out["driver_version"] = out["driver_version"] or table["driver_version"]
    out["cuda_version"] = table["cuda_version"]
    for key in ("nvidia_smi_version", "driver_platform", "wsl_suspected", "cuda_version_from_driver"):
        out[key] = table[key] if table[key] else out[key]
    warnings = [w for w in out["warnings"] if "does not show the CUDA version" not in w]
    out["warnings"] = warnings + [w for w in table["warnings"] if w not in warnings]
    if out["driver_version"]:
        windows = out["driver_platform"] == "windows" or out["wsl_suspected"]
        out["cuda_version_from_driver"] = cuda_from_driver(out["driver_version"], windows=windows)
    return out


def read_nvidia_smi(run):
    """Run nvidia-smi through ``run(args) -> (rc, stdout, stderr)`` and parse what it prints.

    The query first (again without compute_cap when an old driver rejects that field), then the
    plain table, which alone shows the CUDA version. Returns ``(facts, None)``, or ``(None,
    reason)`` when both calls failed. Finding the binary is vllm_host.find_nvidia_smi's job.
    """
    fields = QUERY_FIELDS
    rc_q, out_q, err_q = run(list(QUERY_ARGS))
    if rc_q != 0 and "not a valid field" in (out_q + err_q):
        fields = QUERY_FIELDS_FALLBACK
        rc_q, out_q, err_q = run(list(QUERY_ARGS_FALLBACK))
    rc_t, out_t, err_t = run([])
    if rc_q != 0 and rc_t != 0:
        return None, (err_t or out_t or err_q).strip()[:300]
    return merge_query_and_table(out_q if rc_q == 0 else "", out_t if rc_t == 0 else "",
                                 fields=fields), None


def effective_cuda(gpu_facts, windows=None):
    """(cuda, reason): the CUDA version to plan with, and where it came from."""
    if not gpu_facts:
        return None, "no nvidia-smi facts"
    if gpu_facts.get("cuda_version"):
        return gpu_facts["cuda_version"], "nvidia-smi header"
    if windows is None:
        windows = gpu_facts.get("driver_platform") == "windows" or gpu_facts.get("wsl_suspected")
    derived = cuda_from_driver(gpu_facts.get("driver_version"), windows=bool(windows))
    if derived:
        return derived, "derived from driver %s (NVIDIA's %s driver table)" % (
            gpu_facts.get("driver_version"), "Windows" if windows else "Linux")
    return None, "neither the header nor the driver number tells the CUDA version"


# --------------------------------------------------------------------------- NVML

NVML_SOURCE = "nvml"
# NVML errors that mean "no NVML on this host" (use nvidia-smi), not "NVML misbehaves".
NVML_ABSENT_ERRORS = ("NVMLError_LibraryNotFound", "NVMLError_DriverNotLoaded",
                      "NVMLError_FunctionNotFound", "NVMLError_NoPermission")


def _nvml_error(err):
    """'NVMLError_NotSupported (Not Supported)': the class name and, where it has one, its text."""
    name = type(err).__name__
    try:
        text = str(err)
    except Exception:  # pylint: disable=broad-except  # pynvml's __str__ calls into the library
        text = ""
    return "%s (%s)" % (name, text) if text and text != name else name


def _nvml_text(value):
    """pynvml returns bytes (older releases) or str (nvidia-ml-py >= 11.515)."""
    if value is None:
        return None
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    value = str(value).strip().rstrip("\x00").strip()
    return value or None


def cuda_from_nvml_int(value):
    """nvmlSystemGetCudaDriverVersion's integer (1000 * major + 10 * minor) -> '12.4'."""
    try:
        value = int(value)
    except (TypeError, ValueError):
        return None
    if value <= 0:
        return None
    return "%d.%d" % (value // 1000, (value % 1000) // 10)


def nvml_library_version(nvml_version):
    """nvmlSystemGetNVMLVersion's '12.555.52.01' -> '555.52.01' (the libnvidia-ml number that
    nvidia-smi's header prints as NVIDIA-SMI); a number without the CUDA-major prefix is kept."""
    text = _nvml_text(nvml_version)
    if not text:
        return None
    parts = text.split(".")
    if len(parts) >= 3 and parts[0].isdigit() and int(parts[0]) < 100:
        parts = parts[1:]
    return ".".join(parts)


def read_nvml(nvml, wsl=None):
    """GPU facts from NVML, in the shape :func:`parse_nvidia_smi` returns, plus ``uuid`` per GPU
    and ``nvml_version``.

    ``nvml`` is the ``pynvml`` module (``nvidia-ml-py``) or anything with the same functions
    (the tests pass a fake). ``wsl``: the host is WSL2 (then ``Driver Version`` is the Windows
    driver's number, as nvidia-smi shows it). Returns ``(facts, None)``, or ``(None, reason)``
    when nvmlInit fails (``reason`` starts with the NVMLError class name, see
    :data:`NVML_ABSENT_ERRORS`). Every other NVML error is a line in ``warnings``, never a crash.
    """
    try:
        nvml.nvmlInit()
    except Exception as err:  # pylint: disable=broad-except
        return None, "nvmlInit failed: %s" % _nvml_error(err)
    res = _result(NVML_SOURCE)
    res["nvml_version"] = None
    warnings = res["warnings"]

    def call(func, *args):
        try:
            return getattr(nvml, func)(*args), None
        except Exception as err:  # pylint: disable=broad-except
            return None, err

    try:
        value, err = call("nvmlSystemGetDriverVersion")
        res["driver_version"] = _version(_nvml_text(value)) if err is None else None
        if err is not None:
            warnings.append("NVML: nvmlSystemGetDriverVersion failed: %s" % _nvml_error(err))
        value, err = call("nvmlSystemGetCudaDriverVersion_v2")
        if err is not None:
            value, err = call("nvmlSystemGetCudaDriverVersion")
        if err is None:
            res["cuda_version"] = cuda_from_nvml_int(value)
            if res["cuda_version"] is None:
                warnings.append("NVML: CUDA driver version reads %r" % (value,))
        else:
            warnings.append("NVML: nvmlSystemGetCudaDriverVersion failed: %s; the newest CUDA is "
                            "derived from the driver number" % _nvml_error(err))
        value, err = call("nvmlSystemGetNVMLVersion")
        if err is None:
            res["nvml_version"] = _nvml_text(value)
            res["nvidia_smi_version"] = nvml_library_version(value)
        count, err = call("nvmlDeviceGetCount")
        if err is not None:
            warnings.append("NVML: nvmlDeviceGetCount failed: %s" % _nvml_error(err))
            count = 0
        for index in range(int(count or 0)):
            gpu = _new_gpu(index=index)
            res["gpus"].append(gpu)
            handle, err = call("nvmlDeviceGetHandleByIndex", index)
            if err is not None:
                warnings.append("NVML: GPU %d: nvmlDeviceGetHandleByIndex failed: %s"
                                % (index, _nvml_error(err)))
                continue
            value, err = call("nvmlDeviceGetName", handle)
            gpu["name"] = _nvml_text(value)
            if err is not None:
                warnings.append("NVML: GPU %d: nvmlDeviceGetName failed: %s" % (index, _nvml_error(err)))
            label = "GPU %d (%s)" % (index, gpu["name"]) if gpu["name"] else "GPU %d" % index
            mem, err = call("nvmlDeviceGetMemoryInfo", handle)
            if err is None:
                try:
                    gpu["memory_total_mib"] = int(round(float(mem.total) / (1024 * 1024)))
                    gpu["memory_used_mib"] = int(round(float(mem.used) / (1024 * 1024)))
                except (AttributeError, TypeError, ValueError) as bad:
                    warnings.append("NVML: %s: memory info unreadable (%s)" % (label, bad))
            elif type(err).__name__ == "NVMLError_NotSupported":
                warnings.append("NVML: %s: memory is 'Not Supported' (unified memory, e.g. GB10); "
                                "size it from host memory" % label)
            else:
                warnings.append("NVML: %s: nvmlDeviceGetMemoryInfo failed: %s" % (label, _nvml_error(err)))
            value, err = call("nvmlDeviceGetCudaComputeCapability", handle)
            if err is None:
                try:
                    gpu["compute_capability"] = "%d.%d" % (int(value[0]), int(value[1]))
                    gpu["compute_capability_source"] = NVML_SOURCE
                except (IndexError, TypeError, ValueError):
                    warnings.append("NVML: %s: compute capability reads %r" % (label, value))
            else:
                warnings.append("NVML: %s: nvmlDeviceGetCudaComputeCapability failed: %s"
                                % (label, _nvml_error(err)))
            value, err = call("nvmlDeviceGetUUID", handle)
            if err is None and _nvml_text(value):
                gpu["uuid"] = _nvml_text(value)
            elif err is not None:
                warnings.append("NVML: %s: nvmlDeviceGetUUID failed: %s" % (label, _nvml_error(err)))
    finally:
        _, err = call("nvmlShutdown")
        if err is not None:
            warnings.append("NVML: nvmlShutdown failed: %s" % _nvml_error(err))
    if wsl:
        res["wsl_suspected"] = True
        res["driver_platform"] = "windows"
    lib = res["nvidia_smi_version"]
    if lib and res["driver_version"] and version_tuple(lib) != version_tuple(res["driver_version"]):
        # as in the table: a library number other than the driver's happens under WSL2, where the
        # driver is Windows'
        res["wsl_suspected"] = True
        res["driver_platform"] = "windows"
        warnings.append("NVML library %s differs from driver %s: WSL2 with a Windows driver"
                        % (lib, res["driver_version"]))
    if res["driver_version"] is None and not any("DriverVersion" in w for w in warnings):
        warnings.append("NVML: no driver version")
    return _finish(res), None


def nvml_absent(reason):
    """True when a :func:`read_nvml` reason means the host has no usable NVML (fall back quietly)."""
    return bool(reason) and any(name in reason for name in NVML_ABSENT_ERRORS + ("no pynvml",))


def _same_name(a, b):
    """Names agree; a name nvidia-smi's table cut off ('NVIDIA GeForce RTX 4070 ...') is a prefix."""
    if a == b:
        return True
    for cut, full in ((a, b), (b, a)):
        if cut.endswith("...") and full.startswith(cut[:-3].rstrip()):
            return True
    return False


def compare_gpu_facts(nvml_facts, smi_facts):
    """Disagreements between NVML facts and nvidia-smi facts, as one line each (empty: agree).

    Only fields both give are compared: driver version, CUDA version, GPU count, and per GPU (by
    index) name, total memory (within 1 MiB: NVML counts bytes, nvidia-smi rounds to MiB),
    compute capability and uuid. nvidia-smi is an NVML client, so under WSL2 both show the
    Windows driver's number as the driver version; an NVML that gives the Linux-side library
    number instead (the ``NVIDIA-SMI`` header's) is named as such.
    """
    out = []
    if not nvml_facts or not smi_facts:
        return out
    drv_n, drv_s = nvml_facts.get("driver_version"), smi_facts.get("driver_version")
    if drv_n and drv_s and version_tuple(drv_n) != version_tuple(drv_s):
        if smi_facts.get("nvidia_smi_version") and \
                version_tuple(drv_n) == version_tuple(smi_facts["nvidia_smi_version"]):
            out.append("driver version: NVML %s is the Linux-side library (NVIDIA-SMI %s), "
                       "nvidia-smi's Driver Version %s is the Windows driver" % (drv_n, drv_n, drv_s))
        else:
            out.append("driver version: NVML %s, nvidia-smi %s" % (drv_n, drv_s))
    cuda_n, cuda_s = nvml_facts.get("cuda_version"), smi_facts.get("cuda_version")
    if cuda_n and cuda_s and version_tuple(cuda_n) != version_tuple(cuda_s):
        out.append("CUDA version: NVML %s, nvidia-smi %s" % (cuda_n, cuda_s))
    gpus_n = list(nvml_facts.get("gpus") or [])
    gpus_s = list(smi_facts.get("gpus") or [])
    if len(gpus_n) != len(gpus_s):
        out.append("GPU count: NVML %d, nvidia-smi %d" % (len(gpus_n), len(gpus_s)))
    by_index = dict((g.get("index"), g) for g in gpus_s)
    for gpu in gpus_n:
        other = by_index.get(gpu.get("index"))
        if other is None:
            continue
        label = "GPU %s" % gpu.get("index")
        if gpu.get("name") and other.get("name") and not _same_name(gpu["name"], other["name"]):
            out.append("%s name: NVML %r, nvidia-smi %r" % (label, gpu["name"], other["name"]))
        mem_n, mem_s = gpu.get("memory_total_mib"), other.get("memory_total_mib")
        if mem_n is not None and mem_s is not None and abs(int(mem_n) - int(mem_s)) > 1:
            out.append("%s total memory: NVML %d MiB, nvidia-smi %d MiB" % (label, mem_n, mem_s))
        cc_n, cc_s = gpu.get("compute_capability"), other.get("compute_capability")
        if cc_n and cc_s and cc_n != cc_s:
            how = " (from the name)" if other.get("compute_capability_source") == "name" else ""
            out.append("%s compute capability: NVML %s, nvidia-smi %s%s" % (label, cc_n, cc_s, how))
        uuid_n, uuid_s = gpu.get("uuid"), other.get("uuid")
        if uuid_n and uuid_s and uuid_n != uuid_s:
            out.append("%s uuid: NVML %s, nvidia-smi %s" % (label, uuid_n, uuid_s))
    return out


def choose_gpu_facts(nvml_facts, nvml_reason, smi_facts, smi_reason=None):
    """The GPU facts to use: NVML's when it listed a GPU, nvidia-smi's otherwise.

    With NVML, fields NVML left empty are filled from nvidia-smi's facts and every
    disagreement (:func:`compare_gpu_facts`) becomes a warning. Without it the nvidia-smi facts
    are returned as they are (``None`` stays ``None``). Added keys: ``nvml`` (``used``,
    ``reason``, ``disagreements``) and, with NVML, ``nvidia_smi_warnings``. An NVML that is
    there but fails or lists nothing is also a warning; an absent one (:func:`nvml_absent`) is not.
    """
    if nvml_facts is None or not nvml_facts.get("gpus"):
        if smi_facts is None:
            return None
        out = dict(smi_facts)
        if nvml_facts is not None:
            nvml_reason = "NVML listed no GPU%s" % "".join(
                "; " + w for w in nvml_facts.get("warnings") or [] if w.startswith("NVML:"))
        out["nvml"] = {"used": False, "reason": nvml_reason, "disagreements": []}
        if nvml_reason and not nvml_absent(nvml_reason) and "warnings" in out:
            out["warnings"] = list(out["warnings"]) + [
                "NVML not used (%s): facts from nvidia-smi" % nvml_reason]
        return out
    smi_facts = smi_facts if smi_facts and smi_facts.get("gpus") else None
    out = dict(nvml_facts)
    out["gpus"] = [dict(g) for g in nvml_facts.get("gpus") or []]
    out["warnings"] = list(nvml_facts.get("warnings") or [])
    disagreements = compare_gpu_facts(nvml_facts, smi_facts) if smi_facts else []
    if smi_facts:
        for key in ("cuda_version", "driver_version", "nvidia_smi_version", "driver_platform"):
            if out.get(key) is None and smi_facts.get(key) is not None:
                out[key] = smi_facts[key]
        out["wsl_suspected"] = bool(out.get("wsl_suspected") or smi_facts.get("wsl_suspected"))
        by_index = dict((g.get("index"), g) for g in smi_facts.get("gpus") or [])
        for gpu in out["gpus"]:
            other = by_index.get(gpu.get("index")) or {}
            for key in ("name", "memory_total_mib", "memory_used_mib", "uuid"):
                if gpu.get(key) is None and other.get(key) is not None:
                    gpu[key] = other[key]
            if gpu.get("compute_capability") is None and other.get("compute_capability"):
                gpu["compute_capability"] = other["compute_capability"]
                gpu["compute_capability_source"] = other.get("compute_capability_source")
        if out.get("driver_version"):
            windows = out.get("driver_platform") == "windows" or out["wsl_suspected"]
            out["cuda_version_from_driver"] = cuda_from_driver(out["driver_version"], windows=windows)
        out["nvidia_smi_warnings"] = list(smi_facts.get("warnings") or [])
    out["warnings"].extend("NVML and nvidia-smi disagree: %s" % d for d in disagreements)
    reason = "NVML %s" % (out.get("nvml_version") or "")
    if not smi_facts:
        reason += "; nvidia-smi gave nothing%s" % (": %s" % smi_reason if smi_reason else "")
    out["nvml"] = {"used": True, "reason": reason.strip(), "disagreements": disagreements}
    return out


def gather_nvml(wsl=False, import_module=None, wsl_lib_dir="/usr/lib/wsl/lib"):
    """``(facts, None)`` or ``(None, reason)`` from this host's NVML through ``pynvml``.

    ``pynvml`` loads ``libnvidia-ml.so.1`` through the dynamic loader (``ld.so.cache``; WSL
    registers ``/usr/lib/wsl/lib`` there). Under WSL only, when that fails (library not found,
    or a stray Linux driver's library that answers 'Driver Not Loaded'), the Windows driver's
    ``<wsl_lib_dir>/libnvidia-ml.so.1`` is loaded by path and NVML tried once more.
    ``import_module`` (tests): a callable ``name -> module``.
    """
    if import_module is None:
        import importlib
        import_module = importlib.import_module
    try:
        nvml = import_module("pynvml")
    except Exception as err:  # pylint: disable=broad-except  # ImportError, or a broken install
        return None, "no pynvml (nvidia-ml-py) in this Python: %s" % err
    facts, reason = read_nvml(nvml, wsl=wsl)
    if facts is not None or not wsl:
        return facts, reason
    path = wsl_lib_dir.rstrip("/") + "/libnvidia-ml.so.1"
    import os
    if not os.path.exists(path) or not any(n in reason for n in ("LibraryNotFound", "DriverNotLoaded")):
        return facts, reason
    try:
        import ctypes
        nvml.nvmlLib = ctypes.CDLL(path)
        cache = getattr(nvml, "_nvmlGetFunctionPointer_cache", None)
        if isinstance(cache, dict):
            cache.clear()
    except (OSError, AttributeError) as err:
        return None, "%s; loading %s failed: %s" % (reason, path, err)
    facts, again = read_nvml(nvml, wsl=wsl)
    if facts is not None:
        facts["warnings"].append("NVML loaded from %s (the loader's libnvidia-ml.so.1 failed: %s)"
                                 % (path, reason))
        return facts, None
    return None, "%s; with %s: %s" % (reason, path, again)
