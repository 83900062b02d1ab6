"""bot.sources.compare: every diff-entry status GitHub documents, read by what it means for both paths; anything
unexpected reads the tarball (None), never a deletion."""

from __future__ import annotations

import pytest

from bot.sources.compare import MAX_COMPARE_FILES, Listed, listed_changes

A, B, C = "a" * 40, "b" * 40, "c" * 40
K1, K2, K3 = "keps/sig-a/1-one/kep.yaml", "keps/sig-a/2-two/kep.yaml", "keps/sig-a/3-three/kep.yaml"
BASE = {K1: ("100644", A), K2: ("100755", B)}


def entry(path: str, status: str, sha: str | None = C, previous: str | None = None) -> dict:
    out = {"filename": path, "status": status, "sha": sha, "additions": 0, "deletions": 0, "changes": 0}
    return {**out, "previous_filename": previous} if previous is not None else out


@pytest.mark.parametrize(
    "entries, listing, touched",
    [
        ([entry(K3, "added")], {**BASE, K3: ("100644", C)}, {K3}),
        ([entry(K1, "removed", A)], {K2: ("100755", B)}, {K1}),
        ([entry(K2, "modified")], {K1: ("100644", A), K2: ("100755", C)}, {K2}),  # the mode is kept
        ([entry(K3, "renamed", B, K2)], {K1: ("100644", A), K3: ("100755", B)}, {K2, K3}),  # the old mode
        ([entry(K3, "copied", B, K2)], {**BASE, K3: ("100755", B)}, {K3}),  # the source stays, untouched
        ([entry(K1, "unchanged", A)], BASE, set()),
        ([entry("docs/x.md", "changed"), entry("README.md", "renamed", A, "keps/README.md")], BASE, {"keps/README.md"}),
        ([entry(K1, "renamed", C, "docs/k.yaml")], {K1: ("100644", C), K2: ("100755", B)}, {K1}),
        ([entry(K1, "removed", A), entry(K1, "added", C)], {K1: ("100644", C), K2: ("100755", B)}, {K1}),
        (
            [entry(K1, "renamed", A, K3), entry(K3, "added", B)],
            {K1: ("100644", A), K2: ("100755", B), K3: ("100644", B)},
            {K1, K3},
        ),
    ],
)
def test_each_status_means_what_github_documents_for_both_paths(entries, listing, touched):
    listed = listed_changes(entries)
    assert listed is not None and listed.apply(BASE) == listing
    assert listed.touched == frozenset(touched)


def test_a_copy_keeps_its_source_and_a_rename_drops_it():
    copied = listed_changes([entry(K3, "copied", A, K1)])
    renamed = listed_changes([entry(K3, "renamed", A, K1)])
    assert copied == Listed({K3: (A, K1)}, frozenset(), frozenset({K3}))
    assert renamed == Listed({K3: (A, K1)}, frozenset({K1}), frozenset({K1, K3}))
    assert K1 in copied.apply(BASE) and K1 not in renamed.apply(BASE)


@pytest.mark.parametrize(
    "entries",
    [
        "files",
        None,
        [entry(f"docs/{i}.md", "added") for i in range(MAX_COMPARE_FILES)],  # the cap: GitHub may have cut it
        ["keps/x"],
        [{"status": "added", "sha": C}],
        [{"filename": K1, "sha": C}],
        [entry(K1, "moved")],  # not a status GitHub documents
        [entry(K1, "renamed")],  # a rename without its old name
        [entry(K1, "copied", C, "")],
        [entry(K1, "added", C, K2)],  # an old name on a status that has none
        [entry(K1, "modified", None)],
        [entry(K1, "added", "HEAD")],
        [entry(K1, "changed")],  # its type changed under keps/: a symbolic link or a submodule now
        [entry(K1, "added", A), entry(K1, "modified", B)],  # one path, two blobs
        [{**entry(K1, "renamed", C), "previous_filename": 7}],
    ],
)
def test_anything_unexpected_is_read_from_the_tarball(entries):
    assert listed_changes(entries) is None


def test_files_outside_keps_are_checked_and_otherwise_ignored():
    assert listed_changes([entry("docs/x.md", "modified", None)]) == Listed({}, frozenset(), frozenset())
    below_the_cap = [entry(f"docs/{i}.md", "added") for i in range(MAX_COMPARE_FILES - 1)]
    assert listed_changes(below_the_cap) == Listed({}, frozenset(), frozenset())
    assert listed_changes([*below_the_cap, entry("docs/last.md", "added")]) is None  # 300: GitHub may have cut it
