"""The offline snapshot: a local ``.tar.gz`` as a source kind (bot/sources/tarball.py), the script that makes
it (scripts/gen/make_snapshot.py), the snapshot shipped in ``examples/`` and the README's first command with no
route to any network."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import tarfile
from pathlib import Path

import httpx
import pytest

from bot.errors import SourceError
from bot.model.kep import Problem
from bot.sources.enhancements import Source, current_revision, load_snapshot, parse_source

try:
    from tests.gitutil import commit, git, make_repo
    from tests.sourcesutil import SHA, TARBALL_FILES, TOP, kep, link_info, make_tarball
except ImportError:  # pragma: no cover
    from gitutil import commit, git, make_repo
    from sourcesutil import SHA, TARBALL_FILES, TOP, kep, link_info, make_tarball

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts" / "gen"))
import make_snapshot  # noqa: E402

BUNDLE = ROOT.parent / "shared" / "data" / "enhancements-keps.bundle"
SNAPSHOTS = sorted((ROOT / "examples").glob("enhancements-*.tar.gz"))


def no_http() -> httpx.Client:
    """A client that fails the test on any request."""

    def refuse(request):
        raise AssertionError(f"unexpected request {request.url}")

    return httpx.Client(transport=httpx.MockTransport(refuse))


def test_local_tarball_is_a_source_kind(tmp_path):
    for name in ("snap.tar.gz", "SNAP.TGZ"):
        (tmp_path / name).write_bytes(make_tarball(TARBALL_FILES))
        assert parse_source(str(tmp_path / name)) == Source("tarball", str(tmp_path / name))


def test_local_tarball_source_reads_metadata_revision_and_problems(tmp_path):
    path = tmp_path / "snap.tar.gz"
    path.write_bytes(make_tarball(TARBALL_FILES, extra=[link_info(f"{TOP}/keps/sig-c/3-link/kep.yaml", "/etc/passwd")]))
    snap = load_snapshot(str(path), tmp_path / "cache")
    assert (snap.source, snap.revision) == (str(path), SHA)
    assert sorted(snap.keps) == [1, 2]
    assert [k.path for k in snap.all_keps()] == ["keps/sig-a/1-first/kep.yaml", "keps/sig-b/2-second/kep.yaml"]
    assert snap.prr == {1: ("keps/prod-readiness/sig-a/1.yaml",)}
    assert (
        Problem("keps/sig-c/3-link/kep.yaml", "", "archive entry is a symbolic link, not a file; skipped")
        in snap.problems
    )
    with no_http() as client:
        assert current_revision(str(path), client).revision == SHA
    assert not (tmp_path / "cache").exists()  # nothing cloned, nothing cached


def test_local_tarball_without_pax_commit_has_no_revision(tmp_path):
    path = tmp_path / "plain.tgz"
    with tarfile.open(path, "w:gz", format=tarfile.GNU_FORMAT) as tar:
        tar.add(
            _write(tmp_path / "src" / "keps" / "sig-a" / "1-first" / "kep.yaml", kep("1", "First")),
            arcname="top/keps/sig-a/1-first/kep.yaml",
        )
    snap = load_snapshot(str(path), tmp_path / "cache")
    assert (snap.revision, sorted(snap.keps)) == ("", [1])


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.mark.parametrize("name", ["/keps/sig-a/1-a/kep.yaml", "top/../../keps/sig-a/1-a/kep.yaml"])
def test_local_tarball_with_escaping_member_is_refused(tmp_path, name):
    path = tmp_path / "evil.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        info = tarfile.TarInfo(name)
        info.size = 3
        tar.addfile(info, __import__("io").BytesIO(b"x: "))
    with pytest.raises(SourceError) as err:
        load_snapshot(str(path), tmp_path / "cache")
    assert str(err.value) == f"{path}: archive member {name!r} escapes the archive, refused"


def test_local_file_that_is_not_a_tarball_is_source_error(tmp_path):
    path = tmp_path / "broken.tar.gz"
    path.write_bytes(b"not gzip at all")
    with pytest.raises(SourceError) as err:
        load_snapshot(str(path), tmp_path / "cache")
    assert str(err.value).startswith(f"{path}: not a readable tar.gz archive (")


# -- scripts/gen/make_snapshot.py ------------------------------------------------------------------------------


def test_make_snapshot_is_deterministic_and_reads_back_like_the_git_source(tmp_path, capsys):
    files = {
        "keps/sig-b/2-second/kep.yaml": kep("2", "Second"),
        "keps/sig-a/1-first/kep.yaml": kep("1", "First"),
        "keps/prod-readiness/sig-a/1.yaml": "kep-number: 1\n",
        "README.md": "not metadata\n",
    }
    make_repo(tmp_path / "up", files)
    sha = commit(tmp_path / "up", {"keps/sig-c/3-third/kep.yaml": kep("3", "Third")}, "third")
    assert make_snapshot.main([str(tmp_path / "up"), "--out-dir", str(tmp_path / "a")]) == 0
    assert make_snapshot.main([str(tmp_path / "up"), "--rev", sha, "--out-dir", str(tmp_path / "b")]) == 0
    name = f"enhancements-2026-01-02-{sha[:7]}.tar.gz"
    first, second = tmp_path / "a" / name, tmp_path / "b" / name
    assert first.read_bytes() == second.read_bytes()
    assert capsys.readouterr().out.splitlines()[0] == f"{first}: 4 files at {sha}, {first.stat().st_size} bytes"
    with tarfile.open(first) as tar:
        members = tar.getmembers()
        assert tar.pax_headers == {"comment": sha}
    assert [m.name for m in members] == [
        f"enhancements-{sha[:12]}/{p}"
        for p in sorted(
            [
                "keps/prod-readiness/sig-a/1.yaml",
                "keps/sig-a/1-first/kep.yaml",
                "keps/sig-b/2-second/kep.yaml",
                "keps/sig-c/3-third/kep.yaml",
            ]
        )
    ]
    commit_time = int(git(tmp_path / "up", "log", "-1", "--format=%ct"))
    assert {(m.mtime, m.uid, m.gid, m.uname, m.gname, m.mode) for m in members} == {(commit_time, 0, 0, "", "", 0o644)}
    from_tar = load_snapshot(str(first), tmp_path / "cache")
    from_git = load_snapshot(str(tmp_path / "up" / ".git"), tmp_path / "cache")
    assert (from_tar.revision, from_tar.keps, from_tar.prr, from_tar.problems) == (
        from_git.revision,
        from_git.keps,
        from_git.prr,
        from_git.problems,
    )


# -- the snapshot shipped in examples/ ---------------------------------------------------------------------


def test_one_snapshot_is_shipped_named_by_its_date_and_commit():
    assert len(SNAPSHOTS) == 1, SNAPSHOTS
    (path,) = SNAPSHOTS
    snap = load_snapshot(str(path), Path("/nonexistent-cache"))
    assert re.fullmatch(rf"enhancements-\d{{4}}-\d\d-\d\d-{snap.revision[:7]}\.tar\.gz", path.name)
    assert 50_000 < path.stat().st_size < 150_000
    assert len(snap.all_keps()) == 654
    assert sum(len(v) for v in snap.prr.values()) == 450
    demo = (ROOT / "config" / "demo.yaml").read_text()
    assert f"enhancements: ../examples/{path.name}\n" in demo and demo.startswith("# DEMO configuration")


@pytest.mark.acceptance
@pytest.mark.skipif(not BUNDLE.is_file(), reason=f"{BUNDLE} is absent")
def test_shipped_snapshot_is_the_bundle_head_byte_for_byte(tmp_path):
    (path,) = SNAPSHOTS
    assert make_snapshot.main([str(BUNDLE), "--out-dir", str(tmp_path)]) == 0
    assert (tmp_path / path.name).read_bytes() == path.read_bytes()


# -- the README's first command, with no route to the network -----------------------------------------------

_NO_NETWORK = """
import socket, sys
def refuse(*args, **kwargs):
    raise OSError("network is off in this test")
