"""The CLI as a newcomer meets it: JSON that is only JSON, explain that agrees with call,
approvals from the terminal's flags, logs read where they were written, clear errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import jsonschema
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
def deploy(target: str) -> str:
    """Deploy to a target."""
    return f"deployed to {target}"
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "mytools.py").write_text(TOOLS_PY)
    (tmp_path / "toolrail.toml").write_text(
        '[tools]\nmodules = ["mytools.py"]\n\n[logging]\ndirectory = "calls"\n\n'
        '[agents.user]\ntools = ["add"]\n\n[policy]\nask = ["deploy"]\n'
    )
    return tmp_path


def _run(project: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "toolrail.cli", *argv],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.startswith("toolrail ")


def test_tools_list_json_is_one_json_document(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["tools", "list", "--json", "--config", str(project / "toolrail.toml")]) == 0
    definitions = orjson.loads(capsys.readouterr().out)
    assert sorted(d["name"] for d in definitions) == ["add", "deploy"]


def test_explain_agrees_with_call_and_suggests_names(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = str(project / "toolrail.toml")
    # the operator (no --agent) may call every tool, so explain must not say otherwise
    assert main(["tools", "explain", "add", "--config", config]) == 0
    assert "does not allow" not in capsys.readouterr().out
    assert main(["call", "add", "--args", '{"a": 1, "b": 2}', "--config", config]) == 0
    capsys.readouterr()
    assert main(["tools", "explain", "ad", "--config", config]) == 1
    err = capsys.readouterr().err
    assert "no tool named 'ad'" in err
    assert "did you mean add" in err


def test_approval_from_flags(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = str(project / "toolrail.toml")
    arguments = '{"target": "prod"}'
    assert main(["call", "deploy", "--args", arguments, "--config", config, "--approve"]) == 0
    assert orjson.loads(capsys.readouterr().out)["output"] == "deployed to prod"
    assert (
        main(["call", "deploy", "--args", arguments, "--config", config, "--deny", "not now"]) == 1
    )
    error = orjson.loads(capsys.readouterr().out)["error"]
    assert error["kind"] == "permission_denied"
    assert "not now" in error["message"]


def test_without_a_terminal_or_flag_approval_is_required_and_explained(project: Path) -> None:
    done = _run(project, "call", "deploy", "--args", '{"target": "prod"}')
    assert done.returncode == 1
    assert orjson.loads(done.stdout)["error"]["kind"] == "approval_required"
    assert "--approve" in done.stderr
    assert "Traceback" not in done.stderr


def test_logs_are_read_where_call_wrote_them(project: Path) -> None:
    assert _run(project, "call", "add", "--args", '{"a": 2, "b": 3}').returncode == 0
    assert list((project / "calls").glob("tool-calls-*.jsonl"))
    assert not (project / "logs").exists()
    tail = _run(project, "logs", "tail")  # reads ./toolrail.toml's [logging] directory
    assert tail.returncode == 0, tail.stderr
    assert "add" in tail.stdout
    stats = _run(project, "logs", "stats", "--config", "toolrail.toml")
    assert stats.returncode == 0
    assert "add" in stats.stdout


@pytest.mark.parametrize("command", ["tail", "show", "stats"])
def test_a_missing_log_directory_is_an_error(project: Path, command: str) -> None:
    done = _run(project, "logs", command, "--dir", "nowhere")
    assert done.returncode == 2
    assert "no log directory at nowhere" in done.stderr
    assert "Traceback" not in done.stderr


def test_typos_in_the_config_are_named_with_the_likely_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "toolrail.toml"
    config.write_text('[tools]\nmodule = ["x.py"]\n\n[policy]\nalow = ["add"]\n')
    assert main(["tools", "list", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert "tools.module: Extra inputs are not permitted (did you mean 'modules'?)" in err
    assert "policy.alow: Extra inputs are not permitted (did you mean 'allow'?)" in err
    assert "Traceback" not in err


def test_the_config_schema_refuses_unknown_server_keys_and_describes_fields() -> None:
    schema = Config.json_schema()
    server = {"command": "python", "argz": ["-m", "x"]}
    with pytest.raises(jsonschema.ValidationError, match="argz"):
        jsonschema.validate({"mcp": {"servers": {"x": server}}}, schema)
    assert "did you mean" not in str(schema)  # descriptions, not messages
    assert schema["$defs"]["ToolsSection"]["properties"]["modules"]["description"]


def test_an_unknown_agent_or_a_pattern_naming_nothing_is_warned_about(project: Path) -> None:
    (project / "toolrail.toml").write_text(
        '[tools]\nmodules = ["mytools.py"]\n\n[agents.user]\ntools = ["add", "deplyo"]\n'
    )
    done = _run(project, "tools", "list", "--agent", "usr")
    assert done.returncode == 0
    assert "no agent 'usr' in the config (did you mean user?)" in done.stderr
    assert "agent 'user': 'deplyo' matches no tool (did you mean deploy?)" in done.stderr


def test_a_read_only_tool_is_not_listed_as_destructive(tmp_path: Path) -> None:
    (tmp_path / "ro.py").write_text(
        "from toolrail import ToolAnnotations, tool\n\n"
        "@tool(annotations=ToolAnnotations(read_only=True))\n"
        "def peek(path: str) -> str:\n    '''Look at a path.'''\n    return path\n"
    )
    done = _run(tmp_path, "tools", "list", "--json", "--module", "ro.py")
    [definition] = orjson.loads(done.stdout)
    assert definition["annotations"]["read_only"] is True
    assert definition["annotations"]["destructive"] is False


def test_a_read_only_tool_is_not_listed_as_open_world_unless_it_says_so(tmp_path: Path) -> None:
    """`tools list --json`: read-only alone means a closed world; open_world=True is kept."""
    (tmp_path / "ro.py").write_text(
        "from toolrail import ToolAnnotations, tool\n\n"
        "@tool(annotations=ToolAnnotations(read_only=True))\n"
        "def peek(path: str) -> str:\n    '''Look at a path.'''\n    return path\n\n"
        "@tool(annotations=ToolAnnotations(read_only=True, open_world=True))\n"
        "def search_web(query: str) -> str:\n    '''Search the web.'''\n    return query\n\n"
        "@tool\n"
        "def poke(path: str) -> str:\n    '''Change a path.'''\n    return path\n"
    )
    done = _run(tmp_path, "tools", "list", "--json", "--module", "ro.py")
    hints = {d["name"]: d["annotations"] for d in orjson.loads(done.stdout)}
    assert (hints["peek"]["open_world"], hints["peek"]["destructive"]) == (False, False)
    assert (hints["search_web"]["open_world"], hints["search_web"]["destructive"]) == (True, False)
    assert (hints["poke"]["open_world"], hints["poke"]["destructive"]) == (True, True)
