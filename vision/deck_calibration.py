"""Deck calibration: a plain deck's templates from the camera (one pass, each card alone) or from photos, checked on fresh views.

Through the camera (``calibrate_live``): the empty table is learnt first, then each card
is asked for in turn; it is taken once it has lain still, from its own outline,
straightened; the frames that follow (the card still lying there) are kept as fresh
views. From photos (``calibrate_from_dir``): one photo of each card lying alone on the
table, taken with the table's camera (or a tight crop of the face). A picture in
which no card is found is refused, with a message saying so.

Then the deck is checked: every card must be read back as itself from views it was
not built from, and the cards closest to each other are reported with their margins.
A deck that fails the check is not written.

>>> deck = calibrate_from_dir("photos/", name="grandma's deck")   # doctest: +SKIP
>>> check = self_check(deck, fresh_views(deck, pictures))          # doctest: +SKIP
"""
from __future__ import annotations

import re
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Mapping, Optional

import cv2
import numpy as np

from engine.cards import DECK, Card, CardError
from vision.plain import PlainDeck, cell_means, recognize_plain
from vision.plain.background import COARSE, TableModel
from vision.plain.change import CHANGE_LEVEL
from vision.plain.find import on_plain
from vision.plain.outline import _TO_YCC, _inside_convex
from vision.plain.calibration import (MAX_SIZE_SPREAD, CalibrationError, NoCardFound, SeveralFound, StripTaken, askew_cuts, check_shapes, cut_quad, deck_rim,
                                      frame_stretch, inner_cuts, lone_card, long_side_angle, miscut_faces,
                                      deck_off, recut_faces, rim_misfit, rim_regrowths, rim_trims, stretched,
                                      unlike_the_table_at)
from vision.plain.deck import picture_side
from vision.plain.straighten import face_of, portrait_orders

__all__ = ["CalibrationError", "IMAGE_SUFFIXES", "build_deck", "face_from_image", "calibrate_from_dir",
           "calibrate_live", "fresh_views", "self_check", "close_pairs"]

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp", ".avif")
UNREAD_SUFFIXES = (".heic", ".heif")
"""Photo formats of phones that OpenCV does not read (HEVC inside; its AVIF reader, where
built in, reads AV1 only): named when cards are missing."""
EMPTY_FRAMES = 5
"""Frames of the empty table learnt before the first card is asked for."""
CHECK_FRAMES = 2
"""Frames of each card, after those it was taken from, kept to check the deck on."""
STILL = 0.04
"""A card whose corners stay within this fraction of its length of where they were lies
still (the outline found in each frame wavers by a pixel or two with the sensor's noise)."""


def build_deck(faces: Mapping, name: str = "deck", card_px: Optional[float] = None) -> PlainDeck:
    """A :class:`vision.plain.PlainDeck` from upright faces (BGR), keyed by card; the
    deck's card width/height is the faces' median. ``card_px``: the card's long side as
    a fraction of the frame's short side, when the faces were seen through the camera."""
    cards = sorted((Card(c) for c in faces), key=lambda c: c.index)
    if not cards:
        raise CalibrationError("no card pictures given")
    aspect, _ = check_shapes({c: faces[c] for c in cards}, {})
    return PlainDeck(name=name, cards=cards, faces=[faces[c] for c in cards], aspect=aspect,
                     card_px=card_px)


def _as_bgr(img: np.ndarray, what: str) -> np.ndarray:
    if img is None or img.ndim not in (2, 3):
        raise CalibrationError(f"{what}: not an image")
    if img.dtype != np.uint8:
        img = cv2.normalize(img, None, 0, 255, cv2.NORM_MINMAX).astype(np.uint8)
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    return img


def face_from_image(img: np.ndarray, what: str = "image") -> np.ndarray:
    """The upright card face (BGR) in a picture: a crop with transparency around the
    card as it is (trimmed), or the one card found lying on a table, straightened. A
    picture in which no card is found is refused (CalibrationError)."""
    return _face_and_size(img, what)[0]


