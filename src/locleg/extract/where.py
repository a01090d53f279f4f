"""The --where filter of `locleg extract`: a small language over extraction records.

    confidence < 0.8
    status = 'failed' and error ~ 'timeout'
    method in ('ocr', 'mixed') and (pages > 50 or confidence is null)
    not backend = 'tesseract'

It is parsed here and compiled to a SQLAlchemy expression whose values are bound
parameters: no text the user writes ever reaches the database as SQL. Comparisons follow
SQL: `confidence < 0.8` leaves out records without a confidence (say `or confidence is
null` to include them).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from sqlalchemy import and_, not_, or_
from sqlalchemy.sql.elements import ColumnElement

from ..errors import UserError
from ..store.limits import integer_range
from ..store.schema import extraction, version


class WhereError(UserError):
    """A --where expression that does not parse; the message says where and why."""


# field -> (column, kind)
FIELDS: dict[str, tuple[ColumnElement, str]] = {
    "status": (extraction.c.status, "text"),
    "method": (extraction.c.method, "text"),
    "backend": (extraction.c.backend, "text"),
    "backend_version": (extraction.c.backend_version, "text"),
    "confidence": (extraction.c.confidence, "number"),
    "pages": (extraction.c.pages, "number"),
    "chars": (extraction.c.chars, "number"),
    "duration_s": (extraction.c.duration_s, "number"),
    "error": (extraction.c.error, "text"),
    "detail": (extraction.c.detail, "text"),
    "media_type": (version.c.media_type, "text"),
    "size": (version.c.size, "number"),
}
_KEYWORDS = {"and", "or", "not", "in", "is", "null"}
# SQLite binds integers of 64 bits at most (PostgreSQL's bigint is as wide): a number beyond
# cannot be compared, it can only fail.
LARGEST_NUMBER = 2**63 - 1
# Far beyond a hand-written filter, and within what the databases parse: SQLite refuses an
# expression tree deeper than 1,000 and the parser here recurses once per level.
MAX_DEPTH = 100
MAX_TERMS = 500
_TOKEN = re.compile(
    r"\s*(?:(?P<number>-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)(?![\w.])"
    r"|(?P<string>'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\")"
    r"|(?P<word>[A-Za-z_]\w*)"
    r"|(?P<op><=|>=|!=|<>|==|=|<|>|~)"
    r"|(?P<punct>[(),]))",
)
_OPS = {
    "=": lambda c, v: c == v, "==": lambda c, v: c == v,
    "!=": lambda c, v: c != v, "<>": lambda c, v: c != v,
    "<": lambda c, v: c < v, "<=": lambda c, v: c <= v,
    ">": lambda c, v: c > v, ">=": lambda c, v: c >= v,
}


@dataclass(frozen=True)
class _Token:
    kind: str  # number, string, word, op, punct, end
    value: str | int | float
    at: int  # offset in the expression, for messages


def _tokens(text: str) -> list[_Token]:
    out: list[_Token] = []
    pos = 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            start = len(text) - len(text[pos:].lstrip())
            raise WhereError(f"--where: unexpected {text[start:start + 10]!r} at character "
                             f"{start + 1}")
        kind = m.lastgroup or ""
        raw = m.group(kind)
        at = m.start(kind)
        if kind == "number":
            out.append(_Token(kind, _number(raw, at), at))
        elif kind == "string":
            quote = raw[0]
            out.append(_Token(kind, raw[1:-1].replace(quote * 2, quote), at))
        elif kind == "word":
            out.append(_Token(kind, raw.lower(), at))
        else:
            out.append(_Token(kind, raw, at))
        pos = m.end()
    out.append(_Token("end", "", len(text)))
    return out


def _number(raw: str, at: int) -> int | float:
    """An integer literal stays exact; a number no database can compare is an error."""
    digits = re.split(r"[.eE]", raw.lstrip("-"))[0].lstrip("0")
    # Past 19 digits a number is out of range: no need to convert it (Python refuses
    # integers of more than 4,300 digits anyway).
    number: int | float = (math.inf if len(digits) > 19 else
                           int(raw) if re.fullmatch(r"-?[0-9]+", raw) else float(raw))
    if not math.isfinite(number) or abs(number) > LARGEST_NUMBER:
        shown = raw if len(raw) <= 24 else f"{raw[:12]}…({len(raw)} digits)"
        raise WhereError(f"--where: the number {shown} at character {at + 1} is out of range "
                         f"(at most {LARGEST_NUMBER:,} either way)")
    return number


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokens(text)
        self.i = 0
        self.depth = 0  # parentheses and 'not' around the current token
        self.terms = 0  # comparisons and listed values so far

    @property
    def tok(self) -> _Token:
        return self.tokens[self.i]

    def fail(self, expected: str) -> WhereError:
        tok = self.tok
        found = "the end" if tok.kind == "end" else repr(self.text[tok.at:].split()[0])
        return WhereError(f"--where: expected {expected} at character {tok.at + 1}, "
                          f"found {found}")

    def word(self, *words: str) -> bool:
        if self.tok.kind == "word" and self.tok.value in words:
            self.i += 1
            return True
        return False

    def punct(self, value: str) -> bool:
        if self.tok.kind == "punct" and self.tok.value == value:
            self.i += 1
            return True
        return False

    def parse(self) -> ColumnElement:
        if self.tok.kind == "end":
            raise WhereError("--where: the expression is empty (e.g. \"confidence < 0.8\")")
        expr = self.any_()
        if self.tok.kind != "end":
            raise self.fail("'and', 'or' or the end")
        return expr

    def any_(self) -> ColumnElement:
        parts = [self.all_()]
        while self.word("or"):
            parts.append(self.all_())
        return parts[0] if len(parts) == 1 else or_(*parts)

    def all_(self) -> ColumnElement:
        parts = [self.negation()]
        while self.word("and"):
            parts.append(self.negation())
        return parts[0] if len(parts) == 1 else and_(*parts)

    def negation(self) -> ColumnElement:
        if self.tok.kind in ("word", "punct") and self.tok.value in ("not", "("):
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise WhereError(f"--where: nested too deeply at character {self.tok.at + 1} "
                                 f"(at most {MAX_DEPTH} levels of parentheses and 'not')")
            try:
                if self.word("not"):
                    return not_(self.negation())
                self.punct("(")
                expr = self.any_()
                if not self.punct(")"):
                    raise self.fail("')'")
                return expr
            finally:
                self.depth -= 1
        return self.comparison()

    def count_term(self) -> None:
        self.terms += 1
        if self.terms > MAX_TERMS:
            raise WhereError(f"--where: too long at character {self.tok.at + 1} (at most "
                             f"{MAX_TERMS} comparisons and listed values)")

    def comparison(self) -> ColumnElement:
        tok = self.tok
        if tok.kind != "word" or tok.value in _KEYWORDS:
            raise self.fail("a field name")
        if tok.value not in FIELDS:
            raise WhereError(f"--where: unknown field {tok.value!r} (fields: "
                             f"{', '.join(sorted(FIELDS))})")
        self.i += 1
        self.count_term()
        name = str(tok.value)
        column, kind = FIELDS[name]
        if self.word("is"):
            negated = self.word("not")
            if not self.word("null"):
                raise self.fail("'null'")
            return column.is_not(None) if negated else column.is_(None)
        negated = self.word("not")
        if self.word("in"):
            if not self.punct("("):
                raise self.fail("'(' after 'in'")
            values = [self.value(name, kind)]
            while self.punct(","):
                self.count_term()
                values.append(self.value(name, kind))
            if not self.punct(")"):
                raise self.fail("',' or ')'")
            return column.not_in(values) if negated else column.in_(values)
        if negated:
            raise self.fail("'in' after 'not'")
        op = self.tok
        if op.kind != "op":
            raise self.fail(f"an operator after {name!r} (= != < <= > >= ~ in, is null)")
        self.i += 1
        if op.value == "~":
            if kind != "text":
                raise WhereError(f"--where: '~' (contains) needs a text field, not {name!r}")
            needle = self.value(name, kind)
            pattern = "%" + re.sub(r"([\\%_])", r"\\\1", str(needle)) + "%"
            return column.ilike(pattern, escape="\\")
        return _OPS[str(op.value)](column, self.value(name, kind))

    def value(self, name: str, kind: str) -> str | float | int:
        tok = self.tok
        if kind == "number":
            if tok.kind != "number":
                raise self.fail(f"a number for {name!r}")
            bounds = integer_range(FIELDS[name][0])
            if bounds and not bounds[0] <= tok.value <= bounds[1]:
                raise WhereError(f"--where: the number {self.text[tok.at:].split()[0][:24]} at "
                                 f"character {tok.at + 1} is out of range for {name!r} "
                                 f"(at most {bounds[1]:,} either way)")
            self.i += 1
            number = tok.value
            if name == "confidence":
                return float(number)
            return int(number) if isinstance(number, float) and number.is_integer() else number
        if tok.kind != "string":
            raise self.fail(f"a quoted text for {name!r} (e.g. {name} = 'ocr')")
        self.i += 1
        return str(tok.value)


def parse_where(text: str) -> ColumnElement:
    """Compile a --where expression; WhereError (one line, says where) when it is wrong."""
    return _Parser(text).parse()
