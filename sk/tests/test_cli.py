"""The CLI's contract: help, exit codes, param files, error paragraphs."""

import subprocess
import sys

import pytest

from sk import cli
from sk.errors import SkError


def test_help_lists_commands(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for name in cli.COMMANDS:
        assert name in out


def test_version_reports_pinned_dependencies(capsys):
    assert cli.main(["version", "--json"]) == 0
    out = capsys.readouterr().out
    assert '"jinja2": "3.1.6"' in out
    assert '"pyelftools": "0.32"' in out


def test_param_file(tmp_path, capsys):
    params = tmp_path / "args.params"
    params.write_text("version\n--json\n")
    assert cli.main([f"@{params}"]) == 0
    assert '"sk"' in capsys.readouterr().out


def test_user_error_is_one_paragraph_with_exit_2(monkeypatch, capsys):
    def boom(args):
        raise SkError("unknown option", where="option 'stream-funsion'", value="1",
                      allowed="did you mean 'stream-fusion'?")

    monkeypatch.setattr("sk.commands.version.run", boom)
    assert cli.main(["version"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "Option 'stream-funsion': unknown option (got '1'). Did you mean 'stream-fusion'?" in err
    assert "Traceback" not in err


def test_internal_error_exit_1_asks_for_report(monkeypatch, capsys):
    def boom(args):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr("sk.commands.version.run", boom)
    assert cli.main(["version"]) == 1
    err = capsys.readouterr().err
    assert "internal error" in err and "bug" in err
    assert "Traceback" not in err


def test_python_dash_m_sk_help_runs():
    res = subprocess.run([sys.executable, "-m", "sk", "--help"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "SuperKernel" in res.stdout
