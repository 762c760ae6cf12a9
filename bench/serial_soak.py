"""Soak test of the board link on a pty: noise both ways, then unplug/replug cycles; prints medians.

Run: ``python -m bench.serial_soak [--count 1000] [--corrupt 0.1] [--replugs 20]``

It sends `count` commands host → board and `count` events board → host at the
same time through a SimulatedBoard that corrupts the given fraction of bytes in
each direction, and counts what arrived: delivered, duplicated, lost, out of
order, and any message that arrived but was never sent (a misread). Then it
pulls and replugs the board `replugs` times and times the recovery, and times
handshakes under the same noise.
"""
from __future__ import annotations

import argparse
import json
import logging
import statistics
import threading
import time

from firmware_host.link import BoardLink
from firmware_host.messages import Beep, CardScanned
from firmware_host.simboard import SimulatedBoard


def _tally(sent: list, got: list) -> dict:
    sent_set = set(sent)
    seen: dict = {}
    for item in got:
        seen[item] = seen.get(item, 0) + 1
    return {
        "sent": len(sent),
        "delivered": sum(1 for item in sent if item in seen),
        "duplicates": sum(n - 1 for n in seen.values()),
        "lost": sum(1 for item in sent if item not in seen),
        "misread": sum(1 for item in got if item not in sent_set),
        "in_order": [item for item in got if item in sent_set] == sent[:len(got)],
    }


