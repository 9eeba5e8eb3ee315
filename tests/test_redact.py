"""One redaction policy, every surface: properties over many spellings of each secret shape,
and the log line, progress text, spill file and error message of a real call."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.hang_guard import finished
from toolrail import ExecutionContext, Executor, JsonlCallLog, ToolCall, ToolRegistry, tool
from toolrail.core.redact import REDACTED, cut, hides_next, is_secret_key, redact, redact_text
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


HIDING_FLAGS = [
    "--password",
    "--token",
    "--secret",
    "--api-key",
    "-password",
    "--pass",
    "--db-password",
    "--client-secret",
    "--api-token",
    "--passphrase",
    "--secret-key",
    "-p",
]


@given(
    st.sampled_from(HIDING_FLAGS),
    st.text(alphabet=ALNUM + "!#$%^*()-_+ '\\\"é", min_size=6, max_size=24),
    st.sampled_from(["json", "indented", "cut", "in a string", "indented in a string", "python"]),
)
def test_argv_flags_hide_their_values_in_text_that_is_not_json_data(
    flag: str, value: str, spelling: str
) -> None:
    """Arguments that could not be read as JSON (cut off, a lone surrogate) are kept as
    text: a flag's value written as the next item of a list still goes, for every flag
    that hides its value in argv data (`hides_next`), as in the data."""
    argv = ["deploy", flag, value, "--verbose"]
    text = {
        "json": lambda: orjson.dumps({"argv": argv}).decode(),
        "indented": lambda: json.dumps({"argv": argv}, indent=2),
        "cut": lambda: orjson.dumps({"argv": argv}).decode()[:-3],
        "in a string": lambda: orjson.dumps(orjson.dumps({"argv": argv}).decode()).decode(),
        "indented in a string": lambda: json.dumps(json.dumps({"argv": argv}, indent=2)),
        "python": lambda: repr(argv),
    }[spelling]()
    assert value not in redact_text(text).replace(REDACTED, "")


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
    assert finished(lambda: redact_text(ADVERSARIAL[name])), f"redacting {name!r} did not finish"


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


# -- secret names in text: the same notion as for mapping keys, in any spelling (F4) --

SECRET_NAME_WORDS = st.sampled_from(
    [
        ("secret", "key"),
        ("signing", "key"),
        ("encryption", "key"),
        ("api", "token"),
        ("db", "password"),
        ("client", "secret"),
        ("account", "key"),
        ("access", "token"),
        ("private", "key"),
        ("connection", "string"),
        ("database", "url"),
        ("mfa", "code"),
        ("auth",),
        ("otp",),
        ("dsn",),
    ]
)
NAME_PREFIXES = st.sampled_from([(), ("my",), ("aws",), ("prod", "db")])
SPELLINGS = st.sampled_from(
    [
        lambda w: w[0] + "".join(p.capitalize() for p in w[1:]),  # secretKey
        lambda w: "".join(p.capitalize() for p in w),  # SecretKey
        "_".join,  # secret_key
        lambda w: "_".join(w).upper(),  # SECRET_KEY
        "-".join,  # secret-key
        lambda w: "-".join(p.capitalize() for p in w),  # Secret-Key
        ".".join,  # secret.key
    ]
)
NAME_SETTINGS = st.sampled_from(
    [
        "{name}={value}",
        "{name}: {value}",
        "{name} = {value}",
        "export {name}='{value}'",
        '{{"{name}": "{value}"}}',
        '{{"cfg": "{{\\"{name}\\": \\"{value}\\"}}"}}',  # JSON inside a JSON string
        "https://h/x?{name}={value}&y=1",
        "config: {{{name}: {value}}}",
    ]
)
PLAIN_VALUES = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=8, max_size=24)


@given(NAME_PREFIXES, SECRET_NAME_WORDS, SPELLINGS, NAME_SETTINGS, PLAIN_VALUES)
def test_a_secret_name_in_any_spelling_hides_its_value_in_text(
    prefix: tuple[str, ...],
    words: tuple[str, ...],
    spell: Callable[[tuple[str, ...]], str],
    setting: str,
    value: str,
) -> None:
    name = spell((*prefix, *words))
    assert is_secret_key(name), name
    assert redact({name: value}) == {name: REDACTED}
    text = setting.format(name=name, value=value)
    assert value not in redact_text(text).replace(REDACTED, ""), text


@given(
    st.from_regex(r"[a-z][a-z0-9_]{0,20}", fullmatch=True),
    st.sampled_from(["=", ": ", " = ", '": "']),
    PLAIN_VALUES,
)
def test_text_and_mapping_keys_agree_on_which_names_are_secret(
    name: str, separator: str, value: str
) -> None:
    """A value assigned in text is hidden exactly when the same name as a key would be."""
    text = f"set {name}{separator}{value} ok"
    hidden = value not in redact_text(text)
    assert hidden == is_secret_key(name), (name, redact_text(text))


@pytest.mark.parametrize(
    "text",
    [
        "max_tokens=500 temperature: 0.5",
        "time 12:30:45 path=/a/b/c",
        "keyboard: qwerty-layout",
        "tokenizer: bpe-default",
        "the password is wrong, try again",
        "docker run -u 1000:1000 image:latest",
        "https://git@github.com/org/repo",
        "https://example.com:8443/users/@alice",
        "task-management-configuration-file-v2",
        "bookmark-manager-settings-synchronisation",
        # a header's name ending a JSON string takes nothing after it
        'INFO {"msg": "Missing Authorization:", "status": 401, "user": "bob"}',
        'INFO {"msg":"Missing Authorization:","status":401}',
        'INFO ["Set-Cookie:", "session id", "path"]',
        'INFO {"error": "invalid cookie=", "path": "/home", "user": "bob"}',
    ],
)
def test_ordinary_text_stays(text: str) -> None:
    assert redact_text(text) == text


def test_a_value_after_an_ordinary_assignment_is_still_seen() -> None:
    """`url=...?token=X`: the ordinary name's value is not consumed past a secret inside."""
    assert "abcdefgh12" not in redact_text("url=https://x?token=abcdefgh12 next")


