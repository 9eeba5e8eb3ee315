"""A table's value cell after a secret's name (review of 53523a0): a placeholder is kept
only as the name's own metavar (`| --token | TOKEN |`, `<password>`), not any capitalised
word that names a secret (`SUPERSECRET` is a password); `secret` is a demo's password, not
a schema's word; a SQL type is one (psql's `\\d`); a name in markdown emphasis is a name."""

from __future__ import annotations

import pytest

from toolrail.core.redact import REDACTED, redact_text

X = "hunter2-s3cr3t"

HIDDEN = [
    ("| password | SUPERSECRET |", f"| password | {REDACTED} |"),
    ("| api_key | MASTERKEY |", f"| api_key | {REDACTED} |"),
    (" password | secret", f" password | {REDACTED}"),
    ("| password | secret |", f"| password | {REDACTED} |"),
    ("| --db-password | APITOKEN |", f"| --db-password | {REDACTED} |"),
    (f"| __api_key__ | {X} |", f"| __api_key__ | {REDACTED} |"),
    (f"| **Password** | {X} |", f"| **Password** | {REDACTED} |"),
    (f"| *password* | {X} |", f"| *password* | {REDACTED} |"),
    (f"| **`DB_PASSWORD`** | {X} |", f"| **`DB_PASSWORD`** | {REDACTED} |"),
    (f"**password** = {X}", f"**password** = {REDACTED}"),
]

KEPT = [
    "| --token | TOKEN |",
    "| --api-key | API_KEY |",
    "| --db-password | PASSWORD |",
    "| DB_PASSWORD | DB_PASSWORD |",
    "| password | <password> |",
    "| **password** | string | yes |",
    " password | varchar",
    " api_key | uuid",
    " token | jsonb",
    " password | character varying",
    "| password | timestamptz |",
    "| secret_key | bytea |",
]


@pytest.mark.parametrize(("text", "shown"), HIDDEN)
def test_a_value_cell_is_hidden(text: str, shown: str) -> None:
    assert redact_text(text) == shown


@pytest.mark.parametrize("text", KEPT)
def test_a_cell_that_says_what_the_name_is_stays(text: str) -> None:
    assert redact_text(text) == text
