"""Property-based harness, many targets: one config with ``targets:`` (wikis in directories of their own or
pages side by side in one directory, new rows and digest pages on, sometimes a target that fails, sometimes
a target that would write what another writes), run as ``kep-sync sync --state-dir`` with ``publish: files``.

Held after each run:

- outputs never overlap: two targets that would write one file (the same page, through a link too, or one
  target's digest page another's matrix page) are refused before any target runs, naming both, nothing
  written; otherwise the pages each target's report lists as written are its own and no two reports list
  one file;
- a failing target (its page a FIFO) leaves its pages as they were and the others' pages exactly as a run
  of their own would leave them (a config without ``targets:``, run on a copy of the wiki as it was);
- a second run writes nothing: no target undoes another's work.

Profiles (tests/harness/conftest.py): a third of the profile's examples (at least 8), as each example runs
several syncs.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import tempfile
from pathlib import Path

from hypothesis import given, note, settings
from hypothesis import strategies as st

try:
    from tests.harness import invariants as inv
    from tests.harness.runner import CANARY, run_cli
    from tests.harness.strategies import digest_page, pages, upstreams
except ImportError:  # pragma: no cover
    from harness import invariants as inv
    from harness.runner import CANARY, run_cli
    from harness.strategies import digest_page, pages, upstreams

EXAMPLES = max(8, settings.default.max_examples // 3)
OVERLAPS = (None, None, "page", "link", "digest")


@st.composite
def target_scenarios(draw) -> dict:
    """``{"up": Upstream, "targets": [{name, dir, page, text, heading, digest}], "failing": index or None,
    "overlap": None or how an extra target overlaps target 0}``."""
    up = draw(upstreams(max_keps=4))
    targets = []
    for i in range(draw(st.integers(2, 3))):
        page = draw(pages(up, max_tables=1))
        targets.append(
            {
                "name": f"team-{i}",
                "dir": "wiki-0" if i and draw(st.booleans()) else f"wiki-{i}",  # side by side in one directory
                "page": f"p{i}.md",
                "text": page.text,
                "heading": page.headings[0],
                "digest": f"d{i}.md" if draw(st.booleans()) else "",
            }
        )
    failing = draw(st.sampled_from([None, *range(len(targets))]))
    return {"up": up, "targets": targets, "failing": failing, "overlap": draw(st.sampled_from(OVERLAPS))}


def _entry(t: dict, root: Path, sig: str) -> dict:
    entry = {
        "name": t["name"],
        "wiki": {"dir": str(root / t["dir"]), "pages": [t["page"]]},
        "candidates": {"add_to": {"page": t["page"], "table": t["heading"], "count": 2, "reasons": ["new", "active"]}},
    }
    if t["digest"]:
        entry["digest"] = {"page": t["digest"], "sig": sig, "from": "v1.33", "to": "v1.38"}
    return entry


def _files(t: dict) -> list[str]:
    return [t["page"], *([t["digest"]] if t["digest"] else [])]


def _lay_out(root: Path, sc: dict) -> tuple[dict, list[dict]]:
    """Write the upstream, every wiki directory and ``kep-sync.yaml``; returns ``(top settings, entries)``."""
    for path, data in sc["up"].files().items():
        (root / "enh" / path).parent.mkdir(parents=True, exist_ok=True)
        (root / "enh" / path).write_bytes(data)
    sig = sc["up"].keps[0].sig.removeprefix("sig-")
    for t in sc["targets"]:
        (root / t["dir"]).mkdir(exist_ok=True)
        (root / t["dir"] / t["page"]).write_text(t["text"], encoding="utf-8")
        if t["digest"]:
            (root / t["dir"] / t["digest"]).write_text(digest_page(), encoding="utf-8")
        (root / t["dir"] / "README.md").write_text("not a page kep-sync writes\n", encoding="utf-8")
    top = {"enhancements": str(root / "enh"), "cache_dir": str(root / "cache"), "publish": "files"}
    entries = [_entry(t, root, sig) for t in sc["targets"]]
    first = sc["targets"][0]
    if sc["overlap"] == "link":
        (root / "link-0").symlink_to(root / first["dir"])
    if sc["overlap"]:
        extra = {**first, "name": "team-x", "digest": ""}
        if sc["overlap"] == "link":
            extra["dir"] = "link-0"
        elif sc["overlap"] == "digest":  # its digest page is team-0's matrix page
            extra.update(page="px.md", digest=first["page"])
            (root / first["dir"] / "px.md").write_text(first["text"], encoding="utf-8")
        entries.append(_entry(extra, root, sig))
    failing = sc["failing"]
    if failing is not None:  # its page a FIFO: the read is refused at once and the target fails
        t = sc["targets"][failing]
        (root / t["dir"] / t["page"]).unlink(missing_ok=True)
        os.mkfifo(root / t["dir"] / t["page"])
    config = {**top, "targets": entries}
    (root / "kep-sync.yaml").write_text(json.dumps(config, ensure_ascii=False, indent=1), encoding="utf-8")
    return top, entries


def _snapshot(root: Path, dirs) -> dict[str, bytes]:
    """``{path under root: bytes}`` of every regular file in the wiki directories (a FIFO is never opened)."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for d in sorted(set(dirs))
        for p in sorted((root / d).rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def _solo(root: Path, top: dict, entry: dict, env: dict) -> dict[str, bytes]:
    """The pages a run of ``entry`` alone (its settings merged over ``top`` one level deep, no ``targets:``)
    leaves on a copy of its wiki directory as it was laid out."""
    own = root / "solo" / entry["name"]

    def fifos(directory: str, names: list[str]) -> list[str]:  # another target's failing page
        return [n for n in names if stat.S_ISFIFO(os.lstat(os.path.join(directory, n)).st_mode)]

    shutil.copytree(entry["wiki"]["dir"], own / "wiki", symlinks=True, ignore=fifos)
    config = dict(top, cache_dir=str(own / "cache"))
    for key, value in entry.items():
        if key != "name":
            config[key] = {**config.get(key, {}), **value} if isinstance(value, dict) else value
    config["wiki"] = dict(config["wiki"], dir=str(own / "wiki"))
    (own / "c.yaml").write_text(json.dumps(config, ensure_ascii=False), encoding="utf-8")
    run = run_cli(["sync", "--config", str(own / "c.yaml")], env)
    note(f"solo {entry['name']}: exit {run.code}\n{run.stderr[-2000:]}")
    assert run.code == 0, f"solo run of {entry['name']}: exit {run.code}"
    return {
        p: (own / "wiki" / p).read_bytes() for p in entry["wiki"]["pages"] + [entry.get("digest", {}).get("page")] if p
    }


@settings(max_examples=EXAMPLES)
@given(target_scenarios())
def test_targets_never_share_an_output_and_a_failing_target_leaves_the_others_alone(sc):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        top, entries = _lay_out(root, sc)
        note(json.dumps(entries, ensure_ascii=False, indent=1))
        dirs = [t["dir"] for t in sc["targets"]]
        before = _snapshot(root, dirs)
        env = {"GITHUB_TOKEN": CANARY}
        argv = ["sync", "--config", str(root / "kep-sync.yaml"), "--state-dir", str(root / "st")]
        first = run_cli(argv, env)
        note(f"exit {first.code}\nstdout:\n{first.stdout}\nstderr:\n{first.stderr[-3000:]}")
        assert "Traceback" not in first.stderr
        if sc["overlap"]:
            assert first.code == 2, "two targets writing one file were not refused"
            assert "targets 'team-x' and 'team-0' (targets[0])" in first.stderr
            assert _snapshot(root, dirs) == before and not (root / "st").exists(), "written before the refusal"
            return
        failing = sc["failing"]
        assert first.code == (1 if failing is not None else 0)
        lines = dict(line.split("\t", 1) for line in first.stdout.splitlines())
        assert {name: row.split("\t")[0] for name, row in lines.items()} == {
            t["name"]: "failed" if i == failing else "ok" for i, t in enumerate(sc["targets"])
        }
        after = _snapshot(root, dirs)
        written: dict[str, str] = {}
        for i, (t, entry) in enumerate(zip(sc["targets"], entries, strict=True)):
            own = {os.path.join(t["dir"], p) for p in _files(t)}
            if i == failing:
                assert {p: after.get(p) for p in own} == {p: before.get(p) for p in own}, f"{t['name']} failed, wrote"
                continue
            report = json.loads((root / "st" / "targets" / t["name"] / "last-run" / "report.json").read_text())
            for page in report["pages_written"]:
                path = os.path.join(t["dir"], page)
                assert path in own, f"{t['name']} wrote {path}, not one of its pages"
                assert path not in written, f"{t['name']} and {written.get(path)} both wrote {path}"
                written[path] = t["name"]
            solo = _solo(root, top, entry, env)
            assert {p: after[os.path.join(t["dir"], p)] for p in solo} == solo, f"{t['name']}: not as a run of its own"
        untouched = {p for p in before if p not in written}
        assert {p: after.get(p) for p in untouched} == {p: before[p] for p in untouched}, "bytes no report names moved"
        second = run_cli(argv, env)
        assert second.code == first.code
        for i, t in enumerate(sc["targets"]):
            if i != failing:
                report = json.loads((root / "st" / "targets" / t["name"] / "last-run" / "report.json").read_text())
                assert report["pages_written"] == [], f"{t['name']} wrote again: targets undo each other"
        assert _snapshot(root, dirs) == after
        inv.check_no_secret([first.stdout, first.stderr, second.stdout, second.stderr], CANARY)
