"""Entry points: `python -m bot` runs the Discord bot; `selfplay`, `play` and `review` work offline;
`backup` and `migrate-to` keep the data (`bot.ops`)."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn


class OneLineErrors(argparse.ArgumentParser):
    """The offline commands answer bad arguments with one line and exit code 2, not a usage dump."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message.rstrip('.')} (see --help)\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot", description="Spades for Discord.")
    commands = parser.add_subparsers(dest="command", parser_class=OneLineErrors)
    from bot import ops, play_cli, selfplay

    selfplay.add_arguments(commands.add_parser("selfplay", help="computer players play whole games offline"))
    play_cli.add_arguments(commands.add_parser("play", help="play a game in the terminal against computer players"))
    review_parser = commands.add_parser("review", help="review a finished game's record with the hard player")
    from bot.ai import review

    review.add_arguments(review_parser)
    ops.add_commands(commands)
    args = parser.parse_args(argv)
    if args.command in ("backup", "migrate-to"):
        return ops.run(args)
    if args.command == "review":
        try:
            review.run(args)
        except ValueError as error:
            print(f"{parser.prog} review: {error}", file=sys.stderr)
            return 2
        return 0
    if args.command in ("selfplay", "play"):
        try:
            (selfplay.run if args.command == "selfplay" else play_cli.run)(args)
        except selfplay.UsageError as error:
            print(f"{parser.prog} {args.command}: {error}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            return 130
        return 0
    from bot.runtime import run

    return run()


if __name__ == "__main__":
    sys.exit(main())
