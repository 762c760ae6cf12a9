"""The `euchre-table match` subcommand: a duplicate-deal match between two computer levels."""
from __future__ import annotations


def register(subparsers) -> None:
    """Add ``match`` to the command line (see ``bench.match``)."""
    from bench import match
    p = subparsers.add_parser(
        "match", help="duplicate-deal match between two computer levels",
        description="Each deal is played twice with the teams swapped. Prints points per hand "
                    "for A with a 95%% CI, game wins, make/euchre/march/alone rates and "
                    "decision times.")
    match.add_arguments(p)
    p.set_defaults(func=match.run)
