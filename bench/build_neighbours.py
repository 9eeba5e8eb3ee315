"""Make `src/toolrail/routing/neighbours.tsv`, the query-expansion table (see
`toolrail.routing.expansion`), from all-MiniLM-L6-v2 word vectors, WordLlama's tokenizer
and a general English word list. Not a benchmark and not imported by toolrail; run it when
a source changes (it encodes ~64,000 words: a few minutes on two cores):

    pip install 'toolrail[semantic]'; apt-get install wamerican
    python bench/build_neighbours.py [--words /usr/share/dict/words] [--out PATH]

Keys: every lower-case word of the list, three letters or more, less toolrail's stop words,
grouped by Porter stem. A word's vector is MiniLM's sentence embedding of the word alone
(model2vec's way to distil a static table from a sentence encoder): any word has one, also
a word a tokenizer splits, which a table of token embeddings cannot give a vector of its
own. Neighbours: only stems of common words, the whole-word tokens of WordLlama's
tokenizer that the list also holds (a frequent-word list: a tool's text says "buy", not
"procure"), so the few places a word has are not spent on rare words and spellings alike.
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
from toolrail.routing.semantic import MiniLM, StaticEmbedding
from toolrail.routing.text import STOP_WORDS

OUT = Path(__file__).resolve().parent.parent / "src/toolrail/routing/neighbours.tsv"
HEADER = """\
# Query-expansion neighbours for toolrail's lexical router (toolrail.routing.expansion).
# stem<TAB>neighbour:cosine ... (Porter stems, best first, cosine >= {threshold}, at most {k}).
# Made by bench/build_neighbours.py: the words of {words_name}, each embedded alone by
# all-MiniLM-L6-v2 (Apache-2.0, sentence-transformers, huggingface.co/sentence-transformers);
# neighbours among the whole-word tokens of WordLlama's tokenizer (WordLlama, MIT License,
# Copyright (c) 2024 Lee Miller, github.com/dleemiller/WordLlama).
"""


def dictionary_words(path: Path) -> list[str]:
    """The list's lower-case words, three letters or more, less toolrail's stop words."""
    listed = {line.strip() for line in path.read_text(errors="ignore").splitlines()}
    return sorted(
        w
        for w in listed
        if w.isascii() and w.isalpha() and w.islower() and len(w) >= 3 and w not in STOP_WORDS
    )


def common_words(tokenizer: Path, words: set[str]) -> set[str]:
    """The `words` that are whole-word tokens ("▁word") of the tokenizer: common words."""
    vocab: dict[str, int] = json.loads(tokenizer.read_text())["model"]["vocab"]
    return {token[1:] for token in vocab if token.startswith("▁") and token[1:] in words}


def word_vectors(words: list[str]) -> np.ndarray:
    """Unit MiniLM vectors of `words`, each encoded alone."""
    vectors: np.ndarray = MiniLM.packaged().encode(words)
    return vectors


def stem_means(words: list[str], vectors: np.ndarray) -> tuple[list[str], np.ndarray]:
    """The stems of `words` and, for each, the unit mean of its words' vectors."""
    groups: dict[str, list[int]] = {}
    for index, word in enumerate(words):
        groups.setdefault(porter(word), []).append(index)
    stems = sorted(groups)
    means = np.stack([vectors[groups[stem]].mean(axis=0) for stem in stems])
    means /= np.linalg.norm(means, axis=1, keepdims=True)
    return stems, means


def table(
    stems: list[str], means: np.ndarray, common: set[str]
) -> dict[str, list[tuple[str, float]]]:
    """stem -> its nearest common stems by cosine, at least MIN_SIMILARITY."""
    targets = np.array([i for i, stem in enumerate(stems) if stem in common])
    out: dict[str, list[tuple[str, float]]] = {}
    for start in range(0, len(stems), 2048):
        cosines = means[start : start + 2048] @ means[targets].T
        for row, similarities in enumerate(cosines):
            stem = stems[start + row]
            best = np.argsort(-similarities, kind="stable")[: MAX_NEIGHBOURS + 1]
            near = [
                (stems[targets[j]], round(float(similarities[j]), 2))
                for j in best
                if stems[targets[j]] != stem and similarities[j] >= MIN_SIMILARITY
            ][:MAX_NEIGHBOURS]
            if near:
                out[stem] = near
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words", type=Path, default=Path("/usr/share/dict/words"))
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    words = dictionary_words(args.words)
    tokenizer = StaticEmbedding.packaged().tokenizer
    common = {porter(w) for w in common_words(tokenizer, set(words))}
    stems, means = stem_means(words, word_vectors(words))
    near = table(stems, means, common)
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
