"""What a run tells people and workflows: readable or JSON log lines, progress on a terminal, the pages written
(``--publish files``), the commands that open the pull request (``--publish git``), the GitHub Actions step
outputs and the ``::warning::`` of a blocked run; secrets redacted in every form."""

from __future__ import annotations

import io
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import structlog

from bot import progress
from bot.cli.main import main
from bot.config import Config
from bot.log import configure, get_logger
from tests.syncutil import write_keps

TOKEN = "ghp_" + "s" * 36


@pytest.fixture(autouse=True)
def _reset():
    yield
    structlog.reset_defaults()
    progress.enable("json")


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_every_renderer_redacts_secrets_even_inside_lists(capsys, fmt):
    configure(fmt=fmt)
    get_logger(command="t").info("token seen", url=f"https://x:{TOKEN}@github.com/o/r", tokens=[TOKEN], n=1)
    err = capsys.readouterr().err
    assert TOKEN not in err and err.count("***") >= 2
    if fmt == "json":
        event = json.loads(err)
        assert (event["event"], event["tokens"], event["url"]) == ("token seen", ["***"], "https://***@github.com/o/r")
    else:
        assert re.fullmatch(
            r"\S+ \[info\s*\] token seen\s+command=t n=1 tokens=\['\*\*\*'\] "
            r"url=https://\*\*\*@github.com/o/r\n",
            err,
        ), err


def test_the_log_is_json_when_stderr_is_no_terminal_and_text_on_request(work, capsys):
    assert main(["sync", "--enhancements", "enh", "--wiki", "wiki", "--page", "m.md"]) == 0
    assert json.loads(capsys.readouterr().err)["event"] == "sync finished"
    assert main(["sync", "--enhancements", "enh", "--wiki", "wiki", "--page", "m.md", "--log-format", "text"]) == 0
    err = capsys.readouterr().err
    assert re.match(r"\S+ \[info\s*\] sync finished\s+applied=0 blocked=False changes=2 command=sync", err), err
    assert main(["--log-format", "json", "validate", "--config", "nope.yaml"]) == 2  # before the command too


def test_progress_says_what_a_slow_step_does_only_when_enabled(capsys, monkeypatch):
    with progress.step("cloning https://x:secret@example.com/e.git", "takes a minute"):
        pass
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(progress, "_enabled", True)
    with progress.step("cloning https://x:secret@example.com/e.git", "takes a minute"):
        pass
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "kep-sync: cloning https://***@example.com/e.git (takes a minute) ..."
    assert re.fullmatch(r"kep-sync: cloning https://\*\*\*@example.com/e.git: done in [0-9]+\.[0-9] s", lines[1])
    with pytest.raises(RuntimeError), progress.step("downloading o/r@abc"):
        raise RuntimeError("boom")
    assert re.fullmatch(
        r"kep-sync: downloading o/r@abc: failed after [0-9]+\.[0-9] s", capsys.readouterr().err.splitlines()[1]
    )


def test_publish_files_says_which_pages_it_wrote_and_how_many_rows(work, capsys):
    args = ["sync", "--enhancements", "enh", "--wiki", "wiki", "--page", "m.md", "--publish", "files"]
    assert main([*args, "--log-format", "text"]) == 0
    assert capsys.readouterr().err.splitlines()[-1] == "kep-sync: wrote wiki/m.md: 1 row changed, 0 added"
    assert main([*args, "--log-format", "text"]) == 0
    assert capsys.readouterr().err.splitlines()[-1] == "kep-sync: no page written under wiki: the pages already match"


def test_publish_files_in_json_is_one_published_event(work, capsys):
    assert main(["sync", "--enhancements", "enh", "--wiki", "wiki", "--page", "m.md", "--publish", "files"]) == 0
    events = [json.loads(line) for line in capsys.readouterr().err.splitlines()]
    assert [(e["event"], e.get("lines")) for e in events if e["event"] == "published"] == [
        ("published", ["kep-sync: wrote wiki/m.md: 1 row changed, 0 added"])
    ]


