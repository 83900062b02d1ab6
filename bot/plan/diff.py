"""The sync rules: compare matrix rows with KEPs, decide :class:`Change` records, rewrite owned cells.

Pure. One source of truth per fact: status, stage and milestones come from
kep.yaml; the page only says what it showed before. Owned cells are status,
stage and the milestones; the feature gate cell is report-only unless
``gates_owned`` is set. A value upstream that cannot be trusted (an invalid
status, an empty stage, a milestone like ``"v1.21, v1.37"``) never
overwrites a cell: the row keeps it and a problem says why. Neither does a
field the kep.yaml leaves untrusted (:meth:`bot.model.kep.Kep.distrust`: no
``milestone`` mapping, a key given twice, a template copy), and a row whose
kep.yaml cannot be read is kept and reported as such, not as missing.

A milestone cleared upstream (absent or empty inside a real ``milestone``
mapping) is kind ``target-removed``, except for a stage the KEP has reached
(stage ``beta`` and no alpha or beta milestone): that is data lost upstream,
so the cell is kept and the row's problem says so. A placeholder (``TBD``,
``x.y``, the template's ``0.0``) is neither a target nor a removal: the cell
is kept and a problem says so. A field the kep.yaml gives
a value for that is not used (:meth:`bot.model.kep.Kep.withholds`: a key given
twice, a template copy) is reported on every row that shows it, even where the
cell equals the value read; a retarget that rewrites a released
milestone (older than :func:`bot.model.consistency.release_in_progress`) and the
kep.yaml's own inconsistencies (:func:`bot.model.consistency.check`) are flagged
on the change (``Change.flags``), report-only.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, NamedTuple, Protocol

from bot.model import consistency
from bot.model.finding import Finding
from bot.model.history.provenance import Upstream, upstream_of
from bot.model.history.renames import Rename, renamed_cell, unplain_dir
from bot.model.kep import (
    DEPRECATION_STAGES,
    MILESTONE_PLACEHOLDERS,
    STAGES,
    STATUSES,
    Kep,
    Problem,
    is_placeholder_milestone,
    is_unset_milestone,
    normalize_milestone,
)
from bot.model.snapshot import Snapshot, number_hints, resolve, slug_matches, unreadable
from bot.wiki.kepnames import name_in_cell
from bot.wiki.matrix import (
    FIELDS,
    MatrixPage,
    MatrixRow,
    beyond_end,
    cell_gates,
    cell_value,
    disagreements,
    known_word,
    owned_value,
    page_reading,
    render_gates,
    render_row,
    same_value,
    spelled,
    written_text,
)
from bot.wiki.tables import fill_cell, split_row
from bot.wiki.vocabulary import stage_word

#: Change kinds, in changelog order; ``added`` is a new row appended by ``candidates.add_to`` (field ``row``).
KINDS = (
    "promoted",
    "demoted",
    "stage",
    "status",
    "retargeted",
    "target-removed",
    "added",
    "gates",
    "renamed",
    "missing-upstream",
    "shipped",
    "pending",
)
_GRADUATION = {stage: i for i, stage in enumerate(STAGES)}
#: How a flag that marks a released milestone rewritten starts (:attr:`Change.flags`).
RELEASED_FLAG = "rewrites a released milestone"
#: How the flag of a ``renamed`` finding that ``renames: apply`` refused starts (:attr:`Change.flags`).
RENAME_REFUSED_FLAG = "not applied"


class ChangeEvidence(Protocol):
    """A release-note entry backing a change (:class:`bot.plan.evidence.index.Evidence`, which imports this
    module): its ``release``, pull request ``pr`` and ``url``, the ``excerpt``, the ``stage`` it announces,
    ``ambiguous``, ``counter`` and ``possible``."""

    @property
    def release(self) -> str: ...
    @property
    def pr(self) -> int: ...
    @property
    def url(self) -> str: ...
    @property
    def excerpt(self) -> str: ...
    @property
    def stage(self) -> str: ...
    @property
    def ambiguous(self) -> bool: ...
    @property
    def counter(self) -> bool: ...
    @property
    def possible(self) -> bool: ...
    def _asdict(self) -> dict[str, Any]: ...


class ShippedMark(Protocol):
    """The Shipped mark of a change (:class:`bot.plan.evidence.gates.Mark`, which imports this module): the
    ``mark``, the ``gate``, the ``release`` and the ``detail``."""

    @property
    def mark(self) -> str: ...
    @property
    def gate(self) -> str: ...
    @property
    def release(self) -> str: ...
    @property
    def detail(self) -> str: ...
    def _asdict(self) -> dict[str, Any]: ...


class IgnoreRule(Protocol):
    """A configured ignore rule (``bot.config.IgnoreRule``): it keeps a cell when it matches."""

    def matches(self, number: int, field: str, new: str) -> bool:
        """True when the rule ignores the proposal of ``new`` for ``field`` of KEP ``number``."""
        ...


class Change(NamedTuple):
    """One field of one row that differs from kep.yaml.

    ``kep_id`` is the KEP id (:func:`kep_id`: ``"4671"``, or ``"2133-kubelet-credential-providers"``
    when upstream uses the number twice); ``page`` the page path; ``line``
    1-based; ``field`` one of :data:`bot.wiki.matrix.FIELDS`; ``old``/``new``
    the values as the page shows them and as kep.yaml says them (``""`` for
    none); ``kind`` one of :data:`KINDS`; ``applied`` whether the row was
    rewritten (False for report-only findings); ``kep_path`` the kep.yaml;
    ``evidence`` release-note entries; ``upstream`` the
    :class:`bot.model.history.provenance.Upstream` commit that set the new value (``None`` when unknown);
    ``flags`` report-only remarks a reviewer must see next to this change (a
    released milestone rewritten, the kep.yaml contradicting itself), one line each;
    ``ignored``: why an ignore rule kept the cell (``"page"``: a marker in the row, ``"config"``: an
    ``ignore`` entry), ``""`` when none did (an ignored change is never applied).
    ``shipped`` the feature-gate lifecycle's :class:`bot.plan.evidence.gates.Mark` (``None`` without a gate
    lifecycle); ``pending`` the release (``v1.36``) a promotion or new milestone waits for
    (``promote_when: released``; kind ``pending``, not applied), else ``""``; ``written`` the text the
    row's first cell of the field gets, in the page's words (``GA``, ``-``, ``""``), for an applied status,
    stage or milestone change (``None`` otherwise; :func:`bot.wiki.matrix.written_text`); ``synced``, for a
    ``renamed`` change not applied, whether the row's other owned cells were synced all the same, its KEP
    cell kept byte for byte (``renames: owned-cells``).
    """

    kep_id: str
    page: str
    line: int
    field: str
    old: str
    new: str
    kind: str
    applied: bool
    kep_path: str
    evidence: tuple[ChangeEvidence, ...] = ()
    upstream: Upstream | None = None
    flags: tuple[str, ...] = ()
    ignored: str = ""
    shipped: ShippedMark | None = None
    pending: str = ""
    written: str | None = None
    synced: bool = False


class PageDiff(NamedTuple):
    """Result for one page: ``changes``, ``problems`` (rows left as is, untrusted values),
    the KEPs its rows resolved to (``keps``), and the page's new ``lines``."""

    changes: list[Change]
    problems: list[Problem]
    keps: list[Kep]
    lines: list[str]


