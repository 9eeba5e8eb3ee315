"""ToolRegistry and AgentToolTable."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from returns.result import Failure, Success

from toolrail import (
    AgentToolTable,
    DuplicateToolError,
    NotAllowed,
    ToolAnnotations,
    ToolRegistry,
    UnknownTool,
    tool,
)


@tool(tags=["fs"], annotations=ToolAnnotations(read_only=True))
def read_path(path: str) -> str:
    """Read a file."""
    return path


@tool(tags=["fs"])
def write_context_file(path: str, text: str) -> str:
    """Write a context file."""
    return path


@tool(name="mcp__fetch__fetch")
def fetch(url: str) -> str:
    """Fetch a URL."""
    return url


def registry() -> ToolRegistry:
    return ToolRegistry([read_path, write_context_file, fetch])


def test_get_returns_a_result() -> None:
    """Known names give Success(tool); unknown ones UnknownTool with close suggestions."""
    tools = registry()
    assert tools.get("read_path") == Success(read_path)
    match tools.get("read_pth"):
        case Failure(UnknownTool(name="read_pth", suggestions=suggestions, message=message)):
            assert suggestions == ("read_path",)
            assert "did you mean read_path" in message
        case other:
            raise AssertionError(other)


def test_duplicate_names_fail_loudly_with_a_fix() -> None:
    """Registering a second tool under a taken name raises and says what to do."""
    tools = registry()
    with pytest.raises(DuplicateToolError, match=r"already registered.*rename one"):
        tools.register(read_path)


def test_unregister() -> None:
    """A removed tool is gone; removing it twice is an UnknownTool value."""
    tools = registry()
    assert tools.unregister("read_path") == Success(read_path)
    assert "read_path" not in tools
    assert isinstance(tools.unregister("read_path"), Failure)


def test_list_filters_by_tags_annotations_and_predicate() -> None:
    """Filtering by tags, read-only hint, and any predicate."""
    tools = registry()
    assert tools.list(tags=["fs"]) == (read_path, write_context_file)
    assert tools.list(read_only=True) == (read_path,)
    assert tools.list(where=lambda t: t.name.startswith("mcp__")) == (fetch,)
    assert len(tools) == 3
    assert tools.names() == ("read_path", "write_context_file", "mcp__fetch__fetch")


def test_agent_table_globs_and_exclusions() -> None:
    """Glob patterns pick tools; `!pattern` takes some back; `*` is the default entry."""
    table = AgentToolTable(
        {"planner": ["read_*"], "web": ["mcp__fetch__*"], "pm": ["*", "!write_*"]}
    )
    tools = registry()
    assert table.visible("planner", tools) == (read_path,)
    assert table.visible("web", tools) == (fetch,)
    assert table.visible("pm", tools) == (read_path, fetch)
    assert table.visible("stranger", tools) == ()
    assert AgentToolTable({"*": ["read_path"]}).allows("anyone", "read_path")


def test_agent_table_check_says_why() -> None:
    """Calls outside the table are NotAllowed, naming agent and tool."""
    table = AgentToolTable({"planner": ["read_*"]})
    assert table.check("planner", "read_path") == Success(None)
    match table.check("planner", "write_context_file"):
        case Failure(NotAllowed(tool=tool_name, agent=agent, message=message)):
            assert (tool_name, agent) == ("write_context_file", "planner")
            assert "may not call" in message
        case other:
            raise AssertionError(other)
    assert "no entry" in table.check("ghost", "read_path").failure().message


def test_agent_table_from_toml(tmp_path: Path) -> None:
    """Tables load from the [agents] section of a toolrail.toml."""
    config = tmp_path / "toolrail.toml"
    config.write_text('[agents.planner]\ntools = ["read_path", "mcp__*"]\n')
    table = AgentToolTable.from_toml(config)
    assert table.allows("planner", "mcp__time__now")
    assert not table.allows("planner", "write_context_file")


def test_a_single_string_is_not_a_pattern_list() -> None:
    """`{"a": "read_*"}` is a mistake worth a clear error."""
    with pytest.raises(TypeError, match="list of patterns"):
        AgentToolTable({"a": "read_*"})


NAMES = st.from_regex(r"[a-z_]{1,12}", fullmatch=True)


@given(st.lists(NAMES, max_size=5), NAMES)
def test_exclusions_always_win(patterns: list[str], name: str) -> None:
    """Whatever else an entry says, `!name` keeps that name out."""
    table = AgentToolTable({"a": [*patterns, "*", f"!{name}"]})
    assert not table.allows("a", name)


def test_subscribe_tells_each_change_until_unsubscribed() -> None:
    """A listener hears register and unregister, in order, and nothing once unsubscribed."""
    from toolrail import ToolRegistry, tool

    @tool
    def ping() -> str:
        """Answer pong."""
        return "pong"

    heard: list[tuple[str, str]] = []
    registry = ToolRegistry()
    stop = registry.subscribe(lambda change, found: heard.append((change, found.name)))
    registry.register(ping)
    registry.unregister("ping")
    stop()
    registry.register(ping)
    assert heard == [("register", "ping"), ("unregister", "ping")]


def test_registering_a_local_tool_is_an_event() -> None:
    """An executor's sinks hear of local tools registered and removed after it was made."""
    from toolrail import Executor
    from toolrail.recording.events import ToolEvent, ToolRegistered, ToolUnregistered

    @tool
    def late(x: int) -> int:
        """Come late."""
        return x

    registry = ToolRegistry()
    events: list[ToolEvent] = []
    Executor(registry, sinks=[events.append])  # gone at once: the registry holds it weakly
    gc.collect()
    executor = Executor(registry, sinks=[events.append])
    registry.register(late)
    registry.unregister("late")
    assert [
        (type(e), e.tool) for e in events if isinstance(e, ToolRegistered | ToolUnregistered)
    ] == [
        (ToolRegistered, "late"),
        (ToolUnregistered, "late"),
    ]
    assert executor.registry is registry


def test_the_tools_a_registry_holds_already_are_announced_to_a_new_executors_sinks() -> None:
    """`Executor(ToolRegistry([a, b]), sinks=...)`: the sinks hear of `a` and `b` too, once,
    as they hear of a tool registered later (found by an outside review: they never did)."""
    from toolrail import Executor
    from toolrail.recording.events import ToolEvent, ToolRegistered

    @tool
    def first(x: int) -> int:
        """First."""
        return x

    @tool
    def second(x: int) -> int:
        """Second."""
        return x

    events: list[ToolEvent] = []
    Executor(ToolRegistry([first, second]), sinks=[events.append])
    assert len(events) == 2
    assert [(type(e), e.tool) for e in events if isinstance(e, ToolRegistered)] == [
        (ToolRegistered, "first"),
        (ToolRegistered, "second"),
    ]


@given(
    asks=st.lists(
        st.tuples(
            st.sampled_from(["planner", "web", "pm", "nobody"]),
            st.sampled_from(["read_path", "read_x", "mcp__fetch__get", "shell", "complete"]),
        ),
        max_size=40,
    )
)
def test_a_tables_answers_stay_the_same_however_often_they_are_asked(
    asks: list[tuple[str, str]],
) -> None:
    """`allows` remembers its answers: asked again, in any order, for any agent, a table
    answers as a table made afresh does."""
    entries = {"planner": ["read_*", "complete"], "web": ["mcp__fetch__*"], "*": ["complete"]}
    table = AgentToolTable(entries)
    for agent, name in asks:
        assert table.allows(agent, name) == AgentToolTable(entries).allows(agent, name)