def _face_and_size(img: np.ndarray, what: str, with_corners: bool = False):
    """(face, long side over picture height or None for a crop); ``with_corners``: and
    the outline's corners in the picture (None for a crop)."""
    img = _as_bgr(img, what) if img is None or img.ndim != 3 or img.shape[2] != 4 else img
    if img.shape[2] == 4:
        alpha = img[:, :, 3]
        if alpha.min() < 250:
            ys, xs = np.nonzero(alpha > 8)
            if len(xs) == 0:
                raise CalibrationError(f"{what}: the picture is fully transparent")
            img = img[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
            a = img[:, :, 3:4].astype(np.float32) / 255.0
            bgr = img[:, :, :3].astype(np.float32)
            # The transparent rounded corners take the card's own edge colour.
            edge = np.median(bgr[a[:, :, 0] > 0.9][:2000], axis=0) if (a > 0.9).any() else 255
            face = (bgr * a + edge * (1 - a)).astype(np.uint8)
            if face.shape[1] > face.shape[0]:
                face = cv2.rotate(face, cv2.ROTATE_90_CLOCKWISE)
            if min(face.shape[:2]) < 40:
                raise CalibrationError(f"{what}: the card is only {face.shape[1]}x{face.shape[0]} pixels: "
                                       "use at least 60 pixels of card height")
            return (face, None, None) if with_corners else (face, None)
        img = img[:, :, :3]
    o = lone_card(np.ascontiguousarray(img), None, what)
    found = face_of(img, o.corners), o.long_side / picture_side(img)
    return (*found, o.corners) if with_corners else found


def _card_of_filename(path: Path) -> Optional[Card]:
    m = re.fullmatch(r"(?i)(10|[2-9TJQKA1])([SHDC])(?:-\w+)?", path.stem)
    if not m:
        return None
    try:
        return Card(m.group(1) + m.group(2))
    except CardError:
        return None


def _is_extra(path: Path) -> bool:
    return "-" in path.stem


def _pictures(folder: Path):
    """(first picture per card, further pictures per card) of a calibration folder, after
    checking that it holds one of each of the 24 cards and nothing else."""
    if not folder.is_dir():
        raise CalibrationError(f"{folder} is not a folder: give the folder holding JH.png, 9S.png, ...")
    pictures = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    found, more, extra, twice = {}, {}, [], []
    for p in pictures:
        card = _card_of_filename(p)
        if card is None:
            extra.append(p.name)
        elif _is_extra(p):
            more.setdefault(card, []).append(p)
        elif card in found:
            twice.append(f"{found[card].name} and {p.name}")
        else:
            found[card] = p
    problems = []
    missing = [str(c) for c in DECK if c not in found]
    if missing:
        problems.append("missing: " + " ".join(missing))
    if extra:
        problems.append("not a Euchre card (9 to ace, e.g. JH.png): " + ", ".join(extra))
    if twice:
        problems.append("the same card twice: " + "; ".join(twice))
    unread = sorted(p.name for p in folder.iterdir() if p.suffix.lower() in UNREAD_SUFFIXES)
    if missing and unread:
        problems.append(f"{len(unread)} photos in a format OpenCV cannot read ({', '.join(unread[:3])}"
                        f"{', ...' if len(unread) > 3 else ''}): save them as JPEG (a phone's camera set to "
                        "'most compatible') or convert them")
    if problems:
        raise CalibrationError(f"{folder}: need one picture for each of the 24 cards, named "
                               "like JH.png (more views of a card may be named JH-2.png); " + "; ".join(problems))
    return found, more


def _read_picture(p: Path) -> np.ndarray:
    """A photo as ``recognize`` reads it (turned by its EXIF orientation, as a phone
    held upright marks its photos), or a cut-out face with its transparency."""
    # Only the colour read turns a photo by its EXIF orientation (read without turning,
    # a phone's upright photo lies on its side here and upright in play); a JPEG has no
    # transparency to keep, so it is read once.
    jpeg = p.suffix.lower() in (".jpg", ".jpeg")
    img = cv2.imread(str(p), cv2.IMREAD_COLOR if jpeg else cv2.IMREAD_UNCHANGED)
    if not jpeg and img is not None and (img.ndim == 2 or img.shape[2] != 4):
        img = cv2.imread(str(p), cv2.IMREAD_COLOR)
    if img is None:
        raise CalibrationError(f"{p.name}: cannot read this picture (damaged or not an image)")
    return img


def calibrate_from_dir(folder, name: Optional[str] = None, progress=None,
                       clock=time.monotonic) -> PlainDeck:
    """Templates from a folder holding one picture per card named like ``JH.png``
    (``10H`` or ``TH`` for tens; .png .jpg .jpeg .bmp .tif .webp .avif): a photo of the card
    lying alone on the table, taken with the table's camera, or a tight crop with
    transparency around the card. Pictures named like ``JH-2.png`` are further views,
    used only by the check (see :func:`fresh_views`).

    ``progress`` (a function of one line of text) is told what is being done: each pass
    over the photos, and how many are done whenever ``PROGRESS_EVERY`` seconds (of
    ``clock``) have passed since it was last told, as on a busy tablecloth a photo can
    take seconds (minutes on a Raspberry Pi for the whole deck)."""
    folder = Path(folder)
    found, _ = _pictures(folder)
    faces, sizes, corners, bad, no_card = {}, {}, {}, [], []
    strips = {}         # card: its outline found only with a strip of the table (StripTaken)
    several = {}        # card: (the message, the corners of the outlines found: SeveralFound)
    tell = _Progress(progress, clock)
    tell(f"looking for the card in each of {len(found)} photos")
    for k, (card, p) in enumerate(found.items()):
        tell.count(k, len(found))
        # Every photo is looked at, so that one message names all those to take again.
        try:
            faces[card], sizes[card], corners[card] = _face_and_size(_read_picture(p), p.name, with_corners=True)
        except StripTaken as exc:
            no_card.append(card)
            strips[card] = exc.outline
        except NoCardFound:
            no_card.append(card)
        except SeveralFound as exc:
            several[card] = (str(exc), exc.pieces)
        except CalibrationError as exc:
            bad.append(str(exc))
    photos = [s for s in sizes.values() if s]
    if photos and len(photos) < len(sizes):
        crops = [str(c) for c, s in sizes.items() if not s]
        bad.append(f"{folder}: mix of photos and cut-out faces ({', '.join(crops)} are cut out): "
                   "take all the pictures the same way")
    elif len(faces) >= len(found) / 2:
        # The cards found are checked even when some photos failed, so that one message
        # names every photo to take again (not one more each time the command is run).
        try:
            aspect, size = _checked_shapes({c: p for c, p in found.items() if c in faces}, faces, sizes,
                                           corners, photos)
        except CalibrationError as exc:
            bad.append(str(exc))
        else:
            if size and photos:
                # A photo in which no card was found is looked at again with the others'
                # shape and size: a card whose outline the finder did not close when
                # looking for any shape (a 9♦ on the Blender world's A4 mat, its sides
                # along the mat's printed boxes) is found so, where it is unlike the table
                # around it (not a box of the mat's own). Still none: refused.
                for card in list(no_card):
                    img = _as_bgr(_flatten(_read_picture(found[card])), found[card].name)
                    again = _second_look([img], aspect, size * picture_side(img), blind=True, with_corners=True)
                    if again is not None and unlike_the_table_at(img, again[2]):
                        faces[card], sizes[card], corners[card] = again[0], again[1] / picture_side(img), again[2]
                        no_card.remove(card)
                # So is a photo in which several outlines were found that all lie within
                # one card of the deck's size: pieces of that card's print, its own edge
                # not found (a white card against a light stripe of the cloth). The card
                # found then must hold every piece. Outlines spread wider may be two
                # cards, and a face taken from the wrong one would name that card for
                # this one: such a photo is refused.
                for card, (_, pieces) in list(several.items()):
                    img = _as_bgr(_flatten(_read_picture(found[card])), found[card].name)
                    px = size * picture_side(img)
                    if max(cv2.minAreaRect(np.concatenate(pieces))[1]) > (1 + MAX_SIZE_SPREAD) * px:
                        continue
                    again = _second_look([img], aspect, px, blind=True, with_corners=True)
                    if again is not None and unlike_the_table_at(img, again[2]) \
                            and all(cv2.pointPolygonTest(np.float32(again[2]), tuple(map(float, q.mean(axis=0))),
                                                         False) > 0 for q in pieces):
                        faces[card], sizes[card], corners[card] = again[0], again[1] / picture_side(img), again[2]
                        del several[card]
                # None better: the outline with the strip of the table is taken (on a
                # gingham, refusing every such photo left decks unmade after they were
                # taken again), and looked at again below with the deck's shape and size;
                # the check reads its face back. When the pictures are refused anyway, one
                # not of the deck's size is named with the others, to be taken again at once.
                doomed = bool(bad) or any(c not in strips for c in no_card)
                for card in [c for c in no_card if c in strips]:
                    o = strips[card]
                    img = _as_bgr(_flatten(_read_picture(found[card])), found[card].name)
                    if doomed and abs(o.long_side / picture_side(img) / size - 1) > MAX_SIZE_SPREAD:
                        continue
                    faces[card], sizes[card], corners[card] = face_of(img, o.corners), o.long_side / picture_side(img), \
                        o.corners
                    no_card.remove(card)
    bad += [message for message, _ in several.values()]
    if no_card:
        names = [found[c].name for c in no_card]
        which = (f"{names[0]}: no card found in it" if len(names) == 1 else
                 f"no card found in {len(names)} of {len(found)} photos: {', '.join(names)}")
        bad.insert(0, f"{which}; take {'it' if len(names) == 1 else 'them'} again with the card "
                   "alone, face up and whole, in view of the camera (at least 60 px long); no deck "
                   "is made without every card (its look-alike would be named in its place)")
        taken = [c for c in faces if sizes.get(c)]          # photos, not cut-out faces
        if paper_like_the_table([faces[c] for c in taken], [_flatten(_read_picture(found[c])) for c in taken[:8]]):
            bad[0] += PAPER_HINT
    if bad:
        raise CalibrationError("; ".join(bad))
    if size:
        # A second look at each photo, now that the deck's shape and size are known: a
        # card first cut short by a line of its own picture is seen whole. Its outline is
        # taken only where its face then fits the deck's rim as well as before: in a photo
        # taken at a slant a card's proportions are not the deck's, and the outline
        # found with the deck's proportions can be a larger quadrilateral askew across
        # the card, with the table at two corners (a J♦ on tuning photos, then refused by
        # its check as taken for the Q♦).
        rim = deck_rim(faces, aspect)
        miscut = miscut_faces(faces, aspect)
        tell("looking at each photo again with the deck's shape and size")
        for k, (card, p) in enumerate(found.items()):
            tell.count(k, len(found))
            img = _as_bgr(_flatten(_read_picture(p)), p.name)
            better = _second_look([img], aspect, size * picture_side(img), with_corners=True)
            if better is None and card in miscut:
                # A face cut from a wrong outline (a grout line past the card's edge taken
                # for its side, on tiles nearly its paper's shade) is looked for again
                # alone at the deck's shape and size, smaller as it may then be, and taken
                # where it then fits the others of its rank (the rim, drawn from faces
                # whose paper is the table's shade, can favour the face with the strip).
                again = _second_look([img], aspect, size * picture_side(img), odd=True, with_corners=True)
                if again is not None and card not in miscut_faces({**faces, card: again[0]}, aspect):
                    faces[card], _, corners[card] = again
                continue
            if better is not None and rim_misfit(better[0], rim) <= rim_misfit(faces[card], rim):
                faces[card], _, corners[card] = better
        # A face cut inside the card, at the frame printed within a light rim, is cut
        # again at the card's edge, outside the rim it lacks.
        _grow_inner(found, faces, sizes, corners)
        aspect, size = check_shapes(faces, sizes)
    return build_deck(faces, name=name or folder.name, card_px=size)


PAPER_AS_TABLE = 15.0
"""The cards' paper within this distance (YCrCb, chroma weighted as the finder's steps) of
the table's colour in the photos: the cards' edges are faint steps against it, and a
calibration that fails says so (``paper_like_the_table``). On the tools' glazed tiles,
decks of light grey or white paper on tiles of their shade came to 8-12."""


def paper_like_the_table(faces, pictures) -> bool:
    """Whether the cards' paper (the median of each face's lightest tenth) is within
    ``PAPER_AS_TABLE`` of the table's colour (the median of each picture, most of which
    is the table): a white card on white tiles, whose edges hardly show.

    >>> card = np.full((88, 63, 3), 200, np.uint8)
    >>> card[30:50, 20:40] = 30                                   # a pip
    >>> floor = np.full((540, 960, 3), 195, np.uint8)
    >>> paper_like_the_table([card], [floor])
    True
    >>> paper_like_the_table([card], [np.full((540, 960, 3), 90, np.uint8)])
    False
    """
    def colours(img):
        return img.reshape(-1, 3).astype(np.float32) @ _TO_YCC.T

    papers = [np.median(c[c[:, 0] >= np.percentile(c[:, 0], 90)], axis=0) for c in map(colours, faces)]
    tables = [np.median(colours(p), axis=0) for p in pictures]
    if not papers or not tables:
        return False
    return bool(np.linalg.norm(np.median(papers, axis=0) - np.median(tables, axis=0)) < PAPER_AS_TABLE)


PAPER_HINT = ("; the cards' paper is nearly the colour of the table, so their edges hardly show: "
              "lay them on a darker cloth, or on the printed mat's grey card area")
"""Said after a failed calibration whose photos show ``paper_like_the_table``."""


PROGRESS_EVERY = 10.0
"""Seconds between two counts of the photos done (``calibrate_from_dir``'s ``progress``)."""


class _Progress:
    """Tells ``progress`` (if any) a line, and a count of the photos done when
    ``PROGRESS_EVERY`` seconds have passed since the last line."""

    def __init__(self, progress, clock):
        self.progress, self.clock = progress, clock
        self.last = clock()

    def __call__(self, line: str) -> None:
        if self.progress is not None:
            self.progress(line)
            self.last = self.clock()

    def count(self, done: int, total: int) -> None:
        if done and self.clock() - self.last >= PROGRESS_EVERY:
            self(f"  {done} of {total} photos done")


def _checked_shapes(found: dict, faces: dict, sizes: dict, corners: dict, photos: list) -> tuple:
    """The deck's shape and size (:func:`check_shapes`), once a photo's card found at
    another shape or size than the others has been looked for again."""
    try:
        return check_shapes(faces, sizes)
    except CalibrationError:
        if not photos:
            raise
        # A card found at another outline than its own (a plank's seam taken for its side,
        # a line of its picture) is looked for again with the others' shape and size.
        _refind_odd(found, faces, sizes, corners)
        return check_shapes(faces, sizes)


def _grow_inner(found: dict, faces: dict, sizes: dict, corners: dict) -> list:
    """Each photo's face that :func:`calibration.inner_cuts` finds cut inside the card
    cut again from its photo (``found``: ``{card: path}``) with its sides moved out by
    the strips it lacks, where the face cut again fits the deck's rim as cut (neither
    cut inside nor outside the card). Changes ``faces``, ``sizes`` and ``corners`` in
    place; returns the cards cut again."""
    aspect = float(np.median([f.shape[1] / f.shape[0] for f in faces.values()]))
    done = []
    for card, strips in inner_cuts(faces, aspect).items():
        if corners.get(card) is None:
            continue
        img = _as_bgr(_flatten(_read_picture(found[card])), found[card].name)
        fh, fw = faces[card].shape[:2]
        quad = _moved_quad(corners[card], (fw, fh), aspect, {k: -v for k, v in strips.items()})
        face = face_of(img, quad)
        # Not the deck's size: in a photo taken at a slant, cards nearer the camera look
        # larger by more than the rim is wide (tuning photos: a 10♦ cut inside was 2%
        # larger than the median already).
        grown = {**faces, card: face}
        if card not in inner_cuts(grown, aspect) and card not in rim_trims(grown, aspect):
            faces[card], sizes[card], corners[card] = face, _long_side(quad) / picture_side(img), quad
            done.append(card)
    return done


def _refind_odd(found: dict, faces: dict, sizes: dict, corners: Optional[dict] = None) -> None:
    """Each photo's face (in ``faces``, ``sizes`` and ``corners`` if given) that differs from the others' median
    shape or size as ``check_shapes`` refuses it, replaced where one outline alone is
    found in its photo with the median's shape (or that shape seen at a slant) and size
    (the photo at its own size too)."""
    from vision.plain.calibration import MAX_ASPECT_SPREAD, MAX_SIZE_SPREAD
    from vision.plain.find import find_outlines, top_level
    from vision.plain.outline import PHOTO_MAX_SLANT, WORK_WIDTH
    aspects = {c: f.shape[1] / f.shape[0] for c, f in faces.items()}
    aspect = float(np.median(list(aspects.values())))
    size = float(np.median(list(sizes.values())))
    for card, p in found.items():
        if abs(aspects[card] / aspect - 1) <= MAX_ASPECT_SPREAD and abs(sizes[card] / size - 1) <= MAX_SIZE_SPREAD:
            continue
        img = _as_bgr(_flatten(_read_picture(p)), p.name)
        px = size * picture_side(img)
        # Last, a photo taken at a slant shows a card far from the frame's middle in other
        # proportions than the others: its outline is the deck's card seen at a slant (as
        # ``recognize`` takes it in a photo), and its face, straightened to the proportions
        # seen, is brought back to the deck's.
        for width, slant in dict.fromkeys(((WORK_WIDTH, 0.0), (img.shape[1], 0.0), (WORK_WIDTH, PHOTO_MAX_SLANT),
                                           (img.shape[1], PHOTO_MAX_SLANT))):
            outlines = top_level(find_outlines(img, aspect, sizes=(px,), min_long=(1 - MAX_SIZE_SPREAD) * px,
                                               max_long=(1 + MAX_SIZE_SPREAD) * px, work_width=width, slant=slant))
            if len(outlines) == 1:
                face = face_of(img, outlines[0].corners)
                if slant:
                    face = cv2.resize(face, (max(1, round(face.shape[0] * aspect)), face.shape[0]),
                                      interpolation=cv2.INTER_AREA)
                faces[card], sizes[card] = face, outlines[0].long_side / picture_side(img)
                if corners is not None:
                    # A face brought back to the deck's proportions is no longer face_of
                    # its corners: it is not grown (_grow_inner).
                    corners[card] = None if slant else outlines[0].corners
                break


def _second_look(frames: list, aspect: float, size_px: float, blind: bool = False,
                 tables: Optional[list] = None, odd: bool = False, with_size: bool = False,
                 pictures: Optional[list] = None, with_corners: bool = False):
    """The card's face found again in its frames (or crops of them) with the deck's shape
    and size known, when that finds it larger than the first look did, around the first
    outline (cut short by a line of its own picture), in every frame; else None. With
    ``blind`` (a card taken before the deck's shape was known), whenever it is found
    alone in every frame; with ``odd`` (a face whose shape is not the deck's: cut at a
    line of its picture or of the table), whenever it is found alone with the deck's
    shape in every frame (in a photo, with either, an outline drawn by the table's own
    lines is none: ``photo.on_the_tables_lines``). ``tables``: the empty table's edges
    around the card in each frame (``_TableAround``), so that the mat's lines are not
    taken for the card's.
    ``with_size``: ``(face, long side in px)`` instead of the face; ``with_corners``:
    ``(face, long side in px, corners)`` (the corners' median over the frames). ``pictures``: the empty
    table's picture around the card in each frame; with ``odd``, where the card is not
    found with the deck's shape, its outline is grown to its edge (``seat.grow_to_table``:
    a light card on the white mat, cut at the frame line printed inside its rim, whose
    edge is too faint a step for the finder's edges but still one against the table)."""
    from vision.plain import SIZE_RANGE
    from vision.plain.find import find_outlines, top_level
    from vision.plain.outline import _overlap, quad_shape
    from vision.plain.photo import on_the_tables_lines
    from vision.plain.seat import grow_to_table

    def deck_like(o) -> bool:
        return abs(float(quad_shape(o.corners[None])[0][0]) / aspect - 1) <= ODD_SHAPE \
            and abs(o.long_side / size_px - 1) <= ODD_SIZE

    runs = []
    for k, frame in enumerate(frames):
        table = tables[k] if tables else None
        first = top_level(find_outlines(frame, None, table=table, alone=table is None))
        again = top_level(find_outlines(frame, aspect, sizes=(size_px,), min_long=SIZE_RANGE[0] * size_px,
                                        max_long=SIZE_RANGE[1] * size_px, table=table, alone=table is None))
        if (odd or blind) and table is None and again:
            # In a photo, the one outline that is not drawn by the table's own lines
            # (tiles between grout lines, which a slant foreshortens to the deck's shape,
            # as ``lone_card`` has it), and with ``odd`` of the deck's shape and size.
            # (Not for a card seen larger than at first: tiles dropped so, a larger outline
            # onto the tiles was taken for a card cut short, on tuning photos of stone flags.)
            again = [o for o, lines in zip(again, on_the_tables_lines(frame, [o.corners for o in again]))
                     if not lines and (deck_like(o) or not odd)]
        if odd and not (len(again) == 1 and deck_like(again[0])):
            found = again if len(again) == 1 else first
            picture = pictures[k] if pictures else None
            if len(found) != 1 or picture is None:
                return None
            g = grow_to_table(frame, found[0], SimpleNamespace(mean=picture), aspect,
                              SIZE_RANGE[0] * size_px, SIZE_RANGE[1] * size_px)
            if g is None or not deck_like(g):
                return None
            again = [g]
        if len(again) != 1:
            return None
        b = again[0]
        if not odd and not blind:
            if len(first) != 1:
                return None
            a = first[0]
            if not (b.area > 1.05 * a.area and _overlap(a.corners, b.corners) > 0.95):
                return None
        runs.append((frame, b.corners))
    if not runs:
        return None
    long_side = float(np.median([_long_side(q) for _, q in runs]))
    if with_corners:
        face, corners = _average_face(runs, with_corners=True)
        return face, long_side, corners
    face = _average_face(runs)
    return (face, long_side) if with_size else face


ODD_SHAPE = 0.04
"""A face whose width/height differs from the deck's by more than this fraction was not
cut at the card's own outline (the faces of one pass through one camera agree closely)."""
ODD_SIZE = 0.06
"""Likewise a card whose long side differs from the deck's by more than this fraction."""


def fresh_views(folder, deck: PlainDeck, rng=0) -> dict:
    """Views to check a deck made by :func:`calibrate_from_dir` on: each card's further
    photos (``JH-2.png`` ...) when there are any; otherwise its photo changed as a camera
    would change it: turned and moved, a little larger or smaller, at a slant, in
    another light (white balance, exposure), softer and recompressed. ``{card: [BGR]}``"""
    folder = Path(folder)
    found, more = _pictures(folder)
    rng = np.random.default_rng(rng)
    views = {}
    for card, p in found.items():
        if more.get(card):
            views[card] = [_as_bgr(_flatten(_read_picture(q)), q.name) for q in more[card]]
        else:
            views[card] = [_altered(_flatten(_read_picture(p)), rng)]
    return views


def _flatten(img: np.ndarray) -> np.ndarray:
    """A picture without transparency: a crop is laid on a plain grey table."""
    if img.ndim == 3 and img.shape[2] == 4:
        a = img[:, :, 3:4].astype(np.float32) / 255.0
        h, w = img.shape[:2]
        pad = max(h, w) // 3
        grey = np.full((h + 2 * pad, w + 2 * pad, 3), (96, 104, 100), np.float32)
        grey[pad:pad + h, pad:pad + w] = img[:, :, :3] * a + grey[pad:pad + h, pad:pad + w] * (1 - a)
        return grey.astype(np.uint8)
    return _as_bgr(img, "picture")


def _altered(img: np.ndarray, rng) -> np.ndarray:
    """The picture as the camera might show it another time."""
    h, w = img.shape[:2]
    centre = (w / 2 + rng.uniform(-0.05, 0.05) * w, h / 2 + rng.uniform(-0.05, 0.05) * h)
    m = cv2.getRotationMatrix2D(centre, float(rng.choice([-1, 1]) * rng.uniform(12, 35)),
                                float(rng.uniform(0.92, 1.06)))
    h3 = np.vstack([m, [0, 0, 1]])
    # A slant of the camera, about the picture's middle (a few per cent of scale across it).
    tilt = np.eye(3)
    tilt[2, :2] = rng.uniform(-1, 1, 2) * 0.06 / max(w, h)
    move = np.array([[1, 0, -w / 2], [0, 1, -h / 2], [0, 0, 1]])
    tilt = np.linalg.inv(move) @ tilt @ move
    out = cv2.warpPerspective(img, tilt @ h3, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    gain = np.array([rng.uniform(0.85, 1.1), rng.uniform(0.9, 1.05), rng.uniform(0.85, 1.1)], np.float32)
    out = np.clip(out.astype(np.float32) * gain * rng.uniform(0.85, 1.05), 0, 255).astype(np.uint8)
    out = cv2.GaussianBlur(out, (0, 0), float(rng.uniform(0.5, 1.0)))
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, 75])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def self_check(deck: PlainDeck, views: Mapping, table: Optional[TableModel] = None) -> dict:
    """Read each card's fresh views: ``{"ok": [cards read back as themselves], "bad":
    {card: what was read instead}, "wrong": {card: the other card named}, "confused":
    {card: the other card guessed, where the card was refused}, "margins": {card:
    (closest rival, margin)}}``. A deck that names another card for one of its own is
    not to be played with, nor one that takes it for another card and refuses only by
    a margin (live calibration takes such a card again); one that refuses a card
    otherwise reads it less often."""
    ok, bad, wrong, confused, margins = [], {}, {}, {}, {}
    for card, frames in views.items():
        card = Card(card)
        results = []
        for frame in frames:
            # Each view read from scratch: a copy of the table keeps no reading of an
            # earlier view (the reader does not read a still card again).
            seen = recognize_plain(frame, deck, table=_frozen(table) if table is not None else None)
            named = [s for s in seen if s.card is not None]
            if not named:
                # Only the likeliest outline stands for the card (as in ``_why_refused``):
                # on a busy table the others are pieces of it, whose guesses say nothing
                # of what this deck confuses (a view of 10C on a plaid gave 29 of them,
                # and every card so named would have been set aside).
                guessed = [s for s in seen if s.guess is not None]
                if guessed and not any(s.guess == card for s in guessed):
                    confused[card] = str(max(guessed, key=lambda s: s.confidence).guess)
            if [s.card for s in named] == [card]:
                s = named[0]
                rival = (s.detail or {}).get("rival")
                if card not in margins or s.margin < margins[card][1]:
                    margins[card] = (rival, float(s.margin))
                results.append(None)
            else:
                others = [str(s.card) for s in named if s.card != card]
                if others:
                    wrong[card] = ", ".join(others)
                results.append(", ".join(others) if others else _why_refused(seen, card))
        failed = [r for r in results if r is not None]
        if failed:
            bad[card] = failed[0]
        else:
            ok.append(card)
    return {"ok": ok, "bad": bad, "wrong": wrong, "confused": confused, "margins": margins}


