# -*- coding: utf-8 -*-
"""A small service manager for hosts where systemd is not PID 1 (WSL without systemd, containers).

Installed on the target as ``vllm-launcher {start|stop|status|restart}``. It reads one JSON
config (written by the service role), starts the server as the service user in its own session
with a pidfile and an appended log file, and stops the whole process group on ``stop``. The same
environment files as the systemd unit are read, in the same format. Of the unit's confinement it
applies what a process can to itself (``confine``): no new privileges, umask 0027, the service
user's own groups, no inherited file descriptors, the unit's file limit and no core dumps.

Pure standard library; the service role copies this file to the host as it is.
"""
from __future__ import absolute_import, division, print_function

import errno
import json
import os
import re
import signal
import stat
import sys
import time

__metaclass__ = type

DEFAULT_CONFIG = "/etc/vllm/launcher.json"
EXIT_NOT_RUNNING = 3  # LSB: program is not running
# Written to the log before each start, so readers can take the last attempt alone.
START_MARKER = "==== vllm-launcher: starting"


def last_attempt(log_text):
    """The part of a launcher log from the last start marker on (all of it when none)."""
    index = log_text.rfind(START_MARKER)
    return log_text[index:] if index >= 0 else log_text


# systemd's whitespace (WHITESPACE in its basic/string-util.h); Python's str.strip() would also
# take Unicode spaces and separators systemd keeps.
_BLANKS = " \t\n\r"


def parse_env_file(text):
    """KEY=value lines as systemd's EnvironmentFile= reads them (the subset the role writes).

    Lines end at "\n" only (str.splitlines() would also split at U+2028, U+0085, \x1c and others,
    which systemd keeps inside a value); the role's writer (vllm_options.to_env_file) refuses
    values with line breaks or control characters, so what it writes reads back exactly.
    """
    env = {}
    for raw in (text or "").split("\n"):
        line = raw.strip(_BLANKS)
        if not line or line.startswith("#") or line.startswith(";") or "=" not in line:
            continue
        key, value = line.split("=", 1)
        key = key.strip(_BLANKS)
        if key.startswith("export "):
            key = key[len("export "):].strip(_BLANKS)
        value = value.strip(_BLANKS)
        if len(value) >= 2 and value[0] == value[-1] == '"':
            value = re.sub(r'\\(["\\$`])', r"\1", value[1:-1])
        elif len(value) >= 2 and value[0] == value[-1] == "'":
            value = value[1:-1]
        env[key] = value
    return env


def load_config(path):
    with open(path) as handle:
        config = json.load(handle)
    config.setdefault("pidfile", "/run/vllm/vllm.pid")
    config.setdefault("log_file", "/var/log/vllm/vllm.log")
    config.setdefault("env_files", [])
    config.setdefault("stop_timeout", 30)
    config.setdefault("workdir", "/")
    return config


def read_pid(pidfile):
    try:
        with open(pidfile) as handle:
            return int(handle.read().split()[0])
    except (IOError, OSError, ValueError, IndexError):
        return None


def pid_running(pid, proc="/proc"):
    """True when ``pid`` exists and is not a zombie."""
    if not pid:
        return False
    try:
        with open(os.path.join(proc, str(pid), "stat")) as handle:
            state = handle.read().rsplit(")", 1)[1].split()[0]
    except (IOError, OSError, IndexError):
        return False
    return state not in ("Z", "X")


def pid_matches(pid, marker, proc="/proc"):
    """The pid's command line mentions ``marker`` (guards against a recycled pid)."""
    try:
        with open(os.path.join(proc, str(pid), "cmdline"), "rb") as handle:
            return marker.encode() in handle.read()
    except (IOError, OSError):
        return False


def running_pid(config, proc="/proc"):
    pid = read_pid(config["pidfile"])
    if pid and pid_running(pid, proc) and pid_matches(pid, config.get("marker") or
                                                      config["argv"][-1], proc):
        return pid
    return None


