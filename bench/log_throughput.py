"""Call-log throughput against structlog's own fast JSON path, and the executor's per-call
cost with the log and the stream handler attached.

Both writers get the same records (real entries the executor produced) and hand every line
to the OS before returning: toolrail with one `write(2)` under `flock`, structlog's
`BytesLogger` with `write` + `flush`.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson
import structlog

from bench.timing import AsyncCall, measure, report
from toolrail import ExecutionContext, Executor, ToolCall, ToolRegistry, tool
from toolrail.recording.events import Sink, ToolCompleted, ToolEvent
from toolrail.recording.jsonl import JsonlCallLog
from toolrail.recording.stream import ToolStreamHandler

LINES = 50_000


@tool
async def lookup(city: str, days: int = 3) -> dict[str, object]:
    """Forecast lookup."""
    return {"city": city, "days": days, "forecast": ["sun", "rain", "wind"][:days]}


async def sample_records(directory: Path) -> list[dict[str, Any]]:
    call_log = JsonlCallLog(directory)
    executor = Executor(ToolRegistry([lookup]), sinks=[call_log])
    calls = [ToolCall(name="lookup", arguments={"city": f"c{i}", "days": i % 4}) for i in range(64)]
    await executor.run_many(calls, ExecutionContext(agent="bench"))
    call_log.close()
    return [orjson.loads(line) for line in call_log.current_path.read_bytes().splitlines()]


def toolrail_lines_per_s(directory: Path, records: list[dict[str, Any]]) -> float:
    call_log = JsonlCallLog(directory / "toolrail")
    start = time.perf_counter()
    for i in range(LINES):
        call_log.write(records[i % len(records)])
    elapsed = time.perf_counter() - start
    call_log.close()
    return LINES / elapsed


async def sink_lines_per_s(directory: Path) -> float:
    """Finished-call events handed to the sink, then flushed: record building, redaction,
    serialisation and batched writes, as a running executor uses the log."""
    events: list[ToolEvent] = []
    executor = Executor(ToolRegistry([lookup]), sinks=[events.append])
    calls = [ToolCall(name="lookup", arguments={"city": f"c{i}", "days": i % 4}) for i in range(64)]
    await executor.run_many(calls, ExecutionContext(agent="bench"))
    finished = [e for e in events if isinstance(e, ToolCompleted)]
    call_log = JsonlCallLog(directory / "sink")
    start = time.perf_counter()
    for i in range(LINES):
        call_log(finished[i % len(finished)])
    call_log.flush()
    elapsed = time.perf_counter() - start
    call_log.close()
    return LINES / elapsed


def structlog_lines_per_s(directory: Path, records: list[dict[str, Any]]) -> float:
    directory.mkdir(exist_ok=True)
    with (directory / "structlog.jsonl").open("wb") as handle:
        logger = structlog.wrap_logger(
            structlog.BytesLoggerFactory(handle)(),
            processors=[structlog.processors.JSONRenderer(serializer=orjson.dumps)],
            wrapper_class=structlog.BoundLogger,
            cache_logger_on_first_use=True,
        )
        start = time.perf_counter()
        for i in range(LINES):
            logger.msg(**records[i % len(records)])
        return LINES / (time.perf_counter() - start)


def executor_call(sinks: list[Sink]) -> AsyncCall:
    executor = Executor(ToolRegistry([lookup]), sinks=sinks)
    ctx = ExecutionContext(agent="bench")
    call = ToolCall(name="lookup", arguments='{"city": "Oslo", "days": 2}', id="c1")

    async def run() -> object:
        return (await executor.run(call, ctx)).result

    return run


async def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        records = await sample_records(root / "sample")
        ours = toolrail_lines_per_s(root, records)
        as_sink = await sink_lines_per_s(root)
        theirs = structlog_lines_per_s(root / "structlog", records)
        print("\nCall-log throughput, same records, every line handed to the OS")
        print(f"  toolrail JsonlCallLog.write (one line, flock)      {ours:12,.0f} lines/s")
        print(f"  toolrail JsonlCallLog as a sink (events, batched)  {as_sink:12,.0f} lines/s")
        print(f"  structlog JSONRenderer(orjson) + BytesLogger       {theirs:12,.0f} lines/s")
        print(f"  ratio toolrail sink / structlog                    {as_sink / theirs:12.2f}")

        logs = [JsonlCallLog(root / "a"), JsonlCallLog(root / "b")]
        timings = await measure(
            {
                "Executor.run, no sinks": executor_call([]),
                "Executor.run + JsonlCallLog": executor_call([logs[0]]),
                "Executor.run + JsonlCallLog + ToolStreamHandler": executor_call(
                    [logs[1], ToolStreamHandler()]
                ),
            },
            per_round=1000,
        )
        for call_log in logs:  # the writer threads finish before the directory goes
            call_log.close()
        report(
            "Executor per-call cost with sinks attached", timings, baseline="Executor.run, no sinks"
        )


if __name__ == "__main__":
    asyncio.run(main())
