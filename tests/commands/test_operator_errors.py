"""What an operator is told: secrets with ``@`` in passwords, reports that cannot be written,
bounded config and state readers, sources without keps/, clock skew in health, dry-run counts."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import structlog

from bot.cli.main import main
from tests.cliutil import SYNC, error_line, log_event


@pytest.fixture(autouse=True)
def _reset_structlog():
    yield
    structlog.reset_defaults()


# --- 2. a password holding "@" is redacted whole ---------------------------------------------------------------


def test_retry_log_line_hides_a_password_with_at_signs(capsys):
    import httpx

    from bot.http import make_client, send
    from bot.log import configure

    configure()
    answers = iter([httpx.Response(502), httpx.Response(200, text="ok")])
    client = make_client(transport=httpx.MockTransport(lambda request: next(answers)))
    assert send(client, "GET", "https://bob:s3cr@t-pass@h.test/a", sleep=lambda s: None).text == "ok"
    err = capsys.readouterr().err
    assert log_event(err)["url"] == "https://***@h.test/a"
    assert "s3cr" not in err and "t-pass" not in err


def test_report_error_field_hides_a_password_with_at_signs(tmp_path):
    from bot.commands.sync import write_failure_report
    from bot.config import Config
    from bot.errors import SourceError

    config = Config(enhancements="enh", wiki={"dir": "wiki", "pages": ["m.md"]})
    exc = SourceError(
        "git clone https://user:p@ss@w0rd@github.com/x failed: fatal: "
        "unable to access 'https://user:p@ss@w0rd@github.com/x/'"
    )
    write_failure_report(tmp_path / "r.json", config, None, None, exc)
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["error"] == (
        "git clone https://***@github.com/x failed: fatal: unable to access 'https://***@github.com/x/'"
    )


def test_validate_output_hides_a_password_with_at_signs(work, capsys):
    (work / "c.yaml").write_text(
        "publish: none\nenhancements: enh\nlinks:\n  enhancements: "
        '"ftp://user:p@ss@w0rd@github.com/x"\nwiki:\n  dir: wiki\n  pages: [m.md]\n'
    )
    assert main(["validate", "--config", "c.yaml"]) == 2
    assert error_line(capsys) == (
        "kep-sync: error: c.yaml: links.enhancements: 'ftp://***@github.com/x': expected an "
        "http(s) URL such as https://github.com/kubernetes/enhancements"
    )


# --- 1. a publish that landed is never reported as failed -------------------------------------------------------


def _git_wiki(tmp_path: Path) -> tuple[Path, list[str]]:
    from tests.gitutil import make_repo
    from tests.publishutil import PAGE as GIT_PAGE
    from tests.publishutil import PAGE_PATH
    from tests.syncutil import kep, write_keps

    wiki = tmp_path / "gw"
    make_repo(wiki, {PAGE_PATH: GIT_PAGE, "README.md": "wiki\n"})
    write_keps(
        tmp_path / "up",
        kep(4671, "kep-4671", stage="beta", alpha="v1.35", beta="v1.37"),
        kep(5710, "kep-5710", stage="alpha", alpha="v1.35"),
    )
    return wiki, [
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


def test_git_publish_with_an_unwritable_report_path_commits_nothing(tmp_path, capsys):
    from tests.gitutil import git

    wiki, argv = _git_wiki(tmp_path)
    assert main([*argv, "--report", str(tmp_path / "no" / "dir" / "r.json")]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines()[-1] == (
        f"kep-sync: error: report {tmp_path}/no/dir/r.json: cannot write: No such file or directory"
    )
    assert git(wiki, "branch", "--list", "kep-sync/matrix") == ""


def test_a_report_lost_after_the_commit_says_the_publish_succeeded(tmp_path, capsys, monkeypatch):
    from bot.publish.git import GitWiki
    from tests.gitutil import git

    wiki, argv = _git_wiki(tmp_path)
    report = tmp_path / "r.json"
    publish = GitWiki.publish

    def publish_then_lose_the_report(self, plan, replan):
        publication = publish(self, plan, replan)
        report.unlink()
        report.mkdir()  # the report path becomes unwritable after the commit
        return publication

    monkeypatch.setattr(GitWiki, "publish", publish_then_lose_the_report)
    assert main([*argv, "--report", str(report)]) == 1
    out, err = capsys.readouterr()
    assert out.startswith("# Update KEP matrix: 2 changes in 1 KEP")
    finished = json.loads(err.splitlines()[1])
    assert (finished["event"], finished["result"], finished["pages_written"]) == ("sync finished", "ok", 1)
    pr = wiki / ".git" / "kep-sync" / "pull-request.md"
    assert err.splitlines()[-1] == (
        f"kep-sync: error: the publish succeeded (pull request {pr}), but the report "
        f"could not be written: {report}: not a regular file; refusing to replace it"
    )
    assert git(wiki, "rev-parse", "--verify", "-q", "kep-sync/matrix") != ""


# --- 1. serve: a last-run file that cannot be written never turns a good sync into a failed run -----------------


def test_serve_records_a_good_sync_even_when_the_last_run_changelog_cannot_be_written(tmp_path, github):
    from structlog.testing import capture_logs

    from bot.config import load_config
    from bot.service.job import run_job
    from bot.service.state import read_state
    from tests.servehelp import API, PAGE_SYNCED, SHA, write_setup

    config = load_config(write_setup(tmp_path, API))
    last = tmp_path / "st" / "last-run"
    (last / "changelog.md").mkdir(parents=True)  # the changelog cannot be replaced
    with capture_logs() as logs:
        record = run_job(config, tmp_path / "st")
    assert (record.result, record.changes, record.error) == ("ok", 2, "")
    assert read_state(tmp_path / "st").last_success.run_id == record.run_id
    report = json.loads((last / "report.json").read_text())
    assert (report["result"], report["pages_written"], report["revision"]) == ("ok", ["matrix.md"], SHA)
    assert [e["error"] for e in logs if e["event"] == "last run not saved"] == [
        f"{last / 'changelog.md'}: not a regular file; refusing to replace it"
    ]
    (line,) = [e for e in logs if e["event"] == "run finished"]
    assert (line["result"], line["changes"], line["report"], line["changelog"]) == (
        "ok",
        2,
        str(last / "report.json"),
        None,
    )
    assert (tmp_path / "wiki" / "matrix.md").read_text() == PAGE_SYNCED


def test_serve_with_last_run_as_a_file_still_syncs_and_says_why(tmp_path, github):
    from structlog.testing import capture_logs

    from bot.config import load_config
    from bot.service.job import run_job
    from tests.servehelp import API, write_setup

    config = load_config(write_setup(tmp_path, API))
    (tmp_path / "st").mkdir(exist_ok=True)
    (tmp_path / "st" / "last-run").write_text("not a directory\n")
    with capture_logs() as logs:
        record = run_job(config, tmp_path / "st")
    assert (record.result, record.changes) == ("ok", 2)
    assert [e["error"] for e in logs if e["event"] == "last run not saved"] == [
        f"{tmp_path / 'st' / 'last-run'}: exists and is not a directory; move it away so kep-sync can keep the "
        "last run's changelog and report there"
    ]
    assert (tmp_path / "st" / "last-run").read_text() == "not a directory\n"


# --- 3 and 6. tarballs and git sources: capped reading, the same checks in validate and sync, keps/ required ----


def _tar_gz(path: Path, members: list[tuple[str, bytes]], pax: dict | None = None) -> Path:
    import gzip
    import io
    import tarfile

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT, pax_headers=pax or {}) as tar:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    path.write_bytes(gzip.compress(buf.getvalue()))
    return path


KEP = b"title: x\nkep-number: 4671\nstatus: implementable\nstage: beta\n"


def _validate_error(work, capsys, enhancements: str) -> str:
    (work / "c.yaml").write_text(f"publish: none\nenhancements: {enhancements}\nwiki:\n  dir: wiki\n  pages: [m.md]\n")
    assert main(["validate", "--config", "c.yaml"]) == 2
    return error_line(capsys)


def _sync_error(capsys, enhancements: str) -> str:
    assert main([*SYNC[:2], enhancements, *SYNC[3:]]) == 1
    return capsys.readouterr().err.splitlines()[-1]


def test_a_huge_pax_header_is_refused_without_reading_it(work, capsys):
    import gzip
    import tarfile

    from bot.sources.tarball import MAX_HEADER_BYTES, tarball_revision

    # A pax global header claiming 3 GiB: only its 512-byte header block exists, the cap refuses it first.
    info = tarfile.TarInfo("pax_global_header")
    info.type, info.size = tarfile.XGLTYPE, 3 << 30
    (work / "bomb.tar.gz").write_bytes(gzip.compress(info.tobuf(tarfile.USTAR_FORMAT) + b"\0" * 1024))
    why = f"an extended header of {3 << 30} bytes (more than {MAX_HEADER_BYTES})"
    with pytest.raises(Exception) as raised:
        tarball_revision(work / "bomb.tar.gz")
    assert str(raised.value) == f"{work}/bomb.tar.gz: not a readable tar.gz archive ({why})"
    assert (
        _validate_error(work, capsys, "bomb.tar.gz")
        == f"kep-sync: error: c.yaml: enhancements: bomb.tar.gz: not a readable tar.gz archive ({why})"
    )
    assert _sync_error(capsys, "bomb.tar.gz") == f"kep-sync: error: bomb.tar.gz: not a readable tar.gz archive ({why})"


@pytest.mark.parametrize(
    ("members", "why"),
    [
        (
            [("top/keps/x/kep.yaml", KEP), ("top/../evil", b"a")],
            "archive member 'top/../evil' escapes the archive, refused",
        ),
        ([("/etc/keps/x/kep.yaml", KEP)], "archive member '/etc/keps/x/kep.yaml' escapes the archive, refused"),
        (
            [],
            "no keps/ folder under the archive's top folder (an enhancements tarball holds TOP/keps/..., as git "
            "archive and GitHub write it); refused, not read as every KEP gone",
        ),
        (
            [("keps/sig-x/4671-x/kep.yaml", KEP)],
            "no keps/ folder under the archive's top folder (an enhancements "
            "tarball holds TOP/keps/..., as git archive and GitHub write it); refused, not read as every KEP gone",
        ),
    ],
)
def test_validate_checks_a_tarball_as_the_sync_reads_it(work, capsys, members, why):
    _tar_gz(work / "t.tar.gz", members)
    assert _validate_error(work, capsys, "t.tar.gz") == f"kep-sync: error: c.yaml: enhancements: t.tar.gz: {why}"
    assert _sync_error(capsys, "t.tar.gz") == f"kep-sync: error: t.tar.gz: {why}"


def test_validate_refuses_a_truncated_tarball_and_garbage_after_it(work, capsys):
    data = _tar_gz(work / "ok.tar.gz", [("top/keps/x/4671-x/kep.yaml", KEP * 500)]).read_bytes()
    (work / "cut.tar.gz").write_bytes(data[: len(data) // 2])
    (work / "tail.tar.gz").write_bytes(data + b"GARBAGEGARBAGE")
    assert _validate_error(work, capsys, "cut.tar.gz") == (
        "kep-sync: error: c.yaml: enhancements: cut.tar.gz: not a "
        "readable tar.gz archive (Compressed file ended before the end-of-stream marker was reached)"
    )
    assert _validate_error(work, capsys, "tail.tar.gz") == (
        "kep-sync: error: c.yaml: enhancements: tail.tar.gz: not a readable tar.gz archive (Not a gzipped file (b'GA'))"
    )


def test_a_file_that_is_not_a_bundle_is_not_taken_as_one(work, capsys):
    (work / "passwd").write_text("root:x:0:0:root:/root:/bin/bash\n")
    why = (
        "'passwd': a file that is neither a .tar.gz snapshot nor a git bundle (its first line is not "
        "'# v2 git bundle' or '# v3 git bundle')"
    )
    assert _validate_error(work, capsys, "passwd") == f"kep-sync: error: c.yaml: enhancements: {why}"
    assert main([*SYNC[:2], "passwd", *SYNC[3:]]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"kep-sync: error: enhancements (--enhancements) {why}"


def test_a_git_repository_without_keps_is_refused(work, capsys):
    from tests.gitutil import git, make_repo

    make_repo(work / "repo", {"README.md": "no keps here\n"})
    head = git(work / "repo", "rev-parse", "HEAD")
    assert (
        _validate_error(work, capsys, "repo")
        == "kep-sync: error: c.yaml: enhancements: 'repo': no keps/ folder at the repository's HEAD; a run would refuse it"
    )
    # a repository on this machine that is not kubernetes/enhancements: the user's to fix, exit 2 as a plain folder
    assert main([*SYNC[:2], "repo", *SYNC[3:]]) == 2
    assert capsys.readouterr().err.splitlines()[-1].split(" (relative to ")[0] == (
        f"kep-sync: error: enhancements (--enhancements) 'repo': a git repository with no keps/ folder at revision "
        f"{head[:12]}; not a directory with keps/, a .tar.gz snapshot, a git repository, a bundle, a URL or "
        "github:OWNER/REPO@REF"
    )


# --- 4, 5, 10. the config file: bounded reading, plain words, short quotes, escaped keys -------------------------

LOL = "a: &a [x,x,x,x,x,x,x,x,x,x]\n" + "".join(
    f"{n}: &{n} [{','.join([f'*{p}'] * 10)}]\n" for p, n in zip("abcdefgh", "bcdefghi", strict=False)
)


BOMB_ERROR = "c.yaml: d[7][8][8][5]: aliases expand to more than 10,000 values (an alias bomb?); refused"


@pytest.mark.parametrize("command", [["validate"], [*SYNC]])
def test_an_alias_bomb_in_the_config_is_a_config_error(work, capsys, command):
    (work / "c.yaml").write_text(LOL)
    assert main([*command, "--config", "c.yaml"]) == 2
    assert error_line(capsys) == f"kep-sync: error: {BOMB_ERROR}"


def test_health_reports_an_alias_bomb_as_unhealthy(work, capsys):
    (work / "c.yaml").write_text(LOL)
    assert main(["health", "--config", "c.yaml", "--state-dir", "st"]) == 1
    assert capsys.readouterr().out == f"unhealthy: configuration error: {BOMB_ERROR}\n"


def test_a_number_too_long_for_python_is_a_config_error_naming_the_key(work, capsys):
    (work / "c.yaml").write_text("candidates:\n  limit: " + "9" * 5000 + "\n")
    assert main(["validate", "--config", "c.yaml"]) == 2
    assert (
        error_line(capsys)
        == "kep-sync: error: c.yaml: candidates.limit: a number of 5000 digits; too long to be a setting"
    )


def test_long_values_are_cut_and_control_characters_in_keys_escaped(work, capsys):
    (work / "c.yaml").write_text(f'publish: {"x" * 3000}\nwiki:\n  "a\\x1bb": 1\n')
    assert main(["validate", "--config", "c.yaml"]) == 2
    out, err = capsys.readouterr()
    assert err.splitlines() == [
        "kep-sync: error: c.yaml: wiki.a\\x1bb: unknown key (value 1)",
        f"kep-sync: error: c.yaml: publish: '{'x' * 79}… is not one of 'none', 'files', 'git' or 'github'",
    ]


def test_a_key_that_is_not_text_is_named_in_plain_words(work, capsys):
    (work / "c.yaml").write_text("1: x\nwiki:\n  2: y\n")
    assert main(["validate", "--config", "c.yaml"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "kep-sync: error: c.yaml: wiki: the key 2 is not a name (setting names are text)",
        "kep-sync: error: c.yaml: (top level): the key 1 is not a name (setting names are text)",
    ]


# --- 5. state.json: any unusable content is "corrupt", never a traceback ----------------------------------------


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b'{"revision": ' + b"1" * 5000 + b"}", "not a kep-sync state: a number of more than 4300 digits"),
        (b"[" * 200000, "not a kep-sync state: nested too deeply"),
    ],
)
def test_state_that_python_cannot_build_is_corrupt(tmp_path, capsys, content, why):
    from bot.service.state import StateCorrupt, read_state

    (tmp_path / "state.json").write_bytes(content)
    with pytest.raises(StateCorrupt) as raised:
        read_state(tmp_path)
    assert str(raised.value) == f"{tmp_path}/state.json: state file is corrupt ({why})"


# --- 7. health: a recorded time in the future is a fault, not "healthy forever" ----------------------------------


def test_health_is_unhealthy_when_a_recorded_time_is_in_the_future():
    import datetime

    from bot.cron import parse_crontab
    from bot.service.health import check_health
    from bot.service.state import RunRecord, State

    utc = datetime.UTC
    now = datetime.datetime(2026, 3, 30, 12, 0, tzinfo=utc)
    trigger = parse_crontab("0 * * * *", "UTC")
    soon = State(service_started=(now + datetime.timedelta(minutes=5)).isoformat())  # within the clock skew allowed
    assert check_health(soon, trigger, now) == (True, "service started at 2026-03-30T12:05:00+00:00; no run due yet")
    later = State(service_started="2027-01-01T00:00:00+00:00")
    assert check_health(later, trigger, now) == (
        False,
        "the state directory records a service start time in the future: 2027-01-01T00:00:00+00:00 is "
        "after now (2026-03-30T12:00:00+00:00) by more than 5 minutes (a wrong clock?)",
    )
    run = RunRecord(run_id="r1", started="2030-01-01T00:00:00+00:00", finished="2030-01-01T00:01:00+00:00", result="ok")
    assert check_health(State(last_run=run, last_success=run), trigger, now) == (
        False,
        "the state directory records a last good run time in the future: 2030-01-01T00:00:00+00:00 is "
        "after now (2026-03-30T12:00:00+00:00) by more than 5 minutes (a wrong clock?)",
    )


# --- 9. --report never overwrites a configured page ----------------------------------------------------------


@pytest.mark.parametrize("report", ["wiki/m.md", "./wiki/../wiki/m.md", "link.md", "hard.md", "wiki/cov.md"])
def test_a_report_path_that_is_a_configured_page_is_a_usage_error(work, capsys, report):
    (work / "link.md").symlink_to(work / "wiki" / "m.md")
    os.link(work / "wiki" / "m.md", work / "hard.md")
    (work / "wiki" / "cov.md").write_text("coverage\n")
    (work / "c.yaml").write_text("coverage:\n  page: cov.md\n")
    before = {p.name: p.read_bytes() for p in (work / "wiki").iterdir()}
    page = "cov.md" if report.endswith("cov.md") else "m.md"
    assert main([*SYNC, "--config", "c.yaml", "--publish", "none", "--report", report]) == 2
    assert error_line(capsys) == (
        f"kep-sync: error: --report {report!r} is the wiki page {page!r}; the report would "
        "overwrite it (choose another file)"
    )
    assert main(["audit", *SYNC[1:], "--config", "c.yaml", "--report", report]) == 2
    capsys.readouterr()
    assert {p.name: p.read_bytes() for p in (work / "wiki").iterdir()} == before


# --- 8. a dry run applies nothing: the state says so ---------------------------------------------------------


def test_a_dry_run_service_records_its_changes_as_proposed_not_applied(tmp_path, github):
    from bot.config import load_config
    from bot.service.job import run_job
    from bot.service.state import read_state
    from tests.servehelp import API, write_setup

    config = load_config(write_setup(tmp_path, API)).model_copy(update={"publish": "none"})
    record = run_job(config, tmp_path / "st")
    assert (record.result, record.changes, record.applied) == ("ok", 2, 0)
    saved = json.loads((tmp_path / "st" / "state.json").read_text())["last_run"]
    assert (saved["changes"], saved["applied"]) == (2, 0)
    assert read_state(tmp_path / "st").last_run.applied == 0


def test_a_files_service_records_what_it_applied(tmp_path, github):
    from bot.config import load_config
    from bot.service.job import run_job
    from tests.servehelp import API, write_setup

    record = run_job(load_config(write_setup(tmp_path, API)), tmp_path / "st")
    assert (record.result, record.changes, record.applied) == ("ok", 2, 2)


# --- 10. a tarball member given twice --------------------------------------------------------------------------


def test_a_member_given_twice_with_different_content_is_reported_and_not_read(tmp_path):
    from bot.sources.tarball import read_local_tarball

    other = KEP.replace(b"stage: beta", b"stage: alpha")
    same = b"title: y\nkep-number: 5710\nstatus: implementable\nstage: alpha\n"
    _tar_gz(
        tmp_path / "t.tar.gz",
        [
            ("top/keps/x/4671-x/kep.yaml", KEP),
            ("top/keps/x/5710-y/kep.yaml", same),
            ("top/keps/x/4671-x/kep.yaml", other),
            ("top/keps/x/5710-y/kep.yaml", same),
        ],
    )
    files, problems, _ = read_local_tarball(tmp_path / "t.tar.gz")
    assert files == [("keps/x/5710-y/kep.yaml", same)]
    assert [(p.path, p.message) for p in problems] == [
        ("keps/x/4671-x/kep.yaml", "the archive holds this member 2 times with different content; not read")
    ]


def test_serve_keeps_a_landed_sync_ok_when_its_report_is_lost_after_landing(tmp_path, github):
    from structlog.testing import capture_logs

    from bot.commands.sync import run_sync
    from bot.config import load_config
    from bot.service.job import run_job
    from tests.servehelp import API, PAGE_SYNCED, write_setup

    def sync_then_lose_the_report(config, counter=None, report_path=None, upstream=None):
        import bot.publish.directory as directory

        real = directory.DirectoryWiki.publish

        def publish(self, plan, replan):
            publication = real(self, plan, replan)
            report_path.unlink()
            report_path.mkdir()  # the report cannot be replaced after the pages were written
            return publication

        directory.DirectoryWiki.publish = publish
        try:
            return run_sync(config, counter=counter, report_path=report_path)
        finally:
            directory.DirectoryWiki.publish = real

    config = load_config(write_setup(tmp_path, API))
    last = tmp_path / "st" / "last-run"
    with capture_logs() as logs:
        record = run_job(config, tmp_path / "st", sync=sync_then_lose_the_report)
    assert (record.result, record.changes, record.applied, record.error) == ("ok", 2, 2, "")
    assert [e["error"] for e in logs if e["event"] == "last run not saved"] == [
        f"{last / 'report.json'}: not a regular file; refusing to replace it"
    ]
    assert (tmp_path / "wiki" / "matrix.md").read_text() == PAGE_SYNCED
    assert (last / "changelog.md").read_text().startswith("# Update KEP matrix: 2 changes in 1 KEP")


def test_validate_cuts_a_long_value_in_its_on_disk_checks(work, capsys):
    long_dir = "w" * 300
    (work / "c.yaml").write_text(f"publish: none\nenhancements: enh\nwiki:\n  dir: {long_dir}\n  pages: [m.md]\n")
    assert main(["validate", "--config", "c.yaml"]) == 2
    assert error_line(capsys) == f"kep-sync: error: c.yaml: wiki.dir '{'w' * 79}…: cannot be read: File name too long"
    (work / "c.yaml").write_text(f"publish: none\nenhancements: enh\nwiki:\n  dir: {'w/' * 100}\n  pages: [m.md]\n")
    assert main(["validate", "--config", "c.yaml"]) == 2
    assert (
        error_line(capsys)
        == f"kep-sync: error: c.yaml: wiki.dir '{'w/' * 39}w…: no such directory (relative to {work})"
    )


def test_a_config_date_that_is_no_day_exits_2_without_a_traceback(tmp_path, capsys):
    from bot.cli.main import main

    (tmp_path / "c.yaml").write_text("release:\n  started: 2026-13-01\n", encoding="utf-8")
    assert main(["validate", "--config", str(tmp_path / "c.yaml")]) == 2
    out, err = capsys.readouterr()
    assert (out, err) == (
        "",
        f"kep-sync: error: {tmp_path / 'c.yaml'}: release.started: '2026-13-01' is written as a date but is no day "
        "of the calendar\n",
    )
