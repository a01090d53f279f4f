"""A portal described by a TOML file: its schema, checked at load time, and how items are read.

The file names the listing URL and its paging, where each item's fields are (CSS or XPath
for HTML and XML, a JMESPath expression for JSON), optional detail page fields and the
document links. `load` checks every key, type, selector and regular expression before
anything is requested, and each error names the line of the file it comes from: tomllib
gives values without positions, so a light second pass over the text (`key_lines`) maps
each dotted key to its line.

JSON paths are JMESPath (jmespath): it has a written specification, compiles once with a
parse error that says where, and is already in the dependency tree (botocore); jsonpath-ng's
dialects differ between its own parsers.

A regular expression of the file runs on whatever the portal sends, so it is bounded: the
`regex` engine (the `re` syntax, with a timeout) runs it on at most REGEX_TEXT characters
for at most REGEX_SECONDS; a pattern that backtracks catastrophically on a few plain probe
texts is refused at load ("(a+)+$"), and one that times out REGEX_STRIKES times on the
portal's texts is given up for the run, each time recorded.
"""

from __future__ import annotations

import hashlib
import re
import string
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Any
from urllib.parse import urljoin

import jmespath
import jmespath.exceptions
import regex as bounded_re
from lxml import etree
from lxml.cssselect import CSSSelector, SelectorError

from ..enrich.types import normalize_type
from ..errors import UserError
from . import rows

FORMATS = ("html", "json", "xml")
PAGINGS = ("page", "next", "postback", "json", "bulk")
FIELDS = ("native_id", "type", "number", "year", "date", "ementa", "url", "marker")
DATE_FORMATS = ("iso", "dd/mm/aaaa", "extenso")
_MONTHS = {m: i for i, m in enumerate(
    ("janeiro", "fevereiro", "marco", "abril", "maio", "junho", "julho", "agosto", "setembro",
     "outubro", "novembro", "dezembro"), start=1)}
MAX_ITEMS_PER_PAGE = 100_000
REGEX_TEXT = 100_000  # characters of a value a pattern of the file is run on
REGEX_SECONDS = 0.2  # per search
REGEX_STRIKES = 10  # timeouts (2 s) before a pattern is given up for the run
# Texts on which a pattern that backtracks catastrophically ("(a+)+$", "(\w+\s?)*$") takes
# seconds: what the usual culprits repeat, then a character that makes the match fail.
_PROBES = [c * 3_000 + "!" for c in ("a", "1", " ", "a ", "a-", "/")]


class ConfigError(UserError):
    """A portal file that cannot be used: one line per problem, each naming its line."""


# -- where each key is: a light pass over the text ----------------------------------------------

_BARE = r"[A-Za-z0-9_-]+"
_QUOTED = r'"(?:[^"\\]|\\.)*"|\'[^\']*\''
_KEY_PART = rf"(?:{_BARE}|{_QUOTED})"
_DOTTED = rf"{_KEY_PART}(?:\s*\.\s*{_KEY_PART})*"
_HEADER = re.compile(rf"^\s*\[\s*({_DOTTED})\s*\]")
_ASSIGN = re.compile(rf"^\s*({_DOTTED})\s*=")


def _parts(dotted: str) -> tuple[str, ...]:
    found = re.findall(_KEY_PART, dotted)
    return tuple(p[1:-1] if p[:1] in "\"'" else p for p in found)


def key_lines(text: str) -> dict[tuple[str, ...], int]:
    """Each table header and key of a TOML text → its line (1-based).

    Lines inside multi-line strings and arrays are skipped: a string that looks like
    `key = value` there is not a key. Keys inside an inline table share its line.
    """
    found: dict[tuple[str, ...], int] = {}
    table: tuple[str, ...] = ()
    in_string: str | None = None  # the delimiter of the multi-line string we are in
    depth = 0  # open brackets of a multi-line array
    for number, line in enumerate(text.splitlines(), start=1):
        if in_string:
            if line.count(in_string) % 2:
                in_string = None
            continue
        if depth:
            depth = max(0, depth + _bracket_balance(line))
            continue
        header = _HEADER.match(line)
        if header and not line.lstrip().startswith("[["):
            table = _parts(header[1])
            found.setdefault(table, number)
            continue
        assign = _ASSIGN.match(line)
        if not assign:
            continue
        found.setdefault(table + _parts(assign[1]), number)
        value = line[assign.end():]
        for delimiter in ('"""', "'''"):
            if value.count(delimiter) % 2:
                in_string = delimiter
        if in_string is None:
            depth = max(0, _bracket_balance(value))
    return found


