"""The KEP model: one ``kep.yaml`` parsed into a :class:`Kep`, plus the problems found in it.

Pure: takes ``(path, bytes)`` and returns values; never reads files or the clock.

Facts about the schema come from kubernetes/enhancements ``api/proposal.go``
(statuses, stages) and ``keps/NNNN-kep-template/kep.yaml`` (field names).
Values stay exactly as upstream wrote them; comparisons go through
:func:`normalize_milestone`, which never mutates a :class:`Kep`.
"""

from __future__ import annotations

import datetime
import re
from typing import NamedTuple

import yaml

from bot.model import yamlload
from bot.model.keylines import key_lines

#: Valid ``status`` values (kubernetes/enhancements api/proposal.go).
STATUSES = ("provisional", "implementable", "implemented", "deferred", "rejected", "withdrawn", "replaced")
#: Graduation stages in order (api/proposal.go).
STAGES = ("alpha", "beta", "stable")
#: Stages a deprecation KEP may declare (the kep.yaml template's comment: "deprecated|disabled|removed").
DEPRECATION_STAGES = ("deprecated", "disabled", "removed")
#: Scalars the string-only loader returns for YAML null.
_NULLS = frozenset({"", "~", "null", "Null", "NULL"})
#: Keys of the ``milestone`` mapping, as the template writes them.
MILESTONE_KEYS = ("alpha", "beta", "stable", "deprecated", "removed")
#: Feature gate names that mean "none" (seen upstream: ``n/a``, ``None``, ``NA``, ``''``).
JUNK_GATE_NAMES = frozenset({"", "~", "n/a", "na", "none", "null", "tbd", "todo", "-", "nil"})
#: Milestone placeholders upstream writes for "not decided" (kept as text, never read as a milestone).
MILESTONE_PLACEHOLDERS = frozenset({"tbd", "x.y", "never", "todo", "n/a"})
#: Fields a kep.yaml may leave untrusted (:attr:`Kep.untrusted`); the same names as the wiki's owned fields.
TRUST_FIELDS = ("status", "stage", "alpha", "beta", "stable", "feature_gates")
#: What each YAML key given twice makes ambiguous (a key given twice is ambiguous: YAML requires unique keys).
_DUPLICATE_FIELDS = {
    "status": ("status",),
    "stage": ("stage",),
    "milestone": ("alpha", "beta", "stable"),
    "milestone.alpha": ("alpha",),
    "milestone.beta": ("beta",),
    "milestone.stable": ("stable",),
    "feature-gates": ("feature_gates",),
    "latest-milestone": ("latest_milestone",),
}
#: Keys of ``milestone`` that mean a stage but are not the template's spelling (``GA``, ``Alpha``).
_MILESTONE_KEY_ALIASES = {"alpha": "alpha", "beta": "beta", "stable": "stable", "ga": "stable"}
#: Placeholders of ``keps/NNNN-kep-template/kep.yaml`` that no real KEP keeps (its sample milestones
#: v1.19 / v1.20 / v1.22 are no evidence: KEPs of that time really targeted them); a copy that keeps
#: two of these is a template copy. ``authors`` and ``feature-gates`` match one item of the list.
TEMPLATE_SAMPLES = {
    "kep-number": "NNNN",
    "owning-sig": "sig-xyz",
    "creation-date": "yyyy-mm-dd",
    "authors": "@jane.doe",
    "feature-gates": "MyFeature",
}
#: The top-level kep.yaml keys :func:`parse_kep` reads; nothing else is constructed from the YAML.
MODEL_KEYS = frozenset(
    {
        "kep-number",
        "title",
        "owning-sig",
        "status",
        "stage",
        "latest-milestone",
        "milestone",
        "feature-gates",
        "creation-date",
        "last-updated",
        "replaces",
        "superseded-by",
        "see-also",
        *TEMPLATE_SAMPLES,
    }
)
#: How an :attr:`Kep.untrusted` reason says the file is silent on a field (nothing withheld, see :meth:`Kep.withholds`).
SAYS_NOTHING = "so it says nothing about"
#: The two template directories of kubernetes/enhancements that are not KEPs.
TEMPLATE_DIRS = ("keps/NNNN-kep-template/", "keps/sig-cloud-provider/providers/0000-cloud-provider-template/")

