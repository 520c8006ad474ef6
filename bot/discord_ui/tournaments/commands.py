"""`/spades tournament`: open a Swiss tournament in this channel, sign up, start it, see the
standings, cancel it. The bot runs the rest (threads, rounds, standings, podium).

Opening, starting and cancelling are for members with Manage Server, or a role the server names
in `/spades settings tournament_role:`; the organiser may start and cancel their own. Dropping or
replacing someone else is the organiser's (or Manage Server's) too, through `leave player:` and
`join player: replacing:`.
"""

from __future__ import annotations

from typing import Literal

import discord
from discord import app_commands

from bot.discord_ui.safe_text import shown
from bot.discord_ui.services import Asked, channel_of, display_name, guild_of, is_server_manager, services
from bot.discord_ui.table.commands import ModeName, SetPenalty, preset_choices
from bot.discord_ui.tournaments.poster import missing_thread_permissions, signup_view
from bot.discord_ui.tournaments.render import signup_text, standings_text
from bot.engine.names import named
from bot.engine.tournaments.tournament import MAX_ROUNDS
from bot.service import Refusal
from bot.service.tournaments import LiveTournament

LevelName = Literal["easy", "normal", "hard"]


async def _may_organise(interaction: Asked) -> bool:
    """Manage Server, or the role this server named for running tournaments."""
    if is_server_manager(interaction):
        return True
    defaults = await services(interaction).games.server_defaults(guild_of(interaction))
    role = defaults.get("tournament_role")
    roles = getattr(interaction.user, "roles", [])
    return role is not None and any(r.id == int(role) for r in roles)


async def _require_organiser(interaction: Asked, live: LiveTournament | None, what: str) -> None:
    if live is not None and live.organiser_id == interaction.user.id:
        return
    if not await _may_organise(interaction):
        raise Refusal(f"Only the organiser, or members with Manage Server (or the server's tournament role), can "
                      f"{what}.")


def _require_person(user: discord.User, role: str) -> None:
    """Only people play in a tournament (its computer players are the bot's own, not other apps)."""
    if user.bot:
        raise Refusal(f"{named(display_name(user))} is a bot, and a bot can't play as {role}: pick a person.")


def _require_threads(interaction: Asked) -> None:
    missing = missing_thread_permissions(interaction.app_permissions)
    if missing:
        raise Refusal("Each table of a tournament plays in its own thread here, and I'm missing "
                      f"{', '.join(f'**{name}**' for name in missing)} in this channel. Give me those, then try again.")


