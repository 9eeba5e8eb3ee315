"""Maximal marginal relevance (Carbonell & Goldstein, 1998) over routed candidates."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from toolrail.core.tool import AnyTool

NEAR_DUPLICATE = 0.5
"""Cosine from which two tools count as near-duplicates: most of their weighted words are
shared. Below it, tools only share a topic (the two tools of a compound request often do),
and MMR leaves their order alone."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """A tool with its adjusted score and the signals `Match.explain` shows."""

    score: float
    tool: AnyTool
    signals: dict[str, object]


def cosine(a: Mapping[str, float], b: Mapping[str, float]) -> float:
    """Cosine similarity of two unit-length sparse vectors (their dot product).

    >>> round(cosine({"x": 0.6, "y": 0.8}, {"x": 1.0}), 3)
    0.6
    """
    if len(a) > len(b):
        a, b = b, a
    return sum(value * b.get(key, 0.0) for key, value in a.items())


def diverse(
    ranked: list[Candidate],
    k: int,
    diversity: float,
    vector: Callable[[str], Mapping[str, float]],
) -> list[Candidate]:
    """Up to `k` of `ranked` (best first), each chosen for relevance (score over the best
    score) less `diversity` times its highest similarity to a tool already chosen."""
    if not ranked or diversity <= 0.0:
        return ranked[:k]
    top = ranked[0].score or 1.0
    vectors = {c.tool.name: vector(c.tool.name) for c in ranked}
    closest = dict.fromkeys(vectors, 0.0)
    pool = list(ranked)
    chosen: list[Candidate] = []
    while pool and len(chosen) < k:
        best = max(
            range(len(pool)),
            key=lambda i: (
                (1 - diversity) * pool[i].score / top - diversity * closest[pool[i].tool.name]
            ),
        )
        picked = pool.pop(best)
        picked.signals["redundancy"] = round(closest[picked.tool.name], 3)
        chosen.append(picked)
        picked_vector = vectors[picked.tool.name]
        for other in pool:
            name = other.tool.name
            similarity = cosine(vectors[name], picked_vector)
            if similarity >= NEAR_DUPLICATE:
                closest[name] = max(closest[name], similarity)
    return chosen
