"""One reading of every source per run (:class:`bot.commands.inputs.Inputs`): the reads of the release notes, the
gate list and the kep.yaml history are counted for a sync with ``release.watch``, an audit, a watch and the targets
of one process; a real git source, wiki, notes and gate list written here."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

import bot.sources.gate_lifecycle as gate_src
import bot.sources.history as history_src
import bot.sources.release_notes as notes_src
from bot.cli import main as cli
from bot.commands.inputs import Inputs
from bot.commands.sync import run_audit, run_sync
from bot.commands.targets import expand
from bot.commands.watch import run_watch
from bot.config import Config
from bot.service.multi import run_targets
from tests import gitutil
from tests.notesutil import entry
from tests.syncutil import kep_yaml

P200 = "keps/sig-node/200-two/kep.yaml"
PAGE = "| KEP | Status | Alpha | Beta | GA |\n|---|---|---|---|---|\n| 200 | implementable / alpha | v1.36 | - | - |\n"
LIST = b"""- name: TwoGate
  versionedSpecs:
  - {version: "1.36", preRelease: Alpha, default: false, lockToDefault: false}
"""


@pytest.fixture
def reads(tmp_path, monkeypatch) -> Counter:
    """Counts every read of a source: ``notes PATH`` (one release-notes file), ``notes list`` (the directory
    listed), ``gate list`` and ``history`` (the git history opened)."""
    seen: Counter = Counter()
    read_regular, list_dir = notes_src.read_regular, notes_src._list_directory
    load_gates, open_history = gate_src.load_gate_lifecycle, history_src.open_history

    def counted(name, real):
        def call(*args, **kwargs):
            seen[name(*args)] += 1
            return real(*args, **kwargs)

        return call

    monkeypatch.setattr(notes_src, "read_regular", counted(lambda path, *_: f"notes {Path(path).name}", read_regular))
    monkeypatch.setattr(notes_src, "_list_directory", counted(lambda *_: "notes list", list_dir))
    monkeypatch.setattr(gate_src, "load_gate_lifecycle", counted(lambda *_: "gate list", load_gates))
    monkeypatch.setattr(history_src, "open_history", counted(lambda *_: "history", open_history))
    return seen


def _sources(tmp_path: Path) -> dict:
    """The settings of a git source (KEP 200: beta planned in v1.37), release notes of v1.35-v1.37 and a gate list."""
    repo = tmp_path / "enh"
    two = kep_yaml(200, "two", stage="beta", alpha="v1.36", beta="v1.37", latest="v1.37", gates=("TwoGate",))
    gitutil.make_repo(repo, {P200: two.replace("sig-scheduling", "sig-node")}, "Merge pull request #11 from b/two")
    notes = tmp_path / "notes"
    notes.mkdir()
    for minor in (35, 36):
        (notes / f"release-notes-1.{minor}.json").write_text("{}")
    (notes / "release-notes-1.37.json").write_text(json.dumps({"5001": entry(5001, "Promoted `TwoGate` to beta.")}))
    (tmp_path / "list.yaml").write_bytes(LIST)
    return {
        "enhancements": str(repo),
        "cache_dir": str(tmp_path / "cache"),
        "release_notes": {"source": str(notes)},
        "gate_lifecycle": {"source": str(tmp_path / "list.yaml")},
        "release": {"watch": True},
    }


def _wiki(path: Path) -> dict:
    path.mkdir()
    (path / "m.md").write_text(PAGE)
    return {"dir": str(path), "pages": ["m.md"]}


ONCE = {
    "notes list": 1,
    "notes release-notes-1.36.json": 1,
    "notes release-notes-1.37.json": 1,
    "gate list": 1,
    "history": 1,
}


def test_a_sync_with_the_watch_reads_each_source_once(tmp_path, reads):
    config = Config.model_validate({**_sources(tmp_path), "wiki": _wiki(tmp_path / "wiki"), "publish": "none"})
    plan = run_sync(config).plan
    assert plan.report["watch"]["release"]["current"] == "v1.37"  # the watch and the review both read the notes
    assert [c.kind for c in plan.changes] == ["promoted", "retargeted"] and plan.changes[0].upstream is not None
    assert dict(reads) == ONCE


def test_an_audit_reads_each_source_once(tmp_path, reads):
    config = Config.model_validate({**_sources(tmp_path), "wiki": _wiki(tmp_path / "wiki")})
    run_audit(config)
    assert dict(reads) == {**ONCE, "notes release-notes-1.35.json": 1}  # an audit reads every release


def test_a_watch_reads_each_source_once(tmp_path, reads):
    config = Config.model_validate({**_sources(tmp_path), "wiki": _wiki(tmp_path / "wiki")})
    assert run_watch(config).report["watch"]["release"]["current"] == "v1.37"
    assert dict(reads) == ONCE


def test_the_targets_of_one_process_read_each_source_once(tmp_path, reads):
    sources = _sources(tmp_path)
    raw = {**sources, "publish": "files", "wiki": {"pages": ["m.md"]}, "targets": []}
    for name in ("a", "b", "c"):
        raw["targets"].append({"name": name, "wiki": {"dir": _wiki(tmp_path / name)["dir"]}})
    targets = expand(Config.model_validate(raw), "c.yaml")
    results = run_targets(targets, tmp_path / "state", Inputs(targets[0].config))
    assert [(r.name, r.result) for r in results] == [("a", "ok"), ("b", "ok"), ("c", "ok")]
    assert dict(reads) == ONCE


def test_serve_with_targets_reads_each_source_once_per_run(tmp_path, reads, monkeypatch):
    raw = {**_sources(tmp_path), "publish": "files", "wiki": {"pages": ["m.md"]}, "targets": []}
    for name in ("a", "b"):
        raw["targets"].append({"name": name, "wiki": {"dir": _wiki(tmp_path / name)["dir"]}})
    path = tmp_path / "c.yaml"
    path.write_text(json.dumps(raw))
    monkeypatch.delenv("KEP_SYNC_CONFIG", raising=False)
    from bot.cli.targets import serve_job

    args = cli.build_parser().parse_args(["serve", "--config", str(path), "--state-dir", str(tmp_path / "s")])
    serve_job(args, cli.resolve_config(args))()
    assert dict(reads) == ONCE
    for name in ("a", "b"):
        assert "beta" in (tmp_path / name / "m.md").read_text()


def test_the_watch_reports_the_problems_of_its_inputs_and_why_a_newer_release_is_not_watched(tmp_path):
    raw = {**_sources(tmp_path), "wiki": _wiki(tmp_path / "wiki")}
    (tmp_path / "list.yaml").write_bytes(LIST.replace(b'"1.36"', b'"1.36.0"'))
    (tmp_path / "notes" / "release-notes-1.37.json").write_text('{"5001": {"text": "cut')
    done = run_watch(Config.model_validate(raw))
    notes = tmp_path / "notes" / "release-notes-1.37.json"
    lost = f"{notes}: not valid JSON at line 1 column 19: Unterminated string starting at"
    assert done.report["watch"]["release"]["current"] == "v1.36"
    assert done.report["watch"]["release"]["current_why"] == (
        "the newest release with notes is v1.36; "
        f"release notes for v1.37 unusable ({lost}), so not taken as the release in progress"
    )
    assert [p["path"] for p in done.report["problems"]] == [str(notes), str(tmp_path / "list.yaml")]
    assert f"Problem: {tmp_path / 'list.yaml'}: gate TwoGate: version '1.36.0' is not MAJOR.MINOR; spec skipped" in (
        done.text.splitlines()
    )
