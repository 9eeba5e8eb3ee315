"""Secret shapes a review found showing: a value in escaped single quotes `\\'...\\'` (a
Python repr of a string holding both kinds of quote), read as `\\"...\\"` is, and an XML
element's text that is a CDATA section (`<password><![CDATA[X]]></password>`)."""

from __future__ import annotations

import pytest

from tests.hang_guard import finished
from toolrail.core.redact import REDACTED, redact_text

X = "hunter2-s3cr3t"
R = REDACTED


# --- 1. a value in escaped single quotes ------------------------------------------------------

ESCAPED_SINGLE = [
    (f"export DB_PASSWORD=\\'{X}\\'", f"export DB_PASSWORD=\\'{R}\\'"),
    (repr(f"""mysql -u root --password='{X}' -e "select 1" """), None),  # (see below)
    (f"run --password=\\'{X}\\' --verbose", None),
    (
        repr(f"""export DB_PASSWORD='{X}'; echo "done" """),
        f"""'export DB_PASSWORD=\\'{R}\\'; echo "done" '""",
    ),
    (f"name=DB_PASSWORD value=\\'{X}\\'", f"name=DB_PASSWORD value=\\'{R}\\'"),
    (
        repr(f"""name=DB_PASSWORD value='{X}' "x" """),
        f"""'name=DB_PASSWORD value=\\'{R}\\' "x" '""",
    ),
    (f"\\'name\\': \\'DB_PASSWORD\\', \\'value\\': \\'{X}\\'", None),
    (f"Key=password,Value=\\'{X}\\'", f"Key=password,Value=\\'{R}\\'"),
    (f"value=\\'{X}\\' name=DB_PASSWORD", f"value=\\'{R}\\' name=DB_PASSWORD"),
    (f"password: \\'{X}\\'", f"password: \\'{R}\\'"),
    (f"\\'password\\': \\'{X}\\'", f"\\'password\\': \\'{R}\\'"),
    (f"api_key=\\'{X} with spaces\\' next", f"api_key=\\'{R}\\' next"),
    (f"DB_PASSWORD=\\'{X}\\\\n\\\\\\'x\\' --verbose", f"DB_PASSWORD=\\'{R}\\' --verbose"),
    (f"DB_PASSWORD=\\'{X} cut off", f"DB_PASSWORD=\\'{R}"),  # cut off: to the line's end
    (f"name=DB_PASSWORD value=\\'{X} cut", f"name=DB_PASSWORD value=\\'{R}"),
    (f"DB_PASSWORD=\\'{X}\\' other=\\'shown\\'", f"DB_PASSWORD=\\'{R}\\' other=\\'shown\\'"),
]
ESCAPED_SINGLE_STAYS = [
    "it\\'s fine",
    "don\\'t",
    repr("""it's fine, don't "worry" """),
    "user=\\'root\\' host=\\'db\\'",
    "name=DB_HOST value=\\'localhost\\'",
    "DB_PASSWORD=\\'\\'",  # empty, as `""` stays
    "name=DB_PASSWORD value=\\'\\'",
    "author=\\'O\\\\\\'Brien\\'",
]


@pytest.mark.parametrize(("text", "shown"), ESCAPED_SINGLE)
def test_a_value_in_escaped_single_quotes_is_hidden_whole(text: str, shown: str | None) -> None:
    redacted = redact_text(text)
    assert X not in redacted
    assert "s3cr3t" not in redacted
    if shown is not None:
        assert redacted == shown


# a flag's value in escaped single quotes: `--password=\\'X\\'` is read as an assignment too,
# and hidden so, but the flag's own reading (flags.py, edited elsewhere now) takes the
# backslash for a one-character value still (`--password=[REDACTED]'[REDACTED]\\'`), and
# `--token \\'X\\'` (a space, no `=`) is read by it alone
FLAG_ESCAPED_SINGLE = [
    (
        repr(f"""mysql -u root --password='{X}' -e "select 1" """),
        f"""'mysql -u root --password=\\'{R}\\' -e "select 1" '""",
    ),
    (f"run --token \\'{X}\\'", f"run --token \\'{R}\\'"),
]


