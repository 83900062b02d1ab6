"""Command line: ``kep-sync sync|audit|watch|validate|serve|health|history|digest|targets|init`` (argparse). Exit codes: 0
success, 1 run failed, 2 usage or config error."""

from __future__ import annotations

import argparse
import errno
import gc
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from bot.service.stopsignals import block_stop_signals

# ``kep-sync serve`` (console script or ``python -m bot.cli.main``): block them before the slow imports below.
if sys.argv[1:2] == ["serve"] and os.path.basename(sys.argv[0]) in ("kep-sync", "cli.py"):
    block_stop_signals()

from bot.cli.output import (
    os_error_message,
    pages_not_inputs,
    print_error,
    report_path,
    tell_what_landed,
    to_stderr,
    write_output,
)
from bot.cli.parser import build_parser
from bot.errors import ConfigError, KepSyncError, ReportNotWritten, UsageError
from bot.http import RequestCounter
from bot.progress import LOG_FORMAT_ENV, LOG_FORMATS, log_format
from bot.redact import redact

if TYPE_CHECKING:
    from bot.config import Config

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


#: Commands that read the wiki: without a config file (and without ``--wiki``) they stop, saying where they looked.
NEEDS_CONFIG = ("sync", "audit", "serve", "health", "validate")


def config_not_found() -> str:
    """The error of a command in :data:`NEEDS_CONFIG` that found no config file (:func:`bot.configpaths.not_found`)."""
    from bot.config import DEFAULT_CONFIG_PATHS
    from bot.configpaths import not_found

    return not_found(DEFAULT_CONFIG_PATHS, os.getcwd())


def resolve_config(args: argparse.Namespace) -> Config:
    """The config file's settings with command-line overrides applied and validated again.

    The overrides go into the settings as written, so what neither the file nor the command line
    sets keeps its default without being checked again (a default is valid by construction). Only
    the settings in effect are validated (cross-key checks such as ``candidates.add_to.page`` in
    ``wiki.pages`` see the ``--page`` list); an error the file has on its own names the file, one
    that comes with the overrides names the file "with the command-line options".

    Raises :class:`ConfigError` naming the file or ``command line`` and the key
    (e.g. ``--page ../x.md`` is refused like ``wiki.pages`` in a file), or the paths tried when a command of
    :data:`NEEDS_CONFIG` finds no config file and ``--wiki`` is not given (the built-in ``wiki.dir`` would name
    kep-sync's own example), and :class:`UsageError` for an empty ``--wiki``.
    """
    from bot.config import find_config_path, read_config_data, validate_config  # pydantic: loaded here, on first use

    path = find_config_path(getattr(args, "config", None))
    if path is None and args.command in NEEDS_CONFIG and getattr(args, "wiki", None) is None:
        raise ConfigError(config_not_found())
    raw = read_config_data(path)
    data = {key: dict(value) if isinstance(value, dict) else value for key, value in raw.items()}
    if getattr(args, "enhancements", None) is not None:
        data["enhancements"] = args.enhancements
    if getattr(args, "publish", None) is not None:
        data["publish"] = args.publish
    if getattr(args, "release_notes", None) is not None:
        data.setdefault("release_notes", {})["source"] = args.release_notes
    if getattr(args, "gate_lifecycle", None) is not None:
        data.setdefault("gate_lifecycle", {})["source"] = args.gate_lifecycle
    for flag, key in (
        ("release", "current"),
        ("started", "started"),
        ("sig_release", "sig_release"),
        ("today", "today"),
    ):
        if getattr(args, flag, None) is not None:
            data.setdefault("release", {})[key] = getattr(args, flag)
    if getattr(args, "wiki", None) is not None:
        if not args.wiki.strip():
            raise UsageError("--wiki '': empty; name the wiki directory")
        data.setdefault("wiki", {})["dir"] = args.wiki
    if getattr(args, "page", None) is not None:
        data.setdefault("wiki", {})["pages"] = args.page
    if data == raw:
        return _records_source(validate_config(raw, str(path) if path else "environment"), str(path or "environment"))
    # Only the settings in effect are validated: a file whose candidates.add_to.page is not in its own
    # wiki.pages is fine with --page naming that page.
    both = f"{path} with the command-line options" if path else "command line"
    try:
        config = validate_config(data, both)
    except ConfigError as exc:
        raise ConfigError(
            "\n".join(_blame(str(exc).split("\n"), both, raw, str(path) if path else "environment"))
        ) from None
    return (
        config
        if getattr(args, "sig_release", None) is not None
        else _records_source(config, str(path or "environment"))
    )


