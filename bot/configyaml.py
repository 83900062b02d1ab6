"""Read the config file's YAML with bounded work: PyYAML's safe loader (typed values: ``publish: none``,
``max_requests: 50``), after a walk of the composed node graph that refuses an alias bomb and a number
too long for Python's ``int`` before anything is built from them.

A real config has a few hundred nodes; :data:`MAX_CONFIG_NODES` mappings, sequences and scalars,
counting each use of an alias again (so ``a: &a [x, x], b: [*a, *a]`` counts 7), is far above that and
far below what hangs validation. Pure: text in, values out; :mod:`bot.config` names the file.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from bot.model.yamlload import TooLarge, count_nodes, duplicate_keys

#: Most nodes one config document may expand to, aliases counted at each use.
MAX_CONFIG_NODES = 10_000
#: Longest integer accepted, digits (Python refuses to convert more than 4300 by default).
MAX_INT_DIGITS = 4000
_INT_TAG = "tag:yaml.org,2002:int"
_TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"


class ConfigYamlError(ValueError):
    """The document is too large once aliases are expanded, holds a number too long or a key twice; ``key`` is
    where (``wiki.pages[0]``, ``(top level)``), ``problem`` what."""

    def __init__(self, key: str, problem: str):
        super().__init__(f"{key}: {problem}")
        self.key, self.problem = key, problem


def load_config_yaml(text: str) -> Any:
    """The single YAML document in ``text`` as PyYAML's safe loader builds it (``None`` when empty).

    Raises :class:`ConfigYamlError` past :data:`MAX_CONFIG_NODES` nodes as the parser meets them (before any
    is built: :func:`bot.model.yamlload.count_nodes`) or once aliases are expanded (an alias bomb), for an
    integer of more than :data:`MAX_INT_DIGITS` digits or a key given twice in one mapping
    (:func:`bot.model.yamlload.duplicate_keys`, the check kep.yaml gets), :class:`yaml.YAMLError` for text that is
    not one YAML document, ``RecursionError`` for nesting deeper than Python's stack.
    """
    try:
        count_nodes(text, MAX_CONFIG_NODES, "values")
    except TooLarge as exc:
        raise ConfigYamlError("(top level)", f"{exc.problem} (a config holds a few hundred)") from None
    except yaml.YAMLError:
        pass  # the safe loader below says where the text stops being YAML, in its own words
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        check_nodes(node)
        for dup in duplicate_keys(node)[:1]:  # PyYAML keeps the last silently: the setting meant cannot be told
            raise ConfigYamlError(dup.key, f"given twice (lines {dup.first} and {dup.again}); keep one")
        return loader.construct_document(node)
    finally:
        loader.dispose()


def check_nodes(root: Node) -> None:
    """Walk ``root`` (iteratively, aliases expanded) and raise :class:`ConfigYamlError` at the first
    node past :data:`MAX_CONFIG_NODES` or integer scalar longer than :data:`MAX_INT_DIGITS` digits."""
    stack: list[tuple[Node, str]] = [(root, "")]
    visits = 0
    while stack:
        node, key = stack.pop()
        visits += 1
        if visits > MAX_CONFIG_NODES:
            raise ConfigYamlError(
                key or "(top level)",
                f"aliases expand to more than {MAX_CONFIG_NODES:,} values (an alias bomb?); refused",
            )
        if isinstance(node, ScalarNode):
            digits = sum(c.isdigit() for c in node.value)
            if node.tag == _INT_TAG and digits > MAX_INT_DIGITS:
                raise ConfigYamlError(key or "(top level)", f"a number of {digits} digits; too long to be a setting")
            if node.tag == _TIMESTAMP_TAG and not _real_time(node):
                raise ConfigYamlError(
                    key or "(top level)", f"{node.value!r} is written as a date but is no day of the calendar"
                )
        elif isinstance(node, SequenceNode):
            stack.extend((item, f"{key}[{i}]") for i, item in reversed(list(enumerate(node.value))))
        elif isinstance(node, MappingNode):
            for k, v in reversed(node.value):
                name = k.value if isinstance(k, ScalarNode) else "?"
                stack.append((v, f"{key}.{name}" if key else str(name)))
                stack.append((k, key))


def _real_time(node: ScalarNode) -> bool:
    """True when PyYAML can build the date or time ``node`` is resolved as (``2026-13-01`` and ``2026-02-30``
    match YAML's timestamp form yet name no day: building them raises ``ValueError``)."""
    try:
        yaml.constructor.SafeConstructor().construct_yaml_timestamp(node)
    except ValueError:
        return False
    return True