# ASCII digits only ("٧٥٣" and "²" are not KEP numbers), bounded so int() stays cheap.
# No leading zeros: ``v1.036`` is not ``v1.36`` (a typo either way; releases are written ``v1.36``).
_MILESTONE_RE = re.compile(r"^v?(0|[1-9][0-9]{0,3})\.(0|[1-9][0-9]{0,3})$")
_LEADING_ZERO_RE = re.compile(r"^v?[0-9]+\.[0-9]+$")
_DATE_RE = re.compile(r"^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})$")
_DIR_RE = re.compile(r"^([0-9]{1,9})-(.+)$")
_NUMBER_RE = re.compile(r"^[0-9]{1,9}$")
#: What a feature gate name looks like (Go identifiers in k8s.io/kubernetes pkg/features).
_GATE_NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
#: Longest quoted value in a problem message, characters.
_QUOTE_MAX = 80


class Problem(NamedTuple):
    """Something odd in the upstream data.

    ``path`` is the repository-relative file (``keps/sig-x/NNNN-slug/kep.yaml``);
    ``key`` the YAML key involved (``""`` for the whole file); ``message`` a
    one-line, human-readable explanation that quotes the offending value.
    """

    path: str
    key: str
    message: str

    def __str__(self) -> str:
        where = f"{self.path}: {self.key}" if self.key else self.path
        return f"{where}: {self.message}"


class Kep(NamedTuple):
    """One KEP as its ``kep.yaml`` declares it; every value is the raw string upstream wrote.

    - ``number``: KEP number (int) from the directory name ``NNNN-slug``, else
      from ``kep-number``; ``0000`` is ``0``.
    - ``slug``: directory name without the number (``gang-scheduling``).
    - ``path``: repository-relative path of the ``kep.yaml``.
    - ``sig``: ``owning-sig`` (``sig-scheduling``), ``""`` when absent.
    - ``status``, ``stage``, ``latest_milestone``: raw strings, ``""`` when absent.
    - ``milestones``: ``((key, value), ...)`` in :data:`MILESTONE_KEYS` order,
      only keys present in the file.
    - ``feature_gates``: gate names as written, junk names included.
    - ``problems``: :class:`Problem` tuple found in this file.
    - ``declared_number``: ``kep-number`` as written (``""`` when absent); it
      can differ from ``number`` (sig-node/2043 declares 1884).
    - ``replaces``, ``superseded_by``, ``see_also``: the kep.yaml's ``replaces`` / ``superseded-by`` /
      ``see-also`` entries as written (a list of strings; a single string is one entry; other shapes give
      ``()``), e.g. ``"/keps/sig-scheduling/583-coscheduling"``; :mod:`bot.model.lineage` reads them as KEPs.
    - ``untrusted``: ``((field, reason), ...)`` for the fields this file gives no
      value to trust for (field names as :data:`TRUST_FIELDS`, plus
      ``latest_milestone``): no ``milestone`` mapping, a key given twice, a
      template copy; the diff never writes them, the checks never read them.
    - ``key_lines``: ``((field, 1-based line), ...)`` where the file writes status, stage,
      feature-gates and each stage's milestone (:func:`bot.model.keylines.key_lines`), for links.
    """

    number: int
    slug: str
    path: str
    title: str
    sig: str
    status: str
    stage: str
    latest_milestone: str
    milestones: tuple[tuple[str, str], ...]
    feature_gates: tuple[str, ...]
    problems: tuple[Problem, ...]
    declared_number: str = ""
    untrusted: tuple[tuple[str, str], ...] = ()
    replaces: tuple[str, ...] = ()
    superseded_by: tuple[str, ...] = ()
    key_lines: tuple[tuple[str, int], ...] = ()
    see_also: tuple[str, ...] = ()

    def distrust(self, field: str) -> str:
        """Why ``field`` (one of :data:`TRUST_FIELDS`) must not be written, ``""`` when it may be."""
        return next((why for name, why in self.untrusted if name == field), "")

    def withholds(self, field: str) -> bool:
        """True when the file gives ``field`` a value that is not used (a key given twice, a template copy, a
        misspelt or mistyped key); False when it is trusted or the file merely says nothing about it (no
        ``milestone`` mapping, no ``feature-gates`` list: reasons that say :data:`SAYS_NOTHING`)."""
        why = self.distrust(field)
        return bool(why) and SAYS_NOTHING not in why

    def milestone(self, key: str) -> str:
        """Raw milestone for ``key`` (``alpha``/``beta``/``stable``/...), ``""`` when absent."""
        return dict(self.milestones).get(key, "")

    def gates(self) -> tuple[str, ...]:
        """Feature gate names without the junk placeholders or malformed names, sorted, unique."""
        return tuple(sorted({g for g in self.feature_gates if is_gate_name(g)}))