def build_env(config):
    """A clean environment: basics, then each env file in order (later files win)."""
    env = {
        "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "LANG": "C.UTF-8",
        "HOME": config.get("home") or config["workdir"],
        "USER": config.get("user") or "root",
        "LOGNAME": config.get("user") or "root",
    }
    for path in config["env_files"]:
        optional = path.startswith("-")
        path = path.lstrip("-")
        try:
            with open(path) as handle:
                env.update(parse_env_file(handle.read()))
        except (IOError, OSError):
            if not optional:
                raise
    return env


# What the systemd unit also sets (LimitNOFILE=65536; no core files: a dump of the server holds
# the API key and the HF token from its environment).
LIMITS = (("RLIMIT_NOFILE", 65536), ("RLIMIT_CORE", 0))
UMASK = 0o027
PR_SET_NO_NEW_PRIVS = 38  # linux/prctl.h


def _drop_privileges(user):
    """Become ``user``: its own groups only (those /etc/group gives it, not root's), then its gid
    and uid. Nothing to drop when the launcher does not run as root."""
    if not user or os.getuid() != 0:
        return
    import pwd
    entry = pwd.getpwnam(user)
    os.setgroups(os.getgrouplist(user, entry.pw_gid))
    os.setgid(entry.pw_gid)
    os.setuid(entry.pw_uid)


def set_limits(limits=LIMITS):
    """Each resource limit to its value (soft and hard); where the hard limit cannot be raised
    (not root) to as much as it allows. Returns {name: (soft, hard)} as set."""
    import resource
    applied = {}
    for name, value in limits:
        which = getattr(resource, name)
        try:
            resource.setrlimit(which, (value, value))
        except (ValueError, OSError):
            hard = resource.getrlimit(which)[1]
            low = value if hard == resource.RLIM_INFINITY else min(value, hard)
            resource.setrlimit(which, (low, low))
        applied[name] = resource.getrlimit(which)
    return applied


def set_no_new_privs():
    """prctl(PR_SET_NO_NEW_PRIVS): no setuid program or file capability the server runs gives
    it privileges (as the unit's NoNewPrivileges=). Returns an error text, or None when set."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return os.strerror(ctypes.get_errno())
    except (OSError, AttributeError, ImportError) as err:
        return str(err)
    return None


def close_fds(keep=(0, 1, 2)):
    """Close every inherited file descriptor except ``keep`` (what the server must not get: the
    launcher's pipes, a caller's sockets or files)."""
    try:
        fds = [int(name) for name in os.listdir("/proc/self/fd")]
    except OSError:
        import resource
        fds = range(resource.getrlimit(resource.RLIMIT_NOFILE)[0])
    for fd in fds:
        if fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass


def confine(config):
    """In the server's process, before exec: what the launcher can apply of the unit's
    confinement (see the role's README for what it cannot). Returns warnings for the log."""
    warnings = []
    os.umask(UMASK)
    set_limits()  # as root: it may raise the hard limit
    # before the uid changes (setuid stays allowed; ctypes may not be importable as the user)
    why = set_no_new_privs()
    if why:
        warnings.append("vllm-launcher: could not set no_new_privs (%s); starting anyway\n" % why)
    _drop_privileges(config.get("user"))
    return warnings


class UnsafeLogFile(Exception):
    """The log path is not a file the launcher may append to on the service user's behalf."""


def _allowed_owners(user):
    """Who may own the log: root (the launcher created it) and the user the server runs as."""
    owners = {0, os.getuid()}
    if user:
        import pwd
        try:
            owners.add(pwd.getpwnam(user).pw_uid)
        except KeyError:
            raise UnsafeLogFile("the service user %r does not exist" % user)
    return owners


def open_log(path, user=None):
    """Open the log for appending without letting the service user redirect the writes.

    The launcher runs as root and the log's folder belongs to the service user, who can put a
    symlink, a hard link, a FIFO or a file of another user at the log's path. So: never follow a
    link (O_NOFOLLOW), never block on a FIFO (O_NONBLOCK), and check the opened file itself
    (fstat, no race): a regular file with exactly one link, owned by root or the service user.
    Anything else raises UnsafeLogFile and nothing is written.
    """
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOCTTY | os.O_NONBLOCK
    flags |= getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags, 0o640)
    except OSError as err:
        if err.errno in (errno.ELOOP, errno.EMLINK):
            raise UnsafeLogFile("%s is a symbolic link; refusing to write through it" % path)
        raise UnsafeLogFile("cannot open %s: %s" % (path, err))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnsafeLogFile("%s is not a regular file (mode %o)" % (path, info.st_mode))
        if info.st_nlink != 1:
            raise UnsafeLogFile("%s has %d hard links; a log file must have exactly one"
                                % (path, info.st_nlink))
        owners = _allowed_owners(user)
        if info.st_uid not in owners:
            raise UnsafeLogFile("%s is owned by uid %d; accepted: uid %s (root or the service "
                                "user)" % (path, info.st_uid, ", ".join(
                                    str(uid) for uid in sorted(owners))))
        import fcntl
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    except BaseException:
        os.close(fd)
        raise
    return fd


