"""The deathrun subcommands (being written)."""

GROUPS = ()
