"""Checks that the hex examples in docs/protocol.md are what the code puts on the wire."""
import re
from pathlib import Path

from firmware_host import messages
from firmware_host.framing import Deframer, encode_frame
from firmware_host.messages import decode, to_packet

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
ROW = re.compile(r"^\| [^|]+ \| `(?P<python>[^`]+)` \| (?P<seq>\d+) \| (?P<flags>\d+) \| `(?P<hex>[0-9a-f ]+)` \|$")


def examples():
    rows = [ROW.match(line) for line in DOC.read_text(encoding="utf-8").splitlines()]
    return [row for row in rows if row]


def test_every_example_matches_the_encoder_and_decodes_back():
    rows = examples()
    assert len(rows) >= 10
    namespace = {name: getattr(messages, name) for name in dir(messages) if name[0].isupper()}
    for row in rows:
        message = eval(row["python"], namespace)  # noqa: S307 - our own document
        packet = to_packet(message, int(row["seq"]), int(row["flags"]))
        wire = bytes.fromhex(row["hex"])
        assert encode_frame(packet) == wire, row["python"]
        (decoded,) = Deframer().feed(wire)
        assert decode(decoded) == message


def test_documented_defaults_match_the_code():
    import inspect

    from firmware_host.link import BoardLink
    text = DOC.read_text(encoding="utf-8")
    defaults = {name: p.default for name, p in inspect.signature(BoardLink).parameters.items()
                if p.default is not inspect.Parameter.empty}
    for name in ("baud", "retry_timeout", "max_retries", "identify_interval", "handshake_timeout",
                 "heartbeat_interval", "heartbeat_timeout", "reopen_interval", "max_queue",
                 "send_timeout"):
        match = re.search(rf"^\| `{name}` \| ([0-9.]+)", text, re.M)
        assert match, f"{name} is not in the timing table"
        assert float(match.group(1)) == defaults[name], name
