"""The reader window's template, the rack and the set-up diagram."""
import subprocess
import sys

from vision.printables import (camera_distance_mm, render_rack_page, render_reader_window_page,
                               render_setup_diagram, write_reader_pdf)


def test_the_reader_pdf_has_two_true_size_a4_pages(tmp_path):
    path = write_reader_pdf(tmp_path / "reader.pdf", dpi=100)
    data = path.read_bytes()
    assert data.startswith(b"%PDF") and b"/Count 2" in data
    # 210 x 297 mm at 100 dpi is 595 x 842 points (1/72 inch).
    assert data.count(b"MediaBox [ 0 0 595.44 841.68 ]") == 2


def test_the_guide_page_is_black_round_a_card_sized_opening():
    px = 4.0
    page = render_reader_window_page(px)
    # The guide's black band and its white opening, 92 x 67 mm, centred in the guide.
    assert page.getpixel((round(35 * px), round(30 * px))) == 0
    assert page.getpixel((round(105 * px), round(60 * px))) == 255
    assert render_rack_page(px).size == page.size


def test_camera_distances_for_the_documented_cameras():
    assert round(camera_distance_mm(102)) == 65 and round(camera_distance_mm(60)) == 139


def test_the_setup_diagram_and_the_command(tmp_path):
    img = render_setup_diagram(1.0)
    assert img.mode == "RGB" and img.size == (520, 420)
    out = tmp_path / "r.pdf"
    run = subprocess.run([sys.executable, "-m", "controller.cli", "mat", "--reader-pdf", str(out)],
                         capture_output=True, text=True)
    assert run.returncode == 0 and out.exists() and "print at 100%" in run.stdout