def write_pidfile(path, pid):
    """The pidfile, written without following a link at its path."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags, 0o644)
    try:
        os.write(fd, ("%d\n" % pid).encode())
    finally:
        os.close(fd)


# The restart policy of the systemd unit (Restart=always, RestartSec=10, StartLimitBurst=5,
# StartLimitIntervalSec=600), applied by the launcher's own supervisor. supervisord was measured
# first (4.2.5, Debian's version): it restarts a program that ran longer than startsecs at
# once and without end (a program failing after 12 s with startsecs=10: 7 starts in 90 s, 13 s
# apart, still RUNNING), and backs off only within startsecs (1, 2, 3 s, then FATAL). vLLM's
# failing starts take 20 s to minutes, so it would either loop for ever or, with startsecs above
# the load time, count a healthy server's later crash as a failed start; and it adds a daemon
# that itself needs starting where systemd is absent.
RESTART_SEC = 10
START_LIMIT_BURST = 5
START_LIMIT_INTERVAL = 600
GROUP_STOP_TIMEOUT = 10  # workers left behind by a server that died


def _state_path(config):
    return config.get("state_file") or os.path.join(os.path.dirname(config["pidfile"]),
                                                    "launcher-state.json")


def _supervisor_pidfile(config):
    return config.get("supervisor_pidfile") or os.path.join(os.path.dirname(config["pidfile"]),
                                                            "vllm-launcher.pid")


def _start_time(pid, proc="/proc"):
    """The process's start time in clock ticks (/proc/PID/stat field 22): with the pid, it names
    one process even after the pid is reused."""
    try:
        with open(os.path.join(proc, str(pid), "stat")) as handle:
            return handle.read().rsplit(")", 1)[1].split()[19]
    except (IOError, OSError, IndexError):
        return None


def _write_atomic(path, text, mode=0o644):
    """Write ``path`` through a temporary file and a rename: never through a link at ``path``."""
    tmp = "%s.%d.tmp" % (path, os.getpid())
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(tmp, flags, mode)
    try:
        os.write(fd, text.encode("utf-8"))
    finally:
        os.close(fd)
    os.rename(tmp, path)


def read_state(config):
    try:
        with open(_state_path(config)) as handle:
            return json.load(handle)
    except (IOError, OSError, ValueError):
        return {}


def write_state(config, **state):
    state["updated"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    _write_atomic(_state_path(config), json.dumps(state, sort_keys=True) + "\n")


def supervisor_pid(config, proc="/proc"):
    """The running supervisor's pid (its pidfile holds the pid and the start time)."""
    try:
        with open(_supervisor_pidfile(config)) as handle:
            pid, started = handle.read().split()[:2]
        pid = int(pid)
    except (IOError, OSError, ValueError):
        return None
    if pid_running(pid, proc) and _start_time(pid, proc) == started:
        return pid
    return None


