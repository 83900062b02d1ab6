"""Replay ``kep-sync watch`` at the Code Freeze of finished releases and score it against what shipped.

For each release R (default v1.33-v1.36): the enhancements history at the last commit on or before R's Code
Freeze day (UTC; the day comes from ``releases/release-1.NN/README.md``, read here with a regex of its own
over the Timeline table), ``kep-sync watch --release R --today CODE_FREEZE --sig-release ...`` on the page
KEPs, with the release notes (the final files: entries carry no date, but feature pull requests merge before
Code Freeze) and no gate list (the gate list is what the score reads). Then R is read after its release day
(``--today`` the day after, the gate list given) to check shipped/missed.

What shipped is read independently of the watch's code: the gate lists (``feature-gates/*.yaml``, complete
through 1.36; a stage ships in R when one of the KEP's gates, as its kep.yaml at the replayed commit declares
them, has ``preRelease`` of that stage at version R), else the release notes of R (an entry linking the KEP
or naming ``KEP-N`` whose text says the stage). A KEP with no gate in the lists and no such note is "no record".

Prints per release each planned stage, its state and the truth, then the figures. Usage::

    python scripts/check/replay_watch.py [--shared ../shared] [--page PATH] [--releases v1.33,v1.34]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
KEP_SYNC = [sys.executable, "-c", "import sys; from bot.cli.main import main; sys.exit(main())"]
PREDICT_MISS = ("at risk", "slipped", "contradicted", "missed")
_MONTHS = "january february march april may june july august september october november december".split()
_STAGE_WORDS = {"alpha": r"\balpha\b", "beta": r"\bbeta\b", "stable": r"\b(GA|general availability|stable)\b"}


def timeline_day(readme: str, what: str) -> str:
    """``YYYY-MM-DD`` of the Timeline table row whose What cell matches ``what``: the first ``D Month YYYY``
    of its When cell (an AoE day comes first in the cell; a UTC time before it is the UTC day)."""
    for line in readme.splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) > 4 and re.search(what, cells[1], re.I):
            m = re.search(r"(\d{1,2})(?:st|nd|rd|th)?\s+([A-Z][a-z]+)\s+(\d{4})", cells[3])
            if m and m.group(2).lower() in _MONTHS:
                return f"{m.group(3)}-{_MONTHS.index(m.group(2).lower()) + 1:02d}-{int(m.group(1)):02d}"
    return ""


def run(*args: str, cwd: Path | None = None) -> str:
    return subprocess.run(args, cwd=cwd, check=True, capture_output=True, text=True).stdout


def gate_specs(shared: Path) -> dict[str, dict[str, set[str]]]:
    """``{gate: {"1.34": {"Beta"}}}`` from every ``versioned_feature_list*.yaml``, read line by line (a gate
    starts at ``- name:``, each of its specs at an indented ``- ``)."""
    out: dict[str, dict[str, set[str]]] = {}
    for path in sorted((shared / "data" / "feature-gates").glob("*.yaml")):
        name, spec = "", {}
        for line in [*path.read_text(encoding="utf-8").splitlines(), "- name: END"]:
            start = re.match(r"^- name:\s*(\S+)", line)
            if start or re.match(r"^\s+- ", line):
                if name and "version" in spec and "preRelease" in spec:
                    out.setdefault(name, {}).setdefault(spec["version"], set()).add(spec["preRelease"])
                spec = {}
                name = start.group(1).strip("'\"") if start else name
            m = re.match(r"^[\s-]*(version|preRelease):\s*\"?([\w.]+)\"?", line)
            if m:
                spec[m.group(1)] = m.group(2)
    return out


def kep_gates(repo: Path, number: int) -> list[str]:
    """The feature gate names the kep.yaml of KEP ``number`` declares at the checked-out commit or at the
    bundle's HEAD (``master``): a gate renamed after Code Freeze still counts (5729, 5836)."""
    names: list[str] = []
    paths = run("git", "ls-tree", "-r", "--name-only", "master", "keps", cwd=repo).splitlines()
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in repo.glob(f"keps/**/{number}-*/kep.yaml")]
    texts += [
        run("git", "show", f"master:{p}", cwd=repo) for p in paths if re.search(rf"/{number}-[^/]+/kep\.yaml$", p)
    ]
    for text in texts:
        block = re.search(r"(?ms)^feature-gates:\s*\n(.*?)(?=^\S)", text + "\nend:")
        for name in re.findall(r"-\s*name:\s*[\"']?([A-Za-z0-9]+)", block.group(1)) if block else []:
            names += [name] if name not in names else []
    return names


