"""Property-based harness: every writer of a sync (row sync, new rows, renames, the digest page, the front
matter date), published as files and as git commits, held to the invariants of tests/harness/invariants.py.

Profiles (tests/harness/conftest.py): ``ci`` by default, ``HYPOTHESIS_PROFILE=deep`` for a long search.
"""

from __future__ import annotations

import functools
import os
import tempfile
from pathlib import Path
from typing import NamedTuple

from hypothesis import assume, example, given, note
from hypothesis import strategies as st

try:
    from tests.gitutil import git
    from tests.harness import invariants as inv
    from tests.harness.runner import CANARY, Run, Scenario, branch_exists, lay_out, run_cli, wiki_pages
    from tests.harness.strategies import FOREIGN, KepSpec, Upstream, digest_page, pages, upstreams
except ImportError:  # pragma: no cover
    from gitutil import git

    from harness import invariants as inv
    from harness.runner import CANARY, Run, Scenario, branch_exists, lay_out, run_cli, wiki_pages
    from harness.strategies import FOREIGN, KepSpec, Upstream, digest_page, pages, upstreams

BRANCH = "kep-sync/matrix"
DIGEST = "d.md"


def _kep(number: int, slug: str, **fields) -> KepSpec:
    base = dict(
        sig="sig-scheduling",
        title=f"KEP {number}",
        status="implementable",
        stage="beta",
        alpha="v1.35",
        beta="v1.37",
        stable="",
        gates=(),
        twice="",
        old_slug="",
    )
    return KepSpec(number, slug, **{**base, **fields})


_TABLE = "## T\n\n| KEP | Status | Stage | Beta |\n|---|---|---|---|\n| 4671-gang | implementable | alpha | - |\n"
#: Inputs the harness found failing (minimal by hand), replayed first by every profile.
#: A ``date:`` line in a block that is not front matter (no closing ``---``) is body text.
UNCLOSED_FRONT_MATTER = (
    Upstream((_kep(4671, "gang"),)),
    {"m.md": "---\ndate: 2026-03-01\n\n" + _TABLE},
    {"front_matter": {"date_key": "date"}},
    False,
    {"GITHUB_TOKEN": CANARY},
)
#: ``links.enhancements`` with userinfo and a git source (kep.yaml links at the revision): no link may carry it.
LINK_USERINFO = (
    Upstream((_kep(4671, "gang"), _kep(5710, "new-kep", stage="alpha", alpha="v1.37", beta=""))),
    {"m.md": _TABLE},
    {"links": {"enhancements": f"https://bot:{CANARY}@example.test/k/enh"}},
    True,
    {"GITHUB_TOKEN": CANARY},
)

#: ``renames: apply`` on a KEP numbered 0000 (three upstream): the link text's ``0000-`` is rewritten with its target.
_KEP0 = "[0000-pod-swap-node](https://github.com/kubernetes/enhancements/tree/master/keps/sig-scheduling/0000-pod-swap-node)"
RENAMED_KEP_0000 = (
    Upstream((_kep(0, "gang", old_slug="pod-swap-node"),)),
    {"m.md": _TABLE.replace("4671-gang", _KEP0)},
    {"renames": "apply"},
    True,
    {"GITHUB_TOKEN": CANARY},
)

PINNED = (UNCLOSED_FRONT_MATTER, LINK_USERINFO, RENAMED_KEP_0000)