def kep_id(snapshot: Snapshot, kep: Kep) -> str:
    """``"4671"``, or the directory name (``"0000-kep-process"``) when the number is shared upstream (0000, 2133)."""
    if len(snapshot.keps.get(kep.number, ())) <= 1:
        return str(kep.number)
    return _dir_name(kep)


def _dir_name(kep: Kep) -> str:
    """The name of ``kep``'s directory (``"0000-kep-process"``), or ``NUMBER-slug`` for a path without one."""
    return kep.path.rsplit("/", 2)[-2] if kep.path.count("/") >= 2 else f"{kep.number}-{kep.slug}"


def _row_id(row: MatrixRow) -> str:
    """The KEP as the row's cell writes it (``"0000-kep-process"``, ``"4671"``), for rows with no KEP upstream;
    the row's number (and slug) when the cell writes another number first (``[v1.30 notes](https://kep.k8s.io/4671)``)."""
    for m in re.finditer(r"(?<![0-9])[0-9]+(?:-[A-Za-z0-9][\w.-]*)?", row.cells["kep"].text):
        if int(m.group(0).split("-")[0]) == row.number:
            return m.group(0)
    return f"{row.number}-{row.slug}" if row.slug else str(row.number)


def diff_page(
    page: MatrixPage,
    snapshot: Snapshot,
    *,
    gates_owned: bool = False,
    only: Collection[int] | None = None,
    renames: Mapping[tuple[int, str], Rename] | None = None,
    apply_renames: bool = False,
    sync_renamed: bool = False,
    hold: Callable[[Kep, Change], str] | None = None,
    ignores: Mapping[int, Collection[str]] | None = None,
    rules: Sequence[IgnoreRule] = (),
) -> PageDiff:
    """Compare every row of ``page`` with ``snapshot`` and rewrite the owned cells that differ.

    ``only``: KEP numbers to consider (``None`` for all). ``renames``: KEP
    directories renamed upstream (:func:`bot.model.history.renames.renamed_dirs`); a
    row whose slug names the old directory of its KEP gets a ``renamed`` change
    (field ``kep``) saying the new slug, applied (the KEP cell rewritten in its
    own style, and the row then synced) only with ``apply_renames``; with ``sync_renamed`` instead the
    change stays report-only (``synced`` True) and the row's owned cells are synced, its KEP cell kept
    byte for byte (``renames: owned-cells``). ``hold(kep, change)``: the release an
    applied change waits for (``""``: none); such a change is kept report-only, kind ``pending``, its cell
    unchanged (:func:`bot.plan.evidence.gates.pending_release`, ``promote_when: released``). ``ignores``: ``{0-based
    line:
    fields}`` the row's ignore markers name (:mod:`bot.wiki.ignore`); ``rules``: the config's ``ignore`` entries
    (:class:`bot.config.IgnoreRule`); a field either ignores is still compared, its change kept with
    ``applied`` False and ``ignored`` saying which. Returns a
    :class:`PageDiff` whose ``lines`` equal ``page.lines`` except rewritten rows.
    """
    lines = list(page.lines)
    changes: list[Change] = []
    problems: list[Problem] = list(page.problems)
    involved: dict[str, Kep] = {}
    in_progress = consistency.release_in_progress(snapshot.all_keps())
    for row in page.rows:
        if only is not None and row.number not in only:
            continue
        where = f"line {row.line + 1}"
        kep = _row_kep(page.path, snapshot, row, changes, problems)
        if kep is None:
            continue
        rename = (renames or {}).get((row.number, row.slug.casefold())) if row.slug else None
        renamed = (
            rename if rename is not None and rename.path == kep.path and not slug_matches(kep.slug, row.slug) else None
        )
        if renamed is not None:
            change = _rename_change(kep_id(snapshot, kep), page.path, row, kep, renamed, apply_renames)
            if sync_renamed and not apply_renames:
                change = change._replace(synced=True)
            changes.append(change)
            if not change.applied and not change.synced:
                continue
        elif row.slug and not slug_matches(kep.slug, row.slug):
            problems.append(
                Problem(
                    page.path,
                    where,
                    f"row names KEP {_row_id(row)} but upstream it is "
                    f"{kep.number}-{kep.slug} ({kep.path}); left as is: "
                    "fix the number or the slug",
                )
            )
            continue
        involved[kep.path] = kep
        marked = frozenset((ignores or {}).get(row.line, ()))

        def skip(field: str, new: str, number: int = kep.number, marked: frozenset[str] = marked) -> str:
            return "page" if field in marked else "config" if any(r.matches(number, field, new) for r in rules) else ""

        row_changes, row_problems, updates = _diff_row(row, kep, kep_id(snapshot, kep), gates_owned, in_progress, skip)
        if hold is not None:
            row_changes, updates = held(row_changes, updates, kep, hold)
        short = beyond_end(row, updates)
        if short:
            if renamed is not None:
                kept = changes.pop()  # the rename change appended above: the row keeps its bytes
                if kept.synced:
                    changes.append(kept._replace(synced=False))
            problems.extend(Problem(page.path, where, m) for m in row_problems)
            problems.append(Problem(page.path, where, _short_row(row, short, page.lines[row.line])))
            continue
        changes.extend(
            c._replace(written=written_text(row, c.field, updates[c.field], page.lines[row.line]))
            if c.applied and c.field in updates and c.field != "feature_gates"
            else c
            for c in row_changes
        )
        problems.extend(Problem(page.path, where, m) for m in row_problems)
        problems.extend(Problem(page.path, where, m) for m in _disagreeing(row, updates))
        if updates:
            lines[row.line] = render_row(lines[row.line], row, updates)
        if renamed is not None and apply_renames:
            lines[row.line] = _rename_kep_cell(page.lines[row.line], lines[row.line], row, renamed)
    return PageDiff(changes, problems, sorted(involved.values(), key=lambda k: (k.number, k.path)), lines)


