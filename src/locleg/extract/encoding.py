"""Decode a text or HTML document: BOM, valid UTF-8, declared charset, then detection."""

from __future__ import annotations

import codecs
import re

from charset_normalizer import from_bytes

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
# Left alone, charset-normalizer reads short Portuguese cp1252 text as cp1250 ("1º" -> "1ş"):
# Brazilian documents that are not UTF-8 come from these code pages.
_CANDIDATES = ["cp1252", "cp850", "mac_roman", "iso8859_15", "latin_1"]
# WHATWG: a page that declares latin-1 or ASCII is decoded as windows-1252.
_ALIASES = {"iso-8859-1": "cp1252", "latin1": "cp1252", "latin-1": "cp1252", "ascii": "cp1252",
            "us-ascii": "cp1252", "iso8859-1": "cp1252", "l1": "cp1252"}


_UTF8_MULTIBYTE = re.compile(
    rb"[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}"
)


def _mostly_utf8(data: bytes) -> bool:
    valid = len(_UTF8_MULTIBYTE.findall(data))
    broken = data.decode("utf-8", errors="replace").count("\ufffd") - data.count(b"\xef\xbf\xbd")
    return valid >= 3 * broken


def decode_text(data: bytes, declared: str | None = None) -> tuple[str, str]:
    """Text and the encoding used. UTF-8 wins when valid: portals often declare latin-1 wrongly."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return data[len(bom):].decode(encoding, errors="replace"), encoding
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    if _mostly_utf8(data):
        # A UTF-8 file with a few broken bytes (a bad copy, a cp1252 paste): replacing those
        # keeps the rest right, where cp1252 would garble every accent.
        return data.decode("utf-8", errors="replace"), "utf-8"
    if declared:
        name = _ALIASES.get(declared.strip().lower(), declared.strip().lower())
        try:
            codecs.lookup(name)
            return data.decode(name), name
        except (LookupError, UnicodeDecodeError):
            pass  # unknown or wrong declaration: detect instead
    best = from_bytes(data, cp_isolation=_CANDIDATES).best()
    encoding = best.encoding if best is not None else "cp1252"
    if encoding == "latin_1":
        try:
            return data.decode("cp1252"), "cp1252"  # same letters, plus “ ” — €
        except UnicodeDecodeError:
            pass
    return data.decode(encoding, errors="replace"), encoding