# -- tokens glued to what precedes them (F6) --

GLUED_TOKENS = st.sampled_from(
    [
        "sk-ant-api03-ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210",
        "sk-proj-ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210",
        "ghp_ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210",
        "github_pat_11A_ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210",
        "glpat-ZyXwVuTsRqPoNmLkJiHgFeDc",
        "xoxb-123456789012-ZyXwVuTsRqPoNmLkJiHg",
        "AKIAZYXWVUTSRQPONMLK",
        "sk_live_ZyXwVuTsRqPoNmLkJiHgFeDc",
        "hf_ZyXwVuTsRqPoNmLkJiHgFeDcBa987654",
        "npm_ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210",
        "pypi-AgEIcHlwaS5vcmcCJGFiY2RlZmdoLTEyMzQtNTY3OC05MDEyLWFiY2RlZmdo",
    ]
)


@given(
    st.one_of(
        st.text(alphabet=ALNUM, min_size=1, max_size=12),
        st.integers(min_value=100, max_value=6000).map(lambda n: "x" * n),
    ),
    GLUED_TOKENS,
    st.sampled_from(["{}", "see {} here", '{{"v": "{}"}}', "a.{}"]),
)
def test_a_token_glued_to_letters_or_digits_is_redacted(
    glued: str, token: str, context: str
) -> None:
    """`Xghp_...`, `1sk-ant-...`, a key at the end of a 5,000-character run."""
    assert "ZyXwVuTsRq"[:8] not in redact_text(context.format(glued + token))
    assert token[8:24] not in redact_text(context.format(glued + token))


# -- more shapes (F7) --

