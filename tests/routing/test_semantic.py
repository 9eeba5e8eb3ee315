"""The `[semantic]` extra: embeddings fused with the lexical ranking (skipped without it)."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from toolrail import Router
from toolrail.routing import RoutingSettings

from .catalogue import registry

semantic = pytest.importorskip("toolrail.routing.semantic", exc_type=ImportError)
np = pytest.importorskip("numpy")

if TYPE_CHECKING:
    from toolrail.routing.semantic import Vectors

TOPICS = {"umbrella": "weather", "raining": "weather", "weather": "weather", "bill": "invoice"}


class TopicEncoder:
    """A stand-in encoder: one axis per topic word it knows, so tests are exact and fast.
    It counts the texts it was asked to encode."""

    key = "topics"

    def __init__(self) -> None:
        self.encoded: list[str] = []

    def encode(self, texts: Sequence[str]) -> Vectors:
        self.encoded.extend(texts)
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
    """The static model shipped in the extra's packages loads from site-packages and ranks."""
    router = Router(registry(), semantic=semantic.SemanticIndex())
    [first, *_] = router.search("What's the weather like in Oslo right now?")
    assert first.tool.name == "get_current_weather"
    assert router.search("tell me a joke about penguins") == ()


def test_minilm_joins_the_static_model() -> None:
    """`SemanticIndex.accurate()` fuses two embedding rankings with the lexical one."""
    try:
        index = semantic.SemanticIndex.accurate()
    except (ModuleNotFoundError, FileNotFoundError):
        pytest.skip("MiniLM's packages are not installed")
    router = Router(registry(), semantic=index)
    assert len(index.encoders) == 2
    [first, *_] = router.search("will it rain in Oslo?")
    assert first.tool.name == "get_current_weather"
    assert isinstance(similarity := first.explain["similarity"], float)
    assert similarity > 0.2


def test_a_tool_is_encoded_once_per_text() -> None:
    """Re-registering a tool unchanged encodes nothing; changing its text encodes it again."""
    catalogue, encoder = registry(), TopicEncoder()
    router = Router(catalogue, semantic=semantic.SemanticIndex(encoder))
    router.search("raining")
    first = len(encoder.encoded)
    weather = catalogue.find("get_current_weather")
    assert weather is not None
    catalogue.unregister(weather.name)
    catalogue.register(weather)
    router.search("raining")
    assert len(encoder.encoded) == first + 1  # the request only
    catalogue.unregister(weather.name)
    catalogue.register(replace(weather, description="Forecast: will it rain, or an umbrella?"))
    router.search("raining")
    assert len(encoder.encoded) == first + 3  # the request and the new text


def test_the_disk_cache_spares_a_restart_the_encoding(tmp_path: Path) -> None:
    """A second index over the same `cache_dir` encodes only the requests."""
    first = TopicEncoder()
    Router(registry(), semantic=semantic.SemanticIndex(first, cache_dir=tmp_path)).search("bill")
    assert (tmp_path / "topics.npz").is_file()
    again = TopicEncoder()
    router = Router(registry(), semantic=semantic.SemanticIndex(again, cache_dir=tmp_path))
    assert router.search("umbrella")[0].tool.name == "get_current_weather"
    assert again.encoded == ["umbrella"]


def test_a_static_model_from_local_files(tmp_path: Path) -> None:
    """`StaticEmbedding.from_files` reads a safetensors table and a tokenizer.json."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    vocab = {"[UNK]": 0, "umbrella": 1, "rain": 2, "weather": 3, "invoice": 4, "bill": 5}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.save(str(tmp_path / "tokenizer.json"))
    table = np.zeros((len(vocab), 3), dtype=np.float16)
    table[[1, 2, 3], 0] = 1.0
    table[[4, 5], 1] = 1.0
    table[0, 2] = 0.1
    header = json.dumps(
        {
            "embeddings": {
                "dtype": "F16",
                "shape": list(table.shape),
                "data_offsets": [0, table.nbytes],
            }
        }
    ).encode()
    (tmp_path / "model.safetensors").write_bytes(
        struct.pack("<Q", len(header)) + header + table.tobytes()
    )
    model = semantic.StaticEmbedding.from_files(
        tmp_path / "model.safetensors", tmp_path / "tokenizer.json"
    )
    vectors = model.encode(["umbrella please", "the bill", "nothing known"])
    assert vectors @ vectors[0] == pytest.approx([1.0, 0.0, 0.0], abs=1e-3)


def test_rank_fusion_is_a_setting() -> None:
    """RRF instead of CombSUM still finds the paraphrase."""
    settings = RoutingSettings(fusion="rrf")
    router = Router(registry(), semantic=semantic.SemanticIndex(TopicEncoder()), settings=settings)
    assert router.search("do I need an umbrella?")[0].tool.name == "get_current_weather"


def test_a_missing_extra_names_itself() -> None:
    """Without tokenizers the module says which extra to install."""
    program = "import sys; sys.modules['tokenizers'] = None; import toolrail.routing.semantic"
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