def _records_source(config: Config, path: str) -> Config:
    """``config``; raises :class:`ConfigError` naming the config file ``path`` and ``release.sig_release`` when
    that key (not ``--sig-release``) names a local source that is not a copy of kubernetes/sig-release."""
    if not config.release.sig_release:
        return config
    from bot.commands.validate import records_problems

    problems = records_problems(config.release.sig_release)
    if problems:
        raise ConfigError(f"{path}: {problems[0]}")
    return config


def _blame(lines: list[str], both: str, raw: dict, source: str) -> list[str]:
    """Error ``lines`` of the settings in effect (each ``BOTH: key: message``), each naming the file alone
    (``source``) when the file's own settings (``raw``) have that very error."""
    from bot.config import validate_config

    try:
        validate_config(raw, source)
        own: set[str] = set()
    except ConfigError as exc:
        own = set(str(exc).split("\n"))
    return [f"{source}{line[len(both) :]}" if f"{source}{line[len(both) :]}" in own else line for line in lines]


def cmd_sync(args: argparse.Namespace) -> int:
    """Run one sync; print the changelog on stdout, after a first line saying nothing was published when the
    run was blocked (``result: blocked``)."""
    config = resolve_config(args)
    if config.targets or args.target or args.shard:
        from bot.cli.targets import cmd_sync_targets

        return cmd_sync_targets(args, config, write_output)
    start = time.monotonic()
    from bot.commands.sync import run_sync
    from bot.log import get_logger

    only = sorted({n for group in args.kep for n in group}) if args.kep else None
    counter = RequestCounter()
    log = get_logger(command="sync")
    try:
        pages_not_inputs(args, config)
        outcome = run_sync(config, only=only, report_path=report_path(args, config), counter=counter)
        unreported = None
    except ReportNotWritten as exc:  # the publish landed: say so, with the changelog and pull request
        outcome, unreported = exc.outcome, exc
    plan = outcome.plan
    note = (
        f"> **Blocked: nothing was published.** The bot branch `{config.pull_request.branch}` has commits "
        "kep-sync did not make (see the log); below is what this run would have published.\n\n"
        if outcome.blocked
        else ""
    )
    write_output(f"{note}# {plan.changelog.title}\n\n{plan.changelog.body}", "the changelog")
    from bot.commands.sync import run_report, run_summary

    summary = run_summary(run_report(config, plan.snapshot, plan, outcome))  # what the report says
    del summary["error"]  # a run that got here did not fail
    level = log.warning if outcome.blocked else log.info
    from bot.commands.next_steps import listed_in, problems_line

    left = summary["rows_with_problems"]
    level(
        "sync finished",
        **summary,
        rows_listed_in=listed_in("stdout", args.report) if left else None,
        findings=sum(not c.applied for c in plan.changes),
        blocked=outcome.blocked,
        http_requests=counter.count,
        duration_seconds=round(time.monotonic() - start, 3),
    )
    if left and log_format(getattr(args, "log_format", None)) == "text":
        to_stderr(problems_line(left, "stdout", args.report) + "\n")
    tell_what_landed(args, config, outcome, log)
    if unreported is not None:
        landed = f"pull request {outcome.url}" if outcome.url else f"{len(outcome.written)} page(s) written"
        raise KepSyncError(f"the publish succeeded ({landed}), but the report could not be written: {unreported}")
    return EXIT_OK


