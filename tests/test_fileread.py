"""The one reader of local files (bot/fileread.py) and the commands that read through it: a FIFO, device,
socket or directory is refused without blocking, and no file is read past its cap before it is parsed."""

from __future__ import annotations

import os
import socket

import pytest

from bot import fileread
from bot.cli.main import main
from bot.config import read_config_data
from bot.errors import ConfigError
from bot.fileread import FileTooLarge, NotRegularFile, open_regular, read_regular, read_regular_text
from bot.model.gates import MAX_NODES, ListError, parse_gate_list
from bot.model.kep import KepFileError, load_yaml
from bot.service.state import StateUnreadable, read_state
from bot.sources.gate_lifecycle import read_file_list

pytestmark = pytest.mark.usefixtures("_reset_structlog")


def test_a_regular_file_is_read_up_to_its_cap_and_refused_past_it(tmp_path):
    page = tmp_path / "p.md"
    page.write_bytes(b"12345")
    assert read_regular(page, 5) == b"12345"
    with pytest.raises(FileTooLarge) as exc:
        read_regular(page, 4)
    assert (exc.value.strerror, exc.value.filename, exc.value.cap) == ("larger than 4 bytes, refused", str(page), 4)
    page.write_text("é", encoding="utf-8")
    assert read_regular_text(page, 2) == "é"


