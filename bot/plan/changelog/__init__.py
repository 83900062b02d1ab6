"""The pull request body: its summary, rows, signs, markdown escaping and the controls footer."""
