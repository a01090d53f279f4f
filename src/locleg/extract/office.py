"""Word processor files: DOCX and ODT (their XML, read with lxml), RTF (striprtf), DOC (antiword).

DOCX and ODT are ZIP archives of XML: reading the one XML part that holds the text, with a
size cap, costs less and is safer than loading the whole package with python-docx or odfpy
(python-docx also skips text in content controls and text boxes). Page boundaries come from
the page breaks the word processor recorded when it last laid the document out.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from functools import cache
from importlib.metadata import version as package_version

from lxml import etree
from striprtf.striprtf import rtf_to_text

from .archive import ArchiveError, open_zip, read_member
from .html import BACKEND_VERSION as LXML_VERSION
from .lexicon import assess
from .limits import DEFAULT_LIMITS, Limits
from .normalize import normalize_text
from .result import PAGE_BREAK, ExtractionResult, PageText, failed, weighted_confidence

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
_TABLE = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
_OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
_DRAW = "{urn:oasis:names:tc:opendocument:xmlns:drawing:1.0}"
# No DTDs, no entities, no network: an office file is untrusted input.
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                          huge_tree=True, remove_comments=True, remove_pis=True)
_ANTIWORD = "antiword"
_ANTIWORD_TIMEOUT = 120  # s; the runner's own limit applies too
# antiword draws a table row as |cell   |cell   |: one line, cells apart by a space.
_ANTIWORD_ROW = re.compile(r"^\|(.*)\|[ \t]*$", re.MULTILINE)


class OfficeError(Exception):
    """An office file that cannot be read: the message is the record's error line."""


def _xml(data: bytes, part: str) -> etree._Element:
    try:
        return etree.fromstring(data, _PARSER)
    except etree.XMLSyntaxError as e:
        reason = str(e.msg or e).split(", line ")[0]
        raise OfficeError(f"{part} is not well-formed XML: {reason} (line {e.lineno})") from None


def _pages(raw_pages: list[str], method: str, backend: str) -> list[PageText]:
    pages = []
    for number, raw in enumerate(raw_pages, 1):
        text = normalize_text(raw)
        quality = assess(raw, text)
        pages.append(PageText(number, text, method, quality.confidence if text else None,
                              len(text), backend))
    return pages


def _result(raw_pages: list[str], method: str, backend: str, backend_version: str,
            detail: str | None = None) -> ExtractionResult:
    # Trailing empty pages (a final page break) say nothing; a blank page inside stays.
    while len(raw_pages) > 1 and not raw_pages[-1].strip():
        raw_pages.pop()
    pages = _pages(raw_pages, method, backend)
    result = ExtractionResult("extracted", method, backend, backend_version,
                              weighted_confidence(pages), pages, detail=detail)
    if not result.chars:
        result.status, result.confidence = "empty", None
        result.detail = f"no text in the {method.upper()} file"
    return result


# --- DOCX -------------------------------------------------------------------------------------


def _docx_text(root: etree._Element) -> list[str]:
    """Pages of text of a WordprocessingML part: paragraphs as lines, table rows as lines."""
    pages: list[list[str]] = [[]]
    stack: list[list[str]] = []  # paragraphs being read (a text box nests one in another)
    cell_depth = 0
    row: list[str] = []
    skip = 0  # inside deleted text, field instructions or alternate content fallbacks
    for event, el in etree.iterwalk(root, events=("start", "end")):
        tag = el.tag
        if not isinstance(tag, str):
            continue
        if tag in (f"{_W}del", f"{_W}instrText", f"{_W}delText",
                   "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"):
            skip += 1 if event == "start" else -1
            continue
        if skip:
            continue
        if event == "start":
            if tag == f"{_W}p":
                stack.append([])
            elif tag == f"{_W}t" and stack:
                stack[-1].append(el.text or "")
            elif tag == f"{_W}tab" and stack:
                stack[-1].append("\t")
            elif tag in (f"{_W}br", f"{_W}cr") and stack:
                if el.get(f"{_W}type") == "page":
                    _flush(stack, pages, row, cell_depth)
                    pages.append([])
                else:
                    stack[-1].append("\n")
            elif tag == f"{_W}lastRenderedPageBreak" and stack:
                _flush(stack, pages, row, cell_depth)
                pages.append([])
            elif tag == f"{_W}noBreakHyphen" and stack:
                stack[-1].append("-")
            elif tag == f"{_W}softHyphen" and stack:
                stack[-1].append("\u00ad")
            elif tag == f"{_W}sym" and stack:
                stack[-1].append(_symbol(el.get(f"{_W}char")))
            elif tag == f"{_W}tc":
                cell_depth += 1
                row.append("")
            continue
        if tag == f"{_W}p" and stack:
            text = "".join(stack.pop())
            if cell_depth and row:
                row[-1] = f"{row[-1]} {text}".strip()
            else:
                pages[-1].append(text)
        elif tag == f"{_W}tc":
            cell_depth -= 1
        elif tag == f"{_W}tr" and not cell_depth:
            pages[-1].append(" ".join(c for c in row if c))
            row.clear()
    return ["\n".join(lines) for lines in pages]