def cmd_audit(args: argparse.Namespace) -> int:
    """Audit every row (:func:`bot.commands.sync.run_audit`); print the markdown audit on stdout; exit 0."""
    from bot.cli.targets import one_target
    from bot.commands.sync import run_audit

    config = one_target(args, resolve_config(args))
    only = sorted({n for group in args.kep for n in group}) if args.kep else None
    counter = RequestCounter()
    start = time.monotonic()
    audit = run_audit(config, only=only, report_path=report_path(args, config), counter=counter)
    write_output(audit.markdown, "the audit")
    from bot.commands.audit import log_fields
    from bot.commands.next_steps import listed_in
    from bot.log import get_logger

    fields = log_fields(audit)
    get_logger(command="audit").info(
        "audit finished",
        **fields,
        rows_listed_in=listed_in("stdout", args.report, "audit") if fields["rows_with_problems"] else None,
        http_requests=counter.count,
        duration_seconds=round(time.monotonic() - start, 3),
    )
    return EXIT_OK


def cmd_watch(args: argparse.Namespace) -> int:
    """Print the watch of the release in progress (:func:`bot.commands.watch.run_watch`); exit 0."""
    from bot.cli.targets import one_target
    from bot.commands.watch import run_watch

    if args.sig is not None and not args.sig.strip():
        raise UsageError("--sig '': empty; name the owning SIG (node, sig-node)")
    config = one_target(args, resolve_config(args))
    only = sorted({n for group in args.kep for n in group}) if args.kep else None
    done = run_watch(
        config,
        only=only,
        report_path=report_path(args, config),
        counter=RequestCounter(),
        whole=args.whole or bool(args.sig),
        sig=args.sig or "",
    )
    write_output(done.text, "the watch")
    return EXIT_OK


def cmd_validate(args: argparse.Namespace) -> int:
    """Print ``ok``, or every problem on stderr (``kep-sync: error: FILE: key: what is wrong``, one per line);
    exit 0, 2 (a setting is wrong) or 1 (``--online`` could not reach the network for a check). Checks the settings (all
    of them, :func:`bot.config.collect_config`), then what can be
    checked on disk for the settings that are valid (:mod:`bot.commands.validate`), then, when nothing was found,
    with ``--online`` what needs the network."""
    from bot.commands import validate as preflight
    from bot.config import collect_config, find_config_path, read_config_data

    path = find_config_path(args.config)
    if path is None:
        raise ConfigError(config_not_found())
    raw = read_config_data(path)
    checked = collect_config(raw, str(path))
    if args.publish is not None and args.publish != raw.get("publish"):
        seen = {line.split(": ", 1)[1] for line in checked.errors}
        again = collect_config(
            {**raw, "publish": args.publish}, f"{path} with the command-line options" if path else "command line"
        )
        checked = again._replace(errors=checked.errors + [e for e in again.errors if e.split(": ", 1)[1] not in seen])
    source = str(path)
    config = checked.config  # None only with errors
    problems = (
        preflight.offline_problems(config, checked.dropped) if config is not None and not config.targets else []
    )  # targets: each one's own
    failures: list[str] = []
    if args.online and config is not None and not problems and not checked.errors:
        from bot.http import make_client

        with make_client(os.environ.get("GITHUB_TOKEN") or None) as client:
            problems = preflight.online_problems(config, client, failures)
    if config is not None and not checked.errors:
        from bot.cli.targets import target_errors

        problems += [line.removeprefix(f"{source}: ") for line in target_errors(config, source)]
    lines = checked.errors + [f"{source}: {p}" for p in problems + failures]
    if config is None or checked.errors or problems:
        raise ConfigError("\n".join(lines))
    if failures:  # the network did not answer: the run failed, the settings may be right (exit 1)
        raise KepSyncError("\n".join(lines + ["could not check online; try again, or check the network"]))
    if args.list_targets or args.target or args.shard:
        from bot.cli.targets import cmd_targets

        return cmd_targets(args, config, write_output)
    write_output("ok\n")
    return EXIT_OK


