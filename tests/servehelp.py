"""Helpers for the service tests: a tiny enhancements repository, a loopback GitHub API, a serve subprocess.

- :data:`KEP_YAML` / :data:`PAGE`: one KEP (4671, beta since v1.36) and a wiki page that is two cells stale;
- :func:`tarball`: the gzip tarball GitHub serves for a commit;
- :class:`FakeApi`: ``GET /repos/o/enh/commits/main`` (SHA text, ETag, ``304`` on ``If-None-Match``)
  and ``GET /repos/o/enh/tarball/SHA`` on 127.0.0.1, optionally holding the tarball until released;
- :class:`ServeProcess`: ``kep-sync serve`` as a subprocess whose JSON log lines can be awaited.
"""

from __future__ import annotations

import io
import json
import os
import queue
import subprocess
import sys
import tarfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
SHA = "a" * 40
#: Base URL of the GitHub API that the ``github`` fixture (tests/conftest.py) mocks with respx.
API = "https://api.example.test"
#: Guard for waits on the subprocess and the server: a hang fails the test instead of blocking it.
GUARD_SECONDS = 60

KEP_PATH = "keps/sig-scheduling/4671-gang-scheduling/kep.yaml"
KEP_YAML = b"""title: Gang scheduling
kep-number: "4671"
owning-sig: sig-scheduling
status: implementable
stage: beta
latest-milestone: "v1.36"
milestone:
  alpha: "v1.35"
  beta: "v1.36"
  stable: "v1.38"
"""
PAGE = """# KEP matrix

| KEP | SIG | Status | Alpha / Beta / GA |
|---|---|---|---|
| 4671-gang-scheduling | scheduling | implementable / alpha | v1.35 / v1.37 / v1.38 |
"""
PAGE_SYNCED = PAGE.replace("implementable / alpha | v1.35 / v1.37", "implementable / beta | v1.35 / v1.36")


def tarball(files: dict[str, bytes], sha: str = SHA) -> bytes:
    """A ``.tar.gz`` with every file under ``o-enh-<sha7>/``, like GitHub's tarball endpoint."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for path, data in files.items():
            info = tarfile.TarInfo(f"o-enh-{sha[:7]}/{path}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def write_setup(tmp: Path, api_url: str, cron: str = "0 0 1 1 *") -> Path:
    """Write the wiki page and a config (``github:o/enh@main`` at ``api_url``, publish files); return the config."""
    wiki = tmp / "wiki"
    wiki.mkdir()
    (wiki / "matrix.md").write_text(PAGE, encoding="utf-8")
    config = tmp / "kep-sync.yaml"
    config.write_text(
        json.dumps(
            {
                "enhancements": "github:o/enh@main",
                "cache_dir": str(tmp / "cache"),
                "wiki": {"dir": str(wiki), "pages": ["matrix.md"]},
                "publish": "files",
                "github": {"api_url": api_url},
                "schedule": {"cron": cron, "timezone": "UTC"},
                "provenance": {
                    "enabled": False
                },  # these tests count requests; provenance ones are in test_history_sync
            }
        ),
        encoding="utf-8",
    )
    return config


class FakeApi:
    """The two GitHub REST endpoints a ``github:`` source uses, on 127.0.0.1 (a context manager).

    ``requests``: ``[(path, If-None-Match)]``; set ``hold`` before a run to make the
    tarball request signal ``arrived`` and wait for ``release``.
    """

    def __init__(self, files: dict[str, bytes] | None = None, sha: str = SHA, etag: str = '"e1"'):
        self.sha, self.etag = sha, etag
        self.body = tarball(files or {KEP_PATH: KEP_YAML}, sha)
        self.requests: list[tuple[str, str | None]] = []
        self.hold, self.arrived, self.release = threading.Event(), threading.Event(), threading.Event()
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_GET(self) -> None:
                api.requests.append((self.path, self.headers.get("If-None-Match")))
                if self.path == "/repos/o/enh/commits/main":
                    if self.headers.get("If-None-Match") == api.etag:
                        return self._send(304, b"")
                    return self._send(200, api.sha.encode())
                if self.path == f"/repos/o/enh/tarball/{api.sha}":
                    if api.hold.is_set():
                        api.arrived.set()
                        api.release.wait(GUARD_SECONDS)
                    return self._send(200, api.body)
                self._send(404, b"{}")

            def _send(self, status: int, body: bytes) -> None:
                self.send_response(status)
                self.send_header("ETag", api.etag)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> FakeApi:
        # shutdown() waits for the next look at its flag: every 5 ms, not socketserver's 0.5 s
        threading.Thread(target=self._server.serve_forever, args=(0.005,), daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.release.set()
        self._server.shutdown()
        self._server.server_close()


class ServeProcess:
    """``python -m bot.cli ARGS`` with its stderr JSON lines collected by a reader thread."""

    def __init__(self, *args: str, tmp: Path):
        env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_TOKEN", "GITHUB_TOKEN_FILE")}
        env["KEP_SYNC_CACHE_DIR"] = str(tmp / "cache")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bot.cli", *args],
            cwd=REPO_ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.events: list[dict] = []
        self._lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for raw in self.proc.stderr:
            self._lines.put(raw.decode("utf-8", "replace"))
        self._lines.put(None)

    def wait_for(self, event: str) -> dict:
        """The first log line with ``"event": event`` (lines before it are kept in ``events``)."""
        while True:
            line = self._lines.get(timeout=GUARD_SECONDS)
            if line is None:
                raise AssertionError(f"process ended before {event!r}; log: {self.events}")
            record = json.loads(line)
            self.events.append(record)
            if record.get("event") == event:
                return record

    def finish(self) -> int:
        """Wait for the exit code, collecting the remaining log lines."""
        code = self.proc.wait(GUARD_SECONDS)
        while (line := self._lines.get(timeout=GUARD_SECONDS)) is not None:
            self.events.append(json.loads(line))
        return code
