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

import re
from dataclasses import dataclass

from sqlalchemy import and_, not_, or_
from sqlalchemy.sql.elements import ColumnElement

from ..errors import UserError
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
_TOKEN = re.compile(
    r"\s*(?:(?P<number>-?\d+(?:\.\d+)?(?:e-?\d+)?)(?![\w.])"
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
    value: str | float
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
            out.append(_Token(kind, float(raw), at))
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


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokens(text)
        self.i = 0

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
        if self.word("not"):
            return not_(self.negation())
        if self.punct("("):
            expr = self.any_()
            if not self.punct(")"):
                raise self.fail("')'")
            return expr
        return self.comparison()

    def comparison(self) -> ColumnElement:
        tok = self.tok
        if tok.kind != "word" or tok.value in _KEYWORDS:
            raise self.fail("a field name")
        if tok.value not in FIELDS:
            raise WhereError(f"--where: unknown field {tok.value!r} (fields: "
                             f"{', '.join(sorted(FIELDS))})")
        self.i += 1
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
            self.i += 1
            number = float(tok.value)
            return int(number) if number.is_integer() and name != "confidence" else number
        if tok.kind != "string":
            raise self.fail(f"a quoted text for {name!r} (e.g. {name} = 'ocr')")
        self.i += 1
        return str(tok.value)


def parse_where(text: str) -> ColumnElement:
    """Compile a --where expression; WhereError (one line, says where) when it is wrong."""
    return _Parser(text).parse()