def _why_refused(seen: list, card: Card) -> str:
    """Why a view of ``card`` named no card, in one short phrase: the refusal of the
    outline read as ``card`` when there is one, else of the likeliest outline, and how
    many other outlines were refused (a busy table offers many card-shaped ones).

    A refusal names the card it was about: it says so when that was another card ("not
    clearly told from AS" said of a view of the ace of spades misleads)."""
    refused = [s for s in seen if s.reason]
    if not refused:
        return "no card found"
    own = [s for s in refused if s.guess == card]
    best = max(own or refused, key=lambda s: s.confidence)
    why = (f"taken for {best.guess}, {best.reason}" if best.guess is not None and best.guess != card
           else best.reason)
    rest = len(refused) - 1
    return why + (f"; {rest} other outline{'s' if rest > 1 else ''} refused" if rest else "")


def held_by_check(check: dict) -> list:
    """The cards a deck sets aside after its check: each card read as another card or
    refused with another as its best guess, and those other cards (either face may have
    been cut badly). Empty when the check told every card from the others; more than
    ``MAX_HELD`` and the deck is refused instead.

    >>> held_by_check({"wrong": {}, "confused": {Card("JD"): "QD"}})
    [Card('JD'), Card('QD')]
    """
    held = []
    for card, rivals in [*check["wrong"].items(), *check["confused"].items()]:
        for c in [Card(card), *_cards_named(rivals)]:
            if c not in held:
                held.append(c)
    return held


