"""Release notes as evidence: index release-note entries by KEP, attach them to changes, find discrepancies.

Pure: release notes (``{release: {pr: entry}}`` as the release team publishes
them in ``release-notes-draft.json``) and KEPs in, values out. One source of
truth per fact: the stage of a KEP comes from kep.yaml; the notes are
evidence shown next to a change and never overwrite it.

An entry is split into sentences. A sentence is indexed by

- feature gate names in backticks that some kep.yaml declares in
  ``feature-gates[].name`` (many-to-many: ``CPUManagerPolicyAlphaOptions`` is
  declared by 7 KEPs); ``X=true`` and ``--feature-gates=X`` forms count;
- KEP numbers of its entry: ``KEP-1234``, ``kep.k8s.io/1234``, enhancements
  issue and ``keps/sig-x/1234-slug`` URLs, in the text or in ``documentation[].url``
  (``enhancements/pull/N`` is a pull request, not a KEP, and is ignored);
- the stage it announces: alpha, beta, stable (GA), deprecated, removed, and
  whether it is a transition (promoted, graduated, added as alpha: the stage
  was reached in that release) or a state (locked, enabled by default,
  "(beta)": the stage was reached by that release).

A gate declared by several KEPs links the sentence to all of them as
*ambiguous*, unless the entry names one of them by number; it is never guessed.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import NamedTuple

from bot.diff import Change
from bot.kep import STAGES, Kep, milestone_key, normalize_milestone

#: Most evidence items kept per change (newest first).
MAX_EVIDENCE = 3
#: Longest excerpt, characters (one line).
MAX_EXCERPT = 240
#: Discrepancy kinds (issue 5 (a)-(d)), in report order.
DISCREPANCY_KINDS = ("not-in-notes", "stage-mismatch", "ready-to-implement", "undeclared-gate")

_BACKTICK_RE = re.compile(r"`([^`\n]+)`")
_GATE_TOKEN_RE = re.compile(r"^(?:--feature-gates=)?([A-Z][A-Za-z0-9]+)(?:=(?:true|false))?$")
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`(\[])|\n+")
_KEP_TEXT_RES = (
    re.compile(r"\bKEP[- ]?#?(\d{1,5})\b", re.I),
    re.compile(r"kep\.k8s\.io/(\d{1,5})\b", re.I),
    re.compile(r"github\.com/kubernetes/enhancements/issues/(\d{1,5})\b", re.I),
    re.compile(r"github\.com/kubernetes/enhancements/(?:tree|blob)/[^/\s)]+/keps/(?:[^/\s)]+/)+?(\d{1,5})-([\w.-]+)", re.I),
)
# A run of backtick placeholders next to "feature gate(s)": `A`, `B` and `C` feature gates / feature gate `A`.
_SPAN = r"\x00\d+\x00"
_RUN = rf"{_SPAN}(?:(?:\s*,\s*|\s+and\s+|\s+or\s+|\s*,\s*and\s+){_SPAN})*"
_GATE_PHRASE_RES = (re.compile(rf"({_RUN})\s+(?:feature[- ])?gates?\b", re.I),
                    re.compile(rf"\bfeature[- ]gates?\s+(?:named\s+|called\s+)?({_RUN})", re.I))
_STAGE_WORDS = (
    ("stable", re.compile(r"\bGA\b|(?i:\b(?:stable|generally available|general availability)\b)")),
    ("beta", re.compile(r"\bbeta\b", re.I)),
    ("alpha", re.compile(r"\balpha\b", re.I)),
)
_REMOVED_RE = re.compile(r"\b(removed|removes|remove|removal of|dropped)\b", re.I)
_DEPRECATED_RE = re.compile(r"\bdeprecat(ed|es|e|ion)\b", re.I)
_LOCKED_RE = re.compile(r"\blocked\b|\blocks? (?:it |them )?to\b", re.I)
_DEFAULT_ON_RE = re.compile(r"\b(enabled|on) by default\b|\bdefault(?:s|ed)? (?:to )?(?:true|enabled|on)\b"
                            r"|\benabled?\b[^.;]*\bby default\b", re.I)
_FUTURE_RE = re.compile(r"\bwill be\b|\bin a future release\b|\bplanned\b", re.I)
_ADDED_GATE_RE = re.compile(r"\b(?:add(?:ed|s)?|introduc\w+)\s+(?:the\s+|a\s+)?(?:new\s+)?(?:(?:alpha|beta)\s+)?"
                            r"`[^`]+`\s+feature[- ]gate", re.I)
_TRANSITION_RE = re.compile(r"\b(promot\w*|graduat\w*|moved? to|move[sd]? to|is now (?:GA|beta|stable))\b"
                            r"|\bto (GA|beta|stable|general availability)\b", re.I)
_ALPHA_INTRO_RE = re.compile(r"\b(?:add(?:ed|s)?|introduc\w+)\s+(?:an?\s+|the\s+)?(?:new\s+)?alpha\b", re.I)
_TARGET_RE = re.compile(r"\bto (?:the )?(GA|alpha|beta|stable|general availability)\b(?! and\b)", re.I)
_DEMOTED_RE = re.compile(r"\bdemot\w*|\brevert\w*|\bback to\b", re.I)
_IN_RELEASE_RE = re.compile(r"\b(?:GA|alpha|beta|stable|default)\b[^.;`]{0,8}?\bin (?:Kubernetes )?`?v?(1\.\d{1,2})\b",
                            re.I)
_GATE_WORD_RE = re.compile(r"\bfeature[- ]gates?\b|\bgates?\b", re.I)


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


class Discrepancy(NamedTuple):
    """Something kep.yaml and the release notes disagree on; listed under "Needs review", never applied.

    ``kind``: one of :data:`DISCREPANCY_KINDS`; ``kep``: KEP id (``""`` for an
    undeclared gate); ``kep_path``; ``release``: ``vMAJOR.MINOR`` concerned;
    ``message``: one line; ``pr``/``url``/``excerpt``: the note behind it (``0``/``""``
    when the finding is an absence). Ambiguous links raise no finding.
    """

    kind: str
    kep: str
    kep_path: str
    release: str
    message: str
    pr: int = 0
    url: str = ""
    excerpt: str = ""


def release_name(value: str) -> str | None:
    """``vMAJOR.MINOR`` for ``1.36``, ``v1.36``, ``release-1.36`` or ``release-notes-1.36.json``; else ``None``."""
    m = re.search(r"(\d+)\.(\d+)", value)
    return normalize_milestone(f"{m.group(1)}.{m.group(2)}") if m else None


def release_order(release: str) -> tuple[int, int]:
    """Sort key of a ``vMAJOR.MINOR`` release (``(0, 0)`` when it is not one)."""
    return milestone_key(release) or (0, 0)


def released(available: Sequence[str]) -> frozenset[str]:
    """Releases that are out: every release with notes except the newest, whose notes are a draft in progress.

    (sig-release opens ``releases/release-1.NN`` when that cycle starts, so the
    newest directory is the release being made.)
    """
    ordered = sorted(available, key=release_order)
    return frozenset(ordered[:-1])


def gate_owners(keps: Iterable[Kep]) -> dict[str, tuple[str, ...]]:
    """``{feature gate name: (kep.yaml path, ...)}`` from ``feature-gates[].name``, junk names left out."""
    owners: dict[str, list[str]] = {}
    for kep in keps:
        for gate in kep.gates():
            owners.setdefault(gate, []).append(kep.path)
    return {g: tuple(sorted(set(p))) for g, p in owners.items()}


def kep_refs(entry: Mapping) -> tuple[tuple[int, str], ...]:
    """``((number, slug), ...)`` the entry names in its text, markdown or ``documentation[].url``; slug may be ``""``."""
    texts = [str(entry.get("text") or ""), str(entry.get("markdown") or "")]
    for doc in entry.get("documentation") or ():
        if isinstance(doc, Mapping):
            texts.append(str(doc.get("url") or ""))
    slugs: dict[int, set[str]] = {}
    for text in texts:
        for rx in _KEP_TEXT_RES:
            for m in rx.finditer(text):
                named = slugs.setdefault(int(m.group(1)), set())
                if rx.groups > 1:
                    named.add(m.group(2))
    return tuple((n, next(iter(s)) if len(s) == 1 else "") for n, s in sorted(slugs.items()))


def announced_stage(sentence: str) -> tuple[str, bool]:
    """``(stage, exact)`` a sentence announces; ``("", False)`` when it announces none.

    ``removed``/``deprecated`` need the word "feature gate" or "gate" in the
    sentence; then "to <stage>" names the target ("from alpha to beta" is
    beta), else the highest of GA/stable, beta, alpha named wins; "locked"
    means stable and "enabled by default" beta, both as states. ``exact`` is
    True for promoted, graduated, "to GA", "added the `X` feature gate (Beta)"
    and "added alpha ..."; False for demoted. Future tense ("will be") announces nothing.
    """
    plain = _BACKTICK_RE.sub(" ", sentence)
    if _FUTURE_RE.search(plain):
        return "", False
    gate_word = bool(_GATE_WORD_RE.search(plain))
    if gate_word and _REMOVED_RE.search(plain):
        return "removed", True
    if gate_word and _DEPRECATED_RE.search(plain) and not _TRANSITION_RE.search(plain):
        return "deprecated", True
    target = _TARGET_RE.search(plain)
    demoted = bool(_DEMOTED_RE.search(plain))
    if target:
        word = target.group(1).lower()
        return ("stable" if word in ("ga", "stable", "general availability") else word), not demoted
    for stage, rx in _STAGE_WORDS:
        if rx.search(plain):
            exact = not demoted and (bool(_TRANSITION_RE.search(plain)) or bool(_ADDED_GATE_RE.search(sentence))
                                     or (stage == "alpha" and bool(_ALPHA_INTRO_RE.search(plain))))
            return stage, exact
    if _LOCKED_RE.search(plain) and gate_word:
        return "stable", False
    if _DEFAULT_ON_RE.search(plain):
        return "beta", False
    return "", False


def split_sentences(text: str) -> list[str]:
    """Sentences of an entry's ``text`` (split after ``.!?`` before a capital, and at line breaks)."""
    protected = _BACKTICK_RE.sub(lambda m: m.group(0).replace(".", "\x01"), text)
    parts = _SENTENCE_RE.split(protected)
    return [p.replace("\x01", ".").strip().lstrip("-* ").strip() for p in parts if p and p.strip()]


