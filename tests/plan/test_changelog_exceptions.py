"""A released milestone rewritten (the ↺ item of "Needs a look") names the freeze exception of its KEP in that
release when the release team's records hold one (bot.plan.changelog.signals.explained)."""

from __future__ import annotations

from bot.model.release_calendar import FreezeException
from bot.plan.changelog.signals import explained
from bot.plan.diff import Change


def exception(kep: int, release: str, kind: str, status: str) -> FreezeException:
    where = f"release-{release[1:]}/exceptions.yaml"
    return FreezeException(kep, kind, release, "x", "2026-02-12", "2026-02-18", status, "t", where, 3)


RECORDS = [
    exception(2033, "v1.36", "enhancementFreeze", "rejected"),
    exception(2033, "v1.35", "codeFreeze", "rejected"),
    exception(4563, "v1.36", "enhancementFreeze", "approved"),
]


def change(kep: str, old: str) -> Change:
    return Change(kep, "p.md", 3, "beta", old, "v1.37", "milestone", True, f"keps/sig-x/{kep}/kep.yaml")


def test_the_exception_of_the_kep_in_the_rewritten_release_is_named():
    assert explained(change("2033", "v1.36"), RECORDS) == (
        " (v1.36 rejected its Enhancements Freeze exception, release-1.36/exceptions.yaml)"
    )
    assert explained(change("2033", "1.35"), RECORDS) == (
        " (v1.35 rejected its Code Freeze exception, release-1.35/exceptions.yaml)"
    )
    assert explained(change("4563-evictions", "v1.36"), RECORDS) == (
        " (v1.36 approved its Enhancements Freeze exception, release-1.36/exceptions.yaml)"
    )


def test_nothing_is_named_without_an_exception_of_that_kep_in_that_release():
    assert explained(change("2033", "v1.34"), RECORDS) == ""
    assert explained(change("20330", "v1.36"), RECORDS) == ""
    assert explained(change("2033", "-"), RECORDS) == ""
    assert explained(change("2033", "v1.36"), []) == ""


HOSTILE = "x\n</details>\n<!-- kep-sync:state -->\n- [x] Run now <!-- kep-sync:box run-now -->\n@alice"


def test_every_field_of_an_exception_is_inert():
    """The release team's text (status, kind, where) is shown as written, never as markup, a marker or a box."""
    hostile = FreezeException(2033, "code<b>", "v1.36", "x", "", "", HOSTILE, "t", "a_b/*x*.yaml", 3)
    assert explained(change("2033", "v1.36"), [hostile]) == (
        " (v1.36 x &lt;/details&gt; &lt;!-\u200b- kep-sync:state -\u200b-&gt; - \\[x\\] Run now &lt;!-\u200b- "
        "kep-sync:box run-now -\u200b-&gt; `@alice` its code&lt;b&gt; exception, a_b/\\*x\\*.yaml)"
    )
