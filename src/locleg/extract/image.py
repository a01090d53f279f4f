"""Scanned images (TIFF with its pages, PNG, JPEG, GIF, BMP, WebP) read by OCR.

The pixel count is read from the header and checked before any pixel is decoded, so a
30,000 × 30,000 image costs nothing but its refusal.
"""

from __future__ import annotations

import io
import re
import warnings

from PIL import Image, ImageOps, UnidentifiedImageError

from . import ocr
from .limits import DEFAULT_LIMITS, Limits
from .normalize import normalize_text
from .result import ExtractionResult, PageText, failed, plural, weighted_confidence

# Resolutions an image header may claim that we believe; outside them tesseract estimates.
_SANE_DPI = (50, 1200)

# Errors a damaged image file raises in Pillow's decoders.
IMAGE_ERRORS = (UnidentifiedImageError, OSError, SyntaxError, ValueError, EOFError,
                Image.DecompressionBombError)


def _dpi(image: Image.Image) -> float | None:
    value = image.info.get("dpi")
    if not value:
        return None
    try:
        dpi = float(value[0])
    except (TypeError, ValueError, IndexError):
        return None
    return dpi if _SANE_DPI[0] <= dpi <= _SANE_DPI[1] else None


def _grayscale(frame: Image.Image) -> Image.Image:
    """Pixels as tesseract reads them best here: 8-bit gray, transparency on white."""
    frame = ImageOps.exif_transpose(frame)  # phone photos are stored sideways
    if frame.mode in ("RGBA", "LA", "PA") or (frame.mode == "P" and "transparency" in frame.info):
        rgba = frame.convert("RGBA")
        background = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        frame = Image.alpha_composite(background, rgba)
    return frame.convert("L")


def _read_frame(frame: Image.Image, number: int, limits: Limits) -> PageText:
    dpi = _dpi(frame)
    # Like a PDF scan: at 300 dpi, whatever the scanner's resolution (ocr.OCR_DPI).
    gray, read_at = ocr.at_ocr_resolution(_grayscale(frame), dpi, limits.pixels)
    found = ocr.recognize(gray, read_at)
    text = normalize_text(found.text)
    chars = len(text)
    notes = []
    if dpi and read_at != round(dpi):
        notes.append(f"scan of {round(dpi)} dpi read at {read_at}")
    if ocr.coverage_note(found):
        notes.append(ocr.coverage_note(found))
    return PageText(number, text, "ocr", found.confidence if chars else None, chars,
                    ocr.BACKEND, read_at, "; ".join(notes) or None)


def extract_image(data: bytes, media_type: str, limits: Limits = DEFAULT_LIMITS
                  ) -> ExtractionResult:
    """OCR of every frame of an image file (a multi-page TIFF is one page per frame)."""
    with warnings.catch_warnings():
        # Our own pixel limit decides; Pillow's bomb warning would only be noise.
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        try:
            image = Image.open(io.BytesIO(data))  # reads the header only
        except Image.DecompressionBombError as e:
            # Pillow's own guard (twice its default limit) speaks before ours can.
            found = re.search(r"\((\d+) pixels\)", str(e))
            size = f"{int(found.group(1)):,} pixels" if found else "too many pixels"
            return failed(f"image too large ({size}; limit {limits.pixels / 1e6:,.0f} Mpx)")
        except IMAGE_ERRORS as e:
            return failed(f"cannot read {media_type}: {type(e).__name__}: {e}")
        with image:
            frames = getattr(image, "n_frames", 1)
            if frames > limits.pages:
                return failed(f"too many pages ({frames:,} frames; limit {limits.pages:,})")
            pages = []
            for index in range(frames):
                try:
                    image.seek(index)
                    width, height = image.size
                    if width * height > limits.pixels:
                        return failed(
                            f"image too large ({width:,}×{height:,} pixels; limit "
                            f"{limits.pixels / 1e6:,.0f} Mpx)"
                        )
                    image.load()
                    pages.append(_read_frame(image, index + 1, limits))
                except IMAGE_ERRORS as e:
                    if not pages:
                        return failed(f"cannot read {media_type}: {type(e).__name__}: {e}")
                    break  # a truncated multi-page TIFF: keep the frames that were read
    result = ExtractionResult("extracted", "ocr", ocr.BACKEND, ocr.backend_version(),
                              weighted_confidence(pages), pages)
    dpis = sorted({p.dpi for p in pages if p.dpi})
    result.detail = f"OCR of {media_type}, {plural(len(pages), 'page')}" + (
        f" at {'/'.join(map(str, dpis))} dpi" if dpis else "")
    if frames > len(pages):
        result.detail += f"; frames {len(pages) + 1}-{frames} unreadable"
    if not result.chars:
        result.status, result.confidence = "empty", None
        result.detail = f"no text on {plural(len(pages), 'page')} (OCR of {media_type})"
    return result
