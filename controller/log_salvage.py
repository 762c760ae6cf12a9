"""Reading the events out of a damaged table log, page by page, without SQLite's help.

Why our own code: SQLite stops at the first damaged page it meets ("database disk image is
malformed"), so everything after it would be lost, and the tools that read past damage
are not at hand (Python's ``sqlite3`` has no recovery API; the ``sqlite3`` shell's
``.recover`` fails with "SQL logic error" in the Debian 12 / Raspberry Pi OS build). The
table's log is one simple table, so the file format (https://www.sqlite.org/fileformat.html)
is enough: every leaf page of a table holds whole rows, and an event row is easy to tell
from anything else (three columns: the row id as ``seq``, a number ``at``, a text ``body``).
Pages are read from the file and from its write-ahead log (later frames win); a page that
does not parse is skipped, so one damaged page costs only the events on it.

>>> import os, sqlite3, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "log.sqlite")
>>> db = sqlite3.connect(path)
>>> _ = db.execute("CREATE TABLE events (seq INTEGER PRIMARY KEY, at REAL NOT NULL, body TEXT NOT NULL)")
>>> _ = db.execute("INSERT INTO events (at, body) VALUES (12.5, '{\\"type\\": \\"collect\\"}')")
>>> db.commit(); db.close()
>>> salvage_rows(path)
[(1, 12.5, '{"type": "collect"}')]
"""
from __future__ import annotations

import os
import struct

_LEAF_TABLE = 0x0D
_PAGE_SIZES = (4096, 1024, 2048, 8192, 16384, 32768, 65536, 512)


def salvage_rows(path: str) -> list:
    """Every event row that can be read from ``path`` (and ``path-wal``), as sorted
    ``(seq, at, body)``; reads only."""
    with open(path, "rb") as f:
        data = f.read()
    wal = b""
    if os.path.exists(path + "-wal"):
        with open(path + "-wal", "rb") as f:
            wal = f.read()
    best: dict = {}
    for page_size, reserved in _layouts(data, wal):
        found: dict = {}
        for page in _pages(data, page_size):
            _rows_of_page(page, page_size, reserved, data, found)
        for page in _wal_pages(wal, page_size):
            _rows_of_page(page, page_size, reserved, data, found)
        if len(found) > len(best):
            best = found
    return [(seq, *best[seq]) for seq in sorted(best)]


def _layouts(data: bytes, wal: bytes):
    """The page size (and reserved bytes) from the header when it is sane, then the
    other possible sizes: a damaged header must not hide the pages."""
    sizes = []
    if len(data) >= 100:
        size = struct.unpack(">H", data[16:18])[0]
        size = 65536 if size == 1 else size
        if size in _PAGE_SIZES:
            sizes.append((size, data[20] if data[20] < 64 else 0))
    if len(wal) >= 32:
        size = struct.unpack(">I", wal[8:12])[0]
        if size in _PAGE_SIZES and (size, 0) not in sizes:
            sizes.append((size, 0))
    for size in _PAGE_SIZES:
        if not any(s == size for s, _ in sizes):
            sizes.append((size, 0))
    return sizes


def _pages(data: bytes, page_size: int):
    for off in range(0, len(data) - page_size + 1, page_size):
        yield data[off:off + page_size]


def _wal_pages(wal: bytes, page_size: int):
    # WAL: a 32-byte header, then frames of a 24-byte header and one page each.
    if len(wal) < 32 or struct.unpack(">I", wal[8:12])[0] != page_size:
        return
    off = 32
    while off + 24 + page_size <= len(wal):
        yield wal[off + 24:off + 24 + page_size]
        off += 24 + page_size


def _varint(buf: bytes, i: int):
    value = 0
    for k in range(9):
        if i + k >= len(buf):
            raise ValueError("varint past the end")
        b = buf[i + k]
        if k == 8:
            return (value << 8) | b, i + 9
        value = (value << 7) | (b & 0x7F)
        if b < 0x80:
            return value, i + k + 1
    raise ValueError("bad varint")  # pragma: no cover


def _rows_of_page(page: bytes, page_size: int, reserved: int, data: bytes, found: dict) -> None:
    # Page 1 starts with the 100-byte file header; its b-tree header follows it.
    for start in (0, 100):
        if start >= len(page) or page[start] != _LEAF_TABLE:
            continue
        try:
            cells = struct.unpack(">H", page[start + 3:start + 5])[0]
            usable = page_size - reserved
            for n in range(cells):
                ptr = struct.unpack(">H", page[start + 8 + 2 * n:start + 10 + 2 * n])[0]
                if not start + 8 <= ptr < usable:
                    continue
                try:
                    row = _cell(page, ptr, usable, page_size, data)
                except (ValueError, struct.error, IndexError, UnicodeDecodeError):
                    continue
                if row is not None and row[0] not in found:
                    found[row[0]] = row[1:]
        except (ValueError, struct.error, IndexError):
            continue


def _cell(page: bytes, ptr: int, usable: int, page_size: int, data: bytes):
    size, i = _varint(page, ptr)
    rowid, i = _varint(page, i)
    if size > 1 << 24 or rowid <= 0:
        return None
    x = usable - 35
    if size <= x:
        payload = page[i:i + size]
    else:
        m = ((usable - 12) * 32 // 255) - 23
        k = m + (size - m) % (usable - 4)
        local = k if k <= x else m
        payload = bytearray(page[i:i + local])
        nxt = struct.unpack(">I", page[i + local:i + local + 4])[0]
        seen = set()
        while len(payload) < size and nxt and nxt not in seen:
            seen.add(nxt)
            off = (nxt - 1) * page_size
            over = data[off:off + page_size]
            if len(over) < page_size:
                return None
            nxt = struct.unpack(">I", over[:4])[0]
            payload += over[4:usable]
        payload = bytes(payload[:size])
    if len(payload) != size:
        return None
    return _event_row(rowid, payload)


def _event_row(rowid: int, rec: bytes):
    """(seq, at, body) when the record is an event row: NULL, a number, a text."""
    header_size, i = _varint(rec, 0)
    types = []
    while i < header_size:
        t, i = _varint(rec, i)
        types.append(t)
    if len(types) != 3 or types[0] != 0:
        return None
    pos = header_size
    at_type, body_type = types[1], types[2]
    widths = {1: 1, 2: 2, 3: 3, 4: 4, 5: 6, 6: 8}
    if at_type == 7:
        at = struct.unpack(">d", rec[pos:pos + 8])[0]
        pos += 8
    elif at_type in widths:
        w = widths[at_type]
        at = int.from_bytes(rec[pos:pos + w], "big", signed=True)
        pos += w
    elif at_type in (8, 9):
        at = at_type - 8
    else:
        return None
    if body_type < 13 or body_type % 2 == 0:
        return None
    n = (body_type - 13) // 2
    if pos + n != len(rec):
        return None
    body = rec[pos:pos + n].decode("utf-8")
    return rowid, float(at), body
