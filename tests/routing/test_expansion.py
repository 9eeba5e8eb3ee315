"""Query expansion: the packaged neighbour table, `expand`, and the router on small catalogues."""

from __future__ import annotations

from toolrail import Router, RoutingSettings, ToolRegistry
from toolrail.routing.catalogue import definition_tool
from toolrail.routing.expansion import MAX_NEIGHBOURS, MIN_SIMILARITY, expand, neighbours, parse

from .catalogue import obj, text, tools


def media_tools() -> ToolRegistry:
    return ToolRegistry(
        [
            definition_tool(
                "search_movies", "Search movies by title.", obj(title=text("the title"))
            ),
            definition_tool("search_books", "Search books by title.", obj(title=text("the title"))),
            definition_tool(
                "send_invoice", "Email an invoice to a customer.", obj(customer=text("who"))
            ),
        ]
    )


def test_parse_reads_neighbours_and_keeps_only_close_ones() -> None:
    """Comments are skipped; a neighbour below the threshold or past the limit is dropped."""
    far = MIN_SIMILARITY - 0.01
    many = " ".join(f"w{i}:0.9" for i in range(MAX_NEIGHBOURS + 2))
    table = parse(f"# header\nmovi\tfilm:0.83 cinema:0.66 plot:{far}\nlone\tx:{far}\nbig\t{many}\n")
    assert table["movi"] == (("film", 0.83), ("cinema", 0.66))
    assert "lone" not in table
    assert len(table["big"]) == MAX_NEIGHBOURS


def test_expand_adds_neighbours_not_the_request_words_themselves() -> None:
    """A neighbour already in the request is not added; a neighbour of two words keeps the
    closer one, and says which word brought it."""
    table = {"movi": (("film", 0.8), ("cinema", 0.6)), "theatr": (("cinema", 0.7),)}
    assert expand(["movi", "film"], table) == {"cinema": (0.6, "movi")}
    assert expand(["movi", "theatr"], table) == {"film": (0.8, "movi"), "cinema": (0.7, "theatr")}
    assert expand(["unknown"], table) == {}


def test_the_packaged_table_knows_common_synonyms() -> None:
    """The shipped table loads (lazily, once) and holds everyday synonyms, stemmed."""
    table = neighbours()
    assert table is neighbours()
    assert dict(table["movi"])["film"] >= MIN_SIMILARITY
    assert "purchas" in dict(table["bui"])
    assert all(
        MIN_SIMILARITY <= cosine <= 1.0 and len(near) <= MAX_NEIGHBOURS
        for near in table.values()
        for _, cosine in near
    )


def test_a_synonym_picks_the_right_tool_and_says_so() -> None:
    """'film' is not in either search tool's text: the expansion to 'movie' ranks the movie
    search first, and `explain` shows the word it came from."""
    [first, second, *_] = Router(media_tools()).search("search for a film by its title")
    assert (first.tool.name, second.tool.name) == ("search_movies", "search_books")
    assert first.explain["expanded"] == {"movi": {"from": "film", "cosine": 0.82}}
    assert "expanded" not in second.explain
    assert first.explain["matched"] == ["search", "titl"]  # the request's own words only


def test_expansion_can_be_turned_off() -> None:
    """With `expansion=0` the two search tools tie on the request's own words."""
    router = Router(media_tools(), settings=RoutingSettings(expansion=0, dense=False))
    matches = router.search("search for a film by its title")
    assert all("expanded" not in m.explain for m in matches)
    assert matches[0].score == matches[1].score


def test_expansion_words_alone_do_not_make_a_request_relevant() -> None:
    """Only the request's own words count for "nothing relevant": a request whose only link
    to a tool is a neighbour ('film' -> movie) still gets nothing."""
    assert Router(media_tools()).search("recommend a good film") == ()
    catalogue = ToolRegistry(t for t in tools() if "weather" not in t.name)
    # weather's neighbours (temperature, rain) are in no tool left, and never count anyway
    assert Router(catalogue).search("what's the weather in Paris tomorrow?") == ()
