"""The command line of many targets: ``--target``/``--shard``, ``kep-sync targets`` and the runs of a config
with ``targets:`` (:mod:`bot.commands.targets`, :mod:`bot.service.multi`). A config without ``targets:`` keeps the
single-target commands of :mod:`bot.cli.main` unchanged."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from bot.errors import KepSyncError, UsageError

if TYPE_CHECKING:
    from bot.commands.targets import Target
    from bot.config import Config

EXIT_OK, EXIT_FAILED = 0, 1


def _shard(text: str):
    from bot.commands.targets import parse_shard

    try:
        return parse_shard(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_target_options(cmd: argparse.ArgumentParser) -> None:
    """``--target NAME`` (repeatable) and ``--shard I/N`` on ``cmd``."""
    cmd.add_argument(
        "--target",
        metavar="NAME",
        action="append",
        default=[],
        help="only this target of the config's targets: (repeatable)",
    )
    cmd.add_argument(
        "--shard",
        metavar="I/N",
        type=_shard,
        help="only share I of N of the targets (0-based; by a hash of the target name)",
    )


def chosen(args: argparse.Namespace, config: Config) -> list[Target]:
    """The targets ``--target`` and ``--shard`` select from ``config`` (every one without them).
    Raises :class:`~bot.errors.ConfigError` for an invalid target, :class:`UsageError` for an unknown name."""
    from bot.commands.targets import expand, select

    return select(expand(config, _source(args)), getattr(args, "target", None) or (), getattr(args, "shard", None))


def one_target(args: argparse.Namespace, config: Config) -> Config:
    """The settings of the one target ``--target``/``--shard`` select (``config`` itself without ``targets:``
    and without them), for a command that reads one wiki (``kep-sync audit``). Raises :class:`UsageError`
    unless exactly one target is selected, naming the config's targets."""
    if not config.targets and not getattr(args, "target", None) and not getattr(args, "shard", None):
        return config
    selected = chosen(args, config)
    if len(selected) != 1:
        from bot.commands.targets import expand

        names = ", ".join(t.name for t in expand(config, _source(args)))
        raise UsageError(
            f"{len(selected)} targets selected; this command reads one wiki: name it with "
            f"--target NAME (the config has: {names})"
        )
    return selected[0].config


def _source(args: argparse.Namespace) -> str:
    from bot.config import find_config_path

    path = find_config_path(getattr(args, "config", None))
    return str(path) if path else "environment"


def cmd_targets(args: argparse.Namespace, config: Config, write: Callable[[str, str], None]) -> int:
    """``write`` the selected target names as a JSON list on one line (a workflow matrix); exit 0."""
    write(json.dumps([t.name for t in chosen(args, config)]) + "\n", "the targets")
    return EXIT_OK


def state_root(args: argparse.Namespace) -> Path:
    """``--state-dir``, else :func:`bot.service.state.default_state_dir`."""
    from bot.service.state import default_state_dir

    return Path(args.state_dir) if getattr(args, "state_dir", None) else default_state_dir()


def checked_state_root(args: argparse.Namespace) -> Path:
    """:func:`state_root`; raises :class:`UsageError` when it exists and is not a directory (before any
    target runs, as any other usage error)."""
    root = state_root(args)
    if root.exists() and not root.is_dir():
        raise UsageError(
            f"--state-dir {str(root)!r}: not a directory (the state directory: --state-dir or $KEP_SYNC_STATE_DIR)"
        )
    return root


def cmd_sync_targets(args: argparse.Namespace, config: Config, write: Callable[[str, str], None]) -> int:
    """``kep-sync sync`` of a config with ``targets:`` (or with ``--target``/``--shard``): every selected
    target in turn (:func:`bot.service.multi.run_targets`), then one summary line per target on stdout
    (:func:`bot.service.multi.summary_lines`, through ``write``); exit 1 when any failed. Each target's changelog and
    report are in
    its state directory (``STATE_DIR/targets/NAME/last-run``)."""
    from bot.commands.inputs import Inputs
    from bot.http import RequestCounter
    from bot.log import get_logger
    from bot.service.multi import check_snapshot, run_targets, summary_lines

    if args.report:
        raise UsageError(
            "--report: with targets: each target's report is STATE_DIR/targets/NAME/last-run/"
            "report.json (--state-dir); leave --report out"
        )
    targets = chosen(args, config)
    root = checked_state_root(args)
    start, counter = time.monotonic(), RequestCounter()
    only = sorted({n for group in args.kep for n in group}) if args.kep else None
    shared = Inputs(targets[0].config if targets else config, counter)
    if targets:
        check_snapshot(shared)
    results = run_targets(targets, root, shared, only=only)
    write("".join(line + "\n" for line in summary_lines(results)), "the summary")
    tell_actions(targets, results)
    failed = [r.name for r in results if r.result == "failed"]
    log = get_logger(command="sync")
    (log.error if failed else log.info)(
        "targets finished",
        targets=len(results),
        failed=failed,
        http_requests=counter.count,
        duration_seconds=round(time.monotonic() - start, 3),
    )
    return EXIT_FAILED if failed else EXIT_OK