def twin_of(card: Card) -> Card:
    """The card of the same rank and colour, which differs from ``card`` only in its suit
    signs.

    >>> twin_of(Card("JD")), twin_of(Card("9S"))
    (Card('JH'), Card('9C'))
    """
    return Card(card.rank + {"S": "C", "C": "S", "H": "D", "D": "H"}[card.suit])


MAX_HELD = 4
"""Most cards a deck may set aside (two pairs not told apart) and still be made: the rest
of the deck is read as usual and the cards set aside are refused until calibrated again.
More, and the pictures or the pass are too poor to trust: the deck is refused."""


def close_pairs(check: dict, count: int = 5) -> list:
    """The cards closest to another card in the check, as ``(card, rival, margin)``,
    smallest margin first."""
    pairs = [(c, r, m) for c, (r, m) in check["margins"].items() if r is not None]
    return sorted(pairs, key=lambda t: t[2])[:count]


def _cards_named(text: str) -> list:
    """The cards in a check's ``"QC, QS"``."""
    out = []
    for name in str(text).split(","):
        try:
            out.append(Card(name.strip()))
        except (CardError, ValueError):
            pass
    return out


def _corner_shift(a: np.ndarray, b: np.ndarray) -> float:
    # The same quadrilateral may start at another corner: compare over the 4 rotations.
    return min(float(np.abs(np.roll(a, k, axis=0) - b).max()) for k in range(4))