def test_publish_git_prints_the_branch_commit_and_the_commands_to_open_the_pull_request(work, capsys):
    wiki = work / "wiki"
    git(wiki, "init", "-q", "-b", "main")
    git(wiki, "add", "-A")
    git(wiki, "commit", "-qm", "wiki")
    (work / "c.yaml").write_text(
        json.dumps(
            {
                "enhancements": "enh",
                "wiki": {"dir": "wiki", "pages": ["m.md"], "repo": "acme/wiki"},
                "pull_request": {
                    "labels": ["kep"],
                    "reviewers": ["alice"],
                    "team_reviewers": ["sig-arch"],
                    "draft": True,
                },
            }
        )
    )
    assert main(["sync", "--config", "c.yaml", "--publish", "git", "--log-format", "text"]) == 0
    out, err = capsys.readouterr()
    head = git(wiki, "rev-parse", "kep-sync/matrix")
    pr_file = wiki / ".git" / "kep-sync" / "pull-request.md"
    title, _, body = pr_file.read_text().partition("\n\n")
    body_file = pr_file.with_name("pull-request-body.md")
    assert body_file.read_text() == body and title == out.splitlines()[0].removeprefix("# ")
    assert err.splitlines()[-7:] == [
        f"kep-sync: branch kep-sync/matrix in wiki at commit {head} (1 page(s) committed)",
        "To push it and open the pull request:",
        "  cd wiki",
        "  git remote add origin URL    # this clone has no remote: the wiki repository's URL",
        "  git push origin kep-sync/matrix",
        f"  gh pr create --head kep-sync/matrix --base main --title '{title}' --body-file {shlex.quote(str(body_file))} --label kep "
        "--reviewer alice --reviewer acme/sig-arch --draft",
        "kep-sync applies pull_request.labels, pull_request.reviewers, pull_request.team_reviewers, "
        "pull_request.draft only with --publish github; the gh command above sets them",
    ]


def test_a_rebuilt_branch_that_was_pushed_gets_a_push_that_works(work, capsys):
    wiki, remote = work / "wiki", work / "remote.git"
    git(work, "init", "-q", "--bare", str(remote))
    git(wiki, "init", "-q", "-b", "main")
    git(wiki, "add", "-A")
    git(wiki, "commit", "-qm", "wiki")
    git(wiki, "remote", "add", "origin", str(remote))
    (work / "c.yaml").write_text(json.dumps({"enhancements": "enh", "wiki": {"dir": "wiki", "pages": ["m.md"]}}))
    sync = ["sync", "--config", "c.yaml", "--publish", "git", "--log-format", "text"]
    assert main(sync) == 0
    assert capsys.readouterr().err.splitlines()[-2] == "  git push origin kep-sync/matrix"  # a new branch
    git(wiki, "push", "-q", "origin", "kep-sync/matrix")
    first = git(wiki, "rev-parse", "kep-sync/matrix")
    with (wiki / "m.md").open("a") as page:  # the page moves on the base: kep-sync rebuilds its branch on it
        page.write("\nA note.\n")
    git(wiki, "commit", "-qam", "note")
    assert main(sync) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[-4:-1] == [
        f"kep-sync rebuilt the branch on a new base (it was at {first[:12]}); a plain push of a branch pushed "
        "before is refused, this one replaces it unless the remote branch moved since this clone last pushed or "
        "fetched it:",
        "  cd wiki",
        "  git push --force-with-lease origin kep-sync/matrix",
    ]
    plain = subprocess.run(["git", "-C", str(wiki), "push", "-q", "origin", "kep-sync/matrix"], capture_output=True)
    assert plain.returncode == 1  # rejected: non-fast-forward
    git(wiki, "push", "-q", "--force-with-lease", "origin", "kep-sync/matrix")  # the printed command works
    assert git(remote, "rev-parse", "kep-sync/matrix") == git(wiki, "rev-parse", "kep-sync/matrix") != first