def test_a_fifo_a_device_a_socket_and_a_directory_are_refused_without_blocking(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the socket is bound by a relative name: AF_UNIX paths are cut at 108 bytes
    os.mkfifo(tmp_path / "fifo.md")  # no writer: open() without O_NONBLOCK would wait forever
    (tmp_path / "zero.md").symlink_to("/dev/zero")  # endless: read() would fill memory
    (tmp_path / "dir.md").mkdir()
    sock = socket.socket(socket.AF_UNIX)
    sock.bind("sock.md")
    try:
        kinds = {}
        for name in ("fifo.md", "zero.md", "dir.md", "sock.md"):
            with pytest.raises(NotRegularFile) as exc:
                read_regular(tmp_path / name, 100)
            kinds[name] = exc.value.strerror
    finally:
        sock.close()
    assert kinds == {
        "fifo.md": "not a regular file (FIFO)",
        "zero.md": "not a regular file (character device)",
        "dir.md": "not a regular file (directory)",
        "sock.md": "not a regular file (socket)",
    }


def test_links_are_followed_unless_told_not_to(tmp_path):
    (tmp_path / "real.md").write_bytes(b"x")
    (tmp_path / "link.md").symlink_to("real.md")
    assert read_regular(tmp_path / "link.md", 10) == b"x"
    with pytest.raises(NotRegularFile) as exc:
        read_regular(tmp_path / "link.md", 10, follow=False)
    assert exc.value.kind == "symbolic link"
    with pytest.raises(FileNotFoundError):
        read_regular(tmp_path / "gone.md", 10)


def test_an_opened_regular_file_reads_blocking(tmp_path):
    (tmp_path / "t.tgz").write_bytes(b"abc")
    with open_regular(tmp_path / "t.tgz") as fh:
        assert (os.get_blocking(fh.fileno()), fh.read()) == (True, b"abc")


def test_a_config_that_is_a_fifo_or_too_large_is_refused_by_name(tmp_path):
    os.mkfifo(tmp_path / "c.yaml")
    with pytest.raises(ConfigError) as exc:
        read_config_data(tmp_path / "c.yaml")
    assert str(exc.value) == f"{tmp_path / 'c.yaml'}: cannot read: not a regular file (FIFO)"
    big = tmp_path / "big.yaml"
    big.write_bytes(b"#" * (fileread.CONFIG_BYTES + 1))
    with pytest.raises(ConfigError) as exc:
        read_config_data(big)
    assert str(exc.value) == f"{big}: cannot read: larger than {fileread.CONFIG_BYTES} bytes, refused"
    assert read_config_data(type(big)(os.devnull)) == {}  # /dev/null: no settings, as git reads it


def test_a_config_of_many_tiny_values_is_refused_before_it_is_built(tmp_path):
    (tmp_path / "c.yaml").write_text("wiki: {pages: [" + "a," * 20_000 + "a]}\n")
    with pytest.raises(ConfigError) as exc:
        read_config_data(tmp_path / "c.yaml")
    assert str(exc.value) == (
        f"{tmp_path / 'c.yaml'}: (top level): more than 10,000 values; refused (a config holds a few hundred)"
    )


def test_a_token_file_that_is_a_fifo_is_a_usage_error(tmp_path, monkeypatch, capsys):
    os.mkfifo(tmp_path / "token")
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.setenv("GITHUB_TOKEN_FILE", str(tmp_path / "token"))
    monkeypatch.setenv("KEP_SYNC_CONFIG", os.devnull)
    assert main(["validate"]) == 2
    assert capsys.readouterr().err == (
        f"kep-sync: error: GITHUB_TOKEN_FILE {tmp_path / 'token'}: cannot read: not a regular file (FIFO)\n"
    )


def test_a_state_file_that_is_a_fifo_is_unreadable_not_a_hang(tmp_path):
    os.mkfifo(tmp_path / "state.json")
    with pytest.raises(StateUnreadable) as exc:
        read_state(tmp_path)
    assert str(exc.value).endswith("not a regular file (FIFO))")


def test_a_gate_list_that_is_a_fifo_is_a_config_error(tmp_path):
    os.mkfifo(tmp_path / "gates.yaml")
    with pytest.raises(ConfigError) as exc:
        read_file_list(tmp_path / "gates.yaml")
    assert str(exc.value) == (
        f"gate_lifecycle.source (--gate-lifecycle) {str(tmp_path / 'gates.yaml')!r}: cannot read: "
        "not a regular file (FIFO)"
    )


def test_a_gate_list_of_millions_of_nodes_is_refused_as_the_parser_meets_them():
    entry = b"- {name: a, versionedSpecs: [{version: '1.1', preRelease: Alpha, default: false}]}\n"
    data = entry * (MAX_NODES // 12 + 1)  # 12 nodes an entry, 1 for the list: past the cap
    with pytest.raises(ListError) as exc:
        parse_gate_list("g.yaml", data)
    assert str(exc.value) == "g.yaml: more than 200,000 YAML nodes; refused"
    gl, problems = parse_gate_list("g.yaml", entry * (MAX_NODES // 12))  # 199,993 nodes: read
    assert (sorted(gl.gates), len(problems)) == (["a"], MAX_NODES // 12 - 1)  # "listed again" for each copy


def test_a_large_kep_yaml_of_tiny_nodes_is_refused_before_it_is_built():
    text = "title: x\nreviewers: [" + "a," * 40_000 + "a]\n"  # 80 KB: counted
    with pytest.raises(KepFileError) as exc:
        load_yaml("keps/sig-x/1-x/kep.yaml", text.encode())
    assert exc.value.problem.message == (
        "not usable YAML at line 2: more than 20,000 YAML nodes (a kep.yaml holds a few hundred); refused"
    )
    small = "title: x\nreviewers: [" + "a," * 30_000 + "a]\n"  # 60 KB: not counted, read in full
    assert len(load_yaml("k.yaml", small.encode())["reviewers"]) == 30_001


def test_the_caps_in_the_docs_are_the_caps_in_the_code():
    from pathlib import Path

    from bot.configyaml import MAX_CONFIG_NODES
    from bot.model import yamlload
    from bot.sources import localfs, tarball
    from bot.sources.gate_lifecycle import MAX_LIST_BYTES
    from bot.sources.release_notes import MAX_NOTES_BYTES

    docs = (Path(__file__).resolve().parents[1] / "docs" / "behaviour.md").read_text(encoding="utf-8")
    rows = {
        line.split("|")[1].strip().split(" (")[0]: line.split("|")[2].strip()
        for line in docs.splitlines()
        if line.startswith("  | ") and "|---" not in line
    }

    def size(n: int) -> str:
        return f"{n // fileread.MIB} MiB" if n >= fileread.MIB else f"{n // fileread.KIB} KiB"

    assert rows == {
        "what is read": "cap",
        "a wiki page": size(fileread.PAGE_BYTES),
        "the config file": f"{size(fileread.CONFIG_BYTES)}, {MAX_CONFIG_NODES:,} YAML values",
        "a kep.yaml or PRR file": f"{size(localfs.MAX_FILE_BYTES)}; over {size(yamlload.COUNT_FROM_CHARS)}, "
        f"{yamlload.MAX_NODES:,} YAML nodes",
        "a gate list": f"{size(MAX_LIST_BYTES)}, {MAX_NODES:,} YAML nodes",
        "a release-notes file": size(MAX_NOTES_BYTES),
        "`state.json`": size(fileread.STATE_BYTES),
        "a `cache_dir` entry, a JSON report": size(fileread.CACHE_ENTRY_BYTES),
        "`$GITHUB_TOKEN_FILE`, the GitHub App private key file": size(fileread.SECRET_BYTES),
        "a `.tar.gz` snapshot": f"{size(tarball.MAX_TARBALL_BYTES)}, 1 GiB unpacked",
    }
    assert (fileread.REPORT_BYTES, tarball.MAX_UNPACKED_BYTES) == (fileread.CACHE_ENTRY_BYTES, 1024 * fileread.MIB)