def diagnose_text(text, max_bytes=4 << 20):
    """The doctor's reading of the last attempt in ``text`` (a log or a journal), as one line
    (None without the doctor beside the launcher)."""
    here = os.path.dirname(os.path.abspath(__file__))
    if here not in sys.path:
        sys.path.insert(0, here)
    try:
        import vllm_doctor
    except ImportError:
        return None
    try:
        found = vllm_doctor.diagnose(last_attempt(text[-max_bytes:]))
    except Exception as err:  # the diagnosis must never stop the supervision
        return "the doctor failed: %s" % err
    line = "%s: %s" % (found.get("category"), found.get("evidence") or "no evidence in the log")
    if found.get("fix"):
        line += "; fix: %s" % found["fix"]
    return " ".join(line.split())


def diagnose_log(config, max_bytes=4 << 20):
    """diagnose_text on the tail of the launcher's log (None without a log)."""
    try:
        with open(config["log_file"], "rb") as handle:
            handle.seek(0, os.SEEK_END)
            handle.seek(max(0, handle.tell() - max_bytes))
            text = handle.read().decode("utf-8", "replace")
    except (IOError, OSError):
        return None
    return diagnose_text(text, max_bytes)


def _exit_text(status):
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = "signal %d" % sig
        return "killed by %s" % name
    return "exited with status %d" % os.WEXITSTATUS(status)


def _spawn(config, env, log_fd):
    """Fork the server: own session, log as stdout and stderr, confined, exec'd as the user."""
    server = os.fork()
    if server == 0:
        try:
            os.setsid()  # own session and process group: stop reaches its workers too
            null_fd = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null_fd, 0)
            os.dup2(log_fd, 1)
            os.dup2(log_fd, 2)
            close_fds()
            os.write(2, (START_MARKER + " pid %d at %s\n" % (
                os.getpid(), time.strftime("%Y-%m-%dT%H:%M:%S%z"))).encode())
            os.chdir(config["workdir"])
            for warning in confine(config):
                os.write(2, warning.encode())
            os.execve(config["argv"][0], config["argv"], env)
        except BaseException as err:
            try:
                os.write(2, ("vllm-launcher: cannot start %s as %s: %s\n" % (
                    config["argv"][0], config.get("user") or "root", err)).encode())
            except OSError:
                pass
        os._exit(127)  # never back into the supervisor's code
    return server


def _group_alive(pgid):
    try:
        os.killpg(pgid, 0)
        return True
    except OSError as err:
        return err.errno == errno.EPERM


def _stop_group(pgid, timeout, sleep=time.sleep):
    """TERM to what is left of the server's process group, KILL after ``timeout``."""
    _kill_group(pgid, signal.SIGTERM)
    deadline = time.time() + timeout
    while _group_alive(pgid) and time.time() < deadline:
        sleep(0.1)
    if _group_alive(pgid):
        _kill_group(pgid, signal.SIGKILL)


def _log_line(config, text):
    try:
        fd = open_log(config["log_file"], config.get("user"))
    except UnsafeLogFile:
        return
    try:
        os.write(fd, ("vllm-launcher: %s\n" % text).encode("utf-8", "replace"))
    finally:
        os.close(fd)


