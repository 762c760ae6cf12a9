"""Command-line subcommands of the camera side: `stickers`, `mat` (print and calibrate) and `recognize`."""
from __future__ import annotations

import json
import re
import sys
import zipfile


def register(subparsers) -> None:
    """Add ``stickers``, ``mat`` and ``recognize`` to the ``euchre-table`` command line."""
    p = subparsers.add_parser(
        "stickers", help="print the 24 QR card stickers",
        description="Write one QR sticker per card: PNGs named JH.png … and/or a PDF to print "
                    "at true size (cut and stick one on the face of each card).")
    p.add_argument("--png-dir", metavar="DIR", help="write JH.png … into DIR")
    p.add_argument("--pdf", metavar="FILE", help="write an A4 PDF of all stickers")
    p.add_argument("--size-mm", type=float, default=None,
                   help="sticker side in mm, quiet zone included (default 45)")
    p.set_defaults(func=cmd_stickers)

    p = subparsers.add_parser(
        "mat", help="print the table mat, or calibrate the camera to it",
        description="With --pdf: write the printable table mat (A3, or --a4; its card area "
                    "printed mid grey, so that white cards stand out, or all white with "
                    "--white). With --calibrate "
                    "IMAGE --out FILE: find the mat's markers in a camera image and save the "
                    "zones (image → mat map) as JSON for `recognize --zones` and the service.")
    p.add_argument("--pdf", metavar="FILE", help="write the mat as a PDF at true size")
    p.add_argument("--a4", action="store_true", help="the A4 mat instead of A3")
    p.add_argument("--white", action="store_true",
                   help="with --pdf: the older all-white mat (plain decks with light-rimmed "
                        "cards are found less well on it)")
    p.add_argument("--calibrate", metavar="IMAGE", help="camera image showing the whole mat")
    p.add_argument("--out", metavar="FILE", help="zones file to write (with --calibrate)")
    p.add_argument("--reader-window", metavar="IMAGE",
                   help="a reader camera frame with one card (with its sticker, or give "
                        "--deck for a plain deck) lying in the guide: prints the [reader] "
                        "window setting")
    p.add_argument("--deck", metavar="FILE", help="with --reader-window: a plain deck's templates")
    p.add_argument("--reader-pdf", metavar="FILE",
                   help="write the reader window's template (card guide, plate, camera) and "
                        "the Pi's rack, two A4 pages at true size")
    p.set_defaults(func=cmd_mat)

    p = subparsers.add_parser(
        "recognize", help="read the cards in images",
        description="Print the cards found in each image: card, zone, corners, confidence.")
    p.add_argument("images", nargs="+", metavar="IMAGE")
    p.add_argument("--mode", choices=("sticker", "plain"), default="sticker",
                   help="QR stickers (default) or plain card faces")
    p.add_argument("--deck", metavar="FILE", help="deck templates for --mode plain "
                   "(from `euchre-table calibrate deck`)")
    p.add_argument("--zones", metavar="FILE", help="zones file from `euchre-table mat --calibrate`")
    p.add_argument("--decoder", choices=("zxing", "zbar"), default="zxing",
                   help="QR decoder for sticker mode (default zxing)")
    p.add_argument("--json", action="store_true", help="one JSON object per image")
    p.set_defaults(func=cmd_recognize)


def _fail(message: str) -> int:
    # The C library's "[Errno 21] " means nothing to a player; a path of thousands of
    # characters is cut.
    message = re.sub(r"\[Errno \d+\] ", "", message)
    message = re.sub(r"\S{200,}", lambda m: m.group(0)[:60] + "...", message)
    print(f"euchre-table: {message}", file=sys.stderr)
    return 2


MAX_IMAGE_PIXELS = 50_000_000
"""The biggest image read (a 8K camera frame is 33 million pixels): a file that claims to be
bigger is refused from its header, before anything is decoded."""


class ImageError(ValueError):
    """An image that cannot be read; the message names the file and says why."""