socket.socket.connect = socket.socket.connect_ex = refuse
socket.create_connection = socket.getaddrinfo = refuse
from bot.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_readme_first_command_prints_a_real_changelog_with_no_network(tmp_path):
    readme = (ROOT / "README.md").read_text()
    first = re.search(r"\n    (python3 -m venv .*)\n", readme).group(1)
    assert first.endswith(" && .venv/bin/kep-sync sync --config config/demo.yaml"), first
    proxy = f"http://127.0.0.1:{_closed_port()}"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KEP_SYNC_", "GITHUB_"))}
    env.update(
        HTTPS_PROXY=proxy,
        HTTP_PROXY=proxy,
        ALL_PROXY=proxy,
        NO_PROXY="",
        HOME=str(tmp_path),
        KEP_SYNC_CACHE_DIR=str(tmp_path / "cache"),
    )
    before = (ROOT / "examples" / "wiki" / "kubernetes-keps-implementation-matrix.md").read_bytes()
    proc = subprocess.run(
        [sys.executable, "-c", _NO_NETWORK, "sync", "--config", "config/demo.yaml"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(
        "# Update KEP matrix: 9 changes in 4 KEPs (4 promoted, 2 status changes, 3 retargeted)\n"
    )
    assert "beta: x.y → **v1.37**" in proc.stdout
    finished = json.loads(proc.stderr.splitlines()[-1])
    assert (finished["event"], finished["http_requests"], finished["revision"][:7]) == (
        "sync finished",
        0,
        SNAPSHOTS[0].name[-14:-7],
    )
    assert (ROOT / "examples" / "wiki" / "kubernetes-keps-implementation-matrix.md").read_bytes() == before
    assert not (tmp_path / "cache").exists()
    quoted, rest = readme_changelog(readme)
    assert [line for line in quoted if line not in proc.stdout.splitlines()] == []
    summaries = re.findall(r"<summary>(.*?)</summary>", proc.stdout)
    assert rest == f"two more rows, then collapsed sections: {', '.join(summaries)}."
    assert len(quoted) == 9 and len(re.findall(r"(?m)^\| \[", proc.stdout.split("<details>")[0])) == 4


def readme_changelog(readme: str) -> tuple[list[str], str]:
    """The changelog lines README.md quotes under "One pull request" (a paragraph wrapped over several ``>``
    lines joined into one; blank quote lines and the closing "… two more rows, ..." sentence left out), and that
    sentence after its "… "."""
    section = readme.split("## One pull request", 1)[1].split("\n## ", 1)[0]
    lines: list[str] = []
    for line in (line[1:].strip() for line in section.splitlines() if line.startswith(">")):
        if line and lines and lines[-1] and not line.startswith(("|", "- ", "#", "… ")):
            lines[-1] += " " + line  # a paragraph wrapped in the README: one line in the output
        else:
            lines.append(line)
    at = next(i for i, line in enumerate(lines) if line.startswith("… "))
    return [line for line in lines[:at] if line], lines[at][2:]
