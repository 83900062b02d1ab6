"""The release-notes index: every sentence that names a declared gate or a KEP, and evidence for a change.

Pure. A gate declared by several KEPs links the sentence to all of them as
*ambiguous*, unless the entry names one of them by number; it is never guessed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import NamedTuple

from bot.model.kep import STAGES, Kep, normalize_milestone
from bot.model.note_text import (
    announced_stage,
    field_text,
    gate_names,
    kep_refs,
    may_name_gates,
    named_release,
    one_line,
    release_name,
    release_order,
    split_sentences,
)
from bot.model.snapshot import slug_matches
from bot.plan.diff import Change

#: Most evidence items kept per change (newest first).
MAX_EVIDENCE = 3
#: Shortest gate name matched as a near miss (a typo of a shorter name is too likely another gate).
NEAR_MIN_CHARS = 12
#: Largest pull request number taken from ``pr_number`` or the entry key (9 ASCII digits).
MAX_PR = 999_999_999
_PR_KEY_RE = re.compile(r"[0-9]{1,9}")
#: The only ``pr_url`` shape kept from a note (anything else could break or inject markdown).
PR_URL_RE = re.compile(r"https://github\.com/[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100}/pull/([0-9]{1,9})")
#: Where a note's pull request lives when its ``pr_url`` is absent or refused (release notes are k/k's).
PR_BASE = "https://github.com/kubernetes/kubernetes/pull/"
_CODE_SPAN_RE = re.compile(r"`([^`\n]+)`")
#: The words "feature gate" / "feature flag": a sentence naming its gate as a feature gate.
_FEATURE_GATE_RE = re.compile(r"\bfeature[- ](?:gate|flag)s?\b", re.I)


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
      only through a gate several KEPs declare;
    - ``near``: ``((name in the notes, declared gate), ...)`` for names written as feature
      gates that differ from exactly one declared gate by a typo (see :func:`near_gate`);
      the KEP declaring it is linked (in ``links``);
    - ``sigs``: the entry's ``sigs`` (``("node",)``), for scoping undeclared gates.
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
    near: tuple[tuple[str, str], ...] = ()
    sigs: tuple[str, ...] = ()


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
    the ``stage`` it announces, whether the link to the KEP is ``ambiguous``, whether it is ``counter``
    evidence (it announces another stage for the release the change is about) and whether it is only
    ``possible`` evidence (a note naming no gate and no KEP, matched by the KEP's title words:
    :mod:`bot.plan.evidence.prose`; never a confirmation)."""

    release: str
    pr: int
    url: str
    excerpt: str
    stage: str
    ambiguous: bool
    counter: bool = False
    possible: bool = False


#: Statuses of a KEP that no longer speaks for its gates when a live KEP declares the same gate.
DEAD_STATUSES = ("withdrawn", "replaced")


def gate_owners(keps: Iterable[Kep], name: Callable[[str], str] = str) -> dict[str, tuple[str, ...]]:
    """``{feature gate name: (kep.yaml path, ...)}`` from ``feature-gates[].name``, junk names left out;
    ``name`` maps a declared name to the name it counts as (a typo to the listed gate).

    A gate declared by live KEPs and by withdrawn or replaced ones (:data:`DEAD_STATUSES`) belongs to the
    live ones only: the withdrawn KEP did not ship it (``DynamicResourceAllocation``: 4381, not withdrawn
    3063). A gate only dead KEPs declare stays theirs."""
    owners: dict[str, list[Kep]] = {}
    for kep in keps:
        for gate in kep.gates():
            owners.setdefault(name(gate), []).append(kep)
    out = {}
    for gate, declared in owners.items():
        live = [k for k in declared if k.status not in DEAD_STATUSES]
        out[gate] = tuple(sorted({k.path for k in (live or declared)}))
    return out


