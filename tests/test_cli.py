"""The `toolrail` command over a real toolrail.toml and tool modules on disk."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from toolrail.cli import main
from toolrail.config import Config

TOOLS_PY = '''
from toolrail import tool

@tool(tags=["math"])
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b

@tool
def secret() -> str:
    """Only for admins."""
    return "42"
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "mytools.py").write_text(TOOLS_PY)
    (tmp_path / "toolrail.toml").write_text(
        '[tools]\nmodules = ["mytools.py"]\n\n'
        '[agents.user]\ntools = ["add"]\n\n[agents.admin]\ntools = ["*"]\n'
        'deny = ["add(a:13)"]\n\n[policy]\nask = ["secret"]\n'
    )
    return tmp_path


def test_tools_list_as_an_agent(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An agent lists only the tools of its table."""
    assert (
        main(["tools", "list", "--config", str(project / "toolrail.toml"), "--agent", "user"]) == 0
    )
    out = capsys.readouterr().out
    assert "add" in out
    assert "secret" not in out


def test_call_prints_success_json(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`toolrail call` prints the Result as JSON and exits 0 on success."""
    code = main(
        [
            "call",
            "add",
            "--args",
            '{"a": 2, "b": 3}',
            "--config",
            str(project / "toolrail.toml"),
            "--agent",
            "user",
        ]
    )
    assert code == 0
    assert orjson.loads(capsys.readouterr().out) == {"status": "success", "output": 5}
    [log] = (project / "logs").glob("tool-calls-*.jsonl")  # [logging] directory
    assert orjson.loads(log.read_bytes().splitlines()[-1])["agent"] == "user"


def test_call_prints_failure_json(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Failures print their kind and exit 1; the agent table applies."""
    config = str(project / "toolrail.toml")
    assert main(["call", "secret", "--config", config, "--agent", "user"]) == 1
    assert orjson.loads(capsys.readouterr().out)["error"]["kind"] == "not_allowed"
    assert main(["call", "add", "--args", '{"a": "x"}', "--config", config]) == 1
    error = orjson.loads(capsys.readouterr().out)["error"]
    assert error["kind"] == "invalid_arguments"
    assert [i["path"] for i in error["issues"]] == ["$.a", "$.b"]


def test_module_path_without_config(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Tools can come straight from a .py path."""
    assert main(["tools", "list", "--module", str(project / "mytools.py")]) == 0
    assert "secret" in capsys.readouterr().out


def test_bad_config_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A missing file, bad TOML or unknown keys say what is wrong; exit code 2."""
    assert main(["tools", "list", "--config", str(tmp_path / "none.toml")]) == 2
    assert "cannot read" in capsys.readouterr().err
    bad = tmp_path / "bad.toml"
    bad.write_text("[agents.x]\ntool = ['a']\n")
    assert main(["tools", "list", "--config", str(bad)]) == 2
    assert "agents.x.tool" in capsys.readouterr().err
    bad.write_text("[tools\n")
    assert main(["tools", "list", "--config", str(bad)]) == 2
    assert "not valid TOML" in capsys.readouterr().err


def test_config_parse_is_a_result() -> None:
    """Config.parse returns a Result, not an exception."""
    assert Config.parse({"agents": {"a": {"tools": ["x"]}}}).unwrap().agents["a"].tools == ("x",)
    assert "agents" in str(Config.parse({"agents": 3}).failure())


def test_console_script_runs(project: Path) -> None:
    """The installed `toolrail` entry point works as a process."""
    done = subprocess.run(
        [sys.executable, "-m", "toolrail.cli", "call", "add", "--args", '{"a": 1, "b": 1}'],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert orjson.loads(done.stdout)["output"] == 2


def test_policy_from_toml(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """[policy] and per-agent rules from toolrail.toml gate CLI calls and explain says so."""
    config = str(project / "toolrail.toml")
    assert (
        main(["call", "add", "--args", '{"a": 13, "b": 1}', "--config", config, "--agent", "admin"])
        == 1
    )
    error = orjson.loads(capsys.readouterr().out)["error"]
    assert error["kind"] == "permission_denied"
    assert "add(a:13)" in error["message"]
    assert main(["call", "secret", "--config", config, "--agent", "admin"]) == 1
    assert orjson.loads(capsys.readouterr().out)["error"]["kind"] == "approval_required"
    assert main(["tools", "explain", "secret", "--config", config, "--agent", "user"]) == 0
    out = capsys.readouterr().out
    assert "agent table: does not allow user" in out
    assert "approval: asked for (secret)" in out
