"""The feature-gate lifecycle: what Kubernetes says shipped, gate by gate and release by release.

Pure: ``(where, bytes)`` in, values out. The input is ``versioned_feature_list.yaml``, generated in
kubernetes/kubernetes (``test/compatibility_lifecycle/reference/`` on ``release-1.33`` and later,
``test/featuregates_linter/test_data/`` on ``release-1.32``)::

    - name: DynamicResourceAllocation
      versionedSpecs:
      - {version: "1.30", preRelease: Alpha, default: false, lockToDefault: false}
      - {version: "1.32", preRelease: Beta, default: false, lockToDefault: false}
      - {version: "1.34", preRelease: GA, default: true, lockToDefault: false}

read with PyYAML's string-only loader (every scalar a string, as written). ``preRelease`` is
``Alpha``, ``Beta``, ``GA`` or ``Deprecated`` (read as the stages ``alpha``, ``beta``, ``stable``,
``deprecated``); ``version`` is a minor release only. Known defects of the list, handled here:

- ``version: "1.0"`` with ``GA``: a synthetic entry for a gate older than the versioned format; it
  says "GA before the list begins", never "GA in v1.0" (:attr:`Spec.release` is ``""``);
- a gate drops out of the list a few releases after GA: a question about release R reads the list
  of R when there is one (:meth:`Lifecycle.gate`), and a gate missing from a later list is not
  "never shipped";
- gates shared by several KEPs and names misspelled in kep.yaml are the join's business
  (:mod:`bot.plan.evidence.gates`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from typing import NamedTuple

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from bot.model.kep import Problem
from bot.model.yamlload import TooLarge, count_nodes

try:  # the same string-only loader as kep.yaml (bot.model.yamlload): libyaml when built in
    _Loader: type = yaml.CBaseLoader
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    _Loader = yaml.BaseLoader

#: ``preRelease`` values and the stage each means (kubernetes/component-base featuregate: Alpha, Beta, GA,
#: Deprecated).
PRE_RELEASE = {"Alpha": "alpha", "Beta": "beta", "GA": "stable", "Deprecated": "deprecated"}
#: Order of the graduation stages (``deprecated`` has none: it follows any of them).
RANK = {"alpha": 0, "beta": 1, "stable": 2}
#: The synthetic version of gates older than the versioned format.
SYNTHETIC = "1.0"
#: Most nodes one list may hold, counted as the parser meets them (before any is built) and again with each
#: alias expanded (the real lists hold ~5,000; a list of millions of tiny nodes and an alias bomb are refused).
MAX_NODES = 200_000
#: ``MAJOR.MINOR`` without leading zeros (``1.033`` is malformed, as a milestone ``v1.033`` is).
_VERSION_RE = re.compile(r"^(0|[1-9][0-9]{0,2})\.(0|[1-9][0-9]{0,3})$")


class Spec(NamedTuple):
    """One ``versionedSpecs`` entry: ``release`` ``vMAJOR.MINOR`` (``""`` for the synthetic ``1.0``),
    ``stage`` (``alpha``/``beta``/``stable``/``deprecated``), ``default`` and ``locked`` (lockToDefault)."""

    release: str
    stage: str
    default: bool
    locked: bool


class Gate(NamedTuple):
    """A gate's lifecycle as one list states it: ``name`` and its ``specs``, oldest first (synthetic first)."""

    name: str
    specs: tuple[Spec, ...]

    def reached(self, stage: str) -> Spec | None:
        """The first spec at ``stage``; its ``release`` is ``""`` when that is the synthetic ``1.0`` entry."""
        return next((s for s in self.specs if s.stage == stage), None)

    def at(self, release: str) -> Spec | None:
        """The spec in force in ``release`` (``vMAJOR.MINOR``): the last one at or before it; ``None`` when the
        gate did not exist yet."""
        key = release_key(release)
        found = None
        for spec in self.specs:
            if not spec.release or (key is not None and release_key(spec.release) <= key):
                found = spec
        return found