def _bracket_balance(text: str) -> int:
    text = re.sub(_QUOTED, "", text).split("#", 1)[0]
    return text.count("[") - text.count("]")


# -- the parsed description ------------------------------------------------------------------------


@dataclass(frozen=True)
class Pick:
    """How one value is read from an item (or a page): a selector and what to do with it."""

    how: str  # css, xpath, path (JMESPath), value (a constant), template
    expr: str
    attr: str | None = None  # an attribute instead of the element's text
    regex: Any = None  # a bounded_re pattern: the first group (or the whole match) of the text
    date_format: str | None = None
    run: Callable[[Any], list] | None = field(default=None, compare=False, repr=False)
    strikes: list = field(default_factory=list, compare=False, repr=False)  # its timeouts

    def values(self, node: Any, known: dict | None = None,
               notes: list[str] | None = None) -> list[str]:
        """Every value this pick finds in node (an lxml element or a JSON value); `notes`
        gets a line for each value its regex could not be run on in time."""
        if self.how == "value":
            found: list[Any] = [self.expr]
        elif self.how == "template":
            found = [_fill(self.expr, known or {})]
        else:
            found = self.run(node)
        out = []
        for value in found:
            text = _as_text(value, self.attr)
            if text is None:
                continue
            if self.regex is not None:
                match = self._search(text, notes)
                if match is None:
                    continue
                text = match.group(1) if match.groups() else match.group(0)
            text = " ".join(text.split())
            if text:
                out.append(text)
        return out

    def first(self, node: Any, known: dict | None = None,
              notes: list[str] | None = None) -> str | None:
        found = self.values(node, known, notes)
        return found[0] if found else None

    def _search(self, text: str, notes: list[str] | None) -> Any:
        if len(self.strikes) >= REGEX_STRIKES:
            return None
        try:
            return search_bounded(self.regex, text)
        except TimeoutError:
            self.strikes.append(len(text))
            if notes is not None:
                given_up = " (given up for this run)" if len(self.strikes) >= REGEX_STRIKES \
                    else ""
                notes.append(f"the regex {self.regex.pattern[:80]!r} took more than "
                             f"{REGEX_SECONDS:g} s on a value of {len(text):,} characters: "
                             f"the value left out{given_up}")
            return None


def search_bounded(pattern: Any, text: str) -> Any:
    """pattern.search on the first REGEX_TEXT characters, at most REGEX_SECONDS;
    TimeoutError past it."""
    return pattern.search(text[:REGEX_TEXT], timeout=REGEX_SECONDS)


def compile_bounded(expr: Any) -> Any:
    """A pattern of a portal file, compiled for search_bounded. ValueError with the reason
    when it is not a regex, or backtracks catastrophically on a plain probe text."""
    if not isinstance(expr, str):
        raise ValueError("not a string")
    try:
        pattern = bounded_re.compile(expr)
    except (bounded_re.error, re.error, ValueError, OverflowError, RecursionError) as e:
        raise ValueError(str(e)) from None
    for probe in _PROBES:
        try:
            search_bounded(pattern, probe)
        except TimeoutError:
            raise ValueError(f"it backtracks catastrophically (more than {REGEX_SECONDS:g} s "
                             f"on {len(probe):,} characters of {probe[:2]!r}…): bound its "
                             "repetitions, e.g. no (x+)+ nor (x|x)*") from None
    return pattern


def _fill(template: str, known: dict) -> str | None:
    try:
        return template.format_map({k: "" if v is None else v for k, v in known.items()})
    except (KeyError, ValueError):
        return None


