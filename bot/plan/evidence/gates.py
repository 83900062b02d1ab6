"""The feature-gate lifecycle as a second source of truth: which gate speaks for a KEP, the Shipped mark of
each change, the gate findings and the releases a promotion waits for.

Pure: KEPs, changes and a :class:`bot.model.gates.Lifecycle` in, values out.

Which gate speaks for a KEP (:func:`join`): the KEP's ``feature-gates[].name`` found in a list (a name that
differs from exactly one listed gate by a typo, :func:`bot.plan.evidence.index.near_gate`, is read as that gate
and said so). It speaks only when it is the KEP's one gate of its own in the lists and no other KEP speaks for
it, by that name or by a typo of it (:func:`list_owners`: a gate shared with withdrawn or replaced KEPs only
belongs to the live one; with the kep.yaml history, a shared gate belongs to the KEP that declared it first,
:mod:`bot.plan.evidence.ownership`, and its borrowers never speak for it). A KEP with several gates of its own in
the lists, or one sharing its gate with a KEP the history cannot rank, gets no gate: that is reported as such,
never guessed.

What the list says about a planned stage (:func:`verdict`, in the states of
:mod:`bot.plan.evidence.stage_state`): a release the list has not closed (its newest version, later ones) is
*pending*, never a disagreement; a closed release is *confirmed* when the gate reached the stage there, or when a
reading of the list explains kep.yaml's release (a beta turned on by default in that release), said in the
reason; *contradicted* when the gate reached the stage in another release or had not reached it by then; and
*unknown* when the list cannot tell (a gate born at a later stage says nothing of the earlier ones; a synthetic
``1.0`` GA entry).
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import NamedTuple

from bot.model.finding import Finding
from bot.model.gates import RANK, Gate, GateList, Lifecycle, release_key, shipped_text
from bot.model.kep import STAGES, Kep, normalize_milestone
from bot.model.snapshot import Snapshot, resolve, slug_matches
from bot.plan.diff import Change, IgnoreRule, kep_id
from bot.plan.evidence.index import gate_owners, near_gate
from bot.plan.evidence.ownership import Ownership, owners_with
from bot.plan.evidence.stage_state import CONFIRMED, CONTRADICTED, PENDING, UNKNOWN, Verdict, word
from bot.wiki.matrix import MatrixPage
from bot.wiki.tables import escape_cell, fill_cell, split_row, unescape_cell

#: Shipped marks (:attr:`Mark.mark`): the list shows that stage at that release; the release is not closed by the
#: list; the list shows another release or stage; no gate data, or the list cannot tell.
SHIPPED, PENDING_MARK, OTHER, NO_DATA = "✓", "pending", "✗", "·"
#: The mark of each :mod:`bot.plan.evidence.stage_state` state.
MARKS = {CONFIRMED: SHIPPED, PENDING: PENDING_MARK, CONTRADICTED: OTHER, UNKNOWN: NO_DATA}
#: Finding kinds, in report order.
GATE_KINDS = ("gate-stage-mismatch", "not-shipped", "shipped-not-implemented")


class Join(NamedTuple):
    """How a KEP meets the lists: ``gate`` (the listed name that speaks for it, ``""`` when none),
    ``listed`` (its gates found in a list, by their listed names), ``declared`` (kep.yaml's gates),
    ``typos`` (``(kep.yaml name, listed name)``), ``note`` (why no gate speaks, or the typo), ``shared``
    (the listed gates other live KEPs declare too, or that belong to live KEPs when this one is withdrawn) and
    ``since`` (for a shared gate this KEP owns: the earliest release it planned when it took the gate,
    :attr:`bot.plan.evidence.ownership.Ownership.since`; ``""`` when unknown)."""

    gate: str
    listed: tuple[str, ...]
    declared: tuple[str, ...]
    typos: tuple[tuple[str, str], ...]
    note: str
    shared: tuple[str, ...] = ()
    since: str = ""


class Mark(NamedTuple):
    """The Shipped mark of one change: ``mark`` (:data:`SHIPPED`, :data:`PENDING_MARK`, :data:`OTHER`,
    :data:`NO_DATA`), the ``gate``, the ``release`` kep.yaml names for the stage and the ``detail`` (what the
    list shows; which list only when the lifecycle has several)."""

    mark: str
    gate: str
    release: str
    detail: str


@functools.lru_cache(maxsize=8192)
def listed_name(gate: str, names: frozenset[str]) -> str:
    """The listed gate a kep.yaml name ``gate`` means: itself when listed, else the one listed name it differs
    from by a typo (:func:`bot.plan.evidence.index.near_gate`); ``""`` when none or several."""
    if gate in names:
        return gate
    near = [n for n in names if near_gate(gate, n)]
    return near[0] if len(near) == 1 else ""


def list_owners(
    all_keps: Iterable[Kep], names: frozenset[str], ownership: Mapping[str, Ownership] | None = None
) -> dict[str, tuple[str, ...]]:
    """:func:`bot.plan.evidence.index.gate_owners` of ``all_keps`` keyed by listed name: a kep.yaml name that is a
    typo of a listed gate counts as that gate (so a KEP declaring it shares the gate). With ``ownership``
    (:func:`bot.plan.evidence.ownership.decide` over listed names) a gate with an owner is that KEP's alone."""
    name = functools.partial(_as_listed, names=names)
    if ownership is not None:
        return owners_with(all_keps, ownership, name)
    return gate_owners(all_keps, name)


def _as_listed(gate: str, names: frozenset[str]) -> str:
    return listed_name(gate, names) or gate


def join(
    kep: Kep,
    owners: Mapping[str, tuple[str, ...]],
    names: frozenset[str],
    ownership: Mapping[str, Ownership] | None = None,
) -> Join:
    """The gate that speaks for ``kep`` (see the module docstring). ``owners``: :func:`list_owners` of every
    KEP; ``names``: every gate name of the lists; ``ownership``: the shared gates' owners, for the notes."""
    declared = kep.gates()
    if not declared:
        return Join("", (), (), (), "kep.yaml declares no feature gate")
    listed, typos = [], []
    for gate in declared:
        name = listed_name(gate, names)
        if name:
            listed.append(name)
        if name and name != gate:
            typos.append((gate, name))
    listed = list(dict.fromkeys(listed))
    typo = "; ".join(f"kep.yaml declares {a}, the list has {b} (likely a typo in kep.yaml)" for a, b in typos)
    if not listed:
        return Join("", (), declared, (), f"{', '.join(declared)}: in no feature-gate list")
    own = [g for g in listed if kep.path in owners.get(g, (kep.path,))]
    shared = tuple(g for g in listed if owners.get(g, (kep.path,)) != (kep.path,))
    if len(own) > 1:
        return Join(
            "",
            tuple(listed),
            declared,
            tuple(typos),
            f"several gates in the list ({', '.join(own)}): none is picked",
            shared,
        )
    if not own:
        gate = listed[0]
        known = (ownership or {}).get(gate)
        if known is not None and known.owner and kep.path in known.passed:
            return Join(
                "", tuple(listed), declared, tuple(typos), f"{gate} passed on from this KEP: {known.why}", shared
            )
        if known is not None and known.owner:
            return Join("", tuple(listed), declared, tuple(typos), f"{gate} is borrowed: {known.why}", shared)
        others = [p for p in owners.get(gate, ()) if p != kep.path]
        return Join("", tuple(listed), declared, tuple(typos), f"{gate} belongs to live KEP(s) {', '.join(others)}")
    gate = own[0]
    others = [p for p in owners.get(gate, ()) if p != kep.path]
    if others:
        known = (ownership or {}).get(gate)
        why = f" ({known.why})" if known is not None else ""
        return Join(
            "",
            tuple(listed),
            declared,
            tuple(typos),
            f"{gate} is also declared by live KEP(s) {', '.join(others)}: not picked{why}",
            shared,
        )
    known = (ownership or {}).get(gate)
    since = known.since if known is not None and known.owner == kep.path else ""
    return Join(gate, tuple(listed), declared, tuple(typos), typo, shared, since)


def joins(
    keps: Iterable[Kep], all_keps: Sequence[Kep], lc: Lifecycle, ownership: Mapping[str, Ownership] | None = None
) -> dict[str, Join]:
    """``{kep.yaml path: Join}`` for ``keps``, gates resolved against ``all_keps``; ``ownership``: the owners of
    the shared gates by listed name (:func:`bot.plan.evidence.ownership.decide`), ``None`` without history."""
    names = lc.names()
    owners = list_owners(all_keps, names, ownership)
    return {k.path: join(k, owners, names, ownership) for k in keps}


def _stage_of(change: Change, kep: Kep) -> str:
    if change.field in STAGES:
        return change.field
    if change.field == "stage" and change.new in STAGES:
        return change.new
    if change.field == "status" and change.new == "implemented":
        return "stable"
    return ""


def mark(change: Change, kep: Kep, j: Join, lc: Lifecycle) -> Mark:
    """The Shipped mark of ``change`` (a milestone, a stage, or a status change to ``implemented``, read as
    ``stable``) for ``kep``: the :func:`verdict` of the speaking gate on that stage in the release kep.yaml names
    for it, as :data:`MARKS` has it; :data:`NO_DATA` when there is no gate or no milestone."""
    stage = _stage_of(change, kep)
    if not stage:
        return Mark(NO_DATA, j.gate, "", f"{change.field} is not a stage")
    target = normalize_milestone(kep.milestone(stage)) or ""
    if not j.gate:
        return Mark(NO_DATA, "", target, j.note)
    if not target:
        return Mark(NO_DATA, j.gate, "", f"kep.yaml names no milestone for {stage}")
    found = verdict(j.gate, stage, target, lc, j.since)
    return Mark(MARKS[found.state], j.gate, target, found.reason)


def closed(lc: Lifecycle, release: str) -> bool:
    """True when the lists have closed ``release``: it is no newer than the newest release they say shipped
    (:attr:`bot.model.gates.Lifecycle.shipped`; a single list's newest version is the release being made)."""
    last = max((release_key(r) for r in lc.shipped), default=(0, 0))
    return release_key(release) != (0, 0) and release_key(release) <= last


def readings(gate: Gate, stage: str) -> list[tuple[str, str]]:
    """``(release, how)`` of each reading of the list that puts ``stage`` in a release: the first spec at that
    stage (``"beta in v1.28"``) and, for beta, the first beta spec on by default when later
    (``"beta in v1.28, on by default in v1.32"``: a KEP may call the default flip its beta)."""
    first = gate.reached(stage)
    if first is None or not first.release:
        return []
    out = [(first.release, f"{word(stage)} in {first.release}")]
    if stage == "beta" and not first.default:
        on = next((s for s in gate.specs if s.stage == "beta" and s.default and s.release), None)
        if on is not None:
            out.append((on.release, f"{word(stage)} in {first.release}, on by default in {on.release}"))
    return out


def verdict(name: str, stage: str, target: str, lc: Lifecycle, since: str = "") -> Verdict:
    """What the list says of ``stage`` planned for ``target`` for the gate ``name`` (one the lists hold), in the
    states of :mod:`bot.plan.evidence.stage_state` (see the module docstring). The reason reads after "the gate
    list shows": ``UserNamespacesSupport beta in v1.30, on by default in v1.33``. ``since``: the earliest
    release the KEP planned when it took a shared gate (:attr:`Join.since`): a stage the gate reached before
    then is no measure of this KEP's plan (KEP 5554 took ``InPlacePodVerticalScalingExclusiveCPUs``, alpha since
    v1.32, planning v1.36): unknown, said so."""
    gate, gl = _listed(lc, name, target)
    where = _which(lc, gl)
    spec = gate.reached(stage)
    if spec is not None and not spec.release:
        return Verdict(UNKNOWN, f"{name} GA before the versioned list (synthetic 1.0 entry){where}")
    found = readings(gate, stage)
    if any(r == target for r, _ in found):
        how = next(h for r, h in found if r == target)
        if not closed(lc, target):
            return Verdict(PENDING, f"{name} {how} ({target} not closed){where}")
        return Verdict(CONFIRMED, f"{name} {how}{where}")
    if spec is not None and since and key_before(spec.release, since):
        return Verdict(
            UNKNOWN, f"{name} {found[-1][1]}, before this KEP took the gate (it planned {since} then){where}"
        )
    if spec is not None and closed(lc, spec.release) and (closed(lc, target) or key_before(spec.release, target)):
        return Verdict(CONTRADICTED, f"{name} {found[-1][1]}{where}")
    now = gate.at(target)
    if not closed(lc, target):
        shown = f"{word(now.stage)} as of {now.release or 'the versioned list'}" if now else "not yet"
        return Verdict(PENDING, f"{name} {shown} ({target} not closed){where}")
    first = gate.specs[0] if gate.specs else None
    if first is not None and RANK.get(first.stage, 3) > RANK[stage]:
        born = first.release or "before the versioned list"
        return Verdict(UNKNOWN, f"{name} born {word(first.stage)} in {born}, so nothing of {word(stage)}{where}")
    if release_key(target) <= release_key(gl.covers):
        later = f", {word(stage)} in {spec.release}" if spec is not None else ""
        return Verdict(CONTRADICTED, f"{name} {word(now.stage) if now else 'not yet'} in {target}{later}{where}")
    return Verdict(UNKNOWN, f"{name} up to {gl.covers} only{where}")


def key_before(a: str, b: str) -> bool:
    """True when release ``a`` is older than release ``b``."""
    return release_key(a) < release_key(b)


def _which(lc: Lifecycle, gl: GateList) -> str:
    """`` (list of v1.33)`` when the lifecycle has several lists, else ``""``: a source is named once, in the
    changelog's legend and the report's ``gate_lifecycle.lists``."""
    return f" (list of {gl.covers})" if len(lc.lists) > 1 else ""


def attach_marks(
    changes: Sequence[Change], keps: Mapping[str, Kep], js: Mapping[str, Join], lc: Lifecycle
) -> list[Change]:
    """``changes`` with ``shipped`` set to their :class:`Mark` (changes without a kep.yaml get none)."""
    return [
        c._replace(shipped=mark(c, keps[c.kep_path], js[c.kep_path], lc))
        if c.kep_path in keps and c.kep_path in js
        else c
        for c in changes
    ]


def stage_verdict(kep: Kep, stage: str, j: Join, lc: Lifecycle) -> Verdict:
    """What the lists say of ``kep``'s planned ``stage`` (kep.yaml's milestone for it): the speaking gate's
    :func:`verdict`; for a KEP whose declared gates are in no list at all, contradicted on every closed
    milestone (only when kep.yaml names no closed GA: a gate drops out of the list after GA); else nothing
    (``state`` ``""``) with the reason no gate speaks (:attr:`Join.note`)."""
    target = normalize_milestone(kep.milestone(stage)) or ""
    if not target:
        return Verdict("", "")
    if j.gate:
        return verdict(j.gate, stage, target, lc, j.since)
    if j.declared and not j.listed and _absent_stage(kep, lc) and closed(lc, target):
        return Verdict(CONTRADICTED, f"no {' or '.join(j.declared)} in any list")
    return Verdict("", j.note)


def findings(
    keps: Sequence[Kep], js: Mapping[str, Join], lc: Lifecycle, ids: Mapping[str, str] | None = None
) -> list[Finding]:
    """The gate findings of ``keps``: each planned stage the lists contradict (:func:`stage_verdict`), never one
    a reading of the list explains, nor a borrowed or shared gate's; the message names the gate and the
    releases (the list only when the lifecycle has several: the changelog names the source once):

    - ``gate-stage-mismatch``: kep.yaml's milestone for a stage differs from the release in which the
      speaking gate reached it (a beta turned on by default in kep.yaml's release counts as reached there;
      synthetic ``1.0`` entries never count);
    - ``not-shipped``: kep.yaml names a closed release for a stage the gate had not reached in that release
      (a gate born at a later stage says nothing of the earlier ones); or, for a KEP whose declared gates are
      in no list at all, its first closed milestone (only when kep.yaml names no closed GA);
    - ``shipped-not-implemented``: status ``implementable`` while the gate is GA and locked to its
      default in a shipped release.
    """
    ids = ids or {}
    last = max((release_key(r) for r in lc.shipped), default=(0, 0))
    out: list[Finding] = []
    for kep in keps:
        j = js.get(kep.path)
        if j is None:
            continue
        ident = ids.get(kep.path, str(kep.number))
        for stage in STAGES:
            found = stage_verdict(kep, stage, j, lc)
            if found.state != CONTRADICTED:
                continue
            target = normalize_milestone(kep.milestone(stage)) or ""
            reached = bool(j.gate) and _listed(lc, j.gate, target)[0].reached(stage) is not None
            kind = "gate-stage-mismatch" if reached else "not-shipped"
            message = f"kep.yaml milestone.{stage} is {target}; the gate list shows {found.reason}"
            out.append(Finding(kind, ident, kep.path, target, message))
        if j.gate:
            out += _locked_findings(kep, ident, j.gate, lc, last)
    order = {k: i for i, k in enumerate(GATE_KINDS)}
    out.sort(key=lambda d: (order[d.kind], d.kep_path, release_key(d.release), d.message))
    return out


def _released(release: str, last: tuple[int, int]) -> bool:
    return release_key(release) != (0, 0) and release_key(release) <= last


def _locked_findings(kep: Kep, ident: str, name: str, lc: Lifecycle, last: tuple[int, int]) -> list[Finding]:
    locked = _locked_ga(*_listed(lc, name))
    if kep.status != "implementable" or locked is None:
        return []
    ga, lock, gl = locked
    if (lock and not _released(lock, last)) or (ga and not _released(ga, last)):
        return []
    return [
        Finding(
            "shipped-not-implemented",
            ident,
            kep.path,
            lock or ga,
            f"status implementable, but feature gate {name} is GA since "
            f"{ga or 'before the versioned list'} and locked to its default since "
            f"{lock or 'before the versioned list'}{_which(lc, gl)}: done in the code, "
            "not marked implemented",
        )
    ]


def _listed(lc: Lifecycle, name: str, release: str = "") -> tuple[Gate, GateList]:
    """:meth:`Lifecycle.gate` for a gate ``name`` a list holds (:attr:`Join.gate`, :attr:`Join.listed`);
    raises ``KeyError`` for any other name."""
    found = lc.gate(name, release)
    if found is None:
        raise KeyError(name)
    return found


def _locked_ga(gate: Gate, gl: GateList) -> tuple[str, str, GateList] | None:
    """``(GA release, locked release, list)`` when the gate's latest spec is GA and locked, else ``None``."""
    if not gate.specs or gate.specs[-1].stage != "stable" or not gate.specs[-1].locked:
        return None
    ga = gate.reached("stable")
    lock = next(s for s in gate.specs if s.stage == "stable" and s.locked)
    return (ga.release if ga else ""), lock.release, gl


def _absent_stage(kep: Kep, lc: Lifecycle) -> str:
    """The stage of ``kep``'s first closed milestone, for a KEP whose gates are in no list; ``""`` when it has
    none, or when its GA is closed (its gate may have dropped out of the list after GA)."""
    last = max((release_key(r) for r in lc.shipped), default=(0, 0))
    stable = normalize_milestone(kep.milestone("stable"))
    if (stable and _released(stable, last)) or not lc.lists:
        return ""
    for stage in STAGES:
        target = normalize_milestone(kep.milestone(stage))
        if target and _released(target, last):
            return stage
    return ""


def shipped_cell(j: Join, lc: Lifecycle) -> str | None:
    """The Shipped column's text for a row: the speaking gate's lifecycle (:func:`bot.model.gates.shipped_text`),
    or each listed gate by name when the KEP has several (``A: alpha v1.30; B: beta v1.33``), a gate another
    live KEP declares too as ``B: shared with another KEP`` (never its lifecycle); ``None`` when the KEP has no
    gate of its own in the lists (the cell is kept)."""
    if j.gate:
        return shipped_text(_listed(lc, j.gate)[0])
    if len(j.listed) > 1 and len(j.shared) < len(j.listed):
        return "; ".join(
            f"{g}: shared with another KEP" if g in j.shared else f"{g}: {shipped_text(_listed(lc, g)[0])}"
            for g in j.listed
        )
    return None


def pending_release(kep: Kep, change: Change, shipped: Collection[str]) -> str:
    """The release a change waits for under ``promote_when: released``: a stage promotion (the milestone
    kep.yaml names for the new stage) or a new milestone, when that release is not among ``shipped`` and not
    older than the newest of them; ``""`` when it can be written now."""
    if change.field == "stage" and change.kind == "promoted":
        release = normalize_milestone(kep.milestone(change.new.strip().lower()))
    elif change.field in STAGES and change.kind == "retargeted":
        release = normalize_milestone(change.new)
    else:
        return ""
    last = max((release_key(r) for r in shipped), default=(0, 0))
    if not release or release in shipped or release_key(release) <= last:
        return ""
    return release


class RowScope(NamedTuple):
    """Which rows and cells of a page :func:`shipped_column` may write: ``only`` the KEP numbers to consider
    (``None``: all), ``ignores`` ``{0-based line: fields}`` the rows' ignore markers name
    (:func:`bot.wiki.ignore.row_ignores`), ``rules`` the config's ``ignore`` entries
    (:class:`bot.plan.diff.IgnoreRule`)."""

    only: Collection[int] | None = None
    ignores: Mapping[int, Collection[str]] = {}
    rules: Sequence[IgnoreRule] = ()

    def ignored(self, line: int, number: int, new: str, field: str = "shipped") -> str:
        """``"page"`` when a marker of row ``line`` ignores ``field``, ``"config"`` when a rule does, else ``""``."""
        if field in self.ignores.get(line, ()):
            return "page"
        return "config" if any(r.matches(number, field, new) for r in self.rules) else ""


#: Every row and cell: no ``only``, no ignore marker, no rule.
ALL_ROWS = RowScope()


def shipped_column(
    page: MatrixPage,
    lines: list[str],
    snapshot: Snapshot,
    lc: Lifecycle,
    all_keps: Sequence[Kep],
    scope: RowScope = ALL_ROWS,
) -> tuple[list[str], list[Change]]:
    """``lines`` (the page as the diff rewrote it) with every Shipped cell (column role ``shipped``) set to
    :func:`shipped_cell` of its row's KEP, and one applied change (field and kind ``shipped``) per cell
    rewritten. A row whose KEP has no gate of its own in the lists, or does not resolve to one KEP, is kept;
    so is a row outside ``scope.only``, and a cell ``scope`` ignores (field ``shipped``) is kept with its
    change not applied (``ignored`` ``"page"`` or ``"config"``), as :func:`bot.plan.diff.diff_page` does."""
    out, changes = list(lines), []
    names = lc.names()
    owners = list_owners(all_keps, names)
    for row in page.rows:
        if scope.only is not None and row.number not in scope.only:
            continue
        keys = [k for k in row.cells if k.split("#")[0] == "shipped"]
        found = resolve(snapshot, row.number, row.slug) if keys else []
        if len(found) != 1 or (row.slug and not slug_matches(found[0].slug, row.slug)):
            continue
        kep = found[0]
        text = shipped_cell(join(kep, owners, names), lc)
        starts = [c.start for c in split_row(page.lines[row.line])]
        for key in keys:
            old = row.cells[key].text
            if text is None or unescape_cell(old).strip() == text:
                continue
            ignored = scope.ignored(row.line, kep.number, text)
            if not ignored:
                cell = split_row(out[row.line])[starts.index(row.cells[key].start)]
                width, align = row.layout.get(key, (None, "left"))
                out[row.line] = fill_cell(out[row.line], cell, escape_cell(text), width, align)
            changes.append(
                Change(
                    kep_id(snapshot, kep),
                    page.path,
                    row.line + 1,
                    "shipped",
                    old,
                    text,
                    "shipped",
                    not ignored,
                    kep.path,
                    ignored=ignored,
                )
            )
    return out, changes
