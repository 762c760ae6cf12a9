"""Command-line subcommand `calibrate deck`: a plain deck's templates from pictures or from a camera."""
from __future__ import annotations

import sys
from pathlib import Path


def register(subparsers) -> None:
    """Add ``calibrate deck`` to the ``euchre-table`` command line."""
    cal = subparsers.add_parser(
        "calibrate", help="calibrate what the camera reads: a plain deck",
        description="Make the templates that plain-deck recognition reads cards against.")
    what = cal.add_subparsers(dest="what", metavar="WHAT")
    p = what.add_parser(
        "deck", help="a deck's templates from one picture per card, or from the camera",
        description="Make a plain deck's templates. With --from-dir: one picture per card, "
                    "named like JH.png (9S 10S JS QS KS AS ... AC; T for ten is accepted), "
                    "each a tight crop of the card or the card alone on the cloth. With "
                    "--camera/--picamera/--frames: show each card alone, in turn, when asked.")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--from-dir", metavar="DIR", help="folder with the 24 card pictures")
    src.add_argument("--camera", metavar="N", type=int, help="live: USB/V4L2 camera number")
    src.add_argument("--picamera", action="store_true", help="live: the Raspberry Pi camera")
    p.add_argument("--camera-num", type=int, default=0, metavar="N",
                   help="with --picamera: which camera port (1: the Pi 5's second port, e.g. "
                        "the reader window's camera)")
    src.add_argument("--frames", metavar="DIR", help="live, replayed: a folder of camera frames")
    p.add_argument("--out", metavar="FILE", help="deck file to write (.npz)")
    p.add_argument("--name", help="the deck's name (default: the folder's name)")
    p.add_argument("--width", type=int, default=1280, help="camera width (live)")
    p.add_argument("--height", type=int, default=720, help="camera height (live)")
    p.add_argument("--stable", type=int, default=5,
                   help="frames a card must lie still before it is taken (live)")
    p.set_defaults(func=_calibrate_deck)
    cal.set_defaults(func=lambda args: _usage(cal))


def _usage(parser) -> int:
    parser.print_help(sys.stderr)
    return 2


def _fail(message: str) -> int:
    print(f"euchre-table calibrate deck: {message}", file=sys.stderr)
    return 2


def _calibrate_deck(args) -> int:
    from vision.deck_calibration import (CalibrationError, calibrate_from_dir, calibrate_live,
                                         face_from_image, self_check)
    if not args.out:
        return _fail("give --out FILE for the deck's templates (e.g. --out my-deck.npz)")
    out = Path(args.out)
    if out.is_dir():
        return _fail(f"--out {out} is a folder: give a file name such as {out / 'deck.npz'}")
    if not out.parent.exists():
        return _fail(f"--out {out}: folder {out.parent} does not exist")
    try:
        if args.from_dir:
            import cv2
            deck = calibrate_from_dir(args.from_dir, name=args.name)
            faces = {}
            for p in sorted(Path(args.from_dir).iterdir()):
                card = _card_named(p)
                if card is not None and card in deck.cards:
                    faces[card] = face_from_image(cv2.imread(str(p), cv2.IMREAD_UNCHANGED), p.name)
        elif args.camera is not None or args.picamera or args.frames:
            from vision.sources import open_source
            if args.frames:
                config = {"kind": "folder", "path": args.frames}
            elif args.picamera:
                config = {"kind": "picamera", "width": args.width, "height": args.height,
                          "camera_num": args.camera_num}
            else:
                config = {"kind": "v4l2", "device": args.camera, "width": args.width,
                          "height": args.height}
            with open_source(config) as source:
                deck, faces = calibrate_live(source, announce=lambda m: print(m, flush=True),
                                             stable=args.stable, name=args.name or "deck")
        else:
            return _fail("give --from-dir DIR (one picture per card), or a camera: "
                         "--camera N, --picamera or --frames DIR")
    except CalibrationError as exc:
        return _fail(str(exc))
    except (OSError, ValueError, RuntimeError) as exc:
        return _fail(str(exc))
    check = self_check(deck, faces)
    deck.save(out)
    print(f"wrote {out}: {len(deck.cards)} cards of deck {deck.name!r}, "
          f"card shape {deck.aspect:.3f} (width/height)")
    print(f"self-check: {len(check['ok'])} of {len(faces)} cards read back as themselves")
    for card, what in check["bad"].items():
        print(f"  {card}: read as {', '.join(what)}; retake this picture", file=sys.stderr)
    return 0 if not check["bad"] else 1


def _card_named(path: Path):
    from vision.deck_calibration import IMAGE_SUFFIXES, _card_of_filename
    return _card_of_filename(path) if path.suffix.lower() in IMAGE_SUFFIXES else None
