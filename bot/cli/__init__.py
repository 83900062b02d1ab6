"""The command line: the parser, the command handlers and exit codes, what a command prints, many targets."""
