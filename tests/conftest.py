"""Shared fixtures: async tests run under anyio on asyncio."""

from __future__ import annotations

import pytest
from hypothesis import settings

# no per-example deadline: a loaded CI machine must not turn slowness into failures
settings.register_profile("toolrail", deadline=None)
settings.load_profile("toolrail")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True, scope="session")
def _quiet_diagnostics() -> None:
    """Library diagnostics go through structlog; in tests keep them cheap and silent."""
    import structlog

    structlog.configure(
        processors=[structlog.processors.add_log_level, structlog.processors.format_exc_info],
        logger_factory=structlog.ReturnLoggerFactory(),
        cache_logger_on_first_use=False,
    )
