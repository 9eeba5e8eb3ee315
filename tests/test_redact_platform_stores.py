"""More commands that store a secret, which the last review found shown: a platform's
variables (`glab variable set`, `netlify env:set`, `vercel env add`, `railway variables
--set`), Pulumi's secret config (`pulumi config set --secret`, the flag before or after)
and more registries' logins (`nerdctl`, `buildah`, `skopeo`, `oras`, `crane auth`, `helm
registry`). Names, environments, flags and what lists the variables stay."""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tests.test_redact_secret_commands import BARE, IN_QUOTES, _kept
from toolrail.core.redact import REDACTED, redact, redact_text

R = REDACTED
SHOWN = [
    ("glab variable set DEPLOY_KEY {v} --masked", "glab variable set DEPLOY_KEY {r} --masked"),
    ("glab variable set -s prod DEPLOY_KEY -v {v}", "glab variable set -s prod DEPLOY_KEY -v {r}"),
    ("glab variable set K --value={v} -R g/p", "glab variable set K --value={r} -R g/p"),
    ("echo {v} | glab variable set DEPLOY_KEY", "echo {r} | glab variable set DEPLOY_KEY"),
    (
        "netlify env:set STRIPE_KEY {v} --context production",
        "netlify env:set STRIPE_KEY {r} --context production",
    ),
    (
        "echo -n {v} | vercel env add STRIPE_KEY production",
        "echo -n {r} | vercel env add STRIPE_KEY production",
    ),
    ("npx vercel env add K preview <<< {v}", "npx vercel env add K preview <<< {r}"),
    ("railway variables --set STRIPE={v}", "railway variables --set STRIPE={r}"),
    ("railway variables --set=STRIPE={v} -s api", "railway variables --set=STRIPE={r} -s api"),
    ("pulumi config set dbUser {v} --secret", "pulumi config set dbUser {r} --secret"),
    ("pulumi config set dbPassword {v}", "pulumi config set dbPassword {r}"),
    (
        "pulumi config set --stack prod --path data.apiToken {v}",
        "pulumi config set --stack prod --path data.apiToken {r}",
    ),
    ("nerdctl login -u me -p {v} reg.io", "nerdctl login -u me -p {r} reg.io"),
    ("buildah login --password {v} reg.io", "buildah login --password {r} reg.io"),
    ("skopeo login -u me -p {v} quay.io", "skopeo login -u me -p {r} quay.io"),
    ("oras login -u me --password={v} reg.io", "oras login -u me --password={r} reg.io"),
    ("crane auth login reg.io -u me -p {v}", "crane auth login reg.io -u me -p {r}"),
    (
        "helm registry login reg.io -u me --password {v}",
        "helm registry login reg.io -u me --password {r}",
    ),
    ("echo {v} | helm registry login reg.io -u me", "echo {r} | helm registry login reg.io -u me"),
]


@pytest.mark.parametrize(("text", "shown"), SHOWN)
def test_a_platform_or_registry_store_hides_the_value(text: str, shown: str) -> None:
    assert redact_text(text.format(v="hunter2-x9")) == shown.format(r=R)


@pytest.mark.parametrize(
    ("text", "shown"), [(t, s) for t, s in SHOWN if "|" not in t and "<" not in t]
)
def test_as_argv_and_as_argv_written_out(text: str, shown: str) -> None:
    argv = text.format(v="hunter2-x9").split()
    assert redact(argv) == shown.format(r=R).split()
    assert redact_text(json.dumps(argv)) == json.dumps(shown.format(r=R).split())
    spawned = {"command": argv[0], "args": argv[1:]}
    assert redact(spawned) == {"command": argv[0], "args": shown.format(r=R).split()[1:]}


@pytest.mark.parametrize(
    "text",
    [
        'railway variables --set "API_KEY={v}"',
        'railway variables --set "PASSWORD={v}" -s api',
        "railway variables --set 'API_KEY={v}' -s api",
        'fly secrets set "DATABASE_URL={v}"',
        'kubectl create secret generic db "--from-literal=password={v}"',
    ],
)
def test_a_quoted_key_value_word_keeps_its_key(text: str) -> None:
    """A store's `KEY=value` word in double quotes lost its key (`--set "[REDACTED]"`): a
    string held out of the text was hidden whole, not from its value on."""
    assert redact_text(text.format(v="hunter2-x9")) == text.format(v=R)


def test_pulumi_secret_flag_anywhere_hides_the_value() -> None:
    """`--secret` before the name is also a secret-named flag: the name goes too (the
    flag pass's rule), the value always."""
    shown = redact_text("pulumi config set --secret dbUser hunter2-x9")
    assert "hunter2" not in shown
    assert shown.startswith("pulumi config set --secret ")


@pytest.mark.parametrize(
    "text",
    [
        "pulumi config set region us-east-1",
        "pulumi config set --stack prod aws:region us-east-1",
        "glab variable list --group g",
        "glab variable get DEPLOY_KEY",
        "vercel env ls production",
        "vercel env add STRIPE_KEY production",
        "netlify env:list --context production",
        "railway variables --kv",
        "nerdctl login -u me reg.io",
        "helm registry logout reg.io",
        "echo $ENV_NAME",
    ],
)
def test_what_stores_no_value_stays(text: str) -> None:
    assert redact_text(text) == text


SHAPES = [text for text, _ in SHOWN]


@settings(max_examples=200, deadline=None)
@given(shape=st.sampled_from(SHAPES), value=BARE)
def test_any_bare_value_is_hidden(shape: str, value: str) -> None:
    _kept(shape, value)
    assume(not value.startswith("--"))
    redacted = redact_text(shape.format(v=value))
    assert value not in redacted


@settings(max_examples=200, deadline=None)
@given(shape=st.sampled_from(SHAPES), value=IN_QUOTES)
def test_any_quoted_value_is_hidden_with_its_quotes(shape: str, value: str) -> None:
    _kept(shape, value)
    assume(value.upper() != value or any(c.isdigit() for c in value))  # (no metavar)
    redacted = redact_text(shape.format(v=f"'{value}'"))
    assert value not in redacted
    assert f"'{R}'" in redacted


@pytest.mark.parametrize("value", ["<000000>", "<1234 5678>", "<9-9-9>", "<A00000>", "<a1b2c3>"])
def test_angle_brackets_around_no_word_are_a_value_not_a_placeholder(value: str) -> None:
    """A placeholder names what goes there (`<value>`, `<your-token>`); digits in angle
    brackets are a value (a hypothesis example showed `<000000>`)."""
    assert redact_text(f'gh secret set N --body "{value}"') == f'gh secret set N --body "{R}"'
    assert redact_text("gh secret set N --body <value>") == "gh secret set N --body <value>"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (
            "echo hunter2-x9 | pulumi config set --secret dbPass",
            f"echo {R} | pulumi config set --secret",
        ),
        ("glab variable update K hunter2-x9", f"glab variable update K {R}"),
        ("glab var set K hunter2-x9", f"glab var set K {R}"),
        ("ntl env:set K hunter2-x9", f"ntl env:set K {R}"),
        ("npx netlify-cli env:set K hunter2-x9", f"npx netlify-cli env:set K {R}"),
        ("echo hunter2-x9 | vc env add K production", f"echo {R} | vc env add K production"),
    ],
)
def test_aliases_and_a_value_from_the_input(text: str, shown: str) -> None:
    """A review's forms: pulumi reads a value not given from its input; aliases."""
    assert redact_text(text).startswith(shown)
    assert "hunter2" not in redact_text(text)
