"""What an operator watches, as Prometheus metrics: every definition is here, fed by one call at
each place that already knows the figure (the transport's answers, the service's saves, the
interactions' arrival and refusals, the gateway's events), and served by `bot.ops.serve`.

The hooks run on the hot path (a move makes about three REST calls): each is a few dictionary
look-ups and a counter's increment, with the labelled children cached here rather than asked of
prometheus_client each time. What the bot already counts (the REST budget, the running games, the
gateway's heartbeat) is read only when Prometheus scrapes (`Live`), so it costs nothing between.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Protocol

from prometheus_client import REGISTRY, Counter, Histogram, disable_created_metrics
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

# No `_created` series beside each counter and histogram: half the scrape, read by nobody.
disable_created_metrics()  # type: ignore[no-untyped-call]

INTERACTIONS = Counter("spades_interactions", "Interactions by kind (command, button) and outcome: ok (answered), "
                       "refused (told why not), failed (an error on the bot's side), unanswered (no answer in 3 s)",
                       ["kind", "outcome"])
ACK_SECONDS = Histogram("spades_interaction_ack_seconds", "From an interaction's creation at Discord (its id) to "
                        "Discord accepting the bot's answer; Discord drops what is not answered within 3 s",
                        buckets=(0.01, 0.025, 0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1.0, 1.5, 2.0, 2.5, 3.0, 5.0))
REST_CALLS = Counter("spades_rest_calls", "Discord REST answers by kind of call (method and route, ids left out) "
                     "and HTTP status", ["kind", "status"])
RATE_LIMITED = Counter("spades_rest_429s", "429 answers by scope: user (a route's bucket), shared, global, or "
                       "edge (Cloudflare's ban, not Discord's rate-limit answer)", ["scope"])
SAVE_SECONDS = Histogram("spades_store_save_seconds", "One saved action (its events, next timer and owed posts "
                         "in one write)", buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
                                                   1.0, 2.5))
GATEWAY_EVENTS = Counter("spades_gateway_events", "Gateway sessions: connect (a new session, READY), resumed, "
                         "disconnect (each is followed by a reconnection)", ["event"])
ERRORS = Counter("spades_log_errors", "Log records at ERROR or above, by logger", ["logger"])

UNANSWERED_AFTER = 3.0  # seconds: Discord's window for an interaction's answer
PENDING_KEPT = 10_000  # interactions awaiting their answer, at most (the oldest are counted unanswered)
DISCORD_EPOCH = 1_420_070_400.0  # seconds, the zero of a snowflake's timestamp
_COMMAND, _COMPONENT = 2, 3  # interaction types


def _children(metric: Counter, *labels: str) -> Callable[[str], Any]:
    """A cached look-up of `metric`'s child for `labels` + (last label,): no label tuple per call."""
    cache: dict[str, Any] = {}

    def child(last: str) -> Any:
        found = cache.get(last)
        if found is None:
            found = cache[last] = metric.labels(*labels, last)
        return found

    return child


_rest: dict[str, Callable[[str], Any]] = {}
_interactions: dict[str, Callable[[str], Any]] = {}
_pending: dict[int, str] = {}  # interaction id -> its kind, until it is answered
_button_kinds: frozenset[str] = frozenset()


def rest_kind(method: str, url: str) -> str:
    """`PATCH webhooks/messages` for `PATCH https://…/api/v10/webhooks/{app}/{token}/messages/{id}?wait=1`:
    the route's words, without ids, tokens, `@me` or the API's version (a bounded set of labels)."""
    start = url.find("/", url.find("//") + 2) if "//" in url else 0
    end = url.find("?", start)
    path = url[start:end] if end >= 0 else url[start:]
    words = [part for part in path.split("/") if part.isalpha() and part.islower() and len(part) <= 20]
    if words and words[0] == "api":
        del words[0]
    return f"{method} {'/'.join(words)}"


def rest_answered(method: str, url: str, status: int, headers: Mapping[str, str], kind: str | None = None) -> None:
    """The transport got an answer from Discord (the fast path's calls and discord.py's alike);
    `kind` is `rest_kind(method, url)`, given by a caller that knows it without reading the URL."""
    if kind is None:
        kind = rest_kind(method, url)
    by_status = _rest.get(kind)
    if by_status is None:
        by_status = _rest[kind] = _children(REST_CALLS, kind)
    by_status(str(status)).inc()
    if status == 429:
        scope = headers.get("x-ratelimit-scope") or (
            "global" if headers.get("x-ratelimit-global", "").lower() == "true" else "edge")
        RATE_LIMITED.labels(scope if scope in ("user", "shared", "global") else "edge").inc()
    elif status < 300 and kind.endswith("interactions/callback"):
        _answered(url)


def use_button_kinds(kinds: Iterable[str]) -> None:
    """The button kinds (`card` of `spades:card:…`) counted by name; any other custom_id is `button:other`,
    so a forged click can't add labels."""
    global _button_kinds
    _button_kinds = frozenset(kinds)


