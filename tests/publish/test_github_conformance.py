"""The conformance check of the fake GitHub (tests/github_conformance.py) and the script that pins its subset.

The check itself runs on every test that starts a FakeGitHub (tests/conftest.py); here it is shown to
fail where it must: a listed pull request with a field lists leave out, a missing or mistyped field,
an undocumented request or status.
"""

from __future__ import annotations

import copy
import io
import json
import re
import tarfile

import github
import httpx
import pytest

try:
    from tests import fakegithub
    from tests import github_conformance as conformance
    from tests.scriptutil import ROOT, load_script
except ImportError:  # pragma: no cover
    import fakegithub
    import github_conformance as conformance
    from scriptutil import ROOT, load_script

REPO = "acme/wiki"
PULLS = f"/repos/{REPO}/pulls"


@pytest.fixture
def answers(fake_github):
    """The fake's answers to ``GET /pulls`` (a list) and ``GET /pulls/1`` for one open pull request."""
    fake_github.seed_repo(REPO, {"page.md": "a\n"})
    fake_github.commit_files(REPO, "kep-sync", {"page.md": "b\n"})
    client = httpx.Client(base_url=fake_github.url, headers={"Authorization": "token t"})
    assert client.post(PULLS, json={"title": "Sync", "head": "kep-sync", "base": "main"}).status_code == 201
    client.post(f"/repos/{REPO}/pulls/1/requested_reviewers", json={"team_reviewers": ["sig-docs"]})
    client.post(f"/repos/{REPO}/issues/1/labels", json={"labels": ["kep-sync"]})
    return client.get(PULLS).json(), client.get(f"{PULLS}/1").json()


def test_the_fakes_pull_request_answers_conform(answers):
    listed, single = answers
    assert conformance.exchange_problems("GET", PULLS, 200, listed) == []
    assert conformance.exchange_problems("GET", f"{PULLS}/1", 200, single) == []
    assert sorted(set(single) - set(listed[0])) == [
        "additions",
        "changed_files",
        "comments",
        "commits",
        "deletions",
        "maintainer_can_modify",
        "mergeable",
        "mergeable_state",
        "merged",
        "merged_by",
        "review_comments",
    ]


def test_a_listed_pull_request_carrying_merged_fails(answers):
    listed = copy.deepcopy(answers[0])
    listed[0]["merged"] = False
    unexpected = "Unevaluated properties are not allowed ('merged' was unexpected)"
    assert conformance.exchange_problems("GET", PULLS, 200, listed) == [
        f"GET {PULLS} -> 200: pulls/list answer at /0: {unexpected}"
    ]


def test_a_single_pull_request_as_a_list_item_fails_on_every_extra_field(answers):
    extra, team = conformance.exchange_problems("GET", PULLS, 200, [answers[1]])
    assert re.findall(r"'(\w+)'", extra) == [
        "additions",
        "changed_files",
        "comments",
        "commits",
        "deletions",
        "maintainer_can_modify",
        "mergeable",
        "mergeable_state",
        "merged",
        "merged_by",
        "review_comments",
    ]
    # a listed pull request's requested teams are ``team`` (with ``parent``), a single one's ``team-simple``
    assert team == f"GET {PULLS} -> 200: pulls/list answer at /0/requested_teams/0: 'parent' is a required property"


def test_a_missing_or_mistyped_field_fails(answers):
    single = copy.deepcopy(answers[1])
    del single["node_id"]
    single["head"]["repo"]["id"] = "1001"
    single["labels"][0]["color"] = None
    assert conformance.exchange_problems("GET", f"{PULLS}/1", 200, single) == [
        f"GET {PULLS}/1 -> 200: pulls/get answer at /: 'node_id' is a required property",
        f"GET {PULLS}/1 -> 200: pulls/get answer at /head/repo/id: '1001' is not of type 'integer'",
        f"GET {PULLS}/1 -> 200: pulls/get answer at /labels/0/color: None is not of type 'string'",
    ]


def test_an_undocumented_request_or_status_fails():
    assert conformance.exchange_problems("GET", f"/repos/{REPO}/git/refs/heads/main", 200, None) == [
        f"GET /repos/{REPO}/git/refs/heads/main -> 200: no such operation in GitHub's description"
    ]
    assert conformance.exchange_problems("POST", PULLS, 200, None) == [
        f"POST {PULLS} -> 200: status 200 is not documented for pulls/create"
    ]
    assert conformance.exchange_problems("GET", PULLS, 404, {"message": 404}) == [
        f"GET {PULLS} -> 404: pulls/list answer at /message: 404 is not of type 'string'"
    ]


def test_a_field_lists_leave_out_costs_pygithub_a_request_per_listed_pull_request(fake_github, answers):
    client = github.Github(
        base_url=fake_github.url,
        auth=github.Auth.Token("t"),
        retry=None,
        lazy=True,
        seconds_between_requests=0,
        seconds_between_writes=0,
    )
    listed = client.get_repo(REPO).get_pulls(state="all").get_page(0)[0]
    before = len(fake_github.requests)
    assert (listed.state, listed.base.ref, listed.head.ref, listed.merged_at, listed.body) == (
        "open",
        "main",
        "kep-sync",
        None,
        None,
    )
    assert len(fake_github.requests) == before
    assert listed.merged is False
    assert fake_github.requests[before:] == [("GET", f"{PULLS}/1", 200)]


