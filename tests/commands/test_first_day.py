"""What a new user meets on a first day: the help names the config files in the order they are read, and an
``--enhancements`` that is no kubernetes/enhancements (a plain folder or a git repository) gets one clear
message and exit 2."""

from __future__ import annotations

from bot.cli.parser import build_parser


def _option_help(command: str, option: str) -> str:
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    parser = sub.choices[command]
    return next(a.help for a in parser._actions if option in a.option_strings)


def test_the_help_names_the_config_files_in_the_order_they_are_read():
    for command in ("sync", "audit", "validate", "serve", "history", "digest", "health", "targets"):
        assert _option_help(command, "--config") == (
            "config file (default: $KEP_SYNC_CONFIG, else kep-sync.yaml, else config/kep-sync.yaml in the working "
            "directory)"
        ), command


def _enhancements_error(tmp_path, monkeypatch, capsys, source: str) -> tuple[int, str]:
    from bot.cli.main import main

    (tmp_path / "wiki").mkdir(exist_ok=True)
    (tmp_path / "wiki" / "m.md").write_text("| KEP | Status |\n|---|---|\n| 4671-gang | implementable |\n")
    monkeypatch.chdir(tmp_path)
    code = main(["sync", "--wiki", "wiki", "--page", "m.md", "--enhancements", source, "--publish", "none"])
    return code, capsys.readouterr().err.strip().splitlines()[-1].replace(f" (relative to {tmp_path})", "")


WHAT = "not a directory with keps/, a .tar.gz snapshot, a git repository, a bundle, a URL or github:OWNER/REPO@REF"


def test_an_enhancements_that_is_no_kubernetes_enhancements_is_a_usage_error_folder_or_git(
    tmp_path, monkeypatch, capsys
):
    from tests.gitutil import git

    (tmp_path / "folder").mkdir()
    assert _enhancements_error(tmp_path, monkeypatch, capsys, "folder") == (
        2,
        f"kep-sync: error: enhancements (--enhancements) 'folder': {WHAT}",
    )
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "README.md").write_text("not enhancements\n")
    git(repo, "add", "README.md")
    git(repo, "commit", "-qm", "one")
    head = git(repo, "rev-parse", "HEAD")[:12]
    assert _enhancements_error(tmp_path, monkeypatch, capsys, "repo") == (
        2,
        f"kep-sync: error: enhancements (--enhancements) 'repo': a git repository with no keps/ folder at revision "
        f"{head}; {WHAT}",
    )
    # HEAD names no branch and two branches, neither master nor main: nothing to read, said as clearly
    git(repo, "branch", "-m", "a")
    git(repo, "branch", "b")
    git(repo, "symbolic-ref", "HEAD", "refs/heads/gone")
    assert _enhancements_error(tmp_path, monkeypatch, capsys, "repo") == (
        2,
        "kep-sync: error: enhancements (--enhancements) 'repo': a git repository with no HEAD and no single default "
        f"branch; {WHAT}",
    )


def test_watch_all_and_sig_are_one_choice_as_the_synopsis_says(capsys):
    try:
        build_parser().parse_args(["watch", "--all", "--sig", "node"])
    except SystemExit as done:
        assert done.code == 2
    else:
        raise AssertionError("watch --all --sig node was accepted")
    assert "argument --sig: not allowed with argument --all" in capsys.readouterr().err
    assert "[--all | --sig NAME]" in build_parser()._subparsers._group_actions[0].choices["watch"].format_usage()