def _short_row(row: MatrixRow, keys: Sequence[str], line: str) -> str:
    """The problem of a row left as is because a cell to write is past its end (:func:`beyond_end`)."""
    return (
        f"KEP cell {row.cells['kep'].text!r}: row has {len(split_row(line))} cells, fewer than the header; its "
        f"{', '.join(keys)} cell{'s are' if len(keys) > 1 else ' is'} past the row's end, where kep-sync does not "
        "write; left as is: add the missing `| |` cells to let kep-sync write it"
    )


def _rename_change(ident: str, path: str, row: MatrixRow, kep: Kep, rename: Rename, apply: bool) -> Change:
    """The ``renamed`` change (field ``kep``) of a row whose slug names ``kep``'s old directory; applied only
    with ``apply``, when the new directory name is plain and the rewritten KEP cell names it (else flagged
    :data:`RENAME_REFUSED_FLAG`, so an applied rename is one written); ``old`` is the name as the cell writes
    it and ``new`` the directory name the cell gets (``0000-kep-process``); ``upstream`` is the commit of the ``rename``."""
    odd = unplain_dir(kep.path)
    text = row.cells["kep"].text
    if odd:
        why = f"the new directory name {odd!r} is not a plain name (letters, digits, '-', '_', '.')"
    elif _renamed_slug(text, row, rename, kep.path) != kep.slug.casefold():
        why = f"the KEP cell {text!r} would not name the new directory once rewritten"
    else:
        why = ""
    flags = (f"{RENAME_REFUSED_FLAG}: {why}; KEP cell kept",) if why and apply else ()
    return Change(
        ident,
        path,
        row.line + 1,
        "kep",
        _row_id(row),
        _dir_name(kep),
        "renamed",
        apply and not flags,
        kep.path,
        upstream=upstream_of(rename.commit),
        flags=flags,
    )


