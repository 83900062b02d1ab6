"""Helpers for the enhancements-source tests: a small upstream tree, GitHub-style tarballs and an
``httpx`` handler that serves them (``FakeGitHub``), a recorder for retry waits."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import httpx

from bot.http import RequestCounter, make_client

TOKEN = "ghp_secret1234567890"
SHA = "0123456789abcdef0123456789abcdef01234567"
API = "https://api.github.com"
TOP = f"kubernetes-enhancements-{SHA[:7]}"


def kep(number: str, title: str = "T", stage: str = "alpha") -> str:
    return f'title: {title}\nkep-number: "{number}"\nstatus: implementable\nstage: {stage}\n'


#: A small upstream tree: two KEPs, a template, a PRR file and files that must be ignored.
UPSTREAM = {
    "keps/sig-a/1-first/kep.yaml": kep("1", "First"),
    "keps/sig-a/1-first/README.md": "# First\n",
    "keps/sig-b/2-second/kep.yaml": kep("2", "Second", "beta"),
    "keps/NNNN-kep-template/kep.yaml": "title: template\nkep-number: NNNN\n",
    "keps/prod-readiness/sig-a/1.yaml": "kep-number: 1\nalpha:\n  approver: '@someone'\n",
    "keps/prod-readiness/sig-a/notes.md": "notes\n",
    "keps/sig-a/other.yaml": "not: a kep\n",
    "api/proposal.go": "package api\n",
    "README.md": "# enhancements\n",
}
WANTED = sorted(
    p for p in UPSTREAM if p.endswith("/kep.yaml") or p.startswith("keps/prod-readiness/") and p.endswith(".yaml")
)


def write_tree(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def cache_repos(cache: Path) -> list[Path]:
    return sorted(p for p in (cache / "git").iterdir()) if (cache / "git").is_dir() else []


def file_info(name: str, data: bytes) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = 0o644
    return info, data


def link_info(name: str, target: str, kind: bytes = tarfile.SYMTYPE) -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = target
    return info, None


def dir_info(name: str) -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type = tarfile.DIRTYPE
    info.mode = 0o755
    return info, None


def make_tarball(files: dict[str, str | bytes], *, extra: list = (), top: str = TOP) -> bytes:
    """A GitHub-style .tar.gz: pax global header with the commit, ``top/`` folder, then members."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", format=tarfile.PAX_FORMAT, pax_headers={"comment": SHA}) as tar:
        tar.addfile(*dir_info(f"{top}/"))
        dirs: set[str] = set()
        for rel, content in files.items():
            parent = rel.rsplit("/", 1)[0] if "/" in rel else ""
            parts = parent.split("/") if parent else []
            for i in range(1, len(parts) + 1):
                d = "/".join(parts[:i])
                if d not in dirs:
                    dirs.add(d)
                    tar.addfile(*dir_info(f"{top}/{d}/"))
            data = content.encode() if isinstance(content, str) else content
            info, data = file_info(f"{top}/{rel}", data)
            tar.addfile(info, io.BytesIO(data))
        for info, data in extra:
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return buf.getvalue()


class ChunkedStream(httpx.SyncByteStream):
    """A response body served in small chunks, optionally failing after ``fail_after`` chunks."""

    def __init__(self, data: bytes, chunk: int = 4096, fail_after: int | None = None):
        self.data, self.chunk, self.fail_after, self.served = data, chunk, fail_after, 0
        self.closed = False

    def __iter__(self):
        for i in range(0, len(self.data), self.chunk):
            if self.fail_after is not None and self.served >= self.fail_after:
                raise httpx.ReadError(f"connection reset while sending {TOKEN}")
            self.served += 1
            yield self.data[i : i + self.chunk]

    def close(self) -> None:
        self.closed = True


class FakeGitHub:
    """Serves ``commits/{ref}`` (sha media type) and ``tarball/{sha}`` (302 to a codeload host)."""

    def __init__(
        self,
        tarball: bytes = b"",
        *,
        sha: str = SHA,
        repo: str = "kubernetes/enhancements",
        refs: tuple[str, ...] = ("master", "HEAD"),
        fail_after: int | None = None,
        tarball_status: int = 200,
    ):
        self.tarball, self.sha, self.repo, self.refs = tarball, sha, repo, refs
        self.fail_after, self.tarball_status = fail_after, tarball_status
        self.requests: list[httpx.Request] = []
        self.streams: list[ChunkedStream] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        path = request.url.path
        commits = f"/repos/{self.repo}/commits/"
        if request.url.host == "api.github.com" and path.startswith(commits):
            if request.headers.get("Accept") != "application/vnd.github.sha":
                return httpx.Response(415, json={"message": "wrong media type"})
            if path[len(commits) :] not in self.refs:
                return httpx.Response(404, json={"message": "No commit found for SHA"})
            return httpx.Response(200, text=self.sha)
        if request.url.host == "api.github.com" and path == f"/repos/{self.repo}/tarball/{self.sha}":
            return httpx.Response(
                302, headers={"Location": f"https://codeload.example/{self.repo}/legacy.tar.gz/{self.sha}"}
            )
        if request.url.host == "codeload.example":
            if self.tarball_status != 200:
                return httpx.Response(self.tarball_status, text="nope")
            stream = ChunkedStream(self.tarball, fail_after=self.fail_after)
            self.streams.append(stream)
            return httpx.Response(200, headers={"Content-Type": "application/x-gzip"}, stream=stream)
        return httpx.Response(404, json={"message": "Not Found"})


class SleepRecorder:
    def __init__(self) -> None:
        self.calls: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


def client_for(handler, token: str | None = TOKEN, counter: RequestCounter | None = None) -> httpx.Client:
    return make_client(token, counter=counter, transport=httpx.MockTransport(handler))


TARBALL_FILES = {
    "README.md": "# enhancements\n",
    "api/proposal.go": "package api\n",
    "keps/sig-a/1-first/kep.yaml": kep("1", "First"),
    "keps/sig-a/1-first/README.md": "# First\n",
    "keps/sig-b/2-second/kep.yaml": kep("2", "Second", "beta"),
    "keps/NNNN-kep-template/kep.yaml": "title: template\n",
    "keps/prod-readiness/sig-a/1.yaml": "kep-number: 1\n",
    "keps/prod-readiness/template/nnnn.yaml": "kep-number: NNNN\n",
    "keps/sig-a/other.yaml": "x: y\n",
}
