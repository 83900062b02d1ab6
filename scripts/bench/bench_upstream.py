"""Benchmark: what a scheduled ``kep-sync sync`` costs upstream, with ``cache_dir`` kept between runs.

    .venv/bin/python scripts/bench/bench_upstream.py [--bundle ../shared/data/enhancements-keps.bundle]

A loopback fake GitHub (``tests/fakegithub/``) serves ``kubernetes/enhancements`` from the history bundle
(every object with its real SHA, ``tests/fakeupstream.py``) and the wiki repository ``acme/wiki`` holding the
2026-03-01 matrix page. ``kep-sync sync --publish github`` runs in this process three times, as the
scheduled workflow does: the first run (empty ``cache_dir``) at commit ``H0``, a run with nothing changed,
and a run after upstream moved to ``H1``, the newest commit of the bundle that changes exactly one kep.yaml
(nothing else). The same three runs without the upstream cache ("before": the tarball every run, as kep-sync
read a ``github:`` source until the cache existed) give the ratios. Printed per run: requests and bytes
(status line, headers and body, as the server sent them) to and from ``kubernetes/enhancements``, the wiki's
requests, and the wall time. Targets: no change <= 3 requests and 10 KB upstream; one kep.yaml changed <=
40 KB; the first run no more than before but the one request that ties the cache to the commit (its tree id:
1 request, 2 KB). Exit code 1 when a target is missed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from scripts.bench._bench import SHARED, bench_parser  # noqa: E402

UPSTREAM = "kubernetes/enhancements"
WIKI, PAGE_PATH = "acme/wiki", "matrix.md"
PAGE = SHARED / "wiki" / "kubernetes-keps-implementation-matrix.2026-03-01.md"


class Figures(NamedTuple):
    """One run: ``requests`` and ``bytes`` upstream, the wiki's ``wiki_requests``, ``seconds`` of wall time,
    and how the upstream files were read (``read``)."""

    requests: int
    bytes: int
    wiki_requests: int
    seconds: float
    read: str


def counting_fake():
    """A :class:`tests.fakegithub.FakeGitHub` that also records ``(path, response bytes)`` in ``sizes``."""
    from tests.fakegithub import FakeGitHub

    class Counting(FakeGitHub):
        def __init__(self):
            super().__init__()
            self.sizes: list[tuple[str, int]] = []

        def _dispatch(self, req):
            resp = super()._dispatch(req)
            head = len(f"HTTP/1.1 {resp.status}\r\n") + sum(len(k) + len(v) + 4 for k, v in resp.headers.items())
            self.sizes.append((req.path, head + 2 + len(resp.get_data())))
            return resp

    return Counting()


def one_kep_commit(repo: Path, line: list[str]) -> int:
    """The index in ``line`` (first-parent commits, oldest first) of the newest commit that changes exactly one
    file, a kep.yaml."""
    for i in range(len(line) - 1, 0, -1):
        names = subprocess.run(
            ["git", "-C", str(repo), "diff", "--name-only", line[i - 1], line[i]],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        if len(names) == 1 and names[0].endswith("/kep.yaml"):
            return i
    raise SystemExit("no commit in the bundle changes exactly one kep.yaml")


def run(fake, config, cached: bool) -> Figures:
    """One ``run_sync`` against ``fake``; ``cached`` False reads upstream as before the cache (the tarball)."""
    import bot.commands.sync
    from bot.commands.inputs import Inputs
    from bot.http import RequestCounter
    from tests.fakegithub import CODELOAD

    fake.reset_counters()
    fake.sizes.clear()
    inputs = Inputs(config, RequestCounter())
    if not cached:  # no upstream reader: the snapshot is read from the tarball
        inputs._up.values["upstream"] = None
    start = time.perf_counter()
    bot.commands.sync.run_sync(config, inputs=inputs)
    seconds = time.perf_counter() - start
    ours = (f"/repos/{UPSTREAM}/", f"{CODELOAD}/{UPSTREAM}/")  # the API, and the archive host it redirects to
    up = [size for path, size in fake.sizes if path.startswith(ours)]
    reads = [p.split("/")[4] for p, _ in fake.sizes if p.startswith(ours[0])]
    read = "tarball" if "tarball" in reads else "compare" if "compare" in reads else "cache"
    return Figures(len(up), sum(up), len(fake.sizes) - len(up), seconds, read)


def scenario(bundle: str, cached: bool) -> list[tuple[str, Figures]]:
    """The three runs (first, no change, one kep.yaml changed) on a fresh fake and an empty ``cache_dir``."""
    import bot.commands.sync
    from bot.config import Config
    from tests.fakeupstream import load_git_repo, move_branch

    with tempfile.TemporaryDirectory(prefix="kep-sync-bench-upstream-") as tmp_name, counting_fake() as fake:
        tmp = Path(tmp_name)
        repo = tmp / "enhancements.git"
        subprocess.run(["git", "clone", "-q", "--bare", bundle, str(repo)], check=True)
        line = load_git_repo(fake, repo, UPSTREAM)
        h1 = one_kep_commit(repo, line)
        move_branch(fake, UPSTREAM, "master", line[h1 - 1])
        fake.seed_repo(WIKI, {PAGE_PATH: PAGE.read_text(encoding="utf-8")})
        config = Config.model_validate(
            {
                "enhancements": f"github:{UPSTREAM}@master",
                "cache_dir": str(tmp / "cache"),
                "publish": "github",
                "github": {"api_url": fake.url},
                "wiki": {"repo": WIKI, "base": "main", "pages": [PAGE_PATH]},
                "pull_request": {"branch": "kep-sync/matrix"},
            }
        )
        wiki = bot.commands.sync.open_wiki
        bot.commands.sync.open_wiki = lambda config, counter=None: wiki(config, counter, seconds_between_writes=0)
        try:
            rows = [
                ("first run (empty cache_dir)", run(fake, config, cached)),
                ("no change", run(fake, config, cached)),
            ]
            move_branch(fake, UPSTREAM, "master", line[h1])
            rows.append(("one kep.yaml changed", run(fake, config, cached)))
        finally:
            bot.commands.sync.open_wiki = wiki
    return rows


def main() -> int:
    args = bench_parser(__doc__, 1).parse_args()
    from bot.log import configure

    configure("error")
    os.environ["GITHUB_TOKEN"] = "bench-token"  # the fake's user; never a real token
    before, after = scenario(args.bundle, cached=False), scenario(args.bundle, cached=True)
    print(f"{'run':30} {'':7} {'upstream req':>12} {'upstream bytes':>15} {'wiki req':>8} {'time':>8}  read")
    for (name, old), (_, new) in zip(before, after, strict=False):
        for label, fig in (("before", old), ("cached", new)):
            print(
                f"{name if label == 'before' else '':30} {label:7} {fig.requests:>12} {fig.bytes:>15,} "
                f"{fig.wiki_requests:>8} {fig.seconds:>7.2f}s  {fig.read}"
            )
        print(f"{'':30} {'ratio':7} {new.requests / old.requests:>12.3f} {new.bytes / old.bytes:>15.4f}")
    first, same, one = (fig for _, fig in after)
    checks = [
        ("no change <= 3 requests and 10 KB upstream", same.requests <= 3 and same.bytes <= 10_000),
        ("one kep.yaml changed <= 40 KB upstream", one.bytes <= 40_000),
        (
            "first run no more than before but the commit's tree id (1 request, 2 KB)",
            first.requests <= before[0][1].requests + 1 and first.bytes <= before[0][1].bytes + 2048,
        ),
    ]
    for name, ok in checks:
        print(f"target: {name}: {'met' if ok else 'MISSED'}")
    return 0 if all(ok for _, ok in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
