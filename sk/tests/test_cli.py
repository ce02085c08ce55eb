"""The CLI's contract: help, exit codes, param files, error paragraphs."""


import argparse
import importlib
import os
import sys

import pytest

from sk.cli import main as cli
from sk.base.errors import SkError
from sk.tests.harness import run_sk


def test_help_lists_commands(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for name in cli.COMMANDS:
        assert name in out


def test_version_reports_pinned_dependencies(capsys, monkeypatch):
    # pyelftools is no runtime dependency (sk/binfmt reads ELF itself): `sk version` must run without it.
    monkeypatch.setitem(sys.modules, "elftools", None)
    assert cli.main(["version", "--json"]) == 0
    out = capsys.readouterr().out
    assert '"jinja2": "3.1.6"' in out
    assert "elftools" not in out


def test_param_file(tmp_path, capsys):
    params = tmp_path / "args.params"
    params.write_text("version\n--json\n")
    assert cli.main([f"@{params}"]) == 0
    assert '"sk"' in capsys.readouterr().out


def test_user_error_is_one_paragraph_with_exit_2(monkeypatch, capsys):
    def boom(args):
        raise SkError("unknown option", where="option 'stream-funsion'", value="1",
                      allowed="did you mean 'stream-fusion'?")

    monkeypatch.setattr("sk.cli.commands.version.run", boom)
    assert cli.main(["version"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "Option 'stream-funsion': unknown option (got '1'). Did you mean 'stream-fusion'?" in err
    assert "Traceback" not in err


def test_internal_error_exit_1_asks_for_report(monkeypatch, capsys):
    def boom(args):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr("sk.cli.commands.version.run", boom)
    assert cli.main(["version"]) == 1
    err = capsys.readouterr().err
    assert "internal error" in err and "bug" in err
    assert "Traceback" not in err


def test_python_dash_m_sk_help_runs():
    res = run_sk("--help")
    assert res.returncode == 0, res.stderr
    assert "SuperKernel" in res.stdout


def _parse_both(argv):
    """(cli._parse, plain argparse over every command) results: the namespace, or the exit and stderr."""
    import contextlib
    import io

    def attempt(parse):
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err):
                return vars(parse(argv))
        except SystemExit as exit_:
            return ("exit", exit_.code, err.getvalue())
        except SkError as error:  # argparse's usage errors, and the gates' refusals
            return ("error", str(error))

    return attempt(cli._parse), attempt(lambda a: cli._parser().parse_args(a))


@pytest.fixture(autouse=True)
def _inputs_exist(tmp_path, monkeypatch):
    """The files the command lines below name, in a fresh working directory: the gates check them."""
    monkeypatch.chdir(tmp_path)
    for name in ["p.json", "m.json", "k.json", "a.o", "b.o", "c.o", "-c.o", "x.o", "y.o"] + [f"s{i}.o" for i in range(50)]:
        (tmp_path / name).write_text("{}")
    (tmp_path / "e").mkdir()


LINK = ["link", "--toolchain", "host", "--ld", "ld", "--objcopy", "objcopy", "--plan", "p.json", "--entry-dir", "e"]
TAIL = ["--meta-in", "m.json", "--out-obj", "o.o", "--out-json", "o.json"]


@pytest.mark.parametrize("argv", [
    LINK + [a for i in range(50) for a in ("--sub-obj", f"s{i}.o")] + TAIL,
    LINK + ["--sub-obj=a.o", "--sub-obj", "b.o", "--sub-obj=-c.o"] + TAIL,
    LINK + ["--sub-obj", "a.o", "--sub", "b.o", "--sub-obj", "c.o"] + TAIL,  # abbreviation: argparse decides
    LINK + ["--sub-obj", "-x"] + TAIL,  # a value like an option
    LINK + ["--plan", "--sub-obj", "a.o", "stray"] + TAIL,  # an option without its value
    LINK + ["--sub-obj", "a.o", "--", "b.o"] + TAIL,
    LINK + TAIL,
    ["gen", "--kernel-infos", "k.json", "--out-dir", "o"],
    ["link", "--help"],
])
def test_parse_is_argparse_with_repeated_options_taken_out(argv):
    folded, plain = _parse_both(argv)
    assert folded == plain


def test_param_file_with_the_command_inside(tmp_path):
    params = tmp_path / "link.params"
    params.write_text("\n".join(LINK + ["--sub-obj", "x.o", "--sub-obj", "y.o"] + TAIL) + "\n")
    folded, plain = _parse_both([f"@{params}"])
    assert folded == plain and folded["sub_obj"] == ["x.o", "y.o"]


def test_only_the_invoked_command_is_configured():
    parser = cli._parser("gen")
    sub = next(a for a in parser._actions if a.dest == "command")
    assert "--kernel-infos" in sub.choices["gen"].format_usage()
    assert "--sub-obj" not in sub.choices["link"].format_usage()


def test_every_argument_of_every_command_declares_its_gate():
    """A new command (or flag) names the gate of each argument it takes (sk/cli/gates.py): a path is
    checked as an input, an output or a tool before the command runs, a number against its C type.
    sk.cli.main gives an undeclared one the TEXT gate at run time; this test makes the choice explicit."""
    from sk.cli import gates

    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    undeclared = []
    for name, (module, _) in cli.COMMANDS.items():
        p = sub.add_parser(name)
        importlib.import_module(module).configure(p)
        for path, action in gates.actions(p):
            if not gates.is_gate(action.type):
                undeclared.append(" ".join(("sk", name) + path + (action.option_strings[:1] or [action.dest])))
    assert not undeclared, f"arguments without a gate (type=gates.X): {undeclared}"


def test_a_refused_argument_is_one_line_naming_the_flag_and_the_value(tmp_path, capsys):
    fifo = tmp_path / "plan.json"
    os.mkfifo(fifo)
    assert cli.main(["report", "--plan", str(fifo), "--meta", str(fifo), "-o", str(tmp_path / "r.md")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "--plan" in err and str(fifo) in err and "FIFO" in err, err
    assert cli.main(["subkernel", "compile", "--toolchain", "host", "--compiler", "g++", "--kernel-type", "x",
                     "--block-dim", "1", "--tiling-key", str(2 ** 64), "-o", "o.o", "s.cpp"]) == 2
    err = capsys.readouterr().err
    assert "--tiling-key" in err and str(2 ** 64) in err and "18446744073709551615" in err, err