def supervise(config, env, report_fd=None):
    """Run the server and start it again when it ends, as the unit's restart policy does; stop
    it on SIGTERM. Runs in the supervisor process (see start); returns its exit status."""
    restart_sec = float(config.get("restart_sec", RESTART_SEC))
    burst = int(config.get("start_limit_burst", START_LIMIT_BURST))
    interval = float(config.get("start_limit_interval", START_LIMIT_INTERVAL))
    stop_timeout = float(config["stop_timeout"])
    stopping = []
    current = []

    def on_stop(signum, frame):
        if not stopping:
            stopping.append(signum)
            if current:
                _kill_group(current[0], signal.SIGTERM)
                signal.alarm(int(stop_timeout) + 1)

    def on_alarm(signum, frame):
        if current:
            _kill_group(current[0], signal.SIGKILL)

    signal.signal(signal.SIGTERM, on_stop)
    signal.signal(signal.SIGINT, on_stop)
    signal.signal(signal.SIGALRM, on_alarm)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    starts = []
    restarts = 0
    last_exit = None
    while not stopping:
        now = time.time()
        starts = [t for t in starts if now - t < interval]
        if len(starts) >= burst:
            text = ("start limit hit: %d starts within %d s; not starting again until "
                    "`vllm-launcher start` (or the next run of the playbook)" % (burst, interval))
            _log_line(config, text)
            write_state(config, state="failed", reason=text, restarts=restarts, last_exit=last_exit)
            return 1
        try:
            log_fd = open_log(config["log_file"], config.get("user"))
        except UnsafeLogFile as err:
            write_state(config, state="failed", reason="not started: %s" % err, restarts=restarts,
                        last_exit=last_exit)
            return 1
        starts.append(time.time())
        server = _spawn(config, env, log_fd)
        os.close(log_fd)
        current[:] = [server]
        write_pidfile(config["pidfile"], server)
        write_state(config, state="running", pid=server, restarts=restarts, last_exit=last_exit,
                    started=time.strftime("%Y-%m-%dT%H:%M:%S%z"))
        if report_fd is not None:
            os.write(report_fd, ("%d" % server).encode())
            os.close(report_fd)
            report_fd = None
        began = time.time()
        while True:
            try:
                _, status = os.waitpid(server, 0)
                break
            except InterruptedError:
                continue
        signal.alarm(0)
        _stop_group(server, GROUP_STOP_TIMEOUT if not stopping else 2)
        current[:] = []
        _remove(config["pidfile"])
        if stopping:
            break
        ran = time.time() - began
        diagnosis = diagnose_log(config)
        last_exit = {"pid": server, "how": _exit_text(status), "after_s": round(ran, 1),
                     "at": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "diagnosis": diagnosis}
        _log_line(config, "the server (pid %d) %s after %.0f s%s; starting it again in %g s "
                  "(start %d of at most %d within %d s)" % (
                      server, last_exit["how"], ran, "; doctor: %s" % diagnosis if diagnosis else "",
                      restart_sec, len(starts) + 1, burst, interval))
        restarts += 1
        write_state(config, state="restarting", restarts=restarts, last_exit=last_exit)
        deadline = time.time() + restart_sec
        while not stopping and time.time() < deadline:
            time.sleep(0.1)
    write_state(config, state="stopped", restarts=restarts, last_exit=last_exit)
    return 0


def systemd_is_pid1(proc="/proc", run_dir="/run/systemd/system"):
    """As sd_booted(): /run/systemd/system exists, and PID 1 is systemd."""
    try:
        with open(os.path.join(proc, "1", "comm")) as handle:
            return os.path.isdir(run_dir) and handle.read().strip() == "systemd"
    except (IOError, OSError):
        return False


