"""Text of the law on a web page: drop the portal around it, keep one line per paragraph."""

from __future__ import annotations

import re

import lxml
import lxml.html
from lxml import etree

from .encoding import decode_text
from .plain import single_page
from .result import ExtractionResult

BACKEND = "lxml"
BACKEND_VERSION = f"{lxml.__version__} (libxml2 {'.'.join(map(str, etree.LIBXML_VERSION))})"

_META_CHARSET = re.compile(rb"<meta[^>]+charset\s*=\s*[\"']?\s*([\w.:-]+)", re.IGNORECASE)
_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
# Never text of the page: code, styling, widgets.
_NEVER_TEXT = (
    "script", "style", "noscript", "template", "svg", "iframe", "object", "embed", "canvas",
    "button", "select", "textarea", "input", "map", "head",
)
# The portal around the law. A <form> may wrap a whole ASP.NET page, hence the share guard.
_CHROME_TAGS = {"nav", "header", "footer", "aside", "form", "menu"}
_CHROME_ROLES = {
    "navigation", "banner", "contentinfo", "search", "complementary", "menu", "menubar",
}
_CHROME_WORDS = {
    "nav", "navbar", "navigation", "menu", "breadcrumb", "breadcrumbs", "footer", "rodape",
    "sidebar", "cookie", "cookies", "banner", "skip", "social", "share", "compartilhar",
    "header", "cabecalho", "topo", "toolbar", "acessibilidade",
}
_CONTENT_TAGS = {"main", "article"}
_BLOCKS = {
    "p", "div", "li", "ul", "ol", "dl", "dt", "dd", "h1", "h2", "h3", "h4", "h5", "h6", "tr",
    "table", "thead", "tbody", "tfoot", "caption", "section", "article", "main", "blockquote",
    "pre", "header", "footer", "address", "center", "hr", "figure", "figcaption", "fieldset",
    "legend", "body",
}
_CELLS = {"td", "th"}
_WRAPPER_SHARE = 0.5  # an element holding this share of the page text is a wrapper, not chrome
_DESCEND_SHARE = 0.8  # the container is the deepest element holding this share of the text
_CONTENT_SHARE = 0.4  # a <main>/<article> holding this share is taken as it is
_LINK_SHARE = 0.6  # link text share of a block of links: a menu without a <nav>
_TOO_DEEP = etree.ErrorTypes.ERR_RESOURCE_LIMIT  # "Excessive depth in document"


def declared_charset(data: bytes) -> str | None:
    """The charset a page declares in a <meta> near its top."""
    m = _META_CHARSET.search(data[:16384])
    return m.group(1).decode("ascii", "replace") if m else None


def extract_html(data: bytes, charset: str | None = None) -> ExtractionResult:
    """One page of text from the element holding the law; charset is the server's, if any."""
    text, encoding = decode_text(data, charset or declared_charset(data))
    # lxml refuses NUL and most controls in a string; they are never text of a law.
    text = _CONTROLS.sub("", _XML_DECLARATION.sub("", text))
    result = ExtractionResult(status="empty", method="html", backend=BACKEND,
                              backend_version=BACKEND_VERSION)
    parser = lxml.html.HTMLParser()
    try:
        root = lxml.html.document_fromstring(text, parser=parser)
    except etree.ParserError:  # "Document is empty"
        result.detail = "no text in the HTML page"
        return result
    if any(e.type == _TOO_DEEP for e in parser.error_log):
        # libxml2 builds no tree deeper than 256 elements (2,048 with huge_tree) and drops
        # what lies below: read such a page from the parser's events instead, which have
        # no depth. The portal around the text cannot be told apart then: all of it stays.
        single_page(result, flat_text(text), "no text in the HTML page")
        if result.status == "extracted":
            result.detail = (f"encoding {encoding}; elements nested deeper than "
                             f"{_depth_limit(parser)}: read flat, the page's chrome kept")
        return result
    container = main_container(root)
    raw = render_text(container) if container is not None else ""
    single_page(result, raw, "no text in the HTML page")
    if result.status == "extracted":
        result.detail = f"encoding {encoding}; container {_describe(container)}"
    return result


def _depth_limit(parser: etree.HTMLParser) -> str:
    found = re.search(r"depth in document: (\d+)", str(parser.error_log))
    return found[1] if found else "libxml2's limit"


def flat_text(text: str) -> str:
    """A page's text read from the parser's events, never as a tree: for pages nested past
    what a tree can hold. Code, styling and widgets are still left out."""
    writer = _TextWriter()
    parser = etree.HTMLParser(target=writer, huge_tree=True, remove_comments=True)
    parser.feed(text)
    return parser.close()


def _text_len(el: etree._Element) -> int:
    """Non-blank characters under an element (comments do not count)."""
    return len("".join("".join(el.itertext()).split()))


def _tokens(el: etree._Element) -> set[str]:
    names = f"{el.get('id', '')} {el.get('class', '')}".lower()
    return set(re.split(r"[\s_-]+", names)) - {""}