def read_image(path: str):
    """The image at ``path`` as OpenCV's BGR array, or :class:`ImageError` saying why not
    (missing, a folder, not an image, too big)."""
    import os

    import cv2
    if os.path.isdir(path):
        raise ImageError(f"{path} is a folder, not an image")
    if not os.path.exists(path):
        raise ImageError(f"{path} is not a readable image: no such file")
    from PIL import Image
    try:
        with Image.open(path) as im:        # reads the header only
            w, h = im.size
    except Image.DecompressionBombError:
        raise ImageError(f"{path} claims to be far too big for a camera image") from None
    except Exception:  # Pillow says "not an image" in many ways; OpenCV decides below
        w = h = 0
    if w * h > MAX_IMAGE_PIXELS:
        raise ImageError(f"{path} claims to be {w}x{h} pixels: too big for a camera image "
                         f"(at most {MAX_IMAGE_PIXELS // 1_000_000} million pixels)")
    try:
        image = cv2.imread(path, cv2.IMREAD_COLOR)
    except cv2.error:
        image = None
    if image is None:
        raise ImageError(f"{path} is not a readable image (PNG or JPEG)")
    return image


def _out_file(option: str, path: str):
    """Why ``path`` cannot be written as an output file, or None."""
    import os
    folder = os.path.dirname(os.path.abspath(path)) or "."
    if os.path.isdir(path):
        return f"{option} {path} is a folder: give a file name"
    if not os.path.isdir(folder):
        return f"{option} {path}: the folder {folder} does not exist"
    if not os.access(folder, os.W_OK):
        return f"{option} {path}: the folder {folder} is not writable"
    return None


def cmd_stickers(args) -> int:
    from vision.stickers import STICKER_MM, write_sticker_pdf, write_sticker_pngs
    if not args.png_dir and not args.pdf:
        return _fail("stickers: say where to write them: --png-dir DIR and/or --pdf FILE")
    import math
    import os
    if args.size_mm is not None and not (math.isfinite(args.size_mm) and 20 <= args.size_mm <= 100):
        return _fail(f"stickers: --size-mm {args.size_mm}: a sticker side from 20 to 100 mm")
    if args.png_dir and os.path.exists(args.png_dir) and not os.path.isdir(args.png_dir):
        return _fail(f"stickers: --png-dir {args.png_dir} is a file: give a folder for the "
                     "PNGs (it is made if missing)")
    if args.pdf and _out_file("--pdf", args.pdf):
        return _fail("stickers: " + _out_file("--pdf", args.pdf))
    if args.png_dir:
        paths = write_sticker_pngs(args.png_dir)
        print(f"wrote {len(paths)} stickers to {args.png_dir}")
    if args.pdf:
        try:
            write_sticker_pdf(args.pdf, args.size_mm or STICKER_MM)
        except ValueError as exc:
            return _fail(f"stickers: {exc}")
        print(f"wrote {args.pdf}: print at 100% (actual size), "
              f"stickers {args.size_mm or STICKER_MM:g} mm")
    return 0


def _reader_window(args) -> int:
    """Print the [reader] window for a frame of the reader with one card in its guide."""
    from vision.recognize import RecognizeError, load_plain_deck, recognize
    from vision.zones import ReaderWindow
    try:
        image = read_image(args.reader_window)
    except ImageError as exc:
        return _fail(f"mat: {exc}")
    try:
        if args.deck:
            found = recognize(image, mode="plain", deck=load_plain_deck(args.deck), refusals=True)
        else:
            found = recognize(image, mode="sticker")
    except (RecognizeError, OSError, ValueError, RecursionError, EOFError, KeyError,
            zipfile.BadZipFile) as exc:
        return _fail(f"mat: {_plain_words(exc)}")
    if len(found) != 1:
        return _fail(f"mat: found {len(found)} cards in {args.reader_window}: lay exactly one card "
                     "in the reader's guide, face down" + ("" if args.deck else
                     " (with its sticker; for a plain deck give --deck FILE)"))
    corners = found[0]["corners"]
    if not args.deck:
        # The code (TL, TR, BR, BL; 45 × 21/25 mm, upright on the card, at its centre)
        # gives the card: 63 mm across the code's rows, 88 mm along its columns.
        import numpy as np
        from vision.stickers import QUIET_MODULES
        c = np.asarray(corners, float)
        across, down = c[1] - c[0], c[3] - c[0]
        code_mm = 45.0 * 21 / (21 + 2 * QUIET_MODULES)
        ex, ey = across / code_mm, down / code_mm           # image px per card mm
        centre = c.mean(axis=0)
        corners = [centre + sx * 31.5 * ex + sy * 44.0 * ey for sx in (-1, 1) for sy in (-1, 1)]
    win = ReaderWindow.around_card(corners, image.shape).window
    print("window = [" + ", ".join(f"{v:.3f}" for v in win) + "]   # put this in [reader]")
    return 0