def _flush(stack: list[list[str]], pages: list[list[str]], row: list[str], cell_depth: int
           ) -> None:
    """At a page break, the text read so far of the open paragraph belongs to the page before."""
    if stack and not cell_depth:
        pages[-1].append("".join(stack[-1]))
        stack[-1].clear()


def _symbol(code: str | None) -> str:
    try:
        value = int(code or "", 16)
    except ValueError:
        return ""
    # Symbol fonts put their glyphs at F0xx; the character is the low byte in most of them.
    return chr(value - 0xF000) if 0xF020 <= value <= 0xF0FF else chr(value)


def extract_docx(data: bytes, limits: Limits = DEFAULT_LIMITS) -> ExtractionResult:
    try:
        with open_zip(data, limits) as archive:
            body = read_member(archive, "word/document.xml", limits)
            notes = [read_member(archive, part, limits)
                     for part in ("word/footnotes.xml", "word/endnotes.xml")
                     if part in archive.NameToInfo]
    except KeyError:
        return failed("not a DOCX: no word/document.xml in the archive")
    except ArchiveError as e:
        return failed(f"cannot read DOCX: {e}")
    try:
        pages = _docx_text(_xml(body, "word/document.xml"))
        for part in notes:
            extra = "\n".join(_docx_text(_xml(part, "notes")))
            if extra.strip():
                pages[-1] += "\n" + extra
    except OfficeError as e:
        return failed(f"cannot read DOCX: {e}")
    return _result(pages, "docx", "lxml", LXML_VERSION)


# --- ODT --------------------------------------------------------------------------------------


def _odt_text(root: etree._Element) -> list[str]:
    pages: list[list[str]] = [[]]
    notes: list[str] = []

    def inline(el: etree._Element, out: list[str]) -> None:
        """Text of a paragraph with its spans, spaces, tabs and line breaks; notes set aside."""
        if el.text:
            out.append(el.text)
        for child in el:
            tag = child.tag if isinstance(child.tag, str) else ""
            if tag == f"{_TEXT}s":
                out.append(" " * int(child.get(f"{_TEXT}c", "1") or 1))
            elif tag == f"{_TEXT}tab":
                out.append("\t")
            elif tag == f"{_TEXT}line-break":
                out.append("\n")
            elif tag == f"{_TEXT}soft-page-break":
                out.append(PAGE_BREAK)
            elif tag == f"{_TEXT}note":
                body = child.find(f"{_TEXT}note-body")
                if body is not None:
                    notes.append(" ".join(_block_lines(body)))
            elif tag in (f"{_OFFICE}annotation", f"{_TEXT}bookmark-ref") or tag.startswith(
                    _DRAW):
                pass  # comments, and frames that repeat or hold no law text
            else:
                inline(child, out)
            if child.tail:
                out.append(child.tail)

    def _block_lines(el: etree._Element) -> list[str]:
        lines: list[str] = []
        for child in el:
            tag = child.tag if isinstance(child.tag, str) else ""
            if tag in (f"{_TEXT}p", f"{_TEXT}h"):
                out: list[str] = []
                inline(child, out)
                lines.append("".join(out))
            elif tag == f"{_TEXT}soft-page-break":
                lines.append(PAGE_BREAK)
            elif tag == f"{_TABLE}table-row":
                cells = [" ".join(_block_lines(c)).strip() for c in child
                         if c.tag == f"{_TABLE}table-cell"]
                lines.append(" ".join(c for c in cells if c))
            elif tag in (f"{_OFFICE}annotation", f"{_TEXT}tracked-changes"):
                continue
            else:
                lines.extend(_block_lines(child))  # lists, sections, tables, headers
        return lines

    body = root.find(f"{_OFFICE}body/{_OFFICE}text")
    if body is None:
        raise OfficeError("content.xml has no office:text body")
    for line in _block_lines(body):
        for i, part in enumerate(line.split(PAGE_BREAK)):
            if i:
                pages.append([])
            if part or not i:
                pages[-1].append(part)
    if notes:
        pages[-1].extend(notes)
    return ["\n".join(lines) for lines in pages]