def cmd_init(args: argparse.Namespace) -> int:
    """Write a first config from the wiki's KEP tables (:func:`bot.commands.init.init_config`); print what it
    found and the next command."""
    from bot.commands.init import init_config, invoked_as, summary_lines

    done = init_config(
        args.output,
        wiki=args.wiki,
        pages=args.page,
        enhancements=args.enhancements,
        cwd=Path.cwd(),
        program=invoked_as(sys.argv[0]),
    )
    write_output("\n".join(summary_lines(done)) + "\n", "the summary")
    return EXIT_OK


def _state_dir(args: argparse.Namespace) -> Path:
    from bot.service.state import default_state_dir

    return Path(args.state_dir) if args.state_dir else default_state_dir()


def cmd_serve(args: argparse.Namespace) -> int:
    """Run the scheduler service (``bot.service.serve.serve``) until SIGTERM/SIGINT/SIGHUP; exit 0. Refuses to
    start (exit 2) with every problem ``kep-sync validate`` finds offline (:func:`bot.cli.targets.startup_problems`)."""
    from bot.cli.targets import serve_job, startup_problems
    from bot.service.serve import serve

    config = resolve_config(args)
    job = serve_job(args, config)  # an unknown --target first, as sync names it
    problems = startup_problems(args, config)
    if problems:  # as validate rejects it: never start a service whose every run would fail
        raise ConfigError("\n".join([*problems, "the service did not start (kep-sync validate names the same)"]))
    return serve(config, _state_dir(args), run_now=args.run_now, job=job)


def cmd_list_targets(args: argparse.Namespace) -> int:
    """Print the names of the config's targets as a JSON list (:func:`bot.cli.targets.cmd_targets`)."""
    from bot.cli.targets import cmd_targets

    return cmd_targets(args, resolve_config(args), write_output)


def cmd_health(args: argparse.Namespace) -> int:
    """Print the health verdict of the service using ``--state-dir``; exit 0 healthy, 1 not (a bad config and
    a corrupt state file included: Docker reserves exit code 2 in health checks)."""
    import datetime

    from bot.cron import parse_crontab
    from bot.service.health import Health, check_health
    from bot.service.state import StateError, read_state

    try:
        config = resolve_config(args)
        if config.targets or args.target or args.shard:
            from bot.cli.targets import cmd_health_targets

            return cmd_health_targets(args, config)
        verdict = check_health(
            read_state(_state_dir(args)),
            parse_crontab(config.schedule.cron, config.schedule.timezone),
            datetime.datetime.now(datetime.UTC),
        )
    except (ConfigError, UsageError) as exc:  # exit 1, never 2: Docker reserves 2 in health checks
        verdict = Health(False, "configuration error: " + "; ".join(str(exc).split("\n")))
    except StateError as exc:
        verdict = Health(False, str(exc))
    reason = "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in redact(verdict.reason))
    print(("healthy: " if verdict.ok else "unhealthy: ") + reason)
    return EXIT_OK if verdict.ok else EXIT_FAILED


def cmd_history(args: argparse.Namespace) -> int:
    """Print the timeline of one KEP (``bot.commands.history.history_text``)."""
    from bot.commands.history import history_text
    from bot.commands.inputs import Inputs

    write_output(history_text(Inputs(resolve_config(args)), args.number, args.format))
    return EXIT_OK


def cmd_digest(args: argparse.Namespace) -> int:
    """Print the digest of one SIG for a release range (``bot.commands.history.digest_text``)."""
    from bot.commands.history import digest_text
    from bot.commands.inputs import Inputs

    write_output(
        digest_text(
            Inputs(resolve_config(args)),
            args.sig,
            args.first,
            args.last,
            at=args.at or "",
            revision=args.revision or "",
            fmt=args.format,
        )
    )
    return EXIT_OK


