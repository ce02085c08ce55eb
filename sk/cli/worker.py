"""`sk --persistent_worker`: Bazel's persistent-worker protocol (JSON), one request at a time.

A fresh `sk` process pays for the interpreter, the imports and (in `sk gen`)
jinja2 and the templates before it does any work: 0.1-0.3 s per action, and
a SuperKernel of 1,200 sub-kernels has ~3,600 sk actions. Bazel starts this
loop once per action kind and sends it the actions' command lines:

  request  {"arguments": ["gen", "--kernel-infos", ...], "requestId": 0, "sandboxDir": "..."}
  response {"exitCode": 0, "output": "<what the command printed>", "requestId": 0}

Each request runs exactly what `python -m sk <arguments>` runs (sk.cli.main.main),
in the request's sandbox directory when Bazel gives one, with what it prints
returned as the response's output. The protocol owns the process's stdout;
file descriptor 1 is pointed at stderr (the worker log) so that nothing a
tool or a helper process writes there can corrupt it.

Every request is answered, a bad one too: arguments the gates refuse (a NUL
byte, bytes that are not UTF-8, a FIFO as a path) and fields of the wrong
type (`arguments` not a list of strings, `sandboxDir` not a directory) get
exit code 2 and a one-line message. What is no request at all ends the
worker, with one line in its log, so that Bazel starts a new one: text that
is not JSON, a JSON value that is not an object, an object nested too deep
to decode, an incomplete request at the end of input. Without a requestId
there is nothing to answer, and Bazel would wait for ever for the answer to
a request it sent. Text after a complete request on the request's line is
logged and dropped after the request is answered.
"""

from __future__ import annotations

import contextlib
import gc
import io
import json
import os
import sys

FLAG = "--persistent_worker"


def _preload() -> None:
    """Imports what the commands need, so the first request of each kind is as fast as the rest."""
    import importlib

    from sk.cli import main as cli

    for module, _ in cli.COMMANDS.values():
        importlib.import_module(module)
    from sk.render import codegen
    from sk.render import genhelper
    from sk.toolflow import link
    from sk.engine import plan
    from sk.toolflow import subkernel  # noqa: F401

    # sk gen's forked helper finds jinja2 imported and the templates compiled.
    codegen.shared_environment(genhelper.PRECOMPILED)


def _requests(stream, log=None):
    """The JSON objects on `stream`, however Bazel lays them out (one per line, as it does today).

    A request may span lines. What cannot be a request ends the stream with a ProtocolError (the
    worker exits, logging why, and Bazel restarts it): text that is not JSON, a JSON value that is not
    an object, an object nested too deep to decode, an incomplete request at the end of input. Bazel
    waits for an answer to every request it sent, and without a requestId there is nothing to answer,
    so carrying on would leave it waiting. Text after a complete request on the request's own line is
    different: that request is answered, and the rest of its line (unless it holds complete requests
    of its own) is dropped with a line in the worker log (`log`, default stderr).
    """
    decoder = json.JSONDecoder()
    buffer = ""
    for line in stream:
        buffer += line
        while True:
            text = buffer.lstrip()
            if not text:
                buffer = ""
                break
            obj, end = _decode_one(decoder, text)
            if obj is None:
                break  # incomplete: read on
            yield obj
            buffer = _after_request(decoder, text[end:], log)
    if buffer.strip():
        raise ProtocolError(f"incomplete work request at end of input: {buffer[:200]!r}")


def _decode_one(decoder, text: str):
    """(object, end) of the request at the start of `text`; (None, 0) if it is incomplete; else ProtocolError."""
    try:
        obj, end = decoder.raw_decode(text)
    except json.JSONDecodeError as err:
        if err.pos >= len(text.rstrip()):
            return None, 0
        raise ProtocolError(f"a work request is not JSON ({err.msg} at character {err.pos}): {text[:200]!r}") from None
    except RecursionError:
        raise ProtocolError(f"a work request is nested too deep to decode: {text[:200]!r}") from None
    if not isinstance(obj, dict):
        raise ProtocolError(f"a work request must be a JSON object, got {text[:end][:200]!r}")
    return obj, end


