"""The docs describe the product as it is, for its users: no pointers to documents they do not have."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted([*ROOT.glob("docs/*.md"), *(p for p in ROOT.glob("examples/**/*") if p.is_file()),
                ROOT / "README.md"])
# The project's internal numbering of the rule sources and of its work: a user has none
# of it. The sources are named by their titles (docs/engine.md).
FORBIDDEN = re.compile(r"\bseeds? 00[0-9]|\(seed 0|\bissue \d|closing note|done-when",
                       re.IGNORECASE)
# A page named like "design.md" must be one the repository holds (docs/ or the top).
PAGE_NAME = re.compile(r"[\w./-]*\b[\w-]+\.md\b")


def _missing_page(name: str) -> bool:
    name = name.lstrip("./")
    return not ((ROOT / name).is_file() or (ROOT / "docs" / Path(name).name).is_file())
REWRITTEN = {"vision-plain.md"}   # its own rewrite brings it in line


@pytest.mark.parametrize("page", [
    pytest.param(p, marks=pytest.mark.xfail(reason="being rewritten", strict=False))
    if p.name in REWRITTEN else p for p in PAGES], ids=lambda p: p.name)
def test_no_page_points_to_documents_users_do_not_have(page):
    bad = [f"{page.name}:{n}: {line.strip()[:100]}"
           for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
           if FORBIDDEN.search(line) or any(_missing_page(m) for m in PAGE_NAME.findall(line))]
    assert not bad, "\n".join(bad)


def test_the_serial_board_is_on_usb_in_both_pages():
    hardware = (ROOT / "docs" / "hardware.md").read_text()
    protocol = (ROOT / "docs" / "protocol.md").read_text()
    assert "over a USB serial line" in protocol
    assert "the UART (14, 15) for the table's" not in hardware
    assert "plugs into USB" in hardware


def test_the_rule_sources_are_named_by_their_titles():
    engine = (ROOT / "docs" / "engine.md").read_text()
    for title in ("Rules of Euchre*, Somerset Club of Boston, 1888", "skill.games Euchre",
                  "Cardems Euchre", "Solitaire Parlor Euchre"):
        assert title in engine
