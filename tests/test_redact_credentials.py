"""Credentials the policy missed: a URL's password with an empty user (`redis://:pw@host`,
the usual Redis form), a presigned URL's signature (S3, GCS, an Azure SAS's `sig=`), a
Slack webhook URL, and keys named `master_key`, `license_key`, `ssh_key` in any spelling."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolrail.core.redact import REDACTED, is_secret_key, redact, redact_text

PASSWORDS = st.text(
    alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!$*+~",
    min_size=6,
    max_size=32,
)
SCHEMES = st.sampled_from(["redis", "rediss", "amqp", "postgres", "mongodb+srv", "https", "mysql"])
HOSTS = st.sampled_from(["cache:6379/0", "db", "db.internal:5432/app", "10.0.0.7/"])
CONTEXTS = st.sampled_from(["{}", "REDIS_URL={}", "url: {} end", '{{"url": "{}"}}', "x\n{}\ny"])


@given(SCHEMES, st.sampled_from(["", "default", "svc-user"]), PASSWORDS, HOSTS, CONTEXTS)
def test_a_urls_password_goes_with_or_without_a_user(
    scheme: str, user: str, password: str, host: str, context: str
) -> None:
    text = context.format(f"{scheme}://{user}:{password}@{host}")
    redacted = redact_text(text)
    assert password not in redacted.replace(REDACTED, "")
    assert f"{scheme}://" in redacted
    assert host.split(":")[0].split("/")[0] in redacted  # where it points stays


SIGNATURE = "3f1c9e0a5b7d2e4f6a8c0b1d3e5f7a9c0e2d4f6a8b1c3e5d7f9a0b2c4e6d8f0a"


@pytest.mark.parametrize(
    "url",
    [
        "https://bucket.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256"
        f"&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F&X-Amz-Signature={SIGNATURE}",
        f"https://storage.googleapis.com/b/o?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Signature={SIGNATURE}",
        f"https://acct.blob.core.windows.net/c/b?sv=2022-11-02&se=2030-01-01&sig={SIGNATURE}%3D",
        f"https://hooks.slack.com/services/T00000000/B00000000/{SIGNATURE[:24]}",
        f"https://hooks.slack.com/workflows/T01ABCDEF/A02BCDEFG/345678901/{SIGNATURE[:24]}",
    ],
)
@pytest.mark.parametrize("context", ["{}", "GET {} 200", '{{"url": "{}"}}', "see:\n{}\n"])
def test_signed_and_webhook_urls_lose_their_secret(url: str, context: str) -> None:
    redacted = redact_text(context.format(url))
    assert SIGNATURE[:24] not in redacted
    assert "https://" in redacted


@pytest.mark.parametrize(
    "key",
    [
        "master_key",
        "masterKey",
        "MASTER_KEY",
        "license_key",
        "licenseKey",
        "LICENCE_KEY",
        "ssh_key",
        "sshKey",
        "SSH_PRIVATE_KEY",
        "sig",
        "X-Amz-Signature",
        "x-goog-signature",
    ],
)
def test_more_secret_key_names(key: str) -> None:
    assert is_secret_key(key)
    assert redact({key: "ABCD-EFGH-1234"}) == {key: REDACTED}
    assert "ABCD-EFGH-1234" not in redact_text(f"{key}=ABCD-EFGH-1234")
    assert "ABCD-EFGH-1234" not in redact_text(f'{{"{key}": "ABCD-EFGH-1234"}}')


@pytest.mark.parametrize(
    "key",
    ["signature", "function_signature", "design", "signal", "keyboard", "primary_key", "sort_key"],
)
def test_names_that_only_look_like_them_stay(key: str) -> None:
    assert not is_secret_key(key)
