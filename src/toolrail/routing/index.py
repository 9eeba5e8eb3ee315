"""`LexicalIndex`: BM25F over a tool's fields, kept up to date one tool at a time."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping

from toolrail.core.tool import AnyTool
from toolrail.routing.fields import FIELD_WEIGHTS, FIELDS, tool_fields

K1 = 1.2
B = 0.75
"""The usual BM25 constants (Robertson & Zaragoza, 2009)."""
DRIFT = 0.1
"""Saturated weights are computed when a tool is added, with the catalogue's average field
lengths of the time; once any average has moved by more than this share, every weight is
computed again (on the next search). A 10% error in an average moves a length norm by at
most 7.5% (b = 0.75): rankings barely notice, and a search stays a sum of looked-up floats."""


class Counts(tuple[dict[str, int], ...]):
    """A tool's word counts, one dict per field (plain str -> int dicts: the collector
    does not track them, which keeps bulk registration cheap)."""

    __slots__ = ()

    def terms(self) -> set[str]:
        """Every word the tool has, in any field."""
        return set().union(*self)


class LexicalIndex:
    """BM25F (Robertson, Zaragoza & Taylor, 2004): per-field counts, weighted and length-
    normalised per field, saturated once, stored per (word, tool). Adding or removing a tool
    touches only its words; a search adds up idf times stored weights."""

    def __init__(self) -> None:
        self._postings: dict[str, dict[str, float]] = {}
        self._counts: dict[str, Counts] = {}
        self._lengths: dict[str, tuple[int, ...]] = {}
        self._totals = [0] * len(FIELDS)
        self._norms: tuple[float, ...] = ()
        self._basis: tuple[float, ...] = ()
        self._vectors: dict[str, dict[str, float]] = {}
        self._vectors_size = 0

    def __len__(self) -> int:
        return len(self._lengths)

    def __contains__(self, name: object) -> bool:
        return name in self._lengths

    def names(self) -> Iterator[str]:
        return iter(tuple(self._lengths))

    def add(self, tool: AnyTool) -> None:
        """Index `tool` (replacing an earlier entry of the same name)."""
        name = tool.name
        if name in self._lengths:
            self.remove(name)
        self._forget_vectors(name)
        fields: list[dict[str, int]] = []
        for terms in tool_fields(tool):
            counted: dict[str, int] = {}
            for term in terms:
                counted[term] = counted.get(term, 0) + 1
            fields.append(counted)
        own = tuple(sum(counted.values()) for counted in fields)
        counts = Counts(fields)
        self._lengths[name] = own
        self._counts[name] = counts
        for index, length in enumerate(own):
            self._totals[index] += length
        if not self._basis:
            self._rebase()
        postings, weight = self._postings, self._weight
        for term in counts.terms():
            posting = postings.get(term)
            if posting is None:
                postings[term] = posting = {}
            posting[name] = weight(counts, term, own)

    def remove(self, name: str) -> None:
        """Forget the tool called `name` (nothing happens if it is not indexed)."""
        lengths = self._lengths.pop(name, None)
        if lengths is None:
            return
        self._forget_vectors(name)
        for term in self._counts.pop(name).terms():
            posting = self._postings[term]
            del posting[name]
            if not posting:
                del self._postings[term]
        for index, length in enumerate(lengths):
            self._totals[index] -= length
        if not self._lengths:
            self._basis = ()

    def terms(self, name: str) -> frozenset[str]:
        found = self._counts.get(name)
        return frozenset(found.terms()) if found is not None else frozenset()

    def counts(self, name: str) -> Counts:
        """The tool's word counts per field (`FIELDS`; empty if it is not indexed)."""
        return self._counts.get(name, Counts())

    def matched(self, name: str, terms: Iterable[str]) -> frozenset[str]:
        """Which of `terms` the tool called `name` has."""
        found = self._counts.get(name)
        if found is None:
            return frozenset()
        return frozenset(term for term in terms if any(term in field for field in found))

    def idf(self, term: str) -> float:
        """BM25's idf; a word no tool has counts as the rarest word the catalogue has (df 1):
        it is information the request holds that no tool explains."""
        n = len(self._lengths)
        df = max(len(self._postings.get(term, ())), 1)
        return math.log(1.0 + (n - df + 0.5) / (df + 0.5))

    def df(self, term: str) -> int:
        return len(self._postings.get(term, ()))

    def posting(self, term: str) -> dict[str, float]:
        """The tools that have `term`, each with its saturated weight (read only)."""
        return self._postings.get(term, {})

    def vector(self, name: str) -> dict[str, float]:
        """The tool's words weighted by field and idf, unit length: near-duplicate checks
        compare these (cosine is their dot product). Kept until the catalogue changes."""
        found = self._vectors.get(name)
        if found is None:
            counts = self._counts.get(name, Counts())
            raw = {
                term: self.idf(term)
                * sum(
                    w * field.get(term, 0) for w, field in zip(FIELD_WEIGHTS, counts, strict=False)
                )
                for term in counts.terms()
            }
            norm = math.sqrt(sum(v * v for v in raw.values())) or 1.0
            found = {term: v / norm for term, v in raw.items()}
            self._vectors[name] = found
        return found

    def _forget_vectors(self, name: str) -> None:
        """Drop `name`'s vector; drop all once the catalogue's size (and so idf) moved by
        more than `DRIFT` since they were made: near-duplicate checks need no fresher idf."""
        self._vectors.pop(name, None)
        if abs(len(self._lengths) - self._vectors_size) > DRIFT * self._vectors_size:
            self._vectors.clear()
            self._vectors_size = len(self._lengths)

    def score(
        self, query_terms: Iterable[str], extra: Mapping[str, float] | None = None
    ) -> dict[str, float]:
        """BM25F score of every tool that has at least one of `query_terms`, or of `extra`:
        more query terms, each with its own query weight (a request word weighs 1 a time)."""
        self._refresh()
        counted = Counter(query_terms)
        weights: dict[str, float] = dict(counted)
        if extra:
            for term, weight in extra.items():
                if term not in counted:
                    weights[term] = weight
        weighted = [
            (posting, self.idf(term) * query_weight)
            for term, query_weight in weights.items()
            if (posting := self._postings.get(term))
        ]
        if not weighted:
            return {}
        weighted.sort(key=lambda pair: len(pair[0]), reverse=True)
        first, first_weight = weighted[0]
        scores = {name: first_weight * value for name, value in first.items()}
        get = scores.get
        for posting, weight in weighted[1:]:
            for name, value in posting.items():
                scores[name] = get(name, 0.0) + weight * value
        return scores

    def _averages(self) -> tuple[float, ...]:
        n = max(len(self._lengths), 1)
        return tuple(max(total / n, 1e-9) for total in self._totals)

    def _rebase(self) -> None:
        self._basis = self._averages()
        self._norms = tuple(B / average for average in self._basis)

    def _refresh(self) -> None:
        """Recompute every stored weight if the average field lengths drifted past `DRIFT`."""
        if not self._lengths:
            return
        now = self._averages()
        if all(abs(a - b) <= DRIFT * b for a, b in zip(now, self._basis, strict=True)):
            return
        self._rebase()
        lengths, weight = self._lengths, self._weight
        for name, counts in self._counts.items():
            own = lengths[name]
            for term in counts.terms():
                self._postings[term][name] = weight(counts, term, own)

    def _weight(self, counts: Counts, term: str, lengths: tuple[int, ...]) -> float:
        """BM25F's saturated term frequency: tf / (k1 + tf), tf summed over weighted fields."""
        tf = 0.0
        for index, field in enumerate(counts):
            count = field.get(term)
            if count:
                tf += FIELD_WEIGHTS[index] * count / (1.0 - B + self._norms[index] * lengths[index])
        return tf / (K1 + tf)