MORE_LEAKS = {
    "url user token": ("https://ghtoken1234567890abc@github.com/x", "ghtoken1234567890"),
    "url password with /": ("https://u:pa/ss1234567@h/x", "ss1234567"),
    "netrc one line": ("machine h login u password hunter2hunter2", "hunter2hunter2"),
    "netrc lines": ("machine h\n  login u\n  password hunter2hunter2\n", "hunter2hunter2"),
    "cookie": ("Cookie: a=1; sessionid=abcdefgh12345678", "abcdefgh12345678"),
    "set-cookie": ("Set-Cookie: session=abcdefgh12345678; HttpOnly", "abcdefgh12345678"),
    "sshpass": ("sshpass -p hunter2hunter2 ssh host", "hunter2hunter2"),
    "azure": (
        "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=abcdefgh12345678==;",
        "abcdefgh1234",
    ),
    "pypi": ("pypi-AgEIcHlwaS5vcmcCJGFiY2RlZmdoLTEyMzQtNTY3OC05MDEy", "AgEIcHlwaS5vcmcCJGFi"),
    "curl -u": ("curl -u alice:hunter2hunter2 https://x", "hunter2hunter2"),
    "curl --user=": ("curl --user=alice:hunter2hunter2 https://x", "hunter2hunter2"),
    "curl argv as JSON": ('["curl", "-u", "me:hunter2hunter2"]', "hunter2hunter2"),
    "curl argv cut off": (
        '["curl",\n  "--user",\n  "me@x.io:hunter2hunter2", "https://ap',
        "hunter2",
    ),
    "curl -u email": ("curl -u me@example.com:hunter2hunter2 https://x", "hunter2hunter2"),
    "curl -u 'email'": ("curl -s -u 'me@example.com:hunter2hunter2' https://x", "hunter2"),
    "dsn": ("SENTRY_DSN=https://abcdef0123@o1.ingest.sentry.io/1", "abcdef0123"),
    "database url": ("DATABASE_URL=postgres://u:hunter2hunter2@db/x", "hunter2hunter2"),
    "connection string": (
        '{"connectionString": "Server=x;Password=hunter2hunter2"}',
        "hunter2hunter2",
    ),
}


@pytest.mark.parametrize("name", sorted(MORE_LEAKS))
@pytest.mark.parametrize("context", ["{}", "log: {} end", "x\n{}\ny"])
def test_more_secret_shapes_in_text(name: str, context: str) -> None:
    text, secret = MORE_LEAKS[name]
    assert secret not in redact_text(context.format(text)), name


@pytest.mark.parametrize(
    "value",
    [
        {"command": ["curl", "-u", "user:pw-1234567", "https://x"]},
        {"command": ["/usr/bin/curl", "--user", "user:pw-1234567"]},
        {"command": ["curl", "-uuser:pw-1234567", "https://x"]},
        {"command": ["sshpass", "-ppw-1234567", "ssh", "h"]},
        {"headers": [["Authorization", "pw-1234567"], ["Accept", "json"]]},
        {"pair": ("password", "pw-1234567")},
        {"dsn": "pw-1234567", "connection_string": "pw-1234567", "mfa_code": "pw-1234567"},
        {"connectionString": "pw-1234567", "database_url": "pw-1234567", "otp": "pw-1234567"},
    ],
)
def test_more_secret_shapes_in_data(value: object) -> None:
    redacted = orjson.dumps(redact(value)).decode()
    assert "pw-1234567" not in redacted
    assert "user" in redacted or "Accept" in redacted or REDACTED in redacted


def test_argv_keeps_what_is_not_secret() -> None:
    assert redact(["docker", "run", "-u", "1000:1000", "img"]) == [
        "docker",
        "run",
        "-u",
        "1000:1000",
        "img",
    ]
    assert redact(["curl", "-u", "ada:pw"]) == ["curl", "-u", f"ada:{REDACTED}"]
    assert redact([["Accept", "json"]]) == [["Accept", "json"]]


ADVERSARIAL_MORE = {
    "glued key prefixes": "xsk-ant-" * 40_000,
    "glued github prefixes": "Xghp_" * 60_000,
    "aws prefixes": "AKIA" * 80_000,
    "short assignments": "a=1 " * 80_000,
    "distinct names": " ".join(f"n{i}=v" for i in range(50_000)),
    "secret assignments with quotes": 'password="' * 30_000,
    "escaped quotes": 'secretKey=\\"' * 30_000,
    "netrc logins": "login a password " * 20_000,
    "curl users": "curl -u a:" * 30_000,
    "sshpass flags": "sshpass -p " * 30_000,
    "cookie headers": "cookie:" * 40_000,
    "url users": "://" + "a1" * 10 + "@" * 300_000,
    "long name runs": ("n" * 200 + "=") * 1_500,
    "curl flags glued": "curl -u" + "-U" * 200_000,
}


