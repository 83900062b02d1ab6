"""The command line's grammar: the argparse parser of every ``kep-sync`` command and its options (no
handlers; :mod:`bot.cli.main` runs them)."""

from __future__ import annotations

import argparse
import re

from bot import __version__
from bot.config.load import DEFAULT_CONFIG_PATHS

#: The ``--config`` help: the files tried in order when it is not given (:func:`bot.config.load.find_config_path`).
CONFIG_HELP = (
    "config file (default: $KEP_SYNC_CONFIG, else "
    + ", else ".join(p.as_posix() for p in DEFAULT_CONFIG_PATHS)
    + " in the working directory)"
)


def _kep_numbers(value: str) -> list[int]:
    """``"4671,KEP-5710 6000"`` -> ``[4671, 5710, 6000]``; argparse turns the error into exit 2."""
    parts = value.replace(",", " ").split()
    numbers = []
    for part in parts:
        part = part.upper().removeprefix("KEP-")
        if not re.fullmatch(r"[0-9]{1,9}", part):
            raise argparse.ArgumentTypeError(f"{value!r}: expected KEP numbers like 4671 or 4671,5710")
        numbers.append(int(part))
    if not numbers:
        raise argparse.ArgumentTypeError(f"{value!r}: expected KEP numbers like 4671 or 4671,5710")
    return numbers


def _kep_number(value: str) -> int:
    """``"KEP-4671"`` -> ``4671`` (``kep-sync history N`` takes one); argparse turns the error into exit 2."""
    part = value.strip().upper().removeprefix("KEP-")
    if not re.fullmatch(r"[0-9]{1,9}", part):
        raise argparse.ArgumentTypeError(f"{value!r}: expected one KEP number like 4671")
    return int(part)


def build_parser() -> argparse.ArgumentParser:
    """The argparse parser for every subcommand."""
    parser = argparse.ArgumentParser(prog="kep-sync", description="Keep a KEP tracking wiki matrix true.")
    parser.add_argument("--version", action="version", version=f"kep-sync {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for add in (
        _add_sync_and_audit,
        _add_validate_and_targets,
        _add_serve,
        _add_history_and_digest,
        _add_health,
        _add_init,
    ):
        add(sub)
    _log_format_option(parser, argparse.SUPPRESS)
    for cmd in sub.choices.values():  # after the command too: kep-sync sync --log-format json
        _log_format_option(cmd, argparse.SUPPRESS)
    return parser


#: ``--state-dir`` help of serve and health.
_ENHANCEMENTS_HELP = "directory with keps/, git repository/URL/bundle, or github:OWNER/REPO@REF"
_PUBLISH_CHOICES = ("none", "files", "git", "github")
_STATE_HELP = "state directory (default: $KEP_SYNC_STATE_DIR or ~/.local/state/kep-sync)"


def _add_sync_and_audit(sub: argparse._SubParsersAction) -> None:
    """``sync``, ``audit`` and ``watch``: the same source, wiki and report options; sync also takes targets."""
    from bot.cli.targets import add_target_options

    sync = sub.add_parser("sync", help="run one sync")
    audit = sub.add_parser("audit", help="every check on every row of pages already in sync; writes nothing")
    watch = sub.add_parser(
        "watch", help="the signs so far of each stage the pages' KEPs plan in the release in progress"
    )
    for cmd in (sync, audit, watch):
        cmd.add_argument("--config", help=CONFIG_HELP)
        cmd.add_argument(
            "--enhancements",
            metavar="SRC",
            help=_ENHANCEMENTS_HELP,
        )
        cmd.add_argument("--wiki", metavar="DIR", help="wiki directory (overrides wiki.dir)")
        cmd.add_argument(
            "--page",
            metavar="PATH",
            action="append",
            help="page relative to the wiki directory; repeatable (overrides wiki.pages)",
        )
        cmd.add_argument(
            "--publish",
            choices=_PUBLISH_CHOICES,
            help="where the result goes"
            if cmd is sync
            else "accepted as for sync; the audit reads the pages as --publish none does",
        )
        cmd.add_argument("--report", metavar="FILE", help="write the JSON report here")
        cmd.add_argument(
            "--kep",
            metavar="N",
            action="append",
            type=_kep_numbers,
            help="only these KEP numbers (repeatable, or comma-separated)",
        )
        cmd.add_argument(
            "--release-notes",
            metavar="SRC",
            help="release notes as evidence: a directory of release-notes-1.NN.json or "
            "github:OWNER/REPO@REF (overrides release_notes.source)",
        )
        cmd.add_argument(
            "--gate-lifecycle",
            metavar="SRC",
            help="feature-gate lifecycle: a versioned_feature_list.yaml, a directory of lists named "
            "by release, or github:kubernetes/kubernetes (overrides gate_lifecycle.source)",
        )
        cmd.add_argument(
            "--sig-release",
            metavar="SRC",
            help="the release team's records (key dates, freeze exceptions): a copy of kubernetes/sig-release "
            "or github:OWNER/REPO@REF (overrides release.sig_release)",
        )
    for cmd in (sync, audit, watch):
        add_target_options(cmd)
    watch.add_argument("--release", metavar="vX.Y", help="the release in progress (overrides release.current)")
    watch.add_argument(
        "--started", metavar="DATE", help="the day its cycle began, YYYY-MM-DD (overrides release.started)"
    )
    scope = watch.add_mutually_exclusive_group()
    scope.add_argument(
        "--all",
        action="store_true",
        dest="whole",
        help="every kep.yaml that names the release, by SIG, page rows marked (default: the pages' KEPs)",
    )
    scope.add_argument("--sig", metavar="NAME", help="the whole release of one owning SIG (node, sig-node)")
    watch.add_argument(
        "--today",
        metavar="DATE",
        help="the day the watch stands on, YYYY-MM-DD in UTC, for the release calendar (overrides release.today)",
    )
    sync.add_argument(
        "--state-dir",
        metavar="DIR",
        help="with targets: each target's state, changelog and report go to DIR/targets/NAME "
        "(default: $KEP_SYNC_STATE_DIR or ~/.local/state/kep-sync)",
    )


