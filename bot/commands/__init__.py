"""The commands: each wires one ``kep-sync`` command from a ``Config``."""
