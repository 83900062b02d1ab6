"""Independent check of kep-sync's release-note evidence: precision, recall and Needs-review scope.

    .venv/bin/python scripts/check/eval_evidence.py [--verbose] [--kep-sync PATH] [--bundle FILE] [--notes DIR]

A second reading of the release notes with its own rules, written apart from
``bot/evidence`` (nothing is imported from ``bot``), so the two can disagree.
It runs ``kep-sync sync --publish none --report`` on two pages against the
bundle's HEAD with ``--release-notes``:

- ``stale``: ``wiki/kubernetes-keps-implementation-matrix.2026-03-01.md`` (about 20 rows change);
- ``blanked``: ``wiki/kubernetes-keps-implementation-matrix.md`` with every Alpha / Beta / GA
  cell set to ``- / - / -`` (every row with a milestone upstream changes).

Figures:

- **precision**: of the notes kep-sync shows, as the evidence of a change or as a
  stage-mismatch finding, the share this reading agrees with: evidence must announce
  the change's stage for that KEP in the release kep.yaml names for that stage; a
  stage-mismatch finding must announce that stage for that KEP in another release;
- **recall**: of the notes this reading says announce a change (stage S for KEP K in
  kep.yaml's milestone release for S), the share kep-sync shows as its evidence
  (at most 3 per KEP and stage are counted, as kep-sync shows at most 3);
- **unrelated**: "Needs review" items about a KEP that is on no row of the page, or about
  a gate no kep.yaml declares (unless ``review: all`` is asked for; it is not here).

- **possible**: notes kep-sync shows as *possible* evidence (a note naming no gate and no KEP, matched by
  words) count in the precision too: this reading must tie the entry to the KEP by the words of the KEP's
  directory slug (``4563-eviction-request-api``: "eviction" and "request", written apart or as one
  CamelCase word; ``3633-matchlabelkeys-to-podaffinity``: "matchlabelkeys" as written; generic words such as
  "api" dropped) and read the change's stage in it, in the release
  kep.yaml names (an entry that starts with "Added" or "Introduced" and names no stage is an alpha).

How this reading works (per entry, never per sentence; do_not_publish entries are skipped):

1. The entry is tied to KEPs by the numbers in its ``documentation`` URLs and ``KEP-N`` in
   its text, and by every backticked CamelCase token that a kep.yaml declares as a feature
   gate. A gate several KEPs declare goes to the one the entry links, or to the one that
   declares another gate the entry names, or else to its owner in the git history (the KEP
   whose kep.yaml first had a line naming the gate, ``git log -G``; a withdrawn or replaced
   first owner hands it to the one live declarer whose ``see-also`` / ``replaces`` names its
   number); otherwise it ties the entry to none of them.
   A backticked token one or two edits away from a declared gate (of 12+ characters) ties
   the entry to that KEP too.
2. The text is cleaned of side remarks before it is read: parentheses ``(also alpha)``,
   "<stage> `x` metric(s)", "when using/enabling ... " clauses, sentences with "will not",
   "not yet", "will graduate/be promoted", and everything from "removed" in a
   removal entry (a removal announces no stage).
3. The stage: "to GA/stable/beta/alpha" names the target; "locked" means GA; an API group
   version ``/v1`` promoted is GA, ``/v1beta\\d`` beta, ``/v1alpha\\d`` alpha; an API added or
   introduced at ``/v1beta\\d`` or ``/v1alpha\\d`` (no "field" in the note) is beta / alpha; otherwise the
   highest stage word; "enabled by default" / "default true" is beta; "added/introduced/new
   ... feature gate" with no stage word is alpha.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
CAP = 3
STAGES = ("alpha", "beta", "stable")

_TICK = re.compile(r"`([^`\n]+)`")
_CAMEL = re.compile(r"^(?:--feature-gates=)?([A-Z][A-Za-z0-9]*[a-z0-9][A-Z][A-Za-z0-9]*)(?:=(?:true|false))?$")
_DOC_NUM = (
    re.compile(r"kep\.k8s\.io/(\d+)"),
    re.compile(r"enhancements/issues/(\d+)"),
    re.compile(r"/keps/[^/]+/(?:[^/]+/)?(\d+)-"),
)
_TEXT_NUM = re.compile(r"\bKEP[- #]*(\d{2,5})\b", re.I)


def milestone(value: object) -> str:
    """``v1.30`` for ``1.30``/``v1.30``; ``""`` for anything else."""
    m = re.fullmatch(r"v?(\d+)\.(\d+)", str(value or "").strip())
    return f"v{int(m.group(1))}.{int(m.group(2))}" if m else ""


def load_keps(root: Path) -> dict[str, dict]:
    """``{path: {number, gates, milestones, sig, status, stage}}`` for every kep.yaml (templates skipped)."""
    out = {}
    for file in sorted(root.glob("keps/**/kep.yaml")):
        rel = str(file.relative_to(root))
        if "NNNN-kep-template" in rel or "0000-cloud-provider-template" in rel:
            continue
        try:
            doc = yaml.load(file.read_text(encoding="utf-8"), Loader=yaml.BaseLoader)
        except Exception:  # a broken file has nothing to compare
            continue
        if not isinstance(doc, dict):
            continue
        gates = [g.get("name", "") for g in doc.get("feature-gates") or [] if isinstance(g, dict)]
        ms = doc.get("milestone") if isinstance(doc.get("milestone"), dict) else {}
        m = re.match(r"(\d+)-", file.parent.name)
        links = [doc.get(k) for k in ("see-also", "replaces")]
        out[rel] = {
            "number": int(m.group(1)) if m else -1,
            "slug": file.parent.name.split("-", 1)[1] if "-" in file.parent.name else "",
            "sig": rel.split("/")[1],
            "status": doc.get("status") if isinstance(doc.get("status"), str) else "",
            "links": [x for v in links for x in (v if isinstance(v, list) else [v]) if isinstance(x, str)],
            "gates": [g for g in gates if isinstance(g, str) and _CAMEL.match(g)],
            "milestones": {s: milestone(ms.get(s)) for s in STAGES},
        }
    return out


def history_owners(root: Path, keps: dict[str, dict]) -> dict[str, str]:
    """``{gate: kep.yaml path}`` of each gate several kep.yaml files declare whose owner the git history names
    (rule 1): the first commit on the first-parent line with a line naming the gate in a declarer's
    kep.yaml (any earlier path of the same KEP number counts), then a withdrawn or replaced owner's heir."""
    declared: dict[str, list[str]] = {}
    for path, k in keps.items():
        for g in k["gates"]:
            declared.setdefault(g, []).append(path)
    by_number = {k["number"]: p for p, k in keps.items()}
    out = {}
    for gate, paths in declared.items():
        if len(paths) < 2:
            continue
        log = subprocess.run(
            ["git", "-C", str(root), "log", "--reverse", "--first-parent", "--name-only", "--format=@%ct", "-G", gate]
            + ["--", "keps"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        first: dict[str, int] = {}
        when = 0
        for line in log.splitlines():
            if line.startswith("@"):
                when = int(line[1:])
            elif line.endswith("/kep.yaml"):
                m = re.match(r"(\d+)-", line.split("/")[-2])
                path = by_number.get(int(m.group(1))) if m else None
                if path in paths and path not in first:
                    first[path] = when
        if len(first) < len(paths):
            continue  # a declarer the history never shows: no owner
        ordered = sorted(paths, key=lambda p: first[p])
        if first[ordered[0]] == first[ordered[1]]:
            continue
        owner = ordered[0]
        while keps[owner]["status"] in ("withdrawn", "replaced"):
            number = keps[owner]["number"]
            heirs = [
                p
                for p in paths
                if keps[p]["status"] not in ("withdrawn", "replaced")
                and any(re.search(rf"(?:^|/|\b){number}(?:-|$)", str(x)) for x in keps[p]["links"])
            ]
            if len(heirs) != 1:
                owner = ""
                break
            owner = heirs[0]
        if owner:
            out[gate] = owner
    return out


def clean(text: str) -> str:
    """The entry text without side remarks (rule 2); backticked tokens kept."""
    text = re.sub(r"\((?:also|previously|formerly|was)\b[^)]*\)", " ", text, flags=re.I)
    text = re.sub(r"\b(?:alpha|beta|stable|ga)\s+(?:`[^`]+`\s+)?(?:\w+\s+)?metrics?\b", " ", text, flags=re.I)
    text = re.sub(r"\bmetrics?\b[^.]{0,40}\((?:alpha|beta|stable|ga)\)", " ", text, flags=re.I)
    text = re.sub(r"\bwhen (?:using|enabling|the)\b[^,.]*", " ", text, flags=re.I)
    text = re.sub(
        r"\b(?:updated|using|with|for|of|under|in|behind) the (?:alpha|beta) `[^`]+` feature(?: gate)?",
        " ",
        text,
        flags=re.I,
    )
    parts = re.split(r"(?<=[.!?])\s+", text)
    keep = [
        p
        for p in parts
        if not re.search(
            r"\bwill not\b|\bwon't\b|\bnot yet\b|\bwill (?:graduate|be promoted|move|be enabled)\b"
            r"|\bstill available\b|\bmight be\b|\bmay be removed\b"
            r"|\bin a future release\b",
            p,
            re.I,
        )
    ]
    text = " ".join(keep)
    removal = re.search(r"\b(?:removed|remove|removes|drop|dropped)\b", text, re.I)
    if removal and not re.search(r"\b(?:promot|graduat)", text[: removal.start()], re.I):
        text = text[: removal.start()]
    return text


def stage_of(text: str) -> str:
    """The stage the cleaned text announces (rule 3), or ``""``."""
    plain = _TICK.sub(lambda m: " " + m.group(1) + " " if "/" in m.group(1) else " X ", text)
    low = plain.lower()
    target = re.search(
        r"\b(?:to|as|in|reach(?:es|ed)?)\s+(?:the\s+)?(ga|stable|general availability|beta|alpha)\b", low
    )
    if target:
        word = target.group(1)
        return "stable" if word in ("ga", "stable", "general availability") else word
    if re.search(r"\block(?:ed|s)?\b", low) and re.search(r"gate", low):
        return "stable"
    api = re.search(r"\.k8s\.io/(v1(?:alpha|beta)?)\d*\b", low) or re.search(r"\b(v1(?:alpha|beta)?)\d*\s+api\b", low)
    if api and re.search(r"promot|graduat", low):
        return {"v1": "stable", "v1beta": "beta", "v1alpha": "alpha"}[api.group(1)]
    if (
        api
        and api.group(1) != "v1"
        and re.search(r"\b(?:add(?:ed|s)?|introduc\w+)\b", low)
        and not re.search(r"\bfields?\b", low)
    ):
        return {"v1beta": "beta", "v1alpha": "alpha"}[api.group(1)]  # a new API at an alpha/beta version
    if re.search(r"\bga\b|\bstable\b|general availability|generally available", low):
        return "stable"
    if re.search(r"\bbeta\b", low):
        return "beta"
    if re.search(r"\balpha\b", low):
        return "alpha"
    if re.search(r"\benabled\b[^.;]{0,60}\bby default|on by default|default(?:s)? (?:to )?(?:true|enabled)", low):
        return "beta"
    if re.search(
        r"\b(?:add(?:ed|s)?|introduc\w+|new)\b[^.]{0,80}feature[- ]gate|feature[- ]gate[^.]{0,60}"
        r"\b(?:is now available|has been added|was added)",
        low,
    ):
        return "alpha"
    return ""


_QUOTED = re.compile(
    r"`([^`\n]+)`(?!\s+(?:mechanism|plugin|field|metric|api|type|object|controller|admission)\b)"
    r"|\"([A-Za-z0-9]+)\"|'([A-Za-z0-9]+)'|\(([A-Za-z0-9]+)\)"
    r"|feature[- ]gates? ([A-Za-z0-9]+)|([A-Za-z0-9]+) feature[- ]gate",
    re.I,
)
_RELEASE_SAID = re.compile(r"\b(?:ga|stable|beta|alpha|general availability)\b[^.;`]{0,12}\bin `?v?(1\.\d+)\b", re.I)


def gate_tokens(text: str) -> list[str]:
    """CamelCase names written as code, in quotes, in parentheses or next to "feature gate" (rule 1)."""
    out = []
    for m in _QUOTED.finditer(text):
        word = next(g for g in m.groups() if g)
        name = _CAMEL.match(word.strip())
        if name:
            out.append(name.group(1))
    return out


def edits(a: str, b: str, limit: int = 2) -> int:
    """Levenshtein distance of ``a`` and ``b``, or ``limit + 1`` when more."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def read_notes(
    notes_dir: Path, keps: dict[str, dict], owned: dict[str, str] | None = None
) -> dict[tuple[str, str], dict[tuple[str, int], tuple[str, str]]]:
    """``{(kep path, stage): {(release, pr): (release it says, excerpt)}}``: what this reading says each entry
    announces; the release it says is the one named next to the stage ("GA in `v1.36`"), else the notes' own.
    ``owned``: the owner of each shared gate from the history (:func:`history_owners`)."""
    owned = owned or {}
    owners: dict[str, set[str]] = {}
    for path, k in keps.items():
        for g in k["gates"]:
            owners.setdefault(g, set()).add(path)
    by_number: dict[int, set[str]] = {}
    for path, k in keps.items():
        by_number.setdefault(k["number"], set()).add(path)
    long_gates = [g for g in owners if len(g) >= 12]
    out: dict[tuple[str, str], dict[tuple[str, int], str]] = {}
    for file in sorted(glob.glob(str(notes_dir / "release-notes-1.*.json"))):
        release = milestone(re.search(r"(\d+\.\d+)\.json$", file).group(1))
        for key, entry in json.loads(Path(file).read_text(encoding="utf-8")).items():
            if not isinstance(entry, dict) or entry.get("do_not_publish") is True:
                continue
            text = entry.get("text") if isinstance(entry.get("text"), str) else ""
            linked: set[str] = set()
            for doc in entry.get("documentation") or []:
                url = doc.get("url", "") if isinstance(doc, dict) else ""
                for rx in _DOC_NUM:
                    for m in rx.finditer(url or ""):
                        linked |= by_number.get(int(m.group(1)), set())
            for m in _TEXT_NUM.finditer(text):
                linked |= by_number.get(int(m.group(1)), set())
            tokens = gate_tokens(text)
            declared = [t for t in tokens if t in owners]
            single = set().union(*[owners[t] for t in declared if len(owners[t]) == 1]) if declared else set()
            tied = set(linked)
            for gate in declared:
                who = owners[gate]
                tied |= (
                    who
                    if len(who) == 1
                    else (who & linked or who & single or ({owned[gate]} & who if gate in owned else set()))
                )
            for t in tokens:
                if t not in owners and len(t) >= 12:
                    near = [g for g in long_gates if edits(t, g) <= 2]
                    if len(near) == 1 and len(owners[near[0]]) == 1:
                        tied |= owners[near[0]]
            if not tied:
                continue
            stage = stage_of(clean(text))
            if not stage:
                continue
            said = _RELEASE_SAID.search(clean(text))
            when = milestone(said.group(1)) if said else release
            pr = entry.get("pr_number") if isinstance(entry.get("pr_number"), int) else int(key)
            for path in tied:
                out.setdefault((path, stage), {})[(release, pr)] = (when, " ".join(text.split())[:140])
    return out


#: Slug words too generic to tie an entry to a KEP by words.
GENERIC = frozenset("api apis support pod pods kep feature features for the and of to in add new".split())


def slug_words(slug: str) -> list[str]:
    """The words of a KEP directory slug that can tie an entry to it (generic ones and short ones dropped)."""
    return [w for w in slug.lower().split("-") if len(w) >= 4 and w not in GENERIC]


def possible_ok(entry_text: str, kep: dict, stage: str) -> bool:
    """This reading's view of a *possible* evidence note: the slug's words in the text (apart or CamelCase
    joined) and the stage read (an "Added" / "Introduced" entry with no stage word is alpha)."""
    words = slug_words(kep["slug"])
    if not words:
        return False
    split = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", entry_text).lower()
    tokens = set(re.findall(r"[a-z0-9]+", split)) | set(re.findall(r"[a-z0-9]+", entry_text.lower()))
    if not all(w in tokens or w.rstrip("s") in tokens for w in words):
        return False
    said = stage_of(clean(entry_text))
    intro = bool(re.match(r"\W*(?:added|adds|introduced|introduces)\b", entry_text, re.I))
    return said == stage or (stage == "alpha" and not said and intro)


def blank_milestones(text: str) -> str:
    """The page with every cell of an "Alpha / Beta / GA" column set to ``- / - / -`` on KEP rows."""
    out, col = [], None
    for line in text.split("\n"):
        if line.startswith("|"):
            cells = line.split("|")
            heads = [i for i, c in enumerate(cells) if "Alpha" in c]
            if heads:
                col = heads[0]
            elif col is not None and len(cells) > col and re.match(r"\s*\d+-", cells[1]):
                cells[col] = " - / - / - "
                line = "|".join(cells)
        else:
            col = None
        out.append(line)
    return "\n".join(out)


def page_numbers(text: str) -> set[int]:
    """KEP numbers on the page's KEP rows."""
    return {int(m.group(1)) for m in re.finditer(r"^\|\s*\[?(?:KEP-)?(\d+)(?:-[\w.-]+)?\]?", text, re.M)}


def stage_of_change(change: dict, keps: dict[str, dict]) -> str:
    """The stage a change is about: the milestone field, the new stage, or stable for status -> implemented."""
    if change["field"] in STAGES:
        return change["field"]
    if change["field"] == "stage" and change["new"] in STAGES:
        return change["new"]
    if change["field"] == "status" and change["new"] == "implemented":
        return "stable"
    return ""


def evaluate(
    name: str,
    report: dict,
    page_text: str,
    keps: dict[str, dict],
    truth: dict,
    verbose: bool,
    texts: dict[tuple[str, int], str] | None = None,
) -> dict:
    """Precision, recall and unrelated count for one run's report; ``texts``: ``{(release, pr): entry text}``
    for judging possible evidence."""
    texts = texts or {}
    shown: dict[tuple[str, str], set[tuple[str, int]]] = {}
    for c in report["changes"]:
        stage = stage_of_change(c, keps)
        if not stage or c["kep_path"] not in keps:
            continue
        items = shown.setdefault((c["kep_path"], stage), set())
        items |= {(e["release"], e["pr"]) for e in c.get("evidence") or []}
    good = bad = 0
    wrong, missed = [], []
    for (path, stage), items in sorted(shown.items()):
        want = keps[path]["milestones"][stage]
        said = truth.get((path, stage), {})
        for release, pr in sorted(items):
            if (release, pr) in said and said[(release, pr)][0] == want:
                good += 1
            else:
                bad += 1
                why = "announces it in another release" if (release, pr) in said else "does not announce it"
                wrong.append(f"evidence {path} {stage} {release} #{pr}: {why}")
    possible = 0
    for c in report["changes"]:
        stage = stage_of_change(c, keps)
        for e in c.get("possible_evidence") or []:
            possible += 1
            kep = keps.get(c["kep_path"])
            ok = (
                kep is not None
                and e["release"] == kep["milestones"].get(stage)
                and possible_ok(texts.get((e["release"], e["pr"]), ""), kep, stage)
            )
            good, bad = good + ok, bad + (not ok)
            if not ok:
                wrong.append(f"possible {c['kep_path']} {stage} {e['release']} #{e['pr']}: not this KEP's stage here")
    for d in report.get("discrepancies", []):
        if d["kind"] != "stage-mismatch" or not d.get("pr"):
            continue
        stages = [s for s in STAGES if re.search(rf"\bsay (?:[^;]*?){s}\b", d["message"])]
        stage = stages[0] if stages else ""
        said = truth.get((d["kep_path"], stage), {})
        hit = [when for (r, p), (when, _) in said.items() if p == d["pr"]]
        if hit and hit[0] != keps.get(d["kep_path"], {}).get("milestones", {}).get(stage):
            good += 1
        else:
            bad += 1
            wrong.append(f"mismatch {d['kep_path']} {stage} {d['release']} #{d['pr']}: not a contradiction here")
    found = total = 0
    for path, stage in shown:
        want = keps[path]["milestones"][stage]
        expected = sorted(k for k, (when, _) in truth.get((path, stage), {}).items() if when == want)
        if not expected:
            continue
        got = [k for k in expected if k in shown[(path, stage)]]
        total += min(len(expected), CAP)
        found += min(len(got), CAP)
        if len(got) < min(len(expected), CAP):
            missed += [
                f"missed {path} {stage} {r} #{p}: {truth[(path, stage)][(r, p)][1]}"
                for r, p in expected
                if (r, p) not in shown[(path, stage)]
            ]
    on_page = page_numbers(page_text)
    review = report.get("discrepancies", [])
    unrelated = [d for d in review if not d.get("kep") or int(re.match(r"\d*", d["kep"]).group() or -1) not in on_page]
    precision = good / (good + bad) if good + bad else 1.0
    recall = found / total if total else 1.0
    apart = sum(len(c.get("ambiguous_evidence") or []) for c in report["changes"])
    print(
        f"{name}: changes={len(report['changes'])} evidence_shown={good + bad} possible={possible} "
        f"ambiguous_apart={apart} "
        f"precision={precision:.2f} "
        f"recall={recall:.2f} ({found}/{total}) needs_review={len(review)} unrelated={len(unrelated)}"
    )
    if verbose:
        for line in wrong + missed:
            print("   ", line)
        for d in unrelated:
            print("    unrelated:", d["kind"], d.get("kep"), d["message"][:120])
    return {"precision": precision, "recall": recall, "unrelated": len(unrelated)}


def entry_texts(notes_dir: Path) -> dict[tuple[str, int], str]:
    """``{(release, pr): text}`` of every entry of every release."""
    out = {}
    for file in sorted(glob.glob(str(notes_dir / "release-notes-1.*.json"))):
        release = milestone(re.search(r"(\d+\.\d+)\.json$", file).group(1))
        for key, entry in json.loads(Path(file).read_text(encoding="utf-8")).items():
            if isinstance(entry, dict) and isinstance(entry.get("text"), str):
                pr = entry.get("pr_number") if isinstance(entry.get("pr_number"), int) else int(key)
                out[(release, pr)] = entry["text"]
    return out


def run_kep_sync(exe: str, enh: str, wiki: Path, page: str, notes: str, report: Path) -> dict:
    """``kep-sync sync --publish none`` with a report; returns the report."""
    proc = subprocess.run(
        [
            exe,
            "sync",
            "--enhancements",
            enh,
            "--wiki",
            str(wiki),
            "--page",
            page,
            "--publish",
            "none",
            "--release-notes",
            notes,
            "--report",
            str(report),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "KEP_SYNC_CONFIG": ""},
    )
    if proc.returncode != 0:
        sys.exit(f"kep-sync failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return json.loads(report.read_text(encoding="utf-8"))


def main() -> int:
    """Run both pages and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kep-sync", default=str(ROOT / ".venv" / "bin" / "kep-sync"))
    parser.add_argument("--bundle", default=str(SHARED / "data" / "enhancements-keps.bundle"))
    parser.add_argument("--notes", default=str(SHARED / "data" / "release-notes"))
    parser.add_argument("--verbose", "-v", action="store_true", help="list every disagreement")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        subprocess.run(
            ["git", "-c", "init.defaultBranch=master", "clone", "-q", args.bundle, str(t / "enh")], check=True
        )
        keps = load_keps(t / "enh")
        truth = read_notes(Path(args.notes), keps, history_owners(t / "enh", keps))
        texts = entry_texts(Path(args.notes))
        pages = {
            "stale": (SHARED / "wiki" / "kubernetes-keps-implementation-matrix.2026-03-01.md").read_text("utf-8"),
            "blanked": blank_milestones(
                (SHARED / "wiki" / "kubernetes-keps-implementation-matrix.md").read_text("utf-8")
            ),
        }
        figures = []
        for name, text in pages.items():
            wiki = t / f"wiki-{name}"
            wiki.mkdir()
            (wiki / "page.md").write_text(text, encoding="utf-8")
            report = run_kep_sync(args.kep_sync, str(t / "enh"), wiki, "page.md", args.notes, t / f"{name}.json")
            figures.append(evaluate(name, report, text, keps, truth, args.verbose, texts))
    print(
        f"targets: precision>=0.97 recall>=0.95 unrelated=0; met: "
        f"{all(f['precision'] >= 0.97 and f['recall'] >= 0.95 and f['unrelated'] == 0 for f in figures)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
