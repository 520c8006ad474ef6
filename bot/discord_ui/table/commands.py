"""The /spades command group: each command is a service call and a reply; errors go to one handler."""

from __future__ import annotations

import asyncio
import functools
import io
import json
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Literal

import discord
from discord import app_commands

from bot.discord_ui import coach as coach_ui
from bot.discord_ui.errors import reply_privately
from bot.discord_ui.safe_text import shown as escaped
from bot.discord_ui.seasons.render import board_label, card_picture, season_stats_text
from bot.discord_ui.services import Asked, channel_of, display_name, guild_of, is_server_manager, services
from bot.discord_ui.table import help_text, render, results_text
from bot.discord_ui.table.views import agree_cancel_view, lobby_rows
from bot.engine import Card, Mode, Rules, card_label, card_name
from bot.service import LiveGame, Refusal, asks_to_see_cards, parse_bid

ModeName = Literal["cutthroat", "solo", "partners", "duo", "five", "six"]
SortName = Literal["rating", "wins", "win_rate", "points"]
LevelName = Literal["easy", "normal", "hard"]
SetPenalty = Literal["minus", "zero"]
HINT = "hint"  # typed as the bid or the card: the Hint button's answer, where hints are allowed


def _channel_game(interaction: Asked) -> LiveGame:
    guild_of(interaction)
    return services(interaction).games.require_channel_game(channel_of(interaction))


async def preset_choices(interaction: Asked, current: str, own: bool = False) -> list[app_commands.Choice[str]]:
    """The presets (built-in, then the server's; ``own``: the server's only) holding what was typed."""
    if interaction.guild_id is None:
        return []
    names = await services(interaction).games.presets.choices(interaction.guild_id, current[:50], own)
    return [app_commands.Choice(name=name, value=name) for name in names]


async def _season_choices(interaction: Asked, current: str) -> list[app_commands.Choice[str]]:
    """The season option's choices: all time, then the server's seasons, newest first."""
    if interaction.guild_id is None:
        return []
    names = await services(interaction).seasons.choices(interaction.guild_id, current[:50])
    return [app_commands.Choice(name=name, value=name) for name in names]


@app_commands.guild_only()

def _asked_about(interaction: Asked) -> LiveGame | None:
    """The channel's game an autocomplete may answer about (none from another server)."""
    live = services(interaction).games.game_in_channel(interaction.channel_id or 0)
    return live if live is not None and live.guild_id == interaction.guild_id else None


def card_options(cards: Sequence[Card], current: str) -> list[app_commands.Choice[str]]:
    """Autocomplete of cards: the label with the name in words, filtered by what is typed. A card held
    twice (six) is offered once: typing it plays one copy, and the copies play alike."""
    typed = current.strip().lower()[:50]
    out = []
    offered: dict[str, Card] = {}
    for c in cards:
        offered.setdefault(card_label(c), c)
    for label, c in offered.items():
        name = f"{label} ({card_name(c)})"
        if typed in name.lower() or not typed:
            out.append(app_commands.Choice(name=name, value=label))
    return out[:25]

