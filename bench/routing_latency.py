"""Routing speed and context savings: per-query p50/p95 at 1k and 10k tools, index build,
registration rate, incremental update, and definition bytes per turn (all vs top-k)."""

from __future__ import annotations

import random
import time

import orjson

from toolrail import Router, ToolRegistry
from toolrail.core.tool import AnyTool
from toolrail.dialects import openai
from toolrail.resilience import percentile
from toolrail.routing.catalogue import definition_tool

VERBS = (
    "get",
    "list",
    "create",
    "update",
    "delete",
    "search",
    "send",
    "cancel",
    "refund",
    "export",
    "import",
    "sync",
)
NOUNS = [
    "user",
    "order",
    "invoice",
    "payment",
    "customer",
    "ticket",
    "repository",
    "commit",
    "branch",
    "issue",
    "file",
    "folder",
    "calendar",
    "event",
    "email",
    "message",
    "channel",
    "report",
    "chart",
    "metric",
    "alert",
    "incident",
    "deployment",
    "container",
    "image",
    "volume",
    "secret",
    "token",
    "webhook",
    "subscription",
    "plan",
    "coupon",
    "product",
    "price",
    "shipment",
    "carrier",
    "address",
    "contact",
    "lead",
    "opportunity",
    "campaign",
    "survey",
    "answer",
    "note",
    "task",
]


def synthetic(n: int, seed: int = 7) -> list[AnyTool]:
    """`n` REST-like tools with parameter schemas (names, enums), reproducible."""
    rng = random.Random(seed)
    tools: list[AnyTool] = []
    for i in range(n):
        verb, noun, other = rng.choice(VERBS), rng.choice(NOUNS), rng.choice(NOUNS)
        schema = {
            "type": "object",
            "properties": {
                f"{noun}_id": {"type": "string", "description": f"the {noun}"},
                f"{other}_filter": {"type": "string", "enum": rng.sample(NOUNS, 3)},
                "limit": {"type": "integer", "description": "how many results"},
            },
        }
        tools.append(
            definition_tool(
                f"{verb}_{noun}_{other}_{i}",
                f"{verb.title()} a {noun} of the {other} service, by id or filter.",
                schema,
            )
        )
    return tools


def queries(seed: int = 3) -> list[str]:
    rng = random.Random(seed)
    return [
        f"please {rng.choice(VERBS)} the {rng.choice(NOUNS)} for {rng.choice(NOUNS)} 4821"
        for _ in range(300)
    ]


def measure(n: int) -> dict[str, float]:
    tools = synthetic(n)
    registry = ToolRegistry()
    router = Router(registry)
    started = time.perf_counter()
    for t in tools:
        registry.register(t)
    register_s = time.perf_counter() - started
    started = time.perf_counter()
    Router(registry)
    build_s = time.perf_counter() - started
    extra = synthetic(1, seed=99)[0]
    started = time.perf_counter()
    registry.register(extra)
    registry.unregister(extra.name)
    update_ms = (time.perf_counter() - started) * 1000 / 2
    asked = queries()
    for q in asked[:20]:
        router.search(q, k=10)
    timings = []
    for q in asked:
        started = time.perf_counter()
        router.search(q, k=10)
        timings.append((time.perf_counter() - started) * 1000)
    return {
        "p50": percentile(timings, 50),
        "p95": percentile(timings, 95),
        "rate": n / register_s,
        "build_ms": build_s * 1000,
        "update_ms": update_ms,
    }


def measure_semantic(n: int, asked: int = 100) -> dict[str, float] | None:
    """Per-query p50/p95 with the `[semantic]` extra, and the first search that encodes the
    catalogue; None without the extra."""
    try:
        from toolrail.routing.semantic import SemanticIndex
    except ModuleNotFoundError:
        return None
    router = Router(ToolRegistry(synthetic(n)), semantic=SemanticIndex())
    started = time.perf_counter()
    router.search("warm up", k=10)
    encode_s = time.perf_counter() - started
    timings = []
    for q in queries()[:asked]:
        started = time.perf_counter()
        router.search(q, k=10)
        timings.append((time.perf_counter() - started) * 1000)
    return {"p50": percentile(timings, 50), "p95": percentile(timings, 95), "encode_s": encode_s}


def context_bytes(n: int = 300, k: int = 8) -> tuple[int, int]:
    """Bytes of OpenAI tool definitions per turn: every tool, and top-k + find_tools."""
    tools = synthetic(n)
    router = Router(ToolRegistry(tools))
    every = len(orjson.dumps(openai.chat.export_tools(tools).tools))
    routed = [m.tool for m in router.search(queries()[0], k=k)]
    return every, len(orjson.dumps(openai.chat.export_tools(routed).tools)) + 300


def main() -> None:
    print("\nrouting latency (lexical default; synthetic REST-like tools with schemas)")
    print(
        f"{'tools':>7} {'p50 ms':>8} {'p95 ms':>8} {'build ms':>9} {'update ms':>10} {'reg/s':>9}"
    )
    for n in (1_000, 10_000):
        m = measure(n)
        print(
            f"{n:>7} {m['p50']:8.2f} {m['p95']:8.2f} {m['build_ms']:9.0f} "
            f"{m['update_ms']:10.3f} {m['rate']:9.0f}"
        )
    fused = measure_semantic(1_000)
    if fused is None:
        print("semantic: SKIPPED, install toolrail[semantic]")
    else:
        print(
            f"  1000 + semantic: p50 {fused['p50']:.1f} ms, p95 {fused['p95']:.1f} ms; "
            f"first search encodes the catalogue in {fused['encode_s']:.1f} s"
        )
    every, routed = context_bytes()
    print(
        f"\ndefinitions per turn, 300 tools: all {every:,} B (~{every // 4:,} tokens); "
        f"top-8 + find_tools {routed:,} B (~{routed // 4:,} tokens)"
    )


if __name__ == "__main__":
    main()
