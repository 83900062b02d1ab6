"""The release-notes index: every sentence that names a declared gate or a KEP, and evidence for a change.

Pure. A gate declared by several KEPs links the sentence to all of them as
*ambiguous*, unless the entry names one of them by number; it is never guessed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from bot.diff import Change
from bot.evidence.sentences import (
    _one_line,
    announced_stage,
    field_text,
    gate_names,
    kep_refs,
    named_release,
    release_name,
    release_order,
    split_sentences,
)
from bot.model.snapshot import slug_matches
from bot.model.kep import STAGES, Kep, normalize_milestone

#: Most evidence items kept per change (newest first).
MAX_EVIDENCE = 3
#: Largest pull request number taken from ``pr_number`` or the entry key (9 ASCII digits).
MAX_PR = 999_999_999
_PR_KEY_RE = re.compile(r"[0-9]{1,9}")


class Mention(NamedTuple):
    """One sentence of one release-note entry that names a gate or belongs to an entry naming a KEP.

    - ``release``: ``vMAJOR.MINOR``; ``pr``: pull request number; ``url``: its ``pr_url``;
    - ``excerpt``: the sentence on one line, at most :data:`MAX_EXCERPT` characters;
    - ``stage``: ``alpha``/``beta``/``stable``/``deprecated``/``removed`` or ``""``;
      ``exact``: True for a transition (reached in ``when``), False for a state;
      ``when``: the release the sentence names ("to beta in `v1.34`"), else ``release``;
    - ``gates``: declared gates named; ``undeclared``: names written as feature gates
      that no kep.yaml declares; ``refs``: KEP numbers the entry names;
    - ``links``: kep.yaml paths linked for sure; ``ambiguous``: kep.yaml paths linked
      only through a gate several KEPs declare.
    """

    release: str
    pr: int
    url: str
    excerpt: str
    stage: str
    exact: bool
    when: str
    gates: tuple[str, ...]
    undeclared: tuple[str, ...]
    refs: tuple[int, ...]
    links: tuple[str, ...]
    ambiguous: tuple[str, ...]


class NotesIndex(NamedTuple):
    """Every :class:`Mention` of the indexed releases and, per kep.yaml path, the indices of its mentions.

    ``releases``: indexed releases (``vMAJOR.MINOR``), oldest first; ``mentions``
    ordered by (release, PR, sentence); ``by_path``: ``{kep.yaml path: (i, ...)}``
    covering sure and ambiguous links.
    """

    releases: tuple[str, ...]
    mentions: tuple[Mention, ...]
    by_path: dict[str, tuple[int, ...]]

    def for_kep(self, path: str) -> list[Mention]:
        """Mentions linked (surely or ambiguously) to the kep.yaml at ``path``, in index order."""
        return [self.mentions[i] for i in self.by_path.get(path, ())]


class Evidence(NamedTuple):
    """A release-note sentence shown next to a change: ``release``, ``pr``, ``url``, ``excerpt``,
    the ``stage`` it announces and whether the link to the KEP is ``ambiguous``."""

    release: str
    pr: int
    url: str
    excerpt: str
    stage: str
    ambiguous: bool


def gate_owners(keps: Iterable[Kep]) -> dict[str, tuple[str, ...]]:
    """``{feature gate name: (kep.yaml path, ...)}`` from ``feature-gates[].name``, junk names left out."""
    owners: dict[str, list[str]] = {}
    for kep in keps:
        for gate in kep.gates():
            owners.setdefault(gate, []).append(kep.path)
    return {g: tuple(sorted(set(p))) for g, p in owners.items()}


def build_index(notes: Mapping[str, Mapping[str, Mapping]], keps: Sequence[Kep]) -> NotesIndex:
    """Index the release notes of every release in ``notes`` against ``keps``.

    ``notes``: ``{release ("v1.36" or "1.36"): {pr: entry}}``, entries as in
    ``release-notes-draft.json`` (``text``, ``pr_url``, ``pr_number``,
    ``documentation``); entries without ``text`` are skipped. ``keps``: every
    KEP of the snapshot (gates and numbers are resolved against all of them).
    Untrusted entries never raise: only the first :data:`~bot.evidence.sentences.MAX_ENTRY_CHARS`
    characters of ``text`` are indexed, a ``pr_number`` that is not an int in
    1..:data:`MAX_PR` (bool, float, huge) is absent (the key is used when it is
    1-9 ASCII digits, else 0), a non-string ``pr_url`` is absent, and see
    :func:`~bot.evidence.sentences.kep_refs` for ``documentation``.
    """
    owners = gate_owners(keps)
    by_number: dict[int, list[Kep]] = {}
    for kep in keps:
        by_number.setdefault(kep.number, []).append(kep)
    mentions: list[Mention] = []
    ordered = sorted(((release_name(r) or r, r) for r in notes), key=lambda x: release_order(x[0]))
    for release, key in ordered:
        entries = notes[key]
        for pr_key in sorted(entries, key=lambda k: (_pr_number(entries[k], k), str(k))):
            entry = entries[pr_key]
            if not isinstance(entry, Mapping) or not isinstance(entry.get("text"), str):
                continue
            mentions += _entry_mentions(release, entry, _pr_number(entry, pr_key), owners, by_number)
    by_path: dict[str, list[int]] = {}
    for i, m in enumerate(mentions):
        for path in m.links + m.ambiguous:
            by_path.setdefault(path, []).append(i)
    return NotesIndex(tuple(r for r, _ in ordered), tuple(mentions), {p: tuple(v) for p, v in by_path.items()})


def _pr_number(entry: Mapping, key: str) -> int:
    """``pr_number`` when it is an int in 1..MAX_PR, else the key when it is 1-9 ASCII digits, else 0."""
    value = entry.get("pr_number") if isinstance(entry, Mapping) else None
    if type(value) is int and 0 < value <= MAX_PR:  # bool is an int subclass: refused
        return value
    return int(key) if isinstance(key, str) and _PR_KEY_RE.fullmatch(key) else 0


def _entry_mentions(release: str, entry: Mapping, pr: int, owners: Mapping[str, tuple[str, ...]],
                    by_number: Mapping[int, list[Kep]]) -> list[Mention]:
    refs = kep_refs(entry)
    ref_paths: set[str] = set()
    ref_ambiguous: set[str] = set()
    for number, slug in refs:
        candidates = by_number.get(number, [])
        picked = [k for k in candidates if slug and slug_matches(k.slug, slug)] or candidates
        (ref_paths if len(picked) == 1 else ref_ambiguous).update(k.path for k in picked)
    numbers = tuple(sorted({n for n, _ in refs}))
    url = field_text(entry.get("pr_url"))
    out: list[Mention] = []
    for i, sentence in enumerate(split_sentences(field_text(entry["text"]))):
        gates, undeclared = gate_names(sentence, owners)
        stage, exact = announced_stage(sentence) if (gates or undeclared or refs) else ("", False)
        if not (gates or undeclared or (refs and (stage or i == 0))):
            continue
        sure, maybe = set(ref_paths), set(ref_ambiguous)
        for gate in gates:
            declarers = set(owners[gate])
            if len(declarers) == 1:
                sure |= declarers
            elif declarers & ref_paths:
                sure |= declarers & ref_paths
            else:
                maybe |= declarers
        maybe -= sure
        when = (named_release(sentence) or release) if stage else release
        out.append(Mention(release, pr, url, _one_line(sentence), stage, exact, when, gates, undeclared, numbers,
                           tuple(sorted(sure)), tuple(sorted(maybe))))
    return out


def _stage_for(change: Change, kep: Kep) -> str:
    if change.field in STAGES:
        return change.field
    if change.field == "stage":
        return change.new
    if change.field == "status":
        return "stable" if change.new == "implemented" else kep.stage
    return ""


def evidence_for(index: NotesIndex, change: Change, kep: Kep) -> tuple[Evidence, ...]:
    """Evidence for one change: the KEP's sentences announcing the stage the change is about.

    The stage is the milestone field (``alpha``/``beta``/``stable``), the new
    stage, or ``stable`` for a status change to ``implemented``. Sentences of
    the release kep.yaml names for that stage come first; at most
    :data:`MAX_EVIDENCE`, newest release first.
    """
    stage = _stage_for(change, kep)
    if not stage:
        return ()
    target = normalize_milestone(kep.milestone(stage))
    hits = [m for m in index.for_kep(kep.path) if m.stage == stage]
    hits.sort(key=lambda m: (m.release != target, [-x for x in release_order(m.release)], m.pr))
    return tuple(Evidence(m.release, m.pr, m.url, m.excerpt, m.stage, kep.path not in m.links)
                 for m in hits[:MAX_EVIDENCE])


def attach_evidence(changes: Iterable[Change], index: NotesIndex, keps: Iterable[Kep]) -> list[Change]:
    """``changes`` with ``evidence`` filled from ``index`` (changes without a kep.yaml get none)."""
    by_path = {k.path: k for k in keps}
    return [c._replace(evidence=evidence_for(index, c, by_path[c.kep_path])) if c.kep_path in by_path else c
            for c in changes]


def releases_needed(keps: Iterable[Kep]) -> set[str]:
    """Releases (``vMAJOR.MINOR``) named by the milestones of ``keps`` (alpha .. removed); non-milestones skipped."""
    out: set[str] = set()
    for kep in keps:
        for _, value in kep.milestones:
            norm = normalize_milestone(value)
            if norm:
                out.add(norm)
    return out
