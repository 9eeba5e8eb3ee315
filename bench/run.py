"""Run every benchmark in one process, one after another (`make bench`)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import (
    executor_overhead,
    instructions,
    log_throughput,
    mcp_overhead,
    railway_overhead,
    routing_latency,
    routing_quality,
    routing_rest,
    serve_overhead,
)


async def main() -> None:
    await executor_overhead.main()
    await railway_overhead.main()
    await log_throughput.main()
    await mcp_overhead.main()
    await serve_overhead.main()
    routing_quality.main()
    routing_rest.main()
    routing_latency.main()
    instructions.main()  # last: it starts its own processes, under valgrind


if __name__ == "__main__":
    asyncio.run(main())