class SpadesCommands(app_commands.Group, name="spades", description="Play Spades in this channel"):
    def fast_routes(self) -> dict[str, tuple[tuple[str, ...], Callable[..., Awaitable[Any]]]]:
        """The busiest subcommands, for the gateway's fast route (`FastClicks.route_commands`): each
        name, its text options in order, and its callback bound to this group."""
        return {command.name: (tuple(parameter.name for parameter in command.parameters),
                               functools.partial(command.callback, self))  # type: ignore[arg-type]
                for command in (self.play, self.bid, self.hand)}

    @app_commands.command(description="Open a Spades game in this channel; you take the first seat")
    @app_commands.describe(
        mode="cutthroat (3), solo (4), partners (2 vs 2), duo (2, hands drawn), five (5) or six (6, rules: teams=)",
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
        hints="the Hint button: on or auto (only with a computer player, never in tournaments), or off",
        rules="house rules: a preset (e.g. Whiz) and/or key=value pairs, e.g. “Whiz, overtricks=negative”",
    )
    async def new(
        self, interaction: Asked,
        mode: ModeName | None = None,
        rules: str | None = None,
        target: app_commands.Range[int, 50, 1000] | None = None,
        nil: bool | None = None, blind_nil: bool | None = None,
        blind_nil_deficit: app_commands.Range[int, 0, 1000] | None = None,
        no_exact_total: bool | None = None, spades_must_break: bool | None = None,
        set_penalty: SetPenalty | None = None,
        nil_value: app_commands.Range[int, 0, 1000] | None = None,
        blind_nil_value: app_commands.Range[int, 0, 1000] | None = None,
        bag_limit: app_commands.Range[int, 1, 100] | None = None,
        bag_penalty: app_commands.Range[int, 0, 1000] | None = None,
        nil_tricks_help_partner: bool | None = None,
        mercy: app_commands.Range[int, 0, 1000] | None = None,
        leftover: Literal["last", "two_clubs"] | None = None,
        jokers: bool | None = None,
        hints: Literal["auto", "on", "off"] | None = None,
    ) -> None:
        given = {
            "target": target, "nil": nil, "blind_nil": blind_nil, "blind_nil_deficit": blind_nil_deficit,
            "no_exact_total": no_exact_total, "spades_must_break": spades_must_break,
            "set_penalty": set_penalty, "nil_value": nil_value, "blind_nil_value": blind_nil_value,
            "bag_limit": bag_limit, "bag_penalty": bag_penalty,
            "nil_tricks_help_partner": nil_tricks_help_partner, "mercy": mercy, "leftover": leftover,
            "jokers": jokers, "hints": hints,
        }
        service = services(interaction).games
        options: dict[str, object] = await service.presets.options(guild_of(interaction), rules) if rules else {}
        options.update({k: v for k, v in given.items() if v is not None})  # mercy 0: the rules' off
        live = await service.new_lobby(guild_of(interaction), channel_of(interaction), interaction.user.id,
                                       display_name(interaction.user), mode, options)
        message_id = await services(interaction).publisher.edits.announce(interaction, render.lobby_text(live),
                                                                          lobby_rows(live))
        await service.set_lobby_message(live, message_id)
        services(interaction).publisher.lobby_shown(live, interaction)

    @new.autocomplete("rules")
    async def rules_choices(self, interaction: Asked, current: str) -> list[app_commands.Choice[str]]:
        return await preset_choices(interaction, current)

    @app_commands.command(description="Take a seat in this channel's game before it starts")
    async def join(self, interaction: Asked) -> None:
        await services(interaction).games.join(_channel_game(interaction), interaction.user.id,
                                              display_name(interaction.user))
        await services(interaction).publisher.edits.say(interaction, "You joined the game.")

    @app_commands.command(description="Leave the game (once it runs, a computer player takes your seat)")
    async def leave(self, interaction: Asked) -> None:
        live = _channel_game(interaction)
        running = live.status == "playing"
        await services(interaction).games.leave(live, interaction.user.id)
        await interaction.response.send_message(
            "You left the game: it counts as a loss for you." if running else "You left the game.", ephemeral=True)

    @app_commands.command(description="Host: fill a seat with a computer player")
    @app_commands.describe(level="how strong the computer player is")
    async def addbot(self, interaction: Asked, level: LevelName = "normal") -> None:
        await services(interaction).games.add_bot(_channel_game(interaction), interaction.user.id, level)
        article = "an" if level[0] in "aeiou" else "a"
        await interaction.response.send_message(f"Added {article} {level} computer player.", ephemeral=True)

    @app_commands.command(description="Host: deal the first hand once all seats are filled")
    async def start(self, interaction: Asked) -> None:
        await services(interaction).games.start(_channel_game(interaction), interaction.user.id)
        await interaction.response.send_message("Dealing! Press **My hand** on the table, or type `/spades hand`, "
                                                "to play.", ephemeral=True)

    @app_commands.command(description="Bid when it is your turn: nil, blind nil, a number of tricks, "
                                      "or show my cards")
    @app_commands.describe(bid="nil, blind nil, a number, “show my cards” to give up blind nil and look, "
                               "or “hint”")
    async def bid(self, interaction: Asked, bid: str) -> None:
        service, live, user_id = services(interaction).games, _channel_game(interaction), interaction.user.id
        if bid.strip().lower() == HINT:
            await coach_ui.hint(interaction, live.game_id)
            return
        if asks_to_see_cards(bid):
            await service.reveal(live, user_id)
            await services(interaction).table.open_panel(interaction, notice=render.CARDS_SHOWN)
            return
        tricks, blind = parse_bid(bid)  # said back the way the bid counts: "BN" is blind nil
        if not blind and service.cards_hidden(live, user_id):
            raise Refusal(render.CHOOSE_BLIND_NIL_FIRST)
        await service.bid(live, user_id, bid)
        said = ("blind " if blind else "") + ("nil" if tricks == 0 else str(tricks))
        await services(interaction).publisher.edits.say(interaction, f"You bid **{said}**.")

    @bid.autocomplete("bid")
    async def bid_choices(self, interaction: Asked, current: str) -> list[app_commands.Choice[str]]:
        live = services(interaction).games.game_in_channel(interaction.channel_id or 0)
        if live is None or live.guild_id != interaction.guild_id:
            return []
        typed = current.strip().lower()
        choices = services(interaction).games.bid_choices(live, interaction.user.id)
        return [app_commands.Choice(name=c, value=c) for c in choices if c.startswith(typed)][:25]

    @app_commands.command(description="Duo: keep the card you drew (and discard the next), or discard it "
                                      "(and keep the next)")
    @app_commands.describe(keep="yes: keep this card; no: discard it and take the next")
    async def draw(self, interaction: Asked, keep: Literal["yes", "no"]) -> None:
        kept, discarded = await services(interaction).games.draw(_channel_game(interaction), interaction.user.id,
                                                                 keep == "yes")
        await services(interaction).publisher.edits.say(
            interaction, f"You kept {card_label(kept)} and discarded {card_label(discarded)}.")

    @app_commands.command(description="Play a card when it is your turn")
    @app_commands.describe(card="for example AS, 10h, Q♥ or queen of hearts; “hint” asks the hard player")
    async def play(self, interaction: Asked, card: str) -> None:
        if card.strip().lower() == HINT:
            await coach_ui.hint(interaction, _channel_game(interaction).game_id)
            return
        played = await services(interaction).games.play(_channel_game(interaction), interaction.user.id, card)
        await services(interaction).publisher.edits.say(interaction, f"You played {card_label(played)}.")

    @play.autocomplete("card")
    async def card_choices(self, interaction: Asked, current: str) -> list[app_commands.Choice[str]]:
        live = _asked_about(interaction)
        cards = services(interaction).games.card_choices(live, interaction.user.id) if live else ()
        return card_options(cards, current)

    @app_commands.command(name="pass", description="Nil passing: the cards you pass to your partner")
    @app_commands.describe(cards="one card, or two for a blind nil: AS, or AS KH")
    async def pass_(self, interaction: Asked, cards: str) -> None:
        passed = await services(interaction).games.pass_cards(_channel_game(interaction), interaction.user.id, cards)
        said = " and ".join(card_label(c) for c in passed)
        await services(interaction).publisher.edits.say(interaction, f"You passed {said} to your partner.")

    @pass_.autocomplete("cards")
    async def pass_choices(self, interaction: Asked, current: str) -> list[app_commands.Choice[str]]:
        live = _asked_about(interaction)
        cards = services(interaction).games.pass_choices(live, interaction.user.id) if live else ()
        return card_options(cards, current)

    @app_commands.command(description="Your private panel: your cards, and one click to play on your turn")
    async def hand(self, interaction: Asked) -> None:
        await services(interaction).table.open_panel(interaction)

    @app_commands.command(description="Show this channel's game again at the bottom of the channel")
    async def table(self, interaction: Asked) -> None:
        live = _channel_game(interaction)
        services(interaction).publisher.repost(live)
        what = "table" if live.started else "game"
        await interaction.response.send_message(f"Here's the {what}.", ephemeral=True)

    @app_commands.command(description="The scores hand by hand, of this channel's game or its last one")
    async def score(self, interaction: Asked) -> None:
        live = await services(interaction).games.last_game(guild_of(interaction), channel_of(interaction))
        await interaction.response.send_message(results_text.scoreboard_text(live.shown.table))

    @app_commands.command(description="The game record as JSON (spades-record/1)")
    @app_commands.describe(game="a game id (in the table's footer); default: this channel's current or last game")
    async def record(self, interaction: Asked, game: str | None = None) -> None:
        """A finished game's record is posted for all to see. A running game's shows only what
        everyone has seen; with the asker's own cards in it, it is a reply to the asker alone."""
        game_id, shown = await services(interaction).games.record(
            guild_of(interaction), channel_of(interaction), interaction.user.id,
            game.strip().lower() if game else None)
        data = io.BytesIO(json.dumps(shown.document, indent=1).encode())
        if shown.document.get("final"):
            caption = ""
        elif shown.private:
            caption = " (a game in progress: what everyone has seen, and your own cards; only you can see this)"
        else:
            caption = " (a game in progress: only what everyone has seen)"
        await interaction.response.send_message(f"Record of game `{game_id}` (spades-record/1){caption}.",
                                                file=discord.File(data, filename=f"spades-{game_id}.json"),
                                                ephemeral=shown.private)

    @app_commands.command(description="This server's leaderboard: the running season's, all time, or a past season's")
    @app_commands.describe(mode="which game mode", sort="how to rank players",
                           season="a season's name, or “all time” (default: the running season, if any)")
    async def leaderboard(self, interaction: Asked, mode: ModeName = "cutthroat", sort: SortName = "rating",
                          season: str | None = None) -> None:
        seasons, guild_id = services(interaction).seasons, guild_of(interaction)
        picked, entries = await seasons.leaderboard(guild_id, mode, sort, season)
        label = board_label(picked, any_seasons=picked is not None or bool(await seasons.seasons(guild_id)))
        guild = interaction.guild.name if interaction.guild else "this server"
        await interaction.response.send_message(results_text.leaderboard_text(guild, mode, sort, entries, label))

    @leaderboard.autocomplete("season")
    async def leaderboard_seasons(self, interaction: Asked, current: str) -> list[app_commands.Choice[str]]:
        return await _season_choices(interaction, current)

    @app_commands.command(description="A player's record on this server, with a picture")
    @app_commands.describe(user="whose stats (default: yours)",
                           season="a season to show beside all time (default: the running one, if any)")
    async def stats(self, interaction: Asked, user: discord.User | None = None, season: str | None = None) -> None:
        who = user or interaction.user
        card = await services(interaction).seasons.card(guild_of(interaction), who.id, season)
        name = display_name(who)
        text = results_text.stats_text(name, card.all_time)
        if card.season is not None and card.in_season is not None:
            text += "\n" + season_stats_text(card.season, card.in_season)
        if card.all_time.games == 0:
            await interaction.response.send_message(text)
            return
        guild = interaction.guild.name if interaction.guild else "this server"
        png = await asyncio.to_thread(card_picture, name, guild, card)
        await interaction.response.send_message(text, file=discord.File(io.BytesIO(png), filename="stats.png"))

    @stats.autocomplete("season")
    async def stats_seasons(self, interaction: Asked, current: str) -> list[app_commands.Choice[str]]:
        return await _season_choices(interaction, current)

    @app_commands.command(description="The rules of this channel's game, or the server's defaults")
    async def rules(self, interaction: Asked) -> None:
        service = services(interaction).games
        live = service.game_in_channel(channel_of(interaction))
        if live is not None and live.guild_id == interaction.guild_id:
            text = help_text.rules_text(live.mode, live.rules, "The rules of this game")
        else:
            defaults = await service.server_defaults(guild_of(interaction))
            mode = Mode.parse(defaults.get("mode", "cutthroat"))
            text = help_text.rules_text(mode, Rules.from_options(defaults.get("rules", {})), "This server's rules")
        await interaction.response.send_message(text, ephemeral=True)

    @app_commands.command(description="How to play here, and the commands")
    async def help(self, interaction: Asked) -> None:
        await interaction.response.send_message(help_text.HELP_TEXT, ephemeral=True)

    @app_commands.command(description="End the game: the host (the others agree once dealt), Manage Server, "
                                      "or a tournament's organiser")
    async def cancel(self, interaction: Asked) -> None:
        request = await services(interaction).games.cancel(_channel_game(interaction), interaction.user.id,
                                                          is_server_manager(interaction),
                                                          display_name(interaction.user))
        if request is None:
            await interaction.response.send_message("Game cancelled.", ephemeral=True)
            return
        await interaction.response.send_message(
            results_text.cancel_request_text(request), view=agree_cancel_view(_channel_game(interaction).game_id),
            allowed_mentions=discord.AllowedMentions(users=[discord.Object(u) for u in request.asked]))

    @app_commands.command(description="Manage Server: this server's defaults for new games")
    @app_commands.describe(mode="default mode", target="default target (50-1000)",
                           rules="a preset and/or rule options as key=value pairs, e.g. 'nil=off bag_limit=5'",
                           preset_save="save the server's rules (after this command's changes) as a preset "
                                       "of this name, for /spades new rules:",
                           preset_delete="delete one of the server's presets",
                           turn_timeout="seconds before a silent player is reminded (15-3600)",
                           turn_ping_delay="seconds before a player is mentioned on their turn (0 = never)",
                           season_rhythm="monthly: a new season every calendar month (UTC), podiums in this "
                                         "channel; off: seasons only by /spades season start",
                           tournament_role="members with this role may run tournaments (besides Manage Server)")
    async def settings(self, interaction: Asked, mode: ModeName | None = None,
                       target: app_commands.Range[int, 50, 1000] | None = None, rules: str | None = None,
                       turn_timeout: app_commands.Range[int, 15, 3600] | None = None,
                       turn_ping_delay: app_commands.Range[int, 0, 60] | None = None,
                       season_rhythm: Literal["off", "monthly"] | None = None,
                       tournament_role: discord.Role | None = None, preset_save: str | None = None,
                       preset_delete: str | None = None) -> None:
        if not is_server_manager(interaction):
            raise Refusal("Only members with Manage Server can change the server's settings.")
        running, guild = services(interaction), guild_of(interaction)
        service = running.games
        changes: dict[str, Any] = {"mode": mode, "target": target, "turn_timeout": turn_timeout,
                                   "turn_ping_delay": turn_ping_delay}
        if rules:
            changes.update(await service.presets.options(guild, rules))
        saved = await service.update_settings(guild, changes)
        presets_said = ""
        if preset_save is not None:
            name, _ = await service.presets.save(guild, preset_save)
            presets_said += (f"\nPreset **{escaped(name)}** saved: `/spades new rules:{escaped(name)}` "
                             "plays these rules.")
        if preset_delete is not None:
            presets_said += f"\nPreset **{escaped(await service.presets.delete(guild, preset_delete))}** deleted."
        if season_rhythm is not None:
            await running.seasons.set_rhythm(guild, season_rhythm, channel_of(interaction))
        if tournament_role is not None:
            saved = await running.tournaments.set_organiser_role(guild, tournament_role.id)
        rhythm = await running.seasons.rhythm(guild)
        shown = Rules.from_options(saved.get("rules", {}))
        mode_shown = Mode.parse(saved.get("mode", "cutthroat"))
        timeout = saved.get("turn_timeout", service.turn_timeout)
        ping = saved.get("turn_ping_delay", 5)
        await reply_privately(interaction, help_text.rules_text(mode_shown, shown, "Server defaults saved")
                              + f"\nTurn timeout: {timeout:.0f} s · turn mention after {ping} s"
                              + (" (off)" if not ping else "")
                              + f"\nSeasons: {'a new one every calendar month' if rhythm else 'no rhythm'}"
                              + (f"\nTournaments: Manage Server or <@&{saved['tournament_role']}>"
                                 if saved.get("tournament_role") else "") + presets_said)

    @settings.autocomplete("preset_delete")
    async def preset_delete_choices(self, interaction: Asked, current: str) -> list[app_commands.Choice[str]]:
        return await preset_choices(interaction, current, own=True)