class KepFileError(ValueError):
    """A ``kep.yaml`` that cannot be used at all (not YAML, not a mapping); carries a :class:`Problem`."""

    def __init__(self, problem: Problem):
        super().__init__(str(problem))
        self.problem = problem


def is_gate_name(name: str) -> bool:
    """True for a real feature gate name: identifier-shaped and not a placeholder (``n/a``, ``None``)."""
    return name.strip().lower() not in JUNK_GATE_NAMES and bool(_GATE_NAME_RE.match(name))


def quote(value: object) -> str:
    """A value for a problem message: a string's ``repr`` cut to 80 characters; other types by
    name only (never ``repr`` of a nested structure, which a YAML alias bomb makes huge)."""
    if isinstance(value, str):
        text = repr(value)
        return text if len(text) <= _QUOTE_MAX else text[: _QUOTE_MAX - 4] + "...'"
    if isinstance(value, (list, dict)):
        n = len(value)
        return f"a {'mapping' if isinstance(value, dict) else 'list'} ({n} item{'s' if n != 1 else ''})"
    return f"a {type(value).__name__}"


def normalize_milestone(value: str) -> str | None:
    """Return ``vMAJOR.MINOR`` for a milestone such as ``v1.30`` or ``1.30``, else ``None``.

    ``0.0`` (the template's placeholder), ``TBD``, ``x.y``, ``''``, numbers with a leading zero
    (``v1.036``, ``v01.30``: malformed, never guessed) and lists like ``"v1.21, v1.37"`` are not
    milestones and give ``None``.
    """
    m = _MILESTONE_RE.match(value.strip())
    if not m or (m.group(1), m.group(2)) == ("0", "0"):
        return None
    return f"v{int(m.group(1))}.{int(m.group(2))}"


def milestone_key(value: str) -> tuple[int, int] | None:
    """``(major, minor)`` of a milestone for ordering, ``None`` when it is not one."""
    norm = normalize_milestone(value)
    if norm is None:
        return None
    major, minor = norm[1:].split(".")
    return int(major), int(minor)


def is_unset_milestone(value: str) -> bool:
    """Blank, ``-``, the template's ``0.0``, or a placeholder such as ``TBD`` / ``x.y`` (any case)."""
    v = value.strip().casefold()
    return v in ("", "-", "—", "–", "0.0") or v in MILESTONE_PLACEHOLDERS


def is_placeholder_milestone(value: str) -> bool:
    """True for a placeholder upstream writes where it has no milestone yet: ``TBD``, ``x.y`` (any case,
    :data:`MILESTONE_PLACEHOLDERS`) or the template's ``0.0``; never for ``""`` (no target)."""
    v = value.strip().casefold()
    return v == "0.0" or v in MILESTONE_PLACEHOLDERS


def same_milestone(a: str, b: str) -> bool:
    """True when two raw milestones mean the same: equal after normalisation (``1.30 == v1.30``);
    every kind of "unset" (``''``, ``-``, ``0.0``, ``TBD``, ``x.y``) equal to every other; else exact text."""
    na, nb = normalize_milestone(a), normalize_milestone(b)
    if na is not None or nb is not None:
        return na == nb
    if is_unset_milestone(a) or is_unset_milestone(b):
        return is_unset_milestone(a) and is_unset_milestone(b)
    return a.strip() == b.strip()


def is_template(path: str) -> bool:
    """True for the two template ``kep.yaml`` files that are not KEPs."""
    return any(path.startswith(t) for t in TEMPLATE_DIRS)


def load_yaml(path: str, data: bytes) -> dict[str, object]:
    """Parse ``data`` with the string-only loader and return the top-level mapping.

    Raises :class:`KepFileError` naming ``path`` and the line when the bytes
    are not UTF-8, not YAML, or not a mapping.
    """
    return _load(path, data)[0]