@pytest.mark.parametrize(("text", "shown"), FLAG_ESCAPED_SINGLE)
def test_a_flags_value_in_escaped_single_quotes_is_hidden(text: str, shown: str) -> None:
    assert redact_text(text) == shown


@pytest.mark.parametrize("text", ESCAPED_SINGLE_STAYS)
def test_escaped_single_quotes_naming_no_secret_stay(text: str) -> None:
    assert redact_text(text) == text


# --- 2. an element's text that is a CDATA section ------------------------------------------

CDATA = [
    (f"<password><![CDATA[{X}]]></password>", f"<password><![CDATA[{R}]]></password>"),
    (
        f'<property name="password"><![CDATA[{X}]]></property>',
        f'<property name="password"><![CDATA[{R}]]></property>',
    ),
    (
        f"<property><name>db.password</name><value><![CDATA[{X}]]></value></property>",
        f"<property><name>db.password</name><value><![CDATA[{R}]]></value></property>",
    ),
    (
        f"<property><name><![CDATA[db.password]]></name><value>{X}</value></property>",
        f"<property><name><![CDATA[db.password]]></name><value>{R}</value></property>",
    ),
    (
        f'<entry key="db.password"><![CDATA[{X}]]></entry>',
        f'<entry key="db.password"><![CDATA[{R}]]></entry>',
    ),
    (
        f'<wsse:Password Type="t">\n  <![CDATA[{X}]]>\n</wsse:Password>',
        f'<wsse:Password Type="t">\n  <![CDATA[{R}]]>\n</wsse:Password>',
    ),
    (
        f"<password><![CDATA[{X} <b>&amp; more]]></password>",
        f"<password><![CDATA[{R}]]></password>",
    ),
    (f"<password><![CDATA[{X}", f"<password><![CDATA[{R}"),  # cut off inside it
    (f"<password><![CDATA[{X} more]", f"<password><![CDATA[{R}"),
    (f"<password><![CDATA[{X}]]></pass", f"<password><![CDATA[{R}]]></pass"),
    (f"<password><![CDATA[{X}]]>", f"<password><![CDATA[{R}]]>"),
    (
        f"<name>DB_PASSWORD</name><value><![CDATA[{X}",
        f"<name>DB_PASSWORD</name><value><![CDATA[{R}",
    ),
]
CDATA_STAYS = [
    "<note><![CDATA[hello]]></note>",
    "<description><![CDATA[the password is set elsewhere]]></description>",
    '<property name="host"><![CDATA[db.local]]></property>',
    "<property><name>db.host</name><value><![CDATA[db.local]]></value></property>",
    "<password><![CDATA[]]></password>",  # empty
    "<note><![CDATA[cut off",
]


@pytest.mark.parametrize(("text", "shown"), CDATA)
def test_an_elements_cdata_section_is_its_value(text: str, shown: str) -> None:
    assert redact_text(text) == shown


@pytest.mark.parametrize("text", CDATA_STAYS)
def test_a_cdata_section_naming_no_secret_stays(text: str) -> None:
    assert redact_text(text) == text


# --- linear time -----------------------------------------------------------------------------

MB = 1_000_000


@pytest.mark.parametrize(
    "text",
    [
        "\\'" * (MB // 2),
        "DB_PASSWORD=\\'" * (MB // 14),
        "DB_PASSWORD=\\'x\\\\" * (MB // 16),
        "name=DB_PASSWORD value=\\'" * (MB // 25),
        "\\'password\\': \\'" * (MB // 17),
        "<![CDATA[" * (MB // 9),
        "<password><![CDATA[" * (MB // 19),
        "<password><![CDATA[x]]>y" * (MB // 24),
        "<password>  <![CDATA" * (MB // 20),
        "<name>DB_PASSWORD</name><value><![CDATA[" * (MB // 40),
        '<entry key="password"><![CDATA[' * (MB // 31),
        "<value><![CDATA[x]]>" * (MB // 20),
        "<name><![CDATA[" * (MB // 15),  # a name read, nothing hidden: each read once
    ],
)
def test_hostile_escaped_quotes_and_cdata_take_linear_time(text: str) -> None:
    assert finished(lambda: redact_text(text)), text[:40]
