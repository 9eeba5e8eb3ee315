"""Shared fixtures: async tests run under anyio on asyncio."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import settings
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from .observe.conftest import recording_provider

# no per-example deadline: a loaded CI machine must not turn slowness into failures; and
# derandomized, so a run is reproducible and CI cannot go red by luck. To explore new
# examples: pytest --hypothesis-profile=explore (and --hypothesis-seed=N to repeat one)
settings.register_profile("toolrail", deadline=None, derandomize=True)
settings.register_profile("explore", deadline=None, max_examples=500)
settings.load_profile("toolrail")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def spans() -> Iterator[tuple[TracerProvider, InMemorySpanExporter]]:
    """A tracer provider whose spans end up in the exporter at once."""
    exporter = InMemorySpanExporter()
    provider = recording_provider(exporter)
    yield provider, exporter
    provider.shutdown()
