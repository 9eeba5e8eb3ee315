"""A call setting a secret by its name, then its value (`setenv("API_KEY", "X")`,
`[Environment]::SetEnvironmentVariable('DB_PASSWORD', 'X', 'User')`): a review found the
value shown, no `=` or flag setting the name apart from it."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.hang_guard import finished
from toolrail.core.redact import REDACTED, redact, redact_text

X = "hunter2X"

HIDDEN = [
    f"[Environment]::SetEnvironmentVariable('DB_PASSWORD', '{X}', 'User')",
    f'setenv("API_KEY", "{X}", 1);',
    f'os.environ.setdefault("DB_PASSWORD", "{X}")',
    f"os.putenv('API_TOKEN','{X}')",
    f'ENV.store("STRIPE_SECRET_KEY", "{X}")',
    f'System.setProperty("db.password", "{X}");',
    f'os.getenv("DB_PASSWORD", "{X}")',  # a default is a password too
    # as a formatter spreads them, spaced, prefixed, after a section's name (a review)
    f'setenv("API_KEY",\n    "{X}")',
    f'os.environ.setdefault(\n    "DB_PASSWORD",\n    "{X}",\n)',
    f'setenv ("API_KEY", "{X}")',
    f'os.environ.setdefault("API_KEY", f"{X}")',
    f'Environment.SetEnvironmentVariable("API_KEY", $"{X}");',
    f"config.set('db', 'password', '{X}')",
    f"parser.set('auth', 'api_key', r'{X}')",
    f'setenv  ("API_KEY", "{X}")',
    f'ssm.put_parameter("/prod/db/password", "{X}")',
    # a template literal's backticks, a triple-quoted string
    f'localStorage.setItem("token", `{X}`)',
    f'setenv("API_KEY", """{X}""")',
    f"os.environ.setdefault('DB_PASSWORD', '''{X}''')",
    # an object's attribute set by its name
    f'setattr(settings, "SECRET_KEY", "{X}")',
    f"setattr(self.config, 'api_token', '{X}')",
    f'setattr(\n    conf,\n    "DB_PASSWORD",\n    "{X}",\n)',
]


@pytest.mark.parametrize("text", HIDDEN)
def test_a_call_setting_a_secret_by_name_hides_its_value(text: str) -> None:
    assert redact_text(text) == text.replace(X, REDACTED)
    assert X not in str(redact({"script": text}))
    assert X not in redact_text(json.dumps({"script": text}))


@pytest.mark.parametrize("text", HIDDEN)
def test_a_call_cut_off_in_its_value_hides_what_is_left(text: str) -> None:
    start = text.index(X)
    for cut in range(start + 1, start + len(X)):
        assert redact_text(text[:cut]) == text[:start] + REDACTED


STAYS = [
    'fields = ("username", "password", "email")',  # a tuple of names sets nothing
    'os.getenv("DB_PASSWORD", "")',
    'getattr(cfg, "password", None)',
    'foo("user", "bob")',
    'send("password" , 3)',
    "SetEnvironmentVariable($name, $value)",
    "headers.set('Authorization', `Basic ${credentials}`);",  # a template of code
    # the second string is no value: a replacement, a pattern, a translation, a message
    's.replace("password", "passphrase")',
    're.sub("token", "***", line)',
    't("password", "Enter your password")',
    '_("password", "Password")',
    'KeyError("token", "not found in response")',
    'raise ConfigException("secret", "is missing")',
    'text.split("token", "x")',
    # a path names a file or a route unless what is called stores by path
    'open("/run/secrets/token", "r")',
    'app.route("/oauth/token", "POST")',
    'os.path.join ("/run/secrets", "token")',
]


@pytest.mark.parametrize("text", STAYS)
def test_what_sets_no_secret_stays(text: str) -> None:
    assert redact_text(text) == text


@given(
    name=st.sampled_from(["DB_PASSWORD", "api_key", "secretKey", "db.password", "token"]),
    value=st.text(alphabet="abcXYZ0123456789 ,()[]\\\"'-_=:", min_size=1, max_size=30),
    quote=st.sampled_from(["'", '"']),
)
def test_any_value_given_a_secret_name_never_shows(name: str, value: str, quote: str) -> None:
    escaped = value.replace("\\", "\\\\").replace(quote, "\\" + quote)
    text = f"call({quote}{name}{quote}, {quote}zz{escaped}{quote})"
    assert f"zz{escaped}" not in redact_text(text)


@pytest.mark.parametrize(
    "text",
    [
        'f("password", "' + "a" * 1_000_000,
        'f("password", "x") ' * 50_000,
        "f('password', " * 100_000,
        "g(" * 300_000 + '"token", "x"',
    ],
)
def test_hostile_calls_take_linear_time(text: str) -> None:
    assert finished(lambda: redact_text(text)), text[:40]
