"""`Router`: the few tools that matter for a request, out of every tool the registry holds."""

from __future__ import annotations

import fnmatch
import heapq
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from operator import itemgetter
from typing import TYPE_CHECKING, Any, Literal

from toolrail.core.context import ExecutionContext
from toolrail.core.tool import AnyTool
from toolrail.recording.events import ToolEvent
from toolrail.registry import AgentToolTable, ToolRegistry
from toolrail.routing.diversity import Candidate, diverse
from toolrail.routing.expansion import WEIGHT, expand
from toolrail.routing.failures import ConversationFailures
from toolrail.routing.fields import FIELDS
from toolrail.routing.index import LexicalIndex
from toolrail.routing.text import words
from toolrail.routing.vectors import VectorIndex

if TYPE_CHECKING:
    from toolrail.executor import Executor
    from toolrail.routing.semantic import SemanticIndex

_NAME, _DESCRIPTION = FIELDS.index("name"), FIELDS.index("description")
DEPRECATED_TAG = "deprecated"
"""A tool is deprecated when it carries this tag, or its description starts with
"Deprecated" (the convention of OpenAPI summaries and many MCP servers)."""


@dataclass(frozen=True, slots=True)
class Match:
    """One routed tool: its `score` (higher is better) and the signals behind it."""

    tool: AnyTool
    score: float
    explain: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class RoutingSettings:
    """Fixed constants, each justified by what it means rather than fitted to a dataset."""

    min_evidence: float = 0.5
    """"Nothing relevant" when the best tool's matched request words weigh (idf) less than
    this share of one word only one tool has: a request must share at least one specific
    word with a tool, whatever the length of the request or the size of the catalogue."""
    diversity: float = 0.3
    """MMR's 1 - lambda (Carbonell & Goldstein's usual 0.7 relevance / 0.3 novelty), with
    similarity the cosine of two tools' weighted words: near-duplicates give way."""
    failed_penalty: float = 0.5
    """Score factor for a tool that failed earlier in this conversation (until it succeeds)."""
    deprecated_penalty: float = 0.5
    health_min_calls: int = 5
    """A health record counts once it has this many calls: factor 0.5 + success rate / 2."""
    fusion: Literal["combsum", "rrf"] = "combsum"
    """How the lexical ranking and each embedding ranking are joined. "combsum" (default):
    each ranking's scores are min-max normalised over the tools that may be shown, then
    added with equal weight (Fox & Shaw's CombSUM; Lee, 1997) — the convex combination with
    alpha = 1/n, no weight fitted to any dataset. It keeps how far ahead a tool is in a
    ranking, which ranks alone lose: the lexical ranking scores only the tools that share a
    word with the request, and a clear lexical winner stays ahead of a crowd of tools the
    embeddings find vaguely close. "rrf": reciprocal rank fusion (below)."""
    fusion_k: int = 60
    """RRF's k (Cormack, Clarke & Buettcher, 2009: 60, not tuned): a tool scores the sum of
    1 / (k + rank) over the rankings, so no ranking's score scale matters."""
    fusion_depth: int = 100
    """How many tools of each ranking take part in RRF."""
    min_similarity: float = 0.5
    """With a semantic index, a request with too little lexical evidence is still relevant
    when its embedding's cosine to some tool reaches this: a paraphrase, not a shared topic."""
    expansion: float = WEIGHT
    """Query expansion (`toolrail.routing.expansion`): each request word's embedding
    neighbours ("film" for "movie") join the lexical query with weight cosine times this
    (0.5: RM3's usual equal interpolation of query and expansion); 0 turns it off. Only the
    request's own words count towards "nothing relevant" and `coverage`."""
    dense: bool = True
    """Without a semantic index, fuse the shipped static word vectors
    (`toolrail.routing.vectors`) with the lexical ranking, as one more ranking of the same
    fusion, where the words do not decide (no tool has every request word some tool has).
    They rank only; relevance ("nothing relevant") stays lexical."""
    dense_candidates: int = 100
    """The dense ranking scores only this many best lexical tools (the lexical ranking with
    expansion; 0: every tool): pure Python stays fast at 10,000 tools. `fusion_depth`'s
    value, how deep each ranking is read for fusion; a tool outside it could not reach
    the top 30 anyway (its lexical share is below every candidate's)."""


