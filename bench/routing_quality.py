"""Routing quality on MetaTool (199 tools): nDCG@10, Recall@1/5, both-of-two in the top 5."""

from __future__ import annotations

import csv
import json
import math
import os
import sys
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from toolrail import ToolRegistry
from toolrail.routing import Router, RoutingSettings
from toolrail.routing.catalogue import definition_tool, safe_tool_name

DATA = Path(
    os.environ.get(
        "TOOLRAIL_METATOOL",
        Path(__file__).resolve().parent.parent.parent / "shared/data/tool-retrieval/metatool",
    )
)

Search = Callable[[str], Sequence[str]]


def catalogue() -> ToolRegistry:
    described = json.loads((DATA / "plugin_des.json").read_text())
    return ToolRegistry(definition_tool(name, text) for name, text in described.items())


def single_queries() -> dict[str, set[str]]:
    relevant: dict[str, set[str]] = defaultdict(set)
    with (DATA / "all_clean_data.csv").open(newline="") as handle:
        for row in csv.DictReader(handle):
            relevant[row["Query"]].add(safe_tool_name(row["Tool"]))
    return relevant


def two_tool_queries() -> dict[str, set[str]]:
    rows = json.loads((DATA / "multi_tool_query_golden.json").read_text())
    return {row["query"]: {safe_tool_name(t) for t in row["tool"]} for row in rows}


def ndcg10(ranked: Sequence[str], relevant: set[str]) -> float:
    gain = sum(1 / math.log2(i + 2) for i, name in enumerate(ranked[:10]) if name in relevant)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(relevant), 10)))
    return gain / ideal


def evaluate(search: Search, queries: dict[str, set[str]]) -> dict[str, float]:
    totals = {"ndcg@10": 0.0, "recall@1": 0.0, "recall@5": 0.0, "all@5": 0.0}
    for query, relevant in queries.items():
        ranked = list(search(query))
        totals["ndcg@10"] += ndcg10(ranked, relevant)
        totals["recall@1"] += len(set(ranked[:1]) & relevant) / min(len(relevant), 1)
        totals["recall@5"] += len(set(ranked[:5]) & relevant) / len(relevant)
        totals["all@5"] += float(relevant <= set(ranked[:5]))
    return {key: value / len(queries) for key, value in totals.items()}


def router_search(router: Router) -> Search:
    return lambda query: [m.tool.name for m in router.search(query, k=10)]


STRIDE = int(os.environ.get("TOOLRAIL_MINILM_STRIDE", "4"))
"""The MiniLM rows read every STRIDE-th single-tool query: MiniLM encodes ~50 queries a
second on two cores, so all 20,550 take about seven minutes (TOOLRAIL_MINILM_STRIDE=1 does
it). The lexical and static rows read every query; the lexical row on the same stride is
shown beside for comparison."""


def semantic_routers() -> list[tuple[str, Router, bool]] | None:
    """(label, router, uses MiniLM) for each fused configuration; None without the extra."""
    try:
        from toolrail.routing.semantic import MiniLM, SemanticIndex, StaticEmbedding
    except ModuleNotFoundError:
        return None
    static = StaticEmbedding.packaged()
    rows = [
        ("+ static (CombSUM)", Router(catalogue(), semantic=SemanticIndex(static)), False),
        (
            "+ static (RRF k=60)",
            Router(
                catalogue(),
                semantic=SemanticIndex(static),
                settings=RoutingSettings(fusion="rrf"),
            ),
            False,
        ),
    ]
    try:
        minilm = MiniLM.packaged()
    except (ModuleNotFoundError, FileNotFoundError):
        return rows
    both = SemanticIndex(static, minilm)
    rows.append(("+ static + MiniLM", Router(catalogue(), semantic=both), True))
    return rows


def main() -> list[tuple[str, dict[str, float], dict[str, float]]]:
    if not (DATA / "plugin_des.json").exists():
        print(
            f"routing quality: SKIPPED, MetaTool data not found at {DATA} (set TOOLRAIL_METATOOL)"
        )
        return []
    router = Router(catalogue())
    single, double = single_queries(), two_tool_queries()
    lexical_double = evaluate(router_search(router), double)
    rows = [("default (lexical+vectors)", evaluate(router_search(router), single), lexical_double)]
    semantic = semantic_routers()
    sample = {q: single[q] for q in list(single)[::STRIDE]}
    for label, fused, slow in semantic or []:
        if slow and STRIDE > 1:
            rows.append(
                (
                    f"lexical, 1/{STRIDE} sample",
                    evaluate(router_search(router), sample),
                    lexical_double,
                )
            )
            label = f"{label}, 1/{STRIDE}"
        queries = sample if slow else single
        rows.append(
            (label, evaluate(router_search(fused), queries), evaluate(router_search(fused), double))
        )
    print(
        f"\nrouting quality, MetaTool: {len(router.index)} tools, {len(single)} single-tool "
        f"queries, {len(double)} two-tool queries"
    )
    if semantic is None:
        print("semantic rows SKIPPED: install toolrail[semantic]")
    header = f"{'retriever':<26} {'nDCG@10':>8} {'R@1':>6} {'R@5':>6} | "
    print(header + f"{'2-tool nDCG@10':>14} {'R@1':>6} {'R@5':>6} {'both@5':>7}")
    for name, one, two in rows:
        print(
            f"{name:<26} {one['ndcg@10']:8.3f} {one['recall@1']:6.3f} {one['recall@5']:6.3f} | "
            f"{two['ndcg@10']:14.3f} {two['recall@1']:6.3f} {two['recall@5']:6.3f} "
            f"{two['all@5']:7.3f}"
        )
    return rows


if __name__ == "__main__":
    main()