def test_request_paths_match_the_most_literal_template():
    match = conformance.operation_for
    assert match("GET", f"/repos/{REPO}/contents/docs/a b.md").spec["operationId"] == "repos/get-content"
    assert match("GET", f"/repos/{REPO}/pulls/1/commits").spec["operationId"] == "pulls/list-commits"
    assert match("DELETE", f"/repos/{REPO}/git/refs/heads/x/y").spec["operationId"] == "git/delete-ref"
    assert match("GET", f"/repos/{REPO}/pulls/1/files") is None


def test_every_route_the_fake_serves_is_a_documented_operation():
    sample = {"owner": "acme", "name": "wiki", "int:n": "7", "int:iid": "42"}
    undocumented = []
    # Not the REST API: the archive host and GraphQL (outside GitHub's REST description).
    rest = (r for r in fakegithub.ROUTES if not r[1].startswith(fakegithub.CODELOAD) and r[1] != fakegithub.GRAPHQL)
    for methods, rule, _ in rest:
        path = re.sub(r"<([^>]+)>", lambda m: sample.get(m[1], "a/b" if m[1].startswith("path:") else "x"), rule)
        undocumented += [f"{m} {rule}" for m in methods.split() if conformance.operation_for(m, path) is None]
    assert undocumented == []


def test_the_subset_names_its_source_and_license():
    doc = conformance.subset()[0]
    assert doc["x-source"]["package"] == "@octokit/openapi@23.0.2"
    assert doc["x-source"]["license"] == "MIT"
    assert "MIT" in (conformance.SUBSET.parent / "README.md").read_text()


# ------------------------------------------------------------------------- the refresh script
SPEC = {
    "openapi": "3.0.3",
    "info": {"version": "9.9.9", "title": "t"},
    "paths": {
        "/user": {
            "get": {
                "operationId": "users/get-authenticated",
                "summary": "s",
                "responses": {
                    "200": {
                        "description": "d",
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/a"}}},
                    },
                    "401": {"$ref": "#/components/responses/requires_authentication"},
                },
            }
        },
        "/other": {"get": {"operationId": "other", "responses": {"204": {"description": "d"}}}},
    },
    "components": {
        "schemas": {
            "a": {
                "type": "object",
                "description": "x",
                "x-github": {},
                "required": ["description"],
                "properties": {
                    "description": {"type": "string", "example": "e"},
                    "b": {"$ref": "#/components/schemas/b"},
                },
            },
            "b": {"type": "string", "nullable": True},
            "unused": {"type": "integer"},
            "basic-error": {"type": "object", "properties": {"message": {"type": "string"}}},
        },
        "responses": {
            "requires_authentication": {
                "description": "d",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/basic-error"}}},
            }
        },
    },
}


def _tarball(path, spec):
    with tarfile.open(path, "w:gz") as tar:
        for name, doc in (
            ("package/package.json", {"name": "@octokit/openapi", "version": "9.9.9", "license": "MIT"}),
            ("package/generated/api.github.com.json", spec),
        ):
            data = json.dumps(doc).encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def test_refresh_keeps_the_listed_operations_and_the_schemas_they_reach(tmp_path, monkeypatch, capsys):
    script = load_script(ROOT / "scripts" / "gen" / "refresh_github_openapi.py")
    monkeypatch.setattr(script, "OPERATIONS", (("get", "/user"),))
    tarball, out = _tarball(tmp_path / "p.tgz", SPEC), tmp_path / "subset.json"
    assert script.main([str(tarball), "--out", str(out)]) == 0
    first = out.read_bytes()
    assert capsys.readouterr().out == f"{out}: 1 operations, 3 schemas, {len(first)} bytes\n"
    assert script.main([str(tarball), "--out", str(out)]) == 0
    assert out.read_bytes() == first
    doc = json.loads(first)
    assert doc["paths"] == {
        "/user": {
            "get": {
                "operationId": "users/get-authenticated",
                "responses": {
                    "200": {"schema": {"$ref": "#/components/schemas/a"}},
                    "401": {"schema": {"$ref": "#/components/schemas/basic-error"}},
                },
            }
        }
    }
    assert doc["components"]["schemas"] == {
        "a": {
            "type": "object",
            "required": ["description"],
            "properties": {"description": {"type": "string"}, "b": {"$ref": "#/components/schemas/b"}},
        },
        "b": {"type": "string", "nullable": True},
        "basic-error": {"type": "object", "properties": {"message": {"type": "string"}}},
    }
    assert doc["x-source"]["package"] == "@octokit/openapi@9.9.9"


def test_refresh_fails_on_an_operation_missing_from_the_source(tmp_path, monkeypatch, capsys):
    script = load_script(ROOT / "scripts" / "gen" / "refresh_github_openapi.py")
    monkeypatch.setattr(script, "OPERATIONS", (("get", "/user"), ("post", "/user")))
    out = tmp_path / "subset.json"
    assert script.main([str(_tarball(tmp_path / "p.tgz", SPEC)), "--out", str(out)]) == 1
    assert capsys.readouterr().err == "refresh_github_openapi: POST /user: not in the description\n"
    assert not out.exists()
