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

from PIL import Image  # noqa: E402

BACKEND = "tesseract"
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


@dataclass(frozen=True)
class OcrText:
    text: str  # as tesseract writes it: lines, blank lines between blocks
    confidence: float | None  # 0..1: word confidences weighted by word length
    words: int


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


def recognize(image: Image.Image, dpi: int | None = None) -> OcrText:
    """OCR one page image. The image is handed over as raw pixels: no PNG, no temp file."""
    gray = image if image.mode == "L" else image.convert("L")
    api = _api()
    api.SetImageBytes(gray.tobytes(), gray.width, gray.height, 1, gray.width)
    if dpi:
        api.SetSourceResolution(int(dpi))
    try:
        text = api.GetUTF8Text()
        # On a page without text tesserocr prints an error instead of returning no words.
        words = api.MapWordConfidences() if text.strip() else []
    except RuntimeError as e:
        # Tesseract reports a failed allocation of its page image this way ("No image set?").
        raise OcrFailed(f"tesseract could not read a {gray.width}×{gray.height} page "
                        f"(out of memory?): {e}") from None
    finally:
        api.Clear()
    # Tesseract puts a blank line wherever it guesses a new block; on a law page the guess is
    # mostly wrong (every wrapped article line), and the printed lines are what readers cite.
    text = fix_section_signs(_BLANK_LINES.sub("\n", text))
    return OcrText(text, word_confidence(words), len(words))


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