def build_index(
    notes: Mapping[str, Mapping[str, object]],
    keps: Sequence[Kep],
    owners: Mapping[str, tuple[str, ...]] | None = None,
) -> NotesIndex:
    """Index the release notes of every release in ``notes`` against ``keps``.

    ``notes``: ``{release ("v1.36" or "1.36"): {pr: entry}}``, entries as in
    ``release-notes-draft.json`` (``text``, ``pr_url``, ``pr_number``,
    ``documentation``); entries without ``text``, and entries the release team
    withdrew (``"do_not_publish": true``), are skipped. ``keps``: every
    KEP of the snapshot (gates and numbers are resolved against all of them).
    Untrusted entries never raise: only the first :data:`~bot.model.note_text.MAX_ENTRY_CHARS`
    characters of ``text`` are indexed, a ``pr_number`` that is not an int in
    1..:data:`MAX_PR` (bool, float, huge) is absent (the key is used when it is
    1-9 ASCII digits, else 0), ``pr_url`` is kept only in the strict form :func:`pr_url` allows, and see
    :func:`~bot.model.note_text.kep_refs` for ``documentation``. ``owners``: ``{gate: kep.yaml paths}`` that speak
    for each gate (default :func:`gate_owners`; with the kep.yaml history,
    :func:`bot.plan.evidence.ownership.owners_with`: a gate's first declarer alone, its borrowers silent).
    """
    owners = gate_owners(keps) if owners is None else owners
    near = _NearGates(owners)
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
            if entry.get("do_not_publish") is True:  # withdrawn by the release team: never evidence
                continue
            mentions += _entry_mentions(release, entry, _pr_number(entry, pr_key), owners, by_number, near)
    by_path: dict[str, list[int]] = {}
    for i, m in enumerate(mentions):
        for path in m.links + m.ambiguous:
            by_path.setdefault(path, []).append(i)
    return NotesIndex(tuple(r for r, _ in ordered), tuple(mentions), {p: tuple(v) for p, v in by_path.items()})


def pr_url(value: object, pr: int) -> str:
    """The link of a note's pull request ``pr``: ``value`` (the note's ``pr_url``) when it fully matches
    :data:`PR_URL_RE` with the same number, else :data:`PR_BASE` + ``pr``; ``""`` when ``pr`` is 0.
    Untrusted text never reaches the changelog as a link target."""
    if not pr:
        return ""
    m = PR_URL_RE.fullmatch(value) if isinstance(value, str) else None
    return m.group(0) if m and int(m.group(1)) == pr else f"{PR_BASE}{pr}"


def _pr_number(entry: object, key: str) -> int:
    """``pr_number`` when it is an int in 1..MAX_PR, else the key when it is 1-9 ASCII digits, else 0."""
    value = entry.get("pr_number") if isinstance(entry, Mapping) else None
    if type(value) is int and 0 < value <= MAX_PR:  # bool is an int subclass: refused
        return value
    return int(key) if isinstance(key, str) and _PR_KEY_RE.fullmatch(key) else 0