def calibrate_live(frames, announce=print, stable: int = 5, name: str = "deck", cards=DECK):
    """Templates from a camera, one pass: the empty table first, then each card shown
    alone in turn when ``announce`` asks for it. Returns ``(deck, faces)``; the deck's
    ``check`` holds its self-check on later frames of each card (CalibrationError when
    a card is not read back as itself).

    ``frames`` is any iterable of BGR frames (a :mod:`vision.sources` source). A card is
    taken once it has lain still (corners within ``STILL`` of its length) for ``stable``
    frames, straightened from each of those frames and averaged; the next
    ``CHECK_FRAMES`` frames are kept to check the deck on (the card must be read in each).
    Between two cards the table must be seen empty, so that the same card is never
    taken twice. After the pass each card is looked at again with the deck's shape and
    size known; a card whose face still has another shape or size, or that the check
    reads as another card (or refuses, guessing another card), is asked for again
    (``announce`` names it: "show the ... (JD) again, ..."), as is, once, a card the
    check does not read back otherwise. A deck whose check reads back fewer than
    ``MIN_READ_BACK`` of its cards is not made (CalibrationError). A face not of the
    deck's shape and size that lacks the deck's rim along two sides or more (cut at a frame
    line printed inside the card, where its paper is the table's shade) is first cut
    again from its kept frames with those sides moved out (``calibration.rim_regrowths``).
    Cards still not told
    apart, and a face still not of the deck's shape and size with its twin, are set aside
    (``deck.held``, refused in play; ``deck.check["cut"]`` names such faces); with more than
    ``MAX_HELD`` set aside no deck is made."""
    it = iter(frames)
    table = TableModel()
    table.hidden_reach = 0      # a card's face is cut at its own outline, or taken again

    def next_frame(waiting_for: str):
        frame = next(it, None)
        if frame is None:
            raise CalibrationError(f"the camera stopped while {waiting_for} "
                                   f"({len(faces)} of {len(cards)} cards taken)")
        return frame

    faces, sizes, views, crops = {}, {}, {}, {}
    cut_at = {}         # the quad each face was cut at, in its crops' pixels (for cutting it again)
    recut_since = set()     # cards whose face recut_faces trimmed since it was cut at that quad
    angles = {}         # the direction of each card's long side in the frame, as taken
    frame_h = [1]
    lit = []        # blank outlines seen: shapes of the table lit by the room (see _blank)
    relit_cards = set()    # cards found only once the change of light was taken out

    def take(card: Card, again: bool = False) -> None:
        """Ask for the card and take it once it lies still (see above)."""
        announce(f"show the {card.name} ({card}) {'again, ' if again else ''}alone, face up")
        # The first card needs no empty table seen first: the table was just learnt empty,
        # and on a table that the model never finds quite clear (a polished stone's
        # glints, a light card just laid) waiting for it would never take a card.
        seen_empty = not faces
        recent = []
        unseen = 0
        waited = moves = 0             # still frames the card has lain there untaken; times moved
        steady = False                 # nothing has moved since the card was last found
        before = None
        relit_found = []               # outlines found so (kept: compared by identity)
        others = {c: f for c, f in faces.items() if c != card}
        other_sizes = {c: v for c, v in sizes.items() if c != card}
        settled = _size_settled(other_sizes)     # the cards taken do not change while this one is awaited
        while True:
            frame = next_frame(f"waiting for the {card.name}" if seen_empty else
                               f"waiting for the table to be seen empty before the {card.name}")
            # Only frames in which nothing moves count (a hand laying the card does).
            cells = cell_means(frame)
            quiet = before is not None and before.shape == cells.shape \
                and float(np.abs(cells - before).max()) <= MOVING
            if seen_empty and quiet:
                waited += 1
            steady &= quiet
            before = cells
            if waited > MOVE_AFTER and moves < MOVES:
                # Seen lying there all this time but never found alone and still: where it
                # lies, its outline runs along a line of the table or its rim is lost in
                # the table's own colour. Somewhere else it may be seen whole.
                announce(f"the {card.name} ({card}) is not seen clearly there: move it a little, "
                         "alone, face up")
                moves += 1
                waited, recent, unseen = 0, [], 0
                continue
            # The hints come from the cards taken so far; should those have been taken
            # wrongly (a mat's box around the card), a card that lies there and is not
            # found with them for a while is looked for without them, unless a dozen
            # cards agree on their size (``_size_settled``).
            hinted = unseen < HINT_PATIENCE or settled
            hints = dict(size=_size_hint(other_sizes, frame) if hinted else None,
                         aspect=_aspect_hint(others) if hinted else None, lit=lit)
            outlines = _outlines_alone(frame, table, **hints)
            # Anything at all that differs counts here, not only what would keep the
            # table from being seen empty (``CLEAR_SHARE``): an ace on a table as light as
            # its paper differs from it only at its pip.
            differs = not outlines and _differing_share(table, frame) > 0
            if differs:
                # Something lies there, but no outline was found: a card whose edge is a
                # faint step against the table (a light rim on white paper) is looked for
                # with fainter edges, before what differs may pass for a change of light
                # (such a card's print can be faint too).
                outlines = _outlines_alone(frame, table, faint=True, **hints)
                if not outlines and seen_empty and waited >= RELIT_AFTER:
                    outlines = _outlines_alone(frame, table, faint=True, relit=True, **hints)
                    relit_found.extend(o.corners for o in outlines)
                    if not outlines:
                        outlines = _fitted_alone(frame, table, other_sizes, others)
            if not outlines:
                if steady and recent:
                    # Nothing has moved since the card was found lying there: it still
                    # does, found in some frames only (a light card on terrazzo, hardly
                    # unlike it), not taken away. Its outlines so far are kept, and the
                    # table is not followed over it.
                    continue
                if _table_clear(table, frame):
                    seen_empty, recent, unseen = True, [], 0
                    if not differs:
                        waited = 0
                    # else a change of light, or a card so faint that it passes for one:
                    # should it last, the card (if there is one) is asked to be moved.
                    table.foreground(frame)    # the table, followed as the light changes
                    continue
                if seen_empty:
                    unseen += 1
                continue
            if hinted:
                unseen = 0                     # found now and then: the hints hold
            if not seen_empty or len(outlines) != 1:
                recent = []
                continue                       # the previous card still lies there, or two cards
            recent = (recent + [(frame, outlines[0].corners)])[-3 * stable:]
            steady = True
            still = _still_run(recent, stable)
            if still:
                break
        faces[card] = _average_face(still)
        recut_since.discard(card)
        angles[card] = long_side_angle(still[-1][1])
        if any(q is r for _, q in still for r in relit_found):
            relit_cards.add(card)
        sizes[card] = float(np.median([_long_side(q) for _, q in still])) / picture_side(still[0][0])
        crops[card] = [_crop(f, q, table) for f, q in still[-SECOND_LOOK:]]
        cut_at[card] = _median_quad(still) - np.float32(_crop_origin(still[-SECOND_LOOK][1]))
        # The next frames (the card still lying there, the sensor's noise new) are the
        # views the deck is checked on: the reader must read the card in each.
        views[card] = [_jpeg(next_frame(f"checking the {card.name}")) for _ in range(CHECK_FRAMES)]
        frame_h[0] = picture_side(still[0][0])

    def seen_so() -> dict:
        # How the camera's stretch (``frame_stretch``) shows each card: through a view
        # wider than the table, a card lying across the frame looks wider than one lying
        # along it, however well both were cut. Faces are judged with it taken out.
        stretch = frame_stretch({c: f.shape[1] / f.shape[0] for c, f in faces.items()}, angles)
        return {c: stretched(angles[c], stretch) if c in angles else (1.0, 1.0) for c in faces}

    def odd_faces() -> list:
        # The faces not of the deck's shape and size (the medians), in the order taken.
        seen = seen_so()
        shapes = {c: f.shape[1] / f.shape[0] / seen[c][0] for c, f in faces.items()}
        lengths = {c: sizes[c] / seen[c][1] for c in faces}
        aspect, size = float(np.median(list(shapes.values()))), float(np.median(list(lengths.values())))
        return [c for c in faces
                if abs(shapes[c] / aspect - 1) > ODD_SHAPE or abs(lengths[c] / size - 1) > ODD_SIZE]

    def shape_and_size():
        return (float(np.median([f.shape[1] / f.shape[0] for f in faces.values()])),
                float(np.median(list(sizes.values()))))

    # The first frames are the empty table (the caller says so to the user before
    # starting: nothing is announced until the first card is asked for).
    for _ in range(EMPTY_FRAMES):
        table.learn(next_frame("learning the empty table"))
    for card in cards:
        take(Card(card))
    # A second look at each card, now that the deck's shape and size are known (the
    # medians): a card first cut short by a line of its own picture (its face's frame), or
    # taken with a line of the table for its edge, is seen whole.
    def second_look(card: Card, blind: bool = False) -> None:
        kept = crops[card]
        better = _second_look([_uncrop(k[0]) for k in kept], aspect, size * frame_h[0], blind=blind,
                              tables=[_TableAround(_uncrop(k[1], grey=True)) for k in kept],
                              pictures=[_uncrop(k[2]) if k[2] else None for k in kept],
                              odd=card in odd_faces(), with_corners=True)
        if better is not None:
            faces[card], sizes[card], cut_at[card] = better[0], better[1] / frame_h[0], better[2]
            recut_since.discard(card)

    def regrow() -> None:
        # A face not of the deck's shape and size, cut inside the card along two sides or
        # more (at a frame line printed inside its edge, where the card's paper is the
        # table's shade and its edge shows only on its shadow's side), is cut again from
        # its crops with those sides moved out to the deck's rim (and any strip of the
        # table along the others left out), where its sides then fit the rim clearly
        # better and it lies nearer the deck's shape and size. Not a face trimmed since it
        # was cut (``recut_faces``): its quad is no longer the one kept.
        odd = set(odd_faces())
        if not odd:
            return
        seen = seen_so()
        off, aspect_now = deck_off(faces, sizes, seen)
        as_seen = float(np.median([f.shape[1] / f.shape[0] for f in faces.values()]))
        rim = deck_rim(faces, as_seen)
        for card, strips in rim_regrowths(faces, as_seen).items():
            if card in recut_since or card not in odd:
                continue
            got = _cut_again([_uncrop(k[0]) for k in crops[card]], cut_at[card], faces[card], strips,
                             aspect_now * seen.get(card, (1.0, 1.0))[0])
            if got is None:
                continue
            face, quad = got
            long_side = _long_side(quad) / frame_h[0]
            if off(card, face, long_side) < off(card, faces[card], sizes[card]) \
                    and rim_misfit(face, rim) <= REGROW_GAIN * rim_misfit(faces[card], rim):
                faces[card], sizes[card], cut_at[card] = face, long_side, quad

    aspect, size = shape_and_size()
    for n, card in enumerate(list(crops)):
        second_look(card, blind=n < 2)
    # A face cut at an outline outside the card (a strip of the table along a side: the
    # table's own lines or shade taken for the card's edge) is cut again at the card's
    # rim, here and before every build of the deck below; its twin, cut alike, cannot
    # vouch for it (see rim_trims).
    regrow()
    recut_since.update(recut_faces(faces, sizes, seen_so()))
    # A face still not of the deck's shape and size was cut at another outline than the
    # card's: its template would not tell the card from its look-alikes. It is taken again
    # (and looked at again), at most ``RETAKES`` times.
    aspect, size = shape_and_size()
    for card in odd_faces():
        for _ in range(RETAKES):
            take(card, again=True)
            second_look(card)
            if card not in odd_faces():
                break
    retaken = {}

    def take_again(card: Card) -> None:
        take(card, again=True)
        second_look(card)
        retaken[card] = retaken.get(card, 0) + 1

    while True:
        regrow()
        recut_since.update(recut_faces(faces, sizes, seen_so()))
        try:
            aspect, size = check_shapes(faces, sizes)
        except CalibrationError:
            # A face far off the others' shape or size (a box of the mat taken for the
            # card's outline, still so after ``RETAKES``) is asked for again before the
            # deck is given up.
            far = [c for c in odd_faces() if retaken.get(c, 0) < CHECK_RETAKES]
            if not far:
                raise
            for card in far:
                take_again(card)
            continue
        deck = build_deck(faces, name=name, card_px=size)
        # Cards found only once the change of light across the table was taken out: so
        # are they looked for in play (``recognize_plain``; elsewhere it costs time).
        deck.meta["relit"] = bool(relit_cards & set(faces))
        check = self_check(deck, {c: [_unjpeg(f) for f in v] for c, v in views.items() if v},
                           table=_frozen(table))
        deck.check = check
        # A card named as another, or refused with another card as the best guess: the
        # deck does not tell them apart. Either face may have been taken badly (cut at a
        # line of its picture or of the table: the view then matches the other card's
        # broken template, or its own broken one loses), so both are taken again, each at
        # most ``CHECK_RETAKES`` times.
        again = []
        for card, rivals in [*check["wrong"].items(), *check["confused"].items()]:
            for c in [card, *_cards_named(rivals)]:
                if c in faces and retaken.get(c, 0) < CHECK_RETAKES and c not in again:
                    again.append(c)
        # A face that looks cut from a wrong outline (calibration.miscut_faces) is taken
        # again too. A face still named after that is kept: some decks print the cards of
        # a rank unlike each other (queens, aces), which the check cannot tell from a bad
        # cut, and the reader refuses twins whose faces differ only so (read.laid_on).
        again += [c for c in miscut_faces(faces, aspect) if retaken.get(c, 0) < CHECK_RETAKES and c not in again]
        # So is a face cut inside the card, lacking the deck's rim (calibration.inner_cuts):
        # live frames are not kept whole, so it is not cut again from them as from a photo.
        again += [c for c in inner_cuts(faces, aspect) if retaken.get(c, 0) < CHECK_RETAKES and c not in again]
        # So is a face cut askew, a wedge of the table along a side (calibration.askew_cuts).
        again += [c for c in askew_cuts(faces) if retaken.get(c, 0) < CHECK_RETAKES and c not in again]
        # A face not of the deck's shape and size (still so after ``RETAKES``, or taken
        # again above and cut wrongly this time) is taken again too: it was cut at another
        # outline than the card's, and is set aside if still so (below).
        again += [c for c in odd_faces() if retaken.get(c, 0) < CHECK_RETAKES and c not in again]
        # A card not read back otherwise (refused, or not found in its later frames) may
        # have been taken badly too: it is taken again, once.
        for c in check["bad"]:
            if c in faces and retaken.get(c, 0) < UNREAD_RETAKES and c not in again:
                again.append(c)
        if not again:
            break
        for card in again:
            take_again(card)
    # Cards still not told apart after their retakes are set aside: the deck names the
    # others and refuses these, unless there are too many to trust the pass.
    held = held_by_check(check)
    if len(held) > MAX_HELD:
        told = {**{c: f"guessed as {g}" for c, g in check["confused"].items()},
                **{c: f"read as {w}" for c, w in check["wrong"].items()}}
        raise CalibrationError("these cards were read as other cards from later frames: "
                               + "; ".join(f"{c} ({why})" for c, why in told.items())
                               + ": calibrate again, each card flat, alone and still")
    # A face still not of the deck's shape and size after its retakes (a card bent, or
    # cut at another outline than its own) makes a template that would not tell the
    # card from its twin: both are set aside too, so that neither is ever named for the
    # other, and the rest of the deck is read (a bent J♦ in the Blender world's tuning
    # table, asked for three times, refused the whole deck).
    cut = odd_faces()
    held = list(dict.fromkeys([*held, *(x for c in cut for x in (c, twin_of(c)))]))
    if len(held) > MAX_HELD:
        raise CalibrationError("these cards were not found at their own outline (their face's shape or "
                               f"size is not the other cards'): {' '.join(str(c) for c in cut)}: calibrate "
                               "again, each card flat, alone and away from the mat's lines")
    deck.held = held
    check["cut"] = cut
    if len(check["ok"]) < MIN_READ_BACK * len(faces):
        # Cards the deck cannot read where they were just taken are refused in play too:
        # such a deck would leave the players doing the reader's work.
        raise CalibrationError(f"only {len(check['ok'])} of {len(faces)} cards were read back from later "
                               f"frames (not: {' '.join(str(c) for c in check['bad'])}): this deck would be "
                               "read poorly on this table; calibrate again in good light, each card flat "
                               "and alone (on a busy table cloth, lay the printed mat or a plain cloth)")
    return deck, faces


