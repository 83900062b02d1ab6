"""Property-based harness of the incremental ``github:`` source: random commit sequences upstream (KEPs added,
edited, removed, moved, copied, made links or executables, READMEs, PRR files, hundreds of other files, a
force-push), compare answers in every status GitHub documents (renames or not, copies or not, ``unchanged``
entries, ``changed`` types, the 300-file cap), and a cache entry edited between runs. After every run the
snapshot equals a full read (the tarball, no cache) and a run with nothing changed reads the cache.
(``unchanged`` entries name a drawn few of the first commit's files that a step leaves alone.)

Profiles: tests/harness/conftest.py (``ci`` draws :data:`CI_EXAMPLES` examples; ``deep`` many more).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import NamedTuple

from hypothesis import example, given, note, settings
from hypothesis import strategies as st

try:
    from tests.fakecompare import CompareStyle
    from tests.fakegithub import FakeGitHub
except ImportError:  # pragma: no cover
    from fakecompare import CompareStyle
    from fakegithub import FakeGitHub

REPO = "k/enh"
SIGS = ("sig-a", "sig-b")
STAGES = ("alpha", "beta", "stable")
#: Examples the ``ci`` profile draws for this property (each is a few runs against a loopback fake).
CI_EXAMPLES = int(os.environ.get("KEP_SYNC_HARNESS_UPSTREAM_EXAMPLES", "6"))
IGNORED = "upstream cache entry ignored: "
#: The files of the first commit.
FIRST = ("README.md", "keps/sig-a/1-one/kep.yaml", "keps/sig-b/2-two/kep.yaml", "keps/prod-readiness/sig-a/1.yaml")


class Op(NamedTuple):
    """One change upstream: ``kind`` and its arguments (``index`` picks an existing KEP, modulo their count)."""

    kind: str
    index: int = 0
    value: str = ""


class Step(NamedTuple):
    """One commit of ``ops`` (``force``: as a new root commit, a force-push), the compare ``style`` GitHub answers
    with; ``tamper``: no commit, the cache entry of the current commit edited before the run instead."""

    ops: tuple[Op, ...]
    style: CompareStyle
    force: bool = False
    tamper: bool = False


def kep_yaml(number: int, stage: str) -> str:
    return f'title: KEP {number}\nkep-number: {number}\nstatus: implementable\nstage: {stage}\nmilestone:\n  alpha: "v1.30"\n'


ops = st.one_of(
    st.builds(Op, st.just("add"), st.integers(0, 99), st.sampled_from(STAGES)),
    st.builds(Op, st.just("edit"), st.integers(0, 9), st.sampled_from(STAGES)),
    st.builds(Op, st.just("remove"), st.integers(0, 9)),
    st.builds(Op, st.just("move"), st.integers(0, 9), st.sampled_from(SIGS)),
    st.builds(Op, st.just("copy"), st.integers(0, 9), st.sampled_from(SIGS)),
    st.builds(Op, st.just("link"), st.integers(0, 9)),
    st.builds(Op, st.just("exec"), st.integers(0, 9)),
    st.builds(Op, st.just("readme"), st.integers(0, 9), st.text("ab\n", max_size=3)),
    st.builds(Op, st.just("prr"), st.integers(0, 99)),
    st.builds(Op, st.just("bulk"), st.sampled_from([2, 4])),
)


@st.composite
def steps(draw) -> Step:
    # a list cut at 1 or 2 files stands for GitHub's cut at 300 (cheaply; one pinned example cuts at 300) and for
    # any answer that leaves a change out without saying so
    limit = draw(st.sampled_from([300, 300, 300, 1, 2]))
    unchanged = tuple(draw(st.lists(st.sampled_from(FIRST), max_size=2, unique=True)))
    style = CompareStyle(renames=draw(st.booleans()), copies=draw(st.booleans()), unchanged=unchanged, limit=limit)
    if draw(st.integers(0, 5)) == 0:
        return Step((), style, tamper=True)
    return Step(tuple(draw(st.lists(ops, min_size=1, max_size=3))), style, force=draw(st.integers(0, 6)) == 0)


class Upstream:
    """The repository as a test edits it: ``files`` ``{path: (text, mode)}``, committed to a :class:`FakeGitHub`."""

    def __init__(self, fake: FakeGitHub):
        self.fake, self.next = fake, 1000
        texts = ("# enhancements\n", kep_yaml(1, "alpha"), kep_yaml(2, "beta"), "kep-number: 1\n")
        self.files: dict[str, tuple[str, str]] = {p: (t, "100644") for p, t in zip(FIRST, texts, strict=True)}
        fake.seed_repo(REPO, {p: t for p, (t, _) in self.files.items()})

    def keps(self) -> list[str]:
        return sorted(p for p, (_, mode) in self.files.items() if p.endswith("/kep.yaml") and mode != "120000")

    def apply(self, op: Op) -> dict[str, tuple[str, str] | None]:
        """The files ``op`` changes (``None``: removed)."""
        keps = self.keps()
        path = keps[op.index % len(keps)] if keps else ""
        folder = path.rsplit("/", 1)[0]
        self.next += 1
        if op.kind == "add" or not path:
            number = op.index + 10
            return {
                f"keps/{SIGS[number % 2]}/{number}-k{self.next}/kep.yaml": (
                    kep_yaml(number, op.value or "alpha"),
                    "100644",
                )
            }
        text, mode = self.files[path]
        if op.kind == "edit":
            return {path: (text.replace(text.split("stage: ")[1].split("\n")[0], op.value, 1), mode)}
        if op.kind == "remove":
            return {path: None}
        if op.kind == "move":
            return {path: None, f"keps/{op.value}/{folder.rsplit('/', 1)[1]}-m{self.next}/kep.yaml": (text, mode)}
        if op.kind == "copy":
            return {f"keps/{op.value}/{self.next}-copy/kep.yaml": (text, mode)}
        if op.kind == "link":
            return {path: (f"../{self.next}/kep.yaml", "120000")}
        if op.kind == "exec":
            return {path: (text, "100644" if mode == "100755" else "100755")}
        if op.kind == "readme":
            return {f"{folder}/README.md": (f"# {op.value}\n", "100644")}
        if op.kind == "prr":
            return {
                f"keps/prod-readiness/{SIGS[op.index % 2]}/{op.index}.yaml": (f"kep-number: {op.index}\n", "100644")
            }
        return {f"docs/{self.next}-{i}.md": (f"{i}\n", "100644") for i in range(op.index)}

    def commit(self, step: Step) -> None:
        changed: dict[str, tuple[str, str] | None] = {}
        for op in step.ops:
            changes = self.apply(op)
            changed.update(changes)
            for path, value in changes.items():
                if value is None:
                    self.files.pop(path, None)
                else:
                    self.files[path] = value
        self.fake.compare_style = step.style
        if step.force:
            modes = {p: m for p, (_, m) in self.files.items()}
            self.fake.seed_repo(REPO, {p: t for p, (t, _) in self.files.items()}, modes=modes)
        else:
            texts = {p: (v[0] if v else None) for p, v in changed.items()}
            self.fake.commit_files(REPO, "main", texts, modes={p: v[1] for p, v in changed.items() if v})


def full_read(fake: FakeGitHub, tmp: Path):
    from bot.http import make_client
    from bot.sources.enhancements import load_snapshot

    with make_client(None) as client:
        return load_snapshot(f"github:{REPO}@main", tmp / "unused", api_url=fake.url, client=client)


def incremental_read(fake: FakeGitHub, cache: Path):
    from bot.sources.upstream import GitHubUpstream

    up = GitHubUpstream(REPO, "main", cache, api_url=fake.url)
    return up.snapshot(), up.read


def tamper(cache: Path, revision: str) -> None:
    """Edit the cache entry of ``revision`` as a writer of cache_dir could: a text changed, its blob id recomputed."""
    from bot.sources.git_tree import blob_id

    [path] = cache.glob(f"upstream/*/files-{revision}.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    if not data["texts"]:
        return
    target, text = data["texts"][0]
    text = text.replace("implementable", "implemented")
    data["texts"][0][1] = text
    data["keps"] = [[p, m, blob_id(text.encode()) if p == target else s] for p, m, s in data["keps"]]
    path.write_text(json.dumps(data), encoding="utf-8")


#: Inputs the harness once found failing, replayed first.
PINNED = [
    [Step((Op("copy", 0, "sig-b"),), CompareStyle(copies=True))],  # a copy keeps its source KEP
    [Step((), CompareStyle(), tamper=True)],  # an entry edited consistently
    [Step((Op("bulk", 301), Op("edit", 0, "beta")), CompareStyle())],  # the 300-file cap
]


def _property(test):
    for pinned in reversed(PINNED):
        test = example(pinned)(test)
    return given(st.lists(steps(), min_size=1, max_size=4))(test)


_CI = os.environ.get("HYPOTHESIS_PROFILE", "ci") == "ci"


@settings(max_examples=CI_EXAMPLES if _CI else settings.default.max_examples)
@_property
def test_every_incremental_read_equals_a_full_read(history):
    reads = []
    with FakeGitHub(require_auth=False) as fake, tempfile.TemporaryDirectory() as tmp:
        cache, up = Path(tmp) / "cache", Upstream(fake)
        first, how = incremental_read(fake, cache)
        assert (how, first) == ("tarball", full_read(fake, Path(tmp)))
        for n, step in enumerate(history):
            note(f"step {n}: {step}")
            if step.tamper:
                tamper(cache, first.revision)
            else:
                up.commit(step)
            snap, how = incremental_read(fake, cache)
            reads.append(how)
            full = full_read(fake, Path(tmp))
            ignored = [p for p in snap.problems if p.message.startswith(IGNORED)]
            assert snap._replace(problems=tuple(p for p in snap.problems if p not in ignored)) == full, f"step {n}"
            has_texts = bool(first.all_keps())
            assert len(ignored) == (1 if step.tamper and has_texts else 0), f"step {n}: {ignored}"
            again, how = incremental_read(fake, cache)
            assert (how, again) == ("cache", full), f"step {n}: a run with nothing changed"
            first = snap
    note(f"reads: {reads}")
