"""History under hostile conditions: malformed caches, shallow clones, a KEP deleted and re-added."""

from __future__ import annotations

import json

import pytest

from bot.cli.main import main
from bot.model.history import timeline
from bot.model.history.log import NO_BLOB, SHALLOW, paths_of
from bot.model.history.provenance import field_origin
from bot.sources.history import CACHE_VERSION, open_history

try:
    from tests.gitutil import commit, git, make_repo
    from tests.syncutil import kep_yaml
except ImportError:  # pragma: no cover
    from gitutil import commit, git, make_repo
    from syncutil import kep_yaml

P = "keps/sig-node/300-k/kep.yaml"


@pytest.fixture(scope="module")
def three(tmp_path_factory):
    """KEP 300 added (#1), promoted to beta (#2), another KEP touched (#3)."""
    path = tmp_path_factory.mktemp("three") / "enh"
    shas = [
        make_repo(path, {P: kep_yaml(300, "k", sig="sig-node")}, "Merge pull request #1 from a/add"),
        commit(path, {P: kep_yaml(300, "k", sig="sig-node", stage="beta")}, "Merge pull request #2 from a/beta"),
        commit(
            path,
            {"keps/sig-node/301-o/kep.yaml": kep_yaml(301, "o", sig="sig-node")},
            "Merge pull request #3 from a/other",
        ),
    ]
    return path, shas


BAD_LOGS = [
    {"version": CACHE_VERSION, "head": None, "commits": None},
    {"version": CACHE_VERSION, "head": "x", "commits": "abc"},
    {"version": CACHE_VERSION, "head": "x", "commits": [["a", "b", "c"]]},
    {"version": CACHE_VERSION, "head": "x", "commits": [["a", "b", "c", "d", "5", []]]},
    {"version": CACHE_VERSION, "head": "x", "commits": [["a", "b", "c", "d", 5, [["M", "p", "o"]]]]},
    {"version": CACHE_VERSION, "head": "x", "commits": [5]},
]
BAD_BLOBS = [
    {"blobs": None},
    {"blobs": 5},
    {"blobs": {"B": 5}},
    {"blobs": {"B": {"stage": ["x"]}}},
    {"blobs": {"B": {"stage": "beta"}}},
    {"blobs": []},
]


@pytest.mark.parametrize("bad_log, bad_blobs", [(BAD_LOGS[i], BAD_BLOBS[i]) for i in range(len(BAD_LOGS))])
def test_a_malformed_cache_is_discarded_logged_and_rebuilt(three, tmp_path, capsys, bad_log, bad_blobs):
    path, shas = three
    first = open_history("dir", str(path), tmp_path / "cache")
    assert field_origin(first.timelines([P])[P], "stage").pr == 2
    cache = first.cache
    blobs = json.loads((cache / "blobs.json").read_text())
    real_blob = next(iter(blobs["blobs"]))
    bad = dict(bad_blobs)
    if isinstance(bad["blobs"], dict):
        bad["blobs"] = {real_blob if k == "B" else k: v for k, v in bad["blobs"].items()}
    (cache / "blobs.json").write_text(json.dumps(blobs | bad))
    (cache / "log.json").write_text(json.dumps(bad_log))
    again = open_history("dir", str(path), tmp_path / "cache")
    found = again.timelines([P])[P]
    assert [v.commit.pr for v, _ in found] == [1, 2]
    assert field_origin(found, "stage").pr == 2 and field_origin(found, "status").pr == 1
    err = capsys.readouterr()
    assert (err.out + err.err).count("history cache discarded; rebuilding it") == 2
    # rebuilt: a third run trusts the rewritten cache and reads nothing
    third = open_history("dir", str(path), tmp_path / "cache")
    assert field_origin(third.timelines([P])[P], "stage").pr == 2 and third.blobs_read == 0
    assert json.loads((cache / "log.json").read_text())["head"] == shas[-1]


def test_every_malformed_blob_cache_shape_is_refused(three, tmp_path):
    for i, bad_blobs in enumerate(BAD_BLOBS):
        _refused(three[0], tmp_path / str(i), bad_blobs)


def _refused(path, tmp_path, bad_blobs):
    first = open_history("dir", str(path), tmp_path / "cache")
    first.timelines([P])
    blobs = json.loads((first.cache / "blobs.json").read_text())
    real_blob = next(iter(blobs["blobs"]))
    bad = dict(bad_blobs)
    if isinstance(bad["blobs"], dict):
        bad["blobs"] = {real_blob if k == "B" else k: v for k, v in bad["blobs"].items()}
    (first.cache / "blobs.json").write_text(json.dumps(blobs | bad))
    again = open_history("dir", str(path), tmp_path / "cache")
    found = again.timelines([P])[P]
    assert again.blobs_read == 2  # both versions parsed again: nothing of the bad cache was trusted
    assert [f["stage"] for _, f in found] == ["alpha", "beta"]


