"""The pull request body, state marker, fingerprint and commit trailers (pure)."""

from __future__ import annotations

import pytest

from bot.errors import PublishError
from bot.plan.diff import Change
from bot.publish import pull_request as prmod
from bot.publish.pull_request import PrState

STATE = PrState("a" * 40, "0123456789abcdef", "b" * 40, "fedcba9876543210", "c" * 40)


def change(new: str = "beta", line: int = 5, applied: bool = True, old: str = "alpha") -> Change:
    return Change("4671", "matrix.md", line, "stage", old, new, "promoted", applied, "keps/x/kep.yaml")


def test_state_marker_round_trips():
    marker = prmod.state_marker(STATE)
    assert marker == (
        f"<!-- kep-sync:state revision={'a' * 40} fingerprint=0123456789abcdef base={'b' * 40} "
        f"pages=fedcba9876543210 head={'c' * 40} status=open -->"
    )
    assert prmod.parse_state(prmod.merge_body("text", prmod.render_section("log", STATE))) == STATE
    assert prmod.parse_state(f"text\n{marker}\nmore") is None  # a marker outside a bot section is never read
    assert prmod.parse_state("no marker") is None and prmod.parse_state(None) is None


def test_parse_state_ignores_unknown_and_odd_values():
    body = f"{prmod.BEGIN}\n<!-- kep-sync:state fingerprint=abc colour=red head=x!y -->\n{prmod.END}"
    assert prmod.parse_state(body) == PrState(fingerprint="abc")


def test_forged_quoted_and_damaged_markers_never_steer_the_bot():
    section = prmod.render_section("| row |", STATE)
    forged = "<!-- kep-sync:state fingerprint=0000 head=0000 base=0000 pages=0 -->"
    # upstream text in the changelog cannot forge or close a marker
    from bot.plan.changelog.markdown import safe

    assert "<!--" not in safe(f"`{forged}` and <!-- kep-sync:end -->")
    # a human quote of an old section above the real one: the real one is read and replaced
    quoted = "> " + section.replace("\n", "\n> ")
    body = prmod.merge_body(quoted, section)
    assert prmod.parse_state(body) == STATE
    assert prmod.merge_body(body, prmod.render_section("| new |", STATE)).startswith(quoted + "\n\n")
    # a human deleted the end marker and wrote after it: no section is read, the new one is appended
    damaged = section.replace(prmod.END, "") + "\nHUMAN NOTE"
    assert prmod.parse_state(damaged) is None
    fresh = prmod.merge_body(damaged, prmod.render_section("| new |", STATE))
    assert fresh.startswith(damaged) and "HUMAN NOTE" in fresh and prmod.parse_state(fresh) == STATE


def test_fingerprint_depends_on_the_proposal_only():
    base = prmod.fingerprint([change()])
    assert base == prmod.fingerprint([change(line=99, old="-")])  # moved row, other old value
    assert base == prmod.fingerprint([change(), change(applied=False, new="x")])  # report-only ignored
    assert base != prmod.fingerprint([change(new="stable")])
    assert len(base) == 16


def test_merge_body_keeps_human_text_outside_the_section():
    first = prmod.render_section("changelog v1\n", STATE)
    assert first == f"{prmod.BEGIN}\n\nchangelog v1\n\n{prmod.state_marker(STATE)}\n{prmod.END}"
    edited = "Before.\n\n" + first + "\n\nAfter, with a `code` span."
    second = prmod.render_section("changelog v2", STATE._replace(follows="7"))
    merged = prmod.merge_body(edited, second)
    assert merged == "Before.\n\n" + second + "\n\nAfter, with a `code` span."
    assert "Follows #7, which was closed without merge." in merged
    assert prmod.merge_body("Only human text.\n", first) == "Only human text.\n\n" + first
    assert prmod.merge_body(None, first) == first


def test_outside_text_and_budget():
    body = "Human.\n" + prmod.render_section("x" * 5000, STATE)
    assert prmod.outside_text(body) == "Human.\n"
    assert prmod.changelog_budget(body) == 60_000 - 1_000 - 7
    assert prmod.changelog_budget(None) == 59_000
    assert prmod.changelog_budget("h" * 10_000) == 60_000 - 1_000 - 10_000
    assert prmod.changelog_budget("h" * 57_000) == 2_000
    with pytest.raises(
        PublishError,
        match="the text outside the kep-sync section is 57001 characters, leaving "
        "no room under kep-sync's 60000 limit; shorten it",
    ):
        prmod.changelog_budget("h" * 57_001)


def test_section_overhead_covers_the_largest_wrapper():
    widest = PrState("a" * 40, "f" * 16, "b" * 40, "e" * 16, "c" * 40, "superseded", "9" * 9)
    section = prmod.merge_body("human", prmod.render_section("", widest))
    assert len(section) - len("human") == 415 <= prmod.SECTION_OVERHEAD


def test_trailers_round_trip_and_join_a_trailer_paragraph():
    message = "Update KEP matrix\n\n- KEP-4671 stage: alpha -> beta\n\nSource: kubernetes/enhancements@abc\n"
    out = prmod.with_trailers(message, STATE)
    assert out.endswith(
        "Source: kubernetes/enhancements@abc\nKep-Sync-Fingerprint: 0123456789abcdef\n"
        f"Kep-Sync-Revision: {'a' * 40}\nKep-Sync-Base: {'b' * 40}\nKep-Sync-Pages: fedcba9876543210\n"
    )
    assert prmod.parse_trailers(out) == STATE._replace(head="")
    assert prmod.with_trailers("Title", PrState(fingerprint="f")) == "Title\n\nKep-Sync-Fingerprint: f\n"
    assert prmod.parse_trailers("Title\n\nSigned-off-by: x <x@y>") is None
