"""Hypothesis strategies for kep-sync's inputs: upstream kep.yaml trees and wiki pages with KEP tables.

    up = draw(upstreams())                  # Upstream: KEPs, renames, shared numbers, hostile text
    page = draw(pages(up))                  # Page: text (LF or CRLF, BOM, front matter) and its table headings
    files = up.files(renamed=True)          # {repository path: kep.yaml bytes} after the renames

Everything is synthetic; nothing comes from ../shared. The shapes follow the README: a KEP table is a
GFM table whose header has a ``KEP`` column; status / stage / Alpha / Beta / GA / Feature gate columns are
found by their header text; a table may sit in a list item, a blockquote or ``<details>``.
"""

from __future__ import annotations

import json
import unicodedata
from typing import NamedTuple

from hypothesis import strategies as st

__all__ = ["KepSpec", "Page", "Upstream", "cell_width", "digest_page", "pages", "upstreams"]

#: Text an upstream author could write into a title or a directory name that a table cell must not take raw.
HOSTILE = ["|", "\\|", "\r", "\n", "`", "<b>", "</td>", "[x](y)", "@jane.doe", "矩阵", "  ", "\t", "\x01", "*", "~~"]
STATUSES = ["implementable", "implemented", "provisional", "withdrawn", "imlpemented"]
STAGES = ["alpha", "beta", "stable", ""]
MILESTONES = ["v1.33", "v1.35", "v1.36", "v1.37", "v1.38", "", "TBD", "1.36"]
NUMBERS = [0, 1, 42, 624, 4671, 5710]
SIGS = ["sig-scheduling", "sig-node"]


class KepSpec(NamedTuple):
    """One kep.yaml: ``number``, directory ``slug`` (``old_slug``: its name before an upstream rename),
    ``sig`` directory, fields as written, and ``twice``: a key given twice (``""``: none)."""

    number: int
    slug: str
    sig: str
    title: str
    status: str
    stage: str
    alpha: str
    beta: str
    stable: str
    gates: tuple[str, ...]
    twice: str
    old_slug: str

    @property
    def dirname(self) -> str:
        return f"{self.number:04d}-{self.slug}" if self.number == 0 else f"{self.number}-{self.slug}"

    def path(self, renamed: bool = True) -> str:
        slug = self.slug if renamed or not self.old_slug else self.old_slug
        name = f"{self.number:04d}-{slug}" if self.number == 0 else f"{self.number}-{slug}"
        return f"keps/{self.sig}/{name}/kep.yaml"

    def yaml(self) -> str:
        """The kep.yaml text (strings JSON-quoted, which YAML reads as double-quoted scalars)."""
        q = json.dumps
        ms = (
            "".join(
                f"  {k}: {q(v)}\n"
                for k, v in (("alpha", self.alpha), ("beta", self.beta), ("stable", self.stable))
                if v
            )
            or '  alpha: ""\n'
        )
        gates = "".join(f"  - name: {g}\n    components:\n      - kubelet\n" for g in self.gates) or "  []\n"
        twice = {
            "status": "status: implemented\n",
            "stage": "stage: beta\n",
            "milestone": 'milestone:\n  beta: "v1.30"\n',
        }.get(self.twice, "")
        return (
            f'title: {q(self.title)}\nkep-number: {self.number}\nauthors:\n  - "@someone"\n'
            f"owning-sig: {self.sig}\nstatus: {self.status}\nstage: {q(self.stage)}\n"
            f'creation-date: 2024-01-02\nlatest-milestone: "v1.37"\nmilestone:\n{ms}'
            f"feature-gates:\n{gates}{twice}"
        )


