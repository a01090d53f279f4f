"""Tesseract behind one small adapter: a grayscale image in, text and a confidence out.

tesserocr runs tesseract in-process (no image files, no process per page) and is faster per
page than the Debian CLI (docs/extraction.md). Tesseract's own threading is ~10x slower on
a small machine than one thread per process, so the limit is set before the library loads;
parallelism comes from one worker process per core.
"""

from __future__ import annotations

import os
import re

os.environ.setdefault("OMP_THREAD_LIMIT", "1")  # before tesseract (and its OpenMP) loads

from dataclasses import dataclass  # noqa: E402
from functools import cache  # noqa: E402
from pathlib import Path  # noqa: E402

from PIL import Image, ImageChops, ImageDraw  # noqa: E402

BACKEND = "tesseract"
# Every scan is read at 300 dpi: rendered at its own resolution, then resampled (Lanczos).
# On 200-dpi JPEG scans with faded, dotted print, a table and a stamp, 300 dpi cut the
# character error rate by a fifth (0.60 % -> 0.49 %, faded 1.31 % -> 0.91 %) and read a
# 150-dpi blurred scan at 1.4 % instead of 15.6 %; no level got worse (docs/extraction.md).
OCR_DPI = 300
_BLANK_LINES = re.compile(r"\n[ \t]*\n+")
_SECTION_SIGN = re.compile(r"^[$S8] ?(\d{1,2}[º°])", re.MULTILINE)
_SECTION_EIGHT = re.compile(r"^8([1-9][º°]\.?\s)", re.MULTILINE)
LANGUAGE = "por"
# The PyPI wheel finds no language data on its own: Debian's comes first, then the usual places.
_TESSDATA_DIRS = (
    "/usr/share/tesseract-ocr/5/tessdata",
    "/usr/share/tesseract-ocr/4.00/tessdata",
    "/usr/share/tessdata",
    "/usr/local/share/tessdata",
)


class OcrUnavailable(Exception):
    """Tesseract or its Portuguese language data is missing: a set-up problem, not bad input."""


class OcrFailed(Exception):
    """Tesseract gave up on one page image: the document is recorded as failed."""


# Ink coverage: the page is cut into cells of 1/25 inch; a cell holds ink when 6 % of its
# pixels are darker than the paper by a quarter of the print's contrast (faded print counts).
_CELLS_PER_INCH = 25
_INK_CONTRAST = 0.25
_INK_CELL_SHARE = 0.06
# Ink read over this share of the page's ink is a whole read page (a stamp, a logo or a
# signature is unread ink that costs nothing); below it the confidence falls in proportion.
FULL_COVERAGE = 0.90


@dataclass(frozen=True)
class OcrText:
    text: str  # as tesseract writes it: lines, blank lines between blocks
    # 0..1: word confidences weighted by word length, times the share of ink read (below)
    confidence: float | None
    words: int
    # Share of the page's inked area that lies in a recognized word (rules of tables left
    # out): a stain, a faded row or an article tesseract skipped lowers it.
    coverage: float | None = None
    # The text lines tesseract found, with their boxes: only when asked (recognize(lines=True)).
    lines: tuple[OcrLine, ...] = ()


@dataclass(frozen=True)
class OcrLine:
    """One line of text as tesseract segmented it, and where it stands on the image."""

    text: str
    box: tuple[int, int, int, int]  # left, top, right, bottom, in the image's pixels


def tessdata_dir() -> str:
    """Where por.traineddata is: $TESSDATA_PREFIX if it holds it, else Debian's folder."""
    candidates = [os.environ.get("TESSDATA_PREFIX", ""), *_TESSDATA_DIRS]
    for folder in candidates:
        if folder and (Path(folder) / f"{LANGUAGE}.traineddata").is_file():
            return folder.rstrip("/") + "/"
    raise OcrUnavailable(
        f"no tesseract language data for '{LANGUAGE}' (install tesseract-ocr-{LANGUAGE})"
    )


@cache
def _api():
    """One tesseract instance per process, loaded on first use and kept: loading costs ~0.2 s."""
    try:
        import tesserocr
    except ImportError as e:  # pragma: no cover - a broken install
        raise OcrUnavailable(f"tesserocr cannot be imported: {e}") from None
    try:
        api = tesserocr.PyTessBaseAPI(path=tessdata_dir(), lang=LANGUAGE)
    except RuntimeError as e:
        raise OcrUnavailable(f"tesseract failed to start: {e}") from None
    api.SetVariable("debug_file", "/dev/null")  # "Estimating resolution..." on stderr
    return api