def test_a_branch_started_again_after_it_was_pushed_gets_a_push_that_works(work):
    from bot.commands.next_steps import rebuilt

    wiki = work / "wiki"
    git(wiki, "init", "-q", "-b", "main")
    git(wiki, "add", "-A")
    git(wiki, "commit", "-qm", "wiki")
    old = git(wiki, "rev-parse", "HEAD")
    git(wiki, "commit", "-q", "--allow-empty", "-m", "next")
    git(wiki, "branch", "kep-sync/matrix")
    assert rebuilt(str(wiki), "kep-sync/matrix", "", ["origin"]) == ""  # never pushed: a plain push works
    git(wiki, "commit", "-q", "--allow-empty", "-m", "other")
    git(wiki, "update-ref", "refs/remotes/origin/kep-sync/matrix", git(wiki, "rev-parse", "HEAD"))
    assert rebuilt(str(wiki), "kep-sync/matrix", "", ["origin"]) == (
        f"origin/kep-sync/matrix is at {git(wiki, 'rev-parse', 'HEAD')[:12]}"
    )
    git(wiki, "update-ref", "refs/remotes/origin/kep-sync/matrix", old)  # behind the branch: a fast-forward
    assert rebuilt(str(wiki), "kep-sync/matrix", "", ["origin"]) == ""


@pytest.mark.parametrize(
    "base, expected",
    [("", "--base main"), ("main", "--base main"), ("origin/main", "--base main"), ("detached", "--base {sha}")],
)
def test_the_gh_command_always_names_the_base_and_a_detached_base_is_called_no_branch(work, capsys, base, expected):
    wiki = work / "wiki"
    git(wiki, "init", "-q", "-b", "main")
    git(wiki, "add", "-A")
    git(wiki, "commit", "-qm", "wiki")
    sha = git(wiki, "rev-parse", "HEAD")
    git(wiki, "update-ref", "refs/remotes/origin/main", sha)
    if base == "detached":
        git(wiki, "checkout", "-q", "--detach")
    (work / "c.yaml").write_text(
        json.dumps(
            {
                "enhancements": "enh",
                "wiki": {"dir": "wiki", "pages": ["m.md"], **({"base": base} if base not in ("", "detached") else {})},
            }
        )
    )
    assert main(["sync", "--config", "c.yaml", "--publish", "git", "--log-format", "text"]) == 0
    err = capsys.readouterr().err.splitlines()
    gh = next(line for line in err if line.startswith("  gh pr create"))
    assert gh.startswith(f"  gh pr create --head kep-sync/matrix {expected.format(sha=sha)} --title ")
    assert [line for line in err if "not a branch" in line] == (
        []
        if base != "detached"
        else [
            f"kep-sync: the branch is built on a detached HEAD (commit {sha}), not a branch: a pull request needs a "
            "base branch, so give gh pr create --base the branch it should merge into"
        ]
    )


def test_a_local_git_source_is_named_as_configured_never_by_its_resolved_path(work, capsys):
    git(work / "enh", "init", "-q", "-b", "main")
    git(work / "enh", "add", "-A")
    git(work / "enh", "commit", "-qm", "keps")
    assert main(["sync", "--enhancements", "enh", "--wiki", "wiki", "--page", "m.md"]) == 0
    out = capsys.readouterr().out
    assert "from `enh` at `" in out and str(work) not in out


def test_wiki_repo_defaults_to_the_workflow_repository_under_actions(monkeypatch):
    assert Config().wiki.repo is None
    monkeypatch.setenv("GITHUB_REPOSITORY", "fork/kep-sync")
    assert Config().wiki.repo is None  # not under Actions
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    assert Config().wiki.repo == "fork/kep-sync"
    assert Config.model_validate({"wiki": {"repo": "acme/wiki"}}).wiki.repo == "acme/wiki"
    assert Config.model_validate({"publish": "github"}).wiki.repo == "fork/kep-sync"  # validates without wiki.repo


