"""Small fixtures for the release-notes tests: kep.yaml text, release-note entries, a KEP set, and the release-notes
source both forms read (a directory of files, sig-release on a GitHub Enterprise Server).

keps = fixture_keps()           # 5 KEPs, one gate declared twice
notes = {"v1.36": notes_136()}  # {release: {pr: entry}}
"""

from __future__ import annotations

import json
from pathlib import Path

from bot.model.kep import Kep, Problem, parse_kep
from bot.model.snapshot import Snapshot, build_snapshot


def kep_yaml(
    number: int,
    *,
    status: str = "implementable",
    stage: str = "beta",
    alpha: str = "",
    beta: str = "",
    stable: str = "",
    gates: tuple[str, ...] = (),
) -> str:
    """A minimal kep.yaml with the given milestones (omitted when empty) and feature gates."""
    ms = "".join(f'  {k}: "{v}"\n' for k, v in (("alpha", alpha), ("beta", beta), ("stable", stable)) if v)
    fg = "".join(f"  - name: {g}\n    components: [kube-apiserver]\n" for g in gates)
    return (
        f'title: KEP {number}\nkep-number: "{number}"\nowning-sig: sig-node\nstatus: {status}\nstage: {stage}\n'
        + (f"milestone:\n{ms}" if ms else "")
        + (f"feature-gates:\n{fg}" if fg else "")
    )


#: kep.yaml path -> text. SharedGate is declared by 200 and 300 (many-to-many).
KEP_FILES = {
    "keps/sig-node/100-widgets/kep.yaml": kep_yaml(
        100, stage="beta", alpha="v1.35", beta="v1.36", gates=("WidgetGate",)
    ),
    "keps/sig-node/200-shared-a/kep.yaml": kep_yaml(200, stage="alpha", alpha="v1.36", gates=("SharedGate",)),
    "keps/sig-node/300-shared-b/kep.yaml": kep_yaml(
        300, stage="beta", alpha="v1.35", beta="v1.36", gates=("SharedGate", "OtherGate")
    ),
    "keps/sig-node/400-quiet/kep.yaml": kep_yaml(400, stage="beta", alpha="v1.35", beta="v1.36", gates=("QuietGate",)),
    "keps/sig-node/500-done/kep.yaml": kep_yaml(
        500, stage="stable", alpha="v1.33", beta="v1.34", stable="v1.35", gates=("DoneGate",)
    ),
}

#: The kep.yaml paths of :data:`KEP_FILES`, by KEP number.
P100, P200, P300, P400, P500 = (
    f"keps/sig-node/{n}/kep.yaml" for n in ("100-widgets", "200-shared-a", "300-shared-b", "400-quiet", "500-done")
)


def fixture_keps() -> list[Kep]:
    """The KEPs of :data:`KEP_FILES`, ordered by path."""
    return [parse_kep(p, t.encode()) for p, t in sorted(KEP_FILES.items())]


def fixture_snapshot() -> Snapshot:
    """:data:`KEP_FILES` as a Snapshot at revision ``abc123``."""
    return build_snapshot([(p, t.encode()) for p, t in KEP_FILES.items()], "fixture", "abc123")


def entry(pr: int, text: str, **extra) -> dict:
    """A release-note entry as release-notes-draft.json writes it."""
    return {
        "text": text,
        "markdown": f"{text} ([#{pr}](https://github.com/kubernetes/kubernetes/pull/{pr}))",
        "pr_url": f"https://github.com/kubernetes/kubernetes/pull/{pr}",
        "pr_number": pr,
        "kinds": ["feature"],
        "sigs": ["node"],
        **extra,
    }


def notes_135() -> dict[str, dict]:
    """v1.35: KEP 500 promoted to GA, KEP 100 added at alpha."""
    return {
        "9001": entry(9001, "Promoted the `DoneGate` feature gate to GA."),
        "9002": entry(9002, "Added the `WidgetGate` feature gate (alpha)."),
    }


