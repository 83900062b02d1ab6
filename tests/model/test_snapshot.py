"""Unit tests for bot.model.snapshot: build_snapshot, resolve and the path predicates."""

from __future__ import annotations

import pytest

from bot.model.kep import Problem
from bot.model.snapshot import Snapshot, build_snapshot, is_kep_file, is_prr_file, resolve


def kep(number: str, title: str = "T", *, status: str = "implementable", stage: str = "alpha") -> bytes:
    return f'title: {title}\nkep-number: "{number}"\nstatus: {status}\nstage: {stage}\n'.encode()


TEMPLATE = "keps/NNNN-kep-template/kep.yaml"
PROVIDER_TEMPLATE = "keps/sig-cloud-provider/providers/0000-cloud-provider-template/kep.yaml"
CLAIM_TEMPLATE_KEP = "keps/sig-node/5978-cluster-resource-claim-template/kep.yaml"


def files() -> list[tuple[str, bytes]]:
    return [
        (TEMPLATE, b"title: KEP Template\nkep-number: NNNN\nstatus: provisional|implementable\nstage: alpha|beta\n"),
        (PROVIDER_TEMPLATE, b"title: Cloud Provider FooBar\nkep-number: 0000\n"),
        (CLAIM_TEMPLATE_KEP, kep("5978", "ClusterResourceClaimTemplate")),
        ("keps/sig-cloud-provider/2133-out-of-tree-credential-provider/kep.yaml", kep("2133", "cloud")),
        ("keps/sig-node/2133-kubelet-credential-providers/kep.yaml", kep("2133", "node")),
        ("keps/sig-scheduling/10-gang/kep.yaml", kep("10", "Gang")),
        ("keps/sig-cluster-lifecycle/kubeadm/2501-phases/kep.yaml", kep("2501", "Phases")),
        ("keps/prod-readiness/sig-node/2133.yaml", b"kep-number: 2133\nalpha:\n  approver: x\n"),
        ("keps/prod-readiness/sig-cloud-provider/2133.yaml", b"kep-number: 2133\n"),
        ("keps/prod-readiness/sig-scheduling/10.yaml", b"kep-number: 10\n"),
        ("keps/prod-readiness/template/nnnn.yaml", b"kep-number: NNNN\n"),
        ("keps/sig-scheduling/10-gang/README.md", b"# not yaml"),
        ("keps/sig-scheduling/10-gang/other.yaml", b"not: a kep\n"),
        ("docs/sig-x/99-elsewhere/kep.yaml", kep("99")),
        ("kep.yaml", kep("98")),
    ]


@pytest.fixture()
def snap() -> Snapshot:
    return build_snapshot(files(), "test-source", "abc123")


def test_source_and_revision_are_kept(snap):
    assert (snap.source, snap.revision) == ("test-source", "abc123")


def test_exactly_the_two_templates_are_skipped(snap):
    paths = [k.path for k in snap.all_keps()]
    assert TEMPLATE not in paths
    assert PROVIDER_TEMPLATE not in paths
    assert CLAIM_TEMPLATE_KEP in paths
    assert snap.keps[5978][0].slug == "cluster-resource-claim-template"
    assert snap.keps[5978][0].title == "ClusterResourceClaimTemplate"
    # Nothing from the templates leaks into problems either (they are invalid on purpose).
    assert not [p for p in snap.all_problems() if "template/" in p.path and "5978" not in p.path]


def test_only_kep_yaml_under_keps_is_read(snap):
    assert [k.path for k in snap.all_keps()] == [
        "keps/sig-scheduling/10-gang/kep.yaml",
        "keps/sig-cloud-provider/2133-out-of-tree-credential-provider/kep.yaml",
        "keps/sig-node/2133-kubelet-credential-providers/kep.yaml",
        "keps/sig-cluster-lifecycle/kubeadm/2501-phases/kep.yaml",
        CLAIM_TEMPLATE_KEP,
    ]
    assert list(snap.keps) == [10, 2133, 2501, 5978]


def test_duplicate_numbers_reported_once_with_both_paths(snap):
    cloud = "keps/sig-cloud-provider/2133-out-of-tree-credential-provider/kep.yaml"
    node = "keps/sig-node/2133-kubelet-credential-providers/kep.yaml"
    assert snap.problems == (Problem(cloud, "kep-number", f"number 2133 is used by 2 KEPs: {cloud}, {node}"),)
    assert [k.path for k in snap.keps[2133]] == [cloud, node]


def test_three_way_duplicate_is_one_problem():
    paths = [
        "keps/sig-release/0000-anago/kep.yaml",
        "keps/sig-architecture/0000-kep-process/kep.yaml",
        "keps/sig-contributor-experience/0000-community-forum/kep.yaml",
    ]
    snap = build_snapshot([(p, kep("0")) for p in paths], "s", "")
    ordered = sorted(paths)
    assert snap.problems == (Problem(ordered[0], "kep-number", f"number 0 is used by 3 KEPs: {', '.join(ordered)}"),)
    assert [k.path for k in snap.keps[0]] == ordered


def test_prr_files_are_indexed_by_number(snap):
    assert snap.prr == {
        10: ("keps/prod-readiness/sig-scheduling/10.yaml",),
        2133: ("keps/prod-readiness/sig-cloud-provider/2133.yaml", "keps/prod-readiness/sig-node/2133.yaml"),
    }


