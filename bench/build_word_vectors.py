"""Make `src/toolrail/routing/word_vectors.bin`, the small static word-vector table the
default router fuses with its lexical ranking (see `toolrail.routing.vectors`). Not a
benchmark and not imported by toolrail; run it when a source changes (a few seconds):

    pip install 'toolrail[semantic]'; apt-get install wamerican
    python bench/build_word_vectors.py [--dims 64] [--vocab dictionary|tokens] [--out PATH]

Source: WordLlama's l2_supercat_256 token table (MIT licence, (c) 2024 Lee Miller,
https://github.com/dleemiller/WordLlama), the model the `[semantic]` extra uses. A word's
vector is what WordLlama gives the word alone: the mean of its tokens' vectors (so a word
its tokenizer splits has one too). Words (`--vocab dictionary`, the default): the lower-case
words of Debian's wamerican list and the whole-word tokens of WordLlama's tokenizer, three
letters or more, less toolrail's stop words; `--vocab tokens`: the whole-word tokens alone.
Words are grouped by Porter stem (the lexical side's words), a stem's vector the mean of
its words'. Dimensions are reduced by PCA over the stems themselves (nothing from any
benchmark), then each dimension is quantised to int8 with its own scale (max |value| / 127).

File layout (little-endian): b"TRWV1", u32 stems, u16 dims, dims x f32 scales, u32 byte
length of the stems blob, the stems joined by "\\n" (UTF-8), then stems x dims int8.
"""

from __future__ import annotations

import argparse
import json
import struct
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from toolrail.routing.porter import porter
from toolrail.routing.semantic import StaticEmbedding, _safetensors_table
from toolrail.routing.text import STOP_WORDS

OUT = Path(__file__).resolve().parent.parent / "src/toolrail/routing/word_vectors.bin"
MAGIC = b"TRWV1"


def keep(word: str) -> bool:
    return (
        word.isascii()
        and word.isalpha()
        and word.islower()
        and len(word) >= 3
        and (word not in STOP_WORDS)
    )


def vocabulary(tokenizer: Path, dictionary: Path | None) -> list[str]:
    vocab: dict[str, int] = json.loads(tokenizer.read_text())["model"]["vocab"]
    words = {token[1:] for token in vocab if token.startswith("▁") and keep(token[1:])}
    if dictionary is not None:
        listed = dictionary.read_text(errors="ignore").splitlines()
        words |= {w.strip() for w in listed if keep(w.strip())}
    return sorted(words)


def word_vectors(words: list[str]) -> np.ndarray:
    """WordLlama's vector of each word alone: the mean of its token vectors (not unit)."""
    from tokenizers import Tokenizer

    static = StaticEmbedding.packaged()
    table = _safetensors_table(static.weights)
    tokens = Tokenizer.from_file(str(static.tokenizer))
    tokens.no_padding()
    tokens.no_truncation()
    out = np.zeros((len(words), table.shape[1]), dtype=np.float64)
    for row, encoded in enumerate(tokens.encode_batch(words, add_special_tokens=False)):
        ids = [i for i in encoded.ids if i < len(table)]
        out[row] = table[ids].mean(axis=0)
    return out


def stem_means(words: list[str], vectors: np.ndarray) -> tuple[list[str], np.ndarray]:
    groups: dict[str, list[int]] = {}
    for index, word in enumerate(words):
        groups.setdefault(porter(word), []).append(index)
    stems = sorted(s for s in groups if len(s) >= 2)
    return stems, np.stack([vectors[groups[s]].mean(axis=0) for s in stems])


def reduce(matrix: np.ndarray, dims: int) -> np.ndarray:
    """PCA over the rows: centred, projected on the `dims` leading components."""
    centred: np.ndarray = matrix - matrix.mean(axis=0)
    if dims >= matrix.shape[1]:
        return centred
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    projected: np.ndarray = centred @ vt[:dims].T
    return projected


def quantise(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    scales = np.abs(matrix).max(axis=0) / 127.0
    scales[scales == 0] = 1.0
    return np.round(matrix / scales).astype(np.int8), scales.astype(np.float32)


def write(path: Path, stems: list[str], q: np.ndarray, scales: np.ndarray) -> None:
    blob = "\n".join(stems).encode()
    data = MAGIC + struct.pack("<IH", len(stems), q.shape[1])
    data += scales.astype("<f4").tobytes() + struct.pack("<I", len(blob)) + blob
    data += q.astype(np.int8).tobytes()
    path.write_bytes(data)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dims", type=int, default=64)
    parser.add_argument("--vocab", choices=("dictionary", "tokens"), default="dictionary")
    parser.add_argument("--words", type=Path, default=Path("/usr/share/dict/words"))
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    tokenizer = StaticEmbedding.packaged().tokenizer
    words = vocabulary(tokenizer, args.words if args.vocab == "dictionary" else None)
    stems, means = stem_means(words, word_vectors(words))
    q, scales = quantise(reduce(means, args.dims))
    write(args.out, stems, q, scales)
    print(
        f"{len(words)} words, {len(stems)} stems, {q.shape[1]} dims -> {args.out} "
        f"({args.out.stat().st_size:,} B)"
    )


if __name__ == "__main__":
    main()