def test_actions_outputs_and_the_blocked_warning(fake_github, tmp_path, monkeypatch, capsys):
    from bot.publish import auth
    from tests.publishutil import BRANCH, PAGE_PATH, REPO
    from tests.publishutil import PAGE as WIKI_PAGE
    from tests.syncutil import kep

    fake_github.seed_repo(REPO, {PAGE_PATH: WIKI_PAGE})
    write_keps(
        tmp_path / "up",
        kep(4671, "kep-4671", stage="beta", alpha="v1.35", beta="v1.37"),
        kep(5710, "kep-5710", stage="alpha", alpha="v1.35"),
    )
    (tmp_path / "c.yaml").write_text(
        f"enhancements: {tmp_path / 'up'}\nwiki:\n  pages: [{PAGE_PATH}]\n"
        f"github:\n  api_url: {fake_github.url}\npublish: github\n"
    )
    outputs = tmp_path / "github-output"
    for name, value in (
        ("GITHUB_TOKEN", TOKEN),
        ("GITHUB_ACTIONS", "true"),
        ("GITHUB_REPOSITORY", REPO),
        ("GITHUB_OUTPUT", str(outputs)),
    ):
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(auth, "SECONDS_BETWEEN_WRITES", 0)

    def run() -> tuple[list[str], str]:
        outputs.write_text("")
        assert main(["sync", "--config", str(tmp_path / "c.yaml")]) == 0
        return outputs.read_text().splitlines(), capsys.readouterr().err

    url = f"https://github.com/{REPO}/pull/1"
    lines, err = run()
    assert lines == ["pull-request-number=1", f"pull-request-url={url}", "pull-request-operation=created"]
    assert "::warning" not in err
    assert run()[0] == ["pull-request-number=1", f"pull-request-url={url}", "pull-request-operation=none"]
    fake_github.commit_files(REPO, BRANCH, {"notes.md": "human\n"}, "human fix")
    lines, err = run()
    assert lines == ["pull-request-number=1", f"pull-request-url={url}", "pull-request-operation=blocked"]
    assert err.splitlines()[-1] == (
        "::warning title=kep-sync blocked::kep-sync was blocked: the bot branch kep-sync/matrix has commits "
        "kep-sync did not make, so nothing was published. Add the label kep-sync:regenerate to the pull request, "
        "or delete the branch."
    )


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("fmt", "said"), [(None, True), ("text", True), ("json", False)])
def test_the_command_line_turns_progress_on_for_text_logs_on_a_terminal(monkeypatch, fmt, said):
    from bot.cli.main import configure_logging

    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    configure_logging(fmt)
    with progress.step("cloning o/r"):
        pass
    lines = [line for line in terminal.getvalue().splitlines() if "cloning" in line]
    assert [re.sub(r"[0-9.]+ s$", "N s", line) for line in lines] == (
        ["kep-sync: cloning o/r ...", "kep-sync: cloning o/r: done in N s"] if said else []
    )


@pytest.mark.parametrize(("no_color", "colored"), [(None, True), ("", True), ("1", False)])
def test_an_empty_no_color_is_ignored(monkeypatch, no_color, colored):
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    if no_color is None:
        monkeypatch.delenv("NO_COLOR", raising=False)
    else:
        monkeypatch.setenv("NO_COLOR", no_color)
    configure(fmt="text")
    get_logger().info("x")
    assert ("\x1b[" in terminal.getvalue()) is colored