def _entry_mentions(
    release: str,
    entry: Mapping[str, object],
    pr: int,
    owners: Mapping[str, tuple[str, ...]],
    by_number: Mapping[int, list[Kep]],
    near: _NearGates,
) -> list[Mention]:
    """The mentions of one entry, read as a whole note.

    A sentence naming a gate as a feature gate (in code, or next to "feature
    gate"), or belonging to a KEP-linked entry, but no stage, takes the stage of
    the entry's transition sentences when they agree on one and name no gate
    this sentence does not ("Graduated support for CDI device IDs
    to general availability. The `DevicePluginCDIDevices` feature gate is now
    ..."; its excerpt then shows both sentences, joined by " … "); a stage sentence without a release takes
    the release another
    sentence of the entry names for that stage ("reached GA in `v1.36`"). A gate
    several KEPs declare goes to the one the entry links by number, or to the
    one that also declares a gate of the entry only one KEP declares; else it is
    ambiguous.

    The KEPs the entry names by number are linked to each of its sentences, except a sentence whose declared
    gates all belong to other KEPs and which does not name them itself ("Promoted the `TwoGate` feature gate
    to beta. Related: KEP-100." speaks for TwoGate's KEP, not for KEP 100): a note confirms a KEP's stage
    through the KEP's own gate or by naming the KEP, never through another KEP's gate.
    """
    refs = kep_refs(entry)
    ref_paths: set[str] = set()
    ref_ambiguous: set[str] = set()
    ref_keps: dict[str, Kep] = {}
    for number, slug in refs:
        candidates = by_number.get(number, [])
        picked = [k for k in candidates if slug and slug_matches(k.slug, slug)] or candidates
        (ref_paths if len(picked) == 1 else ref_ambiguous).update(k.path for k in picked)
        ref_keps.update((k.path, k) for k in picked)
    documented = {n for n, _ in kep_refs({"documentation": entry.get("documentation")})}
    numbers = tuple(sorted({n for n, _ in refs}))
    url = pr_url(entry.get("pr_url"), pr)
    sigs = entry.get("sigs")
    sigs = tuple(s for s in sigs[:20] if isinstance(s, str)) if isinstance(sigs, list) else ()
    text = field_text(entry["text"])
    if not refs and not may_name_gates(text, owners):
        return []
    named = [(sentence, *gate_names(sentence, owners)) for sentence in split_sentences(text)]
    if ref_paths:  # the note's documentation says which KEP it is: a bare word naming another KEP's gate
        # (not in code, no "feature gate") is prose; a KEP named in passing in the text decides nothing
        named = [
            (
                sentence,
                tuple(g for g in gates if _as_gate(g, sentence) or set(owners[g]) & ref_paths or not documented),
                und,
            )
            for sentence, gates, und in named
        ]
    if not refs and not any(g or u for _, g, u in named):
        return []  # names no gate and no KEP: nothing to read (most entries; keeps indexing fast)
    read = []
    for sentence, gates, undeclared in named:
        stage, exact = announced_stage(sentence)
        read.append((sentence, gates, undeclared, stage, exact, named_release(sentence) if stage else None))
    staged = [(st, ex, set(g) | set(u), text) for text, g, u, st, ex, _ in read if st in STAGES and ex]
    entry_stage = {(st, ex) for st, ex, _, _ in staged}
    said = {st: (when, text) for text, _, _, st, _, when in read if st and when}
    unique = {owners[g][0] for _, gates, _, _, _, _ in read for g in gates if len(owners[g]) == 1}
    out: list[Mention] = []
    for i, (sentence, gates, undeclared, stage, exact, when) in enumerate(read):
        typos = tuple((u, d) for u, d in ((u, near.match(u)) for u in undeclared) if d)
        meant = dict(typos)
        undeclared = tuple(u for u in undeclared if u not in meant)
        if not (gates or undeclared or typos or refs):
            continue
        names = set(gates) | set(undeclared)
        as_gate = bool(undeclared or _FEATURE_GATE_RE.search(sentence) or any(f"`{g}" in sentence for g in gates))
        excerpt = sentence
        if (
            not stage
            and len(entry_stage) == 1
            and all(theirs <= names for _, _, theirs, _ in staged)
            and (refs or as_gate)
        ):
            stage, exact = next(iter(entry_stage))
            gates = gates if as_gate else ()  # a bare word in a borrowed-stage sentence is prose, not the gate
            excerpt = f"{staged[0][3]} … {sentence}"  # the reader sees where the stage comes from
        if not (gates or undeclared or typos or (refs and (stage or i == 0))):
            continue
        kept = _named_keps_spoken_for(sentence, gates + tuple(d for _, d in typos), owners, ref_keps, documented)
        sure, maybe = ref_paths & kept, ref_ambiguous & kept
        for gate in gates + tuple(d for _, d in typos):
            declarers = set(owners[gate])
            if len(declarers) == 1:
                sure |= declarers
            elif declarers & ref_paths:
                sure |= declarers & ref_paths
            elif declarers & unique:
                sure |= declarers & unique
            else:
                maybe |= declarers
        maybe -= sure
        if stage and not when and stage in said and said[stage][0] != release:
            when = said[stage][0]
            excerpt = f"{excerpt} … {said[stage][1]}"  # the sentence that names the release
        when = (when or release) if stage else release
        out.append(
            Mention(
                release,
                pr,
                url,
                one_line(excerpt),
                stage,
                exact,
                when,
                gates,
                undeclared,
                numbers,
                tuple(sorted(sure)),
                tuple(sorted(maybe)),
                typos,
                sigs,
            )
        )
    return out