REGROW_GAIN = 0.7
"""A face cut again outward from its crops (``rim_regrowths``) is kept only where its sides
then fit the deck's rim this much better (``rim_misfit``) and its shape and size lie nearer
the deck's."""
CHECK_RETAKES = 2
"""Times a card the check confuses with another (or the other card) is asked for again."""
UNREAD_RETAKES = 1
"""Times a card the check does not read back otherwise is asked for again."""
MIN_READ_BACK = 0.75
"""Least share of the cards the check must read back for the deck to be made: the check's
views are the card where it was just taken, the easiest it will be seen, so a card not
read there is refused in play too. Chosen on tuning sessions: decks that passed without
the retake of unread cards read back as few as 5, 14 and 16 of 24 (a light-rimmed deck on
a loop carpet or the all-white mat, twins on terrazzo); with it, the 18 passes on busy
tables and the all-white mat read back 21 to 24."""
MIN_PHOTO_READ_BACK = 0.25
"""Least share of the cards the check must read back for a deck made from photos to be
written. Lower than ``MIN_READ_BACK``: the photos' check views are the photos turned,
moved, relit and softened, harder than a live pass's next frames, and on tuning photos of
small cards at a slant decks reading back 9 to 17 of 24 still read 67-83% of the cards in
play. A deck reading back almost nothing was cut at something else than the cards in every
photo (the printed mat's own outline, card-shaped, taken for the card: 0 of 24)."""
SECOND_LOOK = 3
"""Still frames of each card kept (around the card) for the second look."""
RETAKES = 2
"""Times a card whose face is not of the deck's shape and size is asked for again."""
RELIT_AFTER = 10
"""A card asked for that has lain still this many frames without being found is looked for
where the frame differs from the table once the light's change across it is taken out
(``change.relit_outlines``): that place includes the card's shadow, so the finder's own
outlines are waited for first. (Light group, tuning seed 918, generated designs: tried
at once, it made the pass of gen-5 fail, faces of odd shapes; after this wait, the
passes of gen-5, gen-7 and gen-10 are frame for frame as without it.)"""
MOVE_AFTER = 30
"""Frames (about a second) a card may lie on the table without being found alone and still
before the user is asked to move it (``MOVES`` times at most per request)."""
MOVES = 3
MOVING = 8.0
"""A frame whose 16x16 px cells differ from the last one's by more than this (grey levels)
shows something moving (a hand): it does not count towards ``MOVE_AFTER``."""
HINT_PATIENCE = 8
"""Frames in a row in which something lies on the table but no card is found with the
shape and size of the cards taken so far, before the card is looked for without them."""


def _crop(frame: np.ndarray, q: np.ndarray, table: TableModel) -> tuple:
    """The card's neighbourhood in a frame, the empty table's edges still seen there and
    the empty table's picture there (frame pixels), kept small (PNG) until the second look."""
    long_side = _long_side(q)
    x0, y0 = _crop_origin(q)
    x1, y1 = np.ceil(q.max(axis=0) + 0.4 * long_side).astype(int)
    h, w = frame.shape[:2]
    x1, y1 = min(x1, w), min(y1, h)

    def boxed(img: np.ndarray, interpolation) -> np.ndarray:
        # ``img`` covers the whole frame at its own (working) scale: the box at frame px.
        s = img.shape[1] / w
        part = img[int(y0 * s):int(np.ceil(y1 * s)), int(x0 * s):int(np.ceil(x1 * s))]
        return cv2.resize(part, (x1 - x0, y1 - y0), interpolation=interpolation)

    edges = table.table_edges(frame)
    if edges is None:
        edges = np.zeros((h, w), np.uint8)
    around = boxed(edges, cv2.INTER_NEAREST)
    if edges.shape[1] < w:
        grow = int(np.ceil(w / edges.shape[1]))
        around = cv2.dilate(around, np.ones((grow, grow), np.uint8))
    picture = b""
    if getattr(table, "mean", None) is not None:
        mean = boxed(np.clip(table.mean, 0, 255).astype(np.uint8), cv2.INTER_LINEAR)
        picture = cv2.imencode(".png", mean)[1].tobytes()
    return (cv2.imencode(".png", frame[y0:y1, x0:x1])[1].tobytes(),
            cv2.imencode(".png", around)[1].tobytes(), picture)


def _crop_origin(q: np.ndarray) -> tuple:
    """The top-left corner (frame px) of the crop :func:`_crop` keeps around ``q``."""
    long_side = _long_side(q)
    x0, y0 = np.floor(q.min(axis=0) - 0.4 * long_side).astype(int)
    return max(int(x0), 0), max(int(y0), 0)


def _median_quad(run) -> np.ndarray:
    """The corners' median over still frames ``(frame, corners)`` (the outline wavers,
    the card does not), each frame's corners taken from the first frame's corner on."""
    first = run[0][1]
    aligned = [min((np.roll(q, k, axis=0) for k in range(4)), key=lambda r: np.abs(r - first).max())
               for _, q in run]
    return np.median(np.stack(aligned), axis=0).astype(np.float32)


def _moved_quad(corners: np.ndarray, face_size: tuple, aspect: float, strips: dict) -> np.ndarray:
    """The corners (picture px) at which a face cut at ``corners`` (:func:`face_of`, its
    size ``face_size``: (width, height)) is cut with its sides moved by ``strips``
    (``calibration.cut_quad``: positive inside, negative outside): the face's pixels
    mapped back to the picture through the warp that cut it."""
    fw, fh = face_size
    order, _ = portrait_orders(corners)
    rect = np.float32([[0, 0], [fw, 0], [fw, fh], [0, fh]]) - 0.5
    back = np.linalg.inv(cv2.getPerspectiveTransform(order.astype(np.float32), rect))
    quad = cut_quad((fw, fh), aspect, strips) - 0.5
    return cv2.perspectiveTransform(quad[None].astype(np.float64), back)[0].astype(np.float32)


def _cut_again(crops: list, quad: np.ndarray, face: np.ndarray, strips: dict, aspect: float):
    """The face cut again from its crops with its sides moved by ``strips``
    (``calibration.cut_quad``: negative outside, positive inside), ``quad`` the corners it
    was cut at (crop px): ``(face, new corners)``, or None where the new corners leave the
    crops."""
    h, w = face.shape[:2]
    new = _moved_quad(quad, (w, h), aspect, strips)
    ch, cw = crops[0].shape[:2]
    if (new < 0).any() or (new[:, 0] > cw - 1).any() or (new[:, 1] > ch - 1).any():
        return None
    return _average_face([(c, new) for c in crops]), new


