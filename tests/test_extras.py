"""A missing extra says which extra to install, not a bare ModuleNotFoundError."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize(
    ("module", "missing", "extra"),
    [
        ("toolrail.recording.ui", "rich", "toolrail[ui]"),
        ("toolrail.observe.otel", "opentelemetry", "toolrail[otel]"),
        ("toolrail.observe.metrics", "prometheus_client", "toolrail[prometheus]"),
    ],
)
def test_a_missing_extra_names_itself(module: str, missing: str, extra: str) -> None:
    program = f"import sys; sys.modules[{missing!r}] = None; import {module}"
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=False, timeout=60
    )
    assert done.returncode != 0
    assert f"pip install '{extra}'" in done.stderr


def test_import_toolrail_stays_light() -> None:
    program = (
        "import sys, toolrail; heavy = {'openai', 'anthropic', 'google.genai', "
        "'opentelemetry', 'prometheus_client', 'mcp'} & set(sys.modules); print(sorted(heavy))"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "[]"


def test_the_front_door_has_what_users_look_for() -> None:
    """Events, Sink, Gates, McpHub, Model and the provider models are where users look."""
    import toolrail
    import toolrail.models

    for name in ("Sink", "ToolEvent", "ToolCompleted", "Gates", "Rules", "McpHub", "Model"):
        assert name in toolrail.__all__, name
        assert getattr(toolrail, name) is not None
    for name in ("OpenAIChatModel", "AnthropicModel", "GeminiModel", "TestModel", "Message"):
        assert name in toolrail.models.__all__, name
        assert getattr(toolrail.models, name) is not None


def test_serialising_an_odd_value_does_not_import_numpy() -> None:
    """orjson's numpy option imported numpy (~0.1 s) inside the first call that returned a
    dataclass; numpy values are still written, as lists."""
    program = (
        "import sys\n"
        "from toolrail import EndConversation\n"
        "from toolrail._jsonish import dumps\n"
        "dumps(EndConversation(reason='done'))\n"
        "print('numpy' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert done.stdout.strip() == "False", done.stderr
