"""`python -m zvmsim` is the `zvmsim` command."""

from ._errors import entry

entry()
