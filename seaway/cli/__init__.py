"""The ``seaway`` command line: one subcommand module per tool."""