class TournamentCommands(app_commands.Group, name="tournament", description="Swiss tournaments run by the bot"):
    @app_commands.command(description="Manage Server: open a Swiss tournament in this channel for sign-up")
    @app_commands.describe(
        mode="cutthroat (3 a table), solo (4), partners (registered pairs), duo (2), five (5) or six (6)",
        target="points to win each game (50-1000)", rounds=f"number of rounds (1-{MAX_ROUNDS}; default 3)",
        signup="minutes sign-up stays open, then round 1 starts by itself (default: when you run start)",
        round_minutes="time limit per round; games still running then are decided by the score",
        computer="level of the computer players who fill leftover seats",
        nil="allow nil bids", blind_nil="allow blind nil", set_penalty="a set scores minus 10 a trick bid, or zero",
        bag_limit="bags that trigger the bag penalty", mercy="end a game when someone drops to minus this (0 = off)",
        rules="house rules: a preset (e.g. Whiz) and/or key=value pairs",
    )
    async def new(self, interaction: Asked, mode: ModeName = "cutthroat",
                  target: app_commands.Range[int, 50, 1000] | None = None,
                  rounds: app_commands.Range[int, 1, MAX_ROUNDS] = 3,
                  signup: app_commands.Range[int, 1, 10080] | None = None,
                  round_minutes: app_commands.Range[int, 1, 1440] | None = None,
                  computer: LevelName = "normal", nil: bool | None = None, blind_nil: bool | None = None,
                  set_penalty: SetPenalty | None = None, bag_limit: app_commands.Range[int, 1, 100] | None = None,
                  mercy: app_commands.Range[int, 0, 1000] | None = None, rules: str | None = None) -> None:
        await _require_organiser(interaction, None, "open a tournament")
        _require_threads(interaction)
        given = {"target": target, "nil": nil, "blind_nil": blind_nil, "set_penalty": set_penalty,
                 "bag_limit": bag_limit, "mercy": mercy}
        presets = services(interaction).games.presets
        options: dict[str, object] = await presets.options(guild_of(interaction), rules) if rules else {}
        options.update({k: v for k, v in given.items() if v is not None})
        tournaments = services(interaction).tournaments
        live = await tournaments.new(guild_of(interaction), channel_of(interaction), interaction.user.id,
                                     mode=mode, options=options, rounds=rounds, level=computer,
                                     signup_minutes=signup, round_minutes=round_minutes)
        sent = await interaction.response.send_message(signup_text(live),
                                                       view=signup_view(live) or discord.utils.MISSING)
        message_id = sent.message_id or (await interaction.original_response()).id
        await tournaments.set_message(live, message_id)

    @new.autocomplete("rules")
    async def rules_choices(self, interaction: Asked, current: str) -> list[app_commands.Choice[str]]:
        return await preset_choices(interaction, current)

    @app_commands.command(description="Sign up for this channel's tournament (organiser: replace a player)")
    @app_commands.describe(partner="partners tournaments: your partner",
                           player="organiser, between rounds: who takes over an entry",
                           replacing="organiser, between rounds: the player they replace")
    async def join(self, interaction: Asked, partner: discord.User | None = None,
                   player: discord.User | None = None, replacing: discord.User | None = None) -> None:
        tournaments = services(interaction).tournaments
        live = tournaments.require(guild_of(interaction), channel_of(interaction))
        if player is not None or replacing is not None:
            if player is None or replacing is None:
                raise Refusal("To replace a player, give both `player:` (who comes in) and `replacing:` (who goes).")
            await _require_organiser(interaction, live, "replace players")
            _require_person(player, "a replacement")
            old = await tournaments.replace(live, replacing.id, player.id, display_name(player))
            await interaction.response.send_message(f"{shown(display_name(player))} takes over {shown(old)}'s entry.")
            return
        if partner is not None:
            _require_person(partner, "a partner")
        partner_info = (partner.id, display_name(partner)) if partner is not None else None
        await tournaments.join(live, interaction.user.id, display_name(interaction.user), partner_info)
        await interaction.response.send_message("You're in the tournament. I'll mention you in your table's thread "
                                                "when a round starts.", ephemeral=True)

    @app_commands.command(description="Leave this channel's tournament (organiser: drop a player)")
    @app_commands.describe(player="organiser: the player to drop")
    async def leave(self, interaction: Asked, player: discord.User | None = None) -> None:
        tournaments = services(interaction).tournaments
        live = tournaments.require(guild_of(interaction), channel_of(interaction))
        organiser = player is not None and player.id != interaction.user.id
        if organiser:
            await _require_organiser(interaction, live, "drop players")
        name = await tournaments.leave(live, interaction.user.id, player.id if player else None,
                                       is_organiser=organiser)
        text = f"{shown(name)} is out of the tournament." if organiser else "You left the tournament."
        await interaction.response.send_message(text, ephemeral=not organiser)

    @app_commands.command(description="Organiser: seat round 1 now (or, between rounds, the next round)")
    async def start(self, interaction: Asked) -> None:
        tournaments = services(interaction).tournaments
        live = tournaments.require(guild_of(interaction), channel_of(interaction))
        await _require_organiser(interaction, live, "start the tournament")
        _require_threads(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)  # opening the threads takes a moment
        number = await tournaments.start(live)
        await interaction.edit_original_response(content=f"Round {number} is seated: the tables are in the "
                                                          "threads below the tournament's message.")

    @app_commands.command(description="The standings of this channel's tournament (or its last one)")
    async def standings(self, interaction: Asked) -> None:
        live = await services(interaction).tournaments.latest(guild_of(interaction), channel_of(interaction))
        await interaction.response.send_message(standings_text(live, live.round_number),
                                                allowed_mentions=discord.AllowedMentions.none())

    @app_commands.command(description="Organiser or Manage Server: stop the tournament; none of it counts")
    async def cancel(self, interaction: Asked) -> None:
        tournaments = services(interaction).tournaments
        live = tournaments.require(guild_of(interaction), channel_of(interaction))
        await _require_organiser(interaction, live, "cancel the tournament")
        await tournaments.cancel(live)
        await interaction.response.send_message("Tournament cancelled.", ephemeral=True)
