"""The bad-input battery: every subcommand of `euchre-table`, every option, against inputs a user can get wrong.

The subcommands and their options are read from the command line's own argparse parser,
so a subcommand added later is covered without a change here. For each option (and
each positional argument) the battery tries each bad value below, the other required
arguments filled in with something usable; then the subcommand with no arguments, with
an unknown option, and with bad standard input. A case passes when the command ends
(or is still busy after a few seconds with a value that is valid) without a Python
traceback and without the command line's "internal error" line.

Run by ``tests/cli/test_bad_inputs.py`` in a child process per subcommand::

    python -m tests.cli.battery SUBCOMMAND WORKDIR    # one JSON line per case
"""
from __future__ import annotations

import argparse
import contextlib
import gc
import io
import json
import os
import random
import shutil
import signal
import sqlite3
import struct
import sys
import time
import zlib
from pathlib import Path

CASE_SECONDS = 1.5
OUT = "/OUT-OF-THE-CASE"      # stands for the case's own output folder in its arguments
# A traceback, the command line's last-resort line, or a library's own words that mean
# nothing to a player: each is a failure.
FAILURE_WORDS = ("Traceback (most recent call last)", "internal error", "allow_pickle",
                 "OpenCV(", "[Errno")
# Options that keep a command from running for ever (or for minutes) when they are not
# the one tested: the monitor stops, the simulation plays through the engine alone.
BOUNDS = {("board-monitor",): (["--seconds", "0.2"], ()),
          ("simulate",): (["--engine-only"], ("--size", "--out", "--people", "--seat", "--level")),
          ("match",): (["--pairs", "2"], ())}
# After this many cases of one option were still busy (its values were usable), the
# rest of that option's cases get a shorter time: a refusal comes at once.
BUSY_BEFORE_SHORT, SHORT_SECONDS = 3, 0.4


class CaseTimeout(BaseException):
    """Raised by the alarm: the command was busy with a usable value (BaseException, so
    that the command line's own handlers do not take it for an error)."""