def start(config, out=sys.stdout):
    if systemd_is_pid1() and not config.get("with_systemd"):
        # WSL's [boot] command may still call the launcher after systemd was turned on there
        out.write("vllm-launcher: systemd is PID 1 here: the vllm unit runs the server "
                  "(`systemctl status vllm`); not starting a second one\n")
        return 0
    pid = running_pid(config)
    if pid:
        out.write("vllm-launcher: already running, pid %d\n" % pid)
        return 0
    sup = supervisor_pid(config)
    if sup:
        out.write("vllm-launcher: already supervised by pid %d (the server is restarting: "
                  "`vllm-launcher status`)\n" % sup)
        return 0
    env = build_env(config)
    piddir = os.path.dirname(config["pidfile"])
    if piddir and not os.path.isdir(piddir):
        os.makedirs(piddir, 0o755)
    try:
        os.close(open_log(config["log_file"], config.get("user")))
    except UnsafeLogFile as err:
        out.write("vllm-launcher: not started: %s\n" % err)
        return 1
    read_fd, write_fd = os.pipe()
    child = os.fork()
    if child == 0:  # first child: fork the supervisor, exit (init adopts the supervisor)
        code = 0
        try:
            os.close(read_fd)
            if os.fork() == 0:
                try:
                    os.setsid()
                    null_fd = os.open(os.devnull, os.O_RDWR)
                    for fd in (0, 1, 2):
                        os.dup2(null_fd, fd)
                    close_fds(keep=(0, 1, 2, write_fd))
                    _write_atomic(_supervisor_pidfile(config), "%d %s\n" % (
                        os.getpid(), _start_time(os.getpid())))
                    code = supervise(config, env, report_fd=write_fd)
                    _remove(_supervisor_pidfile(config))
                except BaseException:
                    code = 1
                os._exit(code)
        finally:
            os._exit(0)
    os.close(write_fd)
    os.waitpid(child, 0)
    data = os.read(read_fd, 64)
    os.close(read_fd)
    server_pid = int(data) if data else None
    time.sleep(0.5)
    if not server_pid or not pid_running(server_pid):
        out.write("vllm-launcher: the server exited at once; see %s (it is started again in "
                  "%g s, at most %d times within %d s)\n" % (
                      config["log_file"], float(config.get("restart_sec", RESTART_SEC)),
                      int(config.get("start_limit_burst", START_LIMIT_BURST)),
                      int(config.get("start_limit_interval", START_LIMIT_INTERVAL))))
        return 1
    out.write("vllm-launcher: started, pid %d, log %s (restarted when it ends)\n"
              % (server_pid, config["log_file"]))
    return 0


def _kill_group(pid, sig):
    try:
        os.killpg(pid, sig)
    except OSError as err:
        if err.errno != errno.ESRCH:
            try:
                os.kill(pid, sig)
            except OSError:
                pass


def stop(config, out=sys.stdout, sleep=time.sleep):
    sup = supervisor_pid(config)
    pid = running_pid(config)
    if sup:
        os.kill(sup, signal.SIGTERM)
        deadline = time.time() + float(config["stop_timeout"]) + 5
        while pid_running(sup) and time.time() < deadline:
            sleep(0.2)
        if pid_running(sup):
            os.kill(sup, signal.SIGKILL)
            _remove(_supervisor_pidfile(config))
        if not (pid and pid_running(pid)):  # else the supervisor gave up on it: the old way below
            out.write("vllm-launcher: stopped%s\n" % (" pid %d" % pid if pid else
                                                      " (the server was restarting)"))
            _remove(config["pidfile"])
            return 0
    if not pid:
        out.write("vllm-launcher: not running\n")
        _remove(config["pidfile"])
        return 0
    _kill_group(pid, signal.SIGTERM)
    deadline = time.time() + float(config["stop_timeout"])
    while pid_running(pid) and time.time() < deadline:
        sleep(0.2)
    if pid_running(pid):
        _kill_group(pid, signal.SIGKILL)
        sleep(0.5)
        out.write("vllm-launcher: stopped pid %d (killed after %ss)\n" % (pid, config["stop_timeout"]))
    else:
        out.write("vllm-launcher: stopped pid %d\n" % pid)
    _remove(config["pidfile"])
    return 0


def _last_exit_text(last):
    if not last:
        return ""
    text = "; last exit: pid %s %s after %s s at %s" % (last.get("pid"), last.get("how"),
                                                        last.get("after_s"), last.get("at"))
    if last.get("diagnosis"):
        text += "; doctor: %s" % last["diagnosis"]
    return text


