"""A second reading of a heading from the original, at a higher resolution, for when the first
one looks like an OCR misreading of the source's number ("1.165" where the source says 1169).

The top of the page (down past the heading's line, at least its top third) is rendered again
at a higher resolution and OCRed with the project's tesseract adapter; the better reading is
kept. Only the heading region is read: a fraction of a full page's OCR, paid only for the
few headings that disagree with their metadata. A misreading that outlives the region's
readings is read from the heading's line alone (read_line); a page whose heading is found
nowhere is read turned upside down (a sheet fed the wrong way up).
"""

from __future__ import annotations

import io
import math
import warnings
from dataclasses import dataclass, replace
from datetime import date

import pypdfium2 as pdfium
from PIL import Image, ImageOps

from ..extract import DEFAULT_LIMITS, Limits, ocr, sniff_media_type
from ..extract.image import IMAGE_ERRORS
from ..extract.normalize import normalize_text
from .heading import Disagreement, Heading, compare, read_heading

# The page is OCRed whole at 300 dpi; a heading whose number it misread as a near match is
# read again as a region, which recovers different cases at different resolutions (of 28 near
# misreadings on damaged 200-dpi scans: 6 at 400 dpi, 8 at 300, 9 at the scan's own 200, more
# in any of them; bench/enrich_headings.py --reread 600 --seed 21): settle() tries each.
REREAD_DPI = 400
REREAD_DPIS = (400, 300, 200)
# A heading still misread after the region's readings is read once more as one line: the
# strip of its line (found by the first region reading) at each of REREAD_DPIS, tesseract told
# it holds one line (ocr.recognize_line). Each costs ~0.1 s: a strip, not a region.
_LINE_MARGIN_SHARE = 1.0  # of the line's height, blank above and below its box (see read_line)
TOP_SHARE = 1 / 3  # the heading region when the heading's line is not known
_LINE_MARGIN = 4  # lines read below the heading, for a heading placed lower than its line says
_PAGE_LINES = 30  # a typed page holds at least this many lines
_A4_LONG_SIDE = 11.69  # inches: a scan without a resolution is taken for an A4 page
_SANE_DPI = (50, 1200)


class RereadError(Exception):
    """The original cannot be read again (not a PDF or image, no such page): one line."""


@dataclass(frozen=True)
class Reread:
    """What a second reading of the heading region found."""

    heading: Heading | None
    dpi: int
    share: float  # the top share of the page that was read (0..1)
    text: str  # what OCR read there
    confidence: float | None  # tesseract's, 0..1
    # The strip of the page holding the heading's first line, at `dpi` (for a reading of the
    # line alone, read_line); None when no line read there holds a heading.
    line: Image.Image | None = None


def heading_share(heading: Heading | None) -> float:
    """How much of the page, from the top, holds the heading: its lines and a margin, and never
    less than the top third.

    The heading's line is placed as if the text filled the page, and a text shorter than a
    typed page (_PAGE_LINES) as if it filled the top of one: a short text sits at the top.
    """
    if heading is None:
        return TOP_SHARE
    below = (heading.line + len(heading.lines) + _LINE_MARGIN) / max(heading.page_lines,
                                                                     _PAGE_LINES)
    return min(1.0, max(TOP_SHARE, below * 1.15))


def reread_heading(original: bytes, page: int = 1, heading: Heading | None = None, *,
                   dpi: int = REREAD_DPI, today: date | None = None,
                   limits: Limits = DEFAULT_LIMITS, upside_down: bool = False) -> Reread:
    """Render the top of `page` (1-based) of the original PDF or image at `dpi`, OCR it and
    read the heading there. The heading of the first reading, when given, says how far down
    to read. upside_down reads the page as if turned half a turn: its bottom, turned."""
    share = heading_share(heading)
    media_type = sniff_media_type(original)
    if media_type == "application/pdf":
        image, used_dpi = _render_pdf(original, page, share, dpi, limits, upside_down)
    elif media_type.startswith("image/"):
        image, used_dpi = _render_image(original, media_type, page, share, dpi, limits,
                                        upside_down)
    else:
        raise RereadError(f"cannot read a heading again from {media_type}: not a PDF or image")
    if upside_down:
        image = image.rotate(180)
    found = ocr.recognize(image, used_dpi, lines=True)
    text = normalize_text(found.text)
    again = read_heading(text, today)
    if again is not None:
        turned = ", the page turned upside down" if upside_down else ""
        again = replace(again, notes=(*again.notes, f"read again at {used_dpi} dpi{turned}"))
    return Reread(again, used_dpi, round(share, 3), text, found.confidence,
                  _heading_strip(image, found.lines, again, today))


