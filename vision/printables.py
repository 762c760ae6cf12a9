"""Printables for the private reader: the reader window's template (card guide, plate, camera position), the rack, and the set-up diagram.

``write_reader_pdf(path)`` writes two A4 pages at true size:

1. *The reader window.* The card guide to cut out (its printed side is matte black: it
   faces down, onto the plate, where the camera sees it), the plate's outline with the
   guide's place, the hood's footprint, and a side view with the camera's distance for
   common cameras.
2. *The rack.* The side profile of a stepped rack (five grooves, one behind the other, each
   higher), the front strip with the slot numbers and the LED holes, and the wiring line.

``render_setup_diagram()`` draws the whole table seen from above and from the side: the
overhead camera over the mat, the reader window at the dealer's hand, the Pi's rack
turned away from the people.

>>> img = render_setup_diagram(scale=1.0)
>>> img.size[0] > 400
True
"""
from __future__ import annotations

from pathlib import Path

from vision.zones import label_font

A4_MM = (210.0, 297.0)
CARD_MM = (63.0, 88.0)
GUIDE_OPENING_MM = (CARD_MM[1] + 4.0, CARD_MM[0] + 4.0)
"""The guide's opening (landscape): 2 mm round a poker-size card."""
GUIDE_OUTER_MM = (150.0, 120.0)
PLATE_MM = (170.0, 140.0)
VIEW_MM = 160.0
"""Width of plate the reader camera should see: the opening fills about 60% of it."""

CAMERAS = (
    ("Raspberry Pi Camera Module 3 Wide", 102.0),
    ("Raspberry Pi Camera Module 3", 66.0),
    ("a typical USB webcam", 60.0),
)
"""Horizontal fields of view (degrees) for the camera-distance table."""


def camera_distance_mm(hfov_deg: float, view_mm: float = VIEW_MM) -> float:
    """How far below the plate a camera must sit to see ``view_mm`` of it across.

    >>> round(camera_distance_mm(66.0))
    123
    """
    import math
    return view_mm / 2.0 / math.tan(math.radians(hfov_deg) / 2.0)


def _page(px_per_mm: float):
    from PIL import Image, ImageDraw
    w, h = (round(v * px_per_mm) for v in A4_MM)
    img = Image.new("L", (w, h), 255)
    return img, ImageDraw.Draw(img)


