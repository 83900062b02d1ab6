"""bot.configyaml: the config file's YAML read with bounded work and every key once. Pure: text in, values out."""

from __future__ import annotations

import pytest

from bot.configyaml import ConfigYamlError, load_config_yaml


def test_typed_values_as_the_safe_loader_builds_them():
    assert load_config_yaml("publish: none\ncandidates:\n  limit: 50\n") == {
        "publish": "none",
        "candidates": {"limit": 50},
    }
    assert load_config_yaml("") is None


def test_a_key_given_twice_is_an_error_naming_it_and_both_lines():
    with pytest.raises(ConfigYamlError) as info:
        load_config_yaml("publish: files\nwiki:\n  dir: a\n  pages: [x.md]\n  dir: b\npublish: none\n")
    assert (info.value.key, info.value.problem) == ("wiki.dir", "given twice (lines 3 and 5); keep one")


def test_a_merge_key_is_not_a_key_given_twice():
    text = "base: &b {dir: a}\nwiki:\n  <<: *b\n  dir: c\n"
    assert load_config_yaml(text) == {"base": {"dir": "a"}, "wiki": {"dir": "c"}}


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("release:\n  started: 2026-13-01\n", "release.started", "2026-13-01"),
        ("pull_request:\n  title: 2026-02-30\n", "pull_request.title", "2026-02-30"),
        ("ignore:\n- {kep: 1, value: 2026-01-01 25:00:00}\n", "ignore[0].value", "2026-01-01 25:00:00"),
    ],
)
def test_a_date_that_is_no_day_is_an_error_naming_its_key(text, key, value):
    with pytest.raises(ConfigYamlError) as info:
        load_config_yaml(text)
    assert (info.value.key, info.value.problem) == (
        key,
        f"{value!r} is written as a date but is no day of the calendar",
    )


def test_a_real_date_still_loads_as_the_safe_loader_builds_it():
    import datetime

    assert load_config_yaml("release: {started: 2026-04-22}\n") == {"release": {"started": datetime.date(2026, 4, 22)}}
