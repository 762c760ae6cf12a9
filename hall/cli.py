"""`euchre-table hall --config hall.toml`: the hall service with its page, for a club night."""
from __future__ import annotations

import logging
import signal
import sys
import threading
from pathlib import Path


def register(sub) -> None:
    p = sub.add_parser("hall", help="the hall of a club night: collects every table, standings, the page",
                       description="Run the hall: subscribe to every table on the broker, store "
                                   "their events, compute the standings, run the rounds and "
                                   "serve the hall page.")
    p.add_argument("--config", required=True, help="the hall's TOML configuration (see examples/hall.toml)")
    p.add_argument("--check", action="store_true", help="check the configuration and exit")
    p.set_defaults(func=run)


def run(args) -> int:
    from hall.service import HallError, HallService, load_hall_config, load_night_api
    from hall.store import StoreError
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        cfg = load_hall_config(args.config)
        night = load_night_api(cfg)
    except HallError as exc:
        print(f"euchre-table hall: {exc}", file=sys.stderr)
        return 2
    if args.check:
        print(f"{args.config}: configuration is valid (night {cfg.night_id}, "
              f"{len(cfg.tables)} tables, {night.rounds} rounds)")
        return 0
    Path(cfg.state_dir).mkdir(parents=True, exist_ok=True)
    try:
        service = HallService(cfg, night)
    except StoreError as exc:
        print(f"euchre-table hall: {exc}", file=sys.stderr)
        return 2
    service.start()
    app = night.make_app(service)
    try:
        if app is None:
            logging.getLogger("hall").warning("no hall page: the night's web module is missing")
            stop = threading.Event()
            for sig in (signal.SIGTERM, signal.SIGINT):
                signal.signal(sig, lambda *_: stop.set())
            stop.wait()
        else:
            import uvicorn
            print(f"Hall page: http://{cfg.web['host']}:{cfg.web['port']}/", flush=True)
            # Open event streams must not hold a stop (SIGTERM) up.
            uvicorn.run(app, host=cfg.web["host"], port=cfg.web["port"], log_level="warning",
                        timeout_graceful_shutdown=1)
    finally:
        service.close()
    return 0