def tell_actions(targets: list[Target], results: list) -> None:
    """Under GitHub Actions: the step outputs of :func:`bot.commands.next_steps.targets_outputs` to
    ``$GITHUB_OUTPUT`` and a ``::warning::`` on stderr for each blocked target (naming it and its branch)."""
    from bot.commands import next_steps

    if os.environ.get("GITHUB_OUTPUT"):
        next_steps.write_outputs(os.environ["GITHUB_OUTPUT"], next_steps.targets_outputs(results))
    if os.environ.get("GITHUB_ACTIONS") == "true":
        branches = {t.name: t.config.pull_request.branch for t in targets}
        for result in results:
            if result.result == "blocked":
                print(next_steps.blocked_annotation(branches[result.name], result.name), file=sys.stderr)


def serve_job(args: argparse.Namespace, config: Config):
    """The scheduled job of ``kep-sync serve`` with ``targets:``: :func:`bot.service.job.run_job` for each selected
    target in its own state directory, holding that directory's lock, on one :class:`bot.commands.inputs.Inputs`
    per run (one ask for the upstream revision per run, whatever the number of targets). ``None`` for a config
    without ``targets:`` (the single-target job), a job that runs nothing when
    ``--shard`` leaves its one target to another share. Raises :class:`UsageError` for an unknown ``--target``."""
    targets = chosen(args, config)  # an unknown --target is refused as sync refuses it
    if not config.targets:
        return None if targets else _nothing_to_run
    root = state_root(args)

    def job() -> None:
        from bot.commands.inputs import Inputs
        from bot.http import RequestCounter
        from bot.service.job import run_job
        from bot.service.multi import run_targets, sync_target
        from bot.service.state import InstanceLock, make_state_dir

        shared = Inputs(targets[0].config if targets else config, RequestCounter())

        def one(target: Target, state_dir: Path) -> dict:
            make_state_dir(state_dir)
            with InstanceLock(state_dir):
                record = run_job(
                    target.config,
                    state_dir,
                    upstream=shared.upstream(),
                    probe=shared.revision,
                    sync=lambda cfg, counter, report_path, upstream=None: sync_target(
                        cfg, shared, report_path=report_path
                    ),
                )
            return {"result": record.result, "pull_request": record.pull_request, "error": record.error}

        run_targets(targets, root, shared, run=one)

    return job


def _nothing_to_run() -> None:
    """The job of a process whose ``--target``/``--shard`` selects no target."""


def cmd_health_targets(args: argparse.Namespace, config: Config) -> int:
    """``kep-sync health`` of a config with ``targets:``: one ``NAME: healthy|unhealthy: reason`` line per
    selected target; exit 0 when all are healthy, else 1."""
    import datetime

    from bot.commands.targets import state_dir_of
    from bot.cron import parse_crontab
    from bot.redact import redact
    from bot.service.health import check_health
    from bot.service.state import StateError, read_state

    trigger = parse_crontab(config.schedule.cron, config.schedule.timezone)
    now = datetime.datetime.now(datetime.UTC)
    healthy, root = True, state_root(args)
    for target in chosen(args, config):
        try:
            verdict = check_health(with_service(read_state(state_dir_of(root, target)), read_state(root)), trigger, now)
            ok, reason = verdict.ok, verdict.reason
        except StateError as exc:
            ok, reason = False, str(exc)
        healthy = healthy and ok
        print(f"{target.name}: {'healthy' if ok else 'unhealthy'}: " + redact(reason).replace("\n", "; "))
    return EXIT_OK if healthy else EXIT_FAILED


def with_service(state, top):
    """A target's :class:`~bot.service.state.State` with the service that ``kep-sync serve`` recorded in the
    state root (``top``: its process identity and start time; a target's own directory records none)."""
    return state.model_copy(
        update={
            "service_process": top.service_process or state.service_process,
            "service_started": top.service_started or state.service_started,
        }
    )


def startup_problems(args: argparse.Namespace, config: Config) -> list[str]:
    """What ``kep-sync validate`` finds offline in ``config`` (the settings a command runs with, command-line
    options applied), one ``SOURCE: key: what is wrong`` line each; ``[]`` when it would print ``ok``."""
    from bot.commands.validate import offline_problems
    from bot.config import find_config_path

    path = find_config_path(getattr(args, "config", None))
    source = str(path or "built-in defaults")
    lines = [f"{source}: {p}" for p in offline_problems(config)] if not config.targets else []
    return lines + target_errors(config, source)


#: Settings every target shares (set at the top level only): a problem with them is named once.
SHARED_KEYS = ("enhancements", "cache_dir", "release_notes", "gate_lifecycle", "provenance", "github", "links")


def target_errors(config: Config, source: str) -> list[str]:
    """Every problem of the targets of a valid ``config`` (:func:`bot.commands.targets.expand`), one per line;
    when they are valid, what :func:`bot.commands.validate.offline_problems` finds for each target
    (``SOURCE: targets[I].key: ...``; a problem of a shared setting once, ``SOURCE: key: ...``)."""
    from bot.commands.targets import expand
    from bot.commands.validate import offline_problems

    try:
        targets = expand(config, source)
    except KepSyncError as exc:
        return str(exc).split("\n")
    if not config.targets:
        return []
    lines: list[str] = []
    for i, target in enumerate(targets):
        for problem in offline_problems(target.config):
            shared = problem.split(":")[0].split(" ")[0].split(".")[0].split("[")[0] in SHARED_KEYS
            lines.append(f"{source}: {problem}" if shared else f"{source}: targets[{i}].{problem}")
    return list(dict.fromkeys(lines))