class Upstream(NamedTuple):
    """A kubernetes/enhancements tree: ``keps`` (several may share a number)."""

    keps: tuple[KepSpec, ...]

    def files(self, renamed: bool = True) -> dict[str, bytes]:
        """``{path: bytes}``; ``renamed=False``: the tree before the renames (every ``old_slug`` directory)."""
        out: dict[str, bytes] = {}
        for k in self.keps:
            out.setdefault(k.path(renamed), k.yaml().encode("utf-8"))
        return out

    @property
    def renames(self) -> bool:
        return any(k.old_slug for k in self.keps)


_WORD = st.sampled_from(["gang", "scheduling", "node", "swap", "dra", "pod", "level", "x"])
_PLAIN_SLUG = st.lists(_WORD, min_size=1, max_size=3).map("-".join)
_HOSTILE_SLUG = st.tuples(_PLAIN_SLUG, st.sampled_from(["|", " ", "\x01", "`", "矩阵", "<b>", "\\"]), _PLAIN_SLUG).map(
    "".join
)
_SLUG = st.one_of(_PLAIN_SLUG, _PLAIN_SLUG, _PLAIN_SLUG, _HOSTILE_SLUG)
_TITLE = st.lists(st.one_of(_WORD, st.sampled_from(HOSTILE)), min_size=1, max_size=5).map(" ".join)


@st.composite
def kep_specs(draw, number: int | None = None) -> KepSpec:
    """One kep.yaml; renames in about one KEP in two (``old_slug``), a key given twice in one in eight."""
    slug = draw(_SLUG)
    old = draw(st.one_of(st.just(""), _PLAIN_SLUG.filter(lambda s: s != slug)))
    return KepSpec(
        number=draw(st.sampled_from(NUMBERS)) if number is None else number,
        slug=slug,
        sig=draw(st.sampled_from(SIGS)),
        title=draw(_TITLE),
        status=draw(st.sampled_from(STATUSES)),
        stage=draw(st.sampled_from(STAGES)),
        alpha=draw(st.sampled_from(MILESTONES)),
        beta=draw(st.sampled_from(MILESTONES)),
        stable=draw(st.sampled_from(MILESTONES)),
        gates=tuple(draw(st.lists(st.sampled_from(["GateA", "GateB", "Gate|C"]), max_size=2, unique=True))),
        twice=draw(st.sampled_from(["", "", "", "", "", "status", "stage", "milestone"])),
        old_slug=old,
    )


@st.composite
def upstreams(draw, max_keps: int = 6) -> Upstream:
    """1..``max_keps`` KEPs; numbers from a small pool, so two KEPs share a number now and then."""
    keps = draw(st.lists(kep_specs(), min_size=1, max_size=max_keps, unique_by=lambda k: (k.sig, k.dirname)))
    seen = {k.path(True) for k in keps}
    keps = [k for k in keps if not k.old_slug or k.path(False) not in seen or k.old_slug == k.slug]
    # KEPs no page names (numbers above 7000), with values a new row may take: candidates for candidates.add_to.
    for n in range(draw(st.integers(0, 2))):
        keps.append(_fresh(draw(kep_specs(7001 + n)), keps[0].sig, draw(_PLAIN_SLUG)))
    return Upstream(tuple(keps))


def _fresh(k: KepSpec, sig: str, slug: str) -> KepSpec:
    return k._replace(
        slug=slug,
        status="implementable",
        stage="alpha",
        alpha="v1.37",
        beta="",
        stable="",
        twice="",
        old_slug="",
        sig=sig,
    )


# --------------------------------------------------------------------------------------------- pages