def _named_keps_spoken_for(
    sentence: str,
    gates: Sequence[str],
    owners: Mapping[str, tuple[str, ...]],
    named: Mapping[str, Kep],
    documented: set[int],
) -> set[str]:
    """The kep.yaml paths of ``named`` (the KEPs a sentence's entry names by number, by path) the sentence
    speaks for: all of them when it names no declared gate; else those the entry's ``documentation`` links
    (the note is about that KEP: ``documented`` numbers), those whose own gate it names (declared by the KEP,
    borrowed too, or owned per ``owners``) and those whose number the sentence itself names. A sentence
    about other KEPs' gates is not about a KEP its entry mentions in passing."""
    if not gates:
        return set(named)
    said: set[int] | None = None
    out = set()
    for path, kep in named.items():
        if kep.number in documented or any(g in kep.gates() or path in owners.get(g, ()) for g in gates):
            out.add(path)
            continue
        said = {n for n, _ in kep_refs({"text": sentence})} if said is None else said
        if kep.number in said:
            out.add(path)
    return out


def _as_gate(gate: str, sentence: str) -> bool:
    """True when ``sentence`` writes ``gate`` as a feature gate: in a code span, or in a sentence that says
    "feature gate" ("Promoted the TwoGate feature gate to beta.")."""
    return _in_code(gate, sentence) or bool(_FEATURE_GATE_RE.search(sentence))


def _in_code(gate: str, sentence: str) -> bool:
    """True when ``gate`` is written inside a code span of ``sentence`` (```X```, ```--feature-gates=X=true```)."""
    return any(gate in span for span in _CODE_SPAN_RE.findall(sentence))


class _NearGates:
    """Declared gates by their first four characters, to find the one a misspelt name means."""

    def __init__(self, owners: Mapping[str, tuple[str, ...]]) -> None:
        self.by_head: dict[str, list[str]] = {}
        for gate in owners:
            if len(gate) >= NEAR_MIN_CHARS:
                self.by_head.setdefault(gate[:4], []).append(gate)

    def match(self, name: str) -> str:
        """The one declared gate ``name`` is a near match of (see :func:`near_gate`), else ``""``."""
        found = [g for g in self.by_head.get(name[:4], ()) if near_gate(name, g)]
        return found[0] if len(found) == 1 else ""


def near_gate(a: str, b: str) -> bool:
    """True when gate names ``a`` and ``b`` differ (and are at least :data:`NEAR_MIN_CHARS` long) by a typo:
    one run of at most 2 characters inserted, deleted or replaced
    (``KubeletPodResourcesDynamicResources`` / ``KubeletPodResourcesDynamicResource``)."""
    if a == b or min(len(a), len(b)) < NEAR_MIN_CHARS or abs(len(a) - len(b)) > 2:
        return False
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    return max(len(a), len(b)) - head - tail <= 2


def change_stage(change: Change, kep: Kep) -> str:
    """The stage a change is about: its milestone field, the new stage, ``stable`` for a status change to
    ``implemented`` (another status: the KEP's stage); ``""`` for any other field."""
    if change.field in STAGES:
        return change.field
    if change.field == "stage":
        return change.new
    if change.field == "status":
        return "stable" if change.new == "implemented" else kep.stage
    return ""


