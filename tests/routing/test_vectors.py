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
    flights = Counter(words("search flights: Find flights between two airports."))
    index.add("search_flights", flights)
    index.add("get_invoice", Counter(words("get invoice: Read an invoice of a customer.")))
    query = words("book a plane ticket to Rome")
    found = index.similarities(query)
    assert math.isclose(found["search_flights"], cosine(plain(Counter(query)), plain(flights)))
    assert found["search_flights"] > found["get_invoice"]
    assert index.similarities(["zzzqx"]) == {}


def test_the_vectors_speak_only_where_the_words_do_not_decide() -> None:
    """When one tool has every request word any tool has, the lexical ranking decides (a
    REST-like request naming an endpoint's resource and enum value keeps its endpoint
    first: an outside review found the vectors overturning such winners); when the words
    are split across tools, the vectors join the ranking and say so."""
    tools = [
        definition_tool("watch_movie", "Stream a movie."),
        definition_tool("search_films", "Search films by title and year."),
    ]
    router = Router(ToolRegistry(tools))
    top = router.search("search for a film by its title")
    assert top[0].tool.name == "search_films"
    assert all("dense" not in m.explain for m in top)
    split = router.search("stream films")
    assert split
    assert all("dense" in m.explain for m in split)
    off = Router(ToolRegistry(tools), settings=RoutingSettings(dense=False))
    assert all("dense" not in m.explain for m in off.search("stream films"))


def test_a_clear_rest_winner_is_not_overturned() -> None:
    payouts = [
        definition_tool(
            "list_payouts",
            "List payouts.",
            {"type": "object", "properties": {"status": {"enum": ["paid", "failed"]}}},
        ),
        definition_tool("delete_payout", "Delete a payout."),
        definition_tool("update_payout", "Update a payout."),
        definition_tool("get_payout", "Get a payout by id."),
    ]
    top = Router(ToolRegistry(payouts)).search("which payouts are failed?", k=3)
    assert top[0].tool.name == "list_payouts"


def test_a_candidate_without_a_vector_is_neither_helped_nor_hurt() -> None:
    """A tool whose words the table does not know gets the candidates' mean cosine."""
    tools = [
        definition_tool("xrpl_gql", "Xrpl gql qzxv."),
        definition_tool("get_job_status", "Get the status of a job."),
    ]
    router = Router(ToolRegistry(tools))
    found = {m.tool.name: m.explain for m in router.search("xrpl gql status")}
    assert found["xrpl_gql"]["dense"] == found["get_job_status"]["dense"]
    assert router.search("xrpl gql status")[0].tool.name == "xrpl_gql"
