"""The /spades command group: each command is a service call and a reply; errors go to one handler."""

from __future__ import annotations

import io
import json
from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands

from bot.discord_ui.interactions import display_name, is_server_manager, reply_privately
from bot.discord_ui.render import (
    leaderboard_text,
    lobby_text,
    rules_text,
    scoreboard_text,
    stats_text,
)
from bot.discord_ui.views import lobby_view
from bot.engine import Mode, Rules, card_label, card_name, parse_card
from bot.service import LiveGame, Refusal, parse_bid

if TYPE_CHECKING:
    from bot.discord_ui.app import SpadesBot

ModeName = Literal["cutthroat", "solo", "partners"]
SortName = Literal["rating", "wins", "win_rate", "points"]
LevelName = Literal["easy", "normal", "hard"]
OnOff = Literal["minus", "zero"]


def _bot(interaction: discord.Interaction[Any]) -> SpadesBot:
    return interaction.client  # type: ignore[no-any-return]


def _channel_id(interaction: discord.Interaction[Any]) -> int:
    if interaction.channel_id is None:
        raise Refusal("Spades commands work in server channels.")
    return interaction.channel_id


def _channel_game(interaction: discord.Interaction[Any]) -> LiveGame:
    return _bot(interaction).service.require_channel_game(_channel_id(interaction))


def _guild_id(interaction: discord.Interaction[Any]) -> int:
    if interaction.guild_id is None:
        raise Refusal("Spades commands work in server channels.")
    return interaction.guild_id


