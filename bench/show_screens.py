"""Write the status screen's main layouts to PNG files (1:1 and scaled up) for a look or a note.

Usage: .venv/bin/python bench/show_screens.py OUT_DIR [--scale 4]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from PIL import Image

from hardware.display import EXAMPLES, render


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", type=Path, help="folder for the PNG files (created if missing)")
    parser.add_argument("--scale", type=int, default=4, help="also write NAME_xSCALE.png (default 4; 1 = only 1:1)")
    args = parser.parse_args(argv)
    if args.scale < 1:
        parser.error("--scale must be 1 or more")
    args.out_dir.mkdir(parents=True, exist_ok=True)
    for name, status in EXAMPLES.items():
        image = render(status)
        image.save(args.out_dir / f"{name}.png")
        written = [f"{name}.png"]
        if args.scale > 1:
            big = image.convert("L").resize((image.width * args.scale, image.height * args.scale),
                                            Image.NEAREST)
            big.save(args.out_dir / f"{name}_x{args.scale}.png")
            written.append(f"{name}_x{args.scale}.png")
        print(f"{name}: {', '.join(str(args.out_dir / w) for w in written)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
