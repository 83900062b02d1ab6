"""How a page spells the values the bot owns: stage words, letter case, blanks, the milestone ``v``.

Pure. Words a page uses for the same fact compare equal: ``GA`` and
``stable`` in any case (``Alpha``, ``BETA``), ``1.30``, ``v1.30`` and
``V1.30``, full-width forms (``ＧＡ``), and the blanks ``-``, ``—``, ``N/A``; so no change is proposed when only the
spelling differs. A value the bot writes is spelled the way the cell already
spells its kind of word, else its column (same table), else the page, else as
upstream writes it (lower case, ``stable``, ``v1.30``, ``-``).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from typing import NamedTuple

from bot.model.kep import DEPRECATION_STAGES, STAGES, STATUSES, normalize_milestone

#: Spellings of the stable stage (compared case-insensitively): kep.yaml says ``stable``, release notes ``GA``.
STABLE_WORDS = frozenset({"stable", "ga"})
#: Words whose letter case tells the page's style (``GA`` is an acronym and tells nothing).
_CASED_WORDS = frozenset(STAGES + DEPRECATION_STAGES + STATUSES)
_BARE_RE = re.compile(r"^[0-9]+\.[0-9]+$")


class Spelling(NamedTuple):
    """A column's (or page's) spelling habits; ``None`` where it shows none.

    ``case``: ``"lower"``, ``"title"`` or ``"upper"`` for status and stage words;
    ``stable``: its word for the stable stage (``"GA"``, ``"stable"``, ...);
    ``blank``: its text for "none" (``"-"``, ``"—"``, ``"N/A"``, ``""`` for an empty cell);
    ``bare``: True when it writes milestones without ``v`` (``1.30``), False with it.
    """

    case: str | None = None
    stable: str | None = None
    blank: str | None = None
    bare: bool | None = None

    def over(self, fallback: Spelling) -> Spelling:
        """This vocabulary with its gaps filled from ``fallback``."""
        return Spelling(
            case=fallback.case if self.case is None else self.case,
            stable=fallback.stable if self.stable is None else self.stable,
            blank=fallback.blank if self.blank is None else self.blank,
            bare=fallback.bare if self.bare is None else self.bare,
        )


def fold(text: str) -> str:
    """``text`` as a comparable word: NFKC (full-width ``ＧＡ``, ``ｖ１．３０`` as CJK input methods
    type them read as ``GA``, ``v1.30``), case-folded, stripped."""
    return unicodedata.normalize("NFKC", text).strip().casefold()


def stage_word(text: str) -> str:
    """A stage as a comparable word: folded (:func:`fold`), ``GA`` read as ``stable``."""
    word = fold(text)
    return "stable" if word in STABLE_WORDS else word


def word_case(text: str) -> str | None:
    """``"lower"``, ``"title"`` or ``"upper"`` for a status or stage word, ``None`` for anything else."""
    if text.casefold() not in _CASED_WORDS:
        return None
    return "lower" if text.islower() else "upper" if text.isupper() else "title" if text.istitle() else None


def milestone_bareness(texts: Iterable[str]) -> bool | None:
    """True when the milestones among ``texts`` are written ``1.30`` and never ``v1.30``; False when
    some are written with ``v``; ``None`` when there are none."""
    shown = [t.strip() for t in texts if normalize_milestone(t) is not None]
    if not shown:
        return None
    return all(_BARE_RE.match(t) for t in shown)


def learn(values: Iterable[tuple[str, str]], blanks: frozenset[str]) -> Spelling:
    """The habits shown by ``(field, cell text)`` pairs (one column, or a whole page).

    ``blanks``: the case-folded texts that mean "none"; an empty status, stage or milestone cell counts too
    (its "none" is ``""``). Ties go to the first seen.
    """
    cases: Counter[str] = Counter()
    stables: Counter[str] = Counter()
    empties: Counter[str] = Counter()
    milestones: list[str] = []
    for field, text in values:
        text = text.strip()
        if (text and text.casefold() in blanks) or (not text and field in ("status", "stage", *STAGES)):
            empties[text] += 1
        elif field in ("status", "stage"):
            if field == "stage" and text.casefold() in STABLE_WORDS:
                stables[text] += 1
            case = word_case(text)
            if case:
                cases[case] += 1
        elif field in ("alpha", "beta", "stable"):
            milestones.append(text)
    return Spelling(_most(cases), _most(stables), _most(empties), milestone_bareness(milestones))


def _most(counter: Counter[str]) -> str | None:
    return counter.most_common(1)[0][0] if counter else None


def spell_word(field: str, value: str, old: str, vocab: Spelling) -> str:
    """``value`` (a status or stage as kep.yaml writes it) spelled as the cell (``old``) or ``vocab`` would.

    The stable stage is written ``GA`` (as the column spells it) where the column
    or page says ``GA``; the letter case is the cell's own when it shows a status
    or stage word, else the vocabulary's.
    """
    case = word_case(old) or vocab.case
    stable = vocab.stable
    if field == "stage" and value.casefold() == "stable" and stable is not None and stable.casefold() == "ga":
        return stable
    if case == "upper":
        return value.upper()
    if case == "title":
        return value[:1].upper() + value[1:].lower()
    if case == "lower":
        return value.lower()
    return value


def spell_milestone(value: str, bare: bool) -> str:
    """``value`` (``vMAJOR.MINOR``, a placeholder, or ``""``) without its ``v`` when ``bare``."""
    norm = normalize_milestone(value)
    return norm[1:] if bare and norm is not None else value