def render_reader_window_page(px_per_mm: float = 8.0):
    """Page 1: the card guide (true size), the plate, the hood and the camera's place."""
    img, d = _page(px_per_mm)
    k = px_per_mm
    big, mid, small = (label_font(round(s * k)) for s in (5.0, 3.6, 2.8))
    d.text((12 * k, 8 * k), "euchre-table: the reader window (print at 100%)", font=big, fill=0)
    # The guide: outer edge, opening, filled black between them (its underside).
    gx, gy = 30.0, 22.0
    ow, oh = GUIDE_OUTER_MM
    iw, ih = GUIDE_OPENING_MM
    ix, iy = gx + (ow - iw) / 2, gy + (oh - ih) / 2
    d.rectangle([gx * k, gy * k, (gx + ow) * k, (gy + oh) * k], fill=0)
    d.rectangle([ix * k, iy * k, (ix + iw) * k, (iy + ih) * k], fill=255, outline=0,
                width=max(1, round(0.3 * k)))
    _dashes(d, [(ix, iy), (ix + iw, iy), (ix + iw, iy + ih), (ix, iy + ih)], k)
    d.multiline_text(((ix + 4) * k, (iy + 4) * k),
                     f"CUT OUT: opening {iw:.0f} x {ih:.0f} mm\n(a 63 x 88 mm card and 2 mm all round)\n\n"
                     "The black side faces DOWN, onto the plate:\nthe camera sees it round the card.\n"
                     "Matte black paper or card; no gloss.\n\nThe open side of the hood is the\n"
                     "dealer's: slide each card in face down.",
                     font=small, fill=0, spacing=round(0.8 * k))
    d.text((gx * k, (gy + oh + 2) * k),
           f"Card guide, outer {ow:.0f} x {oh:.0f} mm: glue onto the plate, opening centred.",
           font=small, fill=0)
    # Side view: plate, hood, camera, distance.
    sy = 172.0
    d.text((12 * k, sy * k), "Side view (not to scale)", font=mid, fill=0)
    px0, px1, py = 30.0, 150.0, sy + 26
    d.rectangle([px0 * k, (py - 1.5) * k, px1 * k, py * k], outline=0, width=max(1, round(0.3 * k)))
    d.text(((px1 + 3) * k, (py - 3) * k), "clear plate (3 mm acrylic or glass)", font=small, fill=0)
    d.line([(px0 * k, (py - 1.5) * k), (px0 * k, (py - 14) * k), (px1 * k, (py - 14) * k),
            (px1 * k, (py - 9) * k)], fill=0, width=max(1, round(0.5 * k)))
    d.text(((px1 + 3) * k, (py - 16) * k), "hood (matte black inside),\nopen towards the dealer",
           font=small, fill=0)
    d.rectangle([(px0 + 20) * k, (py - 3) * k, (px1 - 20) * k, (py - 1.5) * k], fill=0)
    d.text(((px0 + 24) * k, (py - 8) * k), "card, face down", font=small, fill=0)
    cx, cy = (px0 + px1) / 2, py + 42
    d.rectangle([(cx - 6) * k, cy * k, (cx + 6) * k, (cy + 5) * k], fill=0)
    d.polygon([((cx - 3) * k, cy * k), ((cx + 3) * k, cy * k), ((cx + 40) * k, (py + 1) * k),
               ((cx - 40) * k, (py + 1) * k)], outline=0)
    d.text(((cx + 9) * k, (cy + 0.5) * k), "camera, looking up, centred under the opening",
           font=small, fill=0)
    d.line([((px0 - 8) * k, py * k), ((px0 - 8) * k, cy * k)], fill=0, width=max(1, round(0.3 * k)))
    d.text(((px0 - 7) * k, (py + 18) * k), "d", font=mid, fill=0)
    d.text(((px0 - 26) * k, (cy + 7) * k), "LEDs at the sides, behind a diffuser; a polarizing film "
           "over them and a crossed one\nover the lens stop the plate's glare.", font=small, fill=0)
    ty = cy + 20
    d.text((14 * k, ty * k), f"Camera distance d for {VIEW_MM:.0f} mm of plate across the frame:",
           font=mid, fill=0)
    for i, (name, fov) in enumerate(CAMERAS):
        d.text((18 * k, (ty + 6 + 5 * i) * k),
               f"{name} ({fov:.0f}° across): d ≈ {camera_distance_mm(fov):.0f} mm", font=small, fill=0)
    d.text((14 * k, (ty + 24) * k), "Then check: euchre-table recognize FRAME.png --json names the "
           "card; euchre-table mat --reader-window FRAME.png prints [reader] window.", font=small, fill=0)
    return img


