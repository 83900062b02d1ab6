"""Upstream history: the first-parent log, provenance per field, timelines, renames (bot/history, bot/sources/history.py).

Real git repositories in temp dirs (tests/gitutil.py); subjects written like GitHub's merges.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.model.history import timeline
from bot.model.history.log import (
    Commit,
    FileChange,
    kep_number,
    message_subject,
    parse_log,
    paths_of,
    pr_number,
)
from bot.model.history.provenance import Upstream, coverage, field_origin, with_provenance
from bot.model.history.renames import renamed_cell, renamed_dirs
from bot.plan.diff import Change
from bot.sources import history as history_mod
from bot.sources.history import open_history

try:
    from tests.gitutil import commit, make_repo
    from tests.syncutil import kep_yaml
except ImportError:  # pragma: no cover
    from gitutil import commit, make_repo
    from syncutil import kep_yaml

OLD = "keps/sig-node/100-old-name/kep.yaml"
NEW = "keps/sig-scheduling/100-new-name/kep.yaml"
OTHER = "keps/sig-node/200-other/kep.yaml"


@pytest.fixture
def repo(tmp_path) -> tuple[Path, list[str]]:
    """KEP 100: added (#10), title edited (#11), moved and renamed (#12, squash), promoted (#13), touched (#14)."""
    path = tmp_path / "enh"
    shas = [
        make_repo(
            path,
            {
                OLD: kep_yaml(100, "old-name", sig="sig-node", alpha="v1.30", beta="v1.31"),
                OTHER: kep_yaml(200, "other", sig="sig-node"),
            },
            "Merge pull request #10 from a/add",
        )
    ]
    shas.append(
        commit(
            path,
            {
                OLD: kep_yaml(100, "old-name", sig="sig-node", alpha="v1.30", beta="v1.31").replace(
                    "title: KEP 100 old-name", "title: Better title"
                )
            },
            "Merge pull request #11 from a/title",
        )
    )
    moved = kep_yaml(100, "new-name", sig="sig-scheduling", alpha="v1.30", beta="v1.31")
    shas.append(commit(path, {OLD: None, NEW: moved}, "Move KEP-100 to SIG Scheduling (#12)"))
    shas.append(
        commit(
            path,
            {NEW: moved.replace("stage: alpha", "stage: beta")},
            "Merge pull request #13 from a/beta\n\n\nPromote KEP-100 to beta\n\nIt is ready.",
        )
    )
    shas.append(
        commit(
            path,
            {NEW: moved.replace("stage: alpha", "stage: beta") + "reviewers: []\n"},
            "Merge pull request #14 from a/touch",
        )
    )
    return path, shas


def test_pr_number_from_merge_and_squash_subjects():
    assert pr_number("Merge pull request #6182 from ameukam/update-milestone-kep-4443") == 6182
    assert pr_number("KEP-4671: Decoupled PodGroup and Workload API in alphav2 (#5893)") == 5893
    assert pr_number("Update kep.yaml") == 0
    assert pr_number("Merge branch 'master' (#12) of x") == 0


def test_parse_log_keeps_kep_yaml_entries_only():
    text = (
        "\x1eaaa\x1fppp qqq\x1f2026-01-02T03:04:05+05:30\x1fMerge pull request #7 from x/y\n\n"
        f":100644 100644 {'1' * 40} {'2' * 40} M\tkeps/sig-a/1-a/kep.yaml\n"
        f":000000 100644 {'0' * 40} {'3' * 40} A\tkeps/prod-readiness/sig-a/1.yaml\n"
        f":100644 000000 {'4' * 40} {'0' * 40} D\tkeps/sig-a/2-b/kep.yaml\n"
    )
    assert parse_log(text) == [
        Commit(
            "aaa",
            "ppp",
            "2026-01-02T03:04:05+05:30",
            "Merge pull request #7 from x/y",
            7,
            (
                FileChange("M", "keps/sig-a/1-a/kep.yaml", "1" * 40, "2" * 40),
                FileChange("D", "keps/sig-a/2-b/kep.yaml", "4" * 40, "0" * 40),
            ),
        )
    ]
    assert kep_number("keps/sig-a/0000-x/kep.yaml") == 0 and kep_number("keps/kep.yaml") is None


def test_a_merge_commit_is_shown_with_its_pull_request_title():
    text = (
        "\x1eaaa\x1fppp\x1f2026-01-02T03:04:05Z\x1fMerge pull request #7 from x/y\x1f\nKEP-7: graduate to beta\n"
        "\nmore\n\x1d\n"
        f":100644 100644 {'1' * 40} {'2' * 40} M\tkeps/sig-a/7-a/kep.yaml\n"
        "\x1ebbb\x1fppp\x1f2026-01-02T03:04:05Z\x1fMerge pull request #8 from x/z\x1f\x1d\n"
        f":100644 100644 {'1' * 40} {'2' * 40} M\tkeps/sig-a/8-a/kep.yaml\n"
    )
    assert [(c.subject, c.pr) for c in parse_log(text)] == [
        ("KEP-7: graduate to beta", 7),
        ("Merge pull request #8 from x/z", 8),
    ]
    assert message_subject("Merge pull request #6182 from a/b\n\nUpdate milestone of KEP-4443\n") == (
        "Update milestone of KEP-4443",
        6182,
    )
    assert message_subject("KEP-4671: alphav2 (#5893)\n\n* body") == ("KEP-4671: alphav2 (#5893)", 5893)


def test_provenance_is_the_commit_that_set_the_value_not_the_last_touch(repo, tmp_path):
    path, shas = repo
    history = open_history("dir", str(path), tmp_path / "cache")
    found = history.timelines([NEW])[NEW]
    assert [v.commit.pr for v, _ in found] == [10, 11, 12, 13, 14]
    assert [v.path for v, _ in found] == [OLD, OLD, NEW, NEW, NEW]
    assert field_origin(found, "stage").sha == shas[3]
    assert field_origin(found, "milestone.alpha").sha == shas[0]  # followed through the rename
    assert field_origin(found, "status").pr == 10
    changes = [
        Change("100", "m.md", 3, "stage", "alpha", "beta", "promoted", True, NEW),
        Change("100", "m.md", 3, "alpha", "", "v1.30", "retargeted", True, NEW),
        Change("100", "m.md", 3, "status", "x", "", "missing-upstream", False, ""),
    ]
    out = with_provenance(changes, {NEW: found})
    assert out[0].upstream == Upstream(
        shas[3], "2026-01-02T03:04:05+00:00", 13, "Promote KEP-100 to beta", before="alpha"
    )  # the stage kep.yaml gave before #13
    assert out[1].upstream.pr == 10 and out[1].upstream.before == "" and out[2].upstream is None
    assert out[0].upstream.as_json() == {
        "commit": shas[3],
        "date": "2026-01-02T03:04:05+00:00",
        "pr": 13,
        "subject": "Promote KEP-100 to beta",
    }
    assert coverage(out) == (2, 2)


def test_second_run_reads_nothing_and_a_new_commit_reads_only_itself(repo, tmp_path, monkeypatch):
    path, shas = repo
    first = open_history("dir", str(path), tmp_path / "cache")
    first.timelines([NEW, OTHER])
    assert first.blobs_read == 6  # 5 versions of KEP 100 (4 distinct blobs + the renamed one) + 200
    calls = []
    real = history_mod._git_log
    monkeypatch.setattr(history_mod, "_git_log", lambda repo, revs: calls.append(revs) or real(repo, revs))
    again = open_history("dir", str(path), tmp_path / "cache")
    again.timelines([NEW, OTHER])
    assert (again.blobs_read, calls) == (0, [])
    sha = commit(path, {OTHER: kep_yaml(200, "other", sig="sig-node", stage="beta")}, "Merge pull request #15 from b/c")
    later = open_history("dir", str(path), tmp_path / "cache")
    found = later.timelines([NEW, OTHER])
    assert calls == [f"{shas[-1]}..{sha}"]
    assert later.blobs_read == 1
    assert field_origin(found[OTHER], "stage").pr == 15 and field_origin(found[OTHER], "status").pr == 10


def test_plain_directory_has_no_history(tmp_path):
    (tmp_path / "enh" / "keps").mkdir(parents=True)
    assert open_history("dir", str(tmp_path / "enh"), tmp_path / "cache") is None
    assert open_history("github", "kubernetes/enhancements", tmp_path / "cache") is None


def test_timeline_of_a_moved_kep(repo, tmp_path):
    path, shas = repo
    history = open_history("dir", str(path), tmp_path / "cache")
    assert paths_of(history.log(), 100) == [NEW]
    events = timeline.events(history.timelines([NEW])[NEW])
    got = [(e.pr, e.field, e.old, e.new) for e in events]
    assert got == [
        (10, "path", "", OLD),
        (10, "status", "", "implementable"),
        (10, "stage", "", "alpha"),
        (10, "latest-milestone", "", "v1.36"),
        (10, "milestone.alpha", "", "v1.30"),
        (10, "milestone.beta", "", "v1.31"),
        (12, "path", OLD, NEW),
        (13, "stage", "alpha", "beta"),
    ]
    text = timeline.render_text(100, [(NEW, events)])
    assert text.splitlines()[0] == f"KEP 100: {NEW} (8 changes)"
    assert text.splitlines()[7] == f"2026-01-02     #12  {shas[2][:12]}  path: {OLD} -> {NEW}"
    assert timeline.as_json([(NEW, events[-1:])]) == [
        {
            "commit": shas[3],
            "date": "2026-01-02T03:04:05+00:00",
            "pr": 13,
            "subject": "Promote KEP-100 to beta",
            "path": NEW,
            "field": "stage",
            "old": "alpha",
            "new": "beta",
        }
    ]


def test_history_of_a_shared_number_skips_the_template_and_names_each_kep_by_its_slug(tmp_path):
    path = tmp_path / "enh"
    process, forum = "keps/sig-architecture/0000-kep-process/kep.yaml", "keps/sig-x/0000-community-forum/kep.yaml"
    template = "keps/sig-cloud-provider/providers/0000-cloud-provider-template/kep.yaml"
    make_repo(
        path,
        {
            process: kep_yaml(0, "kep-process"),
            forum: kep_yaml(0, "community-forum"),
            template: kep_yaml(0, "cloud-provider-template"),
        },
        "Merge pull request #1 from a/b",
    )
    history = open_history("dir", str(path), tmp_path / "cache")
    paths = paths_of(history.log(), 0)
    assert paths == [process, forum]  # the template is no KEP, as everywhere else
    found = history.timelines(paths)
    text = timeline.render_text(0, [(p, timeline.events(found[p])) for p in paths])
    assert [line for line in text.splitlines() if line.startswith("KEP ")] == [
        f"KEP 0000-kep-process: {process} (5 changes)",
        f"KEP 0000-community-forum: {forum} (5 changes)",
    ]
    assert paths_of(history.log(), 5) == []


def test_timeline_marks_unreadable_and_deleted_versions(tmp_path):
    path = tmp_path / "enh"
    make_repo(path, {OTHER: kep_yaml(200, "other")}, "Merge pull request #1 from a/b")
    commit(path, {OTHER: "title: [unclosed\n"}, "Merge pull request #2 from a/b")
    commit(path, {OTHER: kep_yaml(200, "other", stage="beta")}, "Merge pull request #3 from a/b")
    commit(path, {OTHER: None}, "Merge pull request #4 from a/b")
    history = open_history("dir", str(path), tmp_path / "cache")
    found = history.timelines(paths_of(history.log(), 200))[OTHER]
    events = timeline.events(found)
    assert [(e.pr, e.field, e.old, e.new) for e in events if e.pr > 1] == [
        (2, "kep.yaml", "", "not readable; values skipped"),
        (3, "stage", "alpha", "beta"),
        (4, "path", OTHER, ""),
    ]
    assert field_origin(found, "stage") is None  # deleted at the newest version
    assert field_origin(found[:3], "status").pr == 3  # an unreadable version ends the search


def test_renamed_dirs_follow_chains_and_forget_slugs_that_came_back():
    def c(sha, *files):
        return Commit(sha, "", "2026-01-01T00:00:00Z", f"Merge pull request #{sha} from x/y", int(sha), files)

    a, b, d = "keps/sig-a/7-a/kep.yaml", "keps/sig-a/7-b/kep.yaml", "keps/sig-b/7-b/kep.yaml"
    x, y = "keps/sig-a/8-x/kep.yaml", "keps/sig-a/8-y/kep.yaml"
    log = [
        c("5", FileChange("D", y, "1", "0"), FileChange("A", x, "0", "2")),
        c("4", FileChange("D", x, "1", "0"), FileChange("A", y, "0", "2")),
        c("3", FileChange("D", b, "1", "0"), FileChange("A", d, "0", "2")),
        c("2", FileChange("D", a, "1", "0"), FileChange("A", b, "0", "2")),
    ]
    found = renamed_dirs(log)
    assert {k: (r.path, r.commit.pr, r.old) for k, r in found.items()} == {(7, "a"): (d, 2, a), (8, "y"): (x, 5, y)}


def test_renamed_cell_keeps_the_cell_style():
    new = "keps/sig-scheduling/100-new-name/kep.yaml"
    assert renamed_cell("100-old-name", 100, "old-name", "keps/sig-node/100-old-name", new) == "100-new-name"
    assert renamed_cell("**KEP-100-Old-Name**", 100, "Old-Name", "", new) == "**KEP-100-new-name**"
    link = "[100-old-name](https://github.com/kubernetes/enhancements/tree/master/keps/sig-node/100-old-name)"
    assert renamed_cell(link, 100, "old-name", "keps/sig-node/100-old-name", new) == (
        "[100-new-name](https://github.com/kubernetes/enhancements/tree/master/keps/sig-scheduling/100-new-name)"
    )
    assert renamed_cell("100-old-name-2", 100, "old-name", "", new) == "100-old-name-2"


def test_renamed_cell_matches_the_padded_number_of_kep_0():
    new = "keps/sig-scheduling/0000-gang/kep.yaml"
    link = "[0000-pod-swap-node](https://h/keps/sig-scheduling/0000-pod-swap-node)"
    assert renamed_cell(link, 0, "pod-swap-node", "keps/sig-scheduling/0000-pod-swap-node", new) == (
        "[0000-gang](https://h/keps/sig-scheduling/0000-gang)"
    )
    assert renamed_cell("KEP-0-pod-swap-node, 10-pod-swap-node", 0, "pod-swap-node", "", new) == (
        "KEP-0000-gang, 10-pod-swap-node"
    )


def test_recent_reads_only_the_versions_provenance_needs(tmp_path):
    path = tmp_path / "enh"
    make_repo(path, {OTHER: kep_yaml(200, "other")}, "Merge pull request #1 from a/b")
    for n in range(2, 11):  # nine more versions; the stage changes in #9
        stage = "beta" if n >= 9 else "alpha"
        commit(
            path,
            {OTHER: kep_yaml(200, "other", stage=stage) + f"reviewers: [r{n}]\n"},
            f"Merge pull request #{n} from a/b",
        )
    history = open_history("dir", str(path), tmp_path / "cache")
    found = history.recent({OTHER: {"stage"}})[OTHER]
    assert ([v.commit.pr for v, _ in found], history.blobs_read) == ([7, 8, 9, 10], 4)
    assert field_origin(found, "stage").pr == 9
    deep = open_history("dir", str(path), tmp_path / "cache2")
    found = deep.recent({OTHER: {"stage", "status"}})[OTHER]  # status never changed: every version is read
    assert (len(found), deep.blobs_read, field_origin(found, "status").pr) == (10, 10, 1)
    assert field_origin(found, "stage").pr == 9
