"""Router on small hand-made catalogues: ranking, nothing-relevant, penalties, filters, updates."""

from __future__ import annotations

import pytest
from returns.result import Failure, Success

from toolrail import (
    AgentToolTable,
    ExecutionContext,
    ExecutionFailed,
    Executor,
    Router,
    RoutingSettings,
    ToolCall,
    ToolRegistry,
    tool,
)
from toolrail.resilience import BreakerSettings, Resilience, RetrySettings
from toolrail.routing.catalogue import definition_tool

from .catalogue import obj, registry, text, tools

pytestmark = pytest.mark.anyio


def names(router: Router, query: str, k: int = 5, **kwargs: object) -> list[str]:
    return [m.tool.name for m in router.search(query, k=k, **kwargs)]  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("What's the weather like in Oslo right now?", "get_current_weather"),
        ("bill customer 42 for the consulting work, due next month", "createInvoice"),
        ("email the team that the release is out", "send_email"),
        ("what meetings do I have on my calendar on Friday?", "list_calendar_events"),
        ("translate 'good morning' into German", "translate_text"),
        ("show me the last 5 commits of this repository", "mcp__git__git_log"),
        ("find a flight from LHR to JFK on 3 May", "search_flights"),
        ("how much is 100 dollars in euros? convert it", "convert_currency"),
        ("make this picture 200 pixels wide", "resize_image"),
        ("where is my order 1234? it ships with dhl", "order_status"),
    ],
)
def test_plain_requests_rank_the_right_tool_first(query: str, expected: str) -> None:
    """Each plain request puts its tool first."""
    assert names(Router(registry()), query)[0] == expected


def test_compound_request_gets_both_tools() -> None:
    """A request needing two tools has both in the top 3."""
    top = names(Router(registry()), "translate this text to French and email it to Anna", k=3)
    assert {"translate_text", "send_email"} <= set(top)


def test_near_duplicates_do_not_crowd_out_the_second_tool() -> None:
    """Five near-identical weather tools leave room for the invoice a request also needs."""
    catalogue = registry()
    for i in range(5):
        catalogue.register(
            definition_tool(
                f"weather_mirror_{i}",
                "Current weather conditions for a city: temperature, wind, rain.",
                obj(city=text("city name")),
            )
        )
    query = "current weather, temperature, wind and rain in Oslo, then email it"
    # expansion off in both: it alone can lift send_email ('email' brings 'send'); this
    # is about diversity
    plain = RoutingSettings(expansion=0)
    assert "send_email" in names(Router(catalogue, settings=plain), query, k=3)
    crowded = RoutingSettings(expansion=0, diversity=0.0)
    # without diversity the mirrors take every place
    assert "send_email" not in names(Router(catalogue, settings=crowded), query, k=3)


@pytest.mark.parametrize(
    "query",
    [
        "who won the football world cup in 1998?",
        "tell me a joke about penguins",
        "",
        "please help me",
    ],
)
def test_irrelevant_request_returns_nothing(query: str) -> None:
    """A request no tool fits returns no tools, not five random ones."""
    assert Router(registry()).search(query, k=5) == ()


def test_weather_question_against_business_tools_returns_nothing() -> None:
    """The issue's own example: weather asked of a catalogue without a weather tool."""
    catalogue = ToolRegistry(t for t in tools() if "weather" not in t.name)
    assert Router(catalogue).search("what's the weather in Paris tomorrow?") == ()


def test_explain_shows_the_signals() -> None:
    """Each match carries its lexical score and the request words it matched."""
    [first, *_] = Router(registry()).search("convert 20 euros to yen")
    assert first.tool.name == "convert_currency"
    assert first.score > 0
    assert "convert" in first.explain["matched"]  # type: ignore[operator]
    assert {"bm25", "coverage", "redundancy"} <= set(first.explain)


async def test_a_tool_that_failed_in_this_conversation_is_penalised() -> None:
    """After a tool fails, it ranks below its twin in that conversation only."""

    @tool
    def ship_parcel(address: str) -> str:
        """Ship a parcel to an address."""
        raise RuntimeError("carrier down")

    @tool
    def ship_package(address: str) -> str:
        """Ship a package to an address."""
        return "shipped"

    catalogue = registry()
    catalogue.register(ship_parcel)
    catalogue.register(ship_package)
    # twins on their words: no expansion, no word vectors (they tell parcel from package)
    router = Router(catalogue, settings=RoutingSettings(expansion=0, dense=False))
    executor = Executor(catalogue, sinks=[router.observe], resilience=Resilience.off())
    ctx = ExecutionContext(agent="a", conversation_id="c1")
    query = "ship this to 1 Main St"
    assert names(router, query, ctx=ctx)[0] == "ship_parcel"
    outcome = await executor.run(ToolCall(name="ship_parcel", arguments={"address": "x"}), ctx)
    assert isinstance(outcome.result, Failure)
    assert isinstance(outcome.result.failure(), ExecutionFailed)
    ranked = {m.tool.name: m for m in router.search(query, ctx=ctx)}
    assert next(iter(ranked)) == "ship_package"
    assert ranked["ship_parcel"].explain["failed_in_conversation"] == 0.5
    other = ExecutionContext(agent="a", conversation_id="c2")
    assert names(router, query, ctx=other)[0] == "ship_parcel"


