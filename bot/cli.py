"""Command line: ``kep-sync sync|validate`` (argparse). Exit codes: 0 success, 1 run failed, 2 usage or config error."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from bot import __version__
from bot.config import Config, find_config_path, load_config
from bot.errors import ConfigError, KepSyncError, UsageError
from bot.http import RequestCounter, redact
from bot.log import configure, get_logger

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def _kep_numbers(value: str) -> list[int]:
    numbers = []
    for part in value.replace(",", " ").split():
        part = part.upper().removeprefix("KEP-")
        if not part.isdigit():
            raise argparse.ArgumentTypeError(f"{value!r}: expected KEP numbers like 4671 or 4671,5710")
        numbers.append(int(part))
    return numbers


def build_parser() -> argparse.ArgumentParser:
    """The argparse parser for every subcommand."""
    parser = argparse.ArgumentParser(prog="kep-sync", description="Keep a KEP tracking wiki matrix true.")
    parser.add_argument("--version", action="version", version=f"kep-sync {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    sync = sub.add_parser("sync", help="run one sync")
    sync.add_argument("--config", help="config file (default: $KEP_SYNC_CONFIG or config/kep-sync.yaml)")
    sync.add_argument("--enhancements", metavar="SRC",
                      help="directory with keps/, git repository/URL/bundle, or github:OWNER/REPO@REF")
    sync.add_argument("--wiki", metavar="DIR", help="wiki directory (overrides wiki.dir)")
    sync.add_argument("--page", metavar="PATH", action="append",
                      help="page relative to the wiki directory; repeatable (overrides wiki.pages)")
    sync.add_argument("--publish", choices=["none", "files", "git", "github"], help="where the result goes")
    sync.add_argument("--report", metavar="FILE", help="write the JSON report here")
    sync.add_argument("--kep", metavar="N", action="append", type=_kep_numbers,
                      help="only these KEP numbers (repeatable, or comma-separated)")

    validate = sub.add_parser("validate", help="check a config file and print every error")
    validate.add_argument("--config", help="config file (default: $KEP_SYNC_CONFIG or config/kep-sync.yaml)")
    return parser


def resolve_config(args: argparse.Namespace) -> Config:
    """The config file's settings with command-line overrides applied; raises :class:`ConfigError`."""
    config = load_config(find_config_path(getattr(args, "config", None)))
    updates: dict = {}
    if getattr(args, "enhancements", None):
        updates["enhancements"] = args.enhancements
    if getattr(args, "publish", None):
        updates["publish"] = args.publish
    wiki: dict = {}
    if getattr(args, "wiki", None):
        wiki["dir"] = args.wiki
    if getattr(args, "page", None):
        wiki["pages"] = args.page
    if wiki:
        updates["wiki"] = config.wiki.model_copy(update=wiki)
    return config.model_copy(update=updates)


def cmd_sync(args: argparse.Namespace) -> int:
    """Run one sync; print the changelog on stdout."""
    from bot.sync import run_sync

    config = resolve_config(args)
    only = sorted({n for group in args.kep for n in group}) if args.kep else None
    counter = RequestCounter()
    log = get_logger(command="sync")
    start = time.monotonic()
    outcome = run_sync(config, only=only, report_path=Path(args.report) if args.report else None, counter=counter)
    plan = outcome.plan
    sys.stdout.write(f"# {plan.changelog.title}\n\n{plan.changelog.body}")
    log.info("sync finished", revision=plan.snapshot.revision, changes=sum(c.applied for c in plan.changes),
             findings=sum(not c.applied for c in plan.changes), pages_written=len(outcome.written),
             pull_request=outcome.url, http_requests=counter.count,
             duration_seconds=round(time.monotonic() - start, 3))
    return EXIT_OK


def cmd_validate(args: argparse.Namespace) -> int:
    """Print ``ok`` or every config error; exit 0 or 2."""
    load_config(find_config_path(args.config))
    print("ok")
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``kep-sync`` console script; returns the exit code."""
    args = build_parser().parse_args(argv)
    configure()
    handler = {"sync": cmd_sync, "validate": cmd_validate}[args.command]
    try:
        return handler(args)
    except (ConfigError, UsageError) as exc:
        print(f"kep-sync: {redact(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    except KepSyncError as exc:
        print(f"kep-sync: error: {redact(str(exc))}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("kep-sync: interrupted", file=sys.stderr)
        return EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
