"""Upstream history of the kep.yaml files: who changed which field when.

Pure stages over a first-parent log that a source read (``bot/sources/history.py``):

- :mod:`bot.history.log`: the log records (commits, file changes) and KEP lineages
  (a KEP's kep.yaml paths over time, renames and SIG moves followed);
- :mod:`bot.history.fields`: the fields of one kep.yaml version that history tracks;
- :mod:`bot.history.provenance`: the commit in which a changed field took its current value;
- :mod:`bot.history.timeline`: ``kep-sync history N``;
- :mod:`bot.history.digest`: ``kep-sync digest`` and the opt-in digest page;
- :mod:`bot.history.renames`: rows whose slug names a KEP directory upstream renamed.

The git reading lives in :mod:`bot.sources.history`; the two commands are wired in
:mod:`bot.history_commands`.
"""
