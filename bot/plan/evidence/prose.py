"""Possible evidence: a release note that describes a KEP in words, naming neither its feature gate nor its number.

Pure. The index (:mod:`bot.plan.evidence.index`) ties a note to a KEP by a gate or a KEP number; a feature
described only in prose ("Added the `.spec.evictionResponders` Pod field, along with the EvictionRequest and
Eviction resources", the 1.37 note #137050 for KEP 4563 *EvictionRequest API*) is missed there. Here such a
note is matched by the KEP's **distinctive title words**:

- a title word is distinctive when no other KEP title of the snapshot has it (compared case-insensitively, a
  trailing ``s`` of a word of 5 letters or more ignored), it is at least 4 characters long and not a common
  word (:data:`COMMON`); a CamelCase word must also be rare in the notes (in at most
  :data:`MAX_NOTES_WITH_WORD` entries of all the releases read: ``ResourceClaim`` is an API kind many notes
  name, ``EvictionRequest`` is not);
- a KEP can be matched only when its distinctive words are one CamelCase word of 8+ characters
  (``EvictionRequest``) or two or more plain words; a note matches when one of its sentences holds all of
  them as whole words (a CamelCase word as written, a plain word in any case);
- a KEP without such words is matched by its **whole title** when that title is three words or more, at least
  one of them not a common word, and is in no other KEP title (as a run of words): a note's sentence must then
  hold the title as one run of words, in any case (``DRA Extended Resource``, KEP 5004, in the 1.37 note
  #138488 "Promoted the DRA extended resource feature to GA in `v1.37`.");
- the note must name no declared feature gate and no KEP (else the index reads it), be in the release
  kep.yaml names for the stage, and announce that stage (:func:`bot.model.note_text.announced_stage`), or,
  for alpha, introduce something ("Added ...", "Introduced ...") and announce no other stage.

Such a note is *possible* evidence: shown apart, never a confirmation, never a finding.

A note **names** a KEP (:func:`names_kep`, :func:`named_evidence`) when one sentence holds every content word of
the KEP's title: the title's words less :data:`STOP_WORDS`, each as a whole word in any case (a trailing ``s``
ignored as above) or as a part of a CamelCase name (``InPlacePodVerticalScalingSchedulerPreemption`` holds
*scheduler* and *preemption*); the title word ``API`` is held by ``API`` or ``resource`` (a KEP titled "EvictionRequest
API" is named by "the EvictionRequest and Eviction resources"). The title needs two content words or more, or one
CamelCase word of 8+ characters, and one that is not a common word (:data:`COMMON`). Such a note of the release, naming
no declared gate and no KEP, that announces the planned stage (or introduces something, for the first stage
kep.yaml plans: ``Added ...`` for 6072, GA with no gate and no earlier stage) speaks for the KEP: a watch counts it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from bot.model.kep import Kep, normalize_milestone
from bot.model.note_text import (
    announced_stage,
    field_text,
    kep_refs,
    one_line,
    release_name,
    split_sentences,
)
from bot.plan.diff import Change
from bot.plan.evidence.index import MAX_EVIDENCE, Evidence, change_stage, pr_url

#: Words too common in KEP titles and release notes to tell a KEP apart.
COMMON = frozenset(
    """
    about across added adding after allow allows alongside also api apis based being better both changes cluster
    component components config configurable configuration container containers control controller controllers
    core custom default define defined device devices dynamic enable enabled enhance enhanced enhancement extend
    extended feature features field fields flag from gate give graduate improve improved improvement include
    information into kube kubelet kubernetes level list make management manager mode more move multiple native
    need network node nodes object objects option options over plugin plugins policy pod pods provide remove
    request requests resource resources restrict rule rules scheduler scheduling server service services set
    spec stable status storage support supported supports their through type types update updates usage user
    users using volume volumes when will with within without workload workloads
    """.split()
)


def _key(word: str) -> str:
    """``word`` as title words are compared: lower case, a trailing ``s`` dropped from a word of 5 letters or more."""
    low = word.lower()
    return low[:-1] if low.endswith("s") and len(low) > 4 else low


#: :data:`COMMON` as compared (:func:`_key`), so ``Status`` and ``Kubernetes`` stay common.
_COMMON_KEYS = COMMON | {_key(w) for w in COMMON}
#: Most release-note entries a CamelCase title word may appear in and still tell a KEP apart.
MAX_NOTES_WITH_WORD = 5
_WORD_RE = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_CAMEL_RE = re.compile(r"^[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+$")
#: The area a note may begin with (``DRA: ``, ``kubeadm: ``).
_AREA_RE = re.compile(r"^\W*[A-Za-z][\w./-]{0,30}:\s+")
_INTRODUCES_RE = re.compile(r"^\W*(?:added|adds|introduced|introduces|introducing)\b", re.I)


#: Title words a note need not repeat to name a KEP.
STOP_WORDS = frozenset("a an and as at by for from in into is its of on or the to via with".split())
_PART_RE = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
#: Words that hold the title word ``API`` (an API kind is a resource).
_API_KEYS = frozenset({"api", "apis", "resource"})


_CODE_GATE_RE = re.compile(r"`([A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+)`")
_FEATURE_GATE_RE = re.compile(r"\bfeature[- ]gates?\b", re.I)


def gate_in_code(sentence: str) -> str:
    """The first CamelCase name in a code span of a ``sentence`` that speaks of a feature gate (```X` Alpha feature
    gate``), else ``""``; in a note prose reads, no kep.yaml declares it (:func:`_prose_notes`)."""
    found = _CODE_GATE_RE.search(sentence) if _FEATURE_GATE_RE.search(sentence) else None
    return found.group(1) if found else ""


def introduces(sentence: str) -> bool:
    """True when ``sentence`` starts by adding something (``Added ...``, ``Introduced ...``)."""
    return bool(_INTRODUCES_RE.match(sentence))


def first_stage(kep: Kep) -> str:
    """The first graduation stage kep.yaml names a milestone for (``alpha``, ``beta``, ``stable``); ``""``: none."""
    return next((s for s in ("alpha", "beta", "stable") if normalize_milestone(kep.milestone(s))), "")


def title_words(title: str) -> tuple[str, ...]:
    """The content words of a KEP title, compared as :func:`_key` does (``EvictionRequest API``: ``("evictionrequest",
    "api")``); ``()`` when the title is too plain to name a KEP (see the module docstring)."""
    listed = [w for w in _WORD_RE.findall(title) if w.lower() not in STOP_WORDS]
    keys = tuple(dict.fromkeys("api" if _key(w) == "apis" else _key(w) for w in listed))
    camel = any(_CAMEL_RE.match(w) and len(w) >= 8 for w in listed)
    if not keys or all(k in _COMMON_KEYS for k in keys) or (len([k for k in keys if k != "api"]) < 2 and not camel):
        return ()
    return keys


def names_kep(words: Sequence[str], sentence: str) -> bool:
    """True when ``sentence`` holds every one of ``words`` (:func:`title_words`), see the module docstring."""
    found = _WORD_RE.findall(sentence)
    return _held(words, _named_keys(found, frozenset(_key(w) for w in found)))


def _named_keys(found: Sequence[str], keys: frozenset[str]) -> frozenset[str]:
    """The ``keys`` of a sentence's words ``found`` (:func:`_key` of each) and the parts of its CamelCase
    names, as :func:`_key` compares them."""
    return keys | {_key(p) for w in found for p in _PART_RE.findall(w)}


def _held(words: Sequence[str], keys: frozenset[str]) -> bool:
    return bool(words) and all(k in keys or (k == "api" and bool(keys & _API_KEYS)) for k in words)


def distinctive_words(keps: Iterable[Kep], notes: Mapping[str, Mapping[str, object]]) -> dict[str, tuple[str, ...]]:
    """``{kep.yaml path: distinctive title words}`` for the KEPs whose title can match a note (see the module
    docstring), or ``(whole title,)`` (words joined by one space) for a KEP matched by its whole title; KEPs
    without either are absent. ``notes``: ``{release: {pr: entry}}``, every
    release read (for how rare a CamelCase word is)."""
    keps = list(keps)
    titles = {k.path: {_key(w): w for w in _WORD_RE.findall(k.title)} for k in keps}
    seen = Counter(key for by_key in titles.values() for key in by_key)
    out: dict[str, tuple[str, ...]] = {}
    camels: dict[str, tuple[str, ...]] = {}
    for path, by_key in titles.items():
        picked = tuple(w for key, w in by_key.items() if seen[key] == 1 and len(key) >= 4 and key not in _COMMON_KEYS)
        camel = tuple(w for w in picked if _CAMEL_RE.match(w) and len(w) >= 8)
        if camel:
            camels[path] = camel
        elif len(picked) >= 2:
            out[path] = picked
    wanted = {w for camel_words in camels.values() for w in camel_words}
    counts: Counter[str] = Counter()
    for entries in notes.values():
        for entry in entries.values():
            text = field_text(entry.get("text")) if isinstance(entry, Mapping) else ""
            counts.update(wanted & set(_WORD_RE.findall(text)))
    for path, words in camels.items():
        if all(counts[w] <= MAX_NOTES_WITH_WORD for w in words):
            out[path] = words
    runs = {k.path: tuple(_key(w) for w in _WORD_RE.findall(k.title)) for k in keps}
    holders = _run_holders(runs.values())
    for kep in keps:
        run = runs[kep.path]
        if kep.path in out or len(run) < 3 or all(w in _COMMON_KEYS for w in run):
            continue
        if holders[run] == 1:  # its own title only: in no other KEP title as a run of words
            out[kep.path] = (" ".join(_WORD_RE.findall(kep.title)),)
    return out


def _run_holders(titles: Iterable[tuple[str, ...]]) -> Counter[tuple[str, ...]]:
    """``{run of words: how many of ``titles`` hold it as consecutive words}`` for every run of 3 words or
    more (a title counted once per run, however often it holds it). Linear in the titles' runs (a title of
    ``n`` words has ``n (n + 1) / 2`` runs), where comparing every title with every other is quadratic in the
    number of KEPs."""
    holders: Counter[tuple[str, ...]] = Counter()
    for words in titles:
        n = len(words)
        holders.update({words[i:j] for i in range(n) for j in range(i + 3, n + 1)})
    return holders


def _within(run: Sequence[str], words: Sequence[str]) -> bool:
    """True when ``run`` occurs in ``words`` as consecutive items."""
    n = len(run)
    return any(tuple(words[i : i + n]) == tuple(run) for i in range(len(words) - n + 1))


class _Sentence(NamedTuple):
    """One sentence of a note, with its words as written (``found``), their :func:`_key` (``keys``) and the keys in
    order (``run``)."""

    text: str
    found: frozenset[str]
    keys: frozenset[str]
    run: tuple[str, ...]
    named: frozenset[str] = frozenset()


def _sentence(text: str) -> _Sentence:
    listed = _WORD_RE.findall(text)
    keys = tuple(_key(w) for w in listed)
    found = frozenset(keys)
    return _Sentence(text, frozenset(listed), found, keys, _named_keys(listed, found))


def _holds(sentence: _Sentence, words: Sequence[str]) -> bool:
    """True when ``sentence`` holds every word of ``words`` (a CamelCase word as written, a plain word in any
    case); an item with spaces is a whole title, held as one run of words."""
    return all(
        _within([_key(p) for p in w.split(" ")], sentence.run)
        if " " in w
        else (w in sentence.found)
        if _CAMEL_RE.match(w)
        else (_key(w) in sentence.keys)
        for w in words
    )


class _Prose(NamedTuple):
    """A note prose may match: its pull request key (as the release notes JSON gives it), the entry and its
    sentences."""

    key: object
    entry: Mapping[str, object]
    sentences: tuple[_Sentence, ...]


#: ``{release: the notes of it prose may match}``, filled by :func:`possible_evidence` as it reads each release:
#: callers that ask about many KEPs with the same ``notes`` and ``declared`` pass one, and each release is read once.
Prepared = dict[str, tuple[_Prose, ...]]


def _prose_notes(entries: Mapping[str, object] | None, gates: frozenset[str]) -> tuple[_Prose, ...]:
    """The notes of one release's ``entries`` (``{pr: entry}``) that prose may match, by key as text: published,
    with a ``text``, naming no KEP and none of ``gates`` (such a note is the index's)."""
    out = []
    for key in sorted(entries or {}, key=str):
        entry = entries[key] if entries else None
        if not isinstance(entry, Mapping) or entry.get("do_not_publish") is True:
            continue
        text = field_text(entry.get("text"))
        if text and not gates & set(_WORD_RE.findall(text)) and not kep_refs(entry):
            out.append(_Prose(key, entry, tuple(_sentence(t) for t in split_sentences(text))))
    return tuple(out)


def possible_evidence(
    notes: Mapping[str, Mapping[str, object]],
    kep: Kep,
    stage: str,
    words: Sequence[str],
    declared: Iterable[str],
    prepared: Prepared | None = None,
) -> tuple[Evidence, ...]:
    """Notes of the release kep.yaml names for ``stage`` that describe ``kep`` by its distinctive ``words``
    (:func:`distinctive_words`) and announce that stage (or, for alpha, introduce something and announce no
    other stage), at most :data:`MAX_EVIDENCE`, by pull request; each an :class:`Evidence` with
    ``possible=True``. ``notes``: ``{release: {pr: entry}}``; ``declared``: every feature gate some kep.yaml
    declares (a note naming one is the index's, never prose); ``prepared``: see :data:`Prepared`."""
    target = normalize_milestone(kep.milestone(stage)) if stage else None
    if not target or not words:
        return ()
    out: list[Evidence] = []
    for note in _notes_of(notes, target, declared, prepared):
        for sentence in note.sentences:
            if not _holds(sentence, words):
                continue
            said, _ = announced_stage(sentence.text)
            if said == stage or (stage == "alpha" and not said and _INTRODUCES_RE.match(sentence.text)):
                out.append(_evidence(note, target, sentence, stage, possible=True))
                break
        if len(out) >= MAX_EVIDENCE:
            break
    return tuple(out)


class Titles(NamedTuple):
    """The titles of every KEP as :func:`names_kep` reads them: ``words`` (``{kep.yaml path: title_words}``, the
    titles too plain to name a KEP left out), ``counts`` (how many KEP titles hold each word, as :func:`_key`
    compares) and ``runs`` (how many hold each run of 3+ words, :func:`_run_holders`)."""

    words: dict[str, tuple[str, ...]]
    counts: Counter[str]
    runs: Counter[tuple[str, ...]]


def titles(keps: Iterable[Kep]) -> Titles:
    """:class:`Titles` of ``keps`` (every KEP of the snapshot)."""
    keps = list(keps)
    counts = Counter(key for k in keps for key in {_key(w) for w in _WORD_RE.findall(k.title)})
    runs = _run_holders(tuple(_key(w) for w in _WORD_RE.findall(k.title)) for k in keps)
    return Titles({k.path: w for k in keps if (w := title_words(k.title))}, counts, runs)


def _names_surely(kep: Kep, sentence: _Sentence, known: Titles) -> bool:
    """True when ``sentence`` names ``kep`` by its title (:func:`names_kep`) and by something only it has: a title
    word no other KEP title holds (not a common word), its whole title as a run no other title holds, or a gate
    written as a feature gate that no kep.yaml declares (the KEP's gate under another name); and names no other
    KEP of ``known`` by its title."""
    words = known.words.get(kep.path, ())
    if not _held(words, sentence.named):
        return False
    run = tuple(_key(w) for w in _WORD_RE.findall(kep.title))
    own = (
        any(known.counts[w] == 1 and w not in _COMMON_KEYS for w in words)
        or (len(run) >= 3 and known.runs[run] == 1 and _within(run, sentence.run))
        or bool(gate_in_code(sentence.text))
    )
    return own and not any(p != kep.path and _held(w, sentence.named) for p, w in known.words.items())


def named_evidence(
    notes: Mapping[str, Mapping[str, object]],
    kep: Kep,
    stage: str,
    declared: Iterable[str],
    known: Titles,
    prepared: Prepared | None = None,
) -> tuple[Evidence, ...]:
    """Notes of the release kep.yaml names for ``stage`` that name ``kep`` by its title (:func:`_names_surely`;
    ``known``: :func:`titles` of every KEP) and announce that stage, or introduce something when ``stage`` is the
    first stage kep.yaml plans (:func:`first_stage`), at most :data:`MAX_EVIDENCE`, by pull request; each an
    :class:`Evidence` with ``possible=False``. ``notes``, ``declared`` and ``prepared`` as for
    :func:`possible_evidence`."""
    target = normalize_milestone(kep.milestone(stage)) if stage else None
    if not target or kep.path not in known.words:
        return ()
    out: list[Evidence] = []
    for note in _notes_of(notes, target, declared, prepared):
        for sentence in note.sentences:
            if not _held(known.words[kep.path], sentence.named):
                continue
            said, _ = announced_stage(sentence.text)
            first = not said and stage == first_stage(kep) and introduces(sentence.text)
            if (said == stage or first) and _names_surely(kep, sentence, known):
                out.append(_evidence(note, target, sentence, stage, possible=False))
                break
        if len(out) >= MAX_EVIDENCE:
            break
    return tuple(out)


def _notes_of(
    notes: Mapping[str, Mapping[str, object]], target: str, declared: Iterable[str], prepared: Prepared | None
) -> tuple[_Prose, ...]:
    """The notes of release ``target`` prose may match (:func:`_prose_notes`), read once into ``prepared``."""
    prepared = {} if prepared is None else prepared
    if target not in prepared:
        entries = next((v for r, v in notes.items() if (release_name(r) or r) == target), None)
        prepared[target] = _prose_notes(entries, frozenset(declared))
    return prepared[target]


def _evidence(note: _Prose, target: str, sentence: _Sentence, stage: str, *, possible: bool) -> Evidence:
    key = str(note.key)
    pr = int(key) if key.isdigit() and len(key) <= 9 else 0
    url = pr_url(note.entry.get("pr_url"), pr)
    return Evidence(target, pr, url, one_line(sentence.text), stage, False, False, possible)


def attach_possible(
    changes: Sequence[Change],
    notes: Mapping[str, Mapping[str, object]],
    keps: Sequence[Kep],
    declared: Iterable[str],
) -> list[Change]:
    """``changes`` with evidence in prose added to each change about a stage
    (:func:`bot.plan.evidence.index.change_stage`) for which no note surely about the KEP was found: the notes
    that name the KEP by its title (:func:`named_evidence`, ``possible`` False), else those that describe it by
    its distinctive title words (:func:`possible_evidence`), as a watch reads them, so a note reads the same in
    every part of a pull request. ``keps``: every KEP of the snapshot (for the titles). Each release's notes are
    read for prose once, whatever the number of changes."""
    by_path = {k.path: k for k in keps}
    words = distinctive_words(keps, notes)
    known = titles(keps)
    gates = frozenset(declared)
    prepared: Prepared = {}
    out = []
    for c in changes:
        kep = by_path.get(c.kep_path)
        if kep is not None and not any(not e.ambiguous and not e.counter for e in c.evidence):
            stage = change_stage(c, kep)
            found = named_evidence(notes, kep, stage, gates, known, prepared)
            if not found and c.kep_path in words:
                found = possible_evidence(notes, kep, stage, words[c.kep_path], gates, prepared)
            c = c._replace(evidence=c.evidence + found) if found else c
        out.append(c)
    return out


def adds_first(first: str, words: Sequence[str], excerpt: str) -> str:
    """How ``excerpt``, a sentence of a note linked to the KEP that names no stage, announces ``first``, the first
    stage kep.yaml plans: it introduces something (``Added ...``, also after an area such as ``DRA: ``) and names
    the KEP by its title words (``"title"``), or ``first`` is alpha (``"alpha"``): a KEP with no stage yet ships
    its first code behind its alpha gate, so what it adds in the release is its alpha (``DRA: Added a
    `spec.resourceClaims` field to PodGroup resources``, the 1.36 note #136989 for 5729); ``""``: neither."""
    sentence = _AREA_RE.sub("", excerpt, count=1)
    if not introduces(sentence):
        return ""
    return "title" if names_kep(words, sentence) else "alpha" if first == "alpha" else ""