def _heading_strip(image: Image.Image, lines: tuple[ocr.OcrLine, ...], heading: Heading | None,
                   today: date | None) -> Image.Image | None:
    """The strip of the image holding the first line tesseract found that reads as a heading
    of the heading's type, with a line's height of paper above and below, the width of the image."""
    if heading is None:
        return None
    for line in lines:
        alone = read_heading(normalize_text(line.text), today)
        if alone is not None and alone.type == heading.type:
            _, top, _, bottom = line.box
            margin = round((bottom - top) * _LINE_MARGIN_SHARE)
            return image.crop((0, max(0, top - margin), image.width,
                               min(image.height, bottom + margin)))
    return None


def read_line(strip: Image.Image, strip_dpi: int, dpi: int, today: date | None = None
              ) -> Heading | None:
    """Read a heading's line alone: the strip resampled from its resolution to `dpi`
    (Lanczos) and OCRed as one line."""
    if dpi != strip_dpi:
        scale = dpi / strip_dpi
        strip = strip.resize((max(1, round(strip.width * scale)),
                              max(1, round(strip.height * scale))), Image.Resampling.LANCZOS)
    text = normalize_text(ocr.recognize_line(strip, dpi).text)
    heading = read_heading(text, today)
    if heading is not None:
        heading = replace(heading, notes=(*heading.notes, f"its line read alone at {dpi} dpi"))
    return heading


def _fitting_dpi(width_in: float, height_in: float, dpi: int, limits: Limits) -> int:
    """dpi, or less when the region would pass the pixel limit (a map, a poster)."""
    fitting = int(math.sqrt(limits.pixels / max(1.0, width_in * height_in)))
    return min(dpi, fitting)


def _render_pdf(data: bytes, page: int, share: float, dpi: int, limits: Limits,
                bottom: bool = False) -> tuple[Image.Image, int]:
    try:
        pdf = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as e:
        raise RereadError(f"cannot open the PDF: {e}") from None
    try:
        if not 1 <= page <= len(pdf):
            raise RereadError(f"no page {page}: the PDF has {len(pdf)}")
        sheet = pdf[page - 1]
        try:
            width, height = sheet.get_size()  # points, as displayed (after /Rotate)
            dpi = _fitting_dpi(width / 72, height * share / 72, dpi, limits)
            # crop: points cut off the left, bottom, right and top of the displayed page.
            cut = height * (1 - share)
            bitmap = sheet.render(scale=dpi / 72, grayscale=True, may_draw_forms=True,
                                  crop=(0, 0, 0, cut) if bottom else (0, cut, 0, 0))
            try:
                image = bitmap.to_pil()
            finally:
                bitmap.close()
        finally:
            sheet.close()
    except pdfium.PdfiumError as e:
        raise RereadError(f"cannot render page {page}: {e}") from None
    finally:
        pdf.close()
    return image, dpi


def _render_image(data: bytes, media_type: str, page: int, share: float, dpi: int,
                  limits: Limits, bottom: bool = False) -> tuple[Image.Image, int]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        try:
            with Image.open(io.BytesIO(data)) as image:
                frames = getattr(image, "n_frames", 1)
                if not 1 <= page <= frames:
                    raise RereadError(f"no page {page}: the image has {frames}")
                image.seek(page - 1)
                if image.width * image.height > limits.pixels:
                    raise RereadError(f"image too large ({image.width:,}×{image.height:,} "
                                      "pixels)")
                native = _image_dpi(image)
                gray = _grayscale(image)
        except IMAGE_ERRORS as e:
            raise RereadError(f"cannot read {media_type}: {type(e).__name__}: {e}") from None
    rows = max(1, round(gray.height * share))
    top = gray.crop((0, gray.height - rows if bottom else 0, gray.width,
                     gray.height if bottom else rows))
    dpi = _fitting_dpi(top.width / native, top.height / native, dpi, limits)
    scale = dpi / native
    if abs(scale - 1) > 0.01:
        top = top.resize((max(1, round(top.width * scale)), max(1, round(top.height * scale))),
                         Image.Resampling.LANCZOS)
    return top, dpi


def _image_dpi(image: Image.Image) -> float:
    """The scan's resolution from its header, else from its size taken for an A4 page."""
    value = image.info.get("dpi")
    try:
        dpi = float(value[0]) if value else 0.0
    except (TypeError, ValueError, IndexError):
        dpi = 0.0
    if _SANE_DPI[0] <= dpi <= _SANE_DPI[1]:
        return dpi
    return max(_SANE_DPI[0], max(image.size) / _A4_LONG_SIDE)