@app_commands.guild_only()
class SpadesCommands(app_commands.Group, name="spades", description="Play Spades in this channel"):
    @app_commands.command(description="Open a Spades lobby in this channel; you take the first seat")
    @app_commands.describe(
        mode="cutthroat (3 players), solo (4) or partners (2 vs 2)",
        target="points to win (50-1000)",
        nil="allow nil bids", blind_nil="allow blind nil for a player far behind",
        blind_nil_deficit="points behind the leader needed for blind nil",
        no_exact_total="the last bidder may not make the bids total the tricks",
        spades_must_break="spades can't be led until broken",
        set_penalty="a set contract scores minus 10 per trick bid, or zero",
        nil_value="points for nil", blind_nil_value="points for blind nil",
        bag_limit="bags that trigger the bag penalty", bag_penalty="points lost at the bag limit",
        nil_tricks_help_partner="partners: a nil bidder's tricks count for the partner",
        mercy="end the game when someone drops to minus this (0 = off)",
        leftover="cutthroat: set aside the last card or the 2 of clubs",
        jokers="cutthroat: add both jokers as the top spades (18 cards each)",
    )
    async def new(
        self, interaction: discord.Interaction[Any],
        mode: ModeName | None = None,
        target: app_commands.Range[int, 50, 1000] | None = None,
        nil: bool | None = None, blind_nil: bool | None = None,
        blind_nil_deficit: app_commands.Range[int, 0, 1000] | None = None,
        no_exact_total: bool | None = None, spades_must_break: bool | None = None,
        set_penalty: OnOff | None = None,
        nil_value: app_commands.Range[int, 0, 1000] | None = None,
        blind_nil_value: app_commands.Range[int, 0, 1000] | None = None,
        bag_limit: app_commands.Range[int, 1, 100] | None = None,
        bag_penalty: app_commands.Range[int, 0, 1000] | None = None,
        nil_tricks_help_partner: bool | None = None,
        mercy: app_commands.Range[int, 0, 1000] | None = None,
        leftover: Literal["last", "two_clubs"] | None = None,
        jokers: bool | None = None,
    ) -> None:
        given = {
            "target": target, "nil": nil, "blind_nil": blind_nil, "blind_nil_deficit": blind_nil_deficit,
            "no_exact_total": no_exact_total, "spades_must_break": spades_must_break,
            "set_penalty": set_penalty, "nil_value": nil_value, "blind_nil_value": blind_nil_value,
            "bag_limit": bag_limit, "bag_penalty": bag_penalty,
            "nil_tricks_help_partner": nil_tricks_help_partner, "leftover": leftover, "jokers": jokers,
        }
        options: dict[str, object] = {k: v for k, v in given.items() if v is not None}
        if mercy is not None:
            options["mercy"] = mercy or None
        service = _bot(interaction).service
        live = await service.new_lobby(_guild_id(interaction), _channel_id(interaction), interaction.user.id,
                                       display_name(interaction.user), mode, options)
        sent = await interaction.response.send_message(lobby_text(live), view=lobby_view(live) or discord.utils.MISSING)
        # The callback's answer names the new message: no second request for it.
        message_id = sent.message_id or (await interaction.original_response()).id
        await service.set_lobby_message(live, message_id)

    @app_commands.command(description="Take a seat in this channel's lobby")
    async def join(self, interaction: discord.Interaction[Any]) -> None:
        live = _channel_game(interaction)
        await _bot(interaction).service.join(live, interaction.user.id, display_name(interaction.user))
        await interaction.response.send_message(f"You joined game `{live.game_id}`.", ephemeral=True)

    @app_commands.command(description="Leave the lobby (in a running game a computer player takes over)")
    async def leave(self, interaction: discord.Interaction[Any]) -> None:
        live = _channel_game(interaction)
        await _bot(interaction).service.leave(live, interaction.user.id)
        await interaction.response.send_message(f"You left game `{live.game_id}`.", ephemeral=True)

    @app_commands.command(description="Host: fill a seat with a computer player")
    @app_commands.describe(level="how strong the computer player is")
    async def addbot(self, interaction: discord.Interaction[Any], level: LevelName = "normal") -> None:
        live = _channel_game(interaction)
        await _bot(interaction).service.add_bot(live, interaction.user.id, level)
        await interaction.response.send_message(f"Added a {level} computer player.", ephemeral=True)

    @app_commands.command(description="Host: deal the first hand once all seats are filled")
    async def start(self, interaction: discord.Interaction[Any]) -> None:
        live = _channel_game(interaction)
        await _bot(interaction).service.start(live, interaction.user.id)
        await interaction.response.send_message("Dealing! Check your direct messages for your cards.",
                                                ephemeral=True)

    @app_commands.command(description="Bid when it is your turn: nil, blind nil, or a number of tricks")
    @app_commands.describe(bid="nil, blind nil, or a number")
    async def bid(self, interaction: discord.Interaction[Any], bid: str) -> None:
        live = _channel_game(interaction)
        await _bot(interaction).service.bid(live, interaction.user.id, bid)
        tricks, blind = parse_bid(bid)  # said back the way the bid counts: "BN" is blind nil
        said = "blind nil" if blind else "nil" if tricks == 0 else str(tricks)
        await interaction.response.send_message(f"You bid **{said}**.", ephemeral=True)

    @bid.autocomplete("bid")
    async def bid_choices(self, interaction: discord.Interaction[Any], current: str,
                          ) -> list[app_commands.Choice[str]]:
        live = _bot(interaction).service.game_in_channel(_channel_id(interaction))
        if live is None:
            return []
        typed = current.strip().lower()
        choices = _bot(interaction).service.bid_choices(live, interaction.user.id)
        return [app_commands.Choice(name=c, value=c) for c in choices if c.startswith(typed)][:25]

    @app_commands.command(description="Play a card when it is your turn")
    @app_commands.describe(card="for example AS, 10h, Q♥ or queen of hearts")
    async def play(self, interaction: discord.Interaction[Any], card: str) -> None:
        live = _channel_game(interaction)
        await _bot(interaction).service.play(live, interaction.user.id, card)
        await interaction.response.send_message(f"You played {card_label(parse_card(card))}.", ephemeral=True)

    @play.autocomplete("card")
    async def card_choices(self, interaction: discord.Interaction[Any], current: str,
                           ) -> list[app_commands.Choice[str]]:
        live = _bot(interaction).service.game_in_channel(_channel_id(interaction))
        if live is None:
            return []
        typed = current.strip().lower()
        out = []
        for c in _bot(interaction).service.card_choices(live, interaction.user.id):
            name = f"{card_label(c)} ({card_name(c)})"
            if typed in name.lower() or not typed:
                out.append(app_commands.Choice(name=name, value=card_label(c)))
        return out[:25]

    @app_commands.command(description="Your cards, privately, with buttons when it is your turn")
    async def hand(self, interaction: discord.Interaction[Any]) -> None:
        await _bot(interaction).ui.send_hand(interaction, _channel_game(interaction), act=False)

    @app_commands.command(description="Post the table again at the bottom of the channel")
    async def table(self, interaction: discord.Interaction[Any]) -> None:
        live = _channel_game(interaction)
        if live.game is None:
            raise Refusal("The game hasn't started yet.")
        _bot(interaction).publisher.repost_table(live)
        await interaction.response.send_message("Here's the table.", ephemeral=True)

    @app_commands.command(description="The current game's scores, hand by hand")
    async def score(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message(scoreboard_text(_channel_game(interaction)))

    @app_commands.command(description="The game record as JSON (spades-record/1)")
    @app_commands.describe(game="a game id; default: this channel's current or last game")
    async def record(self, interaction: discord.Interaction[Any], game: str | None = None) -> None:
        bot = _bot(interaction)
        game_id = game.strip() if game else None
        if game_id is None:
            live = bot.service.game_in_channel(_channel_id(interaction))
            if live is not None:
                game_id = live.game_id
            else:
                recent = await bot.store.recent_games(_guild_id(interaction), _channel_id(interaction), 1)
                game_id = recent[0].info.game_id if recent else None
        if game_id is None:
            raise Refusal("No game has been played in this channel yet.")
        info = await bot.store.get_game(game_id)
        if info is None or info.guild_id != interaction.guild_id:
            raise Refusal(f"There's no game `{game_id}` on this server.")
        document = await bot.store.game_record(game_id)
        if document is None:
            raise Refusal(f"Game `{game_id}` never started, so it has no record.")
        data = io.BytesIO(json.dumps(document, indent=1).encode())
        await interaction.response.send_message(f"Record of game `{game_id}` (spades-record/1).",
                                                file=discord.File(data, filename=f"spades-{game_id}.json"))

    @app_commands.command(description="This server's leaderboard")
    @app_commands.describe(mode="which game mode", sort="how to rank players")
    async def leaderboard(self, interaction: discord.Interaction[Any], mode: ModeName = "cutthroat",
                          sort: SortName = "rating") -> None:
        entries = await _bot(interaction).store.leaderboard(_guild_id(interaction), mode, sort)
        guild = interaction.guild.name if interaction.guild else "this server"
        await interaction.response.send_message(leaderboard_text(guild, mode, sort, entries))

    @app_commands.command(description="A player's record on this server")
    @app_commands.describe(user="whose stats (default: yours)")
    async def stats(self, interaction: discord.Interaction[Any], user: discord.User | None = None) -> None:
        who = user or interaction.user
        stats = await _bot(interaction).store.player_stats(_guild_id(interaction), who.id)
        await interaction.response.send_message(stats_text(display_name(who), stats))

    @app_commands.command(description="The rules of this channel's game, or the server's defaults")
    async def rules(self, interaction: discord.Interaction[Any]) -> None:
        bot = _bot(interaction)
        live = bot.service.game_in_channel(_channel_id(interaction))
        if live is not None:
            text = rules_text(live.mode, live.rules, f"Rules of game `{live.game_id}`")
        else:
            defaults = await bot.service.server_defaults(_guild_id(interaction))
            mode = Mode.parse(defaults.get("mode", "cutthroat"))
            text = rules_text(mode, Rules.from_options(defaults.get("rules", {})), "This server's default rules")
        await interaction.response.send_message(text, ephemeral=True)

    @app_commands.command(description="Host or Manage Server: end the game; results do not count")
    async def cancel(self, interaction: discord.Interaction[Any]) -> None:
        live = _channel_game(interaction)
        await _bot(interaction).service.cancel(live, interaction.user.id, is_server_manager(interaction))
        await interaction.response.send_message(f"Game `{live.game_id}` cancelled.", ephemeral=True)

    @app_commands.command(description="Manage Server: this server's defaults for new games")
    @app_commands.describe(mode="default mode", target="default target (50-1000)",
                           rules="rule options as key=value pairs, e.g. 'nil=off bag_limit=5'",
                           turn_timeout="seconds before a silent player is reminded (15-3600)")
    async def settings(self, interaction: discord.Interaction[Any], mode: ModeName | None = None,
                       target: app_commands.Range[int, 50, 1000] | None = None, rules: str | None = None,
                       turn_timeout: app_commands.Range[int, 15, 3600] | None = None) -> None:
        if not is_server_manager(interaction):
            raise Refusal("Only members with Manage Server can change the server's settings.")
        changes: dict[str, Any] = {"mode": mode, "target": target, "turn_timeout": turn_timeout}
        for pair in (rules or "").replace(",", " ").split():
            key, sep, value = pair.partition("=")
            if not sep:
                raise Refusal(f"“{pair}” isn't key=value, e.g. nil=off or bag_limit=5.")
            changes[key.strip().lower()] = value
        service = _bot(interaction).service
        saved = await service.update_settings(_guild_id(interaction), changes)
        shown = Rules.from_options(saved.get("rules", {}))
        mode_shown = Mode.parse(saved.get("mode", "cutthroat"))
        timeout = saved.get("turn_timeout", service.turn_timeout)
        await reply_privately(interaction, rules_text(mode_shown, shown, "Server defaults saved")
                              + f"\nTurn timeout: {timeout:.0f} s")

