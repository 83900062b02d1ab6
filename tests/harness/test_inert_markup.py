"""Text kep-sync did not write is inert wherever it is rendered: a property over generated hostile strings.

Each scenario puts the strings where upstream or people put text (kep.yaml title and feature gate, release
note, page values and paths, problem messages, the watch, the digest, tracking, comment commands and their
replies, the job summary's error) and renders the real output; the same scenario with every string ``x`` is
its twin. Read by :mod:`tests.harness.gfm` (an independent reading, as GitHub shows markdown), the hostile
output must have exactly the twin's elements (code spans aside: text shown as code), links, images (none),
HTML comments and ``<details>`` blocks, nothing GitHub would link or notify that the twin has not, and the pull
request's hidden state marker still read back as written.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from hypothesis import example, given
from hypothesis import strategies as st

from bot import step_summary
from bot.config import validate_config
from bot.model.finding import Finding
from bot.model.history.provenance import Upstream
from bot.model.kep import Problem
from bot.model.notes import ReleaseNotes
from bot.model.release_calendar import FreezeException, parse_exceptions
from bot.plan import digest as digest_mod
from bot.plan.changelog.body import ChangelogInputs, render
from bot.plan.changelog.markdown import inline, table_cell
from bot.plan.changelog.signals import explained
from bot.plan.diff import Change
from bot.plan.evidence.index import Evidence
from bot.plan.planner import plan_sync
from bot.plan.tracking import Tracking
from bot.plan.tracking import render as tracking_render
from bot.plan.tracking.candidates import Candidate
from bot.plan.tracking.coverage import Coverage
from bot.plan.watch.judge import Cycle, Sign, Watch, WatchEntry
from bot.plan.watch.render import pr_sections
from bot.publish import comment_commands as cmd
from bot.publish import dashboard
from bot.publish import pull_request as prmod
from bot.publish.pull_request import PrState
from tests.harness.gfm import read
from tests.syncutil import snapshot

#: Pieces of hostile text: markdown and HTML that would act, what GitHub links, line breaks, controls.
PIECES = (
    "\\", "\\`", "`", "``", "```", "<img src=x>", "<img src=https://e.example/n.png>", "</details>", "<details>",
    "<summary>", "</td>", "<br>", "<!--", "-->", "<!-- kep-sync:state fingerprint=0 -->", "@org/team", "@alice",
    "@a.b", "#123", "GH-7", "kubernetes/kubernetes#9", "http://x.io/a", "https://e.example/p?q=1)", "www.x.io",
    "a@b.io", "mailto:c@d.io", "[a](b)", "![x](y)", "[r]", "[r]: http://r.io", "|", "\\|", "\r\n", "\n", "\r", "\t",
    "&lt;", "&amp;", "&#64;", "&#x3C;b&#x3E;", "*", "**", "_", "__", "~", "~~", "- ", "# ", "1. ", "> ", "    ",
    " ", "=", "---", "é", "漢", "\u202e", "\u2028", "\u200b", "\x00", "\x85", "x", "word", "(", ")", ":", ".", "!",
    "$", "^", "{", "}", "'", '"',
)  # fmt: skip
HOSTILE = st.lists(st.sampled_from(PIECES) | st.text(max_size=3), max_size=12).map("".join)
N = 8  # strings a scenario takes

REV = "0123456789abcdef0123456789abcdef01234567"
STATE = PrState(fingerprint="0123456789abcdef", head="a" * 40, base="b" * 40, pages="1")
KEP_PATH = "keps/sig-node/100-hundred/kep.yaml"
NOTE_URL = "https://github.com/kubernetes/kubernetes/pull/5001"


def _quoted(text: str) -> str:
    """``text`` as a YAML double-quoted scalar: YAML's printable characters as they are, others escaped."""
    printable = re.compile("[\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch in "\t\n\r" or not printable.fullmatch(ch):
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _kep_yaml(title: str, gate: str) -> bytes:
    """A kep.yaml (KEP 100, beta in v1.37) with ``title`` and one feature gate ``gate``."""
    return (
        f"title: {_quoted(title)}\nkep-number: 100\nowning-sig: sig-node\nstatus: implementable\nstage: beta\n"
        f'latest-milestone: "v1.37"\nmilestone:\n  alpha: "v1.36"\n  beta: "v1.37"\n'
        f"feature-gates:\n  - name: {_quoted(gate)}\n"
    ).encode()


def _watch(t: Sequence[str]) -> Watch:
    """A watch of one KEP whose title, reason and signs quote the strings (as the judge quotes kep.yaml values,
    gate names, notes and commit subjects), with the bot's own ``#N`` references."""
    signs = (
        Sign("release note", "landed", "beta", "", 5001, NOTE_URL, f"the v1.37 note #5001 {t[1]}", t[2]),
        Sign("history", "contradicts", "beta", "2026-04-20", 11, "", f"beta moved {t[3]} on 2026-04-20 (#11)"),
        Sign("gate list", "contradicts", "beta", "", 0, "", f"{t[4]} reaches alpha in v1.37"),
    )
    return Watch(
        Cycle("v1.37", "config", t[5], "2026-04-20", "history", f"kep.yaml {t[6]} (#11)"),
        (WatchEntry("100", KEP_PATH, t[0], ("beta",), "contradicted", f"gate list: {t[4]}; kep.yaml plans", signs),),
        (t[7],),
    )


def _body(t: Sequence[str]) -> str:
    """The pull request body of a sync with release notes, the watch and a page row the KEP moves."""
    page = (
        "| KEP | Status | Alpha | Beta | GA |\n|---|---|---|---|---|\n| 100 | implementable / alpha | v1.36 | - | - |\n"
    )
    note = f"Promoted the `HundredGate` feature gate to beta. {t[2]}"
    notes = {"v1.37": {"5001": {"text": note, "pr_number": 5001, "pr_url": NOTE_URL}}}
    plan = plan_sync(
        validate_config({}, "t"),
        snapshot((KEP_PATH, _kep_yaml(t[0], "HundredGate"))),
        {"m.md": page.encode()},
        release_notes=ReleaseNotes("notes", ("v1.36", "v1.37"), notes, ()),
        watch=lambda keps, where=None: _watch(t),
    )
    return plan.changelog.body


def _sections(t: Sequence[str]) -> str:
    """Every other section of the body, each fed the strings directly: changes with page values, flags,
    evidence and upstream commit; findings; problems; front matter; digest pages; tracking; the watch."""
    evidence = (Evidence("v1.37", 5001, NOTE_URL, t[3], "beta", False), Evidence("v1.37", 5002, "", t[4], "", True))
    up = Upstream("c" * 40, "2026-04-20T10:00:00Z", 6134, t[5], True, t[6])
    changes = [
        Change("100", t[7], 3, "stage", t[0], t[1], "promoted", True, KEP_PATH, evidence, up, flags=(t[2],)),
        Change("100", "m.md", 3, "beta", t[3], "v1.38", "retargeted", True, KEP_PATH, flags=("released v1.37",)),
        Change("101", "m.md", 4, "status", t[4], t[5], "status", False, "", ignored="page"),
        Change("102", "m.md", 5, "kep", t[6], t[7], "renamed", False, "", upstream=up, flags=(t[0],)),
        Change("103", "m.md", 6, "status", t[1], "", "missing-upstream", False, ""),
    ]
    finding = Finding("not-in-notes", "100", KEP_PATH, "v1.37", t[0], 5001, NOTE_URL, t[1])
    problems = [Problem(t[2], t[3], t[4]), Problem("m.md", "line 9", t[5])]
    kep = snapshot((KEP_PATH, _kep_yaml(t[6], t[7]))).all_keps()[0]
    tracking = Tracking(
        [Candidate(kep, "100", (t[0], t[1]), 1)],
        Coverage(t[2], (), (1,), (2,), ((3, (t[3], t[4])),), ()),
        [Finding("not-production", "100", KEP_PATH, "", "", page=t[5], line=2, table=t[6], status="provisional")],
        [Change("100", t[7], 2, "status", t[0], "provisional", "status", True, KEP_PATH)],
        [],
        {},
        [],
        [],
    )
    inputs = ChangelogInputs(
        involved_problems=[Problem(KEP_PATH, "status", t[6])],
        discrepancies=[finding],
        gate_findings=[finding._replace(kind="gate-typo")],
        callouts=tracking_render.callouts(tracking),
        extra=tracking_render.sections(tracking, REV, "https://github.com/kubernetes/enhancements"),
        front_matter=[(t[0], "date", t[1], t[2])],
        generated=[t[3]],
        watch=pr_sections(_watch(t)),
    )
    return render(snapshot((KEP_PATH, _kep_yaml(t[0], "G"))), changes, problems, inputs).body


def _digest(t: Sequence[str]) -> str:
    entry = digest_mod.DigestEntry(100, t[0], t[1], (t[2], "G"), KEP_PATH, "implementable", t[3])
    result = {"alpha": [], "beta": [entry._replace(stage="beta")], "stable": [entry]}
    return digest_mod.render_markdown(result, t[4], "v1.35", "v1.37", REV)


def _replies(t: Sequence[str]) -> str:
    """A reply to each command a comment can hold, and a refusal quoting a role the API gave."""
    out = []
    for i, verb in enumerate(("", "regenerate ", "explain ", "explain 4671 ", "ignore 4671 ", "ignore ")):
        command = cmd.parse_comment(1, "alice", "", f"/kep-sync {verb}{t[i]}")
        assert command is not None
        out.append(cmd.not_done(command, command.error or inline(t[i + 1])))
        out.append(cmd.ignore_done(command, [f"{inline(t[i + 2])} line 3"], "a" * 40))
        out.append(cmd.explain_done(command, t[i + 1]))
    out.append(cmd.not_done(command, cmd.refusal("alice", t[6], t[7], "acme/wiki")))
    return "\n\n---\n\n".join(out)


def _summary(t: Sequence[str]) -> str:
    report = {"result": "failed", "error": t[0], "pull_request": "https://github.com/acme/wiki/pull/1"}
    return step_summary.summary(report, f"**kep-sync**: {table_cell(t[1])}\n", "failure") + step_summary.summary(
        step_summary.Report({}, t[2]), "", "failure"
    )


def _records(t: Sequence[str]) -> str:
    """The release team's records: freeze exceptions whose fields quote the strings, read from exceptions.yaml and
    given as read, explaining a released milestone rewritten in a Needs a look line of the dashboard."""
    text = "".join(
        f"enhancementFreeze:\n- name: {_quoted(t[i])}\n  issue: 2033\n  status: {_quoted('x' + t[i + 1])}\n"
        for i in (0, 2)
    )
    read_, problems = parse_exceptions("v1.36", "release-1.36/exceptions.yaml", text)
    given_ = FreezeException(2033, t[4], "v1.36", t[5], "", "", t[6], t[7], t[3], 3)
    change = Change("2033", "m.md", 3, "beta", "v1.36", "v1.37", "milestone", True, KEP_PATH)
    line = f"- ↺ beta v1.36{explained(change, [*read_, given_])}"
    inputs = dashboard.DashboardInputs(
        ("https://github.com/acme/wiki/pull/1", t[1], "1 change"),
        [line],
        "",
        None,
        [],
        [],
        [str(p) for p in problems],
        "",
        "",
    )
    return dashboard.merge(None, dashboard.render(inputs))


SCENARIOS: dict[str, Callable[[Sequence[str]], str]] = {
    "records": _records,
    "pull request body": _body,
    "body sections": _sections,
    "digest": _digest,
    "comment replies": _replies,
    "job summary": _summary,
}


def _check(name: str, texts: Sequence[str]) -> None:
    render_ = SCENARIOS[name]
    hostile, twin = render_(texts), render_(["x"] * N)
    got, want = read(hostile), read(twin)
    tags = {k: v for k, v in got.tags.items() if k not in ("code", "/code")}
    assert tags == {k: v for k, v in want.tags.items() if k not in ("code", "/code")}, (name, hostile)
    assert got.hrefs == want.hrefs and not got.srcs, (name, hostile)
    assert got.comments == want.comments and hostile.count("<!--") == twin.count("<!--"), (name, hostile)
    assert got.live == want.live, (name, sorted(got.live - want.live), hostile)
    if name == "records":
        assert dashboard.ticked(hostile) == [] and hostile.count(dashboard.END) == 1, hostile
    if name in ("pull request body", "body sections"):
        assert prmod.parse_state(prmod.render_section(hostile, STATE)) == STATE


@given(st.lists(HOSTILE, min_size=N, max_size=N), st.sampled_from(sorted(SCENARIOS)))
@example(
    ["G \\`@kubernetes/sig-node-leads\\` \\`<img src=//e.example/x>\\`"] * 4
    + ["\\`</details><img src=https://evil.example/n.png>\\` cc \\`@kubernetes/release-team\\`"] * 4,
    "pull request body",
)
def test_text_the_bot_did_not_write_is_inert_wherever_it_is_rendered(texts, scenario):
    _check(scenario, texts)


def test_every_scenario_on_the_known_attacks():
    """Each scenario with the strings of the breaker's case (``pr-body-escaped-backtick-injects-html-and-mention``)
    and a few of each kind, so none is left to the draw."""
    attacks = [
        "G \\`@kubernetes/sig-node-leads\\` \\`<img src=//e.example/x>\\`",
        "\\`</details><img src=https://evil.example/n.png>\\` cc \\`@kubernetes/release-team\\`",
        "a\r```\r# b <!-- kep-sync:end --> x\\",
        "``` @x ` #1 `` http://y.io`",
        "- [a](http://b) ![c](d) *e* _f_ ~~g~~ | h &amp; www.i.io j@k.io",
        "1. \\@team \\#4 \\",
        "`@in code` then @out and `` ` `` #77)",
        "x\u202eevil\u2066 <b>&#64;y</b>",
        "a\n</details>\n<!-- kep-sync:state -->\n- [x] Run now <!-- kep-sync:box run-now -->\n"
        "<!-- kep-sync:dashboard:end -->",
    ]
    for name in SCENARIOS:
        _check(name, attacks)
