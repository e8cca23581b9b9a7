"""`taskbench metg`: the command (command.py: its options and main), the sweep's parameters from
them (params.py), one campaign swept, shown and stored (sweep.py), the campaign per node count of
--simulate (simulated.py), what --resume refuses (resume.py), and the fixed cost of a sweep of few
timesteps (short_steps.py)."""

from taskbench.commands.metg.command import add_parser, main

__all__ = ["add_parser", "main"]