def status(config, out=sys.stdout):
    pid = running_pid(config)
    sup = supervisor_pid(config)
    state = read_state(config)
    if pid:
        out.write("vllm-launcher: running, pid %d%s%s\n" % (
            pid, ", supervised by pid %d" % sup if sup else ", not supervised",
            "; restarted %d times%s" % (state["restarts"], _last_exit_text(state.get("last_exit")))
            if state.get("restarts") else ""))
        return 0
    if sup:
        out.write("vllm-launcher: restarting (supervised by pid %d; restarted %d times%s)\n" % (
            sup, state.get("restarts", 0), _last_exit_text(state.get("last_exit"))))
        return EXIT_NOT_RUNNING
    if state.get("state") == "failed":
        out.write("vllm-launcher: failed: %s%s\n" % (state.get("reason"),
                                                    _last_exit_text(state.get("last_exit"))))
        return EXIT_NOT_RUNNING
    out.write("vllm-launcher: not running\n")
    return EXIT_NOT_RUNNING


def _remove(path):
    try:
        os.unlink(path)
    except OSError:
        pass


def diagnose_unit(unit, env=None, out=sys.stdout, run=None):
    """systemd's ExecStopPost= (run as root, '+'): after a server that did not end by a clean
    stop, print the doctor's reading of this invocation's journal, so that `systemctl status`
    and the journal name the cause next to the exit. Always returns 0 (never fails the unit)."""
    env = os.environ if env is None else env
    result, code, status_ = (env.get("SERVICE_RESULT", ""), env.get("EXIT_CODE", ""),
                             env.get("EXIT_STATUS", ""))
    if result == "success":
        return 0
    if run is None:
        import subprocess

        def run(argv):
            try:
                return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                      timeout=30).stdout.decode("utf-8", "replace")
            except (OSError, subprocess.SubprocessError):
                return ""
    # this start's lines only (the invocation id is the start's), else the unit's latest
    argv = ["journalctl", "--no-pager", "-o", "cat"] + (
        ["_SYSTEMD_INVOCATION_ID=%s" % env["INVOCATION_ID"]] if env.get("INVOCATION_ID")
        else ["-u", unit, "-n", "5000"])
    text = run(argv)
    how = ("killed by SIG%s" % status_ if code in ("killed", "dumped") else
           "exited with status %s" % status_ if code == "exited" else (code or "ended"))
    diagnosis = diagnose_text(text) if text else None
    line = "the server %s (%s)%s" % (how, result or "unknown result",
                                      "; doctor: %s" % diagnosis if diagnosis else "")
    out.write("vllm: %s\n" % line)
    # also the unit's status text (NotifyAccess=all): `systemctl status vllm` shows it as
    # "Status:", after the start limit too, when the journal lines shown are the last start's
    notify("STATUS=last exit at %s: %s" % (time.strftime("%H:%M:%S"), line), env)
    return 0


def notify(message, env=None, linger=0.5):
    """sd_notify(3) without libsystemd: one datagram to $NOTIFY_SOCKET. The sender stays a moment
    so that systemd can still tell which unit it belongs to. Returns whether it was sent."""
    env = os.environ if env is None else env
    path = env.get("NOTIFY_SOCKET")
    if not path or path[0] not in "/@":
        return False
    import socket
    address = "\0" + path[1:] if path[0] == "@" else path
    try:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        try:
            sock.sendto(message.encode("utf-8", "replace"), address)
        finally:
            sock.close()
    except OSError:
        return False
    time.sleep(linger)
    return True


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) == 2 and argv[0] == "diagnose-unit":
        return diagnose_unit(argv[1])
    config_path = os.environ.get("VLLM_LAUNCHER_CONFIG", DEFAULT_CONFIG)
    if len(argv) >= 2 and argv[0] == "--config":
        config_path, argv = argv[1], argv[2:]
    if len(argv) != 1 or argv[0] not in ("start", "stop", "status", "restart"):
        sys.stderr.write("usage: vllm-launcher [--config FILE] {start|stop|status|restart}\n"
                         "       vllm_launcher.py diagnose-unit UNIT  (systemd's ExecStopPost)\n")
        return 2
    config = load_config(config_path)
    action = argv[0]
    if action == "start":
        return start(config)
    if action == "stop":
        return stop(config)
    if action == "status":
        return status(config)
    stop(config)
    return start(config)


if __name__ == "__main__":
    sys.exit(main())