def notes_136() -> dict[str, dict]:
    """v1.36: WidgetGate to beta; SharedGate ambiguous, then narrowed by a KEP link; an undeclared gate."""
    return {
        "9103": entry(9103, "Promoted `SharedGate` to beta. Thanks @someone."),
        "9101": entry(9101, "Promoted the `WidgetGate` feature gate to Beta, enabled by default."),
        "9104": entry(
            9104,
            "Graduated `SharedGate` to beta.",
            documentation=[
                {"description": "[KEP]", "type": "KEP", "url": "https://github.com/kubernetes/enhancements/issues/300"}
            ],
        ),
        "9105": entry(9105, "Promoted the `MysteryGate` and `WidgetGate` feature gates to GA."),
        "9106": entry(9106, "Fixed a crash in the kubelet."),
        "9107": {"text": 42},
    }


def notes_137() -> dict[str, dict]:
    """v1.37 (the newest, not yet out): nothing about the fixture KEPs."""
    return {"9201": entry(9201, "Fixed a typo.")}


#: ``{release: {pr: entry}}``: the notes of v1.35, v1.36 and v1.37 above.
NOTES = {"v1.35": notes_135(), "v1.36": notes_136(), "v1.37": notes_137()}
#: A kubernetes/kubernetes pull request's address less its number (an entry's ``pr_url`` is this and the number).
URL = "https://github.com/kubernetes/kubernetes/pull/"


#: The API of a GitHub Enterprise Server: the token must never leave this host.
API = "https://ghes.example.test/api/v3"
TOKEN = "ghes-secret-token"
#: The contents API URL of sig-release's ``releases/`` (without ``?ref=``).
LISTING = f"{API}/repos/kubernetes/sig-release/contents/releases"
#: The GitHub form of the release-notes source, as ``--release-notes`` takes it.
SRC = "github:kubernetes/sig-release@master"
#: How a problem about release 1.37's notes ends.
SKIPPED_37 = "evidence and checks for v1.37 were skipped"


def contents(minor: int) -> str:
    """The contents API URL of release 1.``minor``'s release-notes-draft.json (without ``?ref=``)."""
    return f"{LISTING}/release-1.{minor}/release-notes/release-notes-draft.json"


def body(notes: dict) -> bytes:
    """``notes`` as the JSON of a release-notes file (UTF-8)."""
    return json.dumps(notes).encode()


def notes_dir(tmp_path: Path) -> Path:
    """``tmp_path/notes``, the directory form: ``release-notes-1.34.json`` (one entry) and 1.35-1.37 (the notes
    above), plus a rendered ``release-notes-1.36.md`` that is ignored."""
    d = tmp_path / "notes"
    d.mkdir()
    for minor, notes in ((34, {"1": entry(1, "Old.")}), (35, notes_135()), (36, notes_136()), (37, notes_137())):
        (d / f"release-notes-1.{minor}.json").write_bytes(body(notes))
    (d / "release-notes-1.36.md").write_text("# rendered, ignored\n")
    return d


def missing(source: str, release: str) -> Problem:
    """The problem that ``release``'s notes are not available from ``source``."""
    return Problem(
        source,
        "",
        f"release notes for {release} are not available from {source}; evidence and checks for {release} were skipped",
    )


def cli_tree(tmp_path, monkeypatch):
    """``(enhancements dir, wiki dir)`` under ``tmp_path`` for a CLI run: :data:`KEP_FILES` and a page ``m.md``
    with KEP 100's row (stage alpha, Alpha v1.35); the working directory is ``tmp_path``, no config file."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("KEP_SYNC_CONFIG", raising=False)
    enh = tmp_path / "enh"
    for path, text in KEP_FILES.items():
        (enh / path).parent.mkdir(parents=True, exist_ok=True)
        (enh / path).write_text(text)
    wiki = tmp_path / "wiki"
    wiki.mkdir()
    (wiki / "m.md").write_text(
        "| KEP | Status | Alpha | Beta | GA |\n|---|---|---|---|---|\n"
        "| [100](https://kep.k8s.io/100) | implementable / alpha | v1.35 | - | - |\n"
    )
    return enh, wiki