#: Column layouts: header texts a KEP table can have (aliases from bot/wiki/headers.py) and a human column.
LAYOUTS = [
    ("KEP", "SIG", "状态", "Alpha / Beta / GA", "Feature gate", "说明"),
    ("KEP", "Status", "Stage", "Alpha", "Beta", "GA", "Notes"),
    ("KEP", "Status", "Notes"),
    ("KEP", "状态", "Alpha / Beta / GA"),
    ("Notes", "KEP", "Status", "Stage", "Beta", "More"),  # human columns at both edges: empty edge cells
    ("说明", "KEP", "状态", "Alpha / Beta / GA"),
]
HUMAN = [
    "组调度 \\| PodGroup",
    "<br>two<br>lines",
    "[design](https://example.test/d)",
    "**bold**",
    "抢占",
    "`code`",
    "note",
    "<b>x</b>",
    "a \\| b",
    "",
    "",
]
#: GFM table styles: outer pipes on both sides, none, only leading, only trailing (a row whose first or last
#: cell is empty gets the pipe it needs there, or GFM would drop the cell).
STYLES = ("both", "none", "lead", "trail")
#: Wrappers of a table: (first line prefix, prefix of the lines after it, lines before, lines after).
CONTAINERS = {
    "none": ("", "", [], []),
    "list": ("- ", "  ", [], []),
    "ordered": ("1. ", "   ", [], []),
    "quote": ("> ", "> ", [], []),
    "details": ("", "", ["<details>", "<summary>more</summary>", ""], ["", "</details>"]),
}
FRONT = {
    "none": [],
    "plain": ["---", "title: KEP 矩阵", "date: 2026-03-01", "---", ""],
    "quoted": ["---", 'date: "2026-03-01"  # updated by hand', "---", ""],
    "dots": ["---", "date: 2026-03-01", "...", ""],
    "unclosed": ["---", "date: 2026-03-01", ""],
    "later": ["# intro", "", "---", "date: 2026-03-01", "---", ""],
}