@cache
def version() -> str:
    """Tesseract's own version: '5.5.4'."""
    import tesserocr

    return tesserocr.tesseract_version().split("\n", 1)[0].removeprefix("tesseract ").strip()


@cache
def backend_version() -> str:
    """'5.5.4 (tesserocr 2.13.0, por)': what is recorded next to every OCRed page."""
    import tesserocr

    return f"{version()} (tesserocr {tesserocr.__version__}, {LANGUAGE})"


def at_ocr_resolution(image: Image.Image, dpi: float | None, max_pixels: int
                      ) -> tuple[Image.Image, int | None]:
    """A page image resampled to OCR_DPI (up or down), and the resolution it is now at.

    Lanczos on the scan's own pixels: pdfium's rendering of a low-resolution image at a
    higher one read a 100-dpi scan worse (CER 1.76 % against 0.48 %). An image without a
    known resolution is left as it is (tesseract estimates it), and so is one whose
    resampled size would pass max_pixels.
    """
    if not dpi or round(dpi) == OCR_DPI:
        return image, round(dpi) if dpi else None
    scale = OCR_DPI / dpi
    size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
    if size[0] * size[1] > max_pixels:
        return image, round(dpi)
    return image.resize(size, Image.Resampling.LANCZOS), OCR_DPI


def recognize(image: Image.Image, dpi: int | None = None, *, lines: bool = False) -> OcrText:
    """OCR one page image. The image is handed over as raw pixels: no PNG, no temp file.
    With lines, the text lines found and their boxes come too (OcrText.lines)."""
    from tesserocr import PT, RIL, iterate_level

    gray = image if image.mode == "L" else image.convert("L")
    api = _api()
    api.SetImageBytes(gray.tobytes(), gray.width, gray.height, 1, gray.width)
    if dpi:
        api.SetSourceResolution(int(dpi))
    words: list[tuple[str, float, tuple[int, int, int, int]]] = []
    rules: list[tuple[int, int, int, int]] = []
    found_lines: list[OcrLine] = []
    try:
        text = api.GetUTF8Text()
        # On a page without text the iterator is None and tesserocr reports no words.
        if text.strip():
            for block in iterate_level(api.GetIterator(), RIL.BLOCK):
                if block.BlockType() in (PT.HORZ_LINE, PT.VERT_LINE):
                    rules.append(block.BoundingBox(RIL.BLOCK))
            for word in iterate_level(api.GetIterator(), RIL.WORD):
                found = word.GetUTF8Text(RIL.WORD)
                box = word.BoundingBox(RIL.WORD)
                if found and found.strip() and box:
                    words.append((found, word.Confidence(RIL.WORD), box))
            if lines:
                for line in iterate_level(api.GetIterator(), RIL.TEXTLINE):
                    found, box = line.GetUTF8Text(RIL.TEXTLINE), line.BoundingBox(RIL.TEXTLINE)
                    if found and found.strip() and box:
                        found_lines.append(OcrLine(found.strip(), box))
    except RuntimeError as e:
        # Tesseract reports a failed allocation of its page image this way ("No image set?").
        raise OcrFailed(f"tesseract could not read a {gray.width}×{gray.height} page "
                        f"(out of memory?): {e}") from None
    finally:
        api.Clear()
    # Tesseract puts a blank line wherever it guesses a new block; on a law page the guess is
    # mostly wrong (every wrapped article line), and the printed lines are what readers cite.
    text = fix_section_signs(_BLANK_LINES.sub("\n", text))
    confidence = word_confidence([(w, c) for w, c, _ in words])
    coverage = ink_coverage(gray, [box for *_, box in words], rules, dpi) if words else None
    if confidence is not None and coverage is not None:
        confidence = round(confidence * min(1.0, coverage / FULL_COVERAGE), 4)
    return OcrText(text, confidence, len(words), coverage, tuple(found_lines))


