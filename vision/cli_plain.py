"""Command-line subcommand `calibrate deck`: a plain deck's templates from the camera or from photos, checked before they are written."""
from __future__ import annotations

import sys
from pathlib import Path

SMALL_CARD_PX = 100
"""Below this long side (px) in the calibration photos, a deck whose check confuses cards is
told to have its photos taken closer: from 100 px the tuning decks read every card, below it
twins (K♠ against K♣) are told apart less often (docs/vision-plain.md, smallest card)."""


def register(subparsers) -> None:
    """Add ``calibrate deck`` to the ``euchre-table`` command line."""
    cal = subparsers.add_parser(
        "calibrate", help="calibrate what the camera reads: a plain deck",
        description="Make the templates that plain-deck recognition reads cards against.")
    what = cal.add_subparsers(dest="what", metavar="WHAT")
    p = what.add_parser(
        "deck", help="a deck's templates from the camera, or from one photo per card",
        description="Make a plain deck's templates, through the table's camera. Live "
                    "(--camera/--picamera/--frames): keep the table clear until the first "
                    "card is asked for, then show each card alone, in turn, when asked. "
                    "From photos (--from-dir): one photo per card lying alone on the table, "
                    "taken with the table's camera, named like JH.jpg (9S 10S JS QS KS AS ... "
                    "AC; T for ten is accepted); further photos of a card (JH-2.jpg) are used "
                    "to check the deck. The deck is written only if no card is read as another "
                    "from views it was not made from.")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--from-dir", metavar="DIR", help="folder with a photo of each of the 24 cards")
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


def _fail(message: str, status: int = 2) -> int:
    print(f"euchre-table calibrate deck: {message}", file=sys.stderr)
    return status


def _paper_hint(deck, photos: dict) -> str:
    """What to say after a failed calibration from photos whose cards' paper is nearly the
    table's colour (``deck_calibration.paper_like_the_table``), or nothing."""
    from vision.deck_calibration import PAPER_HINT, _flatten, _read_picture, paper_like_the_table
    if not deck.card_px:
        return ""                   # cut-out faces: no table in them
    pictures = [_flatten(_read_picture(p)) for p in list(photos.values())[:8]]
    return PAPER_HINT if paper_like_the_table(deck.faces, pictures) else ""


