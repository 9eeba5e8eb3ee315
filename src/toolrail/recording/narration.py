"""Default one-line texts for tool calls and errors, when a tool has no `describe`.

Never raises: arguments of any shape (broken JSON, lists, huge strings) get some text.
Never shows an argument whose name says it is a secret (`password`, `api_key`, ... by the
redaction policy's own test) or that its tool declares secret (`toolrail.core.declared`),
and redacts a value before shortening it: the line is redacted whole again by whoever
shows it, but a secret must not depend on that.
"""

from __future__ import annotations

from collections.abc import Mapping

import orjson

from toolrail.core.call import RawArguments
from toolrail.core.declared import Masked
from toolrail.core.errors import InvalidArguments, TimedOut, ToolError
from toolrail.core.redact import is_secret_key, redact_text

_MAX = 60

# tool name → (emoji and verb, the argument keys worth showing, in order of preference)
_KNOWN: dict[str, tuple[str, tuple[str, ...]]] = {
    "read_path": ("📖 Reading", ("path",)),
    "write_context_file": ("✏️ Writing", ("path", "name")),
    "shell": ("🔧 Running", ("command", "argv")),
    "generate_inventory": ("🗂 Listing project files", ()),
    "learn": ("🧠 Recording lesson", ("title",)),
}


def describe_call(
    tool: str, arguments: RawArguments, *, read_only: bool = False, source: str = "local"
) -> str:
    """A line such as "📖 Reading src/app.py" or "🌐 mcp__fetch__fetch: example.com"."""
    args = _as_mapping(arguments)
    if tool == "complete":
        return "✅ Completing task and returning control"
    if tool == "end_conversation":
        return "🏁 Ending the conversation"
    if tool in _KNOWN:
        verb, keys = _KNOWN[tool]
        shown = _pick(args, keys)
        return f"{verb} {shown}".rstrip()
    shown = _pick(args, ())
    suffix = f": {shown}" if shown else ""
    if tool.startswith("mcp__") or source == "mcp":
        return f"🌐 {tool}{suffix}"
    return f"{'🔎' if read_only else '⚙️'} {tool}{suffix}"


def describe_error(error: ToolError) -> str:
    """A short account of a failure for a progress line."""
    match error:
        case TimedOut(timeout_s=seconds):
            return f"timed out after {seconds:g}s"
        case InvalidArguments(issues=issues):
            count = len(issues)
            return f"invalid arguments ({count} issue{'s' if count != 1 else ''})"
        case _:
            return _short(error.message.splitlines()[0] if error.message else error.kind)


def _as_mapping(arguments: RawArguments) -> Mapping[str, object]:
    if type(arguments) is dict:  # the common shapes first: `Mapping` is a slow ABC check
        return arguments
    if isinstance(arguments, str | bytes):
        if not arguments:
            return {}
        try:
            decoded = orjson.loads(arguments)
        except orjson.JSONDecodeError:
            return {}
        return decoded if isinstance(decoded, dict) else {}
    if isinstance(arguments, Mapping):
        return arguments
    return {}


def _pick(args: Mapping[str, object], keys: tuple[str, ...]) -> str:
    """The most telling argument: a preferred key, else the first scalar not named secret."""
    for key in keys:
        if key in args:
            return _short(_text(args[key]))
    for key, value in args.items():
        if type(key) is not str or is_secret_key(key) or type(value) is Masked:
            continue  # named a secret, or declared one by the tool
        kind = type(value)
        if kind is int or kind is float:  # one word, no URL: only its length to check
            text = str(value)
            return text if len(text) <= _MAX else _short(text)
        if kind is str:
            return _short(_text(value))
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            return _short(_text(value))
    return ""


def _text(value: object) -> str:
    if isinstance(value, list | tuple):
        return " ".join(str(v) for v in value)
    text = str(value)
    if "http" not in text:
        return text
    # redacted first: the scheme's "://" is what marks a URL's credentials for the policy
    return redact_text(text).removeprefix("https://").removeprefix("http://")


def _short(text: str) -> str:
    if len(text) <= _MAX and text.isprintable() and "  " not in text and text == text.strip():
        return text  # one line, single spaces, short: already as `split` and `join` make it
    text = " ".join(text.split())
    return text if len(text) <= _MAX else text[: _MAX - 1] + "…"
