"""`python -m zvmsim` is the `zvmsim` command."""

from .cli import app

app(prog_name="zvmsim")
