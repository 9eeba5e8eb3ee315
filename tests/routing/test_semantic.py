"""The `[semantic]` extra: embeddings fused with the lexical ranking (skipped without it)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

import pytest

from toolrail import Router

from .catalogue import registry

semantic = pytest.importorskip("toolrail.routing.semantic", exc_type=ImportError)
np = pytest.importorskip("numpy")

if TYPE_CHECKING:
    from toolrail.routing.semantic import Vectors

TOPICS = {"umbrella": "weather", "raining": "weather", "weather": "weather", "bill": "invoice"}


class TopicEncoder:
    """A stand-in encoder: one axis per topic word it knows, so tests are exact and fast."""

    def encode(self, texts: Sequence[str]) -> Vectors:
        axes = [*sorted(set(TOPICS.values())), "other"]
        rows = np.zeros((len(texts), len(axes)), dtype=np.float32)
        for row, text in enumerate(texts):
            for word, topic in TOPICS.items():
                if word in text.lower():
                    rows[row, axes.index(topic)] = 1.0
            rows[row, -1] = 0.1
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        unit: Vectors = rows / norms
        return unit


def test_a_paraphrase_with_no_shared_word_is_found_by_its_meaning() -> None:
    """'umbrella' shares no word with the weather tool; the embedding finds it."""
    lexical = Router(registry())
    fused = Router(registry(), semantic=semantic.SemanticIndex(TopicEncoder()))
    assert lexical.search("do I need an umbrella?") == ()
    [first, *_] = fused.search("do I need an umbrella?")
    assert first.tool.name == "get_current_weather"
    assert first.explain["similarity"] == pytest.approx(1.0, abs=0.01)


def test_fusion_keeps_the_lexical_winner_and_follows_the_registry() -> None:
    """Fused ranking still puts a clear lexical match first; unregistered tools are gone."""
    catalogue = registry()
    router = Router(catalogue, semantic=semantic.SemanticIndex(TopicEncoder()))
    assert router.search("bill customer 42 for the work")[0].tool.name == "createInvoice"
    catalogue.unregister("createInvoice")
    assert "createInvoice" not in {m.tool.name for m in router.search("bill customer 42")}


def test_the_packaged_model_runs_offline() -> None:
    """The MiniLM shipped in the extra's packages loads from site-packages and ranks."""
    router = Router(registry(), semantic=semantic.SemanticIndex())
    [first, *_] = router.search("What's the weather like in Oslo right now?")
    assert first.tool.name == "get_current_weather"
    assert router.search("tell me a joke about penguins") == ()


def test_a_missing_extra_names_itself() -> None:
    """Without onnxruntime the module says which extra to install."""
    program = "import sys; sys.modules['onnxruntime'] = None; import toolrail.routing.semantic"
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=False, timeout=60
    )
    assert done.returncode != 0
    assert "pip install 'toolrail[semantic]'" in done.stderr


def test_import_toolrail_does_not_load_the_extra() -> None:
    """`import toolrail` (and the router) load neither numpy nor onnxruntime."""
    program = (
        "import sys, toolrail, toolrail.routing; "
        "print(sorted({'numpy', 'onnxruntime', 'tokenizers'} & set(sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "[]"