def extract_odt(data: bytes, limits: Limits = DEFAULT_LIMITS) -> ExtractionResult:
    try:
        with open_zip(data, limits) as archive:
            content = read_member(archive, "content.xml", limits)
    except KeyError:
        return failed("not an ODT: no content.xml in the archive")
    except ArchiveError as e:
        return failed(f"cannot read ODT: {e}")
    try:
        pages = _odt_text(_xml(content, "content.xml"))
    except OfficeError as e:
        return failed(f"cannot read ODT: {e}")
    return _result(pages, "odt", "lxml", LXML_VERSION)


# --- RTF --------------------------------------------------------------------------------------

# A page break becomes U+000C in striprtf's output, so pages survive the conversion.
_RTF_PAGE = re.compile(rb"\\page(?![a-zA-Z])(?:-?\d+)? ?")


def extract_rtf(data: bytes) -> ExtractionResult:
    # RTF is 7-bit: anything else is escaped (\'e7, \u231), and latin-1 maps bytes 1:1.
    source = _RTF_PAGE.sub(rb"\\u12 ?", data).decode("latin-1")
    try:
        raw = rtf_to_text(source, encoding="cp1252", errors="replace")
    except (ValueError, IndexError, LookupError, RecursionError) as e:
        return failed(f"cannot read RTF: {type(e).__name__}: {e}")
    pages = [p.replace("|", " ") for p in raw.split(PAGE_BREAK)]  # table cells
    return _result(pages, "rtf", "striprtf", package_version("striprtf"))


# --- DOC --------------------------------------------------------------------------------------


@cache
def antiword_version() -> str | None:
    path = shutil.which(_ANTIWORD)
    if path is None:
        return None
    # antiword prints its version in its usage text, on stderr, and exits non-zero.
    usage = subprocess.run([path], capture_output=True, text=True, errors="replace").stderr
    found = re.search(r"Version:\s*([\w.]+)", usage)
    return found.group(1) if found else "unknown"


def extract_doc(data: bytes) -> ExtractionResult:
    """Legacy Word (97-2003) through Debian's antiword: milliseconds a file, no office suite."""
    version = antiword_version()
    if version is None:
        return failed("cannot read DOC: antiword is not installed (Debian package antiword)")
    with tempfile.NamedTemporaryFile(suffix=".doc") as tmp:
        tmp.write(data)
        tmp.flush()
        env = {**os.environ, "LC_ALL": "C.UTF-8"}
        try:
            done = subprocess.run(
                [_ANTIWORD, "-m", "UTF-8.txt", "-w", "0", "-i", "1", tmp.name],
                capture_output=True, timeout=_ANTIWORD_TIMEOUT, env=env,
            )
        except subprocess.TimeoutExpired:
            return failed(f"cannot read DOC: antiword took more than {_ANTIWORD_TIMEOUT} s")
    if done.returncode != 0:
        why = done.stderr.decode("utf-8", "replace").strip().splitlines()
        reason = why[-1] if why else f"antiword exited with {done.returncode}"
        return failed(f"cannot read DOC: {reason.removeprefix(tmp.name + ' ')}")
    text = done.stdout.decode("utf-8", "replace")
    # antiword marks a picture it cannot show; it is no text of the law.
    text = text.replace("[pic]", "")
    text = _ANTIWORD_ROW.sub(lambda m: " ".join(c.strip() for c in m[1].split("|")), text)
    return _result(text.split(PAGE_BREAK), "doc", "antiword", version)
