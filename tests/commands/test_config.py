"""bot/config/: the built-in defaults, one ``FILE: key: what is wrong`` line per invalid setting (every
section), unknown keys with a did-you-mean, wiki-relative page paths, and the environment variables that
stand in for a setting (``$KEP_SYNC_CACHE_DIR``, ``$GITHUB_API_URL``, ``$GITHUB_REPOSITORY`` under Actions)."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import pytest

from bot.config import (
    IgnoreRule,
    collect_config,
    error_key,
    find_config_path,
    load_config,
    shown,
    shown_key,
    validate_config,
)
from bot.errors import ConfigError

MATRIX = {"wiki": {"pages": ["m.md"]}}
DIGEST = {"page": "d.md", "sig": "node", "from": "v1.30", "to": "v1.31"}


@pytest.fixture(autouse=True)
def _no_config_variables(monkeypatch):
    """The variables a config falls back on are unset unless a test sets them."""
    for name in ("KEP_SYNC_CACHE_DIR", "GITHUB_API_URL", "KEP_SYNC_CONFIG"):
        monkeypatch.delenv(name, raising=False)


def errors(data: dict) -> list[str]:
    """The lines of the ConfigError that validating ``data`` as ``c.yaml`` raises."""
    with pytest.raises(ConfigError) as info:
        validate_config(data, "c.yaml")
    return str(info.value).splitlines()


# -- defaults ------------------------------------------------------------------------------------------


def test_no_config_file_gives_the_built_in_defaults():
    config = load_config(None)
    assert config.model_dump(exclude={"columns", "coverage"}) == {
        "enhancements": "github:kubernetes/enhancements@master",
        "cache_dir": "~/.cache/kep-sync",
        "wiki": {
            "dir": "examples/wiki",
            "pages": ["kubernetes-keps-implementation-matrix.md"],
            "repo": None,
            "base": None,
        },
        "feature_gates": "report",
        "front_matter": {"date_key": None},
        "links": {"enhancements": "https://github.com/kubernetes/enhancements"},
        "publish": "none",
        "github": {"api_url": "https://api.github.com"},
        "pull_request": {
            "branch": "kep-sync/matrix",
            "title": None,
            "labels": [],
            "reviewers": [],
            "team_reviewers": [],
            "assignees": [],
            "draft": False,
            "automerge": {
                "enabled": False,
                "kinds": ["retargeted", "status", "promoted"],
                "confirmed": ["promoted", "demoted", "stage"],
                "method": "repository",
            },
        },
        "schedule": {"cron": "0 6 * * *", "timezone": "UTC"},
        "release_notes": {"source": "", "review": "page"},
        "gate_lifecycle": {"source": "", "promote_when": "always", "column": False},
        "audit": {"cron": ""},
        "provenance": {"enabled": True, "max_requests": 30},
        "release": {"current": "", "started": "", "watch": False, "sig_release": "", "today": ""},
        "renames": "report",
        "ignore": [],
        "digest": {"page": None, "sig": "", "first": "", "last": ""},
        "candidates": {"sigs": [], "releases": 1, "limit": 10, "ignore": [], "add_to": None},
        "production_tables": [],
        "dashboard": False,
    }
    assert (config.targets, config.targets_from, config.coverage.page) == ([], "", None)


def test_default_column_headers_and_the_shipped_column_only_when_owned():
    config = load_config(None)
    assert config.aliases() == {
        "kep": ("KEP",),
        "status": ("状态", "Status"),
        "stage": ("Stage",),
        "milestones": ("Alpha / Beta / GA", "Alpha / Beta / Stable"),
        "alpha": ("Alpha",),
        "beta": ("Beta",),
        "stable": ("GA", "Stable"),
        "feature_gates": ("Feature gate", "Feature gates"),
    }
    assert config.shipped_column() is False
    owned = validate_config({"gate_lifecycle": {"source": "gates/", "column": True}}, "c.yaml")
    assert (owned.shipped_column(), owned.aliases()["shipped"]) == (True, ("Shipped",))
    no_source = validate_config({"gate_lifecycle": {"column": True}}, "c.yaml")
    assert (no_source.shipped_column(), "shipped" in no_source.aliases()) == (False, False)
    assert config.coverage.columns.model_dump() == {
        "group": ["设计组", "Design group", "Group"],
        "keps": ["代表 KEP", "Representative KEPs", "Representative KEP", "KEPs"],
    }


def test_add_to_reasons_default_to_group_with_a_coverage_page_else_new():
    add_to = {"page": "m.md", "table": "T"}
    assert validate_config({**MATRIX, "candidates": {"add_to": add_to}}, "c.yaml").add_reasons() == ["new"]
    assert validate_config(
        {**MATRIX, "candidates": {"add_to": add_to}, "coverage": {"page": "g.md"}}, "c.yaml"
    ).add_reasons() == ["group"]
    assert validate_config(
        {**MATRIX, "candidates": {"add_to": {**add_to, "reasons": ["gate", "new"]}}}, "c.yaml"
    ).add_reasons() == ["gate", "new"]
    assert validate_config({**MATRIX, "candidates": {"add_to": add_to}}, "c.yaml").candidates.add_to.count == 5


def test_values_are_normalised_where_the_field_has_one_spelling():
    config = validate_config(
        {
            "candidates": {"sigs": [" SIG-Node ", "apps"]},
            "digest": {"sig": "Node"},
            "links": {"enhancements": "https://user:tok@example.com/enh"},
            "ignore": [{"kep": 5, "fields": [" Stage "]}],
        },
        "c.yaml",
    )
    assert config.candidates.sigs == ["sig-node", "apps"]
    assert config.digest.sig == "sig-node"
    assert config.links.enhancements == "https://example.com/enh"  # published in pull requests: no user-info
    assert config.ignore == [IgnoreRule(kep=5, fields=["stage"], value="")]


def test_an_ignore_rule_matches_its_kep_fields_and_value():
    rule = IgnoreRule(kep=5, fields=["feature_gates"], value=" v1.36 ")
    assert [
        rule.matches(5, "feature_gates", "1.36"),
        rule.matches(5, "feature_gates", "v1.37"),
        rule.matches(5, "stage", "v1.36"),
        rule.matches(6, "feature_gates", "v1.36"),
    ] == [True, False, False, False]
    assert IgnoreRule(kep=5).matches(5, "stage", "beta") is True


def test_a_target_keeps_only_the_sections_it_sets():
    config = validate_config(
        {"targets": [{"name": "a", "wiki": {"repo": "o/a"}, "digest": {"from": "v1.30"}}]}, "c.yaml"
    )
    assert config.targets[0].settings() == {"wiki": {"repo": "o/a"}, "digest": {"from": "v1.30"}}
    assert "targets" not in config.model_dump()  # a config without targets fingerprints as it always did


# -- one error line per invalid setting, naming the key --------------------------------------------------


@pytest.mark.parametrize(
    ("data", "line"),
    [
        ({"wiki": "w"}, "wiki: expected a mapping of settings (key: value lines), got 'w'"),
        ({"wiki": {"pages": []}}, "wiki.pages: must not be empty"),
        ({"wiki": {"pages": "m.md"}}, "wiki.pages: expected a list (one '- item' per line), got 'm.md'"),
        ({"wiki": {"repo": "nope"}}, "wiki.repo: 'nope': expected OWNER/NAME of a GitHub repository"),
        ({"enhancements": ""}, "enhancements: must not be empty"),
        ({"columns": {"kep": []}}, "columns.kep: must not be empty"),
        ({"feature_gates": "own"}, "feature_gates: 'own' is not one of 'report' or 'owned'"),
        ({"front_matter": {"date_key": 3}}, "front_matter.date_key: expected a text value, got 3"),
        (
            {"links": {"enhancements": "ftp://u:p@h/x"}},
            "links.enhancements: 'ftp://***@h/x': expected an http(s) URL such as https://github.com/kubernetes/enhancements",
        ),
        (
            {"links": {"enhancements": "https://github.com/kubernetes/enhancements?access_token=s3cr3tT0ken"}},
            "links.enhancements: 'https://github.com/kubernetes/enhancements?access_token=***': takes no ?query or "
            "#fragment: paths are appended to it (a token goes in $GITHUB_TOKEN)",
        ),
        (
            {"github": {"api_url": "https://ghe.example/api/v3#x"}},
            "github.api_url: 'https://ghe.example/api/v3#x': takes no ?query or #fragment: paths are appended to it "
            "(a token goes in $GITHUB_TOKEN)",
        ),
        ({"publish": "ftp"}, "publish: 'ftp' is not one of 'none', 'files', 'git' or 'github'"),
        (
            {"github": {"api_url": "not a url"}},
            "github.api_url: 'not a url': expected an http(s) URL such as https://api.github.com or https://HOST/api/v3",
        ),
        ({"pull_request": {"labels": ["ok", " "]}}, "pull_request.labels: a label must not be empty"),
        (
            {"pull_request": {"branch": "bad..name"}},
            "pull_request.branch: 'bad..name' is not a valid git branch name: must not contain '..'",
        ),
        ({"pull_request": {"draft": "maybe"}}, "pull_request.draft: expected true or false, got 'maybe'"),
        (
            {"schedule": {"cron": "every day"}},
            (
                "schedule.cron: 'every day': expected 5 fields (minute hour day-of-month "
                "month day-of-week) or a macro such as @daily, got 2 field(s)"
            ),
        ),
        (
            {"schedule": {"timezone": "Mars/Base"}},
            "schedule.timezone: unknown time zone 'Mars/Base' (expected an IANA name such as UTC or Europe/Berlin)",
        ),
        (
            {"audit": {"cron": "* *"}},
            (
                "audit.cron: '* *': expected 5 fields (minute hour day-of-month month "
                "day-of-week) or a macro such as @daily, got 2 field(s)"
            ),
        ),
        ({"release_notes": {"review": "some"}}, "release_notes.review: 'some' is not one of 'page' or 'all'"),
        (
            {"gate_lifecycle": {"promote_when": "released"}},
            (
                "gate_lifecycle.promote_when: released needs gate_lifecycle.source (the gate lists tell which releases "
                "shipped), got 'released'"
            ),
        ),
        ({"provenance": {"max_requests": -1}}, "provenance.max_requests: expected greater than or equal to 0, got -1"),
        ({"renames": "yes"}, "renames: 'yes' is not one of 'report', 'apply' or 'owned-cells'"),
        (
            {"release": {"started": datetime.datetime(2026, 5, 10)}},  # YAML's reading of 2026-05-10 00:00:00
            "release.started: '2026-05-10 00:00:00' is a time, not a day: write the day alone, YYYY-MM-DD",
        ),
        (
            {"release": {"started": datetime.datetime(2026, 4, 22, 10, tzinfo=datetime.UTC)}},
            "release.started: '2026-04-22 10:00:00+00:00' is a time, not a day: write the day alone, YYYY-MM-DD",
        ),
        (
            {"release": {"started": "2026-05-10T00:00:00"}},
            "release.started: '2026-05-10T00:00:00' is not a day written YYYY-MM-DD",
        ),
        ({"release": {"started": "2026-4-2"}}, "release.started: '2026-4-2' is not a day written YYYY-MM-DD"),
        (
            {"ignore": [{"kep": 5, "fields": ["colour"]}]},
            (
                "ignore[0].fields: 'colour' is not a field kep-sync writes "
                "(status, stage, alpha, beta, stable, feature_gates, shipped)"
            ),
        ),
        (
            {"digest": {"page": "d.md"}},
            "digest: digest.page needs digest.sig, digest.from and digest.to, got {'page': 'd.md'}",
        ),
        (
            {"digest": {"sig": "node", "from": "v1.30", "to": "v1.20"}},
            "digest.to: the range starts after it ends (v1.30 > v1.20)",
        ),
        (
            {"candidates": {"sigs": ["node", "not a sig"]}},
            "candidates.sigs: 'not a sig' is not a SIG name (like sig-node or node)",
        ),
        ({"candidates": {"limit": "ten"}}, "candidates.limit: expected a whole number, got 'ten'"),
        ({"candidates": {"limit": 1.5}}, "candidates.limit: expected a whole number, got 1.5"),
        (
            {**MATRIX, "candidates": {"add_to": {"page": "m.md", "table": "T", "reasons": ["why"]}}},
            "candidates.add_to.reasons[0]: 'why' is not one of 'group', 'new', 'active', 'gate' or 'targets'",
        ),
        (
            {**MATRIX, "candidates": {"add_to": {"page": "other.md", "table": "T"}}},
            "candidates.add_to.page: 'other.md' is not one of wiki.pages ('m.md')",
        ),
        (
            {"production_tables": ["## "]},
            "production_tables: a table is named by the text of the heading above it; got an empty heading",
        ),
        (
            {"targets": [{"name": "Bad Name"}]},
            "targets[0].name: 'Bad Name': expected a target name: lower-case letters, digits, '.', '_' and '-', at most 63",
        ),
        (
            {"targets": [{"name": "a"}, {"name": "a"}]},
            "targets[1].name: 'a' is also the name of targets[0]; target names must be unique",
        ),
    ],
    ids=lambda value: "" if isinstance(value, str) else next(iter(value.keys() - MATRIX.keys()), "wiki"),
)
def test_each_invalid_setting_is_one_line_naming_the_file_and_key(data, line):
    assert errors(data) == [f"c.yaml: {line}"]


@pytest.mark.parametrize(
    ("data", "line"),
    [
        (
            {**MATRIX, "coverage": {"page": "./m.md"}},
            (
                "coverage.page: './m.md' is also in wiki.pages; the coverage page is read-only for kep-sync, name a page "
                "that is not synced"
            ),
        ),
        (
            {**MATRIX, "coverage": {"page": "d.md"}, "digest": DIGEST},
            (
                "coverage.page: 'd.md' is also digest.page; the coverage page is read-only for kep-sync and the digest page "
                "is written, so they must be different files: name another page"
            ),
        ),
        (
            {**MATRIX, "candidates": {"add_to": {"page": "m.md", "table": "T", "reasons": ["group"]}}},
            (
                "coverage.page: candidates.add_to adds only KEPs a design group lists (reasons: [group]), so it needs "
                "coverage.page; set it, or add other reasons"
            ),
        ),
        ({"publish": "github"}, "wiki.repo: required when publish is github (OWNER/NAME of the wiki repository)"),
    ],
)
def test_a_check_across_sections_names_the_key_to_change(data, line):
    assert errors(data) == [f"c.yaml: {line}"]


def test_every_error_is_reported_at_once_and_valid_keys_still_load():
    assert errors({"publish": "ftp", "wiki": {"pages": []}, "candidates": {"limit": -1}}) == [
        "c.yaml: wiki.pages: must not be empty",
        "c.yaml: publish: 'ftp' is not one of 'none', 'files', 'git' or 'github'",
        "c.yaml: candidates.limit: expected greater than or equal to 0, got -1",
    ]
    checked = collect_config({"publish": "ftp", "renames": "apply"}, "c.yaml")
    assert (checked.errors, checked.dropped) == (
        ["c.yaml: publish: 'ftp' is not one of 'none', 'files', 'git' or 'github'"],
        frozenset({"publish"}),
    )
    assert (checked.config.publish, checked.config.renames) == ("none", "apply")


def test_a_check_against_an_invalid_key_is_skipped_not_misreported():
    # wiki.pages is invalid, so add_to.page cannot be compared with it: one error, about wiki.pages
    assert errors({"wiki": {"pages": []}, "candidates": {"add_to": {"page": "m.md", "table": "T"}}}) == [
        "c.yaml: wiki.pages: must not be empty"
    ]


def test_long_values_and_odd_keys_are_shown_bounded_and_escaped():
    assert errors({"wiki": {"repo": "x" * 200}}) == [
        f"c.yaml: wiki.repo: '{'x' * 79}…: expected OWNER/NAME of a GitHub repository"
    ]
    assert errors({1: "x"}) == ["c.yaml: (top level): the key 1 is not a name (setting names are text)"]
    assert (shown("x" * 100), shown(list(range(100))), shown_key("a\x1bb"), shown_key("k" * 90)) == (
        f"'{'x' * 79}…",
        "[0, 1, 2, 3, 4, 5, ...]",
        "a\\x1bb",
        "k" * 80 + "…",
    )
    assert (error_key(("wiki", "pages", 0)), error_key(("targets", 1, "name")), error_key(())) == (
        "wiki.pages[0]",
        "targets[1].name",
        "(top level)",
    )


# -- unknown keys ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "line"),
    [
        ({"publsh": "none"}, "publsh: unknown key (value 'none'); did you mean 'publish'?"),
        ({"wiki": {"pagse": ["m.md"]}}, "wiki.pagse: unknown key (value ['m.md']); did you mean 'pages'?"),
        ({"wiki": {"Dir": "w"}}, "wiki.Dir: unknown key (value 'w'); did you mean 'dir'?"),
        ({"digest": {"form": "v1.30"}}, "digest.form: unknown key (value 'v1.30'); did you mean 'from'?"),
        (
            {"candidates": {"add_to": {"page": "m.md", "table": "T", "cout": 3}}, **MATRIX},
            "candidates.add_to.cout: unknown key (value 3); did you mean 'count'?",
        ),
        ({"wi\x1bki": 1}, "wi\\x1bki: unknown key (value 1); did you mean 'wiki'?"),
        ({"zzzqqq": 1}, "zzzqqq: unknown key (value 1)"),
    ],
)
def test_an_unknown_key_is_named_with_the_closest_known_one(data, line):
    assert errors(data) == [f"c.yaml: {line}"]


# -- page paths are relative to the wiki -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "line"),
    [
        (
            {"wiki": {"pages": ["/etc/m.md"]}},
            "wiki.pages: '/etc/m.md' must be a path relative to the wiki, without '..'",
        ),
        (
            {"wiki": {"pages": ["a/../../m.md"]}},
            "wiki.pages: 'a/../../m.md' must be a path relative to the wiki, without '..'",
        ),
        (
            {**MATRIX, "candidates": {"add_to": {"page": "../m.md", "table": "T"}}},
            "candidates.add_to.page: '../m.md' must be a path relative to the wiki, without '..'",
        ),
        (
            {**MATRIX, "candidates": {"add_to": {"page": " ", "table": "T"}}},
            "candidates.add_to.page: ' ' must be a path relative to the wiki, without '..'",
        ),
        ({"coverage": {"page": "/g.md"}}, "coverage.page: '/g.md' must be a path relative to the wiki, without '..'"),
        (
            {"digest": {**DIGEST, "page": "../d.md"}},
            "digest.page: '../d.md' must be a path relative to the wiki, without '..'",
        ),
    ],
)
def test_a_page_outside_the_wiki_is_refused(data, line):
    assert errors(data) == [f"c.yaml: {line}"]


def test_pages_are_kept_as_written_and_compared_normalised():
    config = validate_config(
        {
            "wiki": {"dir": "../wiki", "pages": ["m.md", "./n.md"]},
            "coverage": {"page": "g.md"},
            "digest": {**DIGEST, "page": "./m.md"},
            "candidates": {"add_to": {"page": "./n.md", "table": "T"}},
        },
        "c.yaml",
    )
    assert (config.wiki.dir, config.wiki.pages, config.candidates.add_to.page) == (
        "../wiki",
        ["m.md", "./n.md"],
        "./n.md",
    )
    assert config.pages_to_read() == ["m.md", "./n.md", "g.md"]  # the digest page is m.md: read once
    assert validate_config({**MATRIX, "digest": DIGEST}, "c.yaml").pages_to_read() == ["m.md", "d.md"]


# -- the config file ---------------------------------------------------------------------------------------


def test_a_file_is_read_and_its_problems_name_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    files = {
        "ok.yaml": "publish: files\nwiki:\n  dir: wiki\n  pages: [m.md]\n",
        "empty.yaml": "",
        "dup.yaml": "wiki:\n  dir: a\n  dir: b\n",
        "bad.yaml": "wiki: [\n",
        "list.yaml": "- a\n",
        "latin1.yaml": "publish: caf\xe9\n",
        "key.yaml": "wiki:\n  pagse: [m.md]\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_bytes(text.encode("latin-1"))
    config = load_config(Path("ok.yaml"))
    assert (config.publish, config.wiki.dir, config.wiki.pages) == ("files", "wiki", ["m.md"])
    assert load_config(Path("empty.yaml")) == load_config(None)
    problems = {}
    for name in ("dup.yaml", "bad.yaml", "list.yaml", "key.yaml", "missing.yaml"):
        with pytest.raises(ConfigError) as info:
            load_config(Path(name))
        problems[name] = str(info.value)
    assert problems == {
        "dup.yaml": "dup.yaml: wiki.dir: given twice (lines 2 and 3); keep one",
        "bad.yaml": "bad.yaml: line 2: not valid YAML: expected the node content, but found '<stream end>'",
        "list.yaml": "list.yaml: (top level): expected a mapping of settings",
        "key.yaml": "key.yaml: wiki.pagse: unknown key (value ['m.md']); did you mean 'pages'?",
        "missing.yaml": f"missing.yaml: no such config file (relative to {tmp_path})",
    }
    with pytest.raises(ConfigError) as info:
        load_config(Path("latin1.yaml"))
    assert str(info.value).startswith("latin1.yaml: cannot read: 'utf-8' codec can't decode byte 0xe9")


def test_the_file_is_found_from_the_option_then_the_variable_then_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert (find_config_path(None), find_config_path("x.yaml")) == (None, Path("x.yaml"))
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "kep-sync.yaml").write_text("publish: none\n")
    assert find_config_path(None) == Path("config/kep-sync.yaml")
    monkeypatch.setenv("KEP_SYNC_CONFIG", "k.yaml")
    assert (find_config_path(None), find_config_path("x.yaml")) == (Path("k.yaml"), Path("x.yaml"))


# -- environment variables ---------------------------------------------------------------------------------


def test_the_cache_dir_comes_from_the_file_then_the_variable_then_the_default(monkeypatch):
    assert load_config(None).cache_dir == "~/.cache/kep-sync"
    monkeypatch.setenv("KEP_SYNC_CACHE_DIR", "/var/cache/k")
    assert load_config(None).cache_dir == "/var/cache/k"
    assert validate_config({"cache_dir": "c2"}, "c.yaml").cache_dir == "c2"


def test_the_github_api_url_comes_from_the_file_then_the_variable_then_the_default(monkeypatch):
    monkeypatch.setenv("GITHUB_API_URL", "https://ghe.example/api/v3")
    assert load_config(None).github.api_url == "https://ghe.example/api/v3"
    assert validate_config({"github": {"api_url": "https://h/api/v3"}}, "c.yaml").github.api_url == "https://h/api/v3"
    monkeypatch.setenv("GITHUB_API_URL", "ftp://x")
    with pytest.raises(ConfigError) as info:
        load_config(None)
    assert str(info.value) == (
        "environment: github.api_url: 'ftp://x' (from $GITHUB_API_URL): expected an http(s) "
        "URL such as https://api.github.com or https://HOST/api/v3"
    )
    assert validate_config({"github": {"api_url": "https://h"}}, "c.yaml").github.api_url == "https://h"


def test_under_github_actions_the_wiki_repo_defaults_to_the_workflows_repository(monkeypatch):
    monkeypatch.setenv("GITHUB_REPOSITORY", "o/w")
    assert load_config(None).wiki.repo is None  # not under Actions
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    assert load_config(None).wiki.repo == "o/w"
    assert validate_config({"wiki": {"repo": "o/other"}}, "c.yaml").wiki.repo == "o/other"
    assert validate_config({"publish": "github"}, "c.yaml").wiki.repo == "o/w"


@pytest.mark.parametrize(
    "section",
    [
        {"github": {"token": "0123456789abcdef0123456789abcdef01234567"}},
        {"pull_request": {"api_key": "0123456789abcdef0123456789abcdef01234567"}},
    ],
)
def test_an_unknown_key_that_may_hold_a_credential_never_echoes_its_value(tmp_path, section):
    path = tmp_path / "c.yaml"
    path.write_text(json.dumps(section))
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert "0123456789abcdef" not in str(caught.value)
    assert "unknown key (its value is not shown: credentials come from the environment)" in str(caught.value)


def test_a_path_is_credited_only_to_the_config_being_read(tmp_path, monkeypatch):
    from bot.config.load import read_config_data
    from bot.errors import written_in

    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "k.yaml").write_text("wiki:\n  dir: ../wiki\n")
    monkeypatch.chdir(tmp_path)
    assert read_config_data(Path("conf/k.yaml"))["wiki"]["dir"] == "wiki"
    assert written_in("wiki") == "written '../wiki' in conf/k.yaml, read from that file's directory conf"
    assert read_config_data(None) == {}  # the next run reads no file: its default 'wiki' is nobody's writing
    assert written_in("wiki") == ""


def test_a_day_is_kept_as_written_yyyy_mm_dd_whether_yaml_read_it_as_a_date_or_text():
    assert validate_config({"release": {"started": datetime.date(2026, 5, 10)}}, "c.yaml").release.started == (
        "2026-05-10"
    )
    assert validate_config({"release": {"started": "2026-05-10"}}, "c.yaml").release.started == "2026-05-10"


def test_a_time_written_for_a_day_in_the_file_is_refused_naming_the_key(tmp_path):
    (tmp_path / "c.yaml").write_text("release:\n  current: v1.37\n  started: 2026-05-10 00:00:00\n")
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path / "c.yaml")
    assert str(info.value).splitlines() == [
        f"{tmp_path / 'c.yaml'}: release.started: '2026-05-10 00:00:00' is a time, not a day: write the day alone, "
        "YYYY-MM-DD"
    ]
