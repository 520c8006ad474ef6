"""The bot's HTTP client behind a relay that forgets idle connections without a word, as cloud
NAT gateways and load balancers do: its writes on a forgotten connection vanish, and nothing
ever comes back. The client must not reuse a connection idle longer than its `idle_expiry`,
set below the relay's forget time, so the call after a quiet spell goes on a fresh one."""

from __future__ import annotations

from devkit.nginx import NginxFactory, RecordingUpstream
from devkit.relay import RelayFactory

from .support import ClientFactory, within

FORGET_AFTER = 1.0  # the relay's
IDLE_EXPIRY = 0.5  # the client's, below it


async def test_the_call_after_a_quiet_spell_longer_than_the_relay_remembers_is_answered_at_once(
        nginx_factory: NginxFactory, recording_upstream: RecordingUpstream, relay_factory: RelayFactory,
        make_client: ClientFactory) -> None:
    nginx = nginx_factory(recording_upstream.port, keepalive_timeout=60.0, keepalive_requests=100)
    relay = await relay_factory(nginx.https_port, forget_after=FORGET_AFTER)
    client = make_client(idle_expiry=IDLE_EXPIRY)
    url = f"https://localhost:{relay.port}"
    for i in range(3):
        assert (await within(1.0, client.request("POST", f"{url}/before/{i}", b"%d" % i, b""))).status == 200
    await relay.wait_until(lambda relay: relay.forgotten == relay.connections)  # the quiet spell
    reply = await within(2.0, client.request("POST", f"{url}/after", b"after", b""))
    assert reply.status == 200
    assert [(d.path, d.body) for d in recording_upstream.deliveries_to("/after")] == [("/after", b"after")]