def recognize_line(image: Image.Image, dpi: int | None = None) -> OcrText:
    """OCR an image that holds one line of print, segmented as one line (tesseract's page
    segmentation mode 7) instead of laid out as a page.

    On a faded heading the page layout analysis sees broken glyphs as specks and joins what
    is left differently at each resolution; told that the strip is one line, tesseract reads
    every glyph of it (Gurupá's Lei 1.168: '1.165' as a page at 200, 300 and 400 dpi, '1.168'
    as a line at 200).
    """
    from tesserocr import PSM

    gray = image if image.mode == "L" else image.convert("L")
    api = _api()
    layout = api.GetPageSegMode()  # the page reading's, put back after
    api.SetPageSegMode(PSM.SINGLE_LINE)
    try:
        api.SetImageBytes(gray.tobytes(), gray.width, gray.height, 1, gray.width)
        if dpi:
            api.SetSourceResolution(int(dpi))
        text = api.GetUTF8Text()
        confidence = api.MeanTextConf()
    except RuntimeError as e:
        raise OcrFailed(f"tesseract could not read a {gray.width}×{gray.height} line: {e}"
                        ) from None
    finally:
        api.Clear()
        api.SetPageSegMode(layout)
    text = text.strip()
    return OcrText(text, round(confidence / 100, 4) if text else None, len(text.split()))


def coverage_note(found: OcrText) -> str:
    """'58% of the ink read' for a page whose unread ink lowered its confidence, else ''."""
    if found.coverage is None or found.coverage >= FULL_COVERAGE:
        return ""
    return f"{found.coverage:.0%} of the ink read"


def ink_coverage(gray: Image.Image, words: list[tuple[int, int, int, int]],
                 rules: list[tuple[int, int, int, int]], dpi: int | None) -> float | None:
    """Share of the page's inked area inside recognized words; rules of tables left out.

    Mean word confidence only speaks of the words tesseract found: a page that lost two
    table rows and a whole article scored 0.85. What it did not read still left ink.
    """
    cell = max(2, round((dpi or 300) / _CELLS_PER_INCH))
    paper, dark = _levels(gray.histogram())
    if paper - dark < 32:
        return None  # a blank or uniform page: no print to speak of
    threshold = paper - _INK_CONTRAST * (paper - dark)
    size = (max(1, gray.width // cell), max(1, gray.height // cell))
    ink = gray.point(lambda v: 255 if v < threshold else 0).resize(size, Image.Resampling.BOX)
    ink = ink.point(lambda v: 255 if v >= 255 * _INK_CELL_SHARE else 0)
    read = Image.new("L", size, 0)
    ruled = Image.new("L", size, 255)
    draw_read, draw_ruled = ImageDraw.Draw(read), ImageDraw.Draw(ruled)
    for left, top, right, bottom in words:
        draw_read.rectangle((left // cell, top // cell, right // cell, bottom // cell), fill=255)
    for left, top, right, bottom in rules:  # a cell's margin around a rule: its blur
        draw_ruled.rectangle((left // cell - 1, top // cell - 1, right // cell + 1,
                              bottom // cell + 1), fill=0)
    ink = ImageChops.multiply(ink, ruled)
    total = ink.histogram()[255]
    if not total:
        return None
    return round(ImageChops.multiply(ink, read).histogram()[255] / total, 4)


def _levels(histogram: list[int]) -> tuple[int, int]:
    """The paper's gray (the median: most of a page is paper) and the print's (1st percentile)."""
    total = sum(histogram)
    paper = dark = None
    seen = 0
    for level, count in enumerate(histogram):
        seen += count
        if dark is None and seen >= total * 0.01:
            dark = level
        if seen >= total * 0.5:
            paper = level
            break
    return paper or 0, dark or 0


def fix_section_signs(text: str) -> str:
    """'$ 1º', '8 1º', '82º.' at the start of a line -> '§ 1º', '§ 2º.'.

    Tesseract's Portuguese model reads the section sign of a law as '$' or '8' (seed 000 has
    both); at the start of a line and before an ordinal it can be nothing else.
    """
    text = _SECTION_SIGN.sub(r"§ \1", text)
    return _SECTION_EIGHT.sub(r"§ \1", text)


def word_confidence(words: list[tuple[str, float]]) -> float | None:
    """Mean word confidence weighted by word length, 0..1.

    Tesseract's mean word confidence / 100 tracks the share of correct words closely
    (docs/extraction.md); weighting by length makes a lost long word count more than a
    misread '|' speck.
    """
    total = weighted = 0.0
    for word, conf in words:
        size = len(word.strip())
        if size and conf >= 0:
            total += size
            weighted += size * min(conf, 100.0)
    return round(weighted / total / 100, 4) if total else None