@st.composite
def scenarios(draw) -> tuple[Upstream, dict[str, str], dict, bool, dict[str, str]]:
    """``(upstream, {page: text}, config options, git upstream?, environment)``."""
    up = draw(upstreams())
    first = draw(pages(up))
    texts = {"m.md": first.text}
    if draw(st.booleans()):
        texts["sub/n.md"] = draw(pages(up, max_tables=1)).text
    opts: dict = {
        "renames": draw(st.sampled_from(["report", "apply", "owned-cells"])),
        "feature_gates": draw(st.sampled_from(["report", "owned"])),
    }
    if draw(st.booleans()):
        opts["front_matter"] = {"date_key": "date"}
    if draw(st.booleans()):
        opts["candidates"] = {
            "add_to": {
                "page": "m.md",
                "table": draw(st.sampled_from(first.headings)),
                "count": draw(st.integers(1, 3)),
                "reasons": ["new", "active", "targets"],
            }
        }
    if draw(st.booleans()):
        texts[DIGEST] = digest_page(crlf=draw(st.booleans()))
        opts["digest"] = {"page": DIGEST, "sig": up.keps[0].sig.removeprefix("sig-"), "from": "v1.33", "to": "v1.38"}
    if draw(st.booleans()):
        opts["links"] = {"enhancements": f"https://bot:{CANARY}@example.test/k/enh"}
    token = draw(st.sampled_from([CANARY, CANARY + "\n", f" {CANARY} "]))
    git_upstream = draw(st.booleans()) or up.renames
    return up, texts, opts, git_upstream, {"GITHUB_TOKEN": token}


def _argv(sc: Scenario, publish: str, git_upstream: bool) -> list[str]:
    argv = ["sync", "--config", str(sc.config), "--publish", publish, "--report", str(sc.report)]
    if git_upstream:  # the source as a URL with credentials: they must not reach any output
        argv += ["--enhancements", f"file://bot:{CANARY}@localhost{sc.enh}"]
    return argv


def _check_run(run, label: str) -> None:
    note(f"{label}: exit {run.code}\nstdout:\n{run.stdout}\nstderr:\n{run.stderr[-3000:]}")
    assert "Traceback" not in run.stderr, f"{label}: traceback"
    assert run.code == 0, f"{label}: exit {run.code}: {run.stderr.strip().splitlines()[-1:]}"
    assert run.report is not None and run.report["result"] == "ok", (
        f"{label}: report {run.report and run.report.get('result')}"
    )


def _check_secret(sc: Scenario, runs, extra: list[str] = ()) -> None:
    texts = [r.stdout for r in runs] + [r.stderr for r in runs] + list(extra)
    where = [f"stdout {i}" for i in range(len(runs))] + [f"stderr {i}" for i in range(len(runs))] + ["git"] * len(extra)
    files = inv.files_under(sc.root, skip=[sc.enh, sc.config])  # the cache_dir's git clones too
    inv.check_no_secret([*texts, *files.values()], CANARY, [*where, *files])


class _First(NamedTuple):
    sc: Scenario
    opts: dict
    argv: list[str]
    env: dict[str, str]
    before: dict[str, bytes]
    run: Run


def _first_run(root: Path, scenario, publish: str) -> _First:
    """Lay the scenario out under ``root`` (a git wiki for ``publish: git``) and run the first sync."""
    up, texts, opts, git_upstream, env = scenario
    note(f"upstream: {up.files()!r}\noptions: {opts!r}")
    for name, text in texts.items():
        note(f"--- {name}\n{text}")
    sc = lay_out(root, up, texts, opts, git_upstream=git_upstream, git_wiki=publish == "git")
    before, argv = wiki_pages(sc), _argv(sc, publish, git_upstream)
    first = run_cli(argv, env, sc.report)
    _check_run(first, "first run")
    return _First(sc, opts, argv, env, before, first)


def _check_landing(opts: dict, before: dict, after: dict, report: dict) -> None:
    date_key = opts.get("front_matter", {}).get("date_key")
    lines = inv.check_written(before, after, report, digest_page=opts.get("digest", {}).get("page"), date_key=date_key)
    inv.check_foreign_rows(before, after, report, FOREIGN)
    for page, (changed, added) in lines.items():
        cells = {
            int(c["line"]) - 1: c["new"]
            for c in report["changes"]
            if c["kind"] == "added" and c["applied"] and c["page"] == page
        }
        inv.check_tables(page, before[page], after[page], changed, added, cells)