async def test_a_refused_call_is_not_the_tools_fault() -> None:
    """Invalid arguments are the model's mistake: no penalty for the tool."""
    router = Router(registry())
    executor = Executor(router.registry, sinks=[router.observe])
    ctx = ExecutionContext(agent="a", conversation_id="c")
    await executor.run(ToolCall(name="createInvoice", arguments={"customer_id": 3}), ctx)
    [first, *_] = router.search("create an invoice", ctx=ctx)
    assert "failed_in_conversation" not in first.explain


async def test_open_circuit_excludes_the_tool() -> None:
    """A tool behind an open circuit is not offered, with or without an agent."""

    @tool
    def flaky_backup(path: str) -> str:
        """Back up a folder to the cloud."""
        raise RuntimeError("down")

    @tool
    def tape_backup(path: str) -> str:
        """Back up a folder to tape."""
        return "ok"

    catalogue = ToolRegistry([flaky_backup, tape_backup])
    resilience = Resilience(
        retry=RetrySettings(attempts=1),
        breakers=BreakerSettings(consecutive_failures=1, cooldown_s=3600),
    )
    executor = Executor(catalogue, resilience=resilience)
    router = Router(catalogue, executor=executor)
    ctx = ExecutionContext(agent="a")
    assert "flaky_backup" in names(router, "back up my folder", agent="a")
    await executor.run(ToolCall(name="flaky_backup", arguments={"path": "/x"}), ctx)
    assert executor.circuit_state("flaky_backup") == "open"
    assert names(router, "back up my folder", agent="a") == ["tape_backup"]
    assert names(router, "back up my folder") == ["tape_backup"]


def test_agent_sees_only_what_it_may_call() -> None:
    """The agent table, permissions and rules of the executor filter the matches."""

    @tool(permissions=["net:outbound"])
    def fetch_weather_online(city: str) -> str:
        """Weather for a city from the internet."""
        return "sun"

    catalogue = registry()
    catalogue.register(fetch_weather_online)
    table = AgentToolTable({"billing": ["createInvoice", "send_email"], "all": ["*"]})
    executor = Executor(catalogue, agents=table)
    router = Router(catalogue, executor=executor)
    assert names(router, "weather in Rome", agent="billing") == []
    billing = names(router, "invoice and email", agent="billing")
    assert set(billing) == {"createInvoice", "send_email"}
    visible = names(router, "weather in Rome", agent="all", permissions=frozenset())
    assert "get_current_weather" in visible
    assert "fetch_weather_online" not in visible  # no net:outbound permission granted
    granted = ExecutionContext(agent="all", permissions=frozenset({"net:outbound"}))
    assert "fetch_weather_online" in names(router, "weather in Rome", ctx=granted)
    no_executor = Router(catalogue, agents=table)
    assert names(no_executor, "weather in Rome", agent="billing") == []


def test_pinned_tools_always_come_first() -> None:
    """Pinned tools lead every answer, even an empty one, but never past the agent table."""
    catalogue = registry()
    table = AgentToolTable({"a": ["*"], "b": ["!send_email", "*"]})
    router = Router(catalogue, pinned=["send_email"], agents=table)
    ranked = router.search("convert dollars to euros", k=2)
    assert [m.tool.name for m in ranked][:2] == ["send_email", "convert_currency"]
    assert ranked[0].explain == {"pinned": True}
    assert names(router, "tell me a joke") == ["send_email"]
    assert names(router, "tell me a joke", agent="b") == []


def test_deprecated_tools_are_penalised() -> None:
    """A deprecated twin ranks after the current one, and says why."""
    catalogue = ToolRegistry(
        [
            definition_tool("refund_v1", "Deprecated: refund a payment.", tags=frozenset()),
            definition_tool("refund_v2", "Refund a payment."),
        ]
    )
    ranked = Router(catalogue).search("refund the payment")
    assert [m.tool.name for m in ranked] == ["refund_v2", "refund_v1"]
    assert ranked[1].explain["deprecated"] == 0.5


def test_index_follows_register_and_unregister() -> None:
    """Registering or removing a tool changes the next answer, without a rebuild."""
    catalogue = registry()
    router = Router(catalogue)
    assert names(router, "play a song on spotify") == []
    catalogue.register(definition_tool("play_song", "Play a song on Spotify."))
    assert names(router, "play a song on spotify") == ["play_song"]
    assert len(router.index) == len(catalogue)
    assert isinstance(catalogue.unregister("play_song"), Success)
    assert names(router, "play a song on spotify") == []
    assert "play_song" not in router.index
    router.close()
    catalogue.register(definition_tool("play_song", "Play a song on Spotify."))
    assert names(router, "play a song on spotify") == ["play_song"]  # caught up on search


def test_router_over_a_raw_json_schema_catalogue_reads_enums() -> None:
    """Enum values and parameter names are words a request can match."""
    assert names(Router(registry()), "imperial units please", k=1) == ["get_current_weather"]


def test_example_and_default_values_are_words_a_request_can_repeat() -> None:
    """A REST-like request repeats a parameter's values ("EUR", "metric"): enum values were
    read, example and default values were not. A sample document is still not read."""
    rates = definition_tool(
        "get_rates",
        "Latest rates for a base.",
        obj(
            base=text("base", examples=["USD", "EUR"]),
            fmt=text("output", example="ndjson"),
            sample=text("a sample", default="lorem ipsum " * 10 + "invoice"),
        ),
    )
    other = definition_tool("get_news", "Latest news for a topic.", obj(topic=text("topic")))
    router = Router(ToolRegistry([rates, other]))
    assert names(router, "latest EUR", k=1) == ["get_rates"]
    assert names(router, "latest as ndjson", k=1) == ["get_rates"]
    assert "invoic" not in router.index.terms("get_rates")
