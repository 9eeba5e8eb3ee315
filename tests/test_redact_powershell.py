"""PowerShell's spellings of a secret setting, and shell words in a name/value flag pair:
`Write-SSMParameter -Name /prod/db/password -Value X`, `Set-Item -Path Env:DB_PASSWORD
-Value X`, `ConvertTo-SecureString 'X' -AsPlainText`, `--value $'X'`, `--value X,more`; and
what is no secret: `kubectl -n external-secrets get pods`, `--secret-id prod/db`."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.hang_guard import finished
from toolrail.core.redact import REDACTED, redact, redact_text, redacts_nothing

SECRET = "hunter2X"

PAIRS = [
    "Write-SSMParameter -Name /prod/db/password -Value {v} -Type SecureString",
    "Write-SSMParameter -Value {v} -Name /prod/db/password -Type SecureString",
    "write-ssmparameter -NAME /prod/db/password -VALUE {v}",
    "Write-SSMParameter -name /prod/db/password -value '{v}' -Type SecureString",
    'Write-SSMParameter -Name "/prod/db/password" -Value "{v}"',
    "Write-SSMParameter -Name /prod/db/password `\n  -Value {v} `\n  -Type SecureString",
    "Write-SSMParameter -Value {v} `\n -Name /prod/db/password",
    "Write-SSMParameter -Name:/prod/db/password -Value:{v}",
    "New-ItemProperty -Path HKCU:\\Software\\App -Name Password -Value {v}",
    "New-ItemProperty -Path HKCU:\\Software\\App -Name Password -Value {v} -PropertyType String",
    "Set-ItemProperty -Path HKLM:\\SOFTWARE\\App -Name DbPassword -Value '{v}'",
    "Set-Item -Path Env:DB_PASSWORD -Value {v}",
    "Set-Item -Path env:DB_PASSWORD -Value '{v}'",
    "Set-Item -Value {v} -Path Env:API_TOKEN",
    "Set-Item -Path 'Env:DB_PASSWORD' -Value \"{v}\"",
    "New-Item -Path Env:\\DB_PASSWORD -Value {v}",
    "Set-Secret -Name DbPassword -Secret {v}",
    "$env:DB_PASSWORD = '{v}'",
    "Set-AWSSecret -Key api_key -String {v}",
]


@pytest.mark.parametrize("shape", PAIRS)
def test_a_powershell_setting_hides_its_value(shape: str) -> None:
    text = shape.format(v=SECRET)
    shown = redact_text(text)
    assert SECRET not in shown
    assert REDACTED in shown


@pytest.mark.parametrize(
    "text",
    [
        "Write-SSMParameter -Name /prod/db/password -Value hunter2X -Type SecureString",
        "Set-Item -Path Env:DB_PASSWORD -Value hunter2X",
        "New-ItemProperty -Path HKCU:\\Software\\App -Name Password -Value hunter2X",
    ],
)
def test_cmdlets_names_and_other_parameters_stay(text: str) -> None:
    shown = redact_text(text)
    assert shown == text.replace(SECRET, REDACTED)


@pytest.mark.parametrize(
    "text",
    [
        "Write-SSMParameter -Name /prod/app/region -Value eu-west-1",
        "Set-Item -Path Env:LOG_LEVEL -Value debug",
        "New-ItemProperty -Path HKCU:\\Software\\App -Name Theme -Value dark",
        "find . -name '*.py' -value 3",
        "Get-ChildItem -Path Env:DB_PASSWORD",
    ],
)
def test_settings_naming_no_secret_stay(text: str) -> None:
    assert redact_text(text) == text


ARGVS = [
    ["Write-SSMParameter", "-Name", "/prod/db/password", "-Value", SECRET],
    ["Write-SSMParameter", "-Value", SECRET, "-Name", "/prod/db/password"],
    ["write-ssmparameter", "-NAME", "/prod/db/password", "-VALUE", SECRET],
    ["Set-Item", "-Path", "Env:DB_PASSWORD", "-Value", SECRET],
    ["ConvertTo-SecureString", SECRET, "-AsPlainText", "-Force"],
    ["ConvertTo-SecureString", "-String", SECRET, "-AsPlainText", "-Force"],
    ["aws", "ssm", "put-parameter", "--name", "/prod/db/password", "--value", SECRET],
]


@pytest.mark.parametrize("argv", ARGVS)
def test_an_argv_hides_the_value_and_keeps_the_rest(argv: list[str]) -> None:
    shown = redact(argv)
    assert isinstance(shown, list)
    assert SECRET not in repr(shown)
    assert [a for a in shown if a != REDACTED] == [a for a in argv if a != SECRET]
    assert not redacts_nothing(argv)


@pytest.mark.parametrize(
    "argv",
    [
        ["Write-SSMParameter", "-Name", "/prod/app/region", "-Value", "eu-west-1"],
        ["ConvertTo-SecureString", "$encrypted"],
        ["kubectl", "-n", "external-secrets", "get", "pods"],
    ],
)
def test_an_argv_setting_no_secret_stays(argv: list[str]) -> None:
    assert redact(argv) == argv


SECURE_STRINGS = [
    ("$pw = ConvertTo-SecureString '{v}' -AsPlainText -Force", None),
    ("$pw = ConvertTo-SecureString -String '{v}' -AsPlainText -Force", None),
    ("$pw = ConvertTo-SecureString -AsPlainText -Force -String '{v}'", None),
    ('$pw = ConvertTo-SecureString "{v}" -AsPlainText -Force', None),
    ("$password = convertto-securestring '{v}' -asplaintext -force", None),
    (
        "$cred = New-Object PSCredential('me', (ConvertTo-SecureString '{v}' -AsPlainText -Force))",
        "$cred = New-Object PSCredential('me', (ConvertTo-SecureString '[REDACTED]'"
        " -AsPlainText -Force))",
    ),
    (
        "Set-AzKeyVaultSecret -VaultName v -Name DbPassword -SecretValue"
        " (ConvertTo-SecureString '{v}' -AsPlainText -Force)",
        "Set-AzKeyVaultSecret -VaultName v -Name DbPassword -SecretValue"
        " (ConvertTo-SecureString '[REDACTED]' -AsPlainText -Force)",
    ),
    (
        "Set-AzKeyVaultSecret -VaultName v -Name DbPassword -SecretValue"
        " (ConvertTo-SecureString -String {v} -AsPlainText -Force)",
        "Set-AzKeyVaultSecret -VaultName v -Name DbPassword -SecretValue"
        " (ConvertTo-SecureString -String [REDACTED] -AsPlainText -Force)",
    ),
    ("$secret = '{v}' | ConvertTo-SecureString -AsPlainText -Force", None),
]


@pytest.mark.parametrize(("shape", "expected"), SECURE_STRINGS)
def test_convertto_securestring_hides_its_plain_text(shape: str, expected: str | None) -> None:
    shown = redact_text(shape.format(v=SECRET))
    assert SECRET not in shown
    if expected is not None:
        assert shown == expected
    assert "-AsPlainText" in shown or "-asplaintext" in shown


def test_an_encrypted_standard_string_is_no_plain_text() -> None:
    text = "$pw = ConvertTo-SecureString $encrypted -Key $key"
    assert redact_text(text) == "$pw = ConvertTo-SecureString $encrypted -Key $key" or (
        "$encrypted -Key $key" in redact_text(text)
    )


SHELL_WORDS = [
    ("$'{v}'", "$'[REDACTED]'"),
    ('$"{v}"', '$"[REDACTED]"'),
    ("{v},more", REDACTED),
    ("hun{{ter2X", REDACTED),
    ("hun'ter2X'", REDACTED),
    ("hun'ter 2X'", REDACTED),
    ('hun"ter 2X"', REDACTED),
    ("a[{v}]", REDACTED),
]


@pytest.mark.parametrize(("word", "shown"), SHELL_WORDS)
def test_a_name_value_flag_pair_reads_a_shell_word_whole(word: str, shown: str) -> None:
    text = f"aws ssm put-parameter --name /prod/db/password --value {word.format(v=SECRET)}"
    assert redact_text(text) == f"aws ssm put-parameter --name /prod/db/password --value {shown}"
    after = text + " --type SecureString && echo done"
    assert redact_text(after) == (
        f"aws ssm put-parameter --name /prod/db/password --value {shown}"
        " --type SecureString && echo done"
    )


@pytest.mark.parametrize(
    "text",
    [
        "kubectl -n external-secrets get pods",
        "kubectl -n sealed-secrets logs deploy/x",
        "kubectl --namespace external-secrets get pods -o wide",
        "helm upgrade eso external-secrets/external-secrets -n external-secrets --wait",
        "aws secretsmanager get-secret-value --secret-id prod/db",
        "aws secretsmanager describe-secret --secret-arn arn:aws:x",
        "docker run --password-file /run/pw.txt img",
        "tool --secret-name prod-db --token-path /var/run/token",
    ],
)
def test_what_names_where_a_secret_is_stays(text: str) -> None:
    assert redact_text(text) == text


@pytest.mark.parametrize(
    "argv",
    [
        ["aws", "secretsmanager", "get-secret-value", "--secret-id", "prod/db"],
        ["docker", "login", "--password-file", "/run/pw.txt"],
    ],
)
def test_an_argv_naming_where_a_secret_is_stays(argv: list[str]) -> None:
    assert redact(argv) == argv
    assert redacts_nothing(argv)


@pytest.mark.parametrize(
    "text",
    [
        "mysql --password hunter2X",
        "tool --secret hunter2X",
        "tool --api-token hunter2X",
        "vault write auth/approle/login role_id=r secret_id=hunter2X",
    ],
)
def test_secret_flags_still_hide(text: str) -> None:
    assert SECRET not in redact_text(text)


_SECRETS = st.text(
    alphabet=st.characters(min_codepoint=33, max_codepoint=126, exclude_characters="'\"`\\$"),
    min_size=8,
    max_size=24,
).map(lambda s: "Q" + s + "Z")

_SHAPES = [
    "Write-SSMParameter -Name /prod/db/password -Value '{v}' -Type SecureString",
    "Write-SSMParameter -Value '{v}' -Name /prod/db/password -Type SecureString",
    "Set-Item -Path Env:DB_PASSWORD -Value '{v}'",
    "New-ItemProperty -Path HKCU:\\Software\\App -Name Password -Value '{v}' -Force",
    "$pw = ConvertTo-SecureString '{v}' -AsPlainText -Force",
    "Set-AzKeyVaultSecret -VaultName v -Name DbPassword -SecretValue"
    " (ConvertTo-SecureString '{v}' -AsPlainText -Force)",
    "aws ssm put-parameter --name /prod/db/password --value $'{v}' --type SecureString",
]


@given(st.sampled_from(_SHAPES), _SECRETS)
def test_a_random_secret_in_each_shape_never_shows(shape: str, secret: str) -> None:
    text = shape.format(v=secret)
    shown = redact_text(text)
    assert secret not in shown
    for kept in ("-Type SecureString", "-AsPlainText", "-Force", "-Name", "-VaultName v"):
        if kept in text:
            assert kept in shown
    for cmdlet in ("Write-SSMParameter", "Set-Item", "New-ItemProperty", "Set-AzKeyVaultSecret"):
        if text.startswith(cmdlet):
            assert shown.startswith(cmdlet)
    if "(ConvertTo-SecureString" in text:
        assert "(ConvertTo-SecureString" in shown


@pytest.mark.parametrize(
    "text",
    [
        "Write-SSMParameter -Name /prod/db/password -Value " + "a'" * 500_000,
        "Write-SSMParameter -Name /prod/db/password -Value " + "x" * 1_000_000,
        "-Name -Value " * 80_000,
        "-Name password -Value '" + "x" * 1_000_000,
        "$pw = ConvertTo-SecureString " * 40_000,
        "$pw = ConvertTo-SecureString -AsPlainText " * 40_000,
        "$pw = ConvertTo-SecureString '" + "x" * 1_000_000,
        "(ConvertTo-SecureString '" * 40_000,
        "Set-Item -Path Env:DB_PASSWORD " * 40_000,
        "Set-Item -Path Env:DB_PASSWORD -Value " + "$'" * 500_000,
        "--name /prod/db/password --value " + 'a"' * 500_000,
        "kubectl -n external-secrets " * 40_000,
        "-n x-secret " * 80_000,
    ],
)
def test_hostile_inputs_finish(text: str) -> None:
    assert finished(lambda: redact_text(text))
    assert finished(lambda: redact(text.split(" ")))


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        # a quote in a word joins no flag (its name kept, read)
        ('aws ssm put-parameter --value q"z $"y" --key api_key', 'q"z'),
        # a pipeline ends a command's entry: the next command's own is read
        ("aws ssm put-parameter --value x{y} | cmd --name api_token --value=hunter2X", SECRET),
        (
            "cmd && aws ssm put-parameter --value 1 --name x && cmd --name api_token --value Y2",
            "Y2",
        ),
        # but a URL's `&` is no command's end
        ("cmd --name /prod/db/password --url http://x?a=1&b=2 --value hunter2X", SECRET),
        # PowerShell's parameters and the others are read apart
        ("aws ssm put-parameter --value hunter2X -String 1 --name /prod/db/password", SECRET),
        (
            "openssl x -key k.pem && aws ssm put-parameter"
            " --value hunter2X --name /prod/db/password",
            SECRET,
        ),
    ],
)
def test_entries_found_by_the_differential_fuzz(text: str, secret: str) -> None:
    assert secret not in redact_text(text)


def test_a_repr_of_powershell_items_is_not_merged() -> None:
    text = "['Set-Item', 'Env:DB_PASSWORD', \"-Value:'tok\", \"en'\", '-Name:api_key']"
    shown = redact_text(text)
    assert shown.count("', ") + shown.count('", ') == text.count("', ") + text.count('", ')


# a review of c4598c6: the plain text went only where a secret word was elsewhere in the line
# (`redact_text`'s first check read no secret in `ConvertTo-SecureString`), and a string
# piped to it lost its closing quote and the pipe
REVIEWED = [
    "$secure = ConvertTo-SecureString 'hunter2X' -AsPlainText -Force",
    '$x = ConvertTo-SecureString -String "hunter2X" -AsPlainText -Force',
    "'hunter2X' | ConvertTo-SecureString -AsPlainText -Force",
    "$cred = [pscredential]::new('bob', ('hunter2X' | ConvertTo-SecureString -AsPlainText -Force))",
    '"hunter2X"|ConvertTo-SecureString -AsPlain',
]


@pytest.mark.parametrize("text", REVIEWED)
def test_plain_text_made_secure_is_hidden_alone(text: str) -> None:
    assert redact_text(text) == text.replace("hunter2X", "[REDACTED]")
    argv = ["powershell", "-Command", text]
    assert not redacts_nothing(argv)
    assert redact(argv) == ["powershell", "-Command", text.replace("hunter2X", "[REDACTED]")]
