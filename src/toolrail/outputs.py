"""Oversized outputs: cut to a cap, with the whole output kept in a file for later."""

from __future__ import annotations

from pathlib import Path

from toolrail.jsonish import dumps


def cap_output(value: object, cap: int, spill: Path) -> object:
    """`value` if its text fits in `cap` characters; else a marker with a preview, the
    original size and the path of a file (`spill` plus a suffix) holding all of it."""
    text = value if isinstance(value, str) else dumps(value).decode()
    if len(text) <= cap:
        return value
    marker: dict[str, object] = {
        "truncated": True,
        "original_chars": len(text),
        "preview": text[:cap] + "…",
    }
    path = spill.with_name(spill.name + (".txt" if isinstance(value, str) else ".json"))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        marker["full_output_path"] = str(path)
    except OSError as error:
        marker["full_output_error"] = str(error)
    return marker