def subcommands(parser: argparse.ArgumentParser, path=()):
    """``(words, parser)`` for every subcommand, nested ones included (``calibrate deck``)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield path + (name,), sub
                yield from subcommands(sub, path + (name,))


def _png(width: int, height: int) -> bytes:
    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + chunk(b"IEND", b""))


def make_files(d: Path) -> dict:
    """The bad (and a few good) inputs, as files in ``d``; returns name -> path."""
    d.mkdir(parents=True, exist_ok=True)
    rng = random.Random(14)
    f = {}

    def put(name, data):
        p = d / name
        p.write_bytes(data if isinstance(data, bytes) else data.encode())
        f[name] = str(p)

    put("empty.txt", b"")
    put("binary.bin", rng.randbytes(4096))
    put("text.md", "# a text file\n\nnot what any command wants\n")
    put("latin1.toml", "[table]\nname = \"caf\xe9\"\n".encode("latin-1"))
    put("wrong-types.toml", '[table]\nstate_dir = 5\n[vision]\nk = "three"\n')
    put("unknown.toml", "[tabel]\nname = 1\n")
    put("deep.jsonl", "[" * 100000 + "]" * 100000 + "\n")
    put("long-line.jsonl", "x" * 3_000_000 + "\n")
    put("list.json", "[1, 2, 3]")
    put("object.json", '{"markers": "no"}')
    put("huge.png", _png(60000, 60000))
    put("big.png", _png(30000, 30000))
    put("fake.png", b"\x89PNG\r\n\x1a\n" + rng.randbytes(200))
    put("tiny.png", _png(1, 1))
    put("not-a-deck.npz", b"PK\x03\x04" + rng.randbytes(300))
    put("pickle.npy", b"\x93NUMPY\x01\x00v\x00{'descr': '|O', 'fortran_order': False, 'shape': (1,), }"
        + b" " * 45 + b"\n" + b"\x80\x04\x95" + rng.randbytes(40))
    put("damaged.sqlite", b"SQLite format 3\x00" + rng.randbytes(8000))
    db = sqlite3.connect(d / "foreign.sqlite")
    db.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY)")
    db.commit()
    db.close()
    f["foreign.sqlite"] = str(d / "foreign.sqlite")
    (d / "folder").mkdir(exist_ok=True)
    (d / "folder" / "inside.txt").write_text("x")
    f["folder"] = str(d / "folder")
    state = d / "state"
    state.mkdir(exist_ok=True)
    put("good.toml", f'[table]\nstate_dir = "{state}"\nfirst_dealer = "S"\n')
    put("good.jsonl", '{"type": "hand", "dealer": "S"}\n{"type": "upcard", "card": "JH"}\n')
    # Configurations that read well but cannot run: pins on a machine without GPIO, one
    # pin twice, the screen's I2C pins taken, a zones file or a deck that is missing or
    # is not one, a state folder that cannot be made, a camera recording that is not there.
    top = f'[table]\nstate_dir = "{state}"\n'
    put("gpio.toml", top + "[panel]\npins = { pass = 5, order = 6 }\n")
    put("pin-twice.toml", top + "[panel]\npins = { pass = 5 }\n[leds]\nseats = { N = 5, E = 23, S = 24, W = 25 }\n")
    put("i2c-pins.toml", top + '[display]\ndriver = "ssd1306"\n[panel]\npins = { pass = 2 }\n')
    put("bad-pin.toml", top + "[panel]\npins = { pass = 99 }\n")
    put("no-zones.toml", top + '[vision]\nzones = "missing-zones.json"\n')
    put("bad-zones.toml", top + f'[vision]\nzones = "{d / "deep.jsonl"}"\n')
    put("bad-deck.toml", top + f'[vision]\nmode = "plain"\ndeck = "{d / "pickle.npy"}"\n')
    put("state-ro.toml", '[table]\nstate_dir = "/proc/euchre-table"\n')
    put("no-frames.toml", top + f'[camera]\nkind = "folder"\npath = "{d / "no-frames"}"\n')
    return f


def bad_values(f: dict, out: Path) -> list:
    """Every bad value tried for an option; ``out`` is a fresh folder for outputs."""
    files = [f[k] for k in ("empty.txt", "binary.bin", "text.md", "latin1.toml", "wrong-types.toml",
                            "unknown.toml", "deep.jsonl", "long-line.jsonl", "list.json",
                            "object.json", "huge.png", "big.png", "fake.png", "tiny.png",
                            "not-a-deck.npz", "pickle.npy", "damaged.sqlite", "foreign.sqlite",
                            "folder", "gpio.toml", "pin-twice.toml", "i2c-pins.toml",
                            "bad-pin.toml", "no-zones.toml", "bad-zones.toml", "bad-deck.toml",
                            "state-ro.toml", "no-frames.toml")]
    return files + [
        str(out / "missing" / "nothing.here"),   # a missing file in a missing folder
        str(out / "new-output"),                 # a usable new path
        "/proc/euchre-table/readonly",           # read-only: nothing can be made there
        "/proc/version",                         # a read-only file
        "", "abc", "-1", "0", "1e999", "nan", "99999999999999999999", "x" * 5000,
        "-", "♠", "1x1", "0x0", "99999x99999",
    ]


def fillers(f: dict, out: Path) -> dict:
    """Usable values for the arguments that a case does not test, by their name."""
    return {"config": f["good.toml"], "log": f["good.jsonl"], "events": f["good.jsonl"],
            "images": f["tiny.png"], "port": str(out / "no-port"), "out": str(out / "out-file"),
            "a": "random", "b": "random"}


def _filler(action, fill: dict, out: Path) -> str:
    if action.dest in fill:
        return fill[action.dest]
    if action.choices:
        return str(list(action.choices)[0])
    if action.type in (int, float):
        return str(action.default if action.default is not None else 1)
    return str(out / f"fill-{action.dest}")


def cases(words: tuple, parser: argparse.ArgumentParser, f: dict, out: Path):
    """``(argv, stdin)`` for every case of one subcommand."""
    valued = [a for a in parser._actions
              if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction,
                                    argparse._StoreTrueAction, argparse._StoreFalseAction,
                                    argparse._StoreConstAction, argparse._CountAction))]
    flags = [a for a in parser._actions
             if isinstance(a, (argparse._StoreTrueAction, argparse._StoreFalseAction))]
    groups = [set(map(id, g._group_actions)) for g in parser._mutually_exclusive_groups]
    fill = fillers(f, out)
    required = [a for a in valued if a.required or not a.option_strings]

    bound, unbounded = BOUNDS.get(tuple(words), ([], ()))

    def argv_with(tested, value, extra_flags=()):
        free = tested.option_strings[:1] == bound[:1] or set(tested.option_strings) & set(unbounded)
        argv = list(words) + ([] if free else list(bound))
        chosen = [tested]
        for a in required:
            if a is tested or any(id(a) in g and id(tested) in g for g in groups):
                continue
            chosen.append(a)
        for a in chosen:
            v = value if a is tested else _filler(a, fill, out)
            if a.option_strings:
                argv += [a.option_strings[0], v]
            else:
                argv += [v]
        for fl in extra_flags:
            if not any(id(fl) in g and any(id(c) in g for c in chosen) for g in groups):
                argv.append(fl.option_strings[0])
        return argv

    yield list(words), ""
    yield list(words) + ["--no-such-option"], ""
    yield list(words) + ["--help"], ""
    for tested in valued:
        for value in bad_values(f, out):
            yield argv_with(tested, value), ""
        if flags:
            for value in bad_values(f, out)[:4]:
                yield argv_with(tested, value, flags), ""
    base = argv_with(required[0], _filler(required[0], fill, out)) if required else \
        list(words) + list(bound)
    for stdin in ("", "\x00\xff junk\n" * 3, "1\n" * 2000, "y" * 100000 + "\n"):
        yield base, stdin
    for fl in flags:
        yield base + [fl.option_strings[0]], ""
    yield base + ["extra-positional"], ""


def _alarm(signum, frame):
    raise CaseTimeout()


def run_case(argv: list, stdin: str, seconds: float = CASE_SECONDS) -> dict:
    from controller.cli import main
    out, err = io.StringIO(), io.StringIO()
    old_in = sys.stdin
    sys.stdin = io.StringIO(stdin)
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    t0 = time.monotonic()
    result = {"argv": argv, "stdin": stdin[:20]}
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                result["code"] = main(argv)
            except SystemExit as exc:
                result["code"] = exc.code if isinstance(exc.code, int) else 2
    except CaseTimeout:
        result["code"] = "busy"
    except BaseException as exc:  # an exception escaping main() is a traceback for a user
        import traceback
        result["code"] = "raised"
        err.write("Traceback (most recent call last):\n" + "".join(
            traceback.format_exception(type(exc), exc, exc.__traceback__))[-2000:])
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        sys.stdin = old_in
        for s, h in handlers.items():
            signal.signal(s, h)
        gc.collect()   # a command stopped mid-way lets go of its files and locks
    result["seconds"] = round(time.monotonic() - t0, 2)
    text = out.getvalue() + err.getvalue()
    result["failed"] = any(w in text for w in FAILURE_WORDS) or result["code"] == "raised"
    result["stderr"] = err.getvalue()[-1500:]
    return result


def main(argv=None) -> int:
    args = (argv or sys.argv[1:])
    words, work = tuple(args[0].split()), Path(args[1])
    from controller.cli import build_parser
    parsers = dict(subcommands(build_parser()))
    parser = parsers[words]
    files_dir = work / "files"
    f = make_files(files_dir)
    reference = {p: os.path.getsize(p) for p in f.values() if os.path.isfile(p)}
    os.chdir(work)
    real_stdout = sys.stdout
    n = 0
    busy: dict = {}
    for argv, stdin in cases(words, parser, f, Path(OUT)):
        n += 1
        # Each case writes into a folder of its own, and nothing is removed before the
        # end: a command stopped by the alarm may still write when the process exits
        # (luma's GIF writer does), relative to the same working folder.
        case = work / f"case-{n}"
        (case / "out").mkdir(parents=True)
        argv = [a.replace(OUT, str(case / "out")) for a in argv]
        # A command may have written over an input: put the inputs back as they were.
        if any(not os.path.exists(p) or os.path.getsize(p) != s for p, s in reference.items()):
            shutil.rmtree(files_dir, ignore_errors=True)
            make_files(files_dir)
        option = next((a for a in argv[len(words):] if a.startswith("--")), "")
        short = busy.get(option, 0) >= BUSY_BEFORE_SHORT
        result = run_case(argv, stdin, SHORT_SECONDS if short else CASE_SECONDS)
        busy[option] = busy.get(option, 0) + (result["code"] == "busy")
        result["argv"] = [a if len(a) < 80 else a[:40] + "..." for a in result["argv"]]
        real_stdout.write(json.dumps(result) + "\n")
        real_stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