class Router:
    """Ranks a registry's tools for a request, in step with the registry.

    >>> from toolrail import tool, ToolRegistry
    >>> @tool
    ... def get_weather(city: str) -> str:
    ...     "Current weather for a city."
    ...     return "sunny"
    >>> @tool
    ... def send_invoice(customer: str) -> str:
    ...     "Email an invoice to a customer."
    ...     return "sent"
    >>> router = Router(ToolRegistry([get_weather, send_invoice]))
    >>> [m.tool.name for m in router.search("what's the weather in Paris?", k=3)]
    ['get_weather']
    >>> router.search("book a flight to Rome")
    ()

    `executor` brings the agent table, permissions, gates, circuits and health (the same
    filter as `Executor.visible`); without one, `agents` alone filters by agent. Put
    `router.observe` among the executor's sinks to penalise tools that failed in a
    conversation. `pinned` (names or glob patterns) are always returned, ahead of the rest.
    """

    def __init__(
        self,
        registry: ToolRegistry,
        *,
        executor: Executor | None = None,
        agents: AgentToolTable | None = None,
        pinned: Iterable[str] = (),
        settings: RoutingSettings | None = None,
        semantic: SemanticIndex | None = None,
    ) -> None:
        """`semantic` (the `[semantic]` extra's `SemanticIndex`) fuses embeddings in."""
        self.registry = registry
        self.executor = executor
        self.agents = agents if agents is not None or executor is None else executor.agents
        self.pinned = tuple(pinned)
        self.settings = settings or RoutingSettings()
        self.index = LexicalIndex()
        self.semantic = semantic
        self.vectors = VectorIndex() if semantic is None and self.settings.dense else None
        self.failures = ConversationFailures()
        self._seen_version = -1
        self._visible_names: tuple[object, set[str]] = ((), set())
        self.close = registry.subscribe(self._changed)
        """Stop following the registry (the index then catches up on the next search)."""
        self.sync()

    def sync(self) -> None:
        """Bring the index in step with the registry: only tools added, removed or replaced
        are touched. Runs by itself on registry changes; cheap when nothing changed."""
        if self._seen_version == self.registry.version:
            return
        current = {t.name: t for t in self.registry}
        for name in self.index.names():
            if name not in current:
                self._forget(name)
        for name, found in current.items():
            if name not in self.index:
                self._add(found)
        self._seen_version = self.registry.version

    def _changed(self, change: str, tool: AnyTool) -> None:
        if change == "register":
            self._add(tool)
        else:
            self._forget(tool.name)
        if self._seen_version == self.registry.version - 1:
            self._seen_version = self.registry.version

    def _add(self, tool: AnyTool) -> None:
        self.index.add(tool)
        if self.semantic is not None:
            self.semantic.add(tool)
        if self.vectors is not None:
            fields = self.index.counts(tool.name)
            counts = dict(fields[_DESCRIPTION])
            for term, count in fields[_NAME].items():
                counts[term] = counts.get(term, 0) + count
            self.vectors.add(tool.name, counts)

    def _forget(self, name: str) -> None:
        self.index.remove(name)
        if self.semantic is not None:
            self.semantic.remove(name)
        if self.vectors is not None:
            self.vectors.remove(name)

    def observe(self, event: ToolEvent) -> None:
        """A sink: remembers, per conversation, the tools that failed and not yet succeeded."""
        self.failures.observe(event)

    def search(
        self,
        query: str,
        k: int = 10,
        *,
        agent: str | None = None,
        ctx: ExecutionContext[Any] | None = None,
        permissions: frozenset[str] | None = None,
        exclude: Iterable[str] = (),
        within: Iterable[str] | None = None,
    ) -> tuple[Match, ...]:
        """Pinned tools, then up to `k` tools ranked for `query`; empty (bar pinned) when
        nothing is relevant. `agent` (or `ctx.agent`) limits the answer to the tools that
        agent may call; `ctx` also brings its permissions and its conversation's failures.
        `within`: only these names take part (what a caller will show, e.g. an executor's
        `visible`): a tool left out never takes a place, nor decides "nothing relevant"."""
        self.sync()
        if ctx is not None:
            agent = agent if agent is not None else ctx.agent
            permissions = permissions if permissions is not None else ctx.permissions
        allowed = self._allowed(agent, permissions)
        if within is not None:
            names = set(within)
            allowed = names if allowed is None else allowed & names
        pinned = self._pinned(allowed)
        skip = {m.tool.name for m in pinned} | set(exclude)
        failed = self.failures.of(ctx.conversation_id) if ctx is not None else frozenset()
        return pinned + self._rank(query, k, allowed, failed, skip)

    def _allowed(self, agent: str | None, permissions: frozenset[str] | None) -> set[str] | None:
        """The names `agent` may call (None: every tool); the executor's own filter if any."""
        executor = self.executor
        if executor is not None and agent is not None:
            visible = executor.visible(agent, permissions)
            if self._visible_names[0] is not visible:  # the executor caches its answer
                self._visible_names = (visible, {t.name for t in visible})
            return self._visible_names[1]
        table = self.agents if agent is not None else None
        hidden = executor.resilience.hidden if executor and executor.resilience.any_open else None
        if table is None and permissions is None and hidden is None:
            return None
        return {
            t.name
            for t in self.registry
            if (table is None or agent is None or table.allows(agent, t.name))
            and (permissions is None or t.permissions <= permissions)
            and (hidden is None or not hidden(t))
        }

    def _pinned(self, allowed: set[str] | None) -> tuple[Match, ...]:
        if not self.pinned:
            return ()
        names = [
            t.name
            for t in self.registry
            if any(fnmatch.fnmatchcase(t.name, pattern) for pattern in self.pinned)
        ]
        return tuple(
            Match(found, 0.0, {"pinned": True})
            for name in names
            if (allowed is None or name in allowed) and (found := self.registry.find(name))
        )

    def _rank(
        self,
        query: str,
        k: int,
        allowed: set[str] | None,
        failed: frozenset[str],
        skip: set[str],
    ) -> tuple[Match, ...]:
        terms = words(query)
        if not terms or k <= 0:
            return ()  # a request with no content word (embeddings would guess at filler)
        index = self.index
        unique = set(terms)
        idf = {t: index.idf(t) for t in unique}
        information = sum(idf.values()) or 1.0
        expanded = expand(unique) if self.settings.expansion > 0 else {}
        extra = {word: self.settings.expansion * cosine for word, (cosine, _) in expanded.items()}
        scores = index.score(terms, extra)
        if skip or allowed is not None:
            scores = {
                name: value
                for name, value in scores.items()
                if name not in skip and (allowed is None or name in allowed)
            }
        rankings = self._similar(query, allowed, skip)
        similar = _best(rankings)
        if not scores and not similar:
            return ()
        dense = self._dense(terms, unique, scores, allowed, skip)
        size = max(3 * k, 30)
        relevance = self._fuse(scores, [*rankings, dense] if dense else rankings, dense)
        pool = self._pool(relevance, size, failed, unique, idf, information, expanded)
        for c in pool:
            c.signals["bm25"] = round(scores.get(c.tool.name, 0.0), 4)
            if similar:
                c.signals["similarity"] = round(similar.get(c.tool.name, 0.0), 4)
            if dense:
                c.signals["dense"] = round(dense.get(c.tool.name, 0.0), 4)
        floor = self.settings.min_evidence * index.idf("")
        close = max(similar.values(), default=0.0) >= self.settings.min_similarity
        if not close and not self._evident(unique, idf, floor, scores, pool):
            return ()
        return tuple(
            Match(c.tool, round(c.score, 4), c.signals)
            for c in diverse(pool, k, self.settings.diversity, index.vector)
        )

    def _similar(
        self, query: str, allowed: set[str] | None, skip: set[str]
    ) -> list[dict[str, float]]:
        """Per encoder, the cosine of the request to each tool it may be shown (no list
        without embeddings)."""
        if self.semantic is None:
            return []
        return [
            {
                name: value
                for name, value in ranking.items()
                if name not in skip and (allowed is None or name in allowed)
            }
            for ranking in self.semantic.similarities(query)
        ]

    def _dense(
        self,
        terms: list[str],
        unique: set[str],
        scores: dict[str, float],
        allowed: set[str] | None,
        skip: set[str],
    ) -> dict[str, float]:
        """The shipped word vectors' cosine of the request to the tools that may be shown
        (`RoutingSettings.dense_candidates`: only the best lexical ones), where the words
        do not decide: none when the best lexical tool has every request word any tool has
        (and there is one such word). A candidate without a vector (no word the table
        knows) gets the candidates' mean: no evidence either way."""
        vectors = self.vectors
        if vectors is None or not scores:
            return {}
        index = self.index
        best = max(scores, key=scores.__getitem__)
        known = {term for term in unique if index.df(term)}
        if known and index.matched(best, known) >= known:
            return {}  # the request's words all meet in one tool: they decide
        cut = self.settings.dense_candidates
        if cut:
            names = [name for name, _ in heapq.nlargest(cut, scores.items(), key=itemgetter(1))]
            ranking = vectors.similarities(terms, names)
        else:
            names = list(scores)
            ranking = vectors.similarities(terms)
            if skip or allowed is not None:
                ranking = {
                    name: value
                    for name, value in ranking.items()
                    if name not in skip and (allowed is None or name in allowed)
                }
        if ranking:
            mean = sum(ranking.values()) / len(ranking)
            for name in names:
                ranking.setdefault(name, mean)
        return ranking

    def _fuse(
        self,
        scores: dict[str, float],
        rankings: list[dict[str, float]],
        dense: dict[str, float] | None = None,
    ) -> dict[str, float]:
        """The lexical ranking and the embedding rankings joined (`RoutingSettings.fusion`).
        The shipped vectors' ranking (`dense`, one of `rankings`) is a cosine, already on
        [0, 1] (below 0: unrelated, 0): taken as it is, not min-max normalised, which over
        a handful of candidates would turn a cosine gap of 0.05 into a whole unit."""
        if not rankings:
            return scores
        every = [scores, *rankings]
        if self.settings.fusion == "rrf":
            return _rrf(every, self.settings.fusion_k, self.settings.fusion_depth)
        weight = 1.0 / len(every)
        # a tool sharing no word with the request scores 0, not absent: the lexical low is 0
        factor = weight / (max(scores.values(), default=0.0) or 1.0)
        fused = {name: value * factor for name, value in scores.items()}
        get = fused.get
        for ranking in rankings:
            if not ranking:
                continue
            low, high = min(ranking.values()), max(ranking.values())
            if ranking is dense:
                low, high = 0.0, 1.0
            span = (high - low) or 1.0
            for name, value in ranking.items():
                fused[name] = get(name, 0.0) + weight * max(value - low, 0.0) / span
        return fused

    def _pool(
        self,
        scores: dict[str, float],
        size: int,
        failed: frozenset[str],
        unique: set[str],
        idf: dict[str, float],
        information: float,
        expanded: dict[str, tuple[float, str]],
    ) -> list[Candidate]:
        """The `size` best candidates after penalties, best first. Penalties only lower a
        score, so a window of raw scores suffices once its last raw score cannot beat the
        pool's last adjusted one; the window grows until then."""
        window = size
        while True:
            top = heapq.nlargest(window, scores.items(), key=itemgetter(1))
            candidates: list[Candidate] = []
            for name, relevance in top:
                found = self.registry.find(name)
                if found is None:
                    continue
                matched = self.index.matched(name, unique)
                signals: dict[str, object] = {
                    "coverage": round(sum(idf[t] for t in matched) / information, 3),
                    "matched": sorted(matched),
                }
                if expanded and (hits := self.index.matched(name, expanded)):
                    signals["expanded"] = {
                        word: {"from": expanded[word][1], "cosine": expanded[word][0]}
                        for word in sorted(hits)
                    }
                factor = self._factor(found, failed, signals)
                candidates.append(Candidate(relevance * factor, found, signals))
            candidates.sort(key=lambda c: c.score, reverse=True)
            complete = len(top) < window or len(top) == len(scores)
            if complete or (len(candidates) >= size and candidates[size - 1].score >= top[-1][1]):
                return candidates[:size]
            window *= 4

    def _evident(
        self,
        unique: set[str],
        idf: dict[str, float],
        floor: float,
        scores: dict[str, float],
        pool: list[Candidate],
    ) -> bool:
        """Whether some tool's matched words weigh at least `floor`: one word alone (any
        tool that has it and may be shown), else the words of a tool in the pool."""
        for term in unique:
            if idf[term] >= floor and any(name in scores for name in self.index.posting(term)):
                return True
        return any(
            sum(idf[t] for t in self.index.matched(c.tool.name, unique)) >= floor for c in pool
        )

    def _factor(self, tool: AnyTool, failed: frozenset[str], signals: dict[str, object]) -> float:
        settings = self.settings
        factor = 1.0
        if tool.name in failed:
            factor *= settings.failed_penalty
            signals["failed_in_conversation"] = settings.failed_penalty
        if DEPRECATED_TAG in tool.tags or tool.description.lower().startswith("deprecated"):
            factor *= settings.deprecated_penalty
            signals["deprecated"] = settings.deprecated_penalty
        if self.executor is not None:
            health = self.executor.health.health(tool.name)
            if health is not None and health.calls >= settings.health_min_calls:
                health_factor = 0.5 + health.success_rate / 2
                if health_factor < 1.0:
                    factor *= health_factor
                    signals["health"] = round(health_factor, 3)
        return factor


def _best(rankings: list[dict[str, float]]) -> dict[str, float]:
    """Each tool's highest cosine over the encoders."""
    if len(rankings) == 1:
        return rankings[0]
    best: dict[str, float] = {}
    for ranking in rankings:
        for name, value in ranking.items():
            best[name] = max(best.get(name, value), value)
    return best


def _rrf(rankings: list[dict[str, float]], k: int, depth: int) -> dict[str, float]:
    """Reciprocal rank fusion of `rankings` (each read to `depth`)."""
    fused: dict[str, float] = {}
    for ranking in rankings:
        top = heapq.nlargest(depth, ranking.items(), key=itemgetter(1))
        for rank, (name, _) in enumerate(top, start=1):
            fused[name] = fused.get(name, 0.0) + 1.0 / (k + rank)
    return fused
