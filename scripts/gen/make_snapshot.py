"""Regenerate the offline enhancements snapshot in ``examples/`` from a git source.

    .venv/bin/python scripts/gen/make_snapshot.py SOURCE [--rev REV] [--out-dir examples]

SOURCE: a git repository (local path, ``https://``/``file://`` URL, or a bundle such as
``../shared/data/enhancements-keps.bundle``); REV defaults to its ``HEAD``. Every
``keps/**/kep.yaml`` and ``keps/prod-readiness/**.yaml`` at that one revision (read with
:func:`bot.sources.git.scan_git_tree`, the same reader as the git source) goes into
``OUT_DIR/enhancements-<commit date, UTC>-<short commit>.tar.gz``, under the top folder
``enhancements-<short commit>/``, with the full commit SHA in the pax global header
``comment`` (as ``git archive`` and GitHub's tarballs carry it), which kep-sync reports as
the revision. The archive is deterministic: members sorted by path, mtime = the commit
time, uid/gid 0 with no owner names, mode 0644, gzip header without name or time.
Prints the path, the member count and the size in bytes.
"""

from __future__ import annotations

import argparse
import datetime
import gzip
import io
import sys
import tarfile
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bot.errors import KepSyncError  # noqa: E402
from bot.sources.git import run_git, scan_git_tree, sync_git_cache  # noqa: E402


def build_tarball(files: list[tuple[str, bytes]], sha: str, mtime: int) -> bytes:
    """The ``.tar.gz`` bytes for ``files`` (``[(path, bytes)]``) at commit ``sha`` (40 hex), ``mtime`` (Unix s)."""
    top = f"enhancements-{sha[:12]}"
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT, pax_headers={"comment": sha}) as tar:
        for path, data in sorted(files):
            info = tarfile.TarInfo(f"{top}/{path}")
            info.size, info.mtime, info.mode = len(data), mtime, 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(data))
    out = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=out, compresslevel=9, mtime=0) as gz:
        gz.write(raw.getvalue())
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    """Write the snapshot; returns the exit code: 0, or 2 with one ``make_snapshot.py: error:`` line on stderr
    when the source, the revision or the output directory cannot be used."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", help="git repository: path, URL or bundle")
    parser.add_argument("--rev", default="HEAD", help="revision to snapshot (default: HEAD)")
    parser.add_argument("--out-dir", default="examples", help="where the tarball goes (default: examples)")
    args = parser.parse_args(argv)
    try:
        return write_snapshot(args.source, args.rev, Path(args.out_dir))
    except (KepSyncError, OSError) as exc:
        message = f"{exc.filename}: {exc.strerror}" if isinstance(exc, OSError) and exc.filename else str(exc)
        print(f"make_snapshot.py: error: {message}", file=sys.stderr)
        return 2


def write_snapshot(source: str, rev: str, out_dir: Path) -> int:
    """Write the tarball of ``source`` at ``rev`` into ``out_dir``; returns 0. Raises
    :class:`~bot.errors.KepSyncError` (source, revision) or :class:`OSError` (output)."""
    with tempfile.TemporaryDirectory(prefix="kep-sync-snapshot-") as cache:
        repo = sync_git_cache(source, Path(cache))
        sha, stamp = run_git(repo, "log", "-1", "--format=%H %ct", f"{rev}^{{commit}}", "--").split()
        files, problems = scan_git_tree(repo, sha)
    for problem in problems:
        print(f"skipped {problem.path}: {problem.message}", file=sys.stderr)
    data = build_tarball(files, sha, int(stamp))
    date = datetime.datetime.fromtimestamp(int(stamp), datetime.UTC).date().isoformat()
    out = out_dir / f"enhancements-{date}-{sha[:7]}.tar.gz"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(data)
    print(f"{out}: {len(files)} files at {sha}, {len(data)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