@pytest.mark.parametrize("name", sorted(ADVERSARIAL_MORE))
def test_more_hostile_text_is_redacted_without_a_stall(name: str) -> None:
    text = ADVERSARIAL_MORE[name]
    assert finished(lambda: redact_text(text)), f"redacting {name!r} did not finish"


@tool
def fails_with_a_key(token: str) -> str:
    """Fail, repeating the key in the exception (as careless clients do)."""
    raise RuntimeError(f"auth failed for token {token}")


async def test_the_returned_error_does_not_show_a_secret() -> None:
    """F5: the outcome the model and the caller read, not only the log, is redacted."""
    key = "sk-ant-api03-ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210-_zzzz"
    ex = Executor(ToolRegistry([fails_with_a_key]))
    outcome = await ex.run(
        ToolCall(name="fails_with_a_key", arguments={"token": key}), ExecutionContext()
    )
    await ex.aclose()
    message = outcome.result.failure().message
    assert key[7:] not in message
    assert "auth failed for token" in message


def test_a_list_nested_past_the_recursion_limit_is_redacted_to_a_bound() -> None:
    """Its first item is not taken for a program's name (its text would nest too deep)."""
    nested: object = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz"
    for _ in range(3000):
        nested = [nested]
    shown = redact({"n": nested})
    assert "[TOO DEEP]" in repr(shown)
    assert "sk-ant" not in repr(shown)


@given(st.sampled_from([f for f in HIDING_FLAGS if f != "-p"]), VALUES, st.booleans())
def test_every_flag_that_hides_its_value_in_argv_data_hides_it_in_text(
    flag: str, value: str, joined: bool
) -> None:
    """`--db-password X`, `--passphrase=X`: the text policy is the data policy (a bare `-p`
    aside: in prose it is more often a port)."""
    assert hides_next(flag)
    text = f"run app {flag}={value} now" if joined else f"run app {flag} {value} now"
    assert value not in redact_text(text).replace(REDACTED, "")
    assert value not in orjson.dumps(redact({"argv": ["app", flag, value]})).decode()


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("psql --password 'S3cr3t! x' -h db", "S3cr3t! x"),
        ('app --token "abc def ghi" x', "abc def ghi"),
        ("app --password=$'hunter2x'", "hunter2x"),
        ("mysql -u root -p'hunter2 x' db", "hunter2 x"),
        ('mysql -u root -p"hunter2x" db', "hunter2x"),
        ("sshpass -p 'hunter2 x' ssh host", "hunter2 x"),
        ('{"cmd": "psql --password \\"x y zz\\" -h"}', "x y zz"),
    ],
)
def test_a_quoted_value_after_a_secret_flag_goes_whole(text: str, secret: str) -> None:
    assert secret not in redact_text(text)
    assert secret.split()[-1] not in redact_text(text)


@given(
    st.lists(
        st.one_of(
            st.sampled_from([*HIDING_FLAGS, "--verbose", "-x", "--max-tokens"]),
            st.text(alphabet=ALNUM + ' é"\\', min_size=1, max_size=700),
            st.integers(-(2**63), 2**63 - 1),
            st.floats(allow_nan=False, allow_infinity=False),
            st.lists(st.text(alphabet=ALNUM, min_size=8, max_size=12), max_size=3),
            st.booleans(),
        ),
        max_size=8,
    ),
    st.booleans(),
)
def test_text_hides_what_data_hides_after_a_flag_and_json_stays_json(
    argv: list[object], nested: bool
) -> None:
    """An argv written as JSON text (or as JSON text in a JSON string) and redacted as text:
    what redacting it as data hides after a flag is hidden too (numbers, lists, long
    strings), and the text is still the same JSON, shaped as the data is."""
    data = {"argv": ["app", *argv]}
    text = orjson.dumps(data).decode()
    if nested:
        text = orjson.dumps(text).decode()
    shown = redact_text(text)
    read = orjson.loads(shown)
    if nested:
        read = orjson.loads(read)
    as_data = redact(data)
    assert isinstance(as_data, dict)
    for kept, hidden in zip(read["argv"], as_data["argv"], strict=True):
        if hidden == REDACTED:
            assert kept == REDACTED


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ('password="}Xy7#secretpw"', "Xy7#secretpw"),  # a value may start with `}` ...
        ('DB_PASSWORD=":hunter2xyz"', "hunter2xyz"),
        ('password: "]hunter2xyz"', "hunter2xyz"),
        ('run --password "}hunter2xyz" now', "hunter2xyz"),
        ("run.exe --password \\SecretPw1 /quiet", "SecretPw1"),  # ... or with a backslash
        ('{"cmd": "deploy --password \\u00e9pass123 --verbose"}', "pass123"),
        ("run --password :colonsecret1", "colonsecret1"),
    ],
)
def test_a_value_is_a_value_whatever_it_starts_with(text: str, secret: str) -> None:
    assert secret not in redact_text(text)


