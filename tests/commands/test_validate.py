"""``kep-sync validate [--online]``: the settings, what can be checked on disk, and (online) what needs the
network (bot/commands/validate.py, bot/config/); errors on stderr with the ``kep-sync: error:`` prefix, exit 2."""

from __future__ import annotations

import json

import pytest
import structlog

from bot.cli.main import main
from bot.config import Config, load_config
from bot.plan.digest import BEGIN, END

try:
    from tests.servehelp import FakeApi
    from tests.sourcesutil import TARBALL_FILES, make_tarball
    from tests.syncutil import PAGE, PAGE_KEPS, write_keps
except ImportError:  # pragma: no cover
    from servehelp import FakeApi
    from sourcesutil import TARBALL_FILES, make_tarball
    from syncutil import PAGE, PAGE_KEPS, write_keps


@pytest.fixture(autouse=True)
def _reset_structlog():
    yield
    structlog.reset_defaults()


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("KEP_SYNC_CONFIG", raising=False)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.delenv("GITHUB_API_URL", raising=False)
    write_keps(tmp_path / "enh", *PAGE_KEPS)
    (tmp_path / "wiki").mkdir()
    (tmp_path / "wiki" / "m.md").write_bytes(PAGE.encode())
    return tmp_path


def validate(work, capsys, settings: dict, *args: str) -> tuple[int, list[str]]:
    (work / "c.yaml").write_text(json.dumps(settings))
    code = main(["validate", "--config", "c.yaml", *args])
    out, err = capsys.readouterr()
    assert out == ("ok\n" if code == 0 else "")
    return code, err.splitlines()


GOOD = {"enhancements": "enh", "wiki": {"dir": "wiki", "pages": ["m.md"]}}


def test_a_config_that_can_work_is_ok(work, capsys):
    assert validate(work, capsys, GOOD) == (0, [])


def test_missing_sources_wiki_and_pages_are_named_with_their_values(work, capsys):
    settings = {"enhancements": "no/such/dir", "wiki": {"dir": "wiki", "pages": ["m.md", "gone.md", "sub"]}}
    (work / "wiki" / "sub").mkdir()
    code, err = validate(work, capsys, settings)
    assert code == 2
    assert err == [
        "kep-sync: error: c.yaml: enhancements: 'no/such/dir': not a directory with keps/, a .tar.gz snapshot, "
        f"a git repository, a bundle, a URL or github:OWNER/REPO@REF (relative to {work})",
        "kep-sync: error: c.yaml: wiki.pages[1] 'gone.md': no such file (under the wiki directory 'wiki')",
        "kep-sync: error: c.yaml: wiki.pages[2] 'sub': not a file (under the wiki directory 'wiki')",
    ]
    code, err = validate(work, capsys, {**GOOD, "wiki": {"dir": "nowiki"}})
    assert (code, err) == (2, [f"kep-sync: error: c.yaml: wiki.dir 'nowiki': no such directory (relative to {work})"])


def test_pages_must_be_utf8_and_hold_a_kep_table(work, capsys):
    (work / "wiki" / "latin1.md").write_bytes("| KEP | Status |\n|---|---|\n| 1 | caf\xe9 |\n".encode("latin-1"))
    (work / "wiki" / "prose.md").write_text("# Notes\n\n| Name | Value |\n|---|---|\n| a | b |\n")
    code, err = validate(work, capsys, {**GOOD, "wiki": {"dir": "wiki", "pages": ["latin1.md", "m.md", "prose.md"]}})
    assert code == 2
    assert err == [
        "kep-sync: error: c.yaml: wiki.pages[0] 'latin1.md': not UTF-8 (invalid continuation byte at byte 36) "
        "(under the wiki directory 'wiki')",
        "kep-sync: error: c.yaml: wiki.pages[2] 'prose.md': no table with a KEP column (a header named 'KEP'); "
        # a page with no KEP matrix is most often a page to drop from wiki.pages: both fixes are named
        "its tables are headed 'Name | Value': if it holds no KEP matrix, remove it from wiki.pages; else add the "
        "KEP column's header to columns.kep (kep-sync init writes it) (under the wiki directory 'wiki')",
    ]