def _after_request(decoder, rest: str, log) -> str:
    """What to read on after a request: `rest` if the rest of its line is blank or starts another
    complete request there; otherwise the rest of the line is logged and dropped."""
    newline = rest.find("\n")
    tail = rest if newline < 0 else rest[:newline]
    if not tail.strip():
        return rest
    if tail.lstrip().startswith("{"):
        try:
            decoder.raw_decode(tail.lstrip())
            return rest  # another request on the same line
        except (json.JSONDecodeError, RecursionError):
            pass
    print(f"sk --persistent_worker: ignored text after a work request on its line: {tail[:200]!r}",
          file=log or sys.stderr)
    return "" if newline < 0 else rest[newline + 1:]


class ProtocolError(Exception):
    """What Bazel sent is not a WorkRequest stream (a bug on one side, not bad user input)."""


def _bad_request(request: dict) -> str:
    """Why a WorkRequest cannot be run ("" when it can)."""
    args = request.get("arguments", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        return f"'arguments' must be a list of strings, got {json.dumps(args)[:200]}"
    request_id = request.get("requestId", 0)
    if isinstance(request_id, bool) or not isinstance(request_id, int):
        return f"'requestId' must be an integer, got {json.dumps(request_id)[:200]}"
    sandbox = request.get("sandboxDir")
    if sandbox is not None and not isinstance(sandbox, str):
        return f"'sandboxDir' must be a string, got {json.dumps(sandbox)[:200]}"
    if sandbox and not os.path.isdir(sandbox):
        return f"'sandboxDir' {sandbox[:200]!r} is not a directory"
    return ""


def handle(request: dict) -> dict:
    """One WorkRequest -> its WorkResponse; every request gets one (exit 2 naming what is wrong with a bad one)."""
    from sk.cli import main as cli

    request_id = request.get("requestId", 0)
    if isinstance(request_id, bool) or not isinstance(request_id, int):
        request_id = 0
    problem = _bad_request(request)
    if problem:
        return {"exitCode": 2, "output": f"sk --persistent_worker: bad work request: {problem}\n",
                "requestId": request_id}
    args = list(request.get("arguments", []))
    out = io.StringIO()
    cwd = os.getcwd()
    sandbox = request.get("sandboxDir")
    code = 1
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            try:
                if sandbox:
                    os.chdir(sandbox)
                code = cli.main(args)
            except SystemExit as stop:  # argparse: usage errors and --help
                code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 2)
                if stop.code is not None and not isinstance(stop.code, int):
                    print(stop.code)
            except Exception as err:  # noqa: BLE001 - the worker must answer and live on
                print(f"sk --persistent_worker: internal error: {type(err).__name__}: {err}. This is a bug in sk; "
                      "please report it with the command line.")
                code = 1
    finally:
        os.chdir(cwd)
    return {"exitCode": int(code), "output": out.getvalue(), "requestId": request_id}


def serve(stdin=None, stdout_fd: int | None = None) -> int:
    """The worker loop; returns when Bazel closes stdin."""
    if stdout_fd is None:
        stdout_fd = os.dup(1)
        os.dup2(2, 1)  # stray writes to fd 1 go to the worker log, not into the protocol
        sys.stdout = sys.stderr
    protocol = os.fdopen(stdout_fd, "w", encoding="utf-8", newline="\n")
    _preload()
    if stdin is None:
        # Bytes that are not UTF-8 reach the request as lone surrogates, which sk.cli.main refuses naming
        # the argument (strict decoding would end the worker with a UnicodeDecodeError).
        stdin = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="surrogateescape")
    try:
        for request in _requests(stdin):
            if request.get("cancel"):
                continue  # one request at a time: it has been answered already
            response = handle(request)
            protocol.write(json.dumps(response, sort_keys=True) + "\n")
            protocol.flush()
            # The request's objects are garbage now; collect them while Bazel is busy elsewhere
            # (sk runs with the collector off, see __main__).
            gc.collect()
    except ProtocolError as err:
        # To the worker log; Bazel sees the worker end, reports the action failed and starts a new worker.
        print(f"sk --persistent_worker: {err}; exiting so that Bazel starts a new worker", file=sys.stderr)
        return 1
    protocol.flush()
    return 0
