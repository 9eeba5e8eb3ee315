"""Docstring parsing for tool descriptions and parameter descriptions."""

from __future__ import annotations

from toolrail.core.docstrings import parse_docstring


def test_google_style() -> None:
    """`Args:` items, with types and continuation lines."""
    doc = parse_docstring(
        """Add two numbers.

        Longer text.

        Args:
            a: the first
            b (int): the second,
                counted from zero

        Returns:
            the sum
        """
    )
    assert doc.summary == "Add two numbers.\n\nLonger text."
    assert doc.params == {"a": "the first", "b": "the second, counted from zero"}


def test_numpy_style() -> None:
    """`Parameters` with an underline, types after the colon."""
    doc = parse_docstring(
        """Search.

        Parameters
        ----------
        query : str
            What to find
        limit : int
            How many
        """
    )
    assert doc.summary == "Search."
    assert doc.params == {"query": "What to find", "limit": "How many"}


def test_sphinx_style() -> None:
    """`:param x:` fields; `:returns:` is not a parameter."""
    doc = parse_docstring("Read it.\n\n:param path: the path\n:param int n: count\n:returns: x")
    assert doc.summary == "Read it."
    assert doc.params == {"path": "the path", "n": "count"}


def test_empty_docstring() -> None:
    """No docstring, no description."""
    assert parse_docstring(None).summary == ""
    assert parse_docstring("").params == {}
