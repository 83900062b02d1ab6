"""Discrepancies between kep.yaml and the release notes (the "Needs review" list): findings, never applied.

Pure. See :func:`find_discrepancies` for the kinds. Each is a :class:`~bot.model.finding.Finding`
whose ``release`` is the release concerned and whose ``pr``/``url``/``excerpt`` name the release
note behind it (``0``/``""`` when the finding is an absence); ambiguous links raise no finding.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import NamedTuple

from bot.model.finding import Finding
from bot.model.kep import STAGES, Kep, milestone_key, normalize_milestone
from bot.model.note_text import release_order
from bot.plan.diff import Change
from bot.plan.evidence.index import Mention, NotesIndex, attach_evidence, build_index
from bot.plan.evidence.prose import attach_possible

#: :attr:`~bot.model.finding.Finding.kind` of the discrepancies, in report order.
DISCREPANCY_KINDS = ("not-in-notes", "stage-mismatch", "ready-to-implement", "gate-typo", "undeclared-gate")


def released(available: Sequence[str]) -> frozenset[str]:
    """Releases that are out: every release with notes except the newest, whose notes are a draft in progress.

    (sig-release opens ``releases/release-1.NN`` when that cycle starts, so the
    newest directory is the release being made.)
    """
    ordered = sorted(available, key=release_order)
    return frozenset(ordered[:-1])


def find_discrepancies(
    index: NotesIndex,
    keps: Sequence[Kep],
    *,
    released: Collection[str],
    ids: Mapping[str, str] | None = None,
    undeclared_in: Collection[str] | None = None,
    undeclared_sigs: Collection[str] | None = None,
) -> list[Finding]:
    """Discrepancies (a)-(d) between ``keps`` and the indexed release notes, in a stable order.

    (a) ``not-in-notes``: a kep.yaml milestone (alpha/beta/stable) names a
    released, indexed release whose notes never name the KEP's number or any of
    its gates, borrowed ones included (a feature described only in words, "prioritized list", is not
    seen: the message asks the reviewer to check the prose);
    (b) ``stage-mismatch``: a sentence announces the KEP reaching a stage in
    release N (transition) or being at it (state) while kep.yaml's milestone for
    that stage is another release (transition) or later / absent (state); a note
    linked to the KEP by number counts like one naming its gate ("Added alpha
    support for ..." in the v1.26 notes, kep.yaml alpha v1.29);
    (c) ``ready-to-implement``: status ``implementable`` with a released stable
    milestone; ``gate-typo``: the notes name a feature gate that differs from
    one the KEP declares by a typo (likely a typo in kep.yaml);
    (d) ``undeclared-gate``: a stage sentence names a feature gate no kep.yaml
    declares, reported only when ``undeclared_sigs`` is given and the entry's
    ``sigs`` meet it (``review: all``: the SIGs of the page's KEPs), so by default
    nothing is said about a gate unrelated to the page. ``released``: releases
    that are out (see :func:`released`); ``ids``: kep.yaml path -> KEP id for
    display (default: the number); ``undeclared_in``: releases whose undeclared
    gates are reported (default: all indexed).
    """
    ids = ids or {}
    out: list[Finding] = []
    indexed = set(index.releases)
    newest_out = max((release_order(r) for r in released), default=(0, 0))
    named: dict[str, set[str]] = {}  # gate -> releases whose notes name it (a borrowed gate's notes count too)
    for m in index.mentions:
        for gate in m.gates:
            named.setdefault(gate, set()).add(m.release)
    for kep in keps:
        ident = ids.get(kep.path, str(kep.number))
        mentions = index.for_kep(kep.path)
        seen = {m.release for m in mentions}.union(*(named.get(g, set()) for g in kep.gates()))
        for stage in STAGES:
            rel = normalize_milestone(kep.milestone(stage))
            if rel and rel in indexed and rel in released and rel not in seen:
                what = f"gates {', '.join(kep.gates())}" if kep.gates() else "no feature gate declared"
                out.append(
                    Finding(
                        "not-in-notes",
                        ident,
                        kep.path,
                        rel,
                        f"kep.yaml says {stage} in {rel}, but the {rel} release notes never name "
                        f"KEP-{kep.number} or its gates ({what}); check their prose, which may "
                        "describe the feature in words only",
                    )
                )
        out += _stage_mismatches(kep, ident, mentions)
        out += _gate_typos(kep, ident, mentions)
        stable = milestone_key(kep.milestone("stable"))
        if kep.status == "implementable" and stable and stable <= newest_out:
            rel = normalize_milestone(kep.milestone("stable")) or ""
            question = (
                "ready to mark implemented?"
                if kep.stage == "stable"
                else f"stage is still {kep.stage or 'unset'}: graduation missed, or the stable milestone stale?"
            )
            out.append(
                Finding(
                    "ready-to-implement",
                    ident,
                    kep.path,
                    rel,
                    f"status implementable, but the stable milestone {rel} is released: {question}",
                )
            )
    seen_gates: set[tuple[str, str]] = set()
    sigs = {_sig_name(s) for s in undeclared_sigs or ()}
    for m in index.mentions if undeclared_sigs is not None else ():
        for gate in m.undeclared:
            if (
                m.stage in STAGES
                and (m.release, gate) not in seen_gates
                and (undeclared_in is None or m.release in undeclared_in)
                and sigs & {_sig_name(s) for s in m.sigs}
            ):
                seen_gates.add((m.release, gate))
                out.append(
                    Finding(
                        "undeclared-gate",
                        "",
                        "",
                        m.release,
                        f"feature gate {gate} is announced ({m.stage}) but no kep.yaml declares it",
                        m.pr,
                        m.url,
                        m.excerpt,
                    )
                )
    order = {k: i for i, k in enumerate(DISCREPANCY_KINDS)}
    out.sort(key=lambda d: (order[d.kind], d.kep_path, release_order(d.release), d.pr, d.message))
    return out


def _sig_name(sig: str) -> str:
    """``sig-node`` and ``node`` -> ``node`` (kep.yaml's owning-sig vs the notes' ``sigs``)."""
    return sig.lower().removeprefix("sig-")


def about_kep(m: Mention, kep: Kep) -> bool:
    """The sentence names one of the KEP's gates (or a near miss of one), or, in an entry that links the KEP by
    number, names a gate nobody declares or announces a transition ("Added alpha support for ...")."""
    gates = set(kep.gates())
    return (
        bool(set(m.gates) & gates)
        or any(d in gates for _, d in m.near)
        or (kep.number in m.refs and (bool(m.undeclared) or m.exact))
    )


def agrees(m: Mention, kep: Kep) -> bool:
    """True when kep.yaml agrees with the stage sentence ``m`` (a stage of :data:`STAGES`): a transition's release
    is kep.yaml's milestone for that stage; a state ("enabled by default" in v1.33) holds when kep.yaml names
    that stage or a later one for that release or an earlier one."""
    when = release_order(m.when)
    if m.exact:
        return milestone_key(kep.milestone(m.stage)) == when
    reached = [milestone_key(kep.milestone(s)) for s in STAGES[STAGES.index(m.stage) :]]
    return any(r is not None and r <= when for r in reached)


def _gate_typos(kep: Kep, ident: str, mentions: Sequence[Mention]) -> list[Finding]:
    out: dict[tuple[str, str], Finding] = {}
    for m in mentions:
        for said, declared in m.near:
            if declared in kep.gates() and kep.path in m.links:
                out.setdefault(
                    (said, declared),
                    Finding(
                        "gate-typo",
                        ident,
                        kep.path,
                        m.release,
                        f"the {m.release} notes name feature gate {said}; kep.yaml declares {declared}: likely a typo "
                        "in kep.yaml (the notes are linked to this KEP as a near match)",
                        m.pr,
                        m.url,
                        m.excerpt,
                    ),
                )
    return list(out.values())


def _stage_mismatches(kep: Kep, ident: str, mentions: Sequence[Mention]) -> list[Finding]:
    out: dict[tuple[str, str], Finding] = {}
    for m in mentions:
        if m.stage not in STAGES or kep.path not in m.links or not about_kep(m, kep):
            continue  # an ambiguous link is never grounds for a finding
        declared = kep.milestone(m.stage)
        says = "reached in" if m.exact else "reached by"
        if agrees(m, kep):
            continue
        message = (
            f"{m.release} notes say {m.stage} {says} {m.when}; kep.yaml milestone.{m.stage} is {declared or 'not set'}"
        )
        out.setdefault(
            (m.release, message), Finding("stage-mismatch", ident, kep.path, m.release, message, m.pr, m.url, m.excerpt)
        )
    return list(out.values())


class NotesReview(NamedTuple):
    """What release notes add to one run: ``changes`` with evidence, the ``discrepancies``,
    the ``releases`` whose notes were indexed and the ``notes_index`` itself."""

    changes: list[Change]
    discrepancies: list[Finding]
    releases: tuple[str, ...]
    notes_index: NotesIndex | None = None


def review(
    changes: Sequence[Change],
    involved: Sequence[Kep],
    all_keps: Sequence[Kep],
    notes: Mapping[str, Mapping[str, object]],
    available: Sequence[str],
    ids: Mapping[str, str] | None = None,
    *,
    scope: str = "page",
    page_keps: Sequence[Kep] = (),
    owners: Mapping[str, tuple[str, ...]] | None = None,
) -> NotesReview:
    """Attach evidence to ``changes`` and find the discrepancies of the ``involved`` KEPs (the pages' rows).

    ``all_keps``: every KEP of the snapshot (for the gate and number index);
    ``notes``: ``{release: {pr: entry}}`` as read; ``available``: every release
    the source has (the newest is taken as not yet out, see :func:`released`).
    ``scope``: ``"page"`` (default) reports nothing about gates no kep.yaml
    declares; ``"all"`` (``release_notes.review: all``) adds those announced in
    the newest two releases by entries of the SIGs of ``page_keps`` (default:
    ``involved``); older releases are history. ``owners``: who speaks for each gate
    (:func:`bot.plan.evidence.index.build_index`). A change about a stage with no note surely about its KEP gets
    the notes that describe the KEP in words as possible evidence (:mod:`bot.plan.evidence.prose`).
    """
    index = build_index(notes, all_keps, owners)
    newest = sorted(available, key=release_order)[-2:]
    sigs = {k.sig for k in (page_keps or involved) if k.sig} if scope == "all" else None
    found = find_discrepancies(
        index, involved, released=released(available), ids=ids, undeclared_in=newest, undeclared_sigs=sigs
    )
    with_notes = attach_evidence(changes, index, all_keps)
    declared = {g for k in all_keps for g in k.gates()}
    return NotesReview(attach_possible(with_notes, notes, all_keps, declared), found, index.releases, index)