def _load(
    path: str, data: bytes, keys: frozenset[str] | None = None
) -> tuple[dict[str, object], list[yamlload.Duplicate]]:
    """``(mapping, keys given twice)``; ``keys``: only these top-level keys are constructed
    (:func:`bot.model.yamlload.load`); see :func:`load_yaml` for errors."""
    try:
        doc, duplicates = yamlload.load(data.decode("utf-8"), keys)
    except UnicodeDecodeError as exc:
        raise KepFileError(Problem(path, "", f"not UTF-8 ({exc.reason} at byte {exc.start})")) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        if isinstance(exc, yaml.reader.ReaderError):
            where, reason = f" at character {exc.position}", f"{exc.reason} (#x{exc.character:04x})"
        else:
            reason = getattr(exc, "problem", None) or type(exc).__name__
        what = "not usable YAML" if isinstance(exc, yamlload.TooLarge) else "not valid YAML"
        raise KepFileError(Problem(path, "", f"{what}{where}: {reason}")) from None
    except RecursionError:
        raise KepFileError(Problem(path, "", "not usable YAML: nested too deeply")) from None
    if doc is None:
        raise KepFileError(Problem(path, "", "file is empty"))
    if not isinstance(doc, dict):
        raise KepFileError(Problem(path, "", f"not a YAML mapping (top level is {type(doc).__name__})"))
    return doc, duplicates


def parse_kep(path: str, data: bytes) -> Kep:
    """Build a :class:`Kep` from one ``kep.yaml``.

    ``path`` is repository-relative; ``data`` the raw bytes. Never raises for
    odd values: each is kept raw and recorded in ``Kep.problems``. Raises
    :class:`KepFileError` only when the file is not a YAML mapping or names no KEP number.

    Fields left :attr:`Kep.untrusted` (never written by the diff): a key given
    twice (the value is ambiguous); no ``milestone`` mapping, or one that is not
    a mapping (the file says nothing about milestones); a milestone that is not
    a string; no ``feature-gates`` list (absent or null; ``[]`` says "none"),
    one that is not a list or has an entry with no name; a record that is a template copy or whose status and
    stage are both unusable (:func:`template_markers`): every field.
    """
    doc, duplicates = _load(path, data, MODEL_KEYS)
    read = _Reading(path, doc)
    read.duplicates(duplicates)
    number, slug, declared = read.identity()
    status, stage, latest = read.status_and_stage()
    milestones = read.milestones()
    read.template_copy(status, stage)
    gates = read.feature_gates()
    return Kep(
        number=number,
        slug=slug,
        path=path,
        title=read.text("title"),
        sig=read.text("owning-sig"),
        status=status,
        stage=stage,
        latest_milestone=latest,
        milestones=tuple(milestones),
        feature_gates=tuple(gates),
        problems=tuple(read.problems),
        declared_number=declared,
        untrusted=tuple((f, read.untrusted[f]) for f in (*TRUST_FIELDS, "latest_milestone") if f in read.untrusted),
        replaces=_entries(doc.get("replaces")),
        superseded_by=_entries(doc.get("superseded-by")),
        key_lines=key_lines(data),
        see_also=_entries(doc.get("see-also")),
    )