def test_pages_read_from_the_wiki_repository_are_not_looked_for_on_disk(work, capsys, monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_aGoodLookingToken0000000000000000")  # publish github needs one
    settings = {"enhancements": "enh", "publish": "github", "wiki": {"dir": "nowhere", "repo": "acme/wiki"}}
    assert validate(work, capsys, settings) == (0, [])
    assert validate(work, capsys, {**settings, "publish": "none"}) == (0, [])


def test_publish_git_needs_a_git_checkout(work, capsys):
    code, err = validate(work, capsys, {**GOOD, "publish": "git"})
    assert (code, err) == (
        2,
        [
            f"kep-sync: error: c.yaml: wiki.dir 'wiki': not a git checkout (relative to {work}); "
            "publish git commits in a clone of the wiki"
        ],
    )


def test_tarball_source_must_be_readable(work, capsys):
    (work / "snap.tar.gz").write_bytes(make_tarball(TARBALL_FILES))
    assert validate(work, capsys, {**GOOD, "enhancements": "snap.tar.gz"}) == (0, [])
    (work / "bad.tar.gz").write_bytes(b"not gzip")
    code, err = validate(work, capsys, {**GOOD, "enhancements": "bad.tar.gz"})
    assert code == 2 and err[0].startswith(
        "kep-sync: error: c.yaml: enhancements: bad.tar.gz: not a readable tar.gz archive ("
    )


def test_release_notes_directory_must_hold_release_notes_files(work, capsys):
    (work / "notes").mkdir()
    (work / "notes" / "README.md").write_text("x")
    code, err = validate(work, capsys, {**GOOD, "release_notes": {"source": "notes"}})
    assert (code, err) == (
        2,
        ["kep-sync: error: c.yaml: release_notes.source 'notes': the directory holds no release-notes-1.NN.json file"],
    )
    (work / "notes" / "release-notes-1.36.json").write_text("{}")
    assert validate(work, capsys, {**GOOD, "release_notes": {"source": "notes"}}) == (0, [])
    code, err = validate(work, capsys, {**GOOD, "release_notes": {"source": "nonotes"}})
    assert (code, err) == (
        2,
        [
            "kep-sync: error: c.yaml: release_notes.source: 'nonotes': not a directory of "
            "release-notes-1.NN.json files nor github:OWNER/REPO@REF"
        ],
    )


def test_links_enhancements_must_be_an_http_url(work, capsys):
    code, err = validate(work, capsys, {**GOOD, "links": {"enhancements": "github.com/kubernetes/enhancements"}})
    assert (code, err) == (
        2,
        [
            "kep-sync: error: c.yaml: links.enhancements: 'github.com/kubernetes/enhancements': "
            "expected an http(s) URL such as https://github.com/kubernetes/enhancements"
        ],
    )


def test_type_errors_name_the_key_with_indices_and_the_value_in_plain_words(work, capsys):
    settings = {
        "wiki": "examples/wiki",
        "columns": {"kep": "KEP"},
        "publish": "sometimes",
        "pull_request": {"draft": "maybe", "reviewers": ["ok", 7]},
        "schedule": {"cron": 5},
    }
    code, err = validate(work, capsys, settings)
    assert code == 2
    assert err == [
        "kep-sync: error: c.yaml: wiki: expected a mapping of settings (key: value lines), got 'examples/wiki'",
        "kep-sync: error: c.yaml: columns.kep: expected a list (one '- item' per line), got 'KEP'",
        "kep-sync: error: c.yaml: publish: 'sometimes' is not one of 'none', 'files', 'git' or 'github'",
        "kep-sync: error: c.yaml: pull_request.reviewers[1]: expected a text value, got 7",
        "kep-sync: error: c.yaml: pull_request.draft: expected true or false, got 'maybe'",
        "kep-sync: error: c.yaml: schedule.cron: expected a text value, got 5",
    ]  # plain words: no "Input should be a valid dictionary or instance of ..."


@pytest.mark.parametrize(
    ("written", "canonical"),
    [("utc", "UTC"), ("UTC", "UTC"), ("europe/berlin", "Europe/Berlin"), ("AMERICA/NEW_YORK", "America/New_York")],
)
def test_time_zone_names_match_iana_case_insensitively_and_are_written_canonically(written, canonical):
    assert Config.model_validate({"schedule": {"timezone": written}}).schedule.timezone == canonical


def test_unknown_time_zone_is_still_an_error(work, capsys):
    code, err = validate(work, capsys, {**GOOD, "schedule": {"timezone": "Mars/Olympus"}})
    assert (code, err) == (
        2,
        [
            "kep-sync: error: c.yaml: schedule.timezone: unknown time zone 'Mars/Olympus' "
            "(expected an IANA name such as UTC or Europe/Berlin)"
        ],
    )


def test_online_resolves_github_refs_and_the_wiki_repository(work, capsys, monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_aGoodLookingToken0000000000000000")  # publish github needs one
    with FakeApi() as api:
        settings = {
            "enhancements": "github:o/enh@main",
            "publish": "github",
            "github": {"api_url": api.url},
            "wiki": {"repo": "o/wiki", "base": "main"},
        }
        assert validate(work, capsys, settings) == (0, [])  # offline: only parsed
        assert api.requests == []
        code, err = validate(work, capsys, settings, "--online")
        assert code == 2
        assert err == [
            f"kep-sync: error: c.yaml: wiki.repo 'o/wiki@main': GET {api.url}/repos/o/wiki/commits/main: "
            "HTTP 404, could not resolve 'main' to a commit"
        ]
        assert [path for path, _ in api.requests] == ["/repos/o/enh/commits/main", "/repos/o/wiki/commits/main"]
        settings = {**GOOD, "enhancements": "github:o/enh@nope", "github": {"api_url": api.url}}
        code, err = validate(work, capsys, settings, "--online")
        assert err == [
            f"kep-sync: error: c.yaml: enhancements 'github:o/enh@nope': GET {api.url}/repos/o/enh/commits/"
            "nope: HTTP 404, could not resolve 'nope' to a commit"
        ]
        settings["enhancements"] = "github:o/enh@main"
        assert validate(work, capsys, settings, "--online") == (0, [])


def test_the_shipped_configs_validate(monkeypatch, capsys):
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    monkeypatch.chdir(root)
    for name in ("kep-sync.yaml", "demo.yaml"):
        assert main(["validate", "--config", f"config/{name}"]) == 0
        assert capsys.readouterr().out == "ok\n"
    assert load_config(root / "config" / "demo.yaml").publish == "none"


def test_numbers_are_asked_for_in_plain_words(work, capsys):
    code, err = validate(work, capsys, {**GOOD, "candidates": {"limit": "many"}, "provenance": {"max_requests": -1}})
    assert code == 2
    assert err == [
        "kep-sync: error: c.yaml: provenance.max_requests: expected greater than or equal to 0, got -1",
        "kep-sync: error: c.yaml: candidates.limit: expected a whole number, got 'many'",
    ]


def test_every_error_at_once_schema_cross_field_and_on_disk_checks_of_the_valid_sections(work, capsys):
    settings = {
        **GOOD,
        "publish": "files",
        "candidates": {"sigs": ["Sig Node"], "releases": 0, "add_to": {"page": "other.md", "table": "P0"}},
        "production_tables": ["No Such Heading"],
        "coverage": {"page": "missing.md"},
        "schedule": {"cron": "61 * * * *"},
    }
    code, err = validate(work, capsys, settings)
    assert code == 2
    assert err == [
        "kep-sync: error: c.yaml: schedule.cron: " + err[0].split("schedule.cron: ", 1)[1],
        "kep-sync: error: c.yaml: candidates.sigs: 'Sig Node' is not a SIG name (like sig-node or node)",
        "kep-sync: error: c.yaml: candidates.releases: expected greater than or equal to 1, got 0",
        "kep-sync: error: c.yaml: candidates.add_to.page: 'other.md' is not one of wiki.pages ('m.md')",
        "kep-sync: error: c.yaml: coverage.page 'missing.md': no such file (under the wiki directory 'wiki')",
        "kep-sync: error: c.yaml: production_tables 'No Such Heading': no KEP table under that heading on the pages",
    ]
    assert "61" in err[0]


def test_a_check_against_an_invalid_key_is_skipped_not_misjudged(work, capsys):
    # wiki.pages is invalid: add_to.page is not compared with the default pages, no page is looked for on disk
    settings = {
        **GOOD,
        "wiki": {"dir": "wiki", "pages": ["../m.md"]},
        "publish": "files",
        "candidates": {"add_to": {"page": "m.md", "table": "P0", "reasons": ["new"]}},
    }
    code, err = validate(work, capsys, settings)
    assert (code, err) == (
        2,
        ["kep-sync: error: c.yaml: wiki.pages: '../m.md' must be a path relative to the wiki, without '..'"],
    )


def test_candidates_sigs_any_case_and_a_sig_no_local_kep_yaml_has(work, capsys):
    assert Config.model_validate({"candidates": {"sigs": ["SIG-Node", " Scheduling"]}}).candidates.sigs == [
        "sig-node",
        "scheduling",
    ]
    code, err = validate(work, capsys, {**GOOD, "candidates": {"sigs": ["SIG-Scheduling", "nope"]}})
    assert (code, err) == (
        2,
        [
            "kep-sync: error: c.yaml: candidates.sigs[1] 'nope': no kep.yaml in 'enh' has "
            "owning-sig sig-nope (they name sig-scheduling)"
        ],
    )
    assert validate(work, capsys, {**GOOD, "candidates": {"sigs": ["scheduling"]}}) == (0, [])


@pytest.mark.parametrize("page", ["m.md", "./m.md"])
def test_a_digest_page_that_is_one_of_the_pages_needs_its_markers(work, capsys, page):
    # a matrix page may carry the digest section: validate asks it for the markers like any digest page
    digest = {"page": page, "sig": "node", "from": "v1.33", "to": "v1.35"}
    assert validate(work, capsys, {**GOOD, "digest": digest}) == (
        2,
        [
            f"kep-sync: error: c.yaml: digest.page {page!r}: no {BEGIN!r} ... {END!r} section outside code; digest not "
            "written, rows synced (under the wiki directory 'wiki')"
        ],
    )
    (work / "wiki" / "m.md").write_text(PAGE + f"\n{BEGIN}\nold\n{END}\n", encoding="utf-8")
    assert validate(work, capsys, {**GOOD, "digest": digest}) == (0, [])


def test_a_mistyped_page_names_the_closest_page(work, capsys):
    code, err = validate(work, capsys, {**GOOD, "wiki": {"dir": "wiki", "pages": ["mm.md"]}})
    assert (code, err) == (
        2,
        [
            "kep-sync: error: c.yaml: wiki.pages[0] 'mm.md': no such file (under the wiki "
            "directory 'wiki'); did you mean 'm.md'?"
        ],
    )


def test_a_mistyped_wiki_key_does_not_check_the_default_page_instead(work, capsys):
    code, err = validate(work, capsys, {**GOOD, "wiki": {"dir": "wiki", "page": "m.md"}})
    assert (code, err) == (2, ["kep-sync: error: c.yaml: wiki.page: unknown key (value 'm.md'); did you mean 'pages'?"])
    code, err = validate(work, capsys, {**GOOD, "wiki": {"dir": "nowiki", "page": "m.md"}})
    assert (code, err) == (
        2,
        [
            "kep-sync: error: c.yaml: wiki.page: unknown key (value 'm.md'); did you mean 'pages'?",
            f"kep-sync: error: c.yaml: wiki.dir 'nowiki': no such directory (relative to {work})",
        ],
    )
    code, err = validate(work, capsys, {**GOOD, "wiki": {"dir": "wiki", "pages": ["gone.md"], "pagge": 1}})
    assert err[1] == "kep-sync: error: c.yaml: wiki.pages[0] 'gone.md': no such file (under the wiki directory 'wiki')"