def cmd_mat(args) -> int:
    from vision.zones import CalibrationError, MatLayout, calibrate, write_mat_pdf
    if not args.pdf and not args.calibrate and not args.reader_pdf and not args.reader_window:
        return _fail("mat: give --pdf FILE to print the mat, --reader-pdf FILE for the reader "
                     "window and the rack, --reader-window IMAGE to set the reader's window, "
                     "or --calibrate IMAGE --out FILE")
    for option, path in (("--pdf", args.pdf), ("--out", args.out),
                         ("--reader-pdf", args.reader_pdf)):
        if path and _out_file(option, path):
            return _fail("mat: " + _out_file(option, path))
    if args.reader_window:
        return _reader_window(args)
    if args.reader_pdf:
        from vision.printables import write_reader_pdf
        try:
            write_reader_pdf(args.reader_pdf)
        except OSError as exc:
            return _fail(f"mat: cannot write {args.reader_pdf}: {exc}")
        print(f"wrote {args.reader_pdf}: the reader window and the rack; print at 100% on A4")
    if args.pdf:
        write_mat_pdf(args.pdf, a4=args.a4, ground="white" if args.white else "grey")
        print(f"wrote {args.pdf}: print at 100% (actual size) on {'A4' if args.a4 else 'A3'}"
              + (" (the all-white mat)" if args.white else ""))
    if args.calibrate:
        if not args.out:
            return _fail("mat --calibrate needs --out FILE for the zones")
        try:
            image = read_image(args.calibrate)
        except ImageError as exc:
            return _fail(f"mat: {exc}")
        try:
            # The mat's size is read from its marker ids; --a4 only insists on it.
            cal = calibrate(image, MatLayout.a4() if args.a4 else None)
        except CalibrationError as exc:
            return _fail(f"mat: {exc}")
        cal.save(args.out)
        print(f"wrote {args.out}: markers {cal.markers}, fit error {cal.error_mm:.2f} mm")
    return 0


def _plain_words(exc: BaseException) -> str:
    """A library's error in the user's words: a file that is not what it should be."""
    text = str(exc)
    if isinstance(exc, (RecursionError, EOFError, KeyError, zipfile.BadZipFile)) or "pickle" in text:
        return "the file is not one this program wrote (it is damaged, or another kind of file)"
    return text


def cmd_recognize(args) -> int:
    import os

    from vision.recognize import RecognizeError, load_plain_deck, recognize
    from vision.zones import Calibration, CalibrationError
    zones = deck = None
    if args.mode == "plain" and not args.deck:
        return _fail("recognize --mode plain needs --deck FILE "
                     "(made by `euchre-table calibrate deck`)")
    for what, path in (("--zones", args.zones), ("--deck", args.deck if args.mode == "plain" else None)):
        if not path:
            continue
        if not os.path.isfile(path):
            return _fail(f"recognize: {what} {path}: " + ("is a folder, not a file"
                         if os.path.isdir(path) else "no such file"))
        try:
            if what == "--zones":
                zones = Calibration.load(path)
            else:
                deck = load_plain_deck(path)
        except (CalibrationError, RecognizeError, OSError, ValueError, RecursionError,
                EOFError, KeyError, zipfile.BadZipFile) as exc:
            words = _plain_words(exc)
            return _fail(f"recognize: {what} {path}: {words}" if path not in words
                         else f"recognize: {words}")
    status = 0
    for path in args.images:
        try:
            image = read_image(path)
        except ImageError as exc:
            _fail(f"recognize: {exc}")
            status = 1
            if args.json:
                print(json.dumps({"image": path, "error": str(exc), "cards": []}))
            continue
        try:
            cards = recognize(image, mode=args.mode, zones=zones, deck=deck, decoder=args.decoder)
        except (RecognizeError, ValueError) as exc:
            return _fail(f"recognize: {exc}")
        if args.json:
            print(json.dumps({"image": path, "mode": args.mode, "cards": cards}))
        else:
            found = ", ".join(f"{c['card']}@{c['zone'] or '-'}" for c in cards) or "no cards"
            print(f"{path}: {found}")
    return status