def _one_line(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_EXCERPT else text[: MAX_EXCERPT - 1].rstrip() + "…"


def gate_names(sentence: str, declared: Collection[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``(declared gates, undeclared gates)`` named in backticks in ``sentence``.

    A backticked name counts as declared when it is in ``declared``; it counts
    as undeclared only when written as a feature gate (next to "feature gate(s)")
    and absent from ``declared``.
    """
    spans = [m.group(1).strip() for m in _BACKTICK_RE.finditer(sentence)]
    names = [(_GATE_TOKEN_RE.match(s) or None) for s in spans]
    found = [m.group(1) for m in names if m and m.group(1) in declared]
    undeclared: list[str] = []
    if "gate" in sentence.lower():
        counter = iter(range(len(spans)))
        marked = _BACKTICK_RE.sub(lambda m: f"\x00{next(counter)}\x00", sentence)
        for rx in _GATE_PHRASE_RES:
            for run in rx.finditer(marked):
                for idx in re.findall(r"\x00(\d+)\x00", run.group(1)):
                    m = names[int(idx)]
                    if m and m.group(1) not in declared:
                        undeclared.append(m.group(1))
    return tuple(dict.fromkeys(found)), tuple(dict.fromkeys(undeclared))


def build_index(notes: Mapping[str, Mapping[str, Mapping]], keps: Sequence[Kep]) -> NotesIndex:
    """Index the release notes of every release in ``notes`` against ``keps``.

    ``notes``: ``{release ("v1.36" or "1.36"): {pr: entry}}``, entries as in
    ``release-notes-draft.json`` (``text``, ``pr_url``, ``pr_number``,
    ``documentation``); entries without ``text`` are skipped. ``keps``: every
    KEP of the snapshot (gates and numbers are resolved against all of them).
    """
    owners = gate_owners(keps)
    by_number: dict[int, list[Kep]] = {}
    for kep in keps:
        by_number.setdefault(kep.number, []).append(kep)
    mentions: list[Mention] = []
    ordered = sorted(((release_name(r) or r, r) for r in notes), key=lambda x: release_order(x[0]))
    for release, key in ordered:
        entries = notes[key]
        for pr_key in sorted(entries, key=lambda k: (_pr_number(entries[k], k), k)):
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
    value = entry.get("pr_number") if isinstance(entry, Mapping) else None
    if isinstance(value, int):
        return value
    return int(key) if str(key).isdigit() else 0


def _entry_mentions(release: str, entry: Mapping, pr: int, owners: Mapping[str, tuple[str, ...]],
                    by_number: Mapping[int, list[Kep]]) -> list[Mention]:
    refs = kep_refs(entry)
    ref_paths: set[str] = set()
    ref_ambiguous: set[str] = set()
    for number, slug in refs:
        candidates = by_number.get(number, [])
        picked = [k for k in candidates if slug and k.slug.lower() == slug.lower()] or candidates
        (ref_paths if len(picked) == 1 else ref_ambiguous).update(k.path for k in picked)
    numbers = tuple(sorted({n for n, _ in refs}))
    url = str(entry.get("pr_url") or "")
    out: list[Mention] = []
    for i, sentence in enumerate(split_sentences(entry["text"])):
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
        said = _IN_RELEASE_RE.search(sentence)
        when = (release_name(said.group(1)) or release) if said and stage else release
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


def find_discrepancies(index: NotesIndex, keps: Sequence[Kep], *, released: Collection[str],
                       ids: Mapping[str, str] | None = None,
                       undeclared_in: Collection[str] | None = None) -> list[Discrepancy]:
    """Discrepancies (a)-(d) between ``keps`` and the indexed release notes, in a stable order.

    (a) ``not-in-notes``: a kep.yaml milestone (alpha/beta/stable) names a
    released, indexed release whose notes never mention the KEP or its gates;
    (b) ``stage-mismatch``: a sentence announces the KEP reaching a stage in
    release N (transition) or being at it (state) while kep.yaml's milestone for
    that stage is another release (transition) or later / absent (state);
    (c) ``ready-to-implement``: status ``implementable`` with a released stable
    milestone; (d) ``undeclared-gate``: a stage sentence names a feature gate no
    kep.yaml declares. ``released``: releases that are out (see :func:`released`);
    ``ids``: kep.yaml path -> KEP id for display (default: the number);
    ``undeclared_in``: releases whose undeclared gates are reported (default: all indexed).
    """
    ids = ids or {}
    out: list[Discrepancy] = []
    indexed = set(index.releases)
    newest_out = max((release_order(r) for r in released), default=(0, 0))
    for kep in keps:
        ident = ids.get(kep.path, str(kep.number))
        mentions = index.for_kep(kep.path)
        seen = {m.release for m in mentions}
        for stage in STAGES:
            rel = normalize_milestone(kep.milestone(stage))
            if rel and rel in indexed and rel in released and rel not in seen:
                what = f"gates {', '.join(kep.gates())}" if kep.gates() else "no feature gate declared"
                out.append(Discrepancy("not-in-notes", ident, kep.path, rel,
                                       f"kep.yaml says {stage} in {rel}, but the {rel} release notes never mention "
                                       f"KEP-{kep.number} or its gates ({what})"))
        out += _stage_mismatches(kep, ident, mentions)
        stable = milestone_key(kep.milestone("stable"))
        if kep.status == "implementable" and stable and stable <= newest_out:
            rel = normalize_milestone(kep.milestone("stable")) or ""
            out.append(Discrepancy("ready-to-implement", ident, kep.path, rel,
                                   f"status implementable, but the stable milestone {rel} is released: "
                                   "ready to mark implemented?"))
    seen_gates: set[tuple[str, str]] = set()
    for m in index.mentions:
        for gate in m.undeclared:
            if m.stage in STAGES and (m.release, gate) not in seen_gates and (
                    undeclared_in is None or m.release in undeclared_in):
                seen_gates.add((m.release, gate))
                out.append(Discrepancy("undeclared-gate", "", "", m.release,
                                       f"feature gate {gate} is announced ({m.stage}) but no kep.yaml declares it",
                                       m.pr, m.url, m.excerpt))
    order = {k: i for i, k in enumerate(DISCREPANCY_KINDS)}
    out.sort(key=lambda d: (order[d.kind], d.kep_path, release_order(d.release), d.pr, d.message))
    return out


def _about_gate(m: Mention, kep: Kep) -> bool:
    """The sentence names one of the KEP's gates, or a gate nobody declares in an entry that names the KEP."""
    return bool(set(m.gates) & set(kep.gates())) or bool(m.undeclared and kep.number in m.refs)


def _stage_mismatches(kep: Kep, ident: str, mentions: Sequence[Mention]) -> list[Discrepancy]:
    out: dict[tuple[str, str], Discrepancy] = {}
    for m in mentions:
        if m.stage not in STAGES or kep.path not in m.links or not _about_gate(m, kep):
            continue  # an ambiguous link is evidence, never grounds for a finding; so is a metric or a command
        declared = kep.milestone(m.stage)
        have = milestone_key(declared)
        when = release_order(m.when)
        if m.exact:
            ok, says = have == when, "reached in"
        else:
            reached = [milestone_key(kep.milestone(s)) for s in STAGES[STAGES.index(m.stage):]]
            ok, says = any(r is not None and r <= when for r in reached), "reached by"
        if ok:
            continue
        message = (f"{m.release} notes say {m.stage} {says} {m.when}; kep.yaml milestone.{m.stage} is "
                   f"{declared or 'not set'}")
        out.setdefault((m.release, message), Discrepancy("stage-mismatch", ident, kep.path, m.release, message,
                                                         m.pr, m.url, m.excerpt))
    return list(out.values())


class NotesReview(NamedTuple):
    """What release notes add to one run: ``changes`` with evidence, the ``discrepancies``,
    and the ``releases`` whose notes were indexed."""

    changes: list[Change]
    discrepancies: list[Discrepancy]
    releases: tuple[str, ...]


def review(changes: Sequence[Change], involved: Sequence[Kep], all_keps: Sequence[Kep],
           notes: Mapping[str, Mapping[str, Mapping]], available: Sequence[str],
           ids: Mapping[str, str] | None = None) -> NotesReview:
    """Attach evidence to ``changes`` and find the discrepancies of the ``involved`` KEPs (the pages' rows).

    ``all_keps``: every KEP of the snapshot (for the gate and number index);
    ``notes``: ``{release: {pr: entry}}`` as read; ``available``: every release
    the source has (the newest is taken as not yet out, see :func:`released`).
    Undeclared gates are reported for the newest two releases only: older ones are history.
    """
    index = build_index(notes, all_keps)
    newest = sorted(available, key=release_order)[-2:]
    found = find_discrepancies(index, involved, released=released(available), ids=ids, undeclared_in=newest)
    return NotesReview(attach_evidence(changes, index, all_keps), found, index.releases)
