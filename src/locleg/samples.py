"""Demo and test documents built by code: born-digital and scanned PDFs, portal pages, a demo set.

Everything here is deterministic (same arguments, same bytes) and small, so tests and the
demo corpus need no files from outside the package.
"""

from __future__ import annotations

import csv
import html
import io
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

from PIL import Image, ImageChops, ImageDraw, ImageFilter, ImageFont
from reportlab.lib.pagesizes import A4
from reportlab.lib.utils import ImageReader, simpleSplit
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen import canvas

_FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")
_MARGIN = 72.0  # points
_SIZE = 11.0
_LEADING = 15.0
JUAZEIRO = 2918407  # IBGE code
ESPIRITO_SANTO = 32  # IBGE code of the state

# A text page: lines (or paragraphs to wrap), optionally a title. A scanned page: a PIL image.
Page = list[str] | Image.Image


@cache
def _fonts() -> tuple[str, str]:
    """Regular and bold font names for reportlab: DejaVu if Debian has it, else Helvetica."""
    regular, bold = _FONT_DIR / "DejaVuSans.ttf", _FONT_DIR / "DejaVuSans-Bold.ttf"
    if regular.exists() and bold.exists():
        pdfmetrics.registerFont(TTFont("DejaVuSans", str(regular)))
        pdfmetrics.registerFont(TTFont("DejaVuSans-Bold", str(bold)))
        return "DejaVuSans", "DejaVuSans-Bold"
    return "Helvetica", "Helvetica-Bold"


def _canvas(buffer: io.BytesIO, title: str) -> canvas.Canvas:
    # invariant: no timestamps or random ids, so the same input gives the same bytes.
    c = canvas.Canvas(buffer, pagesize=A4, invariant=1)
    c.setTitle(title)
    c.setCreator("br-locleg samples")
    return c


def _draw_lines(c: canvas.Canvas, lines: Sequence[str], title: str | None = None) -> None:
    regular, bold = _fonts()
    width, height = A4
    y = height - _MARGIN
    if title:
        c.setFont(bold, _SIZE + 1)
        c.drawCentredString(width / 2, y, title)
        y -= 2 * _LEADING
    c.setFont(regular, _SIZE)
    for line in lines:
        c.drawString(_MARGIN, y, line)
        y -= _LEADING


def _draw_image(c: canvas.Canvas, image: Image.Image) -> None:
    width, height = A4
    c.drawImage(ImageReader(image), 0, 0, width, height)


