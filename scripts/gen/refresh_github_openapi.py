"""Regenerate ``tests/github-openapi/subset.json``: GitHub's REST description cut to the operations kep-sync uses.

    .venv/bin/python scripts/gen/refresh_github_openapi.py [TARBALL] [--version V] [--out PATH]

TARBALL: the npm package ``@octokit/openapi`` (``npm pack @octokit/openapi@V``), which carries
``generated/api.github.com.json`` from github/rest-api-description (MIT). Without TARBALL the script
runs ``npm pack`` for ``--version`` (default: the version pinned in the committed subset) in a temporary
directory. Kept per operation in :data:`OPERATIONS`: ``operationId`` and the JSON schema of each
documented response status (``components/responses`` inlined); kept of the
components: the schemas those reach, transitively. Dropped from schemas: prose (``description``,
``example``, ...) and ``x-*`` extensions. Output is deterministic (sorted keys, one-space indent), with
the package version, tarball SHA-256 and license under ``x-source``. Prints the path, the operation and
schema counts and the size in bytes. Exit 1 when an operation or a ``$ref`` is missing from the source.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

PACKAGE = "@octokit/openapi"
MEMBER = "package/generated/api.github.com.json"
OUT = Path(__file__).resolve().parents[2] / "tests" / "github-openapi" / "subset.json"

#: (method, path template) of every request kep-sync sends (bot/publish/auth.py, bot/publish/github.py
#: through PyGithub) and every route tests/fakegithub/ serves.
OPERATIONS = (
    ("get", "/user"),
    ("post", "/app/installations/{installation_id}/access_tokens"),
    ("get", "/repos/{owner}/{repo}"),
    ("get", "/repos/{owner}/{repo}/installation"),
    ("get", "/repos/{owner}/{repo}/collaborators/{username}/permission"),
    ("get", "/repos/{owner}/{repo}/branches/{branch}"),
    ("get", "/repos/{owner}/{repo}/contents/{path}"),
    ("get", "/repos/{owner}/{repo}/commits"),
    ("get", "/repos/{owner}/{repo}/commits/{ref}"),
    ("get", "/repos/{owner}/{repo}/tarball/{ref}"),
    ("get", "/repos/{owner}/{repo}/compare/{basehead}"),
    ("post", "/repos/{owner}/{repo}/git/blobs"),
    ("get", "/repos/{owner}/{repo}/git/blobs/{file_sha}"),
    ("post", "/repos/{owner}/{repo}/git/trees"),
    ("get", "/repos/{owner}/{repo}/git/trees/{tree_sha}"),
    ("post", "/repos/{owner}/{repo}/git/commits"),
    ("get", "/repos/{owner}/{repo}/git/commits/{commit_sha}"),
    ("get", "/repos/{owner}/{repo}/git/ref/{ref}"),
    ("post", "/repos/{owner}/{repo}/git/refs"),
    ("patch", "/repos/{owner}/{repo}/git/refs/{ref}"),
    ("delete", "/repos/{owner}/{repo}/git/refs/{ref}"),
    ("get", "/repos/{owner}/{repo}/pulls"),
    ("post", "/repos/{owner}/{repo}/pulls"),
    ("get", "/repos/{owner}/{repo}/pulls/{pull_number}"),
    ("patch", "/repos/{owner}/{repo}/pulls/{pull_number}"),
    ("get", "/repos/{owner}/{repo}/pulls/{pull_number}/commits"),
    ("post", "/repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers"),
    ("get", "/repos/{owner}/{repo}/issues/{issue_number}"),
    ("patch", "/repos/{owner}/{repo}/issues/{issue_number}"),
    ("get", "/repos/{owner}/{repo}/issues/{issue_number}/comments"),
    ("post", "/repos/{owner}/{repo}/issues/{issue_number}/comments"),
    ("get", "/repos/{owner}/{repo}/issues/{issue_number}/labels"),
    ("post", "/repos/{owner}/{repo}/issues/{issue_number}/labels"),
    ("put", "/repos/{owner}/{repo}/issues/{issue_number}/labels"),
    ("delete", "/repos/{owner}/{repo}/issues/{issue_number}/labels/{name}"),
    ("post", "/repos/{owner}/{repo}/issues/{issue_number}/assignees"),
    ("put", "/repos/{owner}/{repo}/pulls/{pull_number}/merge"),
    ("get", "/repos/{owner}/{repo}/pulls/{pull_number}/reviews"),
    ("get", "/repos/{owner}/{repo}/commits/{ref}/status"),
    ("get", "/repos/{owner}/{repo}/commits/{ref}/check-runs"),
    ("get", "/repos/{owner}/{repo}/branches/{branch}/protection"),
    ("get", "/repos/{owner}/{repo}/issues"),
    ("post", "/repos/{owner}/{repo}/issues"),
)

_PROSE = {"description", "summary", "example", "examples", "externalDocs", "title"}
_SCHEMA_PREFIX = "#/components/schemas/"


class SourceError(Exception):
    """The package lacks an operation, a member or a referenced component."""


def slim(schema: object) -> object:
    """``schema`` without prose and ``x-*`` keys (property names are kept whatever they are)."""
    if isinstance(schema, list):
        return [slim(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key in _PROSE or key.startswith("x-"):
            continue
        if key == "properties":
            out[key] = {name: slim(sub) for name, sub in value.items()}
        else:
            out[key] = slim(value)
    return out


def refs(node: object) -> set[str]:
    """Names of the component schemas ``node`` refers to directly."""
    if isinstance(node, list):
        return set().union(*map(refs, node)) if node else set()
    if not isinstance(node, dict):
        return set()
    found = set().union(*map(refs, node.values())) if node else set()
    ref = node.get("$ref")
    if isinstance(ref, str):
        if not ref.startswith(_SCHEMA_PREFIX):
            raise SourceError(f"unexpected $ref {ref}")
        found.add(ref.removeprefix(_SCHEMA_PREFIX))
    return found


def _resolve(spec: dict, node: dict) -> dict:
    """``node`` or the ``components`` entry its ``$ref`` names (one level)."""
    ref = node.get("$ref")
    if not ref:
        return node
    kind, _, name = ref.removeprefix("#/components/").partition("/")
    try:
        return spec["components"][kind][name]
    except KeyError:
        raise SourceError(f"missing {ref}") from None


def _json_schema(spec: dict, holder: dict) -> dict | None:
    """The ``application/json`` schema of a response (None when it has none)."""
    content = _resolve(spec, holder).get("content") or {}
    media = content.get("application/json")
    return slim(media["schema"]) if media and "schema" in media else None


def operation(spec: dict, method: str, path: str) -> dict:
    """The kept part of one operation: ``operationId`` and ``responses`` {status: {"schema": schema | None}}."""
    try:
        op = spec["paths"][path][method]
    except KeyError:
        raise SourceError(f"{method.upper()} {path}: not in the description") from None
    return {
        "operationId": op["operationId"],
        "responses": {code: {"schema": _json_schema(spec, resp)} for code, resp in op["responses"].items()},
    }


def reachable(spec: dict, roots: set[str]) -> dict[str, object]:
    """The component schemas named in ``roots`` and all they refer to, slimmed."""
    schemas, todo, out = spec["components"]["schemas"], sorted(roots), {}
    while todo:
        name = todo.pop()
        if name in out:
            continue
        if name not in schemas:
            raise SourceError(f"missing {_SCHEMA_PREFIX}{name}")
        out[name] = slim(schemas[name])
        todo += sorted(refs(out[name]) - set(out))
    return out


def subset(spec: dict, source: dict) -> dict:
    """The subset document for :data:`OPERATIONS` of ``spec``; ``source`` goes under ``x-source``."""
    paths: dict[str, dict] = {}
    for method, path in OPERATIONS:
        paths.setdefault(path, {})[method] = operation(spec, method, path)
    return {
        "openapi": spec["openapi"],
        "info": {"title": "GitHub REST API: the operations kep-sync uses", "version": spec["info"]["version"]},
        "x-source": source,
        "paths": paths,
        "components": {"schemas": reachable(spec, refs(paths))},
    }


def read_tarball(tarball: Path) -> tuple[dict, dict]:
    """``(description, x-source)`` from an ``@octokit/openapi`` npm tarball."""
    data = tarball.read_bytes()
    with tarfile.open(tarball) as tar:

        def member(name: str) -> bytes:
            try:
                return tar.extractfile(name).read()
            except (KeyError, AttributeError):
                raise SourceError(f"{tarball}: no {name}") from None

        spec, package = json.loads(member(MEMBER)), json.loads(member("package/package.json"))
    source = {
        "package": f"{package['name']}@{package['version']}",
        "file": MEMBER.removeprefix("package/"),
        "tarball_sha256": hashlib.sha256(data).hexdigest(),
        "license": package.get("license", ""),
        "upstream": "https://github.com/github/rest-api-description",
    }
    return spec, source


def pinned_version() -> str:
    """The package version recorded in the committed subset (:data:`OUT`)."""
    return json.loads(OUT.read_text())["x-source"]["package"].rsplit("@", 1)[1]


def npm_pack(version: str, into: Path) -> Path:
    """Download ``@octokit/openapi@version`` with ``npm pack`` into ``into``; returns the tarball."""
    done = subprocess.run(
        ["npm", "pack", "--silent", f"{PACKAGE}@{version}"], cwd=into, check=True, capture_output=True, text=True
    )
    return into / done.stdout.strip().splitlines()[-1]


def render(doc: dict) -> str:
    return json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("tarball", nargs="?", type=Path, help="the @octokit/openapi npm tarball")
    parser.add_argument("--version", help="package version to npm pack (default: the pinned one)")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            tarball = args.tarball or npm_pack(args.version or pinned_version(), Path(tmp))
            doc = subset(*read_tarball(tarball))
    except (SourceError, OSError, subprocess.CalledProcessError, tarfile.TarError) as exc:
        print(f"refresh_github_openapi: {exc}", file=sys.stderr)
        return 1
    text = render(doc)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    print(
        f"{args.out}: {len(OPERATIONS)} operations, {len(doc['components']['schemas'])} schemas, "
        f"{len(text.encode())} bytes"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
