"""Make `src/toolrail/routing/neighbours.tsv`, the query-expansion table (see
`toolrail.routing.expansion`), from WordLlama's token embeddings and a general English word
list. Not a benchmark and not imported by toolrail; run it when either source changes:

    pip install 'toolrail[semantic]'; apt-get install wamerican
    python bench/build_neighbours.py [--words /usr/share/dict/words] [--out PATH]

Vocabulary: the lower-case whole-word tokens ("▁word") of WordLlama's tokenizer, three
letters or more, that the word list also holds (the tokenizer alone also has word pieces and
other languages' words), less toolrail's stop words. Only single-token words: a word the
tokenizer splits has no vector of its own, and the mean of its pieces' vectors is close to
words spelt alike ("forecast" to "foreclose"), not to words meaning alike.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from toolrail.routing.expansion import MAX_NEIGHBOURS, MIN_SIMILARITY
from toolrail.routing.porter import porter
from toolrail.routing.semantic import StaticEmbedding, _safetensors_table
from toolrail.routing.text import STOP_WORDS

OUT = Path(__file__).resolve().parent.parent / "src/toolrail/routing/neighbours.tsv"
HEADER = """\
# Query-expansion neighbours for toolrail's lexical router (toolrail.routing.expansion).
# stem<TAB>neighbour:cosine ... (Porter stems, best first, cosine >= {threshold}, at most {k}).
# Made by bench/build_neighbours.py from WordLlama's l2_supercat_256 token embeddings
# (WordLlama, MIT License, Copyright (c) 2024 Lee Miller, github.com/dleemiller/WordLlama)
# over the lower-case single-token words of its tokenizer found in {words_name}.
"""


def vocabulary(tokenizer: Path, words: Path) -> dict[str, int]:
    """word -> token id, for the whole-word tokens that are dictionary words."""
    vocab: dict[str, int] = json.loads(tokenizer.read_text())["model"]["vocab"]
    known = {line.strip() for line in words.read_text(errors="ignore").splitlines()}
    found = {}
    for token, index in vocab.items():
        word = token[1:]
        if (
            token.startswith("▁")
            and word.isascii()
            and word.isalpha()
            and word.islower()
            and len(word) >= 3
            and word in known
            and word not in STOP_WORDS
        ):
            found[word] = index
    return found


def table(words: dict[str, int], vectors: np.ndarray) -> dict[str, list[tuple[str, float]]]:
    """stem -> nearest stems by cosine (a stem's vector: the mean of its words' unit ones)."""
    groups: dict[str, list[int]] = {}
    for word, index in sorted(words.items()):
        groups.setdefault(porter(word), []).append(index)
    stems = sorted(groups)
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    means = np.stack([unit[groups[stem]].mean(axis=0) for stem in stems])
    means /= np.linalg.norm(means, axis=1, keepdims=True)
    cosines = means @ means.T
    np.fill_diagonal(cosines, -1.0)
    out: dict[str, list[tuple[str, float]]] = {}
    for row, stem in enumerate(stems):
        best = np.argsort(-cosines[row], kind="stable")[:MAX_NEIGHBOURS]
        near = [
            (stems[j], round(float(cosines[row, j]), 2))
            for j in best
            if cosines[row, j] >= MIN_SIMILARITY
        ]
        if near:
            out[stem] = near
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words", type=Path, default=Path("/usr/share/dict/words"))
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    model = StaticEmbedding.packaged()
    words = vocabulary(model.tokenizer, args.words)
    near = table(words, _safetensors_table(model.weights))
    lines = [
        HEADER.format(threshold=MIN_SIMILARITY, k=MAX_NEIGHBOURS, words_name="Debian's wamerican")
    ]
    lines += [
        stem + "\t" + " ".join(f"{word}:{cosine:.2f}" for word, cosine in pairs) + "\n"
        for stem, pairs in near.items()
    ]
    args.out.write_text("".join(lines), encoding="utf-8")
    pairs = sum(len(p) for p in near.values())
    print(f"{len(words)} words, {len(near)} stems with neighbours, {pairs} pairs -> {args.out}")


if __name__ == "__main__":
    main()
