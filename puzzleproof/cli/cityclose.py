"""The cityclose subcommands (being written)."""

GROUPS = ()