# -- shallow clones: never credit a value to the boundary commit --------------------------------------------------


@pytest.fixture(scope="module")
def shallow(tmp_path_factory, three):
    """A ``git clone --depth 2`` of ``three`` plus a commit promoting KEP 300 to stable (#4) upstream first."""
    path, shas = three
    root = tmp_path_factory.mktemp("shallow")
    up = root / "up"
    git(root, "clone", "-q", str(path), str(up))
    sha4 = commit(up, {P: kep_yaml(300, "k", sig="sig-node", stage="stable")}, "Merge pull request #4 from a/ga")
    clone = root / "clone"
    git(root, "clone", "-q", "--depth", "2", f"file://{up}", str(clone))
    return clone, [*shas, sha4]


def test_a_shallow_clone_credits_nothing_to_its_boundary_commit(shallow, tmp_path):
    clone, shas = shallow
    history = open_history("dir", str(clone), tmp_path / "cache")
    assert history.shallow == history.boundary() == (shas[2],)  # depth 2: #4 and its parent #3
    found = history.timelines([P])[P]
    assert [(v.commit.pr, v.commit.parent) for v, _ in found] == [(3, SHALLOW), (4, shas[2])]
    assert field_origin(found, "stage").sha == shas[3]  # changed after the boundary: exact
    assert field_origin(found, "status") is None  # set at or before the boundary: unknown, never #3
    assert field_origin(found, "milestone.alpha") is None
    events = [(e.pr, e.field, e.old, e.new) for e in timeline.events(found)]
    assert events == [
        (3, "history", "", f"history before {shas[2][:12]} not available (shallow clone)"),
        (3, "status", "?", "implementable"),
        (3, "stage", "?", "beta"),
        (3, "latest-milestone", "?", "v1.36"),
        (3, "milestone.alpha", "?", "v1.35"),
        (4, "stage", "beta", "stable"),
    ]
    again = open_history("dir", str(clone), tmp_path / "cache")  # from the cache: the boundary is still marked
    assert [v.commit.parent for v, _ in again.timelines([P])[P]] == [SHALLOW, shas[2]]


def test_history_command_on_a_shallow_clone_marks_the_boundary_not_a_creation(shallow, tmp_path, capsys, monkeypatch):
    clone, shas = shallow
    monkeypatch.setenv("KEP_SYNC_CACHE_DIR", str(tmp_path / "c"))
    monkeypatch.setenv("KEP_SYNC_CONFIG", "/dev/null")
    rc = main(["history", "300", "--enhancements", str(clone)])
    out = capsys.readouterr().out
    assert rc == 0
    assert out.splitlines()[1] == (
        f"2026-01-02      #3  {shas[2][:12]}  history: - -> history before {shas[2][:12]} not available (shallow clone)"
    )
    assert out.splitlines()[2] == f"2026-01-02      #3  {shas[2][:12]}  status: ? -> implementable"
    assert "path: - ->" not in out  # never "created in #3"


# -- a KEP deleted and re-added keeps its first life ----------------------------------------------------------------


def test_a_kep_deleted_and_re_added_keeps_both_lives(tmp_path):
    path = tmp_path / "enh"
    make_repo(path, {P: kep_yaml(300, "k", sig="sig-node")}, "Merge pull request #1 from a/add")
    commit(path, {"keps/sig-node/301-o/kep.yaml": kep_yaml(301, "o", sig="sig-node")}, "Merge pull request #2 from a/o")
    commit(path, {P: None}, "Merge pull request #3 from a/delete")
    commit(path, {P: kep_yaml(300, "k", sig="sig-node", stage="beta")}, "Merge pull request #4 from a/readd")
    history = open_history("dir", str(path), tmp_path / "cache")
    found = history.timelines(paths_of(history.log(), 300))[P]
    assert [(v.commit.pr, v.blob == NO_BLOB) for v, _ in found] == [(1, False), (3, True), (4, False)]
    events = [(e.pr, e.field, e.old, e.new) for e in timeline.events(found)]
    assert events[:2] == [(1, "path", "", P), (1, "status", "", "implementable")]
    assert (3, "path", P, "") in events and events[events.index((3, "path", P, "")) + 1] == (4, "path", "", P)
    assert field_origin(found, "stage").pr == 4 and field_origin(found, "status").pr == 4  # after the deletion