def _as_text(value: Any, attr: str | None) -> str | None:
    if isinstance(value, etree._Element):
        if attr is not None:
            return value.get(attr)
        return "".join(value.itertext())
    if attr is not None:
        return None
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float | str):
        return str(value)
    return None  # an object or list where a value belongs: nothing to read


@dataclass
class Paging:
    kind: str
    param: str | None = None  # page, json: the page-number parameter
    start: int = 1
    size_param: str | None = None  # json: the page-size parameter
    size: int | None = None
    total: Pick | None = None  # json: where the total number of items is
    link: Pick | None = None  # next: the next page's link
    target: str | None = None  # postback: __EVENTTARGET of the pager
    argument: str = "Page${page}"  # postback: __EVENTARGUMENT of page {page} (GridView's)
    form: str = "form"  # postback: the form posted back (CSS)
    member: Any = None  # bulk: which members of a ZIP hold the norms (a bounded_re pattern)
    max_pages: int = 10_000


@dataclass
class Detail:
    url: Pick
    format: str
    fields: dict[str, Pick]
    documents: dict[str, Pick]


@dataclass
class PortalConfig:
    """A portal, as its TOML file describes it."""

    name: str
    url: str  # the listing's URL: the source's base URL
    format: str
    items: Pick
    paging: Paging
    fields: dict[str, Pick]
    documents: dict[str, Pick]  # texto_integral, anexos
    types: dict[str, str] = field(default_factory=dict)
    params: dict[str, str] = field(default_factory=dict)
    min_items: int = 0
    detail: Detail | None = None
    text: str = ""  # the file as it was read (stored with the source)

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()[:16]


# -- checking -----------------------------------------------------------------------------------


