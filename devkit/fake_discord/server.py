"""FakeDiscord: an aiohttp server speaking the bot-facing part of Discord API v10, plus a test API.

A test builds a small world (users, guilds, channels), lets the real bot connect through the
real discord.py client, then plays users: slash commands, autocomplete, button clicks, modals.
Everything the bot sends is stored (messages, edits, files, interaction responses) and
anything Discord would reject is answered like Discord does AND recorded in `errors`, which
the pytest fixture asserts empty at teardown, so a bot that swallows HTTP errors still fails.

`FakeDiscord` is composed of one mixin per job, each in its own module over `core.DiscordCore`
(the state): `world` (building the world), `messaging` (storing messages), `faults` (failure
injection), `actions` (what users do), `waits` (what users see, and waiting for it), and under
`rest/` the plumbing every request goes through and the route families. This module holds what
names them all: the HTTP app and the route table.
"""

from __future__ import annotations

import logging

from aiohttp import web

from .actions import UserActions
from .records import ATTACHMENT_SIZE_LIMIT
from .rest.channels import ChannelRoutes
from .rest.commands import CommandRoutes
from .rest.guilds import GuildRoutes
from .rest.interactions import InteractionRoutes
from .waits import Waits

log = logging.getLogger(__name__)


class FakeDiscord(ChannelRoutes, InteractionRoutes, GuildRoutes, CommandRoutes, UserActions, Waits):
    """The fake Discord: one bot application, a world of users/guilds, REST + gateway servers."""

    # ================================================================== lifecycle

    async def start(self) -> None:
        app = web.Application(client_max_size=ATTACHMENT_SIZE_LIMIT * 2)
        app.router.add_get("/gateway", self.gateway.handle)
        app.router.add_get("/gateway/", self.gateway.handle)
        app.router.add_get("/attachments/{channel_id}/{attachment_id}/{filename}", self._serve_attachment)
        app.router.add_route("*", "/api/v10/{tail:.*}", self._api)
        app.router.add_route("*", "/{tail:.*}", self._outside_api)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        address = self._runner.addresses[0]
        self.port = int(address[1])

    async def stop(self) -> None:
        if self.spec_checks:
            mean_ms = 1000 * self.spec_seconds / self.spec_checks
            log.info("checked %d requests against Discord's spec: %.3f ms each", self.spec_checks, mean_ms)
        await self.gateway.close_all()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeDiscord:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # ================================================================== the route table

    def _register_routes(self) -> None:
        add = self._add_route
        add("GET", "/gateway", self._get_gateway, auth=False)
        add("GET", "/gateway/bot", self._get_gateway_bot)
        add("GET", "/users/@me", self._get_me)
        add("GET", "/users/@me/guilds", self._get_my_guilds)
        add("POST", "/users/@me/channels", self._create_dm)
        add("GET", "/users/{user_id}", self._get_user)
        add("GET", "/oauth2/applications/@me", self._get_application)
        add("GET", "/applications/@me", self._get_application)
        for prefix in ("/applications/{application_id}", "/applications/{application_id}/guilds/{guild_id}"):
            add("GET", f"{prefix}/commands", self._list_commands)
            add("PUT", f"{prefix}/commands", self._put_commands)
            add("POST", f"{prefix}/commands", self._post_command)
            add("GET", f"{prefix}/commands/{{command_id}}", self._get_command)
            add("PATCH", f"{prefix}/commands/{{command_id}}", self._patch_command)
            add("DELETE", f"{prefix}/commands/{{command_id}}", self._delete_command)
        add("GET", "/applications/{application_id}/guilds/{guild_id}/commands/permissions", self._empty_list)
        add("GET", "/channels/{channel_id}", self._get_channel)
        add("PATCH", "/channels/{channel_id}", self._patch_channel)
        add("POST", "/channels/{channel_id}/messages/{message_id}/threads", self._start_thread)
        add("GET", "/channels/{channel_id}/messages", self._list_messages)
        add("POST", "/channels/{channel_id}/messages", self._post_message)
        add("GET", "/channels/{channel_id}/messages/{message_id}", self._get_message)
        add("PATCH", "/channels/{channel_id}/messages/{message_id}", self._patch_message)
        add("DELETE", "/channels/{channel_id}/messages/{message_id}", self._delete_message)
        add("POST", "/channels/{channel_id}/typing", self._typing)
        add("PUT", "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me", self._add_reaction)
        add(
            "DELETE",
            "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me",
            self._remove_reaction,
        )
        add("GET", "/guilds/{guild_id}", self._get_guild)
        add("GET", "/guilds/{guild_id}/channels", self._get_guild_channels)
        add("GET", "/guilds/{guild_id}/roles", self._get_guild_roles)
        add("GET", "/guilds/{guild_id}/members", self._list_members)
        add("GET", "/guilds/{guild_id}/members/{user_id}", self._get_member)
        add("POST", "/interactions/{interaction_id}/{token}/callback", self._interaction_callback, auth=False)
        add("POST", "/webhooks/{application_id}/{token}", self._webhook_execute, auth=False)
        add("GET", "/webhooks/{application_id}/{token}/messages/{message_id}", self._webhook_get, auth=False)
        add(
            "PATCH",
            "/webhooks/{application_id}/{token}/messages/{message_id}",
            self._webhook_edit,
            auth=False,
        )
        add(
            "DELETE",
            "/webhooks/{application_id}/{token}/messages/{message_id}",
            self._webhook_delete,
            auth=False,
        )