class _Reading:
    """One kep.yaml being read: its mapping, the problems found so far and the fields not to trust.

    Each method reads one part of the file in the order :func:`parse_kep` calls them, which is the
    order of ``Kep.problems``.
    """

    def __init__(self, path: str, doc: dict[str, object]) -> None:
        self.path, self.doc = path, doc
        self.problems: list[Problem] = []
        self.untrusted: dict[str, str] = {}

    def problem(self, key: str, message: str) -> None:
        self.problems.append(Problem(self.path, key, message))

    def distrust(self, fields: tuple[str, ...] | str, why: str) -> None:
        for field in (fields,) if isinstance(fields, str) else fields:
            self.untrusted.setdefault(field, why)

    def text(self, key: str, mapping: dict[str, object] | None = None, where: str = "") -> str:
        """The stripped string at ``key`` (``""`` when null or absent); any other type is a problem."""
        value = (self.doc if mapping is None else mapping).get(key)
        if _is_null(value):
            return ""
        if isinstance(value, str):
            return value.strip()
        self.problem(where + key, f"expected a string, found a {type(value).__name__}")
        if where == "milestone." and key in STAGES:
            self.distrust(key, f"milestone.{key} in kep.yaml is a {type(value).__name__}, not a milestone")
        return ""

    def duplicates(self, duplicates: list[yamlload.Duplicate]) -> None:
        """A key given twice: a problem naming both lines; the fields it feeds are not trusted."""
        for dup in duplicates:
            fields = _DUPLICATE_FIELDS.get(
                dup.key, ("feature_gates",) if dup.key.startswith("feature-gates[") else None
            )
            what = f"given twice (lines {dup.first} and {dup.again})"
            if fields is None:
                self.problem(dup.key, f"{what}; YAML requires unique keys, the last value is read")
                continue
            written = [f for f in fields if f in TRUST_FIELDS]
            self.problem(
                dup.key,
                f"{what}; the value is ambiguous"
                + (f", so {', '.join(written)} is not written" if written else ", so it is not used"),
            )
            self.distrust(fields, f"{dup.key} is given twice in kep.yaml (lines {dup.first} and {dup.again})")

    def identity(self) -> tuple[int, str, str]:
        """``(number, slug, declared kep-number)``: the directory name wins; raises :class:`KepFileError`."""
        dirname = self.path.rsplit("/", 2)[-2] if self.path.count("/") >= 1 else ""
        m = _DIR_RE.match(dirname)
        declared = self.text("kep-number")
        if m:
            if declared and (not _NUMBER_RE.match(declared) or int(declared) != int(m.group(1))):
                self.problem("kep-number", f"declares {quote(declared)} but the directory says {m.group(1)}")
            return int(m.group(1)), m.group(2), declared
        if _NUMBER_RE.match(declared):
            return int(declared), dirname, declared
        raise KepFileError(
            Problem(self.path, "kep-number", f"no KEP number in the directory name or kep-number ({quote(declared)})")
        )

    def status_and_stage(self) -> tuple[str, str, str]:
        """``(status, stage, latest-milestone)`` as written; invalid values and dates are problems."""
        status, stage, latest = self.text("status"), self.text("stage"), self.text("latest-milestone")
        if not status:
            self.problem("status", "missing or empty")
        elif status not in STATUSES:
            self.problem("status", f"{quote(status)} is not a valid status ({', '.join(STATUSES)})")
        if not stage:
            self.problem("stage", "missing or empty")
        elif stage not in STAGES + DEPRECATION_STAGES:
            self.problem("stage", f"{quote(stage)} is not a valid stage ({', '.join(STAGES + DEPRECATION_STAGES)})")
        for key in ("creation-date", "last-updated"):
            value = self.text(key)
            if value and not _valid_date(value):
                self.problem(key, f"{quote(value)} is not a valid date (YYYY-MM-DD)")
        _check_milestone(self.problems, self.path, "latest-milestone", latest)
        return status, stage, latest

    def milestones(self) -> list[tuple[str, str]]:
        """``[(stage key, milestone)]`` in :data:`MILESTONE_KEYS` order; no mapping distrusts every stage."""
        milestones: list[tuple[str, str]] = []
        raw_ms = self.doc.get("milestone")
        if not isinstance(raw_ms, dict):
            if _is_null(raw_ms):
                why = (
                    f"kep.yaml has no milestone mapping{_spelled_as(self.doc, 'milestone')}, {SAYS_NOTHING} milestones"
                )
            else:
                why = "kep.yaml's milestone is not a mapping"
                self.problem("milestone", f"expected a mapping, found {quote(raw_ms)}")
            self.distrust(STAGES, why)
            return milestones
        for key in MILESTONE_KEYS:
            if key in raw_ms:
                value = self.text(key, raw_ms, "milestone.")
                milestones.append((key, value))
                _check_milestone(self.problems, self.path, f"milestone.{key}", value)
        for key in raw_ms:
            meant = _MILESTONE_KEY_ALIASES.get(str(key).strip().casefold())
            if meant and key != meant:
                self.problem(
                    f"milestone.{key}", f"is not a milestone key; did you mean {meant!r}? {meant} is not written"
                )
                self.distrust(meant, f"kep.yaml spells milestone.{meant} as {quote(key)}")
        return milestones

    def template_copy(self, status: str, stage: str) -> None:
        """A template copy, or a file whose status and stage are both unusable: no field is trusted."""
        markers = template_markers(self.doc)
        if markers or not (status in STATUSES or stage in STAGES + DEPRECATION_STAGES):
            why = (
                f"kep.yaml is a copy of the KEP template ({', '.join(markers)})"
                if markers
                else "kep.yaml's status and stage are both unusable"
            )
            self.problems.insert(0, Problem(self.path, "", f"{why}: none of its fields is written"))
            self.untrusted = {}
            self.distrust(TRUST_FIELDS, why)

    def feature_gates(self) -> list[str]:
        """The gate names of ``feature-gates[].name``; an absent list says nothing, ``[]`` says none."""
        gates: list[str] = []
        raw_gates = self.doc.get("feature-gates")
        if _is_null(raw_gates):  # 255 kep.yaml files at the bundle HEAD have none (most predate the field)
            self.distrust(
                "feature_gates",
                f"kep.yaml has no feature-gates list{_spelled_as(self.doc, 'feature-gates')}, "
                f"{SAYS_NOTHING} feature gates",
            )
            return gates
        if not isinstance(raw_gates, list):
            self.problem("feature-gates", f"expected a list, found {quote(raw_gates)}")
            self.distrust("feature_gates", "kep.yaml's feature-gates is not a list")
            return gates
        for i, item in enumerate(raw_gates):
            name = item.get("name") if isinstance(item, dict) else None
            if not isinstance(name, str):
                self.problem(f"feature-gates[{i}]", f"entry has no name: {quote(item)}")
                self.distrust("feature_gates", f"feature-gates[{i}] in kep.yaml has no name, so the list is incomplete")
                continue
            gates.append(name.strip())
            if name.strip().lower() in JUNK_GATE_NAMES:
                self.problem(f"feature-gates[{i}].name", f"{quote(name)} is a placeholder, not a gate")
            elif not is_gate_name(name.strip()):
                self.problem(f"feature-gates[{i}].name", f"{quote(name)} is not a feature gate name")
                self.distrust(
                    "feature_gates",
                    f"feature-gates[{i}].name in kep.yaml is not a feature gate name "
                    f"({quote(name)}), so the list is not trusted",
                )
        return gates


