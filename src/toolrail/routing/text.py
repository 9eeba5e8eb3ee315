"""Words for lexical routing: identifiers split, lower-cased, stop words dropped, stemmed."""

from __future__ import annotations

import re

from toolrail.routing.porter import porter

_WORD = re.compile(r"[A-Z]{2,}s(?![a-z])|[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
"""`getCurrentTime` -> get, Current, Time; `HTTPServer` -> HTTP, Server; `mcp__git__log` too.
An acronym's plural stays one word (`URLs`, `APIs`, `PDFs`, `NFTs` -> urls, apis, ...; the
stemmer then makes them url, api): split, `NFTs` became "nf" + "ts" and matched nothing."""

_STOP = """
a about above after again all also am an and any are as at be been before being below between
both but by can could did do does doing down during each else few for from further had has
have having he her here hers him his how i if in into is it its itself just let me more most my
no nor not of off on once only or other our ours out over own please same she should so some
such than that the their them then there these they this those through to too under until up
very via was we were what when where which while who whom why will with would you your yours
want wants need needs like tell give show find know help using use used get gets make one
"""
STOP_WORDS = frozenset(_STOP.split())
"""Function words and request filler ("please tell me", "I want", "help"): they name no tool."""


def identifier_words(text: str) -> list[str]:
    """`text` split into lower-case words, identifiers too, nothing dropped or stemmed.

    >>> identifier_words("getCurrentTime of mcp__git__log")
    ['get', 'current', 'time', 'of', 'mcp', 'git', 'log']
    >>> identifier_words("listAPIs for PDFs, getHTTPServer")
    ['list', 'apis', 'for', 'pdfs', 'get', 'http', 'server']
    """
    return [raw.lower() for raw in _WORD.findall(text)]


_CACHE: dict[str, str] = {}
_CACHE_SIZE = 100_000
"""Stems by raw token: a catalogue repeats a small vocabulary, so Porter runs once a word."""


def words(text: str) -> list[str]:
    """The stemmed content words of `text`, in order, repeats kept.

    >>> words("getCurrentTime for the HTTPServer, please")
    ['current', 'time', 'http', 'server']
    """
    out: list[str] = []
    cache = _CACHE
    for raw in _WORD.findall(text):
        stem = cache.get(raw)
        if stem is None:
            stem = _stem(raw)
            if len(cache) >= _CACHE_SIZE:
                cache.clear()
            cache[raw] = stem
        if stem:
            out.append(stem)
    return out


def _stem(raw: str) -> str:
    """The stem of one token, or "" for a stop word or a single character."""
    word = raw.lower()
    if len(word) < 2 or word in STOP_WORDS:
        return ""
    return word if word.isdigit() else porter(word)
