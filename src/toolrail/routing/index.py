"""`LexicalIndex`: BM25F over a tool's fields, kept up to date one tool at a time."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping

from toolrail.core.tool import AnyTool
from toolrail.routing.text import words

FIELDS = ("name", "tags", "parameters", "description", "parameter_text")
FIELD_WEIGHTS = (3.0, 2.0, 1.5, 1.0, 0.5)
"""How much a word counts by where it appears. The name is chosen to say what the tool does;
tags and the MCP server name are chosen labels; parameter names and enum values are the
nouns a request fills in; the description is prose; parameter descriptions are prose about
one argument. Fixed by that reading, not fitted to a benchmark."""
K1 = 1.2
B = 0.75
"""The usual BM25 constants (Robertson & Zaragoza, 2009)."""
MAX_DEPTH = 6
"""How deep nested parameter schemas are read: deeper text is rarely what a request names."""


def tool_fields(tool: AnyTool) -> tuple[list[str], ...]:
    """The words of each field in `FIELDS` for `tool`."""
    names: list[str] = []
    prose: list[str] = []
    _walk(_safe_schema(tool), names, prose, depth=0)
    own_name, server = tool.name, ""
    if tool.name.startswith("mcp__") and tool.name.count("__") >= 2:
        _, server, own_name = tool.name.split("__", 2)
    labels = " ".join([*sorted(tool.tags), server, tool.annotations.title or ""])
    texts = (own_name, labels, " ".join(names), tool.description, " ".join(prose))
    return tuple(words(text) for text in texts)


def _safe_schema(tool: AnyTool) -> Mapping[str, object]:
    try:
        return tool.input_schema()
    except Exception:  # a schema that cannot be built still leaves name and description
        return {}


def _walk(node: object, names: list[str], prose: list[str], depth: int) -> None:
    if depth > MAX_DEPTH or not isinstance(node, Mapping):
        return
    properties = node.get("properties")
    if isinstance(properties, Mapping):
        for key, sub in properties.items():
            names.append(str(key))
            if isinstance(sub, Mapping):
                _describe(sub, names, prose)
                _walk(sub, names, prose, depth + 1)
    for key in ("items", "additionalProperties"):
        _walk(node.get(key), names, prose, depth + 1)
    for key in ("anyOf", "oneOf", "allOf"):
        options = node.get(key)
        if isinstance(options, list):
            for option in options:
                _walk(option, names, prose, depth + 1)
    defs = node.get("$defs")
    if isinstance(defs, Mapping):
        for sub in defs.values():
            _walk(sub, names, prose, depth + 1)


def _describe(prop: Mapping[str, object], names: list[str], prose: list[str]) -> None:
    for key in ("description", "title"):
        text = prop.get(key)
        if isinstance(text, str):
            prose.append(text)
    values = prop.get("enum")
    if isinstance(values, list):
        names.extend(str(v) for v in values if isinstance(v, str | int))


class LexicalIndex:
    """BM25F (Robertson, Zaragoza & Taylor, 2004): per-field counts, weighted and length-
    normalised per field, saturated once. Adding or removing a tool touches only its words."""

    def __init__(self) -> None:
        self._postings: dict[str, dict[str, tuple[tuple[int, int], ...]]] = {}
        self._lengths: dict[str, tuple[int, ...]] = {}
        self._terms: dict[str, frozenset[str]] = {}
        self._totals = [0] * len(FIELDS)
        self._vectors: dict[str, dict[str, float]] = {}

    def __len__(self) -> int:
        return len(self._lengths)

    def __contains__(self, name: object) -> bool:
        return name in self._lengths

    def names(self) -> Iterator[str]:
        return iter(tuple(self._lengths))

    def add(self, tool: AnyTool) -> None:
        """Index `tool` (replacing an earlier entry of the same name)."""
        if tool.name in self._lengths:
            self.remove(tool.name)
        self._vectors.clear()  # idf moved for every word this tool has
        per_field = [Counter(terms) for terms in tool_fields(tool)]
        lengths = tuple(sum(c.values()) for c in per_field)
        merged: dict[str, list[tuple[int, int]]] = {}
        for index, counts in enumerate(per_field):
            for term, count in counts.items():
                merged.setdefault(term, []).append((index, count))
        for term, pairs in merged.items():
            self._postings.setdefault(term, {})[tool.name] = tuple(pairs)
        self._lengths[tool.name] = lengths
        self._terms[tool.name] = frozenset(merged)
        for index, length in enumerate(lengths):
            self._totals[index] += length

    def remove(self, name: str) -> None:
        """Forget the tool called `name` (nothing happens if it is not indexed)."""
        lengths = self._lengths.pop(name, None)
        if lengths is None:
            return
        self._vectors.clear()
        for term in self._terms.pop(name):
            posting = self._postings[term]
            del posting[name]
            if not posting:
                del self._postings[term]
        for index, length in enumerate(lengths):
            self._totals[index] -= length

    def terms(self, name: str) -> frozenset[str]:
        return self._terms.get(name, frozenset())

    def idf(self, term: str) -> float:
        """BM25's idf; a word no tool has counts as the rarest word the catalogue has (df 1):
        it is information the request holds that no tool explains."""
        n = len(self._lengths)
        df = max(len(self._postings.get(term, ())), 1)
        return math.log(1.0 + (n - df + 0.5) / (df + 0.5))

    def vector(self, name: str) -> dict[str, float]:
        """The tool's words weighted by field and idf, unit length: near-duplicate checks
        compare these (cosine is their dot product). Kept until the catalogue changes."""
        found = self._vectors.get(name)
        if found is None:
            raw = {
                term: self.idf(term) * sum(FIELD_WEIGHTS[i] * c for i, c in pairs)
                for term in self._terms.get(name, ())
                if (pairs := self._postings[term][name])
            }
            norm = math.sqrt(sum(v * v for v in raw.values())) or 1.0
            found = {term: v / norm for term, v in raw.items()}
            self._vectors[name] = found
        return found

    def score(self, query_terms: Iterable[str]) -> dict[str, tuple[float, frozenset[str]]]:
        """Per matching tool: its BM25F score and the query words it matched."""
        n = len(self._lengths)
        if n == 0:
            return {}
        averages = [max(total / n, 1e-9) for total in self._totals]
        norms = [(B / average, 1.0 - B) for average in averages]
        scores: dict[str, float] = {}
        matched: dict[str, set[str]] = {}
        lengths = self._lengths
        for term, query_count in Counter(query_terms).items():
            posting = self._postings.get(term)
            if not posting:
                continue
            weight = self.idf(term) * query_count
            for name, pairs in posting.items():
                field_lengths = lengths[name]
                tf = 0.0
                for index, count in pairs:
                    slope, base = norms[index]
                    tf += FIELD_WEIGHTS[index] * count / (base + slope * field_lengths[index])
                scores[name] = scores.get(name, 0.0) + weight * tf / (K1 + tf)
                matched.setdefault(name, set()).add(term)
        return {name: (value, frozenset(matched[name])) for name, value in scores.items()}
