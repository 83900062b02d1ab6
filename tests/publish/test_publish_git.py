"""``--publish git``: real git repositories in temp dirs; the working tree and checkout are never touched."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bot.config import Config
from bot.errors import ConfigError, PublishError
from bot.plan.planner import plan_sync
from bot.publish import pull_request as prmod
from bot.publish.git import GitWiki
from tests.gitutil import commit, git, make_repo
from tests.publishutil import (
    BRANCH,
    PAGE,
    PAGE_PATH,
    README,
    fresh_logging,  # noqa: F401  (autouse fixture)
    git_config,
    keps,
    page,
    run_git,
)

PROMOTED = page([(4671, "beta", "v1.37"), (5710, "alpha", "-")])


@pytest.fixture
def wiki(tmp_path) -> Path:
    path = tmp_path / "wiki"
    make_repo(path, {PAGE_PATH: PAGE, "README.md": README})
    return path


def pr_file(wiki: Path) -> Path:
    return wiki / ".git" / "kep-sync" / "pull-request.md"


def show(wiki: Path, rev: str, path: str = PAGE_PATH) -> str:
    return git(wiki, "show", f"{rev}:{path}") + "\n"


def test_commits_on_the_bot_branch_from_the_base_head(wiki):
    base = git(wiki, "rev-parse", "main")
    plan, written, url, blocked, *_ = run_git(wiki)
    assert (url, written, blocked) == (str(pr_file(wiki)), [PAGE_PATH], False)
    head = git(wiki, "rev-parse", BRANCH)
    assert git(wiki, "rev-parse", f"{head}^") == base and show(wiki, BRANCH) == PROMOTED
    assert git(wiki, "rev-parse", "main") == base and git(wiki, "symbolic-ref", "HEAD") == "refs/heads/main"
    assert (wiki / PAGE_PATH).read_text() == PAGE and git(wiki, "status", "--porcelain") == ""
    text = pr_file(wiki).read_text()
    title, body = text.split("\n\n", 1)
    assert title == plan.changelog.title and body.startswith(prmod.BEGIN)
    assert prmod.parse_state(body) == prmod.PrState(
        plan.snapshot.revision, prmod.fingerprint(plan.changes), base, prmod.parse_state(body).pages, head
    )
    assert "Kep-Sync-Fingerprint: " in git(wiki, "log", "-1", "--format=%B", BRANCH)


def test_second_run_is_idempotent(wiki):
    run_git(wiki)
    head, text = git(wiki, "rev-parse", BRANCH), pr_file(wiki).read_text()
    again = run_git(wiki)
    assert (again.written, again.blocked, again.url) == ([], False, str(pr_file(wiki)))
    assert git(wiki, "rev-parse", BRANCH) == head and pr_file(wiki).read_text() == text
    assert git(wiki, "rev-list", "--count", BRANCH) == "2"


def test_a_changed_page_set_with_the_same_pages_makes_no_empty_commit(wiki):
    run_git(wiki)
    head = git(wiki, "rev-parse", BRANCH)
    cfg = git_config(pages=[PAGE_PATH, "README.md"])  # a page with nothing to sync joins the page set
    for _ in range(2):  # the head's trailers keep the old page set: every later run must still see no change
        plan, written, url, blocked, *_ = run_git(wiki, cfg=cfg)
        assert (written, url, blocked) == ([], str(pr_file(wiki)), False) and plan.changed_pages()
        assert git(wiki, "rev-parse", BRANCH) == head and git(wiki, "rev-list", "--count", BRANCH) == "2"
    assert prmod.parse_state(pr_file(wiki).read_text()).head == head


def test_upstream_change_adds_a_commit_and_keeps_human_text(wiki):
    run_git(wiki)
    first = git(wiki, "rev-parse", BRANCH)
    pr_file(wiki).write_text(pr_file(wiki).read_text() + "\n\nNote from a human.\n")
    run_git(wiki, keps(beta_4671="v1.36"))
    head = git(wiki, "rev-parse", BRANCH)
    assert git(wiki, "rev-parse", f"{head}^") == first
    assert show(wiki, BRANCH) == page([(4671, "beta", "v1.36"), (5710, "alpha", "-")])
    text = pr_file(wiki).read_text()
    assert text.endswith(prmod.END + "\n\nNote from a human.\n") and "v1.36" in text
    assert prmod.parse_state(text).head == head


def test_foreign_commit_is_never_clobbered(wiki):
    run_git(wiki)
    git(wiki, "checkout", "-q", BRANCH)
    foreign = commit(wiki, {"notes.md": "mine\n"}, "human work")
    git(wiki, "checkout", "-q", "main")
    plan, written, url, blocked, *_ = run_git(wiki, keps(beta_4671="v1.36"))
    assert (url, written, blocked) == ("", [], True) and git(wiki, "rev-parse", BRANCH) == foreign
    assert plan.changed_pages()  # the plan is still reported
    # the README's recovery: delete the bot branch; the next run starts it afresh from the base
    git(wiki, "branch", "-D", BRANCH)
    fresh = run_git(wiki, keps(beta_4671="v1.36"))
    assert (fresh.written, fresh.blocked) == ([PAGE_PATH], False)
    assert git(wiki, "rev-parse", f"{BRANCH}^") == git(wiki, "rev-parse", "main")
    assert show(wiki, BRANCH) == page([(4671, "beta", "v1.36"), (5710, "alpha", "-")])


def test_base_moved_regenerates_from_the_new_base(wiki):
    run_git(wiki)
    new_base = commit(wiki, {PAGE_PATH: page(note="edited on main")}, "edit")
    run_git(wiki)
    head = git(wiki, "rev-parse", BRANCH)
    assert git(wiki, "rev-parse", f"{head}^") == new_base
    assert show(wiki, BRANCH) == page([(4671, "beta", "v1.37"), (5710, "alpha", "-")], note="edited on main")


def test_base_already_up_to_date_deletes_the_bot_branch(wiki):
    run_git(wiki)
    commit(wiki, {PAGE_PATH: PROMOTED}, "hand edit")
    plan, written, url, blocked, *_ = run_git(wiki)
    assert (url, written, blocked) == ("", [], False) and not plan.changed_pages()
    assert git(wiki, "branch", "--list", BRANCH) == "" and not pr_file(wiki).exists()


def test_base_option_and_other_checkout(wiki):
    base = git(wiki, "rev-parse", "main")
    git(wiki, "checkout", "-q", "-b", "feature")
    commit(wiki, {PAGE_PATH: "not a matrix\n"}, "feature work")
    run_git(wiki, cfg=git_config(base="main"))
    assert git(wiki, "rev-parse", f"{BRANCH}^") == base and show(wiki, BRANCH) == PROMOTED


def test_errors(wiki, tmp_path):
    with pytest.raises(ConfigError) as err:  # a configured path that is not what the setting needs: exit 2
        run_git(tmp_path)
    assert (
        str(err.value) == f"wiki.dir {str(tmp_path)!r}: not a git checkout; publish git commits in a clone of the wiki"
    )
    with pytest.raises(PublishError, match="wiki.base 'nope' is not a branch or commit"):
        run_git(wiki, cfg=git_config(base="nope"))
    with pytest.raises(ConfigError) as err:
        run_git(wiki, cfg=Config.model_validate({"publish": "git", "wiki": {"pages": ["missing.md"]}}))
    assert str(err.value) == f"wiki.pages (--page) 'missing.md': no such file at main in {wiki}"
    run_git(wiki)
    git(wiki, "checkout", "-q", BRANCH)
    with pytest.raises(PublishError, match="is checked out"):
        run_git(wiki)


def test_cli_publish_git(wiki, tmp_path, capsys):
    from bot.cli.main import main
    from tests.syncutil import kep, write_keps

    write_keps(
        tmp_path / "up",
        kep(4671, "kep-4671", stage="beta", alpha="v1.35", beta="v1.37"),
        kep(5710, "kep-5710", stage="alpha", alpha="v1.35"),
    )
    assert (
        main(
            [
                "sync",
                "--enhancements",
                str(tmp_path / "up"),
                "--wiki",
                str(wiki),
                "--page",
                PAGE_PATH,
                "--publish",
                "git",
            ]
        )
        == 0
    )
    assert show(wiki, "kep-sync/matrix") == PROMOTED and pr_file(wiki).is_file()


@pytest.mark.parametrize(
    ("page_path", "what"),
    [
        ("docs/", "must name a file, not a directory (no trailing '/')"),
        ("docs", "not a file"),
        ("link.md", "not a regular file"),
        ("doc", "no such file"),
        ("./README.md", "no such file (git names it 'README.md')"),
    ],
)
def test_a_page_that_is_not_a_file_at_the_base_is_a_config_error(wiki, page_path, what):
    commit(wiki, {"docs/a.md": "a\n"}, "docs")
    (wiki / "link.md").symlink_to(PAGE_PATH)
    git(wiki, "add", "link.md")
    git(wiki, "commit", "-q", "-m", "link")
    with pytest.raises(ConfigError) as err:
        run_git(wiki, cfg=git_config(pages=[page_path]))
    assert str(err.value) == f"wiki.pages (--page) {page_path!r}: {what} at main in {wiki}"
    assert git(wiki, "branch", "--list", BRANCH) == ""


@pytest.mark.parametrize("publish", ["git", "files"])
def test_cli_missing_page_exits_2_naming_wiki_pages_in_every_local_mode(wiki, tmp_path, capsys, publish):
    from bot.cli.main import main
    from tests.syncutil import kep, write_keps

    write_keps(tmp_path / "up", kep(4671, "kep-4671", stage="beta", alpha="v1.35", beta="v1.37"))
    assert (
        main(
            [
                "sync",
                "--enhancements",
                str(tmp_path / "up"),
                "--wiki",
                str(wiki),
                "--page",
                "gone.md",
                "--publish",
                publish,
            ]
        )
        == 2
    )
    assert "wiki.pages (--page) 'gone.md': no such file " in capsys.readouterr().err


def _amend_as_human(wiki: Path, files: dict) -> str:
    """``git commit --amend`` of the bot head by a human (message and trailers kept); returns the new head."""
    git(wiki, "checkout", "-q", BRANCH)
    if files:
        commit(wiki, files, "scratch")
        git(wiki, "reset", "-q", "--soft", "HEAD~1")
    git(wiki, "commit", "-q", "--amend", "--no-edit")
    head = git(wiki, "rev-parse", "HEAD")
    git(wiki, "checkout", "-q", "main")
    return head


@pytest.mark.parametrize("files", [{}, {"notes.md": "mine\n"}])
def test_a_human_amend_of_the_bot_commit_without_a_record_is_foreign(wiki, files, capsys):
    run_git(wiki)
    pr_file(wiki).unlink()  # no record: only identity and tree can tell
    amended = _amend_as_human(wiki, files)
    assert "Kep-Sync-Fingerprint: " in git(wiki, "log", "-1", "--format=%B", amended)
    plan, written, url, blocked, *_ = run_git(wiki, keps(beta_4671="v1.36"))
    assert (url, written, blocked) == ("", [], True)
    assert git(wiki, "rev-parse", BRANCH) == amended and not pr_file(wiki).exists()


def test_a_human_commit_with_copied_trailers_on_top_of_the_bot_head_is_foreign(wiki):
    run_git(wiki)
    bot = git(wiki, "rev-parse", BRANCH)
    git(wiki, "checkout", "-q", BRANCH)
    commit(wiki, {"notes.md": "mine\n"}, "x")
    git(wiki, "commit", "-q", "--amend", "-C", bot)  # the bot's message, trailers included; parent: the bot head
    human = git(wiki, "rev-parse", "HEAD")
    git(wiki, "checkout", "-q", "main")
    assert git(wiki, "rev-parse", f"{human}^") == bot
    assert run_git(wiki, keps(beta_4671="v1.36")).blocked is True and git(wiki, "rev-parse", BRANCH) == human


def test_the_bot_commit_without_a_record_is_recognised_by_identity_and_tree(wiki):
    run_git(wiki)
    head, text = git(wiki, "rev-parse", BRANCH), pr_file(wiki).read_text()
    assert git(wiki, "log", "-1", "--format=%an <%ae>|%cn <%ce>", head) == (
        "kep-sync <kep-sync@users.noreply.github.com>|kep-sync <kep-sync@users.noreply.github.com>"
    )
    pr_file(wiki).unlink()
    again = run_git(wiki)
    assert (again.written, again.blocked, again.url) == ([], False, str(pr_file(wiki)))
    assert git(wiki, "rev-parse", BRANCH) == head and pr_file(wiki).read_text() == text


def test_a_base_that_moves_before_landing_is_read_again_and_replanned(wiki):
    cfg = git_config()
    backend = GitWiki(cfg, wiki)
    base = backend.read()
    first = plan_sync(cfg, keps(), base.pages, max_chars=base.max_chars)
    moved = commit(wiki, {PAGE_PATH: PAGE.replace("End.", "Ended.")}, "a human edit on the base")
    seen = []

    def replan(new_base):
        seen.append((new_base.revision, new_base.pages[PAGE_PATH]))
        return plan_sync(cfg, keps(), new_base.pages, max_chars=new_base.max_chars)

    publication = backend.publish(first, replan)
    assert seen == [(moved, PAGE.replace("End.", "Ended.").encode())]
    assert publication.plan is not first and (publication.written, publication.blocked) == ([PAGE_PATH], False)
    assert git(wiki, "rev-parse", f"{BRANCH}^") == moved
    assert show(wiki, BRANCH) == PROMOTED.replace("End.", "Ended.")


def test_an_unmoved_base_lands_the_plan_as_given(wiki):
    cfg = git_config()
    backend = GitWiki(cfg, wiki)
    base = backend.read()
    plan = plan_sync(cfg, keps(), base.pages, max_chars=base.max_chars)
    publication = backend.publish(plan, lambda _: pytest.fail("replanned an unmoved base"))
    assert publication.plan is plan and show(wiki, BRANCH) == PROMOTED


def test_a_clean_linked_worktree_on_the_bot_branch_moves_with_it(wiki, tmp_path):
    run_git(wiki)
    review = tmp_path / "review"
    git(wiki, "worktree", "add", "-q", str(review), BRANCH)
    (review / "hooks-would-see-this").write_text("untracked file of the reviewer\n")
    run_git(wiki, keps(beta_4671="v1.38"))
    new = git(wiki, "rev-parse", BRANCH)
    assert git(review, "rev-parse", "HEAD") == new
    assert git(review, "status", "--porcelain", "--untracked-files=no") == ""
    blob = subprocess.run(
        ["git", "-C", str(wiki), "cat-file", "blob", f"{BRANCH}:{PAGE_PATH}"], capture_output=True, check=True
    ).stdout
    assert (review / PAGE_PATH).read_bytes() == blob
    assert (review / "hooks-would-see-this").read_text() == "untracked file of the reviewer\n"
    (review / "NOTE.md").write_text("reviewed\n")
    git(review, "add", "NOTE.md")
    git(review, "-c", "user.name=r", "-c", "user.email=r@x", "commit", "-qm", "note")
    assert show(wiki, BRANCH) == show(wiki, new)
    assert git(wiki, "log", "-1", "--format=%s", BRANCH) == "note"


def test_a_linked_worktree_with_changes_of_its_own_is_refused_and_left_alone(wiki, tmp_path):
    run_git(wiki)
    head = git(wiki, "rev-parse", BRANCH)
    review = tmp_path / "review"
    git(wiki, "worktree", "add", "-q", str(review), BRANCH)
    (review / PAGE_PATH).write_text("a reviewer's edit\n")
    with pytest.raises(PublishError) as caught:
        run_git(wiki, keps(beta_4671="v1.38"))
    assert str(caught.value) == (
        f"{wiki}: the bot branch {BRANCH} is checked out in the worktree {review}, which "
        "has changes of its own; commit or discard them, or switch that worktree to "
        "another branch, then run again"
    )
    assert git(wiki, "rev-parse", BRANCH) == head
    assert (review / PAGE_PATH).read_text() == "a reviewer's edit\n"


def test_a_worktree_that_checks_the_bot_branch_out_while_planning_moves_with_it(wiki, tmp_path):
    run_git(wiki)
    cfg = git_config()
    backend = GitWiki(cfg, wiki)
    base = backend.read()
    plan = plan_sync(cfg, keps(beta_4671="v1.38"), base.pages, max_chars=base.max_chars)
    git(wiki, "worktree", "add", "-q", str(tmp_path / "review"), BRANCH)
    backend.publish(plan, lambda _: pytest.fail("the base did not move"))
    assert git(tmp_path / "review", "rev-parse", "HEAD") == git(wiki, "rev-parse", BRANCH)
    assert git(tmp_path / "review", "status", "--porcelain") == ""


def test_a_bot_branch_checked_out_in_the_wiki_worktree_itself_keeps_its_message(wiki):
    run_git(wiki)
    git(wiki, "checkout", "-q", BRANCH)
    with pytest.raises(PublishError) as caught:
        run_git(wiki)
    assert str(caught.value) == f"{wiki}: the bot branch {BRANCH} is checked out; switch to the base branch first"


HOOK = '#!/bin/sh\necho hooked >> "$(git rev-parse --absolute-git-dir)/hooks-ran"\n{extra}\n'


def test_repository_hooks_never_run_or_change_the_bot_commit(wiki):
    hooks = wiki / ".git" / "hooks"
    for name, extra in [
        ("pre-commit", "exit 1"),
        ("prepare-commit-msg", 'echo HOOKED >> "$1"'),
        ("commit-msg", 'echo HOOKED >> "$1"'),
        ("post-commit", ""),
        ("reference-transaction", "exit 1"),
        ("post-checkout", "exit 1"),
    ]:
        for where in (hooks, wiki / ".githooks"):
            where.mkdir(exist_ok=True)
            (where / name).write_text(HOOK.format(extra=extra))
            (where / name).chmod(0o755)
    git(wiki, "config", "core.hooksPath", ".githooks")  # the repository's own hooks directory: not run either
    plan, written, *_ = run_git(wiki)
    message = git(wiki, "log", "-1", "--format=%B", BRANCH)
    assert written == [PAGE_PATH] and show(wiki, BRANCH) == PROMOTED
    assert message.startswith(plan.changelog.commit_message.strip()) and "HOOKED" not in message
    assert git(wiki, "log", "-1", "--format=%an <%ae>|%cn <%ce>", BRANCH) == (
        "kep-sync <kep-sync@users.noreply.github.com>|kep-sync <kep-sync@users.noreply.github.com>"
    )
    assert not (wiki / ".git" / "hooks-ran").exists()


def test_the_log_says_the_bot_branch_was_created_then_updated(wiki):
    from structlog.testing import capture_logs

    with capture_logs() as logs:
        run_git(wiki)
    base = git(wiki, "rev-parse", "main")
    assert [(e["event"], e.get("head"), e.get("base")) for e in logs if e["event"].startswith("bot branch")] == [
        ("bot branch created", git(wiki, "rev-parse", BRANCH), base)
    ]
    with capture_logs() as logs:
        run_git(wiki, keps(beta_4671="v1.36"))
    assert [(e["event"], e.get("fast_forward")) for e in logs if e["event"].startswith("bot branch")] == [
        ("bot branch updated", True)
    ]


def test_the_pull_request_footer_names_only_what_applies_to_a_local_clone():
    from bot.plan.changelog.controls import controls

    lines = controls(Config.model_validate({"publish": "git", "schedule": {"cron": "0 6 * * *"}}).steering())
    assert lines[:2] == [
        "- **Runs** when `kep-sync sync --publish git` runs (or on `0 6 * * *` (UTC) under `kep-sync serve`); each "
        "run updates `kep-sync/matrix` in the clone from the base branch and upstream; push it again after a run "
        "(with `--force-with-lease` when it was rebuilt on a new base).",
        "- **Edited branch**: a commit kep-sync did not make on `kep-sync/matrix` stops it; delete the branch "
        "(`git branch -D kep-sync/matrix`) to let kep-sync start it afresh.",
    ]
    assert lines[2].startswith("- **Ignore rules**: ") and len(lines) == 3
