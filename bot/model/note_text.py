"""Reading release-note text: sentences, the stage a sentence announces, gate names, KEP references.

Pure string functions over entries of ``release-notes-draft.json`` (upstream
kubernetes/sig-release). Gates are declared feature gate names written as a
case-sensitive whole word (in backticks or bare, "(SchedulerAsyncPreemption)");
undeclared ones only in backticks next to "feature gate". KEP references are
``KEP-1234``, ``kep.k8s.io/1234``, enhancements issue and ``keps/sig-x/1234-slug``
URLs (``enhancements/pull/N`` is a pull request, not a KEP).

Entries are untrusted input: only string fields are read, at most
:data:`MAX_ENTRY_CHARS` characters each, and every number is matched with
ASCII digits of bounded length (``\\d`` would take "²" or "١", and ``int()``
of thousands of digits raises), so no entry can crash or stall the index.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Collection, Mapping

from bot.model.kep import milestone_key, normalize_milestone

#: Longest excerpt, characters (one line).
MAX_EXCERPT = 240
#: Characters of each entry field indexed (``text``, ``markdown``, each ``documentation[].url``); the rest is ignored.
MAX_ENTRY_CHARS = 20_000
#: ``documentation`` items read per entry.
MAX_DOCUMENTATION = 100
_BACKTICK_RE = re.compile(r"`([^`\n]+)`")
_GATE_TOKEN_RE = re.compile(r"^(?:--feature-gates=)?([A-Z][A-Za-z0-9]+)(?:=(?:true|false))?$")
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`(\['\"])|\n+")
_KEP_TEXT_RES = (
    re.compile(r"\bKEP[- ]?#?([0-9]{1,5})\b", re.I),
    re.compile(r"kep\.k8s\.io/([0-9]{1,5})\b", re.I),
    re.compile(r"github\.com/kubernetes/enhancements/issues/([0-9]{1,5})\b", re.I),
    # a fork's copy of the KEP (github.com/USER/enhancements) names the same KEP
    re.compile(
        r"github\.com/[\w.-]{1,39}/enhancements/(?:tree|blob)/[^/\s)]+/keps/(?:[^/\s)]+/){1,3}?"
        r"([0-9]{1,5})-([\w.-]+)",
        re.I,
    ),
)
#: Every KEP reference pattern below contains one of these words.
_KEP_HINT_RE = re.compile(r"kep|enhancements", re.I)
#: A stage word: side remarks are looked for only in a sentence that has one.
_ANY_STAGE_RE = re.compile(r"alpha|beta|\bGA\b|stable", re.I)
_SPAN = r"\x00[0-9]{1,6}\x00"
_RUN = rf"{_SPAN}(?:(?:\s*,\s*|\s+and\s+|\s+or\s+|\s*,\s*and\s+){_SPAN})*"
_GATE_PHRASE_RES = (
    re.compile(rf"({_RUN})\s+(?:feature[- ])?gates?\b", re.I),
    re.compile(rf"\bfeature[- ]gates?\s+(?:named\s+|called\s+)?({_RUN})", re.I),
)
_STAGE_WORDS = (
    ("stable", re.compile(r"\bGA\b|(?i:\b(?:stable|generally available|general availability)\b)")),
    ("beta", re.compile(r"\bbeta\b", re.I)),
    ("alpha", re.compile(r"\balpha\b", re.I)),
)
_REMOVED_RE = re.compile(r"\b(removed|removes|remove|removal of|dropped)\b", re.I)
#: A bug fix: what it says was dropped or removed is the bug, never the gate ("Fixed ... being silently dropped
#: ... when the `PodLevelResources` feature gate is enabled", the 1.37 note #140262).
_BUG_FIX_RE = re.compile(r"^\W*fix(?:ed|es)?\b", re.I)
_DEPRECATED_RE = re.compile(r"\bdeprecat(ed|es|e|ion)\b", re.I)
_LOCKED_RE = re.compile(r"\blocked\b|\blocks? (?:it |them )?to\b", re.I)
_DEFAULT_ON_RE = re.compile(
    r"\b(enabled|on) by default\b|\bdefault(?:s|ed)? (?:to )?(?:true|enabled|on)\b"
    r"|\benabled?\b[^.;]*\bby default\b",
    re.I,
)
_FUTURE_RE = re.compile(
    r"\bwill be\b|\bin a future release\b|\bplanned\b|\btargeted for\b"
    r"|\b(?:until|once|when|before)\b[^.;]{0,60}\bgraduates?\b"
    r"|\bprepar(?:e|es|ed|ing|ation)\b[^.;]{0,80}\b(?:graduat|promot)",
    re.I,
)
_ADDED_GATE_RE = re.compile(
    r"\b(?:add(?:ed|s)?|introduc\w+)\s+(?:the\s+|a\s+)?(?:new\s+)?(?:(?:alpha|beta)\s+)?"
    r"`[^`]+`\s+feature[- ]gate",
    re.I,
)
_TRANSITION_RE = re.compile(
    r"\b(promot\w*|graduat\w*|moved? to|move[sd]? to|is now (?:GA|beta|stable))\b"
    r"|\bto (GA|beta|stable|general availability)\b",
    re.I,
)
_ALPHA_INTRO_RE = re.compile(
    r"\b(?:add(?:ed|s)?|introduc\w+)\s+(?:an?\s+|the\s+)?(?:new\s+)?alpha\b"
    r"|\b(?:add(?:ed|s)?|introduc\w+)\b[^.;()]{0,80}\(alpha\)",
    re.I,
)
_TARGET_RE = re.compile(r"\bto (?:the )?(GA|alpha|beta|stable|general availability)\b(?! and\b)", re.I)
_DEMOTED_RE = re.compile(r"\bdemot\w*|\brevert\w*|\bback to\b", re.I)
_IN_RELEASE_RE = re.compile(
    r"\b(?:GA|alpha|beta|stable|default)\b[^.;`]{0,8}?\bin (?:Kubernetes )?`?v?"
    r"(1\.[0-9]{1,2})\b",
    re.I,
)
_GATE_WORD_RE = re.compile(r"\bfeature[- ]gates?\b|\bgates?\b", re.I)
_WORD_RE = re.compile(r"[A-Za-z0-9_]+")
_RELEASE_RE = re.compile(r"(?<![0-9])([0-9]{1,4})\.([0-9]{1,4})(?![0-9])")
_MARK_RE = re.compile(r"\x00([0-9]{1,6})\x00")
#: Side remarks that name a stage without announcing one: "(also alpha)", ", formerly alpha,",
#: a metric's stability level ("the Alpha `kubelet` metric", "metrics ... (alpha)"), "when using the Alpha `X` feature".
_SIDE_REMARK_RES = (
    re.compile(r"\((?:also|previously|formerly|was|still)\b[^)]*\)", re.I),
    re.compile(r",?\s*\b(?:previously|formerly)\s+(?:alpha|beta|GA|stable)\b,?", re.I),
    re.compile(r"\b(?:alpha|beta|stable|GA)\s+(?:`[^`]+`\s+)?(?:[\w-]+\s+)?metrics?\b", re.I),
    re.compile(r"\bmetrics?\b[^.;]{0,60}\((?:alpha|beta|stable|GA)\)", re.I),
    re.compile(r"\b(?:when|while|if)\s+(?:using|enabling|you use|you enable)\b[^,.;]*", re.I),
    re.compile(r"\bv?[0-9]+\.[0-9]+\.[0-9]+-(?:alpha|beta|rc)\.[0-9]+", re.I),  # a pre-release tag
    # a named metric's stability: "Graduated metric `x_total` to Beta", "Promoted the `a_total` and `b` metrics"
    re.compile(
        r"\b(?:promot|graduat)\w*\s+(?:the\s+)?(?:metrics?\b|(?:`\w+_\w+`(?:,?\s+(?:and\s+)?)?)+\s*"
        r"metrics?\b).*",
        re.I,
    ),
)
#: A stage named to deny or hedge it: "will not graduate or be enabled by default", "is still available, but might be removed".
_NEGATION_RE = re.compile(
    r"\b(?:will not|won't|not yet|never)\b|\bnot (?:be )?(?:graduat|promot|enabled by default)"
    r"|\bstill available\b|\bmight be removed\b|\bdelay\w*\b[^.;]*\bgraduat",
    re.I,
)
#: "Promoted ... to `scheduling.k8s.io/v1beta1`": an API group version names the stage.
_API_VERSION_RE = re.compile(
    r"`[a-z0-9.-]*\.k8s\.io/(v[0-9]{1,2})(alpha|beta)?[0-9]{0,2}`|`(v[0-9]{1,2})(alpha|beta)?"
    r"[0-9]{0,2}`\s+API\b",
    re.I,
)
#: "Introduced the `scheduling.k8s.io/v1alpha1` Workload API": a new API at vNalphaM / vNbetaM is that stage; a
#: field added to an existing API ("Added the `x` field to the `v1beta1` API") is not.
_API_INTRO_RE = re.compile(r"^(?![^.;]*\bfields?\b)[^.;]*\b(?:add(?:ed|s)?|introduc\w+)\b", re.I)
#: A feature gate introduced without a stage word: alpha, the default stage of a new gate.
_INTRO_RE = re.compile(
    r"\b(?:add(?:ed|s)?|introduc\w+)\s+(?:the\s+|a\s+)?(?:new\s+)?(?:feature[- ]gates?\s*,?\s*[`\"]"
    r"|[`\"][^`\"]+[`\"]\s+feature[- ]gates?\b)"
    r"|\bnew\s+feature[- ]gates?\s*,?\s*[`\"][^`\"]+[`\"]\s+(?:is|are)\s+now\s+available",
    re.I,
)
#: After a bare gate name: the name is an API kind qualifying a field or its metrics ("EndpointSlice `hints` field").
_KIND_USE_RE = re.compile(r"\s+(?:`|metrics?\b)")


def release_name(value: str) -> str | None:
    """``vMAJOR.MINOR`` for ``1.36``, ``v1.36``, ``release-1.36`` or ``release-notes-1.36.json``; else ``None``."""
    m = _RELEASE_RE.search(value) if isinstance(value, str) else None
    return normalize_milestone(f"{m.group(1)}.{m.group(2)}") if m else None


def release_order(release: str) -> tuple[int, int]:
    """Sort key of a ``vMAJOR.MINOR`` release (``(0, 0)`` when it is not one)."""
    return milestone_key(release) or (0, 0)


def field_text(value: object) -> str:
    """The part of an entry field that is indexed: a ``str`` cut to :data:`MAX_ENTRY_CHARS`, anything else ``""``."""
    return value[:MAX_ENTRY_CHARS] if isinstance(value, str) else ""


def kep_refs(entry: Mapping[str, object]) -> tuple[tuple[int, str], ...]:
    """``((number, slug), ...)`` the entry names in its text, markdown or ``documentation[].url``; slug may be ``""``.

    Fields of the wrong type (``"documentation": 5``, a string, non-object items,
    a non-string ``url``) are ignored; see :func:`field_text` and :data:`MAX_DOCUMENTATION`.
    """
    texts = [field_text(entry.get("text")), field_text(entry.get("markdown"))]
    docs = entry.get("documentation")
    for doc in docs[:MAX_DOCUMENTATION] if isinstance(docs, list | tuple) else ():
        if isinstance(doc, Mapping):
            texts.append(field_text(doc.get("url")))
    slugs: dict[int, set[str]] = {}
    for text in texts:
        if not _KEP_HINT_RE.search(text):  # one cheap scan before the four patterns
            continue
        for rx in _KEP_TEXT_RES:
            for m in rx.finditer(text):
                named = slugs.setdefault(int(m.group(1)), set())
                if rx.groups > 1:
                    named.add(m.group(2))
    return tuple((n, next(iter(s)) if len(s) == 1 else "") for n, s in sorted(slugs.items()))


def announced_stage(sentence: str) -> tuple[str, bool]:
    """``(stage, exact)`` a sentence announces; ``("", False)`` when it announces none.

    ``removed``/``deprecated`` need the word "feature gate" or "gate" in the
    sentence (and ``removed`` a sentence that is no bug fix, "Fixed ... dropped ..."); then "to <stage>" names the target ("from alpha to beta" is
    beta), else the highest of GA/stable, beta, alpha named wins; "locked"
    means stable and "enabled by default" beta, both as states. ``exact`` is
    True for promoted, graduated, "to GA", "added the `X` feature gate (Beta)"
    and "added alpha ..."; False for demoted. Future tense ("will be") and
    negation ("will not graduate", "still available, but might be removed")
    announce nothing; side remarks ("(also alpha)", "the Alpha `kubelet`
    metric", "when using the Alpha `X` feature") are read as absent. A
    promotion to an API group version (``scheduling.k8s.io/v1beta1``) is that
    stage (``/v1`` is stable); so is an API introduced ("added", "introduced") at
    ``vNalphaM`` or ``vNbetaM`` ("Introduced the `scheduling.k8s.io/v1alpha1`
    Workload API" is alpha, as a state: 1.36 adds ``v1alpha2`` to a KEP alpha
    since 1.35), unless the sentence adds a field. A gate introduced with no stage word ("Added
    the `X` feature gate", "The new feature gate `X` is now available") is
    alpha, as a state (a KEP adds gates after its own alpha).
    """
    sentence = side_remarks_removed(sentence)
    plain = _BACKTICK_RE.sub(" ", sentence)
    if _FUTURE_RE.search(plain) or _NEGATION_RE.search(plain):
        return "", False
    gate_word = bool(_GATE_WORD_RE.search(plain))
    if gate_word and _REMOVED_RE.search(plain) and not _BUG_FIX_RE.search(plain):
        return "removed", True
    if gate_word and _DEPRECATED_RE.search(plain) and not _TRANSITION_RE.search(plain):
        return "deprecated", True
    target = _TARGET_RE.search(plain)
    demoted = bool(_DEMOTED_RE.search(plain))
    api = _API_VERSION_RE.search(sentence) if _TRANSITION_RE.search(plain) or _API_INTRO_RE.search(plain) else None
    level = (api.group(2) or api.group(4) or "").lower() if api else ""
    if api and not target and _TRANSITION_RE.search(plain):
        return (level or "stable"), not demoted
    if api and not target and level:  # introduced: a state, as a later release may add v1alpha2 to an alpha KEP
        return level, False
    if target:
        word = target.group(1).lower()
        return ("stable" if word in ("ga", "stable", "general availability") else word), not demoted
    for stage, rx in _STAGE_WORDS:
        if rx.search(plain):
            exact = not demoted and (
                bool(_TRANSITION_RE.search(plain))
                or bool(_ADDED_GATE_RE.search(sentence))
                or (stage == "alpha" and bool(_ALPHA_INTRO_RE.search(plain)))
            )
            return stage, exact
    if _LOCKED_RE.search(plain) and gate_word:
        return "stable", False
    if _DEFAULT_ON_RE.search(plain):
        return "beta", False
    if _INTRO_RE.search(sentence):
        return "alpha", False
    return "", False


def side_remarks_removed(sentence: str) -> str:
    """``sentence`` without the side remarks that name a stage but announce none (see ``_SIDE_REMARK_RES``)."""
    if not _ANY_STAGE_RE.search(sentence):
        return sentence
    for rx in _SIDE_REMARK_RES:
        sentence = rx.sub(" ", sentence)
    return sentence


def split_sentences(text: str) -> list[str]:
    """Sentences of an entry's ``text`` (split after ``.!?`` before a capital, and at line breaks)."""
    protected = _BACKTICK_RE.sub(lambda m: m.group(0).replace(".", "\x01"), text.replace("\x01", " "))
    parts = _SENTENCE_RE.split(protected)
    return [p.replace("\x01", ".").strip().lstrip("-* ").strip() for p in parts if p and p.strip()]


def one_line(text: str) -> str:
    """``text`` on one line, at most :data:`MAX_EXCERPT` characters; a cut ends with "…" and never
    inside a code span (it moves before the opening backtick of a span the cut would break)."""
    text = " ".join(text.split())
    if len(text) <= MAX_EXCERPT:
        return text
    cut = text[: MAX_EXCERPT - 1]
    if cut.count("`") % 2:
        tick = cut.rindex("`")
        cut = cut[:tick] if cut[:tick].strip() else cut[tick + 1 :]  # a span from the start: drop its backtick
    return cut.rstrip() + "…"


def gate_names(sentence: str, declared: Collection[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``(declared gates, undeclared gates)`` named in ``sentence``, each in order of first appearance.

    A name in ``declared`` counts wherever it stands as a case-sensitive whole
    word (``[A-Za-z0-9_]`` run), in backticks or bare: "`X`", "X=true",
    "(X) is enabled by default"; except a bare name followed by a code span or
    "metric(s)", which is the API kind of the same name ("The EndpointSlice
    `hints` field", "EndpointSlice metrics"). A name counts as undeclared only
    when it is in backticks, written as a feature gate (next to "feature
    gate(s)") and absent from ``declared``.
    """
    sentence = sentence.replace("\x00", " ")  # the marker of code spans below
    quoted = [m.span() for m in _BACKTICK_RE.finditer(sentence)]
    starts = [a for a, _ in quoted]
    spans = [m.group(1).strip() for m in _BACKTICK_RE.finditer(sentence)]
    names = [(_GATE_TOKEN_RE.match(s) or None) for s in spans]

    def in_code(pos: int) -> bool:
        i = bisect_left(starts, pos) - 1  # the last span opening before pos (spans never overlap)
        return i >= 0 and pos < quoted[i][1]

    found = [
        w.group()
        for w in _WORD_RE.finditer(sentence)
        if w.group() in declared and (in_code(w.start()) or not _KIND_USE_RE.match(sentence, w.end()))
    ]
    undeclared: list[str] = []
    if "gate" in sentence.lower():
        counter = iter(range(len(spans)))
        marked = _BACKTICK_RE.sub(lambda m: f"\x00{next(counter)}\x00", sentence)
        for rx in _GATE_PHRASE_RES:
            for run in rx.finditer(marked):
                for idx in _MARK_RE.findall(run.group(1)):
                    m = names[int(idx)]
                    if m and m.group(1) not in declared:
                        undeclared.append(m.group(1))
    return tuple(dict.fromkeys(found)), tuple(dict.fromkeys(undeclared))


def may_name_gates(text: str, declared: Collection[str]) -> bool:
    """A cheap test before :func:`gate_names`: False when ``text`` has no word in ``declared`` and no
    "gate" (so no sentence of it can name a declared or an undeclared gate)."""
    return "gate" in text.lower() or any(word in declared for word in _WORD_RE.findall(text))


def named_release(sentence: str) -> str | None:
    """The release a stage sentence names ("to beta in `v1.34`"), as ``vMAJOR.MINOR``; else ``None``."""
    said = _IN_RELEASE_RE.search(sentence)
    return release_name(said.group(1)) if said else None


#: A gate's default turned off, as an act: "Disabled the `X` feature gate by default", "`X` is now disabled by
#: default", "Reverted `X` to disabled by default", "`X` now defaults to false" (never "still" / "remains" disabled).
_DEFAULT_OFF_RE = re.compile(
    r"^\W*(?:disabled|turned off|switched off|reverted|set)\b[^.;]{0,100}\b(?:by default|to disabled)\b"
    r"|\bnow (?:disabled|turned off|switched off)\b[^.;]{0,40}\bby default\b"
    r"|\bnow defaults? to (?:false|off|disabled)\b|\bno longer enabled by default\b",
    re.I,
)
#: A default that did not change: "remains disabled", "still disabled", "(disabled by default)".
_STILL_OFF_RE = re.compile(r"\b(?:still|remains?|remained)\b|\(disabled by default\)", re.I)
#: A sentence turning a default on ("Set `X` to true by default") or undoing a change that turned it off
#: ("Reverted #123, which disabled `X` by default"): no default turned off.
_BACK_ON_RE = re.compile(
    r"\bto (?:true|on|enabled)\b|^\W*reverted\b[^.;]*\b(?:that|which)\b[^.;]*\b(?:disabled|turned off|switched off)\b",
    re.I,
)


def default_off(sentence: str) -> bool:
    """True when ``sentence`` turns a feature off by default ("Disabled the `X` feature gate by default because
    of critical issues found before release", "`X` now defaults to false"). A stage announced with its default
    ("Promoted `X` to Beta, disabled by default": :func:`announced_stage` reads a stage) turns nothing off, and
    hedged or future sentences ("will be disabled by default") say nothing."""
    plain = _BACKTICK_RE.sub(" ", sentence)
    if not _DEFAULT_OFF_RE.search(plain) or _STILL_OFF_RE.search(plain) or _BACK_ON_RE.search(plain):
        return False
    if _FUTURE_RE.search(plain) or _NEGATION_RE.search(plain):
        return False
    return not announced_stage(sentence)[0]
