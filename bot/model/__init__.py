"""The model stage: what kep.yaml says, as values (:mod:`bot.model.kep`: one KEP and its problems;
:mod:`bot.model.snapshot`: every KEP of one upstream revision, looked up by number; :mod:`bot.model.yamlload`:
the string-only YAML loader; :mod:`bot.model.consistency`: report-only checks of one kep.yaml;
:mod:`bot.model.finding`: what a reviewer must see). No I/O."""
