"""Tables shipped inside `toolrail.routing` (the expansion's neighbours, the word vectors):
each read from the package and parsed on first use, by one thread, then kept."""

from __future__ import annotations

import threading
from collections.abc import Callable
from importlib import resources
from typing import TypeVar

T = TypeVar("T")


def shipped(name: str, parse: Callable[[bytes], T]) -> Callable[[], T]:
    """A function giving the package file `name` as `parse` reads it: read at the first
    call (one reader at a time, so once), then the same value at every call."""
    lock = threading.Lock()
    loaded: list[T] = []

    def table() -> T:
        if not loaded:
            with lock:
                if not loaded:
                    data = resources.files(__package__).joinpath(name).read_bytes()
                    loaded.append(parse(data))
        return loaded[0]

    return table