def note_says(notes: dict, number: int, stage: str) -> bool:
    """True when an entry of the release notes links KEP ``number`` (or names ``KEP-N``) and says ``stage``."""
    for entry in notes.values():
        text = str(entry.get("text", ""))
        docs = " ".join(str(d.get("url", "")) for d in entry.get("documentation") or [] if isinstance(d, dict))
        linked = re.search(rf"/{number}-|issues/{number}\b", docs) or re.search(rf"\bKEP[- ]?{number}\b", text)
        if linked and re.search(_STAGE_WORDS[stage], text, re.I):
            return True
    return False


def truth(repo: Path, shared: Path, gates: dict, release: str, number: int, stage: str) -> str:
    """``shipped``, ``missed`` (the gate list shows the KEP's gates in R at no such stage) or ``no record``."""
    version = release.removeprefix("v")
    word = {"alpha": "Alpha", "beta": "Beta", "stable": "GA"}[stage]
    listed = [g for g in kep_gates(repo, number) if g in gates]
    if any(word in gates[g].get(version, set()) for g in listed):
        return "shipped"
    notes_path = shared / "data" / "release-notes" / f"release-notes-{version}.json"
    notes = json.loads(notes_path.read_text(encoding="utf-8")) if notes_path.exists() else {}
    if note_says(notes, number, stage):
        return "shipped"
    return "missed" if listed else "no record"