def interaction_kind(interaction: Any) -> str:
    """`/spades new`, `button:card`, `autocomplete`…: what the person did, from a bounded set."""
    data = interaction.data or {}
    if interaction.type.value == _COMPONENT:
        custom_id = str(data.get("custom_id", ""))
        start = custom_id.find(":") + 1
        word = custom_id[start:custom_id.find(":", start)]
        return f"button:{word if word in _button_kinds else 'other'}"
    if interaction.type.value == _COMMAND:
        names = [str(data.get("name", ""))]
        options = data.get("options") or []
        while options and isinstance(options[0], dict) and options[0].get("type") in (1, 2):  # subcommand (group)
            names.append(str(options[0].get("name", "")))
            options = options[0].get("options") or []
        return "/" + " ".join(names)[:60]
    return str(interaction.type.name)


def interaction_received(interaction: Any) -> None:
    """An interaction arrived: its outcome is counted when it is answered, refused, or never answered."""
    _pending[interaction.id] = interaction_kind(interaction)
    oldest = next(iter(_pending))
    if len(_pending) > PENDING_KEPT or _age(oldest) > UNANSWERED_AFTER:
        _sweep()


def interaction_refused(interaction: Any, refusal: bool) -> None:
    """A refusal (`refusal`) or a failure is about to be told to the person."""
    kind = _pending.pop(interaction.id, None) or interaction_kind(interaction)
    _outcome(kind, "refused" if refusal else "failed")


def _answered(url: str) -> None:
    """Discord accepted an interaction's answer (`/interactions/{id}/{token}/callback`)."""
    parts = url.rsplit("/", 4)
    try:
        interaction_id = int(parts[-3])
    except (IndexError, ValueError):
        return
    ACK_SECONDS.observe(max(0.0, _age(interaction_id)))
    kind = _pending.pop(interaction_id, None)
    if kind is not None:  # else refused already, or answered twice
        _outcome(kind, "ok")


def _outcome(kind: str, outcome: str) -> None:
    by_outcome = _interactions.get(kind)
    if by_outcome is None:
        by_outcome = _interactions[kind] = _children(INTERACTIONS, kind)
    by_outcome(outcome).inc()


def _age(snowflake: int) -> float:
    return time.time() - ((snowflake >> 22) / 1000 + DISCORD_EPOCH)


def _sweep() -> None:
    """Count as unanswered the interactions past Discord's window (ids are in time order)."""
    while _pending:
        oldest = next(iter(_pending))
        if len(_pending) <= PENDING_KEPT and _age(oldest) <= UNANSWERED_AFTER:
            return
        _outcome(_pending.pop(oldest), "unanswered")


def gateway_event(event: str) -> None:
    GATEWAY_EVENTS.labels(event).inc()


class ErrorCount(logging.Handler):
    """Counts the log's errors by logger (what an operator would otherwise find only by reading)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)

    def emit(self, record: logging.LogRecord) -> None:
        ERRORS.labels(record.name).inc()


class Budget(Protocol):
    rate: float
    waited: float
    spent: Mapping[Any, int]

    @property
    def queued(self) -> int: ...


class Live(Collector):
    """Figures read at each scrape from what the bot keeps anyway: the REST budget, the running
    games and the gateway. `watch` points it at a running bot's parts (tests run several in turn)."""

    def __init__(self) -> None:
        self._budget: Callable[[], Budget | None] = lambda: None
        self._games: Callable[[], Iterable[Any]] = tuple
        self._latencies: Callable[[], Iterable[tuple[int, float]]] = tuple

    def watch(self, budget: Callable[[], Budget | None], games: Callable[[], Iterable[Any]],
              latencies: Callable[[], Iterable[tuple[int, float]]]) -> None:
        self._budget, self._games, self._latencies = budget, games, latencies

    def collect(self) -> Iterator[Metric]:
        budget = self._budget()
        if budget is not None:
            calls = CounterMetricFamily("spades_rest_budget_calls", "REST calls counted against the token's global "
                                        "limit, by priority", labels=["priority"])
            for priority, count in budget.spent.items():
                calls.add_metric([getattr(priority, "name", str(priority)).lower()], count)
            yield calls
            yield CounterMetricFamily("spades_rest_budget_wait_seconds", "Seconds counted calls waited for the "
                                      "budget, summed", value=budget.waited)
            yield GaugeMetricFamily("spades_rest_budget_queued", "Counted calls waiting for the budget now",
                                    value=budget.queued)
            yield GaugeMetricFamily("spades_rest_budget_rate", "Counted calls a second the budget allows",
                                    value=budget.rate)
        games = GaugeMetricFamily("spades_games", "Games this process runs, by mode and status (lobby, playing)",
                                  labels=["mode", "status"])
        counts: dict[tuple[str, str], int] = {}
        for live in self._games():
            key = (str(live.mode), str(live.status))
            counts[key] = counts.get(key, 0) + 1
        for (mode, status), count in sorted(counts.items()):
            games.add_metric([mode, status], count)
        yield games
        latency = GaugeMetricFamily("spades_gateway_latency_seconds", "The gateway's heartbeat round trip, by shard",
                                    labels=["shard"])
        for shard, seconds in self._latencies():
            if math.isfinite(seconds):
                latency.add_metric([str(shard)], seconds)
        yield latency


LIVE = Live()
REGISTRY.register(LIVE)