def _is_chrome(el: etree._Element) -> bool:
    if el.tag in ("header", "footer") and any(a.tag in _CONTENT_TAGS for a in el.iterancestors()):
        return False  # the header of an <article> is the law's own heading
    return (
        el.tag in _CHROME_TAGS
        or (el.get("role") or "").lower() in _CHROME_ROLES
        or bool(_tokens(el) & _CHROME_WORDS)
    )


def _is_link_block(el: etree._Element, size: int) -> bool:
    if el.tag not in ("ul", "ol", "div", "section", "table") or not size:
        return False
    links = el.findall(".//a")
    if len(links) < 3:
        return False
    return sum(_text_len(a) for a in links) / size >= _LINK_SHARE


def _drop_chrome(body: etree._Element, page: int) -> None:
    """Walk from the top and drop chrome subtrees whole; wrappers of most of the text stay."""
    stack = [c for c in body if isinstance(c.tag, str)]
    while stack:
        el = stack.pop()
        size = _text_len(el)
        if size < _WRAPPER_SHARE * page and (_is_chrome(el) or _is_link_block(el, size)):
            el.drop_tree()  # keeps the tail text, which belongs to the parent
            continue
        stack.extend(c for c in el if isinstance(c.tag, str))


def main_container(root: etree._Element) -> etree._Element | None:
    """Remove the chrome, then pick <main>/<article> or the deepest element holding the text."""
    for el in list(root.iter(*_NEVER_TEXT)):
        el.drop_tree()
    body = root.find("body")
    if body is None:
        body = root
    page = _text_len(body)
    if not page:
        return None
    _drop_chrome(body, page)
    page = _text_len(body)
    if not page:
        return None
    content = [
        el for el in body.iter() if el.tag in _CONTENT_TAGS or (el.get("role") or "") == "main"
    ]
    content = [el for el in content if _text_len(el) >= _CONTENT_SHARE * page]
    if content:
        return max(content, key=_text_len)
    container = body
    while True:
        total = _text_len(container)
        child = next(
            (c for c in container
             if isinstance(c.tag, str) and _text_len(c) >= _DESCEND_SHARE * total),
            None,
        )
        # A <pre> is a part of the law (a decree's table of credits), never its container:
        # descending into it would drop the heading, ementa and articles around it.
        if child is None or child.tag == "pre":
            return container
        container = child


def render_text(container: etree._Element) -> str:
    """Text with a line break around every block and a space between table cells."""
    writer = _TextWriter()
    for event, el in etree.iterwalk(container, events=("start", "end")):
        tag = el.tag if isinstance(el.tag, str) else ""
        if event == "start":
            writer.start(tag)
            if el.text and tag:
                writer.data(el.text)
            continue
        writer.end(tag)
        if el is not container and el.tail:
            writer.data(el.tail)
    return writer.close()


class _TextWriter:
    """Text from start/data/end events (a tree's walk, or lxml's parser as its target): a
    line break around every block, a space after a table cell, <pre> kept as it is, nothing
    of _NEVER_TEXT elements."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.in_pre = 0
        self.hidden = 0  # depth inside a _NEVER_TEXT element

    def start(self, tag: str, attrib: object = None) -> None:
        if self.hidden or tag in _NEVER_TEXT:
            self.hidden += 1
            return
        if tag == "pre":
            self.in_pre += 1
        if tag in _BLOCKS or tag == "br":
            self.parts.append("\n")

    def end(self, tag: str) -> None:
        if self.hidden:
            self.hidden -= 1
            return
        if tag in _CELLS:
            self.parts.append(" ")
        if tag in _BLOCKS:
            self.parts.append("\n")
        if tag == "pre":
            self.in_pre -= 1

    def data(self, text: str) -> None:
        if not self.hidden:
            self.parts.append(text if self.in_pre else _squash(text))

    def close(self) -> str:
        # One line per paragraph: blank lines carry no meaning in HTML.
        return re.sub(r"[ \t]*\n[\s]*", "\n", "".join(self.parts))


def _squash(text: str) -> str:
    return re.sub(r"[ \t\r\n]+", " ", text)


def _describe(el: etree._Element) -> str:
    ident = el.get("id")
    classes = (el.get("class") or "").split()
    return f"<{el.tag}" + (f" id={ident}" if ident else "") + (
        f" class={classes[0]}" if classes and not ident else ""
    ) + ">"


_XML_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                              huge_tree=True, remove_comments=True, remove_pis=True,
                              recover=True)


def extract_xml(data: bytes) -> ExtractionResult:
    """An XML document (LexML, a portal's export): its text nodes, one per line."""
    result = ExtractionResult(status="empty", method="xml", backend=BACKEND,
                              backend_version=BACKEND_VERSION)
    root = etree.fromstring(data, _XML_PARSER)
    if root is None:
        result.detail = "no text in the XML document"
        return result
    raw = "\n".join(t.strip() for t in root.itertext() if t.strip())
    return single_page(result, raw, "no text in the XML document")