def _grayscale(frame: Image.Image) -> Image.Image:
    frame = ImageOps.exif_transpose(frame)  # phone photos are stored sideways
    if frame.mode in ("RGBA", "LA", "PA") or (frame.mode == "P" and "transparency" in frame.info):
        rgba = frame.convert("RGBA")
        frame = Image.alpha_composite(Image.new("RGBA", rgba.size, (255, 255, 255, 255)), rgba)
    return frame.convert("L")


def better_reading(first: Heading, again: Heading | None, type_normalized: str | None,
                   number: str | None, year: int | str | None, signed: date | None) -> Heading:
    """The reading to keep of two readings of one heading: the one that disagrees with the
    source's metadata on fewer fields, else the one that read a date, else the surer one,
    else the first.

    The metadata is a witness independent of OCR: when a reading at another resolution finds
    the source's number where the first found a near miss, two readers agree. A heading that
    really prints another number is read so again and stays in disagreement. A second reading
    of another type of norm found another line and is ignored.
    """
    if again is None or again.type != first.type:
        return first
    misses_first = len(compare(first, type_normalized, number, year, signed))
    misses_again = len(compare(again, type_normalized, number, year, signed))
    if misses_again != misses_first:
        return again if misses_again < misses_first else first
    if (again.date is None) != (first.date is None):
        return first if again.date is None else again  # the one that read the date says more
    return again if again.confidence > first.confidence else first


def _with_dates_of(line: Heading | None, kept: Heading) -> Heading | None:
    """A reading of the heading's first line alone, given the date the kept reading found
    on a next line (a heading printed over two lines) when the line itself shows none."""
    if line is None or line.date is not None or kept.date is None:
        return line
    if line.year not in (None, kept.year):
        return line
    return replace(line, date=kept.date, year=kept.year)


def settle(first: Heading | None, original: bytes, page: int, type_normalized: str | None,
           number: str | None, year: int | str | None, signed: date | None, *,
           dpis: tuple[int, ...] = REREAD_DPIS, today: date | None = None
           ) -> tuple[Heading | None, list[Disagreement]]:
    """Compare the heading with the metadata; where a disagreement looks like an OCR
    misreading, read the heading again from the original (at each of `dpis` in turn, until
    none is left) and keep the better reading. A misreading left after them all is read once
    more from the heading's line alone (read_line), at each of `dpis` in turn.

    With no first reading (the page's OCR lost the heading line: a letterhead's logo beside it
    made tesseract cut the page into columns), the heading region is read once, at the first
    of `dpis`; a heading found there is settled like any other. When none is found there
    either, the page is read turned upside down (a sheet fed the wrong way up: the page's OCR
    read only noise), at each of `dpis` from the lowest until a heading is found; the rest of
    its readings are turned likewise.

    Returns the heading kept and the disagreements that remain (to show on the quality page).
    """
    kept = first
    strip: tuple[Image.Image, int] | None = None
    upside_down = False
    if kept is None and dpis:
        again = reread_heading(original, page, None, dpi=dpis[0], today=today)
        # A sheet fed the wrong way up has its heading at the bottom, turned: read there, at
        # each resolution from the cheapest until one finds a heading.
        for dpi in sorted(dpis) if again.heading is None else ():
            turned = reread_heading(original, page, None, dpi=dpi, today=today,
                                    upside_down=True)
            if turned.heading is not None:
                again, upside_down = turned, True
                break
        kept = again.heading
        strip = (again.line, again.dpi) if again.line is not None else None
    if kept is None:
        return None, []
    disagreements = compare(kept, type_normalized, number, year, signed)
    for dpi in dpis:
        if not any(d.ocr_misreading for d in disagreements):
            break
        again = reread_heading(original, page, first, dpi=dpi, today=today,
                               upside_down=upside_down)
        if strip is None and again.line is not None:
            strip = (again.line, again.dpi)
        kept = better_reading(kept, again.heading, type_normalized, number, year, signed)
        disagreements = compare(kept, type_normalized, number, year, signed)
    for dpi in dpis if strip is not None else ():
        if not any(d.ocr_misreading for d in disagreements):
            break
        alone = _with_dates_of(read_line(*strip, dpi, today), kept)
        kept = better_reading(kept, alone, type_normalized, number, year, signed)
        disagreements = compare(kept, type_normalized, number, year, signed)
    return kept, disagreements
