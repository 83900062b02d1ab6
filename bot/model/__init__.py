"""The model stage: what kep.yaml says, as values (:mod:`bot.model.kep`: one KEP and its problems;
:mod:`bot.model.snapshot`: every KEP of one upstream revision, looked up by number). No I/O."""