def test_broken_file_is_reported_and_the_others_load():
    broken = "keps/sig-x/7-broken/kep.yaml"
    not_mapping = "keps/sig-x/8-list/kep.yaml"
    unnumbered = "keps/sig-x/nameless/kep.yaml"
    snap = build_snapshot(
        [
            ("keps/sig-x/6-fine/kep.yaml", kep("6")),
            (broken, b"title: a\nstatus: [unclosed\n"),
            (not_mapping, b"- a\n"),
            (unnumbered, b"title: nameless\n"),
            ("keps/sig-x/9-collection/kep.yaml", b"title: [a, b]\nstatus: implementable\nstage: alpha\n"),
            ("keps/sig-x/11-fine/kep.yaml", kep("11")),
        ],
        "s",
        "",
    )
    assert list(snap.keps) == [6, 9, 11]
    assert snap.problems == (
        Problem(broken, "", "not valid YAML at line 3: did not find expected ',' or ']'"),
        Problem(not_mapping, "", "not a YAML mapping (top level is list)"),
        Problem(unnumbered, "kep-number", "no KEP number in the directory name or kep-number ('')"),
    )
    assert snap.keps[9][0].problems == (
        Problem("keps/sig-x/9-collection/kep.yaml", "title", "expected a string, found a list"),
    )


def test_all_problems_lists_file_level_then_per_kep_in_order():
    snap = build_snapshot(
        [
            ("keps/sig-b/2-b/kep.yaml", kep("2", stage="")),
            ("keps/sig-a/1-a/kep.yaml", kep("1", status="imlpemented")),
            ("keps/sig-c/3-c/kep.yaml", b"[oops\n"),
        ],
        "s",
        "",
    )
    assert [str(p) for p in snap.all_problems()] == [
        "keps/sig-c/3-c/kep.yaml: not valid YAML at line 2: did not find expected ',' or ']'",
        "keps/sig-a/1-a/kep.yaml: status: 'imlpemented' is not a valid status "
        "(provisional, implementable, implemented, deferred, rejected, withdrawn, replaced)",
        "keps/sig-b/2-b/kep.yaml: stage: missing or empty",
    ]


def test_empty_input_gives_empty_snapshot():
    assert build_snapshot([], "nothing", "") == Snapshot("nothing", "", {}, {}, ())


def test_files_may_be_any_iterable():
    snap = build_snapshot((f for f in [("keps/s/1-a/kep.yaml", kep("1"))]), "gen", "r")
    assert [k.number for k in snap.all_keps()] == [1]


# -- resolve ---------------------------------------------------------------------------------------------


def test_resolve_unique_number_ignores_slug(snap):
    (gang,) = resolve(snap, 10)
    assert gang.slug == "gang"
    assert resolve(snap, 10, "gang") == (gang,)
    assert resolve(snap, 10, "other-slug") == (gang,)


def test_resolve_picks_duplicate_by_slug(snap):
    (node,) = resolve(snap, 2133, "kubelet-credential-providers")
    assert node.path == "keps/sig-node/2133-kubelet-credential-providers/kep.yaml"
    (cloud,) = resolve(snap, 2133, "out-of-tree-credential-provider")
    assert cloud.sig == "" and cloud.title == "cloud"


def test_resolve_ambiguous_returns_all_candidates(snap):
    assert resolve(snap, 2133) == snap.keps[2133]
    assert resolve(snap, 2133, "no-such-slug") == snap.keps[2133]
    assert len(resolve(snap, 2133)) == 2


def test_resolve_missing_number_is_empty(snap):
    assert resolve(snap, 4242) == ()
    assert resolve(snap, 4242, "gang") == ()


# -- predicates ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "kep_file", "prr_file"),
    [
        ("keps/sig-a/1-b/kep.yaml", True, False),
        ("keps/sig-a/sub/1-b/kep.yaml", True, False),
        ("keps/sig-a/1-b/kep.yml", False, False),
        ("keps/sig-a/1-b/README.md", False, False),
        ("other/sig-a/1-b/kep.yaml", False, False),
        ("keps/prod-readiness/sig-a/1.yaml", False, True),
        ("keps/prod-readiness/1.yaml", False, True),
        ("keps/prod-readiness/sig-a/1.yml", False, False),
        ("prod-readiness/sig-a/1.yaml", False, False),
    ],
)
def test_path_predicates(path, kep_file, prr_file):
    assert is_kep_file(path) is kep_file
    assert is_prr_file(path) is prr_file


def test_odd_prr_names_and_declared_numbers_never_crash_the_load():
    from bot.model.snapshot import number_hints

    snap = build_snapshot(
        [
            ("keps/prod-readiness/sig-x/².yaml", b"kep-number: 1\n"),
            ("keps/prod-readiness/sig-x/12.yaml", b"kep-number: 12\n"),
            ("keps/sig-x/7-a/kep.yaml", "kep-number: '²'\nstatus: implementable\nstage: alpha\n".encode()),
        ],
        "test",
        "",
    )
    assert snap.prr == {12: ("keps/prod-readiness/sig-x/12.yaml",)}
    assert list(snap.keps) == [7]
    assert number_hints(snap, 2) == []


def test_resolve_matches_slugs_in_any_case():
    from bot.model.snapshot import resolve

    snap = build_snapshot(
        [
            ("keps/sig-a/2133-Foo-Bar/kep.yaml", b"status: implementable\nstage: alpha\n"),
            ("keps/sig-b/2133-other/kep.yaml", b"status: implementable\nstage: alpha\n"),
        ],
        "t",
        "",
    )
    assert [k.path for k in resolve(snap, 2133, "foo-bar")] == ["keps/sig-a/2133-Foo-Bar/kep.yaml"]