def cell_width(text: str) -> int:
    """Display width: East Asian wide and full-width characters count double (as bot/wiki/tables.py)."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


class Page(NamedTuple):
    """A wiki page: its ``text`` and the ``headings`` of its KEP tables (in order)."""

    text: str
    headings: tuple[str, ...]


#: Where a KEP cell links to another project's KEP (:func:`_kep_cell`); its rows are never written.
FOREIGN = "github.com/kubernetes-sigs/kueue"


def _kep_cell(draw, kep: KepSpec | None, number: int) -> str:
    slug = (kep.old_slug or kep.slug) if kep else "gone"
    name = f"{number}-{slug}" if number else f"0000-{slug}"
    style = draw(st.sampled_from(["slug", "link", "kep", "bare", "html", "url", "foreign"]))
    if "|" in name or "`" in name or "\x01" in name or "<" in name or "\\" in name:
        style = draw(st.sampled_from(["kep", "bare"]))
    sig = kep.sig if kep else "sig-node"
    return {
        "slug": name,
        "kep": f"KEP-{number}",
        "bare": str(number),
        "html": f"<b>{name}</b>",
        "link": f"[{name}](https://github.com/kubernetes/enhancements/tree/master/keps/{sig}/{name})",
        "url": f"[{number}](https://kep.k8s.io/{number})",
        # another project's KEP of the same number: names no KEP of kubernetes/enhancements
        "foreign": f"[KEP-{number}](https://{FOREIGN}/tree/main/keps/{number}-x)",
    }[style]


def _row(draw, header: tuple[str, ...], kep: KepSpec | None, number: int) -> list[str]:
    status = draw(st.sampled_from(["implementable", "implemented", "provisional"]))
    stage = draw(st.sampled_from(["alpha", "beta", "stable", "GA", "**beta**"]))
    sep = draw(st.sampled_from([" / ", " \\| ", "／", "/"]))
    ms = [draw(st.sampled_from(["v1.35", "v1.36", "-", "1.37", "—"])) for _ in range(3)]
    cells = {
        "KEP": _kep_cell(draw, kep, number),
        "SIG": "scheduling",
        "状态": f"{status}{sep}{stage}",
        "Status": status,
        "Stage": stage,
        "Alpha / Beta / GA": sep.join(ms),
        "Alpha": ms[0],
        "Beta": ms[1],
        "GA": ms[2],
        "Feature gate": draw(st.sampled_from(["`GateA`", "", "`GateA`, `GateB`"])),
    }
    return [cells.get(h, draw(st.sampled_from(HUMAN))) for h in header]


def _delimiter(align: str, width: int) -> str:
    left, right = align.startswith(":"), align.endswith(":")
    return (":" if left else "") + "-" * max(3, width - left - right) + (":" if right else "")


def _render(rows: list[list[str]], *, style: str, padded: bool, align: list[str]) -> list[str]:
    widths = [max(3, *(cell_width(r[i]) for r in rows)) for i in range(len(rows[0]))] if padded else None
    lines = []
    for n, row in enumerate(rows):
        cells = list(row)
        if n == 1:
            cells = [_delimiter(a, widths[i] if widths else 3) for i, a in enumerate(align)]
        elif widths:
            cells = [c + " " * (widths[i] - cell_width(c)) for i, c in enumerate(cells)]
        body = " | ".join(cells)
        lead = style in ("both", "lead") or not row[0].strip()
        trail = style in ("both", "trail") or not row[-1].strip()
        lines.append(("| " if lead else "") + body + (" |" if trail else ""))
    return lines


@st.composite
def tables(draw, up: Upstream, heading: str) -> list[str]:
    """A KEP table under ``heading`` (lines without line endings), in a container, padded or not, in one of
    the GFM :data:`STYLES` (with or without outer pipes), human cells empty at either edge or holding ``\\|``."""
    header = draw(st.sampled_from(LAYOUTS))
    # Rows for the KEPs at even positions only: the others are left to be candidates for new rows.
    numbers = draw(
        st.lists(st.sampled_from([k.number for k in up.keps[::2] if k.number < 7000] + [9999]), min_size=0, max_size=4)
    )
    rows = [list(header), []]
    for n in numbers:
        matching = [k for k in up.keps if k.number == n]
        rows.append(_row(draw, header, draw(st.sampled_from(matching)) if matching else None, n))
    style = draw(st.sampled_from(STYLES))
    align = [draw(st.sampled_from(["---", ":---", "---:", ":---:"])) for _ in header]
    rows[1] = align
    table = _render(rows, style=style, padded=draw(st.booleans()), align=align)
    first, rest, before, after = CONTAINERS[draw(st.sampled_from(sorted(CONTAINERS)))]
    body = [first + table[0], *(rest + line for line in table[1:])]
    return [f"## {heading}", "", *before, *body, *after, ""]


@st.composite
def pages(draw, up: Upstream, max_tables: int = 3, fronts: tuple[str, ...] = tuple(sorted(FRONT))) -> Page:
    """A page of 1..``max_tables`` KEP tables with prose between them, a front matter variant,
    LF or CRLF line ends, maybe a BOM, with or without a final newline. ``fronts``: the keys of
    :data:`FRONT` to draw the front matter from."""
    count = draw(st.integers(1, max_tables))
    headings = tuple(f"Table {i} 表" for i in range(count))
    lines = list(FRONT[draw(st.sampled_from(fronts))])
    lines += ["# 矩阵", "", "说明 | 这不是表格", "date: not the front matter", ""]
    for h in headings:
        lines += draw(tables(up, h))
        lines += draw(st.sampled_from([[], ["```", "| KEP | 状态 |", "|---|---|", "| 1 | x |", "```", ""]]))
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    text = eol.join(lines)
    if draw(st.booleans()):
        text = text.rstrip("\r\n")
    if draw(st.booleans()):
        text = "\ufeff" + text
    return Page(text, headings)


def digest_page(crlf: bool = False) -> str:
    """A digest page: text around one pair of digest markers (bot/plan/digest.py)."""
    from bot.plan import digest

    text = f"# This year\n\nintro\n\n{digest.BEGIN}\nold text\n{digest.END}\n\nkept | by hand\n"
    return text.replace("\n", "\r\n") if crlf else text
