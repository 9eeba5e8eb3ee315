"""Library diagnostics: redacted, and never a reason for what they report on to fail."""

from __future__ import annotations

import logging

import pytest

from toolrail._diagnostics import get_logger


class Unprintable:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")


def test_a_field_that_cannot_be_shown_is_withheld_not_raised(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="toolrail.test"):
        get_logger("toolrail.test").warning("sink failed", sink=Unprintable())
    assert caplog.messages == ["sink failed (fields withheld: they could not be redacted)"]


def test_fields_are_redacted(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="toolrail.test"):
        get_logger("toolrail.test").warning("call", api_key="sk-live-abcdef0123456789abcd", n=3)
    assert caplog.messages == ["call api_key='[REDACTED]' n=3"]
