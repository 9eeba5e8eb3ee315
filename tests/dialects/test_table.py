"""The README's table of what each provider keeps is the one the exports generate."""

from __future__ import annotations

from pathlib import Path

from toolrail.dialects.table import feature_table

README = Path(__file__).parent.parent.parent / "README.md"


def test_readme_table_is_generated_from_the_rules() -> None:
    """The table under "What each provider keeps" equals `feature_table()`."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## What each provider keeps", 1)[1].split("\n## ", 1)[0]
    table = "\n".join(line for line in section.splitlines() if line.startswith("|"))
    assert table == feature_table()


def test_gemini_allof_merge_is_a_rewrite() -> None:
    """Gemini has no allOf: its object members are merged into one, which the table and
    the report say."""
    from toolrail.dialects import gemini
    from toolrail.dialects.table import verdict

    assert verdict(gemini.dialect, False, "allOf of objects") == "rewritten"
