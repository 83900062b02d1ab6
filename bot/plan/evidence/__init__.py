"""Release notes as evidence: index release-note entries by KEP, attach them to changes, find discrepancies.

Pure: release notes (``{release: {pr: entry}}`` as the release team publishes
them in ``release-notes-draft.json``) and KEPs in, values out. One source of
truth per fact: the stage of a KEP comes from kep.yaml; the notes are
evidence shown next to a change and never overwrite it.

An entry is split into sentences. A sentence is indexed by

- feature gate names that some kep.yaml declares in ``feature-gates[].name``
  (many-to-many: ``CPUManagerPolicyAlphaOptions`` is declared by 7 KEPs), as a
  case-sensitive whole word, in backticks or bare ("(SchedulerAsyncPreemption)
  is enabled by default"); ``X=true`` and ``--feature-gates=X`` forms count;
  names no kep.yaml declares count only in backticks next to "feature gate";
- KEP numbers of its entry: ``KEP-1234``, ``kep.k8s.io/1234``, enhancements
  issue and ``keps/sig-x/1234-slug`` URLs, in the text or in ``documentation[].url``
  (``enhancements/pull/N`` is a pull request, not a KEP, and is ignored);
- the stage it announces: alpha, beta, stable (GA), deprecated, removed, and
  whether it is a transition (promoted, graduated, added as alpha: the stage
  was reached in that release) or a state (locked, enabled by default,
  "(beta)": the stage was reached by that release).

Entries are untrusted: only string fields are read, each cut to
``MAX_ENTRY_CHARS``; numbers are ASCII digits of bounded length; an entry
with fields of the wrong type is read without them and never raises.

A gate declared by several KEPs links the sentence to all of them as
*ambiguous*, unless the entry names one of them by number, or the kep.yaml
history names the gate's owner (:mod:`bot.plan.evidence.ownership`); it is never guessed.

Modules: :mod:`bot.model.note_text` (reading the text),
:mod:`bot.plan.evidence.index` (sentences linked to KEPs, evidence per change),
:mod:`bot.plan.evidence.prose` (possible evidence: a KEP described in words only),
:mod:`bot.plan.evidence.review` (discrepancies), :mod:`bot.plan.evidence.gates` (the feature-gate
lifecycle), :mod:`bot.plan.evidence.ownership` (who owns a shared gate) and
:mod:`bot.plan.evidence.stage_state` (the state of a planned stage: confirmed, pending, contradicted,
unknown).
"""

from bot.model.note_text import (
    MAX_ENTRY_CHARS,
    MAX_EXCERPT,
    announced_stage,
    field_text,
    gate_names,
    kep_refs,
    named_release,
    release_name,
    release_order,
    split_sentences,
)
from bot.plan.evidence.index import (
    MAX_EVIDENCE,
    MAX_PR,
    Evidence,
    Mention,
    NotesIndex,
    attach_evidence,
    build_index,
    evidence_for,
    gate_owners,
    releases_needed,
)
from bot.plan.evidence.review import DISCREPANCY_KINDS, NotesReview, find_discrepancies, released, review

__all__ = [
    "DISCREPANCY_KINDS",
    "MAX_ENTRY_CHARS",
    "MAX_EVIDENCE",
    "MAX_EXCERPT",
    "MAX_PR",
    "Evidence",
    "Mention",
    "NotesIndex",
    "NotesReview",
    "announced_stage",
    "attach_evidence",
    "build_index",
    "evidence_for",
    "field_text",
    "find_discrepancies",
    "gate_names",
    "gate_owners",
    "kep_refs",
    "named_release",
    "release_name",
    "release_order",
    "released",
    "releases_needed",
    "review",
    "split_sentences",
]
