"""Library diagnostics: stdlib `logging` under the "toolrail" logger, redacted, never stdout.

toolrail configures no handler. With none configured, Python's last-resort handler prints
warnings and errors to stderr and drops the rest; an application that configures logging
(or structlog's stdlib integration) gets everything, at the levels it chooses. Fields are
rendered `key=value` after the one redaction policy (`toolrail.core.redact`) has seen them, and
an exception is told as its type and redacted message, never a traceback with locals.

    log = get_logger("toolrail.executor")
    log.warning("sink failed", sink="jsonl", error_type="OSError")
"""

from __future__ import annotations

import logging
import sys

from toolrail.core.redact import redact, redact_text

__all__ = ["Diagnostics", "callable_name", "get_logger"]


class Diagnostics:
    """A stdlib logger that takes fields as keyword arguments, as structlog's do."""

    __slots__ = ("_logger",)

    def __init__(self, logger: logging.Logger) -> None:
        self._logger = logger

    def debug(self, event: str, **fields: object) -> None:
        self._log(logging.DEBUG, event, fields)

    def info(self, event: str, **fields: object) -> None:
        self._log(logging.INFO, event, fields)

    def warning(self, event: str, **fields: object) -> None:
        self._log(logging.WARNING, event, fields)

    def error(self, event: str, **fields: object) -> None:
        self._log(logging.ERROR, event, fields)

    def exception(self, event: str, **fields: object) -> None:
        """An error with the exception being handled, told as type and redacted message."""
        error = sys.exc_info()[1]
        if error is not None:
            fields["error"] = f"{type(error).__name__}: {_str(error)}"
        self._log(logging.ERROR, event, fields)

    def _log(self, level: int, event: str, fields: dict[str, object]) -> None:
        if not self._logger.isEnabledFor(level):
            return
        try:
            clean = redact(fields)
            pairs = clean.items() if isinstance(clean, dict) else fields.items()
            rendered = " ".join(f"{key}={value!r}" for key, value in pairs)
            text = redact_text(f"{event} {rendered}".rstrip())
        except Exception:  # a diagnostic never breaks what it reports on, nor shows raw values
            text = f"{event} (fields withheld: they could not be redacted)"
        self._logger.log(level, "%s", text)


def callable_name(function: object) -> str:
    """A user's callable (a sink, a listener), named for the diagnostics that report its
    failure: its own name, else its type's. Never raises: a proxy's attributes may raise
    anything, and the report must not fail the call it is made for."""
    try:
        name = getattr(function, "__qualname__", None)
        return name if isinstance(name, str) and name else type(function).__name__
    except Exception:
        return type(function).__name__


def get_logger(name: str) -> Diagnostics:
    return Diagnostics(logging.getLogger(name))


def _str(error: BaseException) -> str:
    try:
        return str(error)
    except Exception:
        return "<unprintable>"
