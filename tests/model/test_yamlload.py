"""The string-only YAML loader: merge keys (YAML 1.1 merge type) and keys given twice (bot/model/yamlload.py)."""

from __future__ import annotations

import pytest
import yaml

from bot.model.yamlload import Duplicate, TooLarge, _Loader, load, merged_pairs


def test_merge_key_pulls_the_anchor_in_as_strings():
    doc, dups = load("defaults: &ms\n  alpha: v1.33\nmilestone:\n  <<: *ms\n  beta: v1.35\n")
    assert doc == {"defaults": {"alpha": "v1.33"}, "milestone": {"alpha": "v1.33", "beta": "v1.35"}}
    assert dups == []


def test_own_keys_win_over_merged_ones_and_that_is_no_duplicate():
    doc, dups = load("d: &d {alpha: v1.33, beta: v1.34}\nmilestone:\n  alpha: v1.30\n  <<: *d\n")
    assert doc["milestone"] == {"beta": "v1.34", "alpha": "v1.30"}
    assert dups == []


def test_a_list_of_mappings_merges_with_earlier_sources_winning():
    doc, _ = load("a: &a {alpha: v1.1}\nb: &b {alpha: v1.2, beta: v1.3}\nm:\n  <<: [*a, *b]\n  stable: v1.4\n")
    assert doc["m"] == {"alpha": "v1.1", "beta": "v1.3", "stable": "v1.4"}


def test_merges_nest_and_work_at_the_top_level_too():
    doc, _ = load("base: &base {status: implemented}\nmid: &mid\n  <<: *base\n  stage: stable\n<<: *mid\ntitle: x\n")
    assert (doc["status"], doc["stage"], doc["title"]) == ("implemented", "stable", "x")


@pytest.mark.parametrize(
    "text, expected",
    [
        ('m:\n  "<<": x\n', {"m": {"<<": "x"}}),  # a quoted key is a plain string
        ("m:\n  '<<': x\n", {"m": {"<<": "x"}}),
        ("m:\n  a: !!str 1\n  b: !!int 2\n", {"m": {"a": "1", "b": "2"}}),  # tags change nothing: all strings
    ],
)
def test_quoted_merge_keys_and_tags_are_plain_values(text, expected):
    assert load(text) == (expected, [])


@pytest.mark.parametrize(
    "text, line, problem",
    [
        ("x: 1\nm:\n  <<: v1.33\n", 3, "expected a mapping or a list of mappings to merge, found a scalar"),
        ("a: &a {x: 1}\nm:\n  <<: [*a, v1]\n", 3, "expected a mapping or a list of mappings to merge, found a scalar"),
        ("m: &m\n  <<: *m\n  a: 1\n", 1, "the merge includes the mapping itself"),
    ],
)
def test_a_merge_that_cannot_be_applied_is_an_error_with_its_line(text, line, problem):
    with pytest.raises(yaml.YAMLError) as info:
        load(text)
    assert (info.value.problem, info.value.problem_mark.line + 1) == (problem, line)


def test_keys_given_twice_are_found_with_both_lines_and_a_dotted_path():
    text = (
        "status: implementable\nmilestone:\n  alpha: v1.30\n  alpha: v1.31\nfeature-gates:\n"
        "  - name: A\n    name: B\nstatus: implemented\n"
    )
    doc, dups = load(text)
    assert doc["status"] == "implemented"  # the loader still reads the last; the caller decides
    assert dups == [
        Duplicate("milestone.alpha", 3, 4),
        Duplicate("feature-gates[0].name", 6, 7),
        Duplicate("status", 1, 8),
    ]


def test_a_key_given_twice_in_a_merged_anchor_shows_under_every_path_that_uses_it():
    doc, dups = load("d: &d\n  alpha: v1\n  alpha: v2\nmilestone:\n  <<: *d\n")
    assert doc == {"d": {"alpha": "v2"}, "milestone": {"alpha": "v2"}}
    assert dups == [Duplicate("d.alpha", 2, 3), Duplicate("milestone.alpha", 2, 3)]


def test_an_alias_bomb_is_refused_within_a_bound():
    lines = ["a: &a [x, x, x, x, x, x, x, x, x]"]
    lines += [
        f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]"
        for p, c in zip("abcdefg", "bcdefgh", strict=False)
    ]
    with pytest.raises(TooLarge) as info:  # stopping quietly would miss a key given twice further on
        load("\n".join(lines) + "\n")
    assert info.value.problem == "aliases expand to more than 20,000 mappings and sequences (an alias bomb?)"


