"""What shows in place of what the policy hides, and how deep `redact` looks."""

from __future__ import annotations

REDACTED = "[REDACTED]"
MAX_DEPTH = 64
"""How deep `redact` looks into data; a value deeper down is shown as `TOO_DEEP`."""
TOO_DEEP = "[TOO DEEP]"
