"""The demo's observability: OpenTelemetry spans and Prometheus metrics, when installed.

Both are optional extras (`pip install 'toolrail[otel,prometheus]'`; `make demo` installs
them with the dev extra). Without them the demo says how to turn them on and runs as usual.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolrail.observe.hooks import AgentObserver
from toolrail.recording.events import Sink


@dataclass
class Observability:
    """Sinks and the agent observer to pass in, and what to say at the end."""

    sinks: list[Sink] = field(default_factory=list)
    observer: AgentObserver | None = None
    notes: list[str] = field(default_factory=list)
    spans: Any = None  # the in-memory exporter, when OTel is installed
    otel: Any = None  # the OtelSink, when OTel is installed
    metrics: Any = None  # the PrometheusSink, when prometheus-client is installed
    server: Any = None

    def summary(self, trace_file: Path) -> list[str]:
        """A short trace summary (spans also written to `trace_file`) and the metrics."""
        lines: list[str] = []
        if self.spans is not None:
            self.otel.flush()  # tool spans are built just after their calls, off the call path
            finished = self.spans.get_finished_spans()
            trace_file.write_text("".join(s.to_json(indent=None) + "\n" for s in finished))
            lines.append(f"🔭 {len(finished)} spans, written to {trace_file}:")
            lines.extend(_tree(finished))
        if self.metrics is not None:
            port = self.server.server_port
            lines.append(f"📈 the metrics at http://127.0.0.1:{port}/metrics say:")
            lines.extend(
                f"   {line}"
                for line in self.metrics.text().decode().splitlines()
                if line.startswith(("toolrail_tool_calls_total", "toolrail_circuit_open"))
            )
            self.server.shutdown()
            self.server.server_close()
        return lines


def observability() -> Observability:
    """Spans and metrics if their extras are installed; a note on how to enable them if not."""
    found = Observability()
    try:
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

        from toolrail.observe.otel import OtelSink
    except ModuleNotFoundError:
        found.notes.append("🔭 no spans: pip install 'toolrail[otel]' to trace the demo")
    else:
        found.spans = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(found.spans))
        otel = OtelSink(provider)
        found.otel = otel
        found.sinks.append(otel)
        found.observer = otel
    try:
        from toolrail.observe.metrics import PrometheusSink, serve_metrics
    except ModuleNotFoundError:
        found.notes.append("📈 no metrics: pip install 'toolrail[prometheus]' to serve them")
    else:
        found.metrics = PrometheusSink()
        found.server = serve_metrics(found.metrics, 0)  # any free port
        found.sinks.append(found.metrics)
        found.notes.append(
            f"📈 metrics at http://127.0.0.1:{found.server.server_port}/metrics while it runs"
        )
    return found


def _tree(spans: Sequence[Any]) -> list[str]:
    """Agent spans with their tool calls: `invoke_agent researcher 12.3 ms: 6 tool calls`."""
    children: dict[int, list[Any]] = {}
    for span in spans:
        if span.parent is not None:
            children.setdefault(span.parent.span_id, []).append(span)
    lines = []
    for span in sorted(spans, key=lambda s: s.start_time):
        if not span.name.startswith("invoke_agent"):
            continue
        tools = children.get(span.context.span_id, [])
        failed = sum(1 for t in tools if not t.status.is_ok)
        took = (span.end_time - span.start_time) / 1e6
        lines.append(
            f"   {span.name} {took:.1f} ms: {len(tools)} tool calls"
            + (f", {failed} failed" if failed else "")
        )
    return lines
