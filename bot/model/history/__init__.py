"""Upstream history of the kep.yaml files: who changed which field when.

Pure stages over a first-parent log that a source read (``bot/sources/history.py``):

- :mod:`bot.model.history.log`: the log records (commits, file changes) and KEP lineages
  (a KEP's kep.yaml paths over time, renames and SIG moves followed);
- :mod:`bot.model.history.fields`: the fields of one kep.yaml version that history tracks;
- :mod:`bot.model.history.provenance`: the commit in which a changed field took its current value;
- :mod:`bot.model.history.timeline`: ``kep-sync history N``;
- :mod:`bot.plan.digest`: ``kep-sync digest`` and the opt-in digest page;
- :mod:`bot.model.history.renames`: rows whose slug names a KEP directory upstream renamed.

The git reading lives in :mod:`bot.sources.history`; the two commands are wired in
:mod:`bot.commands.history`.
"""