def _calibrate_deck(args) -> int:
    from vision.deck_calibration import (MAX_HELD, MIN_PHOTO_READ_BACK, CalibrationError, calibrate_from_dir,
                                         calibrate_live, _pictures, close_pairs, fresh_views, held_by_check,
                                         self_check, twin_of)
    from vision.plain.calibration import FITS_NONE, miscut_faces, miscut_message
    from vision.sources import CameraError
    if not args.out:
        return _fail("give --out FILE for the deck's templates (e.g. --out my-deck.npz)")
    out = Path(args.out)
    if out.is_dir():
        return _fail(f"--out {out} is a folder: give a file name such as {out / 'deck.npz'}")
    if not out.parent.exists():
        return _fail(f"--out {out}: folder {out.parent} does not exist")
    miscut = {}
    try:
        if args.from_dir:
            deck = calibrate_from_dir(args.from_dir, name=args.name, progress=lambda m: print(m, flush=True))
            # A face that looks cut from a wrong outline is named with its photo (see
            # vision.plain.calibration.miscut_faces). The deck is still written, as some
            # decks print the cards of a rank unlike each other; a nine or ten that fits
            # none of its rank is surely cut wrongly, and it is set aside with its twin: a
            # template cut from the table beside a 10♥ read a well-cut 10♥ as the 10♦.
            photos = _pictures(Path(args.from_dir))[0]
            faces = dict(zip(deck.cards, deck.faces, strict=True))
            miscut = miscut_faces(faces, deck.aspect)
            said = miscut_message(faces, deck.aspect, photos={c: p.name for c, p in photos.items()}, bad=miscut)
            if said:
                print(f"warning: {said}", file=sys.stderr)
            views = fresh_views(args.from_dir, deck)
            print(f"checking the deck on {sum(map(len, views.values()))} other views of its cards", flush=True)
            check = self_check(deck, views)
            how = "from other views (more photos of a card, or each photo turned, moved and relit)"
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
            print("keep the table clear: the camera learns it first", flush=True)
            with open_source(config) as source:
                deck, _ = calibrate_live(source, announce=lambda m: print(m, flush=True),
                                         stable=args.stable, name=args.name or "deck")
            check = deck.check
            how = "from later frames of each card"
        else:
            return _fail("give a camera (--camera N, --picamera or --frames DIR) or "
                         "--from-dir DIR (a photo of each card)")
    except CalibrationError as exc:
        return _fail(str(exc), 1)
    except (OSError, CameraError) as exc:
        return _fail(str(exc))
    # Any other error is a bug, not the user's mistake: the command line's handler says
    # so, rather than printing it here as if it were something to put right.
    n = len(deck.cards)
    print(f"self-check: {len(check['ok'])} of {n} cards read back as themselves {how}")
    if args.from_dir and len(check["ok"]) < MIN_PHOTO_READ_BACK * n:
        # Cut at something else than the card in most photos (a mat's own outline), such a
        # deck would read almost nothing: it is not written.
        return _fail(f"only {len(check['ok'])} of {n} cards were read back from other views of their photos: "
                     f"{out} not written; take the photos again, each card alone, flat and whole in view, "
                     "with nothing card-shaped around it (the edge of a mat or a tray)"
                     f"{_paper_hint(deck, photos)}", 1)
    pairs = close_pairs(check)
    if pairs:
        print("closest cards (lead over the nearest other card, 0..1): "
              + ", ".join(f"{c} ~ {r} {m:.2f}" for c, r, m in pairs))
    # A card named as another in its check, or refused with another card as the best
    # guess: the deck does not tell them apart, and in play could name one for the other.
    # A few such cards are set aside (refused in play until calibrated again) and the
    # rest of the deck is written; more, and the deck is not (a live pass has taken such
    # cards again already, and set them aside or refused the deck).
    told = {**{c: f"taken for {g} (refused only by the margin)" for c, g in check["confused"].items()},
            **{c: f"read as {w}" for c, w in check["wrong"].items()}}
    held = held_by_check(check)
    if told:
        for card, what in told.items():
            print(f"  {card}: {what}; take this card again", file=sys.stderr)
        hint = ""
        if args.from_dir and deck.card_px:
            from vision.deck_calibration import _read_picture
            from vision.plain.deck import card_size_in
            px = card_size_in(deck, _read_picture(next(iter(photos.values())))) or SMALL_CARD_PX
            if px < SMALL_CARD_PX:
                hint = (f" (the cards are only {px:.0f} px long in these photos: hold the camera closer, "
                        f"so that a card is {SMALL_CARD_PX} px long or more)")
        if len(held) > MAX_HELD:
            return _fail(f"{len(told)} {'card was' if len(told) == 1 else 'cards were'} taken for other cards: "
                         f"{out} not written{hint}{_paper_hint(deck, photos) if args.from_dir else ''}", 1)
        deck.held = list(dict.fromkeys([*held, *deck.held]))
        again = (f"take {' '.join(photos[c].name for c in held if c in photos)} again and calibrate again"
                 if args.from_dir else "calibrate again")
        print(f"warning: {len(held)} cards set aside, not told apart by the check: {' '.join(map(str, held))}; "
              f"the table refuses them (and any card that looks like them) until you {again}{hint}",
              file=sys.stderr)
    cut = check.get("cut") or []
    if cut:
        # A live pass sets aside a card it never found at its own outline, with its twin.
        print(f"warning: not found at {'its' if len(cut) == 1 else 'their'} own outline (its face's shape or size "
              f"is not the other cards'): {' '.join(map(str, cut))}; set aside with "
              f"{'its twin' if len(cut) == 1 else 'their twins'}: {' '.join(str(twin_of(c)) for c in cut)}; "
              "the table refuses them (and any card that looks like them) until you calibrate again "
              "(lay each card flat, alone and away from the mat's lines)", file=sys.stderr)
    unfit = [m for m, v in miscut.items() if v >= FITS_NONE]
    aside = [c for c in dict.fromkeys(c for m in unfit for c in (m, twin_of(m))) if c not in deck.held]
    if aside:
        deck.held = list(dict.fromkeys([*deck.held, *aside]))
        retake = " ".join(photos[c].name for c in unfit if c in photos)
        print(f"warning: {len(aside)} cards set aside, as a face may be cut wrongly: {' '.join(map(str, aside))}; "
              f"the table refuses them (and any card that looks like them) until you take {retake} again "
              "and calibrate again", file=sys.stderr)
    for card, why in check["bad"].items():
        print(f"  {card}: not read back ({why}): it will be refused more often; take it again "
              "(flat, whole, in good light) to improve")
    deck.save(out)
    size = f", card {deck.card_px:.2f} of the picture's short side" if deck.card_px else ""
    print(f"wrote {out}: {n} cards of deck {deck.name!r}, card shape {deck.aspect:.3f} (width/height){size}")
    return 0