def configure_logging(fmt: str | None = None) -> None:
    """Logs on stderr in the format ``fmt`` (``--log-format``; :func:`bot.log.configure`), and the progress
    lines of slow steps when that is text on a terminal (:func:`bot.progress.enable`); structlog is imported
    here, on first use."""
    from bot import progress
    from bot.log import configure

    configure(fmt=fmt)
    progress.enable(fmt)


def load_token_file() -> None:
    """Docker/Kubernetes secrets: read ``GITHUB_TOKEN`` from the file ``$GITHUB_TOKEN_FILE`` when unset.

    Raises :class:`UsageError` naming the file when it cannot be read (for a permission refused, also the uid
    kep-sync runs as and the fix).
    """
    from bot.fileread import SECRET_BYTES, read_regular_text

    path = os.environ.get("GITHUB_TOKEN_FILE")
    if not path or os.environ.get("GITHUB_TOKEN"):
        return
    try:
        os.environ["GITHUB_TOKEN"] = read_regular_text(path, SECRET_BYTES).strip()
    except PermissionError as exc:
        uid = os.geteuid()
        raise UsageError(
            f"GITHUB_TOKEN_FILE {path}: cannot read: {exc.strerror or exc}; kep-sync runs as uid {uid} (10001 in "
            f"the container image), which must be able to read it: give the file to that user where it is mounted "
            f"from (chown {uid} FILE on the host; it may stay chmod 600)"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"GITHUB_TOKEN_FILE {path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``kep-sync`` console script; returns the exit code."""
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # argparse's usage error is exit 2, which Docker reserves in health checks
        if exc.code == EXIT_USAGE and argv[:1] == ["health"]:
            return EXIT_FAILED
        raise
    if args.command == "serve":
        block_stop_signals()
    if (os.environ.get(LOG_FORMAT_ENV) or "auto") not in LOG_FORMATS:
        to_stderr(
            f"kep-sync: error: {LOG_FORMAT_ENV} {os.environ[LOG_FORMAT_ENV]!r}: not one of {', '.join(LOG_FORMATS)}\n"
        )
        return EXIT_FAILED if args.command == "health" else EXIT_USAGE
    configure_logging(getattr(args, "log_format", None))
    handler = {
        "sync": cmd_sync,
        "audit": cmd_audit,
        "watch": cmd_watch,
        "validate": cmd_validate,
        "serve": cmd_serve,
        "health": cmd_health,
        "history": cmd_history,
        "digest": cmd_digest,
        "targets": cmd_list_targets,
        "init": cmd_init,
    }[args.command]
    # What is loaded by now (the modules, pydantic's validators) lives as long as the command: keep the
    # cyclic garbage collector from walking it again in every collection that the many short-lived
    # objects of a run (YAML nodes, rows) set off. A quarter of a dry run's CPU time went there.
    gc.freeze()
    try:
        load_token_file()
        return handler(args)
    except (ConfigError, UsageError) as exc:
        print_error(exc)
        return EXIT_FAILED if args.command == "health" else EXIT_USAGE  # Docker reserves 2 in health checks
    except KepSyncError as exc:
        print_error(exc)
        return EXIT_FAILED
    except OSError as exc:  # a path no check above named: one line naming it, never a traceback
        print_error(KepSyncError(os_error_message(exc)))
        return EXIT_USAGE if exc.errno == errno.ENAMETOOLONG and args.command != "health" else EXIT_FAILED
    except KeyboardInterrupt:
        to_stderr("kep-sync: interrupted\n")
        return EXIT_FAILED
    finally:
        gc.unfreeze()  # a caller that goes on (the tests) collects as before
        gc.enable()


if __name__ == "__main__":
    sys.exit(main())