def _layout(title: str, paragraphs: Sequence[str]) -> list[list[str]]:
    """Wrap paragraphs to the text width and cut them into pages of lines."""
    regular, _ = _fonts()
    width, height = A4
    per_page = int((height - 2 * _MARGIN) // _LEADING)
    first_page = per_page - 2  # the title takes two lines
    lines: list[str] = []
    for paragraph in paragraphs:
        lines += simpleSplit(paragraph, regular, _SIZE, width - 2 * _MARGIN) or [""]
        lines.append("")
    pages = [lines[:first_page]]
    rest = lines[first_page:]
    while rest:
        pages.append(rest[:per_page])
        rest = rest[per_page:]
    return pages


def _pdf(title: str, pages: Sequence[Page], first_title: str | None = None) -> bytes:
    buffer = io.BytesIO()
    c = _canvas(buffer, title)
    for index, page in enumerate(pages):
        if isinstance(page, Image.Image):
            _draw_image(c, page)
        else:
            _draw_lines(c, page, first_title if index == 0 else None)
        c.showPage()
    c.save()
    return buffer.getvalue()


def born_digital_pdf(title: str, paragraphs: Sequence[str]) -> bytes:
    """A PDF with a text layer, as a word processor makes it; several pages when long."""
    return _pdf(title, _layout(title, paragraphs), first_title=title)


def text_pdf(lines_per_page: Sequence[Sequence[str]], title: str = "") -> bytes:
    """A PDF with a text layer drawn exactly line by line (for line-end hyphens, garbage text)."""
    return _pdf(title, [list(lines) for lines in lines_per_page])


@cache
def _scan_font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    path = _FONT_DIR / ("DejaVuSerif-Bold.ttf" if bold else "DejaVuSerif.ttf")
    if path.exists():
        return ImageFont.truetype(str(path), size)
    return ImageFont.load_default(size)


def scanned_page(lines: Sequence[str], dpi: int = 200, seed: int = 0, blur: float = 0.6,
                 rotate: float = 0.0) -> Image.Image:
    """One A4 page of typed text as a scanner sees it: grayscale, slightly soft, a few specks.

    blur is the Gaussian radius in pixels; rotate turns the sheet by degrees (a crooked feed).
    """
    width, height = round(8.27 * dpi), round(11.69 * dpi)
    image = Image.new("L", (width, height), 248)
    draw = ImageDraw.Draw(image)
    font = _scan_font(round(_SIZE * dpi / 72))
    margin = round(dpi * _MARGIN / 72)
    step = round(_LEADING * dpi / 72)
    y = margin
    for line in scanned_lines(lines, dpi):  # what fits on the sheet
        draw.text((margin, y), line, font=font, fill=25)
        y += step
    rng = random.Random(seed)
    for _ in range(width * height // 6000):
        x, y = rng.randrange(width), rng.randrange(height)
        draw.point((x, y), fill=rng.randrange(60, 200))
    if rotate:
        image = image.rotate(rotate, resample=Image.Resampling.BICUBIC, fillcolor=248)
    return image.filter(ImageFilter.GaussianBlur(blur)) if blur else image


def scanned_lines(lines: Sequence[str], dpi: int = 200) -> list[str]:
    """The lines as scanned_page prints them, wrapped to the page and cut where the sheet
    ends: the ground truth of OCR."""
    width, height = round(8.27 * dpi), round(11.69 * dpi)
    margin = round(dpi * _MARGIN / 72)
    step = round(_LEADING * dpi / 72)
    size = round(_SIZE * dpi / 72)
    wrapped = _wrap(lines, _scan_font(size), width - 2 * margin)
    fitting = max(0, (height - margin - size) // step + 1)
    return wrapped[:fitting]


def _wrap(lines: Sequence[str], font: ImageFont.FreeTypeFont | ImageFont.ImageFont,
          width: int) -> list[str]:
    out: list[str] = []
    for line in lines:
        words, current = line.split(" "), ""
        for word in words:
            candidate = f"{current} {word}" if current else word
            if current and font.getlength(candidate) > width:
                out.append(current)
                current = word
            else:
                current = candidate
        out.append(current)
    return out


def image_pdf(images: Sequence[Image.Image], title: str = "scan") -> bytes:
    """A PDF of page images, one per page, each filling an A4 page (the same image repeated is
    stored once: a long scan in a small file)."""
    return _pdf(title, list(images))


def scanned_pdf(lines_per_page: Sequence[Sequence[str]], dpi: int = 200) -> bytes:
    """An image-only PDF, one scanned page per list of lines: no text layer at all."""
    pages = [scanned_page(lines, dpi, seed=i) for i, lines in enumerate(lines_per_page)]
    return _pdf("scan", pages)


def mixed_pdf(title: str, paragraphs: Sequence[str], scanned_pages: Sequence[Sequence[str]],
              dpi: int = 200) -> bytes:
    """A born-digital document with scanned pages appended (an annex signed on paper)."""
    pages: list[Page] = list(_layout(title, paragraphs))
    start = len(pages)
    pages += [scanned_page(lines, dpi, seed=start + i) for i, lines in enumerate(scanned_pages)]
    return _pdf(title, pages, first_title=title)


# A law as a municipal scanner delivers it (seen on a real SAPL): 200 dpi grayscale JPEG, print
# faded and dotted where the toner ran low, a table, a protocol stamp across the text.
MUNICIPAL_HEADING = "LEI MUNICIPAL Nº 1.167, DE 02 DE ABRIL DE 2014"
_MUNICIPAL_BODY = [
    "Dispõe sobre a criação de cargos de provimento efetivo no quadro da Secretaria "
    "Municipal de Saúde e dá outras providências.",
    "O PREFEITO MUNICIPAL DE JUAZEIRO, Estado da Bahia, faço saber que a Câmara Municipal "
    "aprovou e eu sanciono a seguinte Lei:",
    "Art. 1º Ficam criados, no quadro de pessoal da Secretaria Municipal de Saúde, os cargos "
    "de provimento efetivo constantes da tabela abaixo, com as vagas e o vencimento nela "
    "fixados:",
]
_MUNICIPAL_TABLE = [
    ["Cargo", "Vagas", "Carga horária", "Vencimento (R$)"],
    ["Agente Comunitário de Saúde", "40", "40 h", "1.014,00"],
    ["Técnico de Enfermagem", "12", "40 h", "1.350,00"],
    ["Enfermeiro", "8", "30 h", "2.800,00"],
    ["Farmacêutico", "2", "30 h", "2.800,00"],
    ["Odontólogo", "4", "20 h", "3.200,00"],
]
_MUNICIPAL_END = [
    "Art. 2º O provimento dos cargos dependerá de aprovação prévia em concurso público de "
    "provas ou de provas e títulos, na forma da Lei Orgânica do Município.",
    "Art. 3º As despesas decorrentes desta Lei correrão por conta das dotações próprias do "
    "Fundo Municipal de Saúde, suplementadas se necessário.",
    "Art. 4º Esta Lei entra em vigor na data de sua publicação, revogadas as disposições em "
    "contrário.",
    "Gabinete do Prefeito Municipal de Juazeiro, 02 de abril de 2014.",
]
_TABLE_COLUMNS = (0.0, 0.42, 0.52, 0.72)  # left edges of the cells, share of the text width


@dataclass(frozen=True)
class MunicipalScan:
    """A scanned page and what was printed on it, line by line (the truth of OCR)."""

    image: Image.Image
    lines: list[str]  # as printed, table rows as their cells apart by spaces
    damaged: list[str]  # the printed lines a damaged page lost (blotted or faded away)


def municipal_scan(dpi: int = 200, seed: int = 0, ink: int = 70, dropout: float = 0.12,
                   blur: float = 0.6, stamp: bool = True, damage: bool = False
                   ) -> MunicipalScan:
    """One page of a law as real municipal scans look: see the comment above.

    ink is the gray of the print (0 black; 70-110 is faded); dropout the share of its dots
    lost (dotted print); blur the scanner's softness in pixels at 200 dpi. damage blots out
    Art. 2 and fades two table rows away, as on a page whose OCR lost them.
    """
    rng = random.Random(seed)
    width, height = round(8.27 * dpi), round(11.69 * dpi)
    scale = dpi / 72
    text_mask = Image.new("L", (width, height), 0)  # where the print is, 255
    faint_mask = Image.new("L", (width, height), 0)  # print faded nearly away
    draw = ImageDraw.Draw(text_mask)
    faint = ImageDraw.Draw(faint_mask)
    font = _scan_font(round(_SIZE * scale))
    bold = _scan_font(round((_SIZE + 1) * scale), bold=True)
    margin = round(_MARGIN * scale)
    step = round(_LEADING * scale)
    text_width = width - 2 * margin
    lines: list[str] = []
    lost: list[str] = []
    y = margin
    draw.text(((width - bold.getlength(MUNICIPAL_HEADING)) / 2, y), MUNICIPAL_HEADING,
              font=bold, fill=255)
    lines.append(MUNICIPAL_HEADING)
    y += 2 * step
    for index, paragraph in enumerate(_MUNICIPAL_BODY):
        indent = text_width // 2 if index == 0 else 0  # the ementa stands to the right
        for line in _wrap([paragraph], font, text_width - indent):
            draw.text((margin + indent, y), line, font=font, fill=255)
            lines.append(line)
            y += step
        y += step // 2
    rules = []
    for row_number, row in enumerate(_MUNICIPAL_TABLE):
        gone = damage and row_number in (2, 3)
        target = faint if gone else draw
        rules.append(y - step // 5)
        for share, cell in zip(_TABLE_COLUMNS, row, strict=True):
            target.text((margin + share * text_width + step // 4, y), cell, font=font, fill=255)
        (lost if gone else lines).append(" ".join(row))
        y += round(step * 1.3)
    rules.append(y - step // 5)
    for rule in rules:
        draw.line((margin, rule, width - margin, rule), fill=255, width=max(1, dpi // 100))
    for share in (*_TABLE_COLUMNS, 1.0):
        x = margin + share * text_width
        draw.line((x, rules[0], x, rules[-1]), fill=255, width=max(1, dpi // 100))
    y += step // 2
    blot = None
    for index, paragraph in enumerate(_MUNICIPAL_END):
        top = y
        for line in _wrap([paragraph], font, text_width):
            draw.text((margin, y), line, font=font, fill=255)
            (lost if damage and index == 0 else lines).append(line)
            y += step
        if damage and index == 0:
            blot = (margin - step // 2, top - step // 3, width - margin + step // 2, y)
        y += step // 2
    # Dotted print: a share of the dots never reached the paper.
    dots = Image.frombytes("L", (width, height), rng.randbytes(width * height))
    keep = dots.point(lambda v: 0 if v < 256 * dropout else 255)
    text_mask = ImageChops.multiply(text_mask, keep)
    faint_mask = ImageChops.multiply(faint_mask, dots.point(lambda v: 0 if v < 150 else 255))
    page = Image.new("L", (width, height), 238)  # recycled paper is never white
    page.paste(ink, mask=text_mask)
    page.paste(205, mask=faint_mask)
    if blot:
        # A stain over the article: dark, uneven, the print under it barely apparent.
        stain = Image.new("L", (width, height), 0)
        ImageDraw.Draw(stain).rounded_rectangle(blot, radius=step, fill=255)
        stain = stain.filter(ImageFilter.GaussianBlur(step // 2))
        page.paste(125, mask=stain.point(lambda v: min(255, v * 2) * 0.85))
    if stamp:
        page = ImageChops.darker(page, _protocol_stamp(dpi, width, height, y))
    # Paper grain and the scanner's optics, then the JPEG the scanner wrote.
    grain = dots.point(lambda v: 244 + v % 12)
    page = ImageChops.darker(page, grain).filter(ImageFilter.GaussianBlur(blur * dpi / 200))
    return MunicipalScan(page, lines, lost)


def _protocol_stamp(dpi: int, width: int, height: int, y: int) -> Image.Image:
    """A rectangular PROTOCOLO stamp, turned 8°, in the lower right over the signature."""
    scale = dpi / 72
    stamp = Image.new("L", (round(180 * scale), round(70 * scale)), 255)
    draw = ImageDraw.Draw(stamp)
    draw.rectangle((2, 2, stamp.width - 3, stamp.height - 3), outline=120,
                   width=max(2, dpi // 60))
    big, small = _scan_font(round(16 * scale), bold=True), _scan_font(round(8 * scale))
    for text, font, top in (("PROTOCOLO", big, 0.12), ("CÂMARA MUNICIPAL DE JUAZEIRO", small, 0.5),
                            ("Recebido em 03/04/2014", small, 0.72)):
        draw.text(((stamp.width - font.getlength(text)) / 2, stamp.height * top), text,
                  font=font, fill=120)
    stamp = stamp.rotate(8, expand=True, fillcolor=255, resample=Image.Resampling.BICUBIC)
    layer = Image.new("L", (width, height), 255)
    layer.paste(stamp, (width - stamp.width - round(50 * scale),
                        min(height - stamp.height, y - stamp.height // 2)))
    return layer


def jpeg_pdf(images: Sequence[Image.Image], quality: int = 65) -> bytes:
    """Pages stored as JPEG images in a PDF, as document scanners write them."""
    buffer = io.BytesIO()
    c = _canvas(buffer, "scan")
    for image in images:
        encoded = io.BytesIO()
        image.save(encoded, "JPEG", quality=quality)
        encoded.seek(0)
        c.drawImage(ImageReader(encoded), 0, 0, *A4)  # reportlab keeps the JPEG as it is
        c.showPage()
    c.save()
    return buffer.getvalue()


def scanned_pdf_with_layer(lines: Sequence[str], layer: Sequence[str], dpi: int = 200,
                           seed: int = 0) -> bytes:
    """A scan with an invisible text layer over it, as an earlier OCR left it (good or garbage)."""
    buffer = io.BytesIO()
    c = _canvas(buffer, "scan with OCR layer")
    _draw_image(c, scanned_page(lines, dpi, seed=seed))
    regular, _ = _fonts()
    text = c.beginText(_MARGIN, A4[1] - _MARGIN)
    text.setTextRenderMode(3)  # invisible: what OCR tools put under a scan
    text.setFont(regular, _SIZE)
    text.setLeading(_LEADING)
    for line in layer:
        text.textLine(line)
    c.drawText(text)
    c.showPage()
    c.save()
    return buffer.getvalue()


def pdf_without_character_map(lines_per_page: Sequence[Sequence[str]]) -> bytes:
    """A text PDF whose font lost its ToUnicode map: accents and signs come out as garbage."""
    return text_pdf(lines_per_page).replace(b"/ToUnicode", b"/NoUnicode")


def outlined_text_pdf(lines: Sequence[str], dpi: int = 150) -> bytes:
    """Text drawn as vector shapes (one rectangle per run of ink), with no text object at all.

    Some printers-to-PDF and design tools convert type to outlines: the page reads fine and
    has no text layer.
    """
    width_px = round(8.27 * dpi)
    height_px = round(11.69 * dpi)
    image = Image.new("1", (width_px, height_px), 1)
    draw = ImageDraw.Draw(image)
    font = _scan_font(round(_SIZE * dpi / 72))
    margin = round(dpi * _MARGIN / 72)
    y = margin
    for line in _wrap(lines, font, width_px - 2 * margin):
        draw.text((margin, y), line, font=font, fill=0)
        y += round(_LEADING * dpi / 72)
    buffer = io.BytesIO()
    c = _canvas(buffer, "outlines")
    unit = 72 / dpi
    pixels = image.load()
    for row in range(height_px):
        col = 0
        while col < width_px:
            if pixels[col, row]:
                col += 1
                continue
            start = col
            while col < width_px and not pixels[col, row]:
                col += 1
            c.rect(start * unit, A4[1] - (row + 1) * unit, (col - start) * unit, unit,
                   stroke=0, fill=1)
    c.showPage()
    c.save()
    return buffer.getvalue()


def image_file(pages: Sequence[Image.Image], fmt: str = "PNG", dpi: int | None = 200) -> bytes:
    """Scanned pages saved as an image file: PNG, JPEG, or a multi-page TIFF."""
    buffer = io.BytesIO()
    options: dict = {"dpi": (dpi, dpi)} if dpi else {}
    if fmt.upper() == "JPEG":
        options["quality"] = 85
    if len(pages) > 1:
        options.update(save_all=True, append_images=list(pages[1:]))
    if fmt.upper() == "TIFF":
        options["compression"] = "tiff_deflate"
    pages[0].save(buffer, fmt, **options)
    return buffer.getvalue()


def huge_png(width: int, height: int) -> bytes:
    """A valid white grayscale PNG of any size, built row by row in little memory."""
    import struct
    import zlib

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    compressor = zlib.compressobj(9)
    row = b"\x00" + b"\xff" * ((width + 7) // 8)  # filter byte, then 1-bit pixels
    parts = [compressor.compress(row * min(height, 64))]
    for _ in range(height // 64 - 1 if height >= 64 else 0):
        parts.append(compressor.compress(row * 64))
    parts.append(compressor.compress(row * (height % 64) if height >= 64 else b""))
    parts.append(compressor.flush())
    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", b"".join(parts))
            + chunk(b"IEND", b""))


def many_pages_pdf(count: int) -> bytes:
    """A born-digital PDF of count short pages (one article each): a big budget law, say."""
    return text_pdf(
        [[f"Art. {n}º Fica aprovado o quadro {n} do orçamento anual do Município."]
         for n in range(1, count + 1)]
    )


_W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def _zip_bytes(members: Sequence[tuple[str, bytes | str]], stored_first: bool = False) -> bytes:
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for index, (name, content) in enumerate(members):
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = (zipfile.ZIP_STORED if stored_first and index == 0
                                  else zipfile.ZIP_DEFLATED)
            archive.writestr(info, content)
    return buffer.getvalue()


def docx_document(pages: Sequence[Sequence[str]], table: Sequence[Sequence[str]] = ()) -> bytes:
    """A DOCX as Word saves it: one paragraph per line, a page break between pages, a table."""
    esc = html.escape

    def paragraph(line: str) -> str:
        return f'<w:p><w:r><w:t xml:space="preserve">{esc(line)}</w:t></w:r></w:p>'

    body: list[str] = []
    for index, lines in enumerate(pages):
        if index:
            body.append('<w:p><w:r><w:br w:type="page"/></w:r></w:p>')
        body.extend(paragraph(line) for line in lines)
    if table:
        rows = "".join(
            "<w:tr>" + "".join(f"<w:tc><w:p><w:r><w:t>{esc(cell)}</w:t></w:r></w:p></w:tc>"
                               for cell in row) + "</w:tr>"
            for row in table
        )
        body.append(f"<w:tbl>{rows}</w:tbl>")
    document = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
                f'<w:document xmlns:w="{_W_NS}"><w:body>{"".join(body)}'
                f'<w:sectPr/></w:body></w:document>')
    content_types = (
        '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/'
        'package/2006/content-types"><Default Extension="rels" ContentType="application/'
        'vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType='
        '"application/xml"/><Override PartName="/word/document.xml" ContentType="application/'
        'vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>'
    )
    rels = (
        '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.'
        'openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://'
        'schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" '
        'Target="word/document.xml"/></Relationships>'
    )
    return _zip_bytes([("[Content_Types].xml", content_types), ("_rels/.rels", rels),
                       ("word/document.xml", document)])


def odt_document(pages: Sequence[Sequence[str]], table: Sequence[Sequence[str]] = ()) -> bytes:
    """An ODT as LibreOffice saves it: paragraphs, runs of spaces, soft page breaks, a table."""
    esc = html.escape
    ns = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
          'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
          'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"')
    body: list[str] = []
    for index, lines in enumerate(pages):
        if index:
            body.append("<text:soft-page-break/>")
        for line in lines:
            first, _, rest = line.partition(" ")
            # Two spaces after the article number, as typists do: ODT writes <text:s/>.
            spaced = f"{esc(first)} <text:s/>{esc(rest)}" if rest else esc(first)
            body.append(f'<text:p text:style-name="P1">{spaced}</text:p>')
    if table:
        rows = "".join(
            "<table:table-row>" + "".join(
                f"<table:table-cell><text:p>{esc(cell)}</text:p></table:table-cell>"
                for cell in row) + "</table:table-row>"
            for row in table
        )
        body.append(f'<table:table table:name="T1">{rows}</table:table>')
    content = (f'<?xml version="1.0" encoding="UTF-8"?><office:document-content {ns} '
               f'office:version="1.3"><office:body><office:text>{"".join(body)}'
               f"</office:text></office:body></office:document-content>")
    manifest = (
        '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:'
        'names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3"><manifest:file-entry '
        'manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/>'
        '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>'
        "</manifest:manifest>"
    )
    return _zip_bytes([("mimetype", "application/vnd.oasis.opendocument.text"),
                       ("content.xml", content), ("META-INF/manifest.xml", manifest)],
                      stored_first=True)


def rtf_document(pages: Sequence[Sequence[str]]) -> bytes:
    """An RTF as WordPad saves it: cp1252 escapes for accents, \\u for the rest, \\page breaks."""

    def escape(line: str) -> str:
        out = []
        for ch in line:
            if ch in "\\{}":
                out.append("\\" + ch)
            elif ord(ch) < 128:
                out.append(ch)
            else:
                try:
                    out.append(f"\\'{ch.encode('cp1252')[0]:02x}")
                except UnicodeEncodeError:
                    out.append(f"\\u{ord(ch)}?")
        return "".join(out)

    parts = [r"{\rtf1\ansi\ansicpg1252\deff0{\fonttbl{\f0\froman\fcharset0 Times New Roman;}}",
             r"{\info{\title Lei}{\author Camara}}\viewkind4\uc1\pard\f0\fs24 "]
    for index, lines in enumerate(pages):
        if index:
            parts.append(r"\page ")
        parts.extend(escape(line) + "\\par\n" for line in lines)
    parts.append("}")
    return "".join(parts).encode("ascii")


def zip_archive(files: Sequence[tuple[str, bytes]]) -> bytes:
    """A ZIP of documents, as portals publish a law with its annexes."""
    return _zip_bytes(files)


def zip_bomb(expanded_mb: int = 64) -> bytes:
    """A small ZIP whose one member expands to expanded_mb megabytes of zeros (1000× smaller)."""
    import zipfile

    buffer = io.BytesIO()
    block = bytes(1 << 20)
    with zipfile.ZipFile(buffer, "w") as archive:
        info = zipfile.ZipInfo("lei.txt", date_time=(2020, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        # Streamed, so the zeros are never all in memory at once.
        with archive.open(info, "w", force_zip64=True) as member:
            for _ in range(expanded_mb):
                member.write(block)
    return buffer.getvalue()


def zip_with_entries(count: int) -> bytes:
    """A ZIP whose directory lists count entries (ZIP64 past 65,535), all the same tiny file.

    Built as raw records, so that a directory of hundreds of thousands of entries costs
    ~60 bytes an entry here and nothing else: the archive a hostile portal could serve.
    """
    import struct
    import zlib

    name, content = b"lei.txt", b"Lei"
    crc = zlib.crc32(content)
    local = struct.pack("<4s5H3I2H", b"PK\x03\x04", 20, 0, 0, 0, 0x5021, crc, len(content),
                        len(content), len(name), 0) + name + content
    entry = struct.pack("<4s6H3I5H2I", b"PK\x01\x02", 20, 20, 0, 0, 0, 0x5021, crc,
                        len(content), len(content), len(name), 0, 0, 0, 0, 0, 0) + name
    directory = entry * count
    start, size = len(local), len(directory)
    end = b""
    if count > 0xFFFF:
        end64_at = start + size
        end = (struct.pack("<4sQ2H2I4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, count, count, size,
                           start)
               + struct.pack("<4sIQI", b"PK\x06\x07", 0, end64_at, 1))
        count16, size32, start32 = 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF
    else:
        count16, size32, start32 = count, size, start
    end += struct.pack("<4s4H2IH", b"PK\x05\x06", 0, 0, count16, count16, size32, start32, 0)
    return local + directory + end


_PORTAL_MENU = ["Início", "A Assembleia", "Deputados", "Legislação", "Transparência",
                "Notícias", "TV Assembleia", "Ouvidoria", "Contato"]
_PORTAL_LINKS = ["Constituição Estadual", "Regimento Interno", "Leis Ordinárias",
                 "Leis Complementares", "Decretos Legislativos", "Resoluções"]


def html_law_page(
    title: str, body_paragraphs: Sequence[str], with_navigation: bool = True
) -> bytes:
    """A legislation portal's page: menu, header, breadcrumbs, sidebar, footer, the law inside."""
    esc = html.escape
    law = "\n".join(f"<p>{esc(p)}</p>" for p in body_paragraphs)
    if not with_navigation:
        return (
            '<!DOCTYPE html>\n<html lang="pt-BR"><head><meta charset="utf-8">'
            f"<title>{esc(title)}</title></head>\n"
            f"<body><h1>{esc(title)}</h1>\n{law}\n</body></html>\n"
        ).encode()
    menu = "".join(f'<li><a href="/{i}">{esc(m)}</a></li>' for i, m in enumerate(_PORTAL_MENU))
    links = "".join(
        f'<li><a href="/leg/{i}">{esc(x)}</a></li>' for i, x in enumerate(_PORTAL_LINKS)
    )
    parts = [
        '<!DOCTYPE html>\n<html lang="pt-BR">\n<head>',
        '<meta http-equiv="Content-Type" content="text/html; charset=utf-8">',
        f"<title>{esc(title)} - Assembleia Legislativa do Estado do Espírito Santo</title>",
        "<style>body { font-family: sans-serif; } .menu li { display: inline; }</style>",
        "<script>window.dataLayer = window.dataLayer || [];"
        " function gtag() { dataLayer.push(arguments); }</script>",
        "</head>\n<body>",
        '<div id="barra-acessibilidade"><a href="#conteudo">Ir para o conteúdo</a>'
        ' <a href="#menu">Ir para o menu</a></div>',
        '<header id="topo"><div class="logo">Assembleia Legislativa do Estado do Espírito Santo'
        f'</div>\n<nav id="menu" class="menu-principal"><ul>{menu}</ul></nav></header>',
        '<div class="breadcrumb"><a href="/">Início</a> › <a href="/legislacao">Legislação</a>'
        f" › {esc(title)}</div>",
        '<form class="busca" action="/busca"><input name="q" placeholder="Pesquisar legislação">'
        "<button>Buscar</button></form>",
        '<div id="principal">\n<div id="conteudo" class="texto-norma">',
        f"<h1>{esc(title)}</h1>\n{law}\n</div>",
        f'<aside class="sidebar"><h2>Veja também</h2><ul>{links}</ul></aside>\n</div>',
        '<footer class="rodape"><p>Av. Américo Buaiz, 205 - Enseada do Suá - Vitória/ES</p>',
        "<p>Este texto não substitui o publicado no Diário Oficial."
        " Todos os direitos reservados.</p></footer>",
        "</body>\n</html>\n",
    ]
    return "\n".join(parts).encode()


def sample_text(name: str) -> str:
    """A text shipped in locleg/sample_texts (the seed laws), as UTF-8."""
    return resources.files("locleg").joinpath("sample_texts", name).read_text("utf-8")


def _juazeiro_2199_pages() -> list[list[str]]:
    pages = sample_text("juazeiro_lei_2199_2011.txt").split("\f")
    return [page.strip("\n").split("\n") for page in pages]


def _es_2482_paragraphs() -> list[str]:
    return [p.strip() for p in sample_text("es_lei_2482_1969.txt").split("\n") if p.strip()]


_JUAZEIRO_HEADER = (
    "O PREFEITO MUNICIPAL DE JUAZEIRO, Estado da Bahia, no uso de suas atribuições legais, "
)

_ARBORIZACAO = [
    _JUAZEIRO_HEADER + "faço saber que a Câmara Municipal aprovou e eu sanciono a seguinte Lei:",
    "Art. 1º Fica instituído o Programa Municipal de Arborização Urbana, com o objetivo de "
    "ampliar a cobertura vegetal das vias, praças e demais logradouros públicos do Município "
    "de Juazeiro, priorizando espécies nativas da caatinga.",
    "Art. 2º O plantio, a poda e a supressão de árvores em logradouros públicos dependem de "
    "autorização da Secretaria Municipal de Meio Ambiente e Ordenamento Urbano.",
    "§ 1º A poda de árvores sob a rede elétrica será feita pela concessionária de energia, "
    "mediante comunicação prévia ao órgão municipal competente.",
    "§ 2º A supressão só será autorizada quando a árvore apresentar risco à segurança das "
    "pessoas ou do patrimônio, comprovado em laudo técnico.",
    "Art. 3º Para cada árvore suprimida serão plantadas 3 (três) mudas de espécie indicada pelo "
    "órgão ambiental, no mesmo bairro, no prazo de 90 (noventa) dias.",
    "Art. 4º Os novos loteamentos aprovados a partir da publicação desta Lei deverão prever o "
    "plantio de, no mínimo, 1 (uma) árvore a cada 10 (dez) metros de calçada.",
    "Art. 5º A infração ao disposto nesta Lei sujeita o infrator à multa de 5 (cinco) a 50 "
    "(cinquenta) Unidades de Referência Fiscal (URF), aplicada em dobro na reincidência, sem "
    "prejuízo da reparação do dano, nos termos da Lei Federal nº 9.605, de 12 de fevereiro de "
    "1998.",
    "Art. 6º As despesas decorrentes da execução desta Lei correrão por conta de dotações "
    "orçamentárias próprias, suplementadas se necessário.",
    "Art. 7º O Poder Executivo regulamentará esta Lei no prazo de 120 (cento e vinte) dias.",
    "Art. 8º Esta Lei entra em vigor na data de sua publicação, revogadas as disposições em "
    "contrário.",
    "GABINETE DO PREFEITO MUNICIPAL DE JUAZEIRO, Estado da Bahia, em 15 de abril de 2013.",
]

_SEMANA_TRANSITO = [
    _JUAZEIRO_HEADER + "faço saber que a Câmara Municipal aprovou e eu sanciono a seguinte Lei:",
    "Art. 1º Fica instituída a Semana Municipal de Educação para o Trânsito, a ser realizada "
    "anualmente na 3ª (terceira) semana de setembro, em consonância com a Semana Nacional de "
    "Trânsito prevista no Código de Trânsito Brasileiro.",
    "Art. 2º São objetivos da Semana Municipal de Educação para o Trânsito:",
    "I – promover campanhas educativas sobre a segurança de pedestres, ciclistas, motociclistas "
    "e condutores de moto-táxi e moto-entrega;",
    "II – incentivar o uso do capacete e do cinto de segurança;",
    "III – divulgar as regras de circulação e de estacionamento nas vias do Município.",
    "Art. 3º A Companhia Municipal de Trânsito e Transportes – CMTT coordenará as atividades, "
    "em parceria com as escolas da rede municipal de ensino e com as associações de moto-taxistas.",
    "Parágrafo único. As escolas poderão incluir a matéria no calendário escolar do 2º semestre.",
    "Art. 4º Esta Lei entra em vigor na data de sua publicação.",
    "GABINETE DO PREFEITO MUNICIPAL DE JUAZEIRO, Estado da Bahia, em 28 de novembro de 2014.",
]

_DECRETO_MOTO_TAXI = [
    "O PREFEITO MUNICIPAL DE JUAZEIRO, Estado da Bahia, no uso das atribuições que lhe confere "
    "o art. 61, inciso IV, da Lei Orgânica do Município, e tendo em vista o disposto no art. 28 "
    "da Lei Municipal nº 2.199, de 27 de junho de 2011,",
    "DECRETA:",
    "Art. 1º Este Decreto regulamenta a exploração do serviço de transporte individual de "
    "passageiros em motocicleta (moto-táxi) e do serviço de entrega de mercadorias em "
    "motocicleta (moto-entrega) no Município de Juazeiro.",
    "Art. 2º Compete à Companhia Municipal de Trânsito e Transportes – CMTT o cadastramento, a "
    "vistoria e a fiscalização dos permissionários e dos veículos.",
    "§ 1º O cadastramento será feito mediante requerimento do interessado, instruído com os "
    "documentos exigidos no art. 6º da Lei Municipal nº 2.199/2011.",
    "§ 2º A CMTT publicará no Diário Oficial do Município a relação dos permissionários "
    "cadastrados até o 30º (trigésimo) dia de cada trimestre.",
    "Art. 3º A vistoria técnica será realizada a cada 6 (seis) meses, em local e horário "
    "definidos pela CMTT, e verificará:",
    "I – o estado geral da motocicleta e dos equipamentos de segurança;",
    "II – a pintura do tanque e a identificação do prefixo;",
    "III – a validade do seguro de vida e de acidentes pessoais do condutor e do passageiro.",
    "Parágrafo único. O veículo reprovado na vistoria ficará impedido de operar até a sua "
    "regularização, comprovada em nova vistoria.",
    "Art. 4º O uniforme padrão do moto-taxista compõe-se de colete nas cores azul e amarela, "
    "com o número do prefixo em preto na frente e nas costas, e de capacete nas mesmas cores.",
    "Art. 5º Os pontos de embarque de moto-táxi serão definidos pela CMTT, ouvidas as "
    "cooperativas e associações da categoria, e sinalizados com placa indicativa do preço da "
    "corrida e do telefone para reclamações.",
    "Art. 6º O valor da tarifa do serviço de moto-táxi é o constante do Anexo Único deste "
    "Decreto e será reajustado anualmente, nos termos do art. 11 da Lei Municipal nº 2.199/2011.",
    "Art. 7º O permissionário poderá indicar 1 (um) auxiliar, que atenderá aos mesmos requisitos "
    "exigidos do titular e será cadastrado na CMTT antes de iniciar a atividade.",
    "Art. 8º As infrações serão apuradas em processo administrativo, assegurados o contraditório "
    "e a ampla defesa, aplicando-se subsidiariamente, no que couber, a Lei Federal nº 9.503, de "
    "23 de setembro de 1997 (Código de Trânsito Brasileiro), e o Decreto-Lei nº 3.688, de 3 de "
    "outubro de 1941.",
    "§ 1º Da decisão que aplicar penalidade caberá recurso à Junta Administrativa de Recursos de "
    "Infrações – JARI, no prazo de 5 (cinco) dias úteis, contados da notificação.",
    "§ 2º O recurso não terá efeito suspensivo, salvo nos casos de cassação da permissão.",
    "Art. 9º A 1ª (primeira) vistoria dos veículos já em operação será realizada no prazo de 60 "
    "(sessenta) dias, contados da publicação deste Decreto.",
    "Art. 10. Os casos omissos serão resolvidos pela Diretoria da CMTT.",
    "Art. 11. Este Decreto entra em vigor na data de sua publicação, revogadas as disposições "
    "em contrário.",
    "GABINETE DO PREFEITO MUNICIPAL DE JUAZEIRO, Estado da Bahia, em 20 de outubro de 2011.",
]

_DECRETO_ANEXO = [
    "Tabela de tarifas do serviço de moto-táxi (valores em reais)",
    "1. Corrida na zona urbana, até 5 km: R$ 3,00 (três reais).",
    "2. Quilômetro adicional na zona urbana: R$ 0,50 (cinquenta centavos).",
    "3. Corrida entre a sede e os distritos de Juremal, Massaroca e Carnaíba do Sertão: "
    "R$ 1,00 (um real) por quilômetro rodado.",
    "4. Corrida noturna, das 22h às 5h, e aos domingos e feriados: acréscimo de 20% (vinte por "
    "cento).",
    "5. Entrega de mercadorias (moto-entrega) na zona urbana: R$ 4,00 (quatro reais).",
]

_MOBILIDADE = [
    _JUAZEIRO_HEADER + "faço saber que a Câmara Municipal aprovou e eu sanciono a seguinte Lei:",
    "Art. 1º Fica aprovado o Plano Municipal de Mobilidade Urbana de Juazeiro, elaborado nos "
    "termos da Lei Federal nº 12.587, de 3 de janeiro de 2012, na forma do Anexo I desta Lei.",
    "Art. 2º O Plano tem por diretrizes a prioridade dos modos de transporte não motorizados "
    "sobre os motorizados e do transporte público coletivo sobre o transporte individual.",
    "Art. 3º O Plano será revisto a cada 10 (dez) anos, com participação da sociedade civil, "
    "por meio de audiências públicas.",
    "Art. 4º Esta Lei entra em vigor na data de sua publicação.",
    "GABINETE DO PREFEITO MUNICIPAL DE JUAZEIRO, Estado da Bahia, em 10 de maio de 2016.",
]

_MOBILIDADE_ANEXO = [
    "ANEXO I",
    "QUADRO DE METAS DO PLANO MUNICIPAL DE MOBILIDADE URBANA",
    "Meta 1 - Implantar 20 km de ciclovias e ciclofaixas até 2020.",
    "Meta 2 - Requalificar as calçadas das avenidas Adolfo Viana e Raul Alves.",
    "Meta 3 - Renovar a frota do transporte coletivo urbano até 2022.",
    "Meta 4 - Regulamentar os pontos de embarque de moto-táxi em todos os bairros.",
    "Meta 5 - Reduzir em 50% o número de acidentes de trânsito com vítimas.",
    "Juazeiro, 10 de maio de 2016.",
]

_DECRETO_JUNINO = """DECRETO Nº 052, DE 13 DE JUNHO DE 2012

Dispõe sobre o expediente nas repartições públicas municipais durante os festejos juninos.

O PREFEITO MUNICIPAL DE JUAZEIRO, Estado da Bahia, no uso de suas atribuições legais, e
considerando a tradição dos festejos de São João no Município, que atraem visitantes de toda a
região do Vale do São Francisco,

DECRETA:

Art. 1º Fica declarado ponto facultativo nas repartições públicas municipais o dia 22 de junho
de 2012 (sexta-feira), véspera do “Dia de São João”.

Art. 2º Os serviços essenciais — saúde, limpeza urbana, trânsito e defesa civil — funcionarão
em regime de plantão, conforme escala definida por cada Secretaria.

Art. 3º As horas não trabalhadas serão compensadas até o dia 31 de julho de 2012, à razão de
1 (uma) hora por dia, a critério da chefia imediata.

Art. 4º Este Decreto entra em vigor na data de sua publicação.

GABINETE DO PREFEITO MUNICIPAL DE JUAZEIRO, Estado da Bahia, em 13 de junho de 2012.
"""

# Born-digital pages the word check must keep although few of their tokens are common words:
# tables of figures and units, lists of names, anexos with quantities, decrees full of codes.
_TARIFAS_AGUA = [
    ["Categoria", "Faixa de consumo", "Água (R$/m³)", "Esgoto (R$/m³)"],
    ["Residencial social", "0 a 10 m³", "1,85", "0,93"],
    ["Residencial", "0 a 10 m³", "3,45", "1,73"],
    ["Residencial", "11 a 20 m³", "4,12", "2,06"],
    ["Residencial", "21 a 50 m³", "6,80", "3,40"],
    ["Residencial", "acima de 50 m³", "9,15", "4,58"],
    ["Comercial", "0 a 10 m³", "5,20", "2,60"],
    ["Comercial", "acima de 10 m³", "7,95", "3,98"],
    ["Industrial", "0 a 10 m³", "6,10", "3,05"],
    ["Industrial", "acima de 10 m³", "9,60", "4,80"],
    ["Pública", "0 a 10 m³", "4,90", "2,45"],
    ["Pública", "acima de 10 m³", "7,35", "3,68"],
]
_TARIFAS_NOTAS = [
    "Tarifa mínima: 10 m³/mês por economia.",
    "Ligação de água, ramal de 20 mm: R$ 145,00/un.",
    "Hidrômetro de 1,5 m³/h: R$ 98,00/un.",
    "Vigência: 1º/1/2015. SAAE - CNPJ 13.915.632/0001-14.",
]
_CONSELHO = [
    "Art. 1º Ficam nomeados os membros do Conselho Municipal de Educação, para o biênio "
    "2015/2016:",
    "I – Ubiratan Cavalcanti Bezerril, titular, e Edileuza Nunes Coutinho, suplente, "
    "representantes da SEMED;",
    "II – Gildásio Rocha Brandão, titular, e Valdirene Lustosa Amorim, suplente, "
    "representantes dos professores;",
    "III – Josenildo Araújo Pimentel, titular, e Creuza Bispo dos Anjos, suplente, "
    "representantes dos pais de alunos;",
    "IV – Adailton Menezes Lacerda, titular, e Rosângela Queiroz Damasceno, suplente, "
    "representantes dos servidores;",
    "V – Francisco Wanderley Sampaio, titular, e Marinalva Tavares Godinho, suplente, "
    "representantes do CMDCA;",
    "VI – Raimundo Nonato Figueiredo, titular, e Lindinalva Barreto Peixoto, suplente, "
    "representantes da UNDIME;",
    "VII – Cleonice Bonfim Valadares, titular, e Aurelino Fagundes Matos, suplente, "
    "representantes dos estudantes.",
    "Art. 2º Este Decreto entra em vigor na data de sua publicação.",
    "Juazeiro, 3 de março de 2015.",
    "Isaac Cavalcante de Carvalho – Prefeito Municipal",
    "Walquíria Meneses Falcão – Secretária Municipal de Educação",
]
_PLANILHA = [
    ["Item", "Descrição", "Un.", "Quant."],
    ["1.1", "Escavação mecânica de vala", "m³", "320,00"],
    ["1.2", "Reaterro compactado", "m³", "285,50"],
    ["2.1", "Pavimentação em paralelepípedo", "m²", "1.250,00"],
    ["2.2", "Meio-fio de concreto pré-moldado", "m", "480,00"],
    ["3.1", "Tubo PEAD DN 200 mm", "m", "150,00"],
    ["3.2", "Poço de visita, h = 1,5 m", "un", "6"],
    ["4.1", "Transformador 75 kVA", "un", "2"],
    ["4.2", "Luminária LED 150 W", "un", "48"],
    ["5.1", "Transporte de material, DMT 12 km", "t.km", "3.600,00"],
    ["5.2", "Aço CA-50, 10 mm", "kg", "2.340,00"],
    ["6.1", "Área de plantio", "ha", "2,5"],
]
_PLANILHA_NOTAS = [
    "ANEXO II – QUANTITATIVOS DA OBRA",
    "Potência instalada: 15 kW; consumo estimado: 2.100 kWh/mês.",
    "Concreto fck 25 MPa; temperatura máxima 40 °C; extensão total 3,2 km.",
]
_CREDITO = [
    "DECRETO Nº 2.031, DE 14 DE JULHO DE 2017",
    "Abre crédito adicional suplementar no valor de R$ 1.250.000,00.",
    "Art. 1º Fica aberto crédito adicional suplementar de R$ 1.250.000,00, nos termos do "
    "art. 7º, inciso I, da Lei nº 2.702/2016 (LOA), e do art. 43, § 1º, inciso III, da Lei "
    "nº 4.320/1964, às dotações:",
    "02.10 – SEMED / 02.10.01 – FUNDEB 70% / 12.361.0021.2.041 / 3.1.90.11.00 / Fonte 0119 / "
    "Ficha 0234: R$ 800.000,00;",
    "02.10 – SEMED / 02.10.02 – MDE / 12.361.0021.2.045 / 3.3.90.39.00 / Fonte 0101 / "
    "Ficha 0251: R$ 250.000,00;",
    "02.14 – SEINFRA / 02.14.01 / 15.451.0032.1.018 / 4.4.90.51.00 / Fonte 0100 / "
    "Ficha 0412: R$ 200.000,00.",
    "Art. 2º Os recursos decorrem da anulação das dotações 02.08.01 / 04.122.0001.2.002 / "
    "3.3.90.30.00 / Fonte 0100 / Ficha 0118, e 02.03.01 / 04.123.0002.2.011 / 3.3.90.36.00 / "
    "Fonte 0100 / Ficha 0067, art. 43, § 1º, III, da Lei nº 4.320/1964, e art. 39-B da "
    "LC nº 101/2000 (LRF).",
    "Art. 3º A SEFAZ e a CGM registrarão as alterações no SIAFIC e no SIGEF até D+2.",
    "Art. 4º Este Decreto entra em vigor na data de sua publicação.",
    "Juazeiro/BA, CEP 48.903-000, 14 de julho de 2017. CNPJ 13.915.632/0001-14.",
]


def table_pdf(title: str, rows: Sequence[Sequence[str]], columns: Sequence[float],
              notes: Sequence[str] = (), size: float = 9.0) -> bytes:
    """A born-digital table as a spreadsheet exports it: title, ruled cells, notes below.

    columns are the left edges of the cells, in points; the last cell runs to the margin.
    """
    buffer = io.BytesIO()
    c = _canvas(buffer, title)
    regular, bold = _fonts()
    width, height = A4
    y = height - _MARGIN
    c.setFont(bold, size + 2)
    c.drawCentredString(width / 2, y, title)
    y -= 2 * _LEADING
    edges = [*columns, width - _MARGIN]
    step = size * 1.9
    for index, cells in enumerate(rows):
        c.setFont(bold if index == 0 else regular, size)
        c.line(edges[0], y, edges[-1], y)
        for x, cell in zip(edges, cells, strict=False):
            c.line(x, y, x, y - step)
            c.drawString(x + 3, y - step + 4, cell)
        c.line(edges[-1], y, edges[-1], y - step)
        y -= step
    c.line(edges[0], y, edges[-1], y)
    y -= _LEADING
    c.setFont(regular, size)
    for note in notes:
        y -= _LEADING
        c.drawString(_MARGIN, y, note)
    c.showPage()
    c.save()
    return buffer.getvalue()


def tariff_table_pdf() -> bytes:
    """An anexo with a water tariff table in R$/m³: figures, units and a few words."""
    return table_pdf("ANEXO ÚNICO – TABELA DE TARIFAS DE ÁGUA E ESGOTO", _TARIFAS_AGUA,
                     (_MARGIN, 190, 300, 400), _TARIFAS_NOTAS)


def names_decree_pdf() -> bytes:
    """A decree that names council members: a page of first names and surnames."""
    return born_digital_pdf("DECRETO Nº 1.245, DE 3 DE MARÇO DE 2015", _CONSELHO)


def quantities_annex_pdf() -> bytes:
    """A works budget anexo: items, units (m³, m², kVA, kWh, °C, ha) and quantities."""
    return table_pdf(_PLANILHA_NOTAS[0], _PLANILHA, (_MARGIN, 110, 390, 440),
                     _PLANILHA_NOTAS[1:])


def codes_decree_pdf() -> bytes:
    """A budget decree: dotation codes, acronyms, CNPJ, CEP and article references."""
    return born_digital_pdf(_CREDITO[0], _CREDITO[1:])


def _junk_words(rng: random.Random, count: int, capitalize: bool = False) -> list[str]:
    letters = "bcdfghjklmnpqrstvwxzaeiou"
    words = ["".join(rng.choice(letters) for _ in range(rng.randint(2, 7))) for _ in range(count)]
    return [w.capitalize() for w in words] if capitalize else words


def _damaged_layer(lines: Sequence[str], share: float, seed: int) -> list[str]:
    """An earlier OCR's layer with a share of its words misread into junk."""
    rng = random.Random(seed)
    out = []
    for line in lines:
        words = [_junk_words(rng, 1)[0] if rng.random() < share else w for w in line.split()]
        out.append(" ".join(words))
    return out


@dataclass(frozen=True)
class LabelledPdf:
    """A PDF and, for each of its pages, whether only OCR can read it (the truth for the bench)."""

    name: str
    # clean, figures, names, scanned, ocr-layer, garbage-layer, no-cmap, mixed, near-empty,
    # outlines
    kind: str
    data: bytes
    needs_ocr: tuple[bool, ...]


def needs_ocr_cases() -> list[LabelledPdf]:
    """The labelled set of the needs-OCR decision: every kind of page the rule must tell apart.

    Deterministic and small (a few seconds to build); tests assert 100 % on it and
    bench/extract_needs_ocr.py prints the accuracy per kind.
    """
    law = [_JUAZEIRO_HEADER + "faço saber que a Câmara Municipal aprovou e eu sanciono a "
           "seguinte Lei:", *_ARBORIZACAO[1:9]]
    decree = _DECRETO_MOTO_TAXI[2:12]
    scan_lines = [line for page in _juazeiro_2199_pages()[:1] for line in page][:30]
    rng = random.Random(7)
    letters = "bcdfghjklmnpqrstvwxzaeiou"
    garbage = [" ".join("".join(rng.choice(letters) for _ in range(rng.randint(2, 7)))
                        for _ in range(10)) for _ in range(30)]
    logo = Image.new("L", (120, 120), 90)

    def near_empty(draw_logo: bool, line: str) -> bytes:
        buffer = io.BytesIO()
        c = _canvas(buffer, "near-empty")
        if draw_logo:
            c.drawImage(ImageReader(logo), _MARGIN, A4[1] - 2 * _MARGIN, 60, 60)
        regular, _ = _fonts()
        c.setFont(regular, _SIZE)
        c.drawString(_MARGIN + 80, A4[1] - 1.6 * _MARGIN, line)
        c.showPage()
        c.save()
        return buffer.getvalue()

    def letterhead(lines: Sequence[str]) -> bytes:
        """A born-digital page over a full-page background image (a letterhead, a watermark)."""
        buffer = io.BytesIO()
        c = _canvas(buffer, "letterhead")
        _draw_image(c, Image.new("L", (300, 424), 235))
        _draw_lines(c, lines)
        c.showPage()
        c.save()
        return buffer.getvalue()

    def ruled_table(rows: int) -> bytes:
        """A born-digital table: text in cells and many ruling lines (vector paths)."""
        buffer = io.BytesIO()
        c = _canvas(buffer, "table")
        regular, _ = _fonts()
        c.setFont(regular, 9)
        top = A4[1] - _MARGIN
        for r in range(rows):
            y = top - r * 14
            for col, x in enumerate((_MARGIN, 200, 330, 460)):
                c.line(x, y, x, y - 14)
                c.line(x, y - 14, x + 130, y - 14)
                c.drawString(x + 3, y - 10, ["Meta", "Ciclovias", "Calçadas", "Prazo"][col]
                             + f" {r + 1}")
        c.showPage()
        c.save()
        return buffer.getvalue()

    mixed = mixed_pdf("LEI Nº 2.480, DE 10 DE MAIO DE 2016", _MOBILIDADE, [_MOBILIDADE_ANEXO])
    return [
        LabelledPdf("born-digital law", "clean", born_digital_pdf("LEI Nº 2.312", law),
                    (False,)),
        LabelledPdf("born-digital decree", "clean",
                    born_digital_pdf("DECRETO Nº 187", _DECRETO_MOTO_TAXI), (False, False)),
        LabelledPdf("letterhead background", "clean", letterhead(_wrapped(law)), (False,)),
        LabelledPdf("ruled table", "clean", ruled_table(40), (False,)),
        LabelledPdf("state law, born-digital", "clean",
                    born_digital_pdf("LEI Nº 2.482/1969", _es_2482_paragraphs()),
                    (False,) * len(_layout("LEI Nº 2.482/1969", _es_2482_paragraphs()))),
        LabelledPdf("scan 200 dpi", "scanned", scanned_pdf([scan_lines], dpi=200), (True,)),
        LabelledPdf("scan 300 dpi", "scanned", scanned_pdf([decree], dpi=300), (True,)),
        LabelledPdf("scan 100 dpi, two pages", "scanned",
                    scanned_pdf([scan_lines[:15], scan_lines[15:]], dpi=100), (True, True)),
        LabelledPdf("scan with page number stamped", "scanned",
                    _stamped_scan(scan_lines), (True,)),
        LabelledPdf("scan with a good OCR layer", "ocr-layer",
                    scanned_pdf_with_layer(decree, decree), (False,)),
        LabelledPdf("scan with a garbage OCR layer", "garbage-layer",
                    scanned_pdf_with_layer(decree, garbage), (True,)),
        LabelledPdf("scan with a few OCR words", "garbage-layer",
                    scanned_pdf_with_layer(decree, ["Art. 1º", "Juazeiro"]), (True,)),
        LabelledPdf("font without a character map", "no-cmap",
                    pdf_without_character_map([_wrapped(law)]), (True,)),
        LabelledPdf("law with a scanned annex", "mixed", mixed, (False, True)),
        LabelledPdf("decree with two signed pages", "mixed",
                    mixed_pdf("DECRETO Nº 187", _DECRETO_MOTO_TAXI, [_DECRETO_ANEXO, decree[:3]],
                              dpi=150),
                    (False, False, True, True)),
        LabelledPdf("signature page", "near-empty",
                    near_empty(False, "Publique-se. Juazeiro, 15 de abril de 2013."), (False,)),
        LabelledPdf("logo and a heading", "near-empty",
                    near_empty(True, "PREFEITURA MUNICIPAL DE JUAZEIRO"), (False,)),
        LabelledPdf("blank page", "near-empty", text_pdf([[]]), (False,)),
        LabelledPdf("text as outlines", "outlines", outlined_text_pdf(decree[:6]), (True,)),
        LabelledPdf("tariff table in R$/m³", "figures", tariff_table_pdf(), (False,)),
        LabelledPdf("quantities annex with units", "figures", quantities_annex_pdf(),
                    (False,)),
        LabelledPdf("decree full of budget codes", "figures", codes_decree_pdf(), (False,)),
        LabelledPdf("decree naming council members", "names", names_decree_pdf(), (False,)),
        LabelledPdf("portaria naming servers", "names",
                    born_digital_pdf("PORTARIA Nº 033, DE 2 DE MARÇO DE 2015", _PORTARIA),
                    (False,)),
        LabelledPdf("scan with a capitalized garbage layer", "garbage-layer",
                    scanned_pdf_with_layer(decree, [" ".join(_junk_words(rng, 10, True))
                                                    for _ in range(30)]), (True,)),
        LabelledPdf("scan with an OCR layer 30 % misread", "garbage-layer",
                    scanned_pdf_with_layer(decree, _damaged_layer(_wrapped(decree), 0.3, 11)),
                    (True,)),
    ]


def _wrapped(paragraphs: Sequence[str]) -> list[str]:
    regular, _ = _fonts()
    lines: list[str] = []
    for paragraph in paragraphs:
        lines += simpleSplit(paragraph, regular, _SIZE, A4[0] - 2 * _MARGIN)
    return lines[: int((A4[1] - 2 * _MARGIN) // _LEADING)]


def _stamped_scan(lines: Sequence[str]) -> bytes:
    """A scan inside a form XObject with a page number stamped as text, as some portals do."""
    buffer = io.BytesIO()
    c = _canvas(buffer, "stamped")
    c.beginForm("scan")
    _draw_image(c, scanned_page(lines, 150, seed=3))
    c.endForm()
    c.doForm("scan")
    regular, _ = _fonts()
    c.setFont(regular, 9)
    c.drawString(A4[0] / 2, 30, "Página 1 de 1")
    c.showPage()
    c.save()
    return buffer.getvalue()


_SAPL = "https://sapl.juazeiro.ba.leg.br/norma/{}"
MANIFEST_COLUMNS = ["file", "type", "number", "year", "date", "ementa", "native_id", "url",
                    "role", "title", "jurisdiction"]


@dataclass(frozen=True)
class DemoDocument:
    """One file of the demo set and its manifest row."""

    file: str
    type: str
    number: str
    date: str  # ISO
    ementa: str
    native_id: str
    url: str
    build: Callable[[], bytes]
    role: str = "texto integral"
    title: str = ""
    jurisdiction: int = JUAZEIRO

    def row(self) -> dict[str, str]:
        return {
            "file": self.file, "type": self.type, "number": self.number, "year": self.date[:4],
            "date": self.date, "ementa": self.ementa, "native_id": self.native_id, "url": self.url,
            "role": self.role, "title": self.title, "jurisdiction": str(self.jurisdiction),
        }


_EMENTA_2199 = ("DISPÕE SOBRE O SERVIÇO DE MOTO - TÁXI E MOTO - ENTREGA NO ÂMBITO DO MUNICÍPIO DE "
                "JUAZEIRO , E DÁ OUTRAS PROVIDÊNCIAS.")
_EMENTA_DECRETO = (
    "Regulamenta a Lei Municipal nº 2.199, de 27 de junho de 2011, que dispõe sobre o "
    "serviço de moto-táxi e moto-entrega no âmbito do Município de Juazeiro."
)
_EMENTA_2482 = ("Dispõe sobre o Sistema Nacional de Trânsito na área estadual, transforma o "
                "Departamento Estadual de Trânsito em autarquia e dá outras providências.")


def demo_documents() -> list[DemoDocument]:
    """The bundled demo set: Juazeiro (BA) laws and decrees in every shape, and one ES state law.

    Lei 2.199/2011 (native_id 1461) and Lei 2.482/1969 of Espírito Santo are the seed laws;
    the other norms are realistic inventions, with native ids from 900101 on so they point at
    no real norm.
    """
    return [
        DemoDocument(
            "juazeiro-lei-2199-2011.pdf", "Lei", "2199", "2011-06-27", _EMENTA_2199, "1461",
            _SAPL.format(1461), lambda: scanned_pdf(_juazeiro_2199_pages()),
        ),
        DemoDocument(
            "juazeiro-lei-2312-2013.pdf", "Lei", "2312", "2013-04-15",
            "Institui o Programa Municipal de Arborização Urbana e dá outras providências.",
            "900101", _SAPL.format(900101),
            lambda: born_digital_pdf("LEI Nº 2.312, DE 15 DE ABRIL DE 2013", _ARBORIZACAO),
        ),
        DemoDocument(
            "juazeiro-lei-2405-2014.pdf", "Lei", "2405", "2014-11-28",
            "Institui a Semana Municipal de Educação para o Trânsito no Município de Juazeiro.",
            "900102", _SAPL.format(900102),
            lambda: born_digital_pdf("LEI Nº 2.405, DE 28 DE NOVEMBRO DE 2014", _SEMANA_TRANSITO),
        ),
        DemoDocument(
            "juazeiro-decreto-187-2011.pdf", "Decreto", "187", "2011-10-20", _EMENTA_DECRETO,
            "900103", _SAPL.format(900103),
            lambda: born_digital_pdf(
                "DECRETO Nº 187, DE 20 DE OUTUBRO DE 2011", _DECRETO_MOTO_TAXI
            ),
        ),
        DemoDocument(
            "juazeiro-decreto-187-2011-anexo-unico.pdf", "Decreto", "187", "2011-10-20",
            _EMENTA_DECRETO, "900103", _SAPL.format(900103) + "#anexo-unico",
            lambda: born_digital_pdf("ANEXO ÚNICO DO DECRETO Nº 187/2011", _DECRETO_ANEXO),
            role="anexo", title="Anexo Único – Tabela de tarifas do serviço de moto-táxi",
        ),
        DemoDocument(
            "juazeiro-lei-2480-2016.pdf", "Lei", "2480", "2016-05-10",
            "Aprova o Plano Municipal de Mobilidade Urbana de Juazeiro e dá outras providências.",
            "900104", _SAPL.format(900104),
            lambda: mixed_pdf(
                "LEI Nº 2.480, DE 10 DE MAIO DE 2016", _MOBILIDADE, [_MOBILIDADE_ANEXO]
            ),
        ),
        DemoDocument(
            "juazeiro-decreto-052-2012.txt", "Decreto", "52", "2012-06-13",
            "Dispõe sobre o expediente nas repartições públicas municipais durante os festejos "
            "juninos.", "900105", _SAPL.format(900105),
            lambda: _DECRETO_JUNINO.replace("\n", "\r\n").encode("cp1252"),
        ),
        DemoDocument(
            "es-lei-2482-1969.html", "Lei Ordinária", "2482", "1969-12-24", _EMENTA_2482,
            "L24821969", "https://www3.al.es.gov.br/Arquivo/Documents/legislacao/html/L24821969.html",
            lambda: html_law_page("Lei Ordinária nº 2.482/1969", _es_2482_paragraphs()),
            jurisdiction=ESPIRITO_SANTO,
        ),
        DemoDocument(
            "juazeiro-portaria-033-2015.docx", "Portaria", "33", "2015-03-02",
            "Designa a comissão de fiscalização do serviço de moto-táxi.", "900106",
            _SAPL.format(900106), lambda: docx_document([_PORTARIA]),
        ),
        DemoDocument(
            "juazeiro-resolucao-012-2017.rtf", "Resolução", "12", "2017-08-21",
            "Aprova o Regimento Interno da Comissão de Transporte e Trânsito da Câmara.",
            "900107", _SAPL.format(900107), lambda: rtf_document(_RESOLUCAO),
        ),
        DemoDocument(
            "juazeiro-decreto-301-2019.jpg", "Decreto", "301", "2019-12-20",
            "Declara ponto facultativo nas repartições públicas municipais no dia 24 de "
            "dezembro de 2019.", "900108", _SAPL.format(900108),
            lambda: image_file([scanned_page(_DECRETO_NATAL, dpi=200, seed=9, rotate=0.8)],
                               "JPEG", dpi=200),
        ),
        DemoDocument(
            "juazeiro-lei-2480-2016-anexos.zip", "Lei", "2480", "2016-05-10",
            "Aprova o Plano Municipal de Mobilidade Urbana de Juazeiro e dá outras providências.",
            "900104", _SAPL.format(900104) + "#anexos",
            lambda: zip_archive([
                ("anexo-ii-cronograma.odt", odt_document([_CRONOGRAMA[:1]],
                                                         table=[r.split(" | ")
                                                                for r in _CRONOGRAMA[1:]])),
                ("anexo-iii-mapa.txt", "ANEXO III\r\nMapa das ciclovias: ver arquivo "
                 "cartográfico na Secretaria de Mobilidade.\r\n".encode("cp1252")),
            ]),
            role="anexo", title="Anexos II e III – Cronograma e mapa",
        ),
    ]


_PORTARIA = [
    "PORTARIA Nº 033, DE 2 DE MARÇO DE 2015",
    "O DIRETOR-PRESIDENTE DA COMPANHIA MUNICIPAL DE TRÂNSITO E TRANSPORTES – CMTT, no uso de "
    "suas atribuições, e considerando o disposto no art. 2º do Decreto nº 187/2011, resolve:",
    "Art. 1º Designar os servidores abaixo para compor a comissão de fiscalização do serviço "
    "de moto-táxi e moto-entrega:",
    "I – João Batista dos Santos, agente de trânsito, matrícula nº 10.245;",
    "II – Maria das Graças Oliveira, agente de trânsito, matrícula nº 10.311.",
    "Art. 2º Esta Portaria entra em vigor na data de sua publicação.",
]
_RESOLUCAO = [
    ["RESOLUÇÃO Nº 12, DE 21 DE AGOSTO DE 2017",
     "A CÂMARA MUNICIPAL DE JUAZEIRO, Estado da Bahia, aprova e o seu Presidente promulga a "
     "seguinte Resolução:",
     "Art. 1º Fica aprovado o Regimento Interno da Comissão Permanente de Transporte e "
     "Trânsito, na forma do Anexo Único.",
     "Art. 2º Esta Resolução entra em vigor na data de sua publicação."],
    ["ANEXO ÚNICO – REGIMENTO INTERNO",
     "Art. 1º A Comissão reúne-se ordinariamente na primeira terça-feira de cada mês.",
     "Art. 2º As deliberações são tomadas por maioria simples, presente a maioria dos membros."],
]
_DECRETO_NATAL = [
    "DECRETO Nº 301, DE 20 DE DEZEMBRO DE 2019",
    "O PREFEITO MUNICIPAL DE JUAZEIRO, Estado da Bahia, no uso de suas atribuições legais,",
    "DECRETA:",
    "Art. 1º Fica declarado ponto facultativo nas repartições públicas municipais o dia 24 "
    "de dezembro de 2019, véspera de Natal.",
    "Art. 2º Os serviços essenciais funcionarão em regime de plantão.",
    "Art. 3º Este Decreto entra em vigor na data de sua publicação.",
    "Juazeiro, 20 de dezembro de 2019.",
]
_CRONOGRAMA = [
    "ANEXO II – CRONOGRAMA DE IMPLANTAÇÃO",
    "Etapa | Ação | Prazo",
    "1 | Ciclovia da Avenida Adolfo Viana | 2017",
    "2 | Calçadas da Avenida Raul Alves | 2018",
    "3 | Renovação da frota do transporte coletivo | 2022",
]


def write_demo_documents(folder: Path) -> Path:
    """Write the demo set and its manifest.csv into folder; returns the manifest's path."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    documents = demo_documents()
    for doc in documents:
        (folder / doc.file).write_bytes(doc.build())
    manifest = folder / "manifest.csv"
    with manifest.open("w", encoding="utf-8", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=MANIFEST_COLUMNS)
        writer.writeheader()
        writer.writerows(doc.row() for doc in documents)
    return manifest


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m locleg.samples FOLDER [--corpus CORPUS]`: write the demo set; with
    --corpus, mark that corpus as built from these made-up samples (its explorer says so)."""
    from .config import mark_demo
    from .errors import UserError

    args = list(sys.argv[1:] if argv is None else argv)
    corpus = None
    if len(args) == 3 and args[1] == "--corpus":
        corpus = args.pop(2)
        args.pop(1)
    if len(args) != 1:
        print("usage: python -m locleg.samples FOLDER [--corpus CORPUS]", file=sys.stderr)
        return 2
    if corpus is not None:
        try:
            mark_demo(Path(corpus))
        except UserError as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
    print(write_demo_documents(Path(args[0])))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
