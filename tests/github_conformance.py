"""Requests and answers of tests/fakegithub/ checked against GitHub's REST description (tests/github-openapi/).

:func:`problems` takes the fake's :class:`~tests.fakegithub.Exchange` records and returns one line per
fault: a request whose method and path match no operation of the subset, an answer that its
operation's schema rejects (request bodies are not checked: PyGithub's ``add_to_labels`` and
``set_labels``, which tests/publish/test_fakegithub.py drives, send a bare JSON array the description no longer
documents). An answer is checked against the schema documented for its status
(an undocumented error status against ``basic-error``; a 2xx status must be documented). Schemas are
the subset's, read as OpenAPI 3.0 (``nullable``) and made closed: an object schema that lists its
``properties`` rejects any other field, so a pull-request list item (``pull-request-simple``) carrying
``merged`` fails, as a field GitHub leaves out would cost code reading it a request per item.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

import jsonschema
import referencing
from referencing.jsonschema import DRAFT202012

SUBSET = Path(__file__).resolve().parent / "github-openapi" / "subset.json"
_URI = "urn:github-openapi-subset"
_GREEDY = {"path", "ref", "branch", "basehead", "name"}  # parameters that may hold a "/" (paths come decoded)


class Operation(NamedTuple):
    """One operation of the subset: ``pointer`` is its JSON pointer in the subset document."""

    method: str
    template: str
    pattern: re.Pattern
    pointer: str
    spec: dict


def openapi_to_json_schema(node: object, in_all_of: bool = False) -> object:
    """An OpenAPI 3.0 schema as a closed JSON Schema 2020-12 one.

    ``nullable: true`` admits ``null``; an object schema with ``properties`` and no
    ``additionalProperties`` gets ``unevaluatedProperties: false`` (not an inline ``allOf`` branch,
    which would reject its siblings' fields).
    """
    if isinstance(node, list):
        return [openapi_to_json_schema(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key == "properties":
            out[key] = {name: openapi_to_json_schema(sub) for name, sub in value.items()}
        elif key == "allOf":
            out[key] = [openapi_to_json_schema(sub, in_all_of=True) for sub in value]
        elif key != "nullable":
            out[key] = openapi_to_json_schema(value)
    if "properties" in out and "additionalProperties" not in out and not in_all_of:
        out["unevaluatedProperties"] = False
    if node.get("nullable"):
        if isinstance(out.get("type"), str):
            out["type"] = [out["type"], "null"]
            if "enum" in out:
                out["enum"] = [*out["enum"], None]
        else:
            out = {"anyOf": [out, {"type": "null"}]}
    return out


def _path_pattern(template: str) -> re.Pattern:
    parts = re.split(r"\{(\w+)\}", template)
    rx = "".join(re.escape(p) if i % 2 == 0 else "(.*)" if p in _GREEDY else "([^/]+)" for i, p in enumerate(parts))
    return re.compile(rx + "/?")


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


@functools.cache
def subset() -> tuple[dict, referencing.Registry, tuple[Operation, ...]]:
    """The subset document as JSON Schema, its registry and its operations."""
    doc = json.loads(SUBSET.read_text())
    converted = {"paths": openapi_to_json_schema(doc["paths"]), "components": openapi_to_json_schema(doc["components"])}
    registry = referencing.Registry().with_resource(_URI, DRAFT202012.create_resource(converted))
    ops = tuple(
        Operation(method.upper(), template, _path_pattern(template), f"/paths/{_escape(template)}/{method}", op)
        for template, methods in converted["paths"].items()
        for method, op in methods.items()
    )
    return doc, registry, ops


def operation_for(method: str, path: str) -> Operation | None:
    """The subset's operation for ``method`` and the request ``path``; the most literal template wins."""
    hits = [op for op in subset()[2] if op.method == method and op.pattern.fullmatch(path)]
    return max(hits, key=lambda op: len(re.sub(r"\{\w+\}", "", op.template)), default=None)


@functools.cache
def _validator(pointer: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator({"$ref": f"{_URI}#{pointer}"}, registry=subset()[1])


def _errors(pointer: str, instance: object) -> list[str]:
    errors = sorted(_validator(pointer).iter_errors(instance), key=lambda e: list(map(str, e.absolute_path)))
    return [_describe(e) for e in errors]


def _describe(error: jsonschema.ValidationError) -> str:
    """``at /json/path: message``; for a failed ``oneOf``/``anyOf``, the closest branch's reason."""
    while error.context:  # a branch the value is not even the type of is the least relevant
        error = max(error.context, key=lambda e: (e.validator != "type", e.validator != "unevaluatedProperties"))
    return f"at /{'/'.join(map(str, error.absolute_path))}: {error.message[:300]}"


def _response_pointer(op: Operation, status: int) -> str | None:
    """Pointer to the schema of ``status``'s answer (None when there is none to check)."""
    responses = op.spec["responses"]
    if str(status) in responses:
        return f"{op.pointer}/responses/{status}/schema" if responses[str(status)]["schema"] else None
    return None if status < 400 else "/components/schemas/basic-error"


def exchange_problems(method: str, path: str, status: int, body: object) -> list[str]:
    """Faults of one exchange, each prefixed with ``METHOD path -> status``."""
    where = f"{method} {path} -> {status}"
    op = operation_for(method, path)
    if op is None:
        return [f"{where}: no such operation in GitHub's description"]
    out = []
    if status < 300 and str(status) not in op.spec["responses"]:
        out.append(f"{where}: status {status} is not documented for {op.spec['operationId']}")
    pointer = _response_pointer(op, status)
    if pointer and body is not None:
        out += [f"{where}: {op.spec['operationId']} answer {e}" for e in _errors(pointer, body)]
    return out


def problems(exchanges: Iterable) -> list[str]:
    """Faults of all ``exchanges`` (:class:`~tests.fakegithub.Exchange`), in order."""
    return [p for e in exchanges for p in exchange_problems(e.method, e.path, e.status, e.body)]