def _renamed_slug(text: str, row: MatrixRow, rename: Rename, new_path: str) -> str | None:
    """The slug (casefolded) the KEP cell ``text`` names once :func:`renamed_cell` rewrote it, read as a row's
    cell is read (:func:`bot.wiki.kepnames.name_in_cell`); ``None`` when it names no KEP or another number."""
    after = renamed_cell(text, row.number, row.slug, rename.old.rsplit("/", 1)[0], new_path)
    named = name_in_cell(after)
    return named[1].casefold() if named is not None and named[0] == row.number else None


def _disagreeing(row: MatrixRow, updates: Mapping[str, str]) -> list[str]:
    """Problems of the fields ``row`` shows with different values in several cells that no update rewrites
    (kep.yaml gives no value to write), when every value is a known word."""
    return [
        f"KEP {_row_id(row)}: {field} shown as {' and '.join(repr(v) for v in shown)} in one row; kep.yaml "
        "gives no value to write, so the row is kept as it is"
        for field, shown in disagreements(row)
        if field not in updates and all(known_word(field, v) for v in row.values(field))
    ]


def _row_kep(
    path: str, snapshot: Snapshot, row: MatrixRow, changes: list[Change], problems: list[Problem]
) -> Kep | None:
    """The one KEP upstream that ``row`` (on page ``path``) names, or ``None`` when the row is left as is: its
    kep.yaml cannot be read, no KEP has its number (a ``missing-upstream`` change is added to ``changes``) or
    several match. Why goes to ``problems``."""
    where = f"line {row.line + 1}"
    candidates = resolve(snapshot, row.number, row.slug)
    broken = unreadable(snapshot, row.number, row.slug)
    if broken and not any(slug_matches(k.slug, row.slug) for k in candidates):
        problems.extend(
            Problem(path, where, f"KEP {_row_id(row)}: {p.path} cannot be read ({p.message}); row kept") for p in broken
        )
        return None
    if not candidates:
        old = row.value("status") or ""
        changes.append(
            Change(_row_id(row), path, row.line + 1, "status", cell_value(old), "", "missing-upstream", False, "")
        )
        problems.extend(
            Problem(path, where, f"KEP {_row_id(row)}: {hint}") for hint in number_hints(snapshot, row.number)
        )
        return None
    if len(candidates) > 1:
        paths = ", ".join(k.path for k in candidates)
        fix = f"the slug {row.slug!r} matches none of them" if row.slug else "add the slug to the KEP cell"
        problems.append(Problem(path, where, f"KEP {_row_id(row)} is ambiguous upstream ({paths}); {fix}; left as is"))
        return None
    return candidates[0]