class GateList(NamedTuple):
    """One ``versioned_feature_list.yaml``: ``where`` (path or ``repo@branch:path``), ``revision`` (the git
    blob SHA-1 of its bytes, as GitHub names a file's content), ``release`` (the release it belongs to when
    the source says so: a file named ``1.33.yaml``, the ``release-1.33`` branch; else ``""``), ``newest``
    (its newest version), ``gates`` by name and ``final``: whether its ``release`` has shipped (false for
    the newest ``release-1.NN`` branch, which is cut weeks before v1.NN ships)."""

    where: str
    revision: str
    release: str
    newest: str
    gates: dict[str, Gate]
    final: bool = True

    @property
    def covers(self) -> str:
        """The newest release this list speaks for: its own release, else its newest version."""
        return self.release or self.newest


class Lifecycle(NamedTuple):
    """Every list read from one source, oldest first, with the ``source`` as configured and the ``problems``.

    ``shipped``: releases known to be out. A list named by its release (a directory file, a release branch
    older than the newest one) says its release and every older version shipped; a list without one (a
    single file, which a development branch generates) says every version but its newest shipped: the
    newest is the release being made; the newest release branch's list (not ``final``) says every version
    older than its release shipped.
    """

    source: str
    lists: tuple[GateList, ...]
    problems: tuple[Problem, ...] = ()

    @property
    def shipped(self) -> frozenset[str]:
        out: set[str] = set()
        for gl in self.lists:
            versions = {s.release for g in gl.gates.values() for s in g.specs if s.release}
            out |= {v for v in versions if release_key(v) < release_key(gl.newest)}
            if gl.release and not gl.final:
                out |= {v for v in versions if release_key(v) < release_key(gl.release)}
            elif gl.release:
                out |= {v for v in versions if release_key(v) <= release_key(gl.release)} | {gl.release}
        return frozenset(out)

    @property
    def newest(self) -> str:
        """The newest release any list covers (``""`` when none)."""
        return max((gl.covers for gl in self.lists), key=release_key, default="")

    def names(self) -> frozenset[str]:
        """Every gate name of every list."""
        return frozenset(n for gl in self.lists for n in gl.gates)

    def gate(self, name: str, release: str = "") -> tuple[Gate, GateList] | None:
        """The gate as the list of ``release`` states it (the oldest list covering it that holds the gate),
        else as the newest list holding it; ``None`` when no list holds it."""
        holding = [gl for gl in self.lists if name in gl.gates]
        if not holding:
            return None
        key = release_key(release) if release else None
        if key is not None:
            for gl in holding:
                if release_key(gl.covers) >= key:
                    return gl.gates[name], gl
        return holding[-1].gates[name], holding[-1]


def release_key(release: str) -> tuple[int, int]:
    """``v1.33`` -> ``(1, 33)``; anything else -> ``(0, 0)``."""
    m = _VERSION_RE.match(release.removeprefix("v"))
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


