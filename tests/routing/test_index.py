"""LexicalIndex: stored weights stay in step with a catalogue that grows and shrinks."""

from __future__ import annotations

from toolrail.core.tool import AnyTool
from toolrail.routing.catalogue import definition_tool
from toolrail.routing.index import LexicalIndex

from .catalogue import obj, text, tools

QUERIES = (
    "weather in Oslo",
    "send an invoice to the customer",
    "email the team",
    "commits of the repository",
)


def ranking(index: LexicalIndex, query: str) -> list[str]:
    scores = index.score(query.split())
    return sorted(scores, key=lambda name: (-scores[name], name))[:5]


def filler(i: int) -> AnyTool:
    long = " ".join(f"word{j}" for j in range(40))
    return definition_tool(f"filler_{i}", f"Filler tool {i}: {long}", obj(x=text(long)))


def test_incremental_index_ranks_like_a_fresh_one() -> None:
    """Adding long tools (moving the average lengths) then removing them ranks as a fresh build."""
    grown, fresh = LexicalIndex(), LexicalIndex()
    for t in tools():
        grown.add(t)
        fresh.add(t)
    for q in QUERIES:
        grown.score(q.split())
    for i in range(50):
        grown.add(filler(i))
    for q in QUERIES:
        grown.score(q.split())
    for i in range(50):
        grown.remove(f"filler_{i}")
    for q in QUERIES:
        assert ranking(grown, q) == ranking(fresh, q)
        assert grown.score(q.split()) == fresh.score(q.split())


def test_replacing_a_tool_forgets_its_old_words() -> None:
    """A tool added again under the same name is found by its new words only."""
    index = LexicalIndex()
    index.add(definition_tool("thing", "Reads the weather."))
    index.add(definition_tool("thing", "Sends an invoice."))
    assert index.score(["weather"]) == {}
    assert set(index.score(["invoic"])) == {"thing"}
    assert index.terms("thing") == frozenset({"thing", "send", "invoic"})
