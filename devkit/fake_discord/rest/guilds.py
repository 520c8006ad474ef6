"""Routes for the gateway address, the bot's own user and application, users, DMs, guilds, their
channels, roles and members: the read-mostly lookups discord.py makes at start-up.
"""

from __future__ import annotations

from aiohttp import web

from ..jsontypes import JSON
from ..records import Req, json_response, truthy
from .base import Rest


class GuildRoutes(Rest):
    """Serve the gateway, user, application, DM and guild routes."""

    # ------------------------------------------------------------------ misc routes

    async def _get_gateway(self, req: Req) -> web.Response:
        return json_response({"url": self.gateway_url})

    async def _get_gateway_bot(self, req: Req) -> web.Response:
        limit = {
            "total": 1000,
            "remaining": 999,
            "reset_after": 14400000,
            "max_concurrency": self.max_concurrency,
        }
        shards = self.recommended_shards
        return json_response({"url": self.gateway_url, "shards": shards, "session_start_limit": limit})

    async def _get_me(self, req: Req) -> web.Response:
        payload = {**self.bot_user.to_payload(), "verified": True, "mfa_enabled": False, "email": None}
        return json_response(payload)

    async def _get_my_guilds(self, req: Req) -> web.Response:
        out: list[JSON] = [
            {
                "id": str(g.id),
                "name": g.name,
                "icon": None,
                "owner": False,
                "permissions": "0",
                "features": [],
            }
            for g in self.bot_guilds()
        ]
        return json_response(out)

    async def _get_user(self, req: Req) -> web.Response:
        user = self.users.get(int(req.params["user_id"]))
        if user is None:
            return self._error(req, 404, 10013, "Unknown User")
        return json_response(user.to_payload())

    async def _get_application(self, req: Req) -> web.Response:
        return json_response(
            {
                "id": str(self.application_id),
                "name": self.bot_user.global_name,
                "icon": None,
                "description": "",
                "summary": "",
                "type": None,
                "hook": True,
                "rpc_origins": [],
                "bot_public": True,
                "bot_require_code_grant": False,
                "bot": self.bot_user.to_payload(),
                "owner": self.app_owner.to_payload(),
                "team": None,
                "verify_key": "0" * 64,
                "flags": self.application_flags,
                "redirect_uris": [],
                "interactions_endpoint_url": None,
                "approximate_guild_count": len(self.bot_guilds()),
                "integration_types_config": {"0": {}},
            }
        )

    async def _empty_list(self, req: Req) -> web.Response:
        return json_response([])

    async def _create_dm(self, req: Req) -> web.Response:
        body = req.body if isinstance(req.body, dict) else {}
        user = self.users.get(int(body.get("recipient_id") or 0))
        if user is None:
            return self._error(req, 400, 50035, "Invalid Form Body: unknown recipient_id", record=True)
        return json_response(self.dm_channel(user).to_payload())

    # ------------------------------------------------------------------ guilds

    async def _get_guild(self, req: Req) -> web.Response:
        guild = self._guild(req)
        if isinstance(guild, web.Response):
            return guild
        payload = guild.base_payload()
        if truthy(req.query.get("with_counts")):
            payload["approximate_member_count"] = len(guild.members)
            payload["approximate_presence_count"] = 0
        return json_response(payload)

    async def _get_guild_channels(self, req: Req) -> web.Response:
        guild = self._guild(req)
        if isinstance(guild, web.Response):
            return guild
        return json_response([c.to_payload() for c in guild.channels])

    async def _get_guild_roles(self, req: Req) -> web.Response:
        guild = self._guild(req)
        if isinstance(guild, web.Response):
            return guild
        return json_response([r.to_payload() for r in guild.roles.values()])

    async def _list_members(self, req: Req) -> web.Response:
        guild = self._guild(req)
        if isinstance(guild, web.Response):
            return guild
        limit = max(1, min(1000, int(req.query.get("limit", 1))))
        after = int(req.query.get("after", 0))
        members = sorted((mb for mb in guild.members.values() if mb.user.id > after), key=lambda mb: mb.user.id)
        return json_response([mb.to_payload() for mb in members[:limit]])

    async def _get_member(self, req: Req) -> web.Response:
        guild = self._guild(req)
        if isinstance(guild, web.Response):
            return guild
        member = guild.members.get(int(req.params["user_id"]))
        if member is None:
            return self._error(req, 404, 10007, "Unknown Member")
        return json_response(member.to_payload())