class _Checker:
    """Reads the parsed TOML, collecting every problem with its line."""

    def __init__(self, origin: str, lines: dict[tuple[str, ...], int]) -> None:
        self.origin = origin
        self.lines = lines
        self.errors: list[tuple[int, str]] = []

    def line(self, path: tuple[str, ...]) -> int:
        while path:
            if path in self.lines:
                return self.lines[path]
            path = path[:-1]
        return 1

    def error(self, path: tuple[str, ...], message: str) -> None:
        self.errors.append((self.line(path), message))

    def table(self, data: Any, path: tuple[str, ...], allowed: dict[str, type | tuple],
              required: tuple[str, ...] = ()) -> dict:
        """data as a table with these keys only, each of its type; bad keys reported."""
        name = ".".join(path) or "the file"
        if not isinstance(data, dict):
            self.error(path, f"[{name}] must be a table")
            return {}
        kept = {}
        for key, value in data.items():
            if key not in allowed:
                self.error(path + (key,), f"unknown key {_dotted(path + (key,))!r}"
                           + (f" (known: {', '.join(allowed)})" if allowed else ""))
                continue
            kinds = allowed[key]
            if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in
                                                 (kinds if isinstance(kinds, tuple)
                                                  else (kinds,))):
                self.error(path + (key,), f"{_dotted(path + (key,))} must be "
                           f"{_type_name(kinds)}, not {_type_name(type(value))}")
                continue
            kept[key] = value
        for key in required:
            if key not in data:
                self.error(path, f"missing key {_dotted(path + (key,))!r}")
        return kept

    def choice(self, value: str, path: tuple[str, ...], choices: tuple[str, ...]) -> str | None:
        if value not in choices:
            self.error(path, f"{_dotted(path)} = {value!r}: one of {', '.join(choices)}")
            return None
        return value

    def pick(self, spec: Any, path: tuple[str, ...], language: str, *,
             templates: tuple[str, ...] = ()) -> Pick | None:
        """A field's spec: a selector in the document's language, or an inline table."""
        if isinstance(spec, str):
            spec = {_DEFAULT_HOW[language]: spec}
        allowed = {"css": str, "xpath": str, "path": str, "value": str, "template": str,
                   "attr": str, "regex": str, "format": str}
        spec = self.table(spec, path, allowed)
        if not spec and not isinstance(spec, dict):
            return None
        hows = [k for k in ("css", "xpath", "path", "value", "template") if k in spec]
        if len(hows) != 1:
            self.error(path, f"{_dotted(path)} needs exactly one of css, xpath, path, value "
                       f"or template (found {', '.join(hows) or 'none'})")
            return None
        how = hows[0]
        expr = spec[how]
        run = self._compile(how, expr, path, language, templates)
        if run is False:
            return None
        regex = None
        if "regex" in spec:
            try:
                regex = compile_bounded(spec["regex"])
            except ValueError as e:
                self.error(path, f"{_dotted(path)}: bad regex {spec['regex']!r}: {e}")
                return None
            if regex.groups > 1:
                self.error(path, f"{_dotted(path)}: the regex may have at most one group "
                           "(its text is the value)")
        date_format = spec.get("format")
        if date_format is not None:
            if path[-1] != "date":
                self.error(path, f"{_dotted(path)}: format is for the date field only")
            else:
                date_format = self.choice(date_format, path + ("format",), DATE_FORMATS)
        if "attr" in spec and (how == "path" or language == "json"):
            self.error(path, f"{_dotted(path)}: attr is for HTML and XML selectors")
        return Pick(how, expr, spec.get("attr"), regex, date_format,
                    run if callable(run) else None)

    def _compile(self, how: str, expr: str, path: tuple[str, ...], language: str,
                 templates: tuple[str, ...]) -> Callable | bool | None:
        where = _dotted(path)
        if how in ("css", "xpath") and language == "json":
            self.error(path, f"{where}: a JSON listing is read with path (JMESPath), not {how}")
            return False
        if how == "path" and language != "json":
            self.error(path, f"{where}: path (JMESPath) is for JSON; use css or xpath")
            return False
        if how == "css":
            if language == "xml":
                self.error(path, f"{where}: XML is read with xpath")
                return False
            try:
                selector = CSSSelector(expr)
            except (SelectorError, SyntaxError) as e:
                self.error(path, f"{where}: bad CSS selector {expr!r}: {e}")
                return False
            return lambda node: selector(node)
        if how == "xpath":
            try:
                xpath = etree.XPath(expr)
            except etree.XPathSyntaxError as e:
                self.error(path, f"{where}: bad XPath {expr!r}: {e}")
                return False

            def run(node: Any) -> list:
                try:
                    found = xpath(node)
                except etree.XPathEvalError:
                    return []
                return found if isinstance(found, list) else [found]

            return run
        if how == "path":
            try:
                compiled = jmespath.compile(expr)
            except jmespath.exceptions.JMESPathError as e:
                self.error(path, f"{where}: bad JMESPath {expr!r}: "
                           f"{str(e).splitlines()[0].rstrip(': ')}")
                return False

            def search(node: Any) -> list:
                try:
                    found = compiled.search(node)
                except jmespath.exceptions.JMESPathError:
                    return []
                if found is None:
                    return []
                return found if isinstance(found, list) else [found]

            return search
        if how == "template":
            try:
                names = [n for _, n, _, _ in string.Formatter().parse(expr) if n is not None]
            except ValueError as e:
                self.error(path, f"{where}: bad template {expr!r}: {e}")
                return False
            unknown = [n for n in names if n not in templates]
            if unknown:
                self.error(path, f"{where}: the template names {', '.join(unknown)}, which "
                           f"is not a field before it ({', '.join(templates) or 'none'})")
                return False
        return None


_DEFAULT_HOW = {"html": "css", "xml": "xpath", "json": "path"}


def _dotted(path: tuple[str, ...]) -> str:
    return ".".join(path)


def _type_name(kinds: Any) -> str:
    names = {str: "a string", int: "an integer", bool: "true or false", dict: "a table",
             float: "a number", list: "an array"}
    if isinstance(kinds, tuple):
        return " or ".join(names.get(k, k.__name__) for k in kinds)
    return names.get(kinds, kinds.__name__)