def render_rack_page(px_per_mm: float = 8.0):
    """Page 2: the stepped rack's side profile (true size) and its front strip."""
    img, d = _page(px_per_mm)
    k = px_per_mm
    big, mid, small = (label_font(round(s * k)) for s in (5.0, 3.6, 2.8))
    d.text((12 * k, 8 * k), "euchre-table: the Pi's rack (print at 100%)", font=big, fill=0)
    d.multiline_text((12 * k, 17 * k),
                     "Five grooves, one behind the other, each 12 mm higher: the cards stand in them\n"
                     "facing the Pi's seat, their backs to the people. Cut two side profiles from\n"
                     "5 mm foam board, join them with strips 80 mm long. An LED over each groove\n"
                     "(and one over the up-card's place) blinks the card to play or to discard.",
                     font=small, fill=0, spacing=round(0.8 * k))
    # Side profile: steps 12 mm deep, 12 mm higher each, groove 3 mm wide, 8 mm deep.
    x0, base = 30.0, 120.0
    pts = [(x0, base)]
    for i in range(6):
        top = base - 10 - 12 * i
        pts += [(x0 + 12 * i, top), (x0 + 12 * (i + 1), top)]
    pts += [(x0 + 72, base)]
    d.polygon([(x * k, y * k) for x, y in pts], outline=0, width=max(1, round(0.4 * k)))
    for i in range(6):
        gx = x0 + 12 * i + 7
        top = base - 10 - 12 * i
        d.rectangle([gx * k, top * k, (gx + 3) * k, (top + 8) * k], fill=0)
        d.text(((gx - 1) * k, (top - 6) * k), "UP" if i == 5 else str(i + 1), font=small, fill=0)
    d.text(((x0 + 76) * k, (base - 40) * k), "side profile, true size:\n"
           "grooves 3 mm wide, 8 mm deep;\nthe people sit to the left,\nthe Pi's seat to the right",
           font=small, fill=0)
    # Front strip with LED holes.
    fy = 145.0
    d.text((12 * k, fy * k), "LED strip (glue along the top of the people's side; holes 5 mm):",
           font=mid, fill=0)
    for i in range(6):
        cx = 30.0 + 25 * i
        d.rectangle([(cx - 11) * k, (fy + 8) * k, (cx + 11) * k, (fy + 26) * k], outline=0,
                    width=max(1, round(0.3 * k)))
        d.ellipse([(cx - 2.5) * k, (fy + 11) * k, (cx + 2.5) * k, (fy + 16) * k], outline=0,
                  width=max(1, round(0.3 * k)))
        d.text(((cx - 5) * k, (fy + 18) * k), "UP" if i == 5 else f"slot {i + 1}", font=small, fill=0)
    d.multiline_text((12 * k, (fy + 34) * k),
                     "Wiring (default BCM pins, see docs/hardware.md): slots 1-5 on GPIO 7, 8, 9, 10, 11,\n"
                     "the up-card on GPIO 17, each through 330 ohm-1 kohm to the LED's anode, cathode to\n"
                     "ground. The LEDs face the Pi's seat's helper, not the people.\n\n"
                     "The table says which slot: \"West: 3 of 5 read; into rack slot 3\" as the reader\n"
                     "reads each card; \"West plays the ...\" with slot 3 blinking when the Pi plays;\n"
                     "\"take the card from slot 3 and lay it aside face down\" when it discards.",
                     font=small, fill=0, spacing=round(0.8 * k))
    return img


def _dashes(d, corners, k, dash=3.0):
    import math
    for (x0, y0), (x1, y1) in zip(corners, corners[1:] + corners[:1]):
        n = max(1, int(math.hypot(x1 - x0, y1 - y0) / (2 * dash)))
        for i in range(n):
            a, b = i / n, (i + 0.5) / n
            d.line([((x0 + (x1 - x0) * a) * k, (y0 + (y1 - y0) * a) * k),
                    ((x0 + (x1 - x0) * b) * k, (y0 + (y1 - y0) * b) * k)], fill=128,
                   width=max(1, round(0.3 * k)))


def write_reader_pdf(path, dpi: int = 200) -> Path:
    """The reader window's template and the rack, two A4 pages at true size."""
    px = dpi / 25.4
    pages = [render_reader_window_page(px).convert("RGB"), render_rack_page(px).convert("RGB")]
    path = Path(path)
    pages[0].save(path, "PDF", resolution=float(dpi), save_all=True, append_images=pages[1:])
    return path