def test_next_steps_quote_a_wiki_named_like_an_option_and_never_invent_an_organization():
    from bot.commands.next_steps import gh_options, shell_path
    from bot.config import validate_config

    assert [shell_path(p) for p in ("-w", "wiki", "my wiki", "/abs/-w")] == ["./-w", "wiki", "'my wiki'", "/abs/-w"]
    teams = {"team_reviewers": ["sig-arch", "other/sig-docs"], "reviewers": ["alice"]}
    assert gh_options(validate_config({"pull_request": teams}, "t")) == [
        "--reviewer",
        "alice",
        "--reviewer",
        "other/sig-docs",
    ]
    assert gh_options(validate_config({"pull_request": teams, "wiki": {"repo": "acme/w"}}, "t")) == [
        "--reviewer",
        "alice",
        "--reviewer",
        "acme/sig-arch",
        "--reviewer",
        "other/sig-docs",
    ]


def test_publish_git_without_wiki_repo_asks_for_the_team_organization(work, capsys):
    wiki = work / "wiki"
    git(wiki, "init", "-q", "-b", "main")
    git(wiki, "add", "-A")
    git(wiki, "commit", "-qm", "wiki")
    (work / "c.yaml").write_text(
        json.dumps(
            {
                "enhancements": "enh",
                "wiki": {"dir": "wiki", "pages": ["m.md"]},
                "pull_request": {"team_reviewers": ["sig-arch"]},
            }
        )
    )
    assert main(["sync", "--config", "c.yaml", "--publish", "git", "--log-format", "text"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[-3].endswith("--body-file " + shlex.quote(str(wiki / ".git" / "kep-sync" / "pull-request-body.md")))
    assert err[-1] == (
        "gh needs each team as ORGANIZATION/TEAM and wiki.repo is not set: add --reviewer "
        "<organization>/sig-arch to the gh command"
    )


def test_a_dry_run_says_how_many_rows_it_left_as_is_with_problems(work, capsys):
    (work / "wiki" / "p.md").write_text(
        "| KEP | Status | Alpha / Beta / GA |\n|---|---|---|\n"
        "| 4671-gang-scheduling | implementable / alpha | soon / - / - |\n"
        "| 5710-workload-aware-preemption | implementable / alpha | later / - / - |\n",
        encoding="utf-8",
    )
    sync = ["sync", "--enhancements", "enh", "--wiki", "wiki", "--page", "p.md"]
    assert main([*sync, "--log-format", "text"]) == 0
    out, err = capsys.readouterr()
    where = "the Problems section of the changelog (stdout)"
    assert err.splitlines()[-1] == (
        f"kep-sync: 2 rows with problems (left as is, or a value kep-sync will not write); listed in {where}"
    )
    assert err.splitlines()[-2].endswith(f" rows_listed_in='{where}' rows_with_problems=2")
    assert [line for line in out.splitlines() if line.startswith("| p.md |")] == [
        "| p.md | line 3 | alpha cell 'soon' is not a milestone kep-sync can read; kep.yaml says 'v1.35'; alpha "
        "cell kept (keps/sig-scheduling/4671-gang-scheduling/kep.yaml) |",
        "| p.md | line 4 | alpha cell 'later' is not a milestone kep-sync can read; kep.yaml says 'v1.36'; alpha "
        "cell kept (keps/sig-scheduling/5710-workload-aware-preemption/kep.yaml) |",
    ]
    assert main([*sync, "--log-format", "json", "--report", "r.json"]) == 0
    finished = json.loads(capsys.readouterr().err)
    assert (finished["rows_with_problems"], finished["rows_listed_in"]) == (2, f"{where} and the report r.json")
    assert json.loads((work / "r.json").read_text())["rows_with_problems"] == 2


def test_the_push_command_names_a_remote_the_clone_has():
    from bot.commands.next_steps import push_commands

    assert push_commands(["fork", "origin"], "kep-sync/matrix") == ["  git push origin kep-sync/matrix"]
    assert push_commands(["upstream"], "b x") == ["  git push upstream 'b x'"]
    assert push_commands([], "b") == [
        "  git remote add origin URL    # this clone has no remote: the wiki repository's URL",
        "  git push origin b",
    ]
