"""The shipped word vectors: packed big-int sums equal plain sums; cosines are cosines."""

from __future__ import annotations

import math
from collections import Counter

from toolrail import ToolRegistry
from toolrail.routing import Router, RoutingSettings
from toolrail.routing.catalogue import definition_tool
from toolrail.routing.text import words
from toolrail.routing.vectors import VectorIndex, word_vectors


def plain(counts: Counter[str]) -> list[float]:
    table = word_vectors()
    total = [0.0] * table.dims
    for term, count in counts.items():
        row = table.row(term)
        if row is not None:
            total = [t + count * x * s for t, x, s in zip(total, row, table.scales, strict=True)]
    return total


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True)) / math.sqrt(
        sum(x * x for x in a) * sum(y * y for y in b)
    )


def test_packed_sums_are_the_plain_sums() -> None:
    table = word_vectors()
    counts = Counter(words("Search flights between airports; search fares, flights and prices"))
    found = table.embed(counts)
    assert found is not None
    fields, inverse = found
    expected = [0] * table.dims
    for term, count in counts.items():
        row = table.row(term)
        if row is not None:
            expected = [e + count * x for e, x in zip(expected, row, strict=True)]
    assert list(fields) == expected
    length = math.sqrt(sum((x * s) ** 2 for x, s in zip(expected, table.scales, strict=True)))
    assert math.isclose(1.0 / inverse, length)


def test_similarities_are_cosines_and_related_words_are_closer() -> None:
    index = VectorIndex()
    index.add_tool(definition_tool("search_flights", "Find flights between two airports."))
    index.add_tool(definition_tool("get_invoice", "Read an invoice of a customer."))
    query = words("book a plane ticket to Rome")
    found = index.similarities(query)
    flights = Counter(words("search flights: Find flights between two airports."))
    assert math.isclose(found["search_flights"], cosine(plain(Counter(query)), plain(flights)))
    assert found["search_flights"] > found["get_invoice"]
    assert index.similarities(["zzzqx"]) == {}


def test_a_clear_lexical_winner_stays_ahead_and_dense_can_be_turned_off() -> None:
    tools = [
        definition_tool("watch_movie", "Stream a movie."),
        definition_tool("search_films", "Search films by title and year."),
    ]
    router = Router(ToolRegistry(tools))
    top = router.search("search for a film by its title")
    assert top[0].tool.name == "search_films"
    assert "dense" in top[0].explain
    off = Router(ToolRegistry(tools), settings=RoutingSettings(dense=False))
    assert all("dense" not in m.explain for m in off.search("search for a film"))