def blob_sha(data: bytes) -> str:
    """The git blob SHA-1 of ``data`` (``git hash-object``): the revision GitHub's contents API gives a file."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


class ListError(ValueError):
    """A gate list that cannot be used at all (not UTF-8, not YAML, not a list); ``str()`` names the file
    and line."""


def parse_gate_list(where: str, data: bytes, release: str = "") -> tuple[GateList, list[Problem]]:
    """Read one list; raises :class:`ListError` when it is unusable as a whole.

    ``release``: the release the source says it belongs to (``v1.33``) or ``""``. An entry or spec that is
    malformed (no string ``name``, a ``preRelease`` or ``version`` the format does not have, a
    ``default`` that is not true/false) is skipped and reported as a :class:`Problem` whose ``key`` is
    ``line N``; a name given twice keeps its first entry.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ListError(f"{where}: not UTF-8 ({exc.reason} at byte {exc.start})") from None
    try:
        count_nodes(text, MAX_NODES, "YAML nodes")
    except TooLarge as exc:
        raise ListError(f"{where}: {exc.problem}") from None
    except yaml.YAMLError:
        pass  # composing says where the text stops being YAML
    try:
        root = yaml.compose(text, Loader=_Loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" line {mark.line + 1}" if mark is not None else ""
        raise ListError(f"{where}:{at}: not YAML: {getattr(exc, 'problem', None) or exc}") from None
    if root is None:
        root = SequenceNode("tag:yaml.org,2002:seq", [])
    if not isinstance(root, SequenceNode):
        raise ListError(
            f"{where}: line {root.start_mark.line + 1}: expected a list of gates (- name: ..., versionedSpecs: [...])"
        )
    _check_size(where, root)
    problems: list[Problem] = []
    gates: dict[str, Gate] = {}
    for item in root.value:
        gate = _gate(where, item, problems)
        if gate is not None and gate.name in gates:
            problems.append(_at(where, item, f"gate {gate.name} listed again; the first entry is kept"))
        elif gate is not None:
            gates[gate.name] = gate
    newest = max((s.release for g in gates.values() for s in g.specs if s.release), key=release_key, default="")
    return GateList(where, blob_sha(data), release, newest, gates), problems


def _check_size(where: str, root: Node) -> None:
    seen, stack = 0, [root]
    while stack:
        node = stack.pop()
        seen += 1
        if seen > MAX_NODES:
            raise ListError(f"{where}: more than {MAX_NODES:,} YAML nodes (aliases expanding?); refused")
        if isinstance(node, SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, MappingNode):
            stack.extend(n for pair in node.value for n in pair)


def _at(where: str, node: Node, message: str) -> Problem:
    return Problem(where, f"line {node.start_mark.line + 1}", message)


def _mapping(node: Node) -> dict[str, Node] | None:
    if not isinstance(node, MappingNode):
        return None
    return {k.value: v for k, v in node.value if isinstance(k, ScalarNode)}


def _gate(where: str, item: Node, problems: list[Problem]) -> Gate | None:
    fields = _mapping(item) or {}
    name = fields.get("name")
    if not isinstance(name, ScalarNode) or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name.value):
        problems.append(_at(where, item, "entry without a gate name (name: SomeGate); skipped"))
        return None
    specs_node = fields.get("versionedSpecs")
    if not isinstance(specs_node, SequenceNode):
        problems.append(_at(where, item, f"gate {name.value}: versionedSpecs is not a list; skipped"))
        return None
    specs = [s for s in (_spec(where, name.value, n, problems) for n in specs_node.value) if s is not None]
    specs.sort(key=lambda s: release_key(s.release))
    return Gate(name.value, tuple(specs))


def _spec(where: str, gate: str, node: Node, problems: list[Problem]) -> Spec | None:
    fields = _mapping(node) or {}
    values = {k: v.value for k, v in fields.items() if isinstance(v, ScalarNode)}
    version, pre = values.get("version", ""), values.get("preRelease", "")
    flags = [values.get("default", ""), values.get("lockToDefault", "false")]
    why = (
        ("" if _VERSION_RE.match(version) else f"version {version!r} is not MAJOR.MINOR")
        or ("" if pre in PRE_RELEASE else f"preRelease {pre!r} is not one of {', '.join(PRE_RELEASE)}")
        or ("" if all(f in ("true", "false") for f in flags) else "default and lockToDefault must be true or false")
    )
    if why:
        problems.append(_at(where, node, f"gate {gate}: {why}; spec skipped"))
        return None
    release = "" if version == SYNTHETIC else f"v{int(version.split('.')[0])}.{int(version.split('.')[1])}"
    return Spec(release, PRE_RELEASE[pre], flags[0] == "true", flags[1] == "true")


def lifecycle(source: str, lists: Iterable[GateList], problems: Iterable[Problem] = ()) -> Lifecycle:
    """A :class:`Lifecycle` of ``lists`` ordered by the release each covers."""
    return Lifecycle(source, tuple(sorted(lists, key=lambda gl: release_key(gl.covers))), tuple(problems))


def shipped_text(gate: Gate) -> str:
    """The Shipped cell for ``gate``: each stage with the release it was reached in and ``(on)`` when enabled by
    default or ``(locked)`` when locked: ``alpha v1.33, beta v1.35 (on), GA v1.36 (locked)``; a default or lock
    change within a stage is its own part (``beta v1.35, on v1.36``); a synthetic entry reads ``GA before the
    versioned list``; ``-`` for a gate with no spec."""
    parts: list[str] = []
    last: Spec | None = None
    for spec in gate.specs:
        if last is not None and (spec.stage, spec.default, spec.locked) == (last.stage, last.default, last.locked):
            continue
        when = spec.release or "before the versioned list"
        state = "locked" if spec.locked else "on" if spec.default else ""
        if last is not None and spec.stage == last.stage:
            parts.append(f"{state or 'off'} {when}")
        else:
            word = "GA" if spec.stage == "stable" else spec.stage
            parts.append(f"{word} {when}" + (f" ({state})" if state else ""))
        last = spec
    return ", ".join(parts) or "-"
