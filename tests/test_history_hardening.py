"""History under hostile conditions: malformed caches, shallow clones, a KEP deleted and re-added."""

from __future__ import annotations

import json

import pytest

from bot.history.provenance import field_origin
from bot.sources.history import open_history

try:
    from tests.gitutil import commit, make_repo
    from tests.syncutil import kep_yaml
except ImportError:  # pragma: no cover
    from gitutil import commit, make_repo
    from syncutil import kep_yaml

P = "keps/sig-node/300-k/kep.yaml"


@pytest.fixture(scope="module")
def three(tmp_path_factory):
    """KEP 300 added (#1), promoted to beta (#2), another KEP touched (#3)."""
    path = tmp_path_factory.mktemp("three") / "enh"
    shas = [make_repo(path, {P: kep_yaml(300, "k", sig="sig-node")}, "Merge pull request #1 from a/add"),
            commit(path, {P: kep_yaml(300, "k", sig="sig-node", stage="beta")}, "Merge pull request #2 from a/beta"),
            commit(path, {"keps/sig-node/301-o/kep.yaml": kep_yaml(301, "o", sig="sig-node")},
                   "Merge pull request #3 from a/other")]
    return path, shas


BAD_LOGS = [{"version": 1, "head": None, "commits": None}, {"version": 1, "head": "x", "commits": "abc"},
            {"version": 1, "head": "x", "commits": [["a", "b", "c"]]},
            {"version": 1, "head": "x", "commits": [["a", "b", "c", "d", "5", []]]},
            {"version": 1, "head": "x", "commits": [["a", "b", "c", "d", 5, [["M", "p", "o"]]]]},
            {"version": 1, "head": "x", "commits": [5]}]
BAD_BLOBS = [{"blobs": None}, {"blobs": 5}, {"blobs": {"B": 5}}, {"blobs": {"B": {"stage": ["x"]}}},
             {"blobs": {"B": {"stage": "beta"}}}, {"blobs": []}]


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