def _again(opts: dict, first: dict, report: dict) -> list[tuple]:
    """What a later run proposes that it should not: anything, except new rows while the first run added as
    many as ``candidates.add_to.count`` allows (the count is per run: the next run adds the next ones)."""
    count = opts.get("candidates", {}).get("add_to", {}).get("count")
    capped = count is not None and sum(c["kind"] == "added" and c["applied"] for c in first["changes"]) >= count
    return [
        (c["kind"], c["page"], c["line"], c["old"], c["new"])
        for c in inv.proposed(report)
        if not (capped and c["kind"] == "added")
    ]


def _property(test):
    """``@given(scenarios())``, with every input in :data:`PINNED` tried first. An input equal to one that already
    passed this property in this process is rejected (``assume``: Hypothesis draws another in its place): the
    generator maps different choices to one scenario now and then (with 25 examples, 5 of the git property's inputs
    and 1 of the files property's were repeats), and a sync of the same input in a fresh directory checks nothing
    new. Only under the ``ci`` profile: ``deep`` shrinks, and replaying a failing input must run it again."""
    passed: set[str] = set()
    dedupe = os.environ.get("HYPOTHESIS_PROFILE", "ci") == "ci"  # deep shrinks: a rejected replay would hide a failure

    @functools.wraps(test)
    def new_input(scenario):
        key = repr(scenario)
        assume(not dedupe or key not in passed)
        test(scenario)
        passed.add(key)

    for pinned in reversed(PINNED):
        new_input = example(pinned)(new_input)
    return given(scenarios())(new_input)


@_property
def test_publish_files_holds_every_invariant(scenario):
    with tempfile.TemporaryDirectory() as tmp:
        sc, opts, argv, env, before, first = _first_run(Path(tmp), scenario, "files")
        after = wiki_pages(sc)
        _check_landing(opts, before, after, first.report)
        assert sorted(inv.files_under(sc.wiki)) == sorted(sc.pages), "files appeared or vanished in the wiki"
        second = run_cli(argv, env, sc.report)
        _check_run(second, "second run")
        again_proposed = _again(opts, first.report, second.report)
        assert again_proposed == [], f"a second run proposes changes again: {again_proposed}"
        if not inv.proposed(second.report):
            assert second.report["pages_written"] == [] and wiki_pages(sc) == after, "a second run wrote"
        _check_secret(sc, [first, second])


@_property
def test_publish_git_holds_every_invariant(scenario):
    with tempfile.TemporaryDirectory() as tmp:
        sc, opts, argv, env, before, first = _first_run(Path(tmp), scenario, "git")
        # the base branch keeps the one commit lay_out made, and the work tree is never touched
        assert git(sc.wiki, "rev-list", "--count", "main") == "1", "the base branch moved"
        assert wiki_pages(sc) == before, "the work tree moved"
        assert git(sc.wiki, "status", "--porcelain") == "", "the work tree changed"
        written = first.report["pages_written"]
        assert branch_exists(sc, BRANCH) == bool(written), f"bot branch vs pages_written {written}"
        if not written:
            assert inv.proposed(first.report) == [] or all(not c["applied"] for c in first.report["changes"])
            return
        after = wiki_pages(sc, BRANCH)
        _check_landing(opts, before, after, first.report)
        head = git(sc.wiki, "rev-parse", BRANCH)
        again = run_cli(argv, env, sc.report)
        _check_run(again, "same data again")
        assert git(sc.wiki, "rev-parse", BRANCH) == head, "same data, a new commit"
        git(sc.wiki, "merge", "-q", "--ff-only", BRANCH)
        merged = run_cli(argv, env, sc.report)
        _check_run(merged, "after the merge")
        again_proposed = _again(opts, first.report, merged.report)
        assert again_proposed == [], f"a run on the merged result proposes changes again: {again_proposed}"
        log = git(sc.wiki, "log", "--all", "-p", "--format=%H %an %B")
        _check_secret(sc, [first, again, merged], [log])