def watch(repo: Path, shared: Path, wiki: Path, page: str, release: str, today: str, gate_list: bool) -> dict:
    args = [
        *KEP_SYNC, "watch", "--enhancements", str(repo), "--wiki", str(wiki), "--page", page,
        "--release", release, "--today", today, "--sig-release", str(shared / "data" / "sig-release"),
        "--release-notes", str(shared / "data" / "release-notes"), "--report", str(repo.parent / "report.json"),
    ]  # fmt: skip
    if gate_list:
        args += ["--gate-lifecycle", str(next((shared / "data" / "feature-gates").glob("*openshift*.yaml")))]
    subprocess.run(args, cwd=ROOT, check=True, capture_output=True, text=True)
    return json.loads((repo.parent / "report.json").read_text(encoding="utf-8"))["watch"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shared", default=str(ROOT.parent / "shared"))
    ap.add_argument("--page", default="")
    ap.add_argument("--releases", default="v1.33,v1.34,v1.35,v1.36")
    ap.add_argument("--why", action="store_true", help="print the reason and the note signs of each wrong stage")
    args = ap.parse_args()
    shared = Path(args.shared)
    page = Path(args.page or shared / "wiki" / "kubernetes-keps-implementation-matrix.md")
    gates = gate_specs(shared)
    totals = {"stages": 0, "landed": 0, "landed_shipped": 0, "missed": 0, "missed_caught": 0, "right": 0}
    totals |= {"no_record": 0, "recorded": 0, "recorded_right": 0}
    with tempfile.TemporaryDirectory() as tmp:
        wiki = Path(tmp) / "wiki"
        wiki.mkdir()
        (wiki / page.name).write_bytes(page.read_bytes())
        bundle = shared / "data" / "enhancements-keps.bundle"
        for release in args.releases.split(","):
            readme = (shared / "data" / "sig-release" / "releases" / f"release-{release[1:]}" / "README.md").read_text(
                encoding="utf-8"
            )
            freeze = timeline_day(readme, r"Code Freeze\]?\**\s*(and|$|\()|^\**Begin \[Code Freeze")
            shipped_on = timeline_day(readme, rf"v{release[1:]}\.0 released")
            repo = Path(tmp) / release / "enh"
            repo.parent.mkdir()
            run("git", "clone", "-q", str(bundle), str(repo))
            sha = run("git", "rev-list", "-1", f"--before={freeze}T23:59:59Z", "HEAD", cwd=repo).strip()
            run("git", "checkout", "-q", sha, cwd=repo)
            found = watch(repo, shared, wiki, page.name, release, freeze, gate_list=False)
            print(f"== {release}: Code Freeze {freeze}, history at {sha[:12]}, released {shipped_on}")
            rows = [(int(e["kep"].split("-")[0]), s, e["state"], e) for e in found["keps"] for s in e["planned"]]
            for number, stage, state, entry in rows:
                real = truth(repo, shared, gates, release, number, stage)
                shipped = real == "shipped"
                right = (state == "landed") == shipped
                totals["stages"] += 1
                totals["landed"] += state == "landed"
                totals["landed_shipped"] += state == "landed" and shipped
                totals["missed"] += not shipped
                totals["missed_caught"] += not shipped and state in PREDICT_MISS
                totals["right"] += right
                totals["no_record"] += real == "no record"
                totals["recorded"] += real != "no record"
                totals["recorded_right"] += real != "no record" and right
                print(f"  {number:>5} {stage:<6} {state:<13} {real:<9} {'' if right else 'WRONG'}")
                if args.why and not right:
                    _why(entry)
            counts = {k: v for k, v in found["counts"].items() if v}
            print(f"  {len(rows)} planned stages; states {counts}")
            if release == args.releases.split(",")[-1]:
                _after_release(repo, shared, wiki, page.name, release, shipped_on, gates)
    t = totals
    print("== figures")
    print(f"planned stages: {t['stages']}")
    print(f"called landed: {t['landed']}, shipped: {t['landed_shipped']} ({_pct(t['landed_shipped'], t['landed'])})")
    print(f"did not ship: {t['missed']} ({t['no_record']} of them with no record either way), called at risk/slipped/contradicted: {t['missed_caught']} "
          f"({_pct(t['missed_caught'], t['missed'])})")  # fmt: skip
    print(f"all stages right: {t['right']} of {t['stages']} ({_pct(t['right'], t['stages'])})")
    print(
        f"stages with a record right: {t['recorded_right']} of {t['recorded']} ({_pct(t['recorded_right'], t['recorded'])})"
    )
    return 0


def _why(entry: dict) -> None:
    """The watch's reason for one entry and each of its release-note signs, indented under its row."""
    print(f"        reason: {entry['reason']}")
    for sign in entry["signs"]:
        if sign["source"] == "release note":
            print(f"        #{sign['pr']} {sign['says'] or '-'}: {sign['quote'][:110]}")


def _after_release(repo: Path, shared: Path, wiki: Path, page: str, release: str, day: str, gates: dict) -> None:
    """``release`` read the day after its release day, with the gate list: shipped/missed against the list."""
    y, m, d = (int(x) for x in day.split("-"))
    import datetime

    after = (datetime.date(y, m, d) + datetime.timedelta(days=1)).isoformat()
    sha = run("git", "rev-list", "-1", f"--before={after}T23:59:59Z", "master", cwd=repo).strip()
    run("git", "checkout", "-q", sha, cwd=repo)
    found = watch(repo, shared, wiki, page, release, after, gate_list=True)
    agree = gated = 0
    for e in found["keps"]:
        number = int(e["kep"].split("-")[0])
        for stage in e["planned"]:
            real = truth(repo, shared, gates, release, number, stage)
            if real == "no record":
                continue
            gated += 1
            ok = (e["state"] == "shipped") == (real == "shipped")
            agree += ok
            if not ok:
                print(f"  after release: {number} {stage} {e['state']} but the gate list says {real}")
    print(f"  {release} read on {after}: shipped/missed agree with the gate list on {agree} of {gated} gated stages")


def _pct(a: int, b: int) -> str:
    return f"{100 * a / b:.0f}%" if b else "-"


if __name__ == "__main__":
    sys.exit(main())