def _uncrop(data: bytes, grey: bool = False) -> np.ndarray:
    return cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_GRAYSCALE if grey else cv2.IMREAD_COLOR)


class _TableAround:
    """The empty table's edges around a card, as they were seen in the frame the card was
    taken from: a table model for a second look at the crop (``find_outlines(table=...)``)."""

    ready = True

    def __init__(self, edges: np.ndarray):
        self.edges = edges

    def table_edges(self, frame: Optional[np.ndarray] = None) -> np.ndarray:
        if frame is None:
            return self.edges
        from vision.plain.outline import WORK_WIDTH
        h, w = frame.shape[:2]
        scale = min(1.0, WORK_WIDTH / w)
        size = (int(round(w * scale)), int(round(h * scale)))
        if size == (self.edges.shape[1], self.edges.shape[0]):
            return self.edges
        return cv2.resize(self.edges, size, interpolation=cv2.INTER_NEAREST)


def _jpeg(frame: np.ndarray) -> bytes:
    """A frame kept for the check, compressed (24 cards' frames would fill a Pi's memory)."""
    ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 95])
    return buf.tobytes()


def _unjpeg(data: bytes) -> np.ndarray:
    return cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)


def _frozen(table: TableModel) -> TableModel:
    """A copy of the table model that the check's frames do not change, holding no
    reading of an earlier frame (so that every view is read, not recalled)."""
    import copy
    frozen = copy.deepcopy(table)
    frozen.last_read = None
    frozen.read_cache = None
    return frozen


SETTLED_CARDS = 12
"""Cards taken before their size may be settled (``_size_settled``)."""
SETTLED_SPREAD = 0.04
"""How far (a share of their median) ``SETTLED_SHARE`` of the cards taken must lie from
their median size for it to be settled."""
SETTLED_SHARE = 0.75


def _size_settled(sizes: dict) -> bool:
    """Whether the cards taken so far settle the deck's size: at least ``SETTLED_CARDS``,
    ``SETTLED_SHARE`` of them within ``SETTLED_SPREAD`` of their median. A card is then looked
    for at that size only, however long it is not found so (``HINT_PATIENCE`` no longer
    applies): a dozen cards were not all taken at a mat's box. (Tuning seed 983: a cream
    jack on ivory cloth, found at the deck's size now and then only, was otherwise taken at
    its court's frame, 0.57 wide for the deck's 0.71, and the pass failed.)"""
    known = np.array([v for v in sizes.values() if v])
    if len(known) < SETTLED_CARDS:
        return False
    return float(np.mean(np.abs(known / np.median(known) - 1) <= SETTLED_SPREAD)) >= SETTLED_SHARE


def _size_hint(sizes: dict, frame) -> Optional[float]:
    """The cards' long side (px) once a few have been taken: through one camera, the
    others are about as large."""
    known = [v for v in sizes.values() if v]
    return float(np.median(known)) * picture_side(frame) if len(known) >= 3 else None


FIT_INSIDE = 0.97
"""``_fitted_alone`` keeps a fitted card only when at least this share of what differs from
the empty table within 0.75 of a card's length of its centre lies inside it, grown by
``FIT_GROW``: a card fitted at a slant across a ten of clubs' round pips leaves some of its
print outside. (Pale tuning group, seed 928, gen-18: such fits had 0.79-0.88 inside and
their faces were read back as another card; the fits at the card's corners 0.99-1.)"""
FIT_GROW = 0.03
"""How much (a share of its size) a fitted card is grown before its print is counted
inside: the fit's sides lie within a pixel or two of the card's. (Grown by 6%, a white-mat
ace fitted a few pixels inside its side was kept, but so were faces of odd shapes in
another tuning pass, which then failed: white-mat-a4, seed 910, gen-11.)"""


def _fitted_alone(frame, table: TableModel, sizes: dict, faces: dict) -> list:
    """A card of the size and shape of those taken so far (their medians, once three are:
    ``_size_hint``), fitted where print lies that differs from the empty table
    (``fit.fitted_outlines``, as in play). A cream card with no printed edge on a white
    felt of its paper's shade shows its sides only where the lamp lights them or they cast
    a shadow (on a tuning snow felt, two of four), too little for any outline, while its
    print differs plainly. Only fits that hold all that print (``FIT_INSIDE``) are kept: a
    face cut at a slant is another card's. (Fitted at the size of one card taken, the fits
    of a generated design on the white A4 mat were skewed, their faces of odd shapes, and
    the pass failed: white-mat-a4, tuning seed 910, gen-23.) ``sizes``: long sides as
    shares of the frame's height, as the pass keeps them."""
    from vision.plain.fit import fitted_outlines
    size, aspect = _size_hint(sizes, frame), _aspect_hint(faces)
    if size is None or aspect is None:
        return []
    fits = fitted_outlines(frame, table.foreground(frame, update=False), [], aspect, table, size)
    diff = table.difference(frame) if fits else None
    if diff is None:
        return []
    ys, xs = np.nonzero(diff > CHANGE_LEVEL)
    changed = np.stack([xs, ys], 1).astype(np.float32) * (frame.shape[1] / diff.shape[1])
    kept = []
    for o in fits:
        centre = o.corners.mean(axis=0)
        near = changed[np.hypot(*(changed - centre).T) < 0.75 * size]
        grown = centre + (o.corners - centre) * (1 + FIT_GROW)
        if len(near) and float(_inside_convex(grown[None], near)[0].mean()) >= FIT_INSIDE:
            kept.append(o)
    return kept


def _aspect_hint(faces: dict) -> Optional[float]:
    """The deck's card shape once two cards have been taken (their median)."""
    if len(faces) < 2:
        return None
    return float(np.median([f.shape[1] / f.shape[0] for f in faces.values()]))


CLEAR_SHARE = 0.002
"""A frame in which less than this fraction differs from the empty table shows it empty."""
LIGHT_EDGES = 0.002
"""... as does one where what differs holds fewer edges of its own than this fraction of
its area, away from its rim: a change of light (a lamp switched on, the room's light
through the reader window's opening) is smooth; a card has its outline, corners, index
and pips, a hand its fingers."""
LIGHT_RIM = 3
"""Work pixels of the changed places' rim left out of that count, beyond the foreground
mask's own coarseness (``background.COARSE``): where the light changes, it may change
sharply at a line of the table (the edge of the reader guide's opening, unseen while
the room was dark)."""
LIGHT_MIN_AREA = 200
"""Work pixels the changed places must keep inside their rim for the rim to be left out;
thinner ones are judged whole."""


def _table_clear(table: TableModel, frame) -> bool:
    """Whether the frame shows the empty table: almost nothing differs from it, or
    what differs is only a change of light (see ``LIGHT_EDGES``). The table's model
    matches the light with a gain per colour that varies linearly across the frame, so
    a change of light confined to a part of the view (the reader window's opening) is
    foreground there; the edges tell it from a card left lying, part of one, or a hand. The
    caller looks for a card outline first: a frame with one is never clear."""
    fg = table.foreground(frame, update=False)
    if float((fg > 0).mean()) < CLEAR_SHARE:
        return True
    return _only_light(table, frame, fg)


def _differing_share(table: TableModel, frame) -> float:
    """The share of the frame that differs from the empty table (below ``CLEAR_SHARE``:
    almost nothing)."""
    return float((table.foreground(frame, update=False) > 0).mean())


def _only_light(table: TableModel, frame, fg) -> bool:
    """Whether the places that differ from the empty table (``fg``, the frame's size)
    hold (almost) no edges other than the table's own, away from their rim."""
    edges = _edges_of_own(table, frame)
    changed = cv2.resize(fg, (edges.shape[1], edges.shape[0]), interpolation=cv2.INTER_NEAREST)
    rim = COARSE + LIGHT_RIM
    inner = cv2.erode(changed, np.ones((2 * rim + 1, 2 * rim + 1), np.uint8)) > 0
    if int(inner.sum()) < LIGHT_MIN_AREA:
        inner = changed > 0            # thin places: judged rim and all
    return int((edges[inner] > 0).sum()) < LIGHT_EDGES * int(inner.sum())


def _edges_of_own(table: TableModel, frame, maps: Optional[tuple] = None) -> np.ndarray:
    """The frame's edges (the finder's edge map, work size) that are not the empty
    table's own. ``maps``: that edge map (``outline.edge_map``), when the caller has it."""
    from vision.plain.outline import WORK_WIDTH, edge_map
    scale = min(1.0, WORK_WIDTH / frame.shape[1])
    luma, chroma = edge_map(frame, scale) if maps is None else maps
    eh, ew = luma.shape
    edges = luma | cv2.resize(chroma, (ew, eh), interpolation=cv2.INTER_NEAREST)
    own = table.table_edges(frame) if table is not None and table.ready else None
    if own is not None and own.shape == edges.shape:
        edges &= cv2.bitwise_not(cv2.dilate(own, np.ones((3, 3), np.uint8)))
    return edges