@pytest.mark.parametrize(
    "data",
    [
        {"cmd": "run --token 'abc", "note": "visible text", "n": 1},
        {"cmd": "mysql -p'abc", "note": "visible text"},
        {"cmd": "run --password $'abc", "note": "visible text"},
        {"log": "['--password', 1234]", "x": 1},
        {"cmd": 'sh -c "deploy --password hunter2"', "next": "kept"},
        {"cmd": 'sh -c "mysql -phunter2"', "next": "kept"},
        {"cmd": 'sh -c "deploy --token=hunter2"', "next": "kept"},
        {"cmd": "export --token '\\secret\\"},
        {"cmd": "export PASSWORD=", "next": "abc"},
        ["--password=", "1"],
    ],
)
def test_redacted_json_text_is_the_same_json_and_keeps_what_follows(data: object) -> None:
    """An unclosed quote after a flag takes a word, not the rest of the line; a value
    replaced inside a JSON string is quoted as that string's quotes are."""
    text = json.dumps(data)
    shown = redact_text(text)
    read = json.loads(shown)
    assert type(read) is type(data)
    if isinstance(data, dict) and isinstance(read, dict):
        assert read.keys() == data.keys()
        assert read.get("note", "visible text") == "visible text"
        assert read.get("next", "kept") in ("kept", "abc")


@pytest.mark.parametrize(
    "text",
    [
        'Pass "--password", then type the value.',
        'subprocess.run(["mysql", "-p", f"{pw}"])',
        'line1 "--token", [unclosed\nline2 visible\nline3 visible',
    ],
)
def test_a_flag_item_with_no_value_after_it_takes_nothing_past_its_line(text: str) -> None:
    shown = redact_text(text)
    assert shown.splitlines()[1:] == text.splitlines()[1:]
    assert "then type the value" in shown or 'f"{pw}"' in shown or "line2" in shown


@pytest.mark.parametrize(
    "argv",
    [
        ["redis-cli", "-h", "cache.internal", "--no-auth-warning", "--pass", "hunter2secret"],
        ["wget", "--auth-no-challenge", "--password", "hunter2secret", "https://x.example"],
        ["huggingface-cli", "login", "--add-to-git-credential", "--token", "hunter2secret"],
    ],
)
def test_a_secret_flag_after_another_is_a_flag_not_a_value(argv: list[str]) -> None:
    """`--no-auth-warning` names something secret-like; the `--pass` after it is a flag of
    its own, whose value goes: in data, in a command line, and in a list written as JSON."""
    assert "hunter2secret" not in str(redact({"argv": argv}))
    assert "hunter2secret" not in redact_text(" ".join(argv))
    assert "hunter2secret" not in redact_text(json.dumps(argv))
    assert "hunter2secret" not in redact_text(json.dumps({"cmd": " ".join(argv)}))


@pytest.mark.parametrize(
    "data",
    [
        {"command": "mysql -u root -p", "cwd": "/srv/app"},
        {"steps": ["mysql -u root -p", "SHOW DATABASES;"]},
        {"steps": ["sshpass -p", "ssh host"]},
    ],
)
def test_a_quote_that_ends_the_string_after_p_opens_no_value(data: object) -> None:
    """`mysql -u root -p` (it asks for the password) at the end of a JSON string: the quote
    after `-p` ends the string; nothing after it is taken, and the JSON stays the same."""
    text = json.dumps(data)
    assert json.loads(redact_text(text)) == data
