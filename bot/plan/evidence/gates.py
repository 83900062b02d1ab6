"""The feature-gate lifecycle as a second source of truth: which gate speaks for a KEP, the Shipped mark of
each change, the gate findings and the releases a promotion waits for.

Pure: KEPs, changes and a :class:`bot.model.gates.Lifecycle` in, values out.

Which gate speaks for a KEP (:func:`join`): the KEP's ``feature-gates[].name`` found in a list (a name that
differs from exactly one listed gate by a typo, :func:`bot.plan.evidence.index.near_gate`, is read as that gate
and said so). It speaks only when it is the KEP's one gate in the lists and no other live KEP declares it, by
that name or by a typo of it (:func:`list_owners`: a gate shared with withdrawn or replaced KEPs only belongs to the
live one). A KEP with several listed gates, or one sharing its gate with another live KEP, gets no gate: that is
reported as such, never guessed.
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
from bot.wiki.matrix import MatrixPage
from bot.wiki.tables import escape_cell, fill_cell, split_row, unescape_cell

#: Shipped marks: the list shows that stage at that release; another release or stage; no gate data.
SHIPPED, OTHER, NO_DATA = "✓", "⚠", "·"
#: Finding kinds, in report order.
GATE_KINDS = ("gate-stage-mismatch", "not-shipped", "shipped-not-implemented")


class Join(NamedTuple):
    """How a KEP meets the lists: ``gate`` (the listed name that speaks for it, ``""`` when none),
    ``listed`` (its gates found in a list, by their listed names), ``declared`` (kep.yaml's gates),
    ``typos`` (``(kep.yaml name, listed name)``), ``note`` (why no gate speaks, or the typo) and ``shared``
    (the listed gates other live KEPs declare too, or that belong to live KEPs when this one is withdrawn)."""

    gate: str
    listed: tuple[str, ...]
    declared: tuple[str, ...]
    typos: tuple[tuple[str, str], ...]
    note: str
    shared: tuple[str, ...] = ()


class Mark(NamedTuple):
    """The Shipped mark of one change: ``mark`` (:data:`SHIPPED`, :data:`OTHER`, :data:`NO_DATA`), the ``gate``,
    the ``release`` kep.yaml names for the stage and the ``detail`` (what the list shows, and which list)."""

    mark: str
    gate: str
    release: str
    detail: str


def list_name(gl: GateList) -> str:
    """A list as findings name it: where it was read and its revision (git blob SHA-1, 12 digits)."""
    return f"{gl.where} (blob {gl.revision[:12]})"


@functools.lru_cache(maxsize=8192)
def listed_name(gate: str, names: frozenset[str]) -> str:
    """The listed gate a kep.yaml name ``gate`` means: itself when listed, else the one listed name it differs
    from by a typo (:func:`bot.plan.evidence.index.near_gate`); ``""`` when none or several."""
    if gate in names:
        return gate
    near = [n for n in names if near_gate(gate, n)]
    return near[0] if len(near) == 1 else ""


def list_owners(all_keps: Iterable[Kep], names: frozenset[str]) -> dict[str, tuple[str, ...]]:
    """:func:`bot.plan.evidence.index.gate_owners` of ``all_keps`` keyed by listed name: a kep.yaml name that is a
    typo of a listed gate counts as that gate (so a KEP declaring it shares the gate)."""
    return gate_owners(all_keps, lambda g: listed_name(g, names) or g)


def join(kep: Kep, owners: Mapping[str, tuple[str, ...]], names: frozenset[str]) -> Join:
    """The gate that speaks for ``kep`` (see the module docstring). ``owners``: :func:`list_owners` of every
    KEP; ``names``: every gate name of the lists."""
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
    if len(listed) > 1:
        shared = tuple(g for g in listed if owners.get(g, (kep.path,)) != (kep.path,))
        return Join(
            "",
            tuple(listed),
            declared,
            tuple(typos),
            f"several gates in the list ({', '.join(listed)}): none is picked",
            shared,
        )
    gate = listed[0]
    others = [p for p in owners.get(gate, ()) if p != kep.path]
    if kep.path not in owners.get(gate, (kep.path,)):
        return Join("", tuple(listed), declared, tuple(typos), f"{gate} belongs to live KEP(s) {', '.join(others)}")
    if others:
        return Join(
            "",
            tuple(listed),
            declared,
            tuple(typos),
            f"{gate} is also declared by live KEP(s) {', '.join(others)}: not picked",
        )
    return Join(gate, tuple(listed), declared, tuple(typos), typo)


def joins(keps: Iterable[Kep], all_keps: Sequence[Kep], lc: Lifecycle) -> dict[str, Join]:
    """``{kep.yaml path: Join}`` for ``keps``, gates resolved against ``all_keps``."""
    names = lc.names()
    owners = list_owners(all_keps, names)
    return {k.path: join(k, owners, names) for k in keps}


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
    ``stable``) for ``kep``: ✓ when the speaking gate reached that stage in the release kep.yaml names for it,
    ⚠ when it reached it in another release or had not reached it in that release (the list covering it),
    · when there is no gate, no milestone, a synthetic ``1.0`` GA entry, or the release is past the lists."""
    stage = _stage_of(change, kep)
    if not stage:
        return Mark(NO_DATA, j.gate, "", f"{change.field} is not a stage")
    target = normalize_milestone(kep.milestone(stage)) or ""
    if not j.gate:
        return Mark(NO_DATA, "", target, j.note)
    if not target:
        return Mark(NO_DATA, j.gate, "", f"kep.yaml names no milestone for {stage}")
    gate, gl = _listed(lc, j.gate, target)
    spec = gate.reached(stage)
    where = list_name(gl)
    if spec is not None and spec.release == target:
        return Mark(SHIPPED, j.gate, target, f"{_word(stage)} in {target} ({where})")
    if spec is not None and not spec.release:
        return Mark(NO_DATA, j.gate, target, f"GA before the versioned list (synthetic 1.0 entry; {where})")
    if spec is not None:
        return Mark(OTHER, j.gate, target, f"the list shows {_word(stage)} in {spec.release}, not {target} ({where})")
    if release_key(target) <= release_key(gl.covers):
        now = gate.at(target)
        shown = _word(now.stage) if now else "no such gate yet"
        return Mark(OTHER, j.gate, target, f"the list shows {shown} in {target}, {_word(stage)} never ({where})")
    return Mark(NO_DATA, j.gate, target, f"{target} is later than the list ({gl.covers}; {where})")


def _word(stage: str) -> str:
    return "GA" if stage == "stable" else stage


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


def findings(
    keps: Sequence[Kep], js: Mapping[str, Join], lc: Lifecycle, ids: Mapping[str, str] | None = None
) -> list[Finding]:
    """The gate findings of ``keps``, each naming the gate, the releases and the list:

    - ``gate-stage-mismatch``: kep.yaml's milestone for a stage differs from the release in which the
      speaking gate reached it (synthetic ``1.0`` entries never count);
    - ``not-shipped``: kep.yaml names a released milestone (at or before the newest shipped release) for
      a stage the gate had not reached in that release; or, for a KEP whose declared gates are in no list
      at all, its first released milestone (only when kep.yaml names no released GA, since a gate drops
      out of the list after GA);
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
        if j.gate:
            out += _gate_findings(kep, ident, j.gate, lc, last)
        elif j.declared and not j.listed:
            out += _absent(kep, ident, j, lc, last)
    order = {k: i for i, k in enumerate(GATE_KINDS)}
    out.sort(key=lambda d: (order[d.kind], d.kep_path, release_key(d.release), d.message))
    return out


def _released(release: str, last: tuple[int, int]) -> bool:
    return release_key(release) != (0, 0) and release_key(release) <= last


def _gate_findings(kep: Kep, ident: str, name: str, lc: Lifecycle, last: tuple[int, int]) -> list[Finding]:
    out = []
    for stage in STAGES:
        target = normalize_milestone(kep.milestone(stage))
        if not target:
            continue
        gate, gl = _listed(lc, name, target)
        spec = gate.reached(stage)
        if spec is not None and spec.release and spec.release != target:
            out.append(
                Finding(
                    "gate-stage-mismatch",
                    ident,
                    kep.path,
                    target,
                    f"kep.yaml milestone.{stage} is {target}; feature gate {name} reached "
                    f"{_word(stage)} in {spec.release} ({list_name(gl)})",
                )
            )
        elif spec is None and _released(target, last) and release_key(target) <= release_key(gl.covers):
            now = gate.at(target)
            if now is None or RANK.get(now.stage, 3) < RANK[stage]:
                shown = f"was {_word(now.stage)}" if now else "did not exist yet"
                out.append(
                    Finding(
                        "not-shipped",
                        ident,
                        kep.path,
                        target,
                        f"kep.yaml says {_word(stage)} in {target} (released), but feature gate {name} "
                        f"{shown} in {target} ({list_name(gl)})",
                    )
                )
    locked = _locked_ga(*_listed(lc, name))
    if kep.status == "implementable" and locked is not None:
        ga, lock, gl = locked
        if (not lock or _released(lock, last)) and (not ga or _released(ga, last)):
            out.append(
                Finding(
                    "shipped-not-implemented",
                    ident,
                    kep.path,
                    lock or ga,
                    f"status implementable, but feature gate {name} is GA since "
                    f"{ga or 'before the versioned list'} and locked to its default since "
                    f"{lock or 'before the versioned list'} ({list_name(gl)}): done in the code, "
                    "not marked implemented",
                )
            )
    return out


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


def _absent(kep: Kep, ident: str, j: Join, lc: Lifecycle, last: tuple[int, int]) -> list[Finding]:
    stable = normalize_milestone(kep.milestone("stable"))
    if stable and _released(stable, last):
        return []  # its gate may have dropped out of the list after GA
    newest = lc.lists[-1] if lc.lists else None
    for stage in STAGES:
        target = normalize_milestone(kep.milestone(stage))
        if target and _released(target, last) and newest is not None:
            names = ", ".join(j.declared)
            return [
                Finding(
                    "not-shipped",
                    ident,
                    kep.path,
                    target,
                    f"kep.yaml says {_word(stage)} in {target} (released), but its feature gate(s) "
                    f"{names} are in no feature-gate list ({list_name(newest)})",
                )
            ]
    return []


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