def load(text: str, origin: str = "portal.toml") -> PortalConfig:
    """The portal a TOML text describes; ConfigError listing each problem with its line."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{origin}: not valid TOML: {e}") from None
    check = _Checker(origin, key_lines(text))
    top = check.table(data, (), {"name": str, "listing": dict, "paging": dict, "fields": dict,
                                 "documents": dict, "types": dict, "detail": dict},
                      ("name", "listing", "fields"))
    listing = check.table(top.get("listing", {}), ("listing",),
                          {"url": str, "format": str, "paging": str, "items": (str, dict),
                           "params": dict, "min_items": int},
                          ("url", "format", "paging", "items"))
    url = listing.get("url")
    if url is not None and rows.url(url) is None:
        check.error(("listing", "url"), f"listing.url {url!r} is not an http(s) URL")
    language = check.choice(listing["format"], ("listing", "format"), FORMATS) \
        if "format" in listing else None
    kind = check.choice(listing["paging"], ("listing", "paging"), PAGINGS) \
        if "paging" in listing else None
    language = language or "html"
    if kind == "postback" and language != "html":
        check.error(("listing", "paging"), "paging = \"postback\" is ASP.NET's: the listing "
                    "must be html")
    if kind == "json" and language != "json":
        check.error(("listing", "paging"), "paging = \"json\" needs format = \"json\"")
    items = check.pick(listing["items"], ("listing", "items"), language) \
        if "items" in listing else None
    if items is not None and items.how in ("value", "template"):
        check.error(("listing", "items"), "listing.items must be a selector")
    params = check.table(listing.get("params", {}), ("listing", "params"),
                         dict.fromkeys(listing.get("params", {}), (str, int)))
    min_items = listing.get("min_items", 0)
    if not 0 <= min_items <= MAX_ITEMS_PER_PAGE:
        check.error(("listing", "min_items"), f"listing.min_items must be 0 to "
                    f"{MAX_ITEMS_PER_PAGE:,}")
    paging = _paging(check, top.get("paging", {}), kind, language)
    fields, documents = _fields(check, top, ("fields",), ("documents",), language)
    if isinstance(top.get("fields"), dict) and "native_id" not in top["fields"]:
        check.error(("fields",), "missing key 'fields.native_id' (each norm's own id at the "
                    "portal)")
    types = check.table(top.get("types", {}), ("types",),
                        dict.fromkeys(top.get("types", {}), str))
    detail = None
    if "detail" in top:
        detail = _detail(check, top["detail"], tuple(fields), language)
    if check.errors:
        lines = sorted(set(check.errors))
        raise ConfigError("\n".join(f"{origin}:{n}: {m}" for n, m in lines))
    return PortalConfig(name=top["name"], url=url, format=language, items=items,
                        paging=paging, fields=fields, documents=documents,
                        types={k.strip().casefold(): v for k, v in types.items()},
                        params={k: str(v) for k, v in params.items()}, min_items=min_items,
                        detail=detail, text=text)


def _fields(check: _Checker, top: dict, fields_path: tuple[str, ...],
            documents_path: tuple[str, ...], language: str,
            earlier: tuple[str, ...] = ()) -> tuple[dict[str, Pick], dict[str, Pick]]:
    fields_spec = _lookup(top, fields_path)
    fields: dict[str, Pick] = {}
    raw = check.table(fields_spec if fields_spec is not None else {}, fields_path,
                      dict.fromkeys(FIELDS, (str, dict)))
    known = list(earlier)
    for name in FIELDS:  # in order: a template may name the fields before it
        if name in raw:
            pick = check.pick(raw[name], fields_path + (name,), language,
                              templates=tuple(known))
            if pick is not None:
                fields[name] = pick
            known.append(name)
    documents_spec = _lookup(top, documents_path)
    raw_docs = check.table(documents_spec if documents_spec is not None else {},
                           documents_path,
                           {"texto_integral": (str, dict), "anexos": (str, dict)})
    documents = {}
    for role, spec in raw_docs.items():
        pick = check.pick(spec, documents_path + (role,), language, templates=tuple(known))
        if pick is not None:
            documents[role] = pick
    return fields, documents


def _lookup(data: dict, path: tuple[str, ...]) -> Any:
    for key in path:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def _paging(check: _Checker, spec: Any, kind: str | None, language: str) -> Paging:
    path = ("paging",)
    allowed: dict[str, Any] = {"max_pages": int}
    required: tuple[str, ...] = ()
    if kind == "page":
        allowed |= {"param": str, "start": int}
        required = ("param",)
    elif kind == "next":
        allowed |= {"link": (str, dict)}
        required = ("link",)
    elif kind == "postback":
        allowed |= {"target": str, "argument": str, "form": str}
        required = ("target",)
    elif kind == "json":
        allowed |= {"param": str, "start": int, "size_param": str, "size": int,
                    "total": (str, dict)}
        required = ("param",)
    elif kind == "bulk":
        allowed |= {"member": str}
    if kind in ("page", "next", "postback", "json") and spec == {} and required:
        check.error(("listing", "paging"), f"paging = {kind!r} needs a [paging] table with "
                    f"{', '.join(required)}")
        return Paging(kind)
    raw = check.table(spec, path, allowed, required)
    paging = Paging(kind or "page", max_pages=raw.get("max_pages", 10_000))
    paging.param = raw.get("param")
    paging.start = raw.get("start", 1)
    paging.size_param = raw.get("size_param")
    paging.size = raw.get("size")
    if paging.size is not None and not 1 <= paging.size <= MAX_ITEMS_PER_PAGE:
        check.error(path + ("size",), f"paging.size must be 1 to {MAX_ITEMS_PER_PAGE:,}")
    if paging.size_param and paging.size is None:
        check.error(path + ("size_param",), "paging.size_param needs paging.size")
    if not 1 <= paging.max_pages <= 1_000_000:
        check.error(path + ("max_pages",), "paging.max_pages must be 1 to 1,000,000")
    if "total" in raw:
        paging.total = check.pick(raw["total"], path + ("total",), language)
    if "link" in raw:
        paging.link = check.pick(raw["link"], path + ("link",), language)
    if "target" in raw:
        paging.target = raw["target"]
        paging.argument = raw.get("argument", paging.argument)
        if "{page}" not in paging.argument:
            check.error(path + ("argument",), "paging.argument must contain {page} (the "
                        "page's number)")
        paging.form = raw.get("form", "form")
        try:
            CSSSelector(paging.form)
        except (SelectorError, SyntaxError) as e:
            check.error(path + ("form",), f"paging.form: bad CSS selector: {e}")
    if "member" in raw:
        try:
            paging.member = compile_bounded(raw["member"])
        except ValueError as e:
            check.error(path + ("member",), f"paging.member: bad regex {raw['member']!r}: {e}")
    return paging


def _detail(check: _Checker, spec: Any, earlier: tuple[str, ...],
            listing_language: str) -> Detail | None:
    path = ("detail",)
    raw = check.table(spec, path, {"url": (str, dict), "format": str, "fields": dict,
                                   "documents": dict}, ("url",))
    language = check.choice(raw.get("format", "html"), path + ("format",), FORMATS) or "html"
    # The detail page's URL is read from the listing's item, in the listing's language.
    url = None
    if "url" in raw:
        url_spec = raw["url"]
        if isinstance(url_spec, str):
            url_spec = {"template": url_spec}
        url = check.pick(url_spec, path + ("url",), listing_language, templates=earlier)
    fields, documents = _fields(check, {"detail": raw}, ("detail", "fields"),
                                ("detail", "documents"), language, earlier)
    if url is None:
        return None
    return Detail(url, language, fields, documents)


# -- values ------------------------------------------------------------------------------------


def parse_date(text: str | None, form: str | None) -> date | None:
    """A date as the portal writes it: ISO, dd/mm/aaaa, or "24 de dezembro de 1969"."""
    if not text:
        return None
    forms = [form] if form else ["iso", "dd/mm/aaaa"]
    for kind in forms:
        if kind == "iso":
            found = rows.iso_date(text)
            if found:
                return found
        elif kind == "dd/mm/aaaa":
            match = re.search(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b", text)
            if match:
                try:
                    return date(int(match[3]), int(match[2]), int(match[1]))
                except ValueError:
                    return None
        elif kind == "extenso":
            from ..jurisdictions import fold

            match = re.search(r"(\d{1,2})[º°o]?\s+de\s+([a-z]+)\s+de\s+(\d{4})", fold(text))
            if match and match[2] in _MONTHS:
                try:
                    return date(int(match[3]), _MONTHS[match[2]], int(match[1]))
                except ValueError:
                    return None
    return None


@dataclass
class Item:
    """One norm as an item of a listing gave it."""

    native_id: str
    fields: dict
    files: list[tuple[str, str]]
    marker: str
    values: dict = field(default_factory=dict)  # as read: what a detail page's template names
    notes: list[str] = field(default_factory=list)
    detail_url: str | None = None  # its detail page, when the description has one


def read_item(config: PortalConfig, node: Any, page_url: str,
              fields: dict[str, Pick] | None = None,
              documents: dict[str, Pick] | None = None,
              known: dict | None = None, *, missing: dict[str, int] | None = None) -> Item | None:
    """The norm an item (or a detail page) holds; None when it has no native id.

    `known` are fields read before (the listing's, for a detail page); `missing` counts,
    per field, the items where its selector found nothing.
    """
    fields = config.fields if fields is None else fields
    documents = config.documents if documents is None else documents
    values: dict[str, Any] = dict(known or {})
    notes: list[str] = []
    for name, pick in fields.items():
        found = pick.first(node, values, notes)
        if found is None:
            if missing is not None:
                missing[name] = missing.get(name, 0) + 1
            values.setdefault(name, None)
            continue
        values[name] = found
    native = rows.label(values.get("native_id"))
    if not native:
        return None
    native = native[:200]
    record: dict[str, Any] = {}
    type_raw = rows.text(values.get("type"))
    if type_raw:
        type_raw = config.types.get(type_raw.strip().casefold(), type_raw)[:200]
    record["type_raw"] = type_raw
    record["type_normalized"] = normalize_type(type_raw)
    record["number"] = rows.label(values.get("number"))
    raw_date = values.get("date")
    when = parse_date(raw_date, fields["date"].date_format if "date" in fields
                      else None) if isinstance(raw_date, str) else raw_date
    if raw_date and when is None:
        notes.append(f"date {raw_date[:40]!r} is not a date: left out")
    record["date"] = when if isinstance(when, date) else None
    raw_year = year = values.get("year")
    if isinstance(year, str):
        match = re.search(r"\b(\d{4})\b", year)
        year = rows.year(int(match[1])) if match else None
    elif not isinstance(year, int):
        year = None
    if raw_year not in (None, "") and year is None:
        notes.append(f"year {str(raw_year)[:40]!r} is not a year: left out")
    record["year"] = year or (record["date"].year if record["date"] else None)
    record["ementa"] = rows.text(values.get("ementa"))
    files: list[tuple[str, str]] = []
    seen: set[str] = set()
    for role, pick in documents.items():
        found = pick.values(node, {**values, "native_id": native}, notes)
        if role == "texto_integral":
            found = found[:1]
        for link in found:
            absolute = rows.url(urljoin(page_url, link))
            if absolute is None:
                notes.append(f"{role} link {link[:120]!r} is not an http(s) URL: left out")
                continue
            if absolute not in seen:
                seen.add(absolute)
                files.append((absolute, "texto_integral" if role == "texto_integral"
                              else "anexo"))
    page = values.get("url")
    record["url"] = (rows.url(urljoin(page_url, page)) if page else None) \
        or (files[0][0] if files else f"{page_url}#{native}")
    marker = rows.text(values.get("marker")) or _marker(record, files)
    keep = {k: v for k, v in values.items() if isinstance(v, str | int)}
    return Item(native, record, files, marker, keep, notes)


def _marker(record: dict, files: list) -> str:
    """What changes when the portal changes the item: a digest of what was read."""
    text = repr(sorted((k, str(v)) for k, v in record.items())) + repr(files)
    return hashlib.sha256(text.encode()).hexdigest()[:24]