def held(
    changes: list[Change], updates: dict[str, str], kep: Kep, hold: Callable[[Kep, Change], str]
) -> tuple[list[Change], dict[str, str]]:
    """One row's ``changes`` and cell ``updates`` with each applied change ``hold`` names a release for turned
    into a report-only ``pending`` change (``Change.pending`` that release) and its update dropped."""
    out, kept = [], dict(updates)
    for c in changes:
        release = hold(kep, c) if c.applied else ""
        if release:
            kept.pop(c.field, None)
            c = c._replace(applied=False, kind="pending", pending=release)
        out.append(c)
    return out, kept


def _rename_kep_cell(original: str, line: str, row: MatrixRow, rename: Rename) -> str:
    """``line`` (the row, maybe already rewritten) with its KEP cell pointing at the renamed directory."""
    column = [c.start for c in split_row(original)].index(row.cells["kep"].start)
    cell = split_row(line)[column]
    old_dir = rename.old.rsplit("/", 1)[0]
    width, align = row.layout.get("kep", (None, "left"))
    return fill_cell(line, cell, renamed_cell(cell.text, row.number, row.slug, old_dir, rename.path), width, align)


def _diff_row(
    row: MatrixRow,
    kep: Kep,
    ident: str,
    gates_owned: bool,
    in_progress: tuple[int, int] | None = None,
    skip: Callable[[str, str], str] = lambda field, new: "",
) -> tuple[list[Change], list[str], dict[str, str]]:
    changes: list[Change] = []
    problems: list[str] = []
    updates: dict[str, str] = {}
    kept: dict[str, list[str]] = {}  # reason the kep.yaml is not trusted -> fields whose cells it kept

    def add(field: str, old: str, new: str, kind: str, applied: bool, written: str | None = None) -> None:
        if refuse(field, ""):
            return
        flags: tuple[str, ...] = ()
        if field in STAGES and in_progress is not None and consistency.is_released(old, in_progress):
            flags = (f"{RELEASED_FLAG}: {old} (the release in progress is v{in_progress[0]}.{in_progress[1]})",)
        ignored = skip(field, new)
        applied = applied and not ignored
        changes.append(
            Change(
                ident, row.page, row.line + 1, field, old, new, kind, applied, kep.path, flags=flags, ignored=ignored
            )
        )
        if applied:
            updates[field] = new if written is None else written

    def refuse(field: str, problem: str) -> bool:
        """Keep the cell: the kep.yaml leaves ``field`` untrusted, or ``problem`` says why not."""
        why = kep.distrust(field)
        if why:
            kept.setdefault(why, []).append(field)
        elif problem:
            problems.append(problem)
        return bool(why or problem)

    for field in FIELDS:
        shown = row.values(field)
        if not shown:
            continue
        if kep.withholds(field):  # reported even where the cell equals the value read: that value is not trusted
            refuse(field, "")
            continue
        unknown = [s for s in shown if not known_word(field, s)]
        if unknown:
            word = owned_value(unknown[0])
            problems.append(
                f"KEP {_row_id(row)}: {field} {word!r} is not a {field} word kep-sync knows; "
                f"{field} kept (kep.yaml says {getattr(kep, field)!r}){_other_field(field, unknown[0])}"
            )
            continue
        odd = [
            (s, why)
            for s in shown
            if field != "feature_gates"
            and not same_value(field, s, _expected(kep, field))
            and (why := page_reading(field, s)[1])
        ]
        if odd:  # rewriting would delete the marks (or a value it cannot read): kept whatever kep.yaml says
            part, why = odd[0]
            refuse(
                field,
                f"{field} cell {part.strip()!r} {why}; kep.yaml says {_expected(kep, field)!r}; "
                f"{field} cell kept ({kep.path})",
            )
            continue
        if field == "status":
            new = kep.status
            old = _stale(field, shown, new)
            if old is not None:
                if new in STATUSES:
                    add(field, old, new, "status", True)
                else:
                    refuse(field, f"kep.yaml status {new!r} is not a valid status; status cell kept ({kep.path})")
        elif field == "stage":
            new = kep.stage
            old = _stale(field, shown, new)
            if old is not None:
                if new in STAGES or new in DEPRECATION_STAGES:
                    add(field, old, new, _stage_kind(old, new), True)
                else:
                    refuse(field, f"kep.yaml stage {new!r} is not a valid stage; stage cell kept ({kep.path})")
        elif field == "feature_gates":
            page_gates, kep_gates = cell_gates(cell_value(shown[0])), kep.gates()
            if page_gates != kep_gates:
                add(field, ", ".join(page_gates), ", ".join(kep_gates), "gates", gates_owned, render_gates(kep_gates))
        else:
            new = kep.milestone(field)
            old = _stale(field, shown, new)
            if old is None:
                continue
            if is_placeholder_milestone(new):
                refuse(
                    field,
                    f"kep.yaml milestone.{field} {new!r} is a placeholder, not a milestone; {field} cell "
                    f"kept ({kep.path})",
                )
                continue
            if is_unset_milestone(new) and _reached(kep, field) and not kep.distrust(field):
                kept.setdefault(
                    f"kep.yaml says stage {kep.stage} but names no milestone for a stage it has "
                    "reached: lost upstream, not a target removed",
                    [],
                ).append(field)
                continue
            written = _render_milestone(new)
            if written is None:
                refuse(field, f"kep.yaml milestone.{field} {new!r} is not a milestone; {field} cell kept ({kep.path})")
            else:
                kind = "target-removed" if not written else "retargeted"
                add(field, old, spelled(row, field, written), kind, True, written)
    problems.extend(f"{', '.join(fields)} kept: {why} ({kep.path})" for why, fields in kept.items())
    return _flag(changes, consistency.check(kep)), problems, updates


