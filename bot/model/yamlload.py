"""The string-only YAML loader for kep.yaml: every scalar a string, YAML 1.1 merge keys honoured,
keys given twice found with their lines.

Pure: text in, values out. PyYAML's ``BaseLoader`` (``CBaseLoader`` when libyaml is built in)
keeps every scalar as written, but it neither applies merge keys (``<<: *anchor``, the YAML 1.1
merge type, https://yaml.org/type/merge.html) nor reports a key given twice (YAML 1.2 section
3.2.1.1 requires unique keys; PyYAML silently keeps the last). Both would lose or invent a
value, so this module adds them:

- a plain ``<<`` key (or one tagged ``!!merge``) whose value is a mapping or a sequence of
  mappings merges their keys; keys of the mapping itself win, then earlier sources win over
  later ones (the spec's order). Any other merge value is an error (:class:`yaml.YAMLError`),
  as in PyYAML's ``SafeLoader``; a quoted ``"<<"`` is an ordinary key.
- :func:`duplicate_keys` lists ``(dotted key, first line, line again)`` for every key given
  twice in one mapping, including keys a mapping receives twice from one merged source.
- the work is bounded: each mapping's merges are applied once per document (an anchor merged
  8 times by each of 25 nested anchors costs 200 steps, not 8**25), and a document whose merges
  or walk exceed :data:`MAX_VISITS` steps (an alias or merge-key bomb; a real kep.yaml takes ~20)
  raises :class:`TooLarge`.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable
from typing import TYPE_CHECKING, Any, NamedTuple

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

if TYPE_CHECKING:  # CBaseLoader has BaseLoader's interface (its CParser stands for Reader to Composer)
    _BaseLoader = yaml.BaseLoader
else:
    try:  # libyaml is ~8x faster on the 650-file snapshot; the pure loader gives the same strings.
        _BaseLoader = yaml.CBaseLoader
    except AttributeError:  # pragma: no cover - depends on how PyYAML was built
        _BaseLoader = yaml.BaseLoader

_MERGE_TAG = "tag:yaml.org,2002:merge"
_STR_TAG = "tag:yaml.org,2002:str"
#: Most steps one document may take: mappings and sequences :func:`duplicate_keys` visits, and keys
#: :func:`merged_pairs` copies (an alias bomb expands exponentially; a real kep.yaml takes ~20).
MAX_VISITS = 20_000
#: Most nodes one kep.yaml may hold, counted as the parser meets them, before any is built (a real one
#: holds ~300); checked only for a text longer than :data:`COUNT_FROM_CHARS` (a real one is ~10 KB), so
#: the snapshot's files are parsed once.
MAX_NODES = 20_000
COUNT_FROM_CHARS = 64 * 1024


class TooLarge(yaml.constructor.ConstructorError):
    """A document whose aliases or merge keys expand to more than :data:`MAX_VISITS` steps (an alias
    bomb); ``problem`` says so, ``problem_mark`` is the node where the bound was reached."""


def count_nodes(text: str, limit: int, what: str = "nodes") -> None:
    """Raise :class:`TooLarge` as soon as the parser has met more than ``limit`` nodes in ``text``
    (scalars, sequences, mappings and aliases, each alias once): the events are counted one at a time and
    dropped, so a document of millions of tiny nodes is refused before its node graph is built (which takes
    seconds and hundreds of MB). ``what`` names the nodes in the message. Raises :class:`yaml.YAMLError`
    for text that is not YAML (up to where it stops being YAML)."""
    seen = 0
    for event in yaml.parse(text, Loader=_BaseLoader):
        if isinstance(event, yaml.NodeEvent):
            seen += 1
            if seen > limit:
                at = event.start_mark  # libyaml's own Mark class: the same fields
                mark = yaml.error.Mark(at.name, at.index, at.line, at.column, None, 0) if at is not None else None
                raise TooLarge(None, None, f"more than {limit:,} {what}; refused", mark)


class _Merges:
    """Per document: the merged pairs of each mapping already worked out (by node id), and the steps taken."""

    def __init__(self) -> None:
        self.done: dict[int, list[tuple[Node, Node]]] = {}
        self.steps = 0

    def spend(self, steps: int, node: Node) -> None:
        self.steps += steps
        if self.steps > MAX_VISITS:
            raise TooLarge(
                None, None, f"merge keys expand to more than {MAX_VISITS:,} keys (an alias bomb?)", node.start_mark
            )


class Duplicate(NamedTuple):
    """A key given twice in one mapping: ``key`` dotted from the top (``milestone.alpha``,
    ``feature-gates[0].name``), ``first`` and ``again`` the 1-based lines of both."""

    key: str
    first: int
    again: int


def is_merge_key(node: Node) -> bool:
    """True for a merge key: plain ``<<`` (libyaml reports plain style as ``''``, PyYAML as ``None``) or ``!!merge``."""
    if not isinstance(node, ScalarNode):
        return False
    return node.tag == _MERGE_TAG or (node.value == "<<" and node.style in (None, "") and node.tag == _STR_TAG)


def merged_pairs(
    node: MappingNode, _merges: _Merges | None = None, _active: frozenset[int] = frozenset()
) -> list[tuple[Node, Node]]:
    """The ``(key node, value node)`` pairs of ``node`` with its merge keys applied, in spec order.

    ``_merges``: the document's memo and step count (a fresh one when ``None``). Raises
    :class:`yaml.constructor.ConstructorError` for a merge value that is not a mapping or a
    sequence of mappings, and for a merge that includes the mapping itself; :class:`TooLarge`
    past :data:`MAX_VISITS` copied keys.
    """
    own = [(k, v) for k, v in node.value if not is_merge_key(k)]
    if len(own) == len(node.value):
        return own
    merges = _Merges() if _merges is None else _merges
    if id(node) in merges.done:
        return merges.done[id(node)]
    active = _active | {id(node)}
    taken = {_key(k) for k, _ in own}
    merged: list[tuple[Node, Node]] = []
    for key, value in node.value:
        if not is_merge_key(key):
            continue
        sources = (
            [value] if isinstance(value, MappingNode) else (value.value if isinstance(value, SequenceNode) else [value])
        )
        for source in sources:
            if not isinstance(source, MappingNode):
                raise yaml.constructor.ConstructorError(
                    "while applying a merge key",
                    key.start_mark,
                    f"expected a mapping or a list of mappings to merge, found a {source.id}",
                    source.start_mark,
                )
            if id(source) in active:
                raise yaml.constructor.ConstructorError(
                    "while applying a merge key",
                    key.start_mark,
                    "the merge includes the mapping itself",
                    source.start_mark,
                )
            pairs = merged_pairs(source, merges, active)
            merges.spend(len(pairs) + 1, source)
            last = {_key(k): (k, v) for k, v in pairs}  # a key given twice: the last, as YAML loaders read it
            for k, v in last.values():
                if _key(k) not in taken:
                    taken.add(_key(k))
                    merged.append((k, v))
    merges.done[id(node)] = merged + own
    return merged + own


def _key(node: Node) -> object:
    return node.value if isinstance(node, ScalarNode) else id(node)


class _Loader(_BaseLoader):
    """The string-only loader with merge keys applied (see :func:`merged_pairs`).

    The parser asks the resolver for the tag of every node (libyaml calls back into Python for
    each one). The string-only ``BaseResolver`` has no implicit and no path resolvers, so its
    answer is always the default tag of the node's kind: :meth:`resolve` gives that directly and
    the path bookkeeping is skipped (``tests/model/test_yamlload.py`` checks both agree).
    """

    _DEFAULT_TAGS = {
        ScalarNode: yaml.resolver.BaseResolver.DEFAULT_SCALAR_TAG,
        SequenceNode: yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG,
        MappingNode: yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
    }

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.merges = _Merges()

    def resolve(self, kind: type[Node], value: object, implicit: object) -> str:
        return self._DEFAULT_TAGS[kind]

    def descend_resolver(self, current_node: Node | None, current_index: object) -> None:
        pass

    def ascend_resolver(self) -> None:
        pass

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Hashable, Any]:
        if isinstance(node, MappingNode) and any(is_merge_key(k) for k, _ in node.value):
            node = MappingNode(
                node.tag, list(merged_pairs(node, self.merges)), node.start_mark, node.end_mark, node.flow_style
            )
        if isinstance(node, MappingNode):
            check_keys(node.value, node)
        return super().construct_mapping(node, deep=deep)


def check_keys(pairs: list[tuple[Node, Node]], mapping: Node) -> None:
    """Raise :class:`yaml.constructor.ConstructorError` at the first key of ``pairs`` (a mapping's own or
    merged ones) that is a sequence or a mapping: kep.yaml keys are names, such a key has no string to read."""
    for key, _ in pairs:
        if not isinstance(key, ScalarNode):
            kind = "sequence" if isinstance(key, SequenceNode) else "mapping"
            raise yaml.constructor.ConstructorError(
                "while constructing a mapping", mapping.start_mark, f"a key is a {kind}, not a name", key.start_mark
            )


def load(text: str, keys: Collection[str] | None = None) -> tuple[Any, list[Duplicate]]:
    """``(document, duplicate keys)`` of one YAML document; the document is ``None`` when empty.

    Scalars are strings exactly as written. ``keys``: when given and the document is a mapping
    whose keys are all scalars, only those top-level keys, and keys spelled like them
    (:func:`spelling`: ``Milestones`` for ``milestone``), are constructed (merge keys applied;
    the others are left out of the document, so a value nobody reads costs nothing and cannot
    fail); duplicates are looked for in the whole document either way. Raises
    :class:`yaml.YAMLError` (PyYAML's errors, with ``problem_mark``) for text that is not one
    YAML document (:class:`TooLarge` for an alias or merge-key bomb and for more than :data:`MAX_NODES`
    nodes, :func:`count_nodes`; a mapping key that is not a
    scalar, the document's own or one a merge brings in, is "found unhashable key"), and
    ``RecursionError`` for nesting deeper than Python's stack.
    """
    if len(text) > COUNT_FROM_CHARS:
        count_nodes(text, MAX_NODES, "YAML nodes (a kep.yaml holds a few hundred)")
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, []
        pairs = merged_pairs(node, loader.merges) if isinstance(node, MappingNode) else []
        check_keys(pairs, node)
        if keys is not None and isinstance(node, MappingNode):
            wanted = {spelling(k) for k in keys}
            doc = {
                key.value: loader.construct_object(value, deep=True)
                for key, value in pairs
                if key.value in keys or spelling(key.value) in wanted
            }
        else:
            doc = loader.construct_document(node)
        return doc, duplicate_keys(node)
    finally:
        loader.dispose()


def spelling(key: object) -> str:
    """``key`` without case, ``-``, ``_`` and a trailing ``s``: ``Feature_Gates`` and ``feature-gates``
    spell the same key (so a caller can name a misspelt key instead of reading it as absent)."""
    return str(key).casefold().replace("_", "").replace("-", "").rstrip("s")


def duplicate_keys(root: Node) -> list[Duplicate]:
    """Every key given twice in one mapping under ``root``, in document order of the second line.

    A mapping's own keys are checked against each other; merged sources are walked as part of
    the mapping that merges them, so a duplicate inside an anchor shows under every key path
    that uses it. Raises :class:`TooLarge` past :data:`MAX_VISITS` mappings and sequences (an
    alias bomb: stopping quietly would miss a key given twice).
    """
    found: dict[tuple[str, int], Duplicate] = {}
    # Only mappings and sequences are walked (a scalar holds no key); names are built as they are needed.
    stack: list[tuple[Node, str, frozenset[int]]] = [(root, "", frozenset())]
    visits = 0
    while stack:
        node, prefix, active = stack.pop()
        visits += 1
        if visits > MAX_VISITS:
            raise TooLarge(
                None,
                None,
                f"aliases expand to more than {MAX_VISITS:,} mappings and sequences (an alias bomb?)",
                node.start_mark,
            )
        if id(node) in active:
            continue
        inner = active | {id(node)}
        if isinstance(node, SequenceNode):
            stack.extend(
                (item, f"{prefix}[{i}]", inner) for i, item in enumerate(node.value) if not isinstance(item, ScalarNode)
            )
        elif isinstance(node, MappingNode):
            first: dict[str, int] = {}
            for key, value in node.value:
                if is_merge_key(key):
                    sources = value.value if isinstance(value, SequenceNode) else [value]
                    stack.extend((s, prefix, inner) for s in sources if isinstance(s, MappingNode))
                    continue
                if not isinstance(key, ScalarNode):
                    continue
                name = key.value
                if name in first:
                    line = key.start_mark.line + 1
                    dotted = f"{prefix}.{name}" if prefix else name
                    found.setdefault((dotted, line), Duplicate(dotted, first[name], line))
                else:
                    first[name] = key.start_mark.line + 1
                if not isinstance(value, ScalarNode):
                    stack.append((value, f"{prefix}.{name}" if prefix else name, inner))
    return sorted(found.values(), key=lambda d: (d.again, d.key))