def _entries(value: object) -> tuple[str, ...]:
    """A ``replaces`` / ``superseded-by`` / ``see-also`` value as its string entries (a lone string is one entry)."""
    items = [value] if isinstance(value, str) and not _is_null(value) else value if isinstance(value, list) else []
    return tuple(i.strip() for i in items if isinstance(i, str) and i.strip())


def template_markers(doc: dict[str, object]) -> list[str]:
    """Why ``doc`` (a loaded kep.yaml) is evidently a copy of the KEP template, ``[]`` when it is not.

    Evident: ``status`` or ``stage`` is the template's list of choices
    (``provisional|implementable|...``, ``alpha|beta|stable``: no real KEP
    writes that), or at least two of :data:`TEMPLATE_SAMPLES` are kept (one
    alone is not: real provisional KEPs keep ``creation-date: yyyy-mm-dd``,
    others ``title: KEP Template``). Source: kubernetes/enhancements
    ``keps/NNNN-kep-template/kep.yaml``.
    """
    found = []
    for key, valid in (("status", STATUSES), ("stage", STAGES + DEPRECATION_STAGES)):
        value = doc.get(key)
        parts = value.split("|") if isinstance(value, str) else []
        if len(parts) > 1 and all(p.strip() in valid for p in parts):
            found.append(f"{key} {quote(value)}")
    samples = []
    for key, sample in TEMPLATE_SAMPLES.items():
        value = doc.get(key)
        items = value if isinstance(value, list) else [value]
        names = [i.get("name") if isinstance(i, dict) else i for i in items]
        if any(isinstance(n, str) and n.strip() == sample for n in names):
            samples.append(f"{key} {quote(sample)}")
    return found + (samples if len(samples) >= 2 else [])


def _spelled_as(doc: dict[str, object], key: str) -> str:
    """`` (it has 'Milestones:')`` when a top-level key of ``doc`` is ``key`` spelled otherwise
    (case, ``_`` for ``-``, a plural ``s``; never read as ``key``), else ``""``."""
    near = [k for k in doc if k != key and yamlload.spelling(k) == yamlload.spelling(key)]
    return f" (it has {', '.join(quote(str(k)) + ':' for k in near)})" if near else ""


def _is_null(value: object) -> bool:
    """True for an absent key or a YAML null scalar (lists and mappings are never null)."""
    return value is None or (isinstance(value, str) and value in _NULLS)


def _check_milestone(problems: list[Problem], path: str, key: str, value: str) -> None:
    if not value:
        return
    norm = normalize_milestone(value)
    if norm is None and _LEADING_ZERO_RE.match(value) and value not in ("0.0", "v0.0"):
        problems.append(Problem(path, key, f"{quote(value)} is not a release milestone: a number starts with 0"))
    elif norm is None:
        problems.append(Problem(path, key, f"{quote(value)} is not a release milestone (vMAJOR.MINOR)"))
    elif not value.startswith("v"):
        problems.append(Problem(path, key, f"{quote(value)} lacks the 'v' prefix (read as {norm})"))


def _valid_date(value: str) -> bool:
    m = _DATE_RE.match(value.strip().strip('"'))
    if not m:
        return False
    try:
        datetime.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return False
    return True