#: 25 anchors, each merging the previous one 8 times: 8**25 merges without a memo (the file is 1.6 KB).
MERGE_BOMB = "a0: &a0 {x: '1'}\n" + "".join(
    f"a{i}: &a{i} {{<<: [{', '.join([f'*a{i - 1}'] * 8)}]}}\n" for i in range(1, 25)
)


def test_a_merge_key_bomb_is_merged_once_per_mapping():
    node = yaml.compose(MERGE_BOMB, Loader=_Loader)
    top = merged_pairs(node.value[-1][1])
    assert [(k.value, v.value) for k, v in top] == [("x", "1")]
    with pytest.raises(TooLarge):  # the walk for keys given twice still meets every path: refused, fast
        load(MERGE_BOMB + "status: implementable\n", keys={"status"})


def test_merges_that_copy_too_many_keys_are_refused():
    anchor = "a: &a {" + ", ".join(f"k{i}: v" for i in range(400)) + "}\n"
    users = "".join(f"u{i}: {{<<: *a}}\n" for i in range(60))  # 60 x 400 = 24,000 keys copied
    with pytest.raises(TooLarge) as info:
        load(anchor + users)
    assert info.value.problem == "merge keys expand to more than 20,000 keys (an alias bomb?)"


@pytest.mark.parametrize(
    "text, line, kind",
    [
        ("status: x\n<<: {? [a]: b}\n", 2, "sequence"),  # a merged key at the top level
        ("m: &m {? {a: b}: c}\nstatus: x\n<<: *m\n", 1, "mapping"),  # from an anchor: its own line
        ("milestone:\n  <<: {<<: {? [a]: b}}\n", 2, "sequence"),  # nested merges
        ("milestone:\n  ? [alpha]\n  : v1.30\n", 2, "sequence"),  # the mapping's own key
    ],
)
@pytest.mark.parametrize("keys", [None, {"status", "milestone"}])
def test_a_key_that_is_not_a_name_is_an_error_with_its_line_whether_merged_or_not(text, line, kind, keys):
    with pytest.raises(yaml.constructor.ConstructorError) as info:
        load(text, keys)
    assert (info.value.problem, info.value.problem_mark.line + 1) == (f"a key is a {kind}, not a name", line)


def test_an_empty_document_is_none():
    assert load("# only a comment\n") == (None, [])


def test_the_shortcut_resolver_gives_the_tags_pyyamls_base_resolver_gives():
    from bot.model.yamlload import _Loader

    text = (
        "a: 1\nb: '2'\nc: \"x\"\nd: ~\ne: true\nf: 2026-01-02\n'': empty\ng: [1, {h: i}, [j]]\n"
        "k: !!int 3\nl: !custom 4\nm: |\n  block\nn: &a {o: p}\nq: *a\n? [r]\n: s\n"
    )

    def tags(node):
        yield node.tag
        children = node.value if isinstance(node.value, list) else []
        for child in children:
            yield from (t for part in (child if isinstance(child, tuple) else (child,)) for t in tags(part))

    fast, plain = yaml.compose(text, Loader=_Loader), yaml.compose(text, Loader=yaml.BaseLoader)
    assert list(tags(fast)) == list(tags(plain))
    assert "tag:yaml.org,2002:int" in set(tags(fast)) and "!custom" in set(tags(fast))


def test_with_keys_only_those_top_level_keys_are_built_and_duplicates_are_still_found_everywhere():
    text = "status: implemented\nreviewers:\n  - a\n  - {x: 1, x: 2}\nbad: {<<: 5}\nmilestone:\n  <<: {alpha: v1.1}\n"
    doc, dups = load(text, keys={"status", "milestone", "absent"})
    assert doc == {"status": "implemented", "milestone": {"alpha": "v1.1"}}
    assert dups == [Duplicate("reviewers[1].x", 4, 4)]
    with pytest.raises(yaml.YAMLError):  # the whole document still fails on the merge nobody reads
        load(text)


def test_with_keys_a_top_level_key_that_is_not_a_scalar_builds_the_whole_document():
    with pytest.raises(yaml.YAMLError):  # an unhashable key, as without keys
        load("? [a]\n: b\nstatus: x\n", keys={"status"})


def test_only_the_wanted_keys_and_their_other_spellings_are_built():
    doc, _ = load(
        "milestone: {alpha: v1}\nMilestones: {beta: v2}\nfeature_gates: []\nauthors: [a]\n",
        {"milestone", "feature-gates"},
    )
    assert doc == {"milestone": {"alpha": "v1"}, "Milestones": {"beta": "v2"}, "feature_gates": []}