def evidence_for(index: NotesIndex, change: Change, kep: Kep) -> tuple[Evidence, ...]:
    """Evidence for one change: the KEP's sentences announcing the stage the change is about, in the
    release kep.yaml names for that stage.

    The stage is the milestone field (``alpha``/``beta``/``stable``), the new
    stage, or ``stable`` for a status change to ``implemented``. Only sentences
    whose release (the notes' own, or the one they name: "GA in `v1.36`") is
    kep.yaml's milestone for that stage count: a note from another release is
    a stage-mismatch finding, never support. One item per pull request. Sure links first, at most
    :data:`MAX_EVIDENCE`; then, apart, at most :data:`MAX_EVIDENCE` ambiguous
    ones (``ambiguous=True``: a gate several KEPs declare, no link to pick one). Last, at most
    :data:`MAX_EVIDENCE` sentences surely about the KEP that announce another stage for that release
    (``counter=True``: "added as alpha" in the release kep.yaml names for beta).
    """
    stage = change_stage(change, kep)
    target = normalize_milestone(kep.milestone(stage)) if stage else None
    if not target:
        return ()
    best: dict[tuple[str, int], Mention] = {}
    for m in index.for_kep(kep.path):  # one per pull request: its first sentence, a sure link before an ambiguous one
        if m.stage == stage and m.when == target:
            held = best.get((m.release, m.pr))
            if held is None or (kep.path in m.links and kep.path not in held.links):
                best[(m.release, m.pr)] = m
    hits = list(best.values())
    hits.sort(key=lambda m: (m.release != target, m.pr))
    sure = [m for m in hits if kep.path in m.links][:MAX_EVIDENCE]
    maybe = [m for m in hits if kep.path not in m.links][:MAX_EVIDENCE]
    found = tuple(Evidence(m.release, m.pr, m.url, m.excerpt, m.stage, kep.path not in m.links) for m in sure + maybe)
    return found + _counter_evidence(index, kep, stage, target, {(e.release, e.pr) for e in found})


def _counter_evidence(
    index: NotesIndex, kep: Kep, stage: str, target: str, seen: set[tuple[str, int]]
) -> tuple[Evidence, ...]:
    """Sentences surely about ``kep`` whose release is ``target`` and whose announced stage is another graduation
    stage than ``stage`` (alpha, beta, stable: a "removed" or "deprecated" reading is no other plan), one per pull
    request not in ``seen``, at most :data:`MAX_EVIDENCE`."""
    out: dict[tuple[str, int], Evidence] = {}
    for m in index.for_kep(kep.path):
        key = (m.release, m.pr)
        if m.when == target and m.stage in STAGES and m.stage != stage and kep.path in m.links and key not in seen:
            out.setdefault(key, Evidence(m.release, m.pr, m.url, m.excerpt, m.stage, False, True))
    return tuple(sorted(out.values(), key=lambda e: e.pr))[:MAX_EVIDENCE]


def attach_evidence(changes: Iterable[Change], index: NotesIndex, keps: Iterable[Kep]) -> list[Change]:
    """``changes`` with ``evidence`` filled from ``index`` (changes without a kep.yaml get none)."""
    by_path = {k.path: k for k in keps}
    return [
        c._replace(evidence=evidence_for(index, c, by_path[c.kep_path])) if c.kep_path in by_path else c
        for c in changes
    ]


def releases_needed(keps: Iterable[Kep]) -> set[str]:
    """Releases (``vMAJOR.MINOR``) named by the milestones of ``keps`` (alpha .. removed); non-milestones skipped."""
    out: set[str] = set()
    for kep in keps:
        for _, value in kep.milestones:
            norm = normalize_milestone(value)
            if norm:
                out.add(norm)
    return out