def soak(count: int, corrupt: float, retry_timeout: float, seed: int) -> dict:
    """Commands and events both ways through a noisy pty; counts and latency medians."""
    board = SimulatedBoard(seed=seed, retry_timeout=retry_timeout, heartbeat_interval=0.05).start()
    link = BoardLink(board.path, retry_timeout=retry_timeout, max_retries=1000,
                     heartbeat_interval=0.05, heartbeat_timeout=3.0, send_timeout=60).start()
    try:
        link.wait_connected(timeout=5)
        board.corrupt = corrupt
        event_deliveries = []

        def scan_all():
            for i in range(count):
                while len(board.protocol.tx_queue) > 30:
                    time.sleep(0.002)
                event_deliveries.append(board.scan(f"{i}"))

        started = time.monotonic()
        scanner = threading.Thread(target=scan_all)
        scanner.start()
        command_latencies = []
        for i in range(count):
            command_latencies.append(link.send(Beep(i % 65536, i // 65536)).latency)
        scanner.join()
        events = []
        deadline = time.monotonic() + 60
        while len(events) < count and time.monotonic() < deadline:
            try:
                events.append(link.events.get(timeout=max(0.0, deadline - time.monotonic())))
            except Exception:
                break
        for delivery in event_deliveries:
            delivery.wait(5)
        elapsed = time.monotonic() - started
        time.sleep(0.2)   # let late duplicates show up, if there were any
        while not link.events.empty():
            events.append(link.events.get())
        host_counts, board_counts = link.counters, board.counters
    finally:
        link.close()
        board.stop()
    # Events wait in the board's queue behind each other; transit (first send to ack)
    # is the link's own delay, comparable with a command's.
    event_latencies = [d.transit for d in event_deliveries if d.transit is not None]
    return {
        "corrupt": corrupt,
        "retry_timeout_s": retry_timeout,
        "elapsed_s": round(elapsed, 2),
        "commands": _tally([Beep(i % 65536, i // 65536) for i in range(count)], board.received),
        "events": _tally([CardScanned(f"{i}") for i in range(count)], events),
        "command_latency_median_ms": round(statistics.median(command_latencies) * 1000, 2),
        "command_latency_p95_ms": round(sorted(command_latencies)[int(0.95 * len(command_latencies))] * 1000, 2),
        "event_transit_median_ms": round(statistics.median(event_latencies) * 1000, 2) if event_latencies else None,
        "host_retransmissions": host_counts.get("retransmissions", 0),
        "board_retransmissions": board_counts.get("retransmissions", 0),
        "host_bad_frames": host_counts["bad_crc"] + host_counts["bad_cobs"] + host_counts["bad_length"],
        "host_malformed_passing_crc": host_counts.get("malformed", 0),
        "board_bad_frames": board_counts["bad_frames"],
        "board_malformed_passing_crc": board_counts.get("malformed", 0),
        "bytes_corrupted": board_counts["bytes_corrupted"],
        "board_bytes_dropped_full_pty": board_counts["bytes_dropped"],
        "link_losses": host_counts.get("losses", 0),
    }


def replugs(cycles: int, reopen_interval: float) -> dict:
    """Unplug and replug the board; median time from replug to a confirmed command."""
    board = SimulatedBoard(retry_timeout=0.01).start()
    link = BoardLink(board.path, retry_timeout=0.01, reopen_interval=reopen_interval).start()
    to_status, to_command, unplug_noticed = [], [], []
    try:
        link.wait_connected(timeout=5)
        for i in range(cycles):
            pulled = time.monotonic()
            board.unplug()
            link.wait_status("unplugged", timeout=2)
            unplug_noticed.append(time.monotonic() - pulled)
            waiting = link.send_nowait(Beep(i, 1))
            time.sleep(0.1)
            plugged = time.monotonic()
            board.replug()
            link.wait_connected(timeout=5)
            to_status.append(time.monotonic() - plugged)
            waiting.wait(5)
            to_command.append(waiting.acked_at - plugged)
        delivered_once = board.received == [Beep(i, 1) for i in range(cycles)]
    finally:
        link.close()
        board.stop()
    ms = lambda values: round(statistics.median(values) * 1000, 1)  # noqa: E731
    return {"cycles": cycles, "reopen_interval_s": reopen_interval,
            "unplug_noticed_median_ms": ms(unplug_noticed),
            "replug_to_connected_median_ms": ms(to_status),
            "replug_to_connected_max_ms": round(max(to_status) * 1000, 1),
            "replug_to_queued_command_acked_median_ms": ms(to_command),
            "queued_commands_delivered_once_in_order": delivered_once}


def handshakes(cycles: int, corrupt: float, identify_interval: float) -> dict:
    """Time from opening the port to a finished handshake, with noise on from the start."""
    times = []
    for i in range(cycles):
        board = SimulatedBoard(corrupt=corrupt, seed=100 + i).start()
        link = BoardLink(board.path, identify_interval=identify_interval, handshake_timeout=30)
        started = time.monotonic()
        link.start()
        try:
            link.wait_connected(timeout=30)
            times.append(time.monotonic() - started)
        finally:
            link.close()
            board.stop()
    return {"cycles": cycles, "corrupt": corrupt, "identify_interval_s": identify_interval,
            "handshake_median_ms": round(statistics.median(times) * 1000, 1),
            "handshake_max_ms": round(max(times) * 1000, 1)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1000, help="commands and events each way")
    parser.add_argument("--corrupt", type=float, default=0.10, help="fraction of bytes corrupted")
    parser.add_argument("--retry-timeout", type=float, default=0.004)
    parser.add_argument("--replugs", type=int, default=20)
    parser.add_argument("--handshakes", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="one JSON object instead of lines")
    args = parser.parse_args(argv)
    # The link logs every unplug as a warning; here they are deliberate.
    logging.getLogger("firmware_host").setLevel(logging.ERROR)
    result = {
        "soak": soak(args.count, args.corrupt, args.retry_timeout, args.seed),
        "replug": replugs(args.replugs, 0.25),
        "handshake": handshakes(args.handshakes, args.corrupt, 0.01),
        "handshake_clean": handshakes(args.handshakes, 0.0, 0.1),
    }
    if args.json:
        print(json.dumps(result))
    else:
        for section, values in result.items():
            print(f"[{section}]")
            for key, value in values.items():
                print(f"  {key}: {value}")
    soak_ok = all(result["soak"][k]["lost"] == 0 and result["soak"][k]["duplicates"] == 0
                  and result["soak"][k]["misread"] == 0 for k in ("commands", "events"))
    return 0 if soak_ok and result["replug"]["queued_commands_delivered_once_in_order"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