def render_setup_diagram(scale: float = 2.0):
    """The table's set-up, from above and from the side (an RGB PIL image)."""
    from PIL import Image, ImageDraw
    W, H = round(520 * scale), round(420 * scale)
    img = Image.new("RGB", (W, H), (255, 255, 255))
    d = ImageDraw.Draw(img)
    s = scale
    f_big, f, f_small = label_font(round(15 * s)), label_font(round(11 * s)), label_font(round(9 * s))
    ink, grey, green, red = (20, 20, 20), (150, 150, 150), (40, 120, 60), (190, 40, 40)
    d.text((12 * s, 8 * s), "From above", font=f_big, fill=ink)
    # The table and the mat.
    d.rounded_rectangle([60 * s, 40 * s, 320 * s, 250 * s], radius=20 * s, fill=(222, 200, 160), outline=ink)
    d.rectangle([110 * s, 80 * s, 270 * s, 193 * s], fill=(245, 245, 245), outline=ink)
    d.text((124 * s, 100 * s), "mat (A3)", font=f, fill=ink)
    for name, x, y in (("N", 182, 86), ("S", 182, 176), ("W", 116, 130), ("E", 256, 130)):
        d.text((x * s, y * s), name, font=f, fill=grey)
    d.text((142 * s, 146 * s), "play areas, up-card", font=f_small, fill=grey)
    # Seats.
    for name, x, y in (("North (person)", 150, 22), ("South (person)", 150, 256),
                       ("East (person)", 326, 140)):
        d.text((x * s, y * s), name, font=f_small, fill=ink)
    d.text((4 * s, 130 * s), "West\n(the Pi)", font=f_small, fill=red)
    # The rack beside West, facing West.
    d.rectangle([66 * s, 175 * s, 104 * s, 192 * s], fill=(90, 90, 110), outline=ink)
    d.text((62 * s, 196 * s), "rack: faces West,\nbacks to the people", font=f_small, fill=ink)
    for i in range(5):
        d.ellipse([(70 + 7 * i) * s, 170 * s, (74 + 7 * i) * s, 174 * s], fill=(250, 200, 40))
    # The reader window at the dealer's hand (here by South).
    d.rectangle([226 * s, 212 * s, 276 * s, 244 * s], fill=(60, 60, 60), outline=ink)
    d.rectangle([236 * s, 220 * s, 266 * s, 238 * s], fill=(200, 230, 240), outline=ink)
    d.text((282 * s, 214 * s), "reader window:\ncards face down", font=f_small, fill=ink)
    d.text((340 * s, 60 * s), "overhead camera\nlooks down at the mat", font=f_small, fill=green)
    d.ellipse([222 * s, 100 * s, 232 * s, 110 * s], outline=green, width=max(1, round(2 * s)))
    d.line([(232 * s, 105 * s), (338 * s, 72 * s)], fill=green, width=max(1, round(s)))
    # Side view of the reader.
    oy = 285
    d.text((12 * s, (oy - 4) * s), "The reader, from the side", font=f_big, fill=ink)
    d.rectangle([60 * s, (oy + 50) * s, 300 * s, (oy + 54) * s], fill=(200, 230, 240), outline=ink)
    d.text((308 * s, (oy + 44) * s), "clear plate", font=f_small, fill=ink)
    d.rectangle([120 * s, (oy + 46) * s, 240 * s, (oy + 50) * s], fill=(200, 60, 60), outline=ink)
    d.text((132 * s, (oy + 33) * s), "card, face down (only its back is seen)", font=f_small, fill=ink)
    d.line([(60 * s, (oy + 50) * s), (60 * s, (oy + 28) * s), (300 * s, (oy + 28) * s),
            (300 * s, (oy + 36) * s)], fill=ink, width=max(1, round(2 * s)))
    d.text((308 * s, (oy + 24) * s), "hood, open to the dealer", font=f_small, fill=ink)
    d.rectangle([170 * s, (oy + 112) * s, 190 * s, (oy + 122) * s], fill=ink)
    d.polygon([(175 * s, (oy + 112) * s), (185 * s, (oy + 112) * s), (250 * s, (oy + 55) * s),
               (110 * s, (oy + 55) * s)], outline=green)
    d.text((196 * s, (oy + 108) * s), "reader camera looks up: sees the face", font=f_small, fill=green)
    d.line([(60 * s, (oy + 54) * s), (60 * s, (oy + 124) * s), (300 * s, (oy + 124) * s),
            (300 * s, (oy + 54) * s)], fill=ink, width=max(1, round(s)))
    d.text((306 * s, (oy + 90) * s), "box; LEDs at the sides,\ndiffused, crossed polarizers",
           font=f_small, fill=ink)
    d.text((120 * s, 226 * s), "after reading, each card\ngoes into the rack", font=f_small, fill=red)
    d.line([(226 * s, 228 * s), (104 * s, 186 * s)], fill=red, width=max(1, round(s)))
    return img