def _blank(outline, edges: np.ndarray, scale: float) -> bool:
    """Whether an outline holds (almost) no edges inside its rim: no card's face (each
    has its index and pips) but a lit shape of the table's, as the reader guide's
    opening is when the room's light leaks in through it."""
    mask = np.zeros(edges.shape, np.uint8)
    cv2.fillConvexPoly(mask, np.round(outline.corners * scale).astype(np.int32), 255)
    inner = cv2.erode(mask, np.ones((2 * LIGHT_RIM + 3, 2 * LIGHT_RIM + 3), np.uint8)) > 0
    area = int(inner.sum())
    return area >= LIGHT_MIN_AREA and int((edges[inner] > 0).sum()) < LIGHT_EDGES * area


def _still_run(recent: list, stable: int):
    """``stable`` frames of ``recent`` whose outlines lie where the latest does (stray
    frames in between, where the outline wavered, are skipped), or None."""
    last = recent[-1][1]
    tol = max(3.0, STILL * _long_side(last))
    agree = [(f, q) for f, q in recent if _corner_shift(q, last) < tol]
    return agree[-stable:] if len(agree) >= stable else None


def _outlines_alone(frame, table, size: Optional[float] = None, aspect: Optional[float] = None,
                    lit: Optional[list] = None, faint: bool = False, relit: bool = False):
    """The card-shaped outlines in a calibration frame: those inside no other, and not
    much smaller than the largest (a marker sticker seen at a slant); with ``size`` and
    ``aspect``, of about that long side and shape (the cards taken so far). ``relit``:
    where nothing else is found, also the places that differ once the light's change
    across the table is taken out (``change.relit_outlines``). An outline
    round a blank (``_blank``: the reader guide's opening lit by the room) is no card;
    its corners are added to ``lit``, and an outline found there again later is the
    table's too, never taken for a card: with a card lying within the lit opening, the
    finder may see only the opening's outline, and its face is not the card's."""
    from vision.plain.change import change_outlines, relit_outlines, unexplained_change
    from vision.plain.find import find_outlines, kept, table_own
    from vision.plain.merge import _merge
    from vision.plain.outline import MIN_LONG_SIDE, WORK_WIDTH, edge_map
    from vision.plain.photo import region_outlines
    kw = {} if size is None else dict(sizes=(size,), min_long=0.85 * size, max_long=1.18 * size)
    # The finder's edge map (at the usual thresholds) is the one ``_edges_of_own`` looks at
    # below: made once, here.
    maps = None if faint else edge_map(frame, min(1.0, WORK_WIDTH / frame.shape[1]))
    outlines = find_outlines(frame, aspect, table=table, faint=faint, edge_maps=maps, **kw)
    if not outlines and not faint and table is not None and table.busy:
        # On a busy table (carpet, terrazzo, a woven mat, a printed cloth) the card's sides
        # are lost among the table's own edges: it is looked for as a place that differs
        # from the empty table pixel by pixel, then as a region unlike the table, whose
        # sides are checked as any outline's. (Also where almost nothing seems to differ: a
        # white card on a light terrazzo differs from it in a few cells only.)
        least = kw.get("min_long", MIN_LONG_SIDE)
        outlines = change_outlines(frame, table, aspect, least, kw.get("max_long", np.inf)) \
            or _merge(region_outlines(frame, min(1.0, WORK_WIDTH / frame.shape[1]), aspect, least,
                                      kw.get("max_long", np.inf)))
    elif not faint and table is not None:
        # Where the frame differs from the empty table and no outline covers it, a card's
        # sides were lost, or found only in part, among the table's own edges (a print's
        # blobs too large for a busy table): the card is looked for there as a place that
        # differs pixel by pixel.
        least = kw.get("min_long", MIN_LONG_SIDE)
        most = kw.get("max_long", np.inf)
        place = unexplained_change(frame, table, outlines, least, most)
        if place is not None:
            more = change_outlines(frame, table, aspect, least, most, mask=place)
            if more:
                outlines = _merge(outlines + more)
    if relit and not outlines and table is not None and not table.busy:
        # Nothing found, though a card was asked for and lies still: a light card on light
        # cloth shows too little step at its sides for the edges, and under a lamp that
        # moved the table itself differs from its learnt picture by more than the card's
        # paper does. Once the light's change across the table is taken out, the card's
        # paper stands out (with its shadow: so this is the last thing tried). Not on a
        # busy table, whose texture's steps the relit difference does not allow for as
        # ``difference`` does (a striped cloth: a validation pass then failed).
        outlines = relit_outlines(frame, table, aspect, kw.get("min_long", MIN_LONG_SIDE), kw.get("max_long", np.inf))
    lit = [] if lit is None else lit
    if outlines and table is not None and table.busy:
        # On a busy table, shapes of its own (terrazzo chips, a carpet's pattern) can
        # pass for a card's outline; a card hides the table under it. A light card on a
        # plain part of it (a white mat laid on a carpet) hides little that differs from
        # its own paper: there, as on a plain table, it is told from the table's own
        # shapes (the mat's boxes) by its sides, which the table's picture has not.
        greys = _greys(table, frame)       # the same for every outline of the frame
        outlines = kept(outlines, [_hides_table(table, frame, o, greys)
                                   or (_on_plain(table, frame, o) and not table_own([o], frame, table.mean)[0])
                                   for o in outlines])
    if outlines:
        edges = _edges_of_own(table, frame, maps)
        scale = min(1.0, WORK_WIDTH / frame.shape[1])
        lit_shapes = set()
        for i, o in enumerate(outlines):
            if any(_corner_shift(o.corners, q) < max(3.0, LIT_AGAIN * o.long_side) for q in lit):
                lit_shapes.add(i)
            elif _blank(o, edges, scale):
                lit_shapes.add(i)
                lit.append(o.corners.copy())
        within = {j for i, o in enumerate(outlines) if i not in lit_shapes for j in o.inside}
        outlines = kept(outlines, [i not in lit_shapes and i not in within for i in range(len(outlines))])
    if outlines:
        big = max(o.area for o in outlines)
        outlines = kept(outlines, [o.area > 0.5 * big for o in outlines])
    return outlines


def _greys(table: TableModel, frame) -> tuple:
    """The empty table's picture and the frame in grey, at the table's (work) size, and
    their ratio at each pixel (table + 8 over frame + 8, float32), as ``_hides_table``
    compares them."""
    from vision.plain.background import _work
    ref = cv2.cvtColor(np.clip(table.mean, 0, 255).astype(np.uint8), cv2.COLOR_BGR2GRAY)
    grey = cv2.cvtColor(_work(frame), cv2.COLOR_BGR2GRAY)
    ratios = (ref.astype(np.float32) + 8) / (grey.astype(np.float32) + 8) if grey.shape == ref.shape else None
    return ref, grey, ratios


def _hides_table(table: TableModel, frame, outline, greys: Optional[tuple] = None) -> bool:
    """Whether the outline's inside (away from its rim) differs from the empty table's
    picture there in at least ``HIDES`` of its pixels (by ``HIDDEN_GREY`` grey levels or
    more, after matching the frame's exposure): a card lying there hides the table; a
    shape of the table's own hides nothing. ``greys``: ``_greys(table, frame)``, when
    the caller has it (made once for all of a frame's outlines: a busy cloth's frame has
    dozens)."""
    ref, grey, ratios = _greys(table, frame) if greys is None else greys
    if grey.shape != ref.shape:
        return True
    scale = grey.shape[1] / frame.shape[1]
    mask = np.zeros(grey.shape, np.uint8)
    cv2.fillConvexPoly(mask, np.round(outline.corners * scale).astype(np.int32), 1)
    inner = cv2.erode(mask, np.ones((7, 7), np.uint8)) > 0
    if not inner.any():
        return True
    # The camera's exposure may differ (a white card in view): matched over the rest,
    # every seventh of its pixels. (The pixels' ratios are the frame's, worked out once;
    # only those compared inside are turned to float here. The same values.)
    ratio = float(np.median(ratios.ravel()[np.flatnonzero(~inner.ravel())[::7]]))
    g, r = grey[inner].astype(np.float32), ref[inner].astype(np.float32)
    diff = np.abs(g * ratio + 8 * (ratio - 1) - r)
    return float((diff >= HIDDEN_GREY).mean()) >= HIDES


def _on_plain(table: TableModel, frame, outline) -> bool:
    """Whether the outline, rim and all, lies on a plain part of the busy table
    (``TableModel.plain_under``: a mat laid on a carpet, its paper and printed lines)."""
    return on_plain(table, frame.shape[1], outline.corners, LIGHT_RIM)


HIDDEN_GREY = 20
HIDES = 0.3
"""See ``_hides_table`` (on the busy tuning tables: cards found lying alone hid 0.49-0.99 of
their inside, outlines found on the empty table 0.00)."""


LIT_AGAIN = 0.02
"""An outline whose corners lie within this fraction of its length of a blank one's seen
before is that shape of the table again (a card in the guide's opening lies 2 mm or more
inside it: 2% of its length)."""


def _long_side(q) -> float:
    s = [np.hypot(*(q[i] - q[(i + 1) % 4])) for i in range(4)]
    return max((s[0] + s[2]) / 2, (s[1] + s[3]) / 2)


def _average_face(run, with_corners: bool = False):
    """The card's face from the still frames: each frame straightened by the corners'
    median over the frames (the outline wavers, the card does not) and averaged, so
    that the sensor's noise averages out. ``with_corners``: (face, the median corners)."""
    q = _median_quad(run)
    stack = [face_of(frame, q).astype(np.float32) for frame, _ in run]
    h, w = stack[0].shape[:2]
    stack = [cv2.resize(f, (w, h)) if f.shape[:2] != (h, w) else f for f in stack]
    face = np.clip(np.mean(stack, axis=0), 0, 255).astype(np.uint8)
    return (face, q) if with_corners else face