def _other_field(field: str, shown: str) -> str:
    """For a status cell holding a stage word (or a stage cell holding a status word), ``"; 'beta' is a stage:
    map the column to columns.stage, or write a status"``; else ``""``."""
    other = {"status": "stage", "stage": "status"}.get(field)
    if other is None or not known_word(other, shown):
        return ""
    return f"; {owned_value(shown)!r} is a {other}: map the column to columns.{other}, or write a {field}"


def _reached(kep: Kep, field: str) -> bool:
    """True when ``field`` (``alpha``/``beta``/``stable``) is a stage the KEP's trusted ``stage`` has reached."""
    return (
        field in STAGES
        and kep.stage in STAGES
        and not kep.distrust("stage")
        and STAGES.index(field) <= STAGES.index(kep.stage)
    )


def _expected(kep: Kep, field: str) -> str:
    """kep.yaml's raw value for an owned field (status, stage, a stage's milestone)."""
    return kep.status if field == "status" else kep.stage if field == "stage" else kep.milestone(field)


def _flag(changes: list[Change], findings: list[Finding]) -> list[Change]:
    """``changes`` (one row's) with each finding added to ``flags`` of the first change of a field it concerns,
    else of the row's first change; a row with no change gets none (its kep.yaml is not this run's business)."""
    out = list(changes)
    for finding in findings:
        at = next((i for i, c in enumerate(out) if c.field in finding.fields), 0 if out else None)
        if at is not None:
            out[at] = out[at]._replace(flags=out[at].flags + (finding.message,))
    return out


def _stale(field: str, shown: list[str], new: str) -> str | None:
    """The first of the cells showing ``field`` that does not already say ``new`` (as a comparable
    value), or ``None`` when every cell says it in the page's words (``GA`` for ``stable``, ``1.30``)."""
    return next((owned_value(s) for s in shown if not same_value(field, s, new)), None)


def _stage_kind(old: str, new: str) -> str:
    old, new = stage_word(old), stage_word(new)
    if old in _GRADUATION and new in _GRADUATION:
        return "promoted" if _GRADUATION[new] > _GRADUATION[old] else "demoted"
    return "stage"


def _render_milestone(value: str) -> str | None:
    """An upstream milestone as ``vMAJOR.MINOR``, ``""`` (none) or a placeholder, or ``None`` when it
    is not trustworthy; the cells spell it in the page's style (:func:`bot.wiki.matrix.spelled`)."""
    norm = normalize_milestone(value)
    if norm is not None:
        return norm
    v = value.strip()
    if v in ("", "0.0"):
        return ""
    return v if v.casefold() in MILESTONE_PLACEHOLDERS else None


#: Public name for new rows (``bot.plan.tracking.rows``): the same rule, so a new row never disagrees with the diff.
render_milestone = _render_milestone