def _add_validate_and_targets(sub: argparse._SubParsersAction) -> None:
    """``validate`` (check a config) and ``targets`` (list its targets)."""
    from bot.cli.targets import add_target_options

    validate = sub.add_parser("validate", help="check a config file and print every error")
    validate.add_argument("--config", help=CONFIG_HELP)
    validate.add_argument(
        "--publish",
        choices=_PUBLISH_CHOICES,
        help="validate as the sync will run with this --publish",
    )
    validate.add_argument(
        "--online",
        action="store_true",
        help="also resolve github: refs, git URLs and the wiki repository (one request each)",
    )
    validate.add_argument(
        "--list-targets",
        action="store_true",
        help="print the target names as a JSON list instead of ok (as kep-sync targets)",
    )
    add_target_options(validate)
    targets = sub.add_parser("targets", help="print the names of the config's targets as a JSON list")
    targets.add_argument("--config", help=CONFIG_HELP)
    add_target_options(targets)


def _add_serve(sub: argparse._SubParsersAction) -> None:
    """``serve``: syncs on the configured schedule."""
    from bot.cli.targets import add_target_options

    serve = sub.add_parser("serve", help="run syncs on the configured schedule until SIGTERM, SIGINT or SIGHUP")
    serve.add_argument("--config", help=CONFIG_HELP)
    serve.add_argument("--state-dir", metavar="DIR", help=_STATE_HELP)
    serve.add_argument("--run-now", action="store_true", help="run once at start, then on the schedule")
    add_target_options(serve)


def _add_history_and_digest(sub: argparse._SubParsersAction) -> None:
    """``history`` (one KEP's timeline) and ``digest`` (a SIG's graduations in a range of releases)."""
    history = sub.add_parser("history", help="timeline of one KEP from the enhancements git history")
    history.add_argument("number", type=_kep_number, metavar="N", help="KEP number (4671 or KEP-4671)")
    history.add_argument("--config", help=CONFIG_HELP)
    history.add_argument(
        "--enhancements", metavar="SRC", help="git clone, git URL or bundle (a directory must be a git checkout)"
    )
    history.add_argument("--format", choices=["text", "json"], default="text", help="output format")

    digest = sub.add_parser("digest", help="KEPs of a SIG that reached alpha, beta or stable in releases vA..vB")
    digest.add_argument("--config", help=CONFIG_HELP)
    digest.add_argument(
        "--enhancements",
        metavar="SRC",
        help=_ENHANCEMENTS_HELP,
    )
    digest.add_argument("--sig", required=True, help="SIG name: node or sig-node")
    digest.add_argument("--from", dest="first", required=True, metavar="vA", help="first release (v1.33)")
    digest.add_argument("--to", dest="last", required=True, metavar="vB", help="last release (v1.35)")
    when = digest.add_mutually_exclusive_group()
    when.add_argument("--at", metavar="DATE", help="kep.yaml as of this date (YYYY-MM-DD, UTC, whole day)")
    when.add_argument("--revision", metavar="REV", help="kep.yaml at this commit, branch or tag")
    digest.add_argument("--format", choices=["markdown", "json"], default="markdown", help="output format")


def _add_health(sub: argparse._SubParsersAction) -> None:
    """``health``: whether the last run succeeded within the schedule."""
    from bot.cli.targets import add_target_options

    health = sub.add_parser("health", help="exit 0 when the last run succeeded within the schedule, else 1")
    health.add_argument("--config", help=CONFIG_HELP)
    health.add_argument("--state-dir", metavar="DIR", help=_STATE_HELP)
    add_target_options(health)


def _add_init(sub: argparse._SubParsersAction) -> None:
    """``init``: a first config from the KEP tables of a wiki."""
    init = sub.add_parser("init", help="write a first config from the KEP tables of a wiki; works offline")
    init.add_argument("--wiki", metavar="DIR", help="wiki directory: every *.md page under it is read")
    init.add_argument(
        "--page",
        metavar="FILE",
        action="append",
        default=[],
        help="a page to read (repeatable); relative to --wiki when given, else a file path",
    )
    init.add_argument(
        "--output",
        metavar="PATH",
        default="kep-sync.yaml",
        help="config file to write (default: kep-sync.yaml); an existing file is never overwritten",
    )
    init.add_argument("--enhancements", metavar="SRC", help="write this enhancements source into the config")


def _log_format_option(parser: argparse.ArgumentParser, default: object) -> None:
    parser.add_argument(
        "--log-format",
        choices=["auto", "json", "text"],
        default=default,
        help="log lines on stderr: readable text or JSON lines (default auto: text on a terminal, else JSON)",
    )
