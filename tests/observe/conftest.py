"""Spans recorded in memory, for the OTel sink's tests."""

from __future__ import annotations

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter


def recording_provider(exporter: InMemorySpanExporter, **options: object) -> TracerProvider:
    """A tracer provider (made with `options`) whose spans end up in `exporter` at once."""
    provider = TracerProvider(**options)  # type: ignore[arg-type]
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider
