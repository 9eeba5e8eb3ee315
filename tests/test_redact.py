"""One redaction policy, every surface: properties over many spellings of each secret shape,
and the log line, progress text, spill file and error message of a real call."""

from __future__ import annotations

import threading
from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolrail import ExecutionContext, Executor, JsonlCallLog, ToolCall, ToolRegistry, tool
from toolrail.core.redact import REDACTED, cut, is_secret_key, redact, redact_text
from toolrail.recording.stream import ProgressUpdate, ToolStreamHandler

pytestmark = pytest.mark.anyio

ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
BODY = st.text(alphabet=ALNUM, min_size=24, max_size=48)
SECRETS = st.one_of(
    BODY.map(lambda b: f"sk-{b}"),
    BODY.map(lambda b: f"sk-proj-{b}"),
    BODY.map(lambda b: f"sk-ant-api03-{b}"),
    BODY.map(lambda b: f"ghp_{b}"),
    BODY.map(lambda b: f"gho_{b}"),
    BODY.map(lambda b: f"github_pat_11A_{b}"),
    BODY.map(lambda b: f"xoxb-{b}"),
    st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", min_size=16, max_size=16).map(
        lambda b: f"AKIA{b}"
    ),
    BODY.map(lambda b: f"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOi{b}.{b}"),
)
# how a secret can sit in text: after a separator, quoted, in JSON, in a URL, in argv
CONTEXTS = st.sampled_from(
    [
        "{}",
        "key {} here",
        "KEY={}",
        "key:{}",
        '"{}"',
        "'{}'",
        '{{"value": "{}"}}',
        "https://example.com/?k={}&x=1",
        "line one\n{}\nline three",
        "(token {})",
    ]
)
ASSIGNED_KEYS = st.sampled_from(
    [
        "password",
        "PASSWORD",
        "db_password",
        "DB_PASSWORD",
        "passwd",
        "pwd",
        "secret",
        "client_secret",
        "api_key",
        "apiKey",
        "API-KEY",
        "access_key",
        "token",
        "auth_token",
    ]
)
SEPARATORS = st.sampled_from(["=", ": ", " = ", '": "', "=", ":"])
VALUES = st.text(alphabet=ALNUM + "!#$%^*()-_+", min_size=6, max_size=24)


@given(SECRETS, CONTEXTS)
def test_a_token_is_redacted_wherever_it_sits(secret: str, context: str) -> None:
    text = context.format(secret)
    redacted = redact_text(text)
    assert secret not in redacted
    assert REDACTED in redacted


@given(ASSIGNED_KEYS, SEPARATORS, VALUES)
def test_a_value_assigned_to_a_secret_name_in_text_is_redacted(
    key: str, separator: str, value: str
) -> None:
    text = f"connect with {key}{separator}{value} now"
    assert value not in redact_text(text).replace(REDACTED, "")


@given(
    st.sampled_from(["--password", "--token", "--secret", "--api-key", "-password", "--pass"]),
    VALUES,
    st.booleans(),
)
def test_argv_flags_hide_their_values(flag: str, value: str, joined: bool) -> None:
    argv = ["login", f"{flag}={value}"] if joined else ["login", flag, value]
    assert value not in orjson.dumps(redact({"argv": argv})).decode()
    assert value not in redact_text(" ".join(argv)).replace(REDACTED, "")


@pytest.mark.parametrize(
    "key",
    [
        "api_key",
        "apiKey",
        "apiToken",
        "dbPassword",
        "secretKey",
        "X-Api-Key",
        "Authorization",
        "APITOKEN",
        "DBPASSWORD",
        "client_secret",
        "accessToken",
        "session_id",
        "PRIVATE_KEY",
    ],
)
def test_secret_key_names_in_any_spelling(key: str) -> None:
    assert is_secret_key(key)
    assert redact({"outer": [{key: "value-123"}]}) == {"outer": [{key: REDACTED}]}


@pytest.mark.parametrize("key", ["max_tokens", "tokenizer", "num_tokens", "path", "keyboard"])
def test_ordinary_key_names_stay(key: str) -> None:
    assert not is_secret_key(key)


def test_pem_blocks_bearer_and_url_credentials() -> None:
    pem = (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabc+/==\n-----END RSA PRIVATE KEY-----"
    )
    text = f"key:\n{pem}\nAuthorization: Bearer abcdefgh.ijk\npostgres://admin:hunter2@db/x"
    redacted = redact_text(text)
    assert "MIIEow" not in redacted
    assert "abcdefgh.ijk" not in redacted
    assert "hunter2" not in redacted
    assert "postgres://" in redacted  # only the credentials go


def test_a_secret_straddling_a_cut_is_replaced_whole() -> None:
    secret = "sk-" + "a1" * 20
    for offset in range(0, 60, 7):
        value = "x" * (1000 - 64 - offset) + " " + secret + " " + "y" * 5000
        marker = cut(value, 1000)
        assert isinstance(marker, dict)
        assert "a1a1a1" not in marker["preview"]


ADVERSARIAL = {
    "jwt prefixes": "eyJ" * 100_000,
    "key prefixes": "sk-" * 100_000,
    "dashes": "sk-" + "a-" * 150_000,
    "assignments": "password= " * 30_000,
    "open quotes": 'token: "' + "a" * 300_000,
    "bearers": "Bearer " * 40_000,
    "url schemes": "ab://u:" * 40_000,
    "pem starts": "-----BEGIN RSA PRIVATE KEY-----" * 10_000,
    "flags": "--password " * 30_000,
    "inner key prefixes": "x.sk-" * 60_000,
    "inner github prefixes": "a_ghp_" * 50_000,
    "authorization headers": "authorization:" * 20_000,
    "escaped authorization": "Authorization: " + "\\" * 300_000,
    "mysql flags": "mysql -p" * 40_000,
    "secret name parts": "SECRET_KEY_" * 30_000,
    "escaped pem starts": "-----BEGIN RSA PRIVATE KEY-----\\n" * 10_000,
    "pem headers": "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: x\n" * 7_000,
    "url at signs": "https://a:" + "@" * 300_000,
}


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_hostile_text_is_redacted_without_a_stall(name: str) -> None:
    """Linear patterns: 300 KB of each worst case finishes (the hang guard is generous; a
    backtracking pattern takes minutes here, as a JWT pattern once did)."""
    done: list[str] = []
    worker = threading.Thread(target=lambda: done.append(redact_text(ADVERSARIAL[name])))
    worker.start()
    worker.join(timeout=20)
    assert done, f"redacting {name!r} did not finish"


@tool
def login(user: str, password: str, argv: list[str]) -> str:
    """Log in (echoes what it was given, as careless tools do)."""
    raise RuntimeError(f"login failed for {user} with password={password} token sk-{'z' * 30}")


@tool
def dump() -> str:
    """A large output with a key inside."""
    return "x" * 300 + " ghp_" + "q" * 36 + " " + "y" * 300


async def test_no_surface_of_a_real_call_shows_a_secret(tmp_path: Path) -> None:
    lines: list[ProgressUpdate] = []
    log = JsonlCallLog(tmp_path / "logs")
    ex = Executor(
        ToolRegistry([login, dump]),
        sinks=[log, ToolStreamHandler(on_update=lines.append)],
        max_output_chars=200,
        spill_dir=tmp_path / "spill",
    )
    arguments = {"user": "ada", "password": "hunter2-pw", "argv": ["--token", "tok-123456"]}
    failed = await ex.run(ToolCall(name="login", arguments=arguments), ExecutionContext())
    bad = await ex.run(
        ToolCall(name="login", arguments={"user": "ada", "password": 42, "argv": []}),
        ExecutionContext(),
    )
    capped = await ex.run(ToolCall(name="dump"), ExecutionContext())
    await ex.aclose()
    log.close()
    surfaces = [
        *(u.text for u in lines),
        *(p.read_text() for p in (tmp_path / "logs").glob("*.jsonl")),
        *(p.read_text() for p in (tmp_path / "spill").glob("*")),
        bad.result.failure().message,
    ]
    assert len(surfaces) >= 5
    for text in surfaces:
        for secret in ("hunter2-pw", "tok-123456", "z" * 30, "q" * 36):
            assert secret not in text
    assert "ada" in "".join(surfaces)  # ordinary values stay readable
    assert isinstance(failed.result.failure().message, str)
    assert isinstance(capped.result.unwrap(), dict)


PEM_BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7" * 30
AUDIT_LEAKS = {
    "encrypted pem": (
        "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,ABCDEF"
        f"\n\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----",
        "MIIEvQ",
    ),
    "pem in json text": (
        '{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\\n'
        + PEM_BODY
        + '\\n-----END PRIVATE KEY-----\\n", "client_email": "x@y"}',
        "MIIEvQ",
    ),
    "authorization token": (
        "Authorization: token abcdef0123456789abcdef0123456789abcdef01",
        "abcdef0123456789",
    ),
    "authorization digest": (
        '{"headers": "Authorization: Digest username=\\"u\\", '
        'response=\\"6629fae49393a05397450978507c4ef1\\""}',
        "6629fae",
    ),
    "url password with @": ("https://user:p@ss@host/", "ss@"),
    "key after a dot": ("config.sk-abcdefghijklmnopqrstuvwxyz", "abcdefghijklmnop"),
    "github after a name": ("token_ghp_abcdefghijklmnopqrstuvwxyz0123456789", "abcdefghijklmnop"),
    "mysql -p": ("mysql -phunter22secret -u root", "hunter22"),
    "db_pass": ("db_pass=hunter22secret", "hunter22"),
    "SECRET_KEY_BASE": ("SECRET_KEY_BASE=abcdefabcdef1234", "abcdefabcdef1234"),
    "stripe": ("sk_live_abcdefghijklmnopqrstuvwx", "abcdefghijklmnop"),
    "hugging face": ("hf_abcdefghijklmnopqrstuvwxyzABCDEFGH", "abcdefghijklmnop"),
    "npm": ("npm_abcdefghijklmnopqrstuvwxyz0123456789", "abcdefghijklmnop"),
}


@pytest.mark.parametrize("name", sorted(AUDIT_LEAKS))
@pytest.mark.parametrize("context", ["{}", "log: {} end", '{{"v": "{}"}}', "x\n{}\ny"])
def test_the_audit_leaks_are_redacted(name: str, context: str) -> None:
    """Each secret the outside audit saw pass, in a few surroundings."""
    text, secret = AUDIT_LEAKS[name]
    assert secret not in redact_text(context.format(text)), name


@given(
    st.sampled_from(["", "config.", "token_", "my-", "OPENAI_KEY:", "x=", "a.b_"]),
    st.sampled_from(
        [
            "sk-proj-abcdefghijklmnopqrstuvwxyz0123",
            "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
            "sk_live_abcdefghijklmnopqrstuvwx",
            "hf_abcdefghijklmnopqrstuvwxyzABCDEFGH",
            "npm_abcdefghijklmnopqrstuvwxyz0123456789",
            "glpat-abcdefghijklmnopqrstuvwxyz",
        ]
    ),
)
def test_a_token_is_redacted_wherever_it_starts_in_a_run(prefix: str, token: str) -> None:
    """Not only at the start of a run of token characters: after `.`, `_`, `-` too."""
    assert "abcdefghijklmnop" not in redact_text(f"see {prefix}{token} here")


@pytest.mark.parametrize("program", ["mysql", "/usr/bin/mysqldump", "mariadb"])
def test_mysql_glued_password_in_argv(program: str) -> None:
    """["mysql", "-phunter22"]: the value is glued to -p."""
    assert "hunter22" not in str(redact([program, "-u", "root", "-phunter22secret"]))
