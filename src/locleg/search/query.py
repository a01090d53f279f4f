"""The search language users type, parsed once, compiled for the index by search/textindex.py.

    moto taxi              either word, in any inflection (servidor finds servidores); the
                           norms holding more of the words rank first; words as common as
                           "de" narrow nothing
    +moto taxi             moto required, taxi optional (ranks higher where it is); a
                           number (lei 2199) is required too
    moto AND taxi          both required
    "moto táxi"            the exact phrase, required; "servidor" in quotes: that exact word
    tax*                   a prefix
    táxi OR ônibus         either
    táxi NOT moto, -moto   exclusion
    (a OR b) c             grouping

Accents and case never matter. A hyphenated word (moto-táxi) matches the phrase of its parts
or the joined word (mototáxi). Anything malformed raises QueryError with a message fit to show.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import UserError
from ..jurisdictions import fold
from .text import _WORD, MAX_VARIANT

MAX_LENGTH = 500
MAX_WORDS = 32
MIN_PREFIX = 2
# FTS operators with no meaning here: a chunk made only of them is a mistake worth saying.
_SYNTAX_ONLY = re.compile(r"^[\^:{}+*]+$")
_JOINERS = re.compile(r"^[-\u2010\u2011]$")


class QueryError(UserError):
    """A search query that cannot be understood; the message says why and how to fix it."""


def quoted(value: str, limit: int = 60) -> str:
    """A value someone typed, quoted for an error message and cut if long."""
    return repr(value if len(value) <= limit else value[:limit] + "…")


@dataclass(frozen=True)
class Word:
    raw: str  # as typed (letters and digits only), handed to the index's analyzers
    folded: str  # lowercase without accents
    prefix: bool = False
    exact: bool = False  # quoted: matched as typed (folded), not stemmed


@dataclass(frozen=True)
class Phrase:
    words: tuple[Word, ...]


@dataclass(frozen=True)
class Any_:
    items: tuple


@dataclass(frozen=True)
class All:
    items: tuple


@dataclass(frozen=True)
class Some:
    """Words typed side by side: each optional, a norm holding more of them ranks higher
    (search/textindex.py rewards the coordination); the `required` ones (quoted, +word, or
    joined by AND) must all be there."""

    items: tuple  # optional
    required: tuple = ()


@dataclass(frozen=True)
class Except:
    include: object
    exclude: object


Node = Word | Phrase | Any_ | All | Some | Except  # and Joined, inside Some


# -- lexing --------------------------------------------------------------------------------

_OPERATORS = {"AND", "OR", "NOT"}


def _chunk_node(chunk: str, quoted: bool) -> Node | None:
    """One whitespace-free chunk (or a quoted phrase) as a node; None when it has no words."""
    prefix = False
    if chunk.endswith("*"):
        prefix = True
        chunk = chunk.rstrip("*")
    if "*" in chunk:
        raise QueryError("'*' goes at the end of a word, for a prefix search: tax*")
    parts = _WORD.findall(chunk)
    if not parts:
        if prefix or (not quoted and _SYNTAX_ONLY.match(chunk)):
            shown = chunk + ("*" if prefix else "")
            raise QueryError(f"{shown!r} is not a search operator here: use quotes for an exact "
                             "phrase, * after a word for a prefix, and AND, OR, NOT")
        return None
    if prefix and len(parts[-1]) < MIN_PREFIX:
        raise QueryError(f"a prefix needs at least {MIN_PREFIX} letters: {parts[-1]}*")
    words = tuple(Word(p, fold(p), prefix and i == len(parts) - 1, exact=quoted)
                  for i, p in enumerate(parts))
    if len(words) == 1:
        return words[0]
    phrase = Phrase(words)
    if quoted:
        return phrase
    separators = re.split(r"[^\W_]+", chunk)[1:-1]
    digits = all(p.isdigit() for p in parts)
    if all(_JOINERS.match(s) for s in separators) or (digits and set(separators) == {"."}):
        joined = "".join(p for p in parts)
        return Any_((phrase, Word(joined, fold(joined), prefix)))
    return phrase


def _lex(text: str) -> list[tuple[str, object]]:
    tokens: list[tuple[str, object]] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif c in "()":
            tokens.append((c, None))
            i += 1
        elif c == '"':
            end = text.find('"', i + 1)
            if end < 0:
                raise QueryError("a quote is not closed: put phrases between two \" marks")
            inner = text[i + 1:end]
            i = end + 1
            if i < n and text[i] == "*":
                inner += "*"
                i += 1
            node = _chunk_node(inner.strip(), quoted=True) if inner.strip() else None
            if node is not None:
                tokens.append(("term", node))
        else:
            j = i
            while j < n and not text[j].isspace() and text[j] not in '()"':
                j += 1
            chunk = text[i:j]
            i = j
            if chunk in _OPERATORS:
                tokens.append((chunk, None))
                continue
            negated = chunk.startswith("-") and len(chunk) > 1
            required = chunk.startswith("+") and len(chunk) > 1
            node = _chunk_node(chunk[1:] if negated or required else chunk, quoted=False)
            if node is not None:
                if negated:
                    tokens.append(("NOT", None))
                if required:
                    tokens.append(("PLUS", None))
                tokens.append(("term", node))
    return tokens


# -- parsing -------------------------------------------------------------------------------


class _Parser:
    def __init__(self, tokens: list[tuple[str, object]]) -> None:
        self.tokens = tokens
        self.i = 0

    def peek(self) -> str | None:
        return self.tokens[self.i][0] if self.i < len(self.tokens) else None

    def take(self) -> tuple[str, object]:
        token = self.tokens[self.i]
        self.i += 1
        return token

    def parse(self) -> Node:
        node = self.any_()
        if self.peek() is not None:
            kind = self.peek()
            if kind == ")":
                raise QueryError("a ')' has no matching '('")
            raise QueryError(f"unexpected {kind}")
        return node

    def any_(self) -> Node:
        items = [self.all_()]
        while self.peek() == "OR":
            self.take()
            if self.peek() in (None, ")", "OR", "AND"):
                raise QueryError("OR needs a word on each side: táxi OR ônibus")
            items.append(self.all_())
        return items[0] if len(items) == 1 else Any_(tuple(items))

    def all_(self) -> Node:
        include: list[Node] = []
        required: list[bool] = []  # quoted, +word, or joined to a neighbour by AND
        exclude: list[Node] = []
        joined = False  # an AND came since the last word
        while self.peek() not in (None, ")", "OR"):
            if self.peek() == "AND":
                self.take()
                if not (include or exclude) or self.peek() in (None, ")", "OR", "AND"):
                    raise QueryError("AND needs a word on each side: moto AND táxi")
                if required:
                    required[-1] = True
                joined = True
                continue
            if self.peek() == "NOT":
                self.take()
                if self.peek() in (None, ")", "OR", "AND", "NOT", "PLUS"):
                    raise QueryError("NOT needs a word after it: táxi NOT moto")
                exclude.append(self.primary())
            else:
                plus = self.peek() == "PLUS"
                if plus:
                    self.take()
                node = self.primary()
                include.append(node)
                required.append(plus or joined or _quoted(node) or _number(node))
            joined = False
        if not include:
            if exclude:
                raise QueryError("NOT needs something to exclude from: táxi NOT moto")
            kind = self.peek()
            if kind == "OR":
                raise QueryError("OR needs a word on each side: táxi OR ônibus")
            raise QueryError("empty parentheses or nothing to search for")
        node: Node
        if len(include) == 1 and _plain(include[0]) and not required[0]:
            node = Some((include[0],))  # one word, with the synonyms it may have
        elif len(include) == 1:
            node = include[0]
        elif all(required):
            node = All(tuple(include))
        else:
            node = Some(tuple(n for n, r in zip(include, required, strict=True) if not r),
                        tuple(n for n, r in zip(include, required, strict=True) if r))
        if exclude:
            node = Except(node, exclude[0] if len(exclude) == 1 else Any_(tuple(exclude)))
        return node

    def primary(self) -> Node:
        kind, value = self.take()
        if kind == "(":
            node = self.any_()
            if self.peek() != ")":
                raise QueryError("a '(' is not closed")
            self.take()
            return node
        if kind == "term":
            return value  # type: ignore[return-value]
        raise QueryError(f"unexpected {kind}")


def _plain(node: Node) -> bool:
    return isinstance(node, Word) and not (node.prefix or node.exact)


def _quoted(node: Node) -> bool:
    """Whether the user quoted this term: a quoted word or phrase is required."""
    if isinstance(node, Word):
        return node.exact
    if isinstance(node, Phrase):
        return node.words[0].exact
    return False


def _number(node: Node) -> bool:
    """Whether the term is a number (2199, 2.199): a number names a norm or a year, it does
    not describe one, so it is required like a quoted word."""
    if isinstance(node, Word):
        return node.folded.isdigit()
    if isinstance(node, Phrase):
        return all(w.folded.isdigit() for w in node.words)
    if isinstance(node, Any_):
        return all(_number(i) for i in node.items)
    return False


def parse(text: str | None) -> Node | None:
    """The query as a tree; None when it holds no words at all (an empty search)."""
    text = (text or "").strip()
    if not text:
        return None
    if len(text) > MAX_LENGTH:
        raise QueryError(f"the query is too long (at most {MAX_LENGTH} characters)")
    tokens = _lex(text)
    if not tokens:
        return None
    if sum(1 for kind, _ in tokens if kind == "term") > MAX_WORDS:
        raise QueryError(f"too many words (at most {MAX_WORDS})")
    if not any(kind == "term" for kind, _ in tokens):
        if any(kind in _OPERATORS for kind, _ in tokens):
            raise QueryError("AND, OR and NOT need words to work on: moto AND táxi")
        raise QueryError("nothing to search for: empty parentheses or punctuation only")
    return _Parser(tokens).parse()


def words_of(node: Node | None) -> list[Word]:
    """Every word of the query, for highlighting and for showing what was searched."""
    if node is None:
        return []
    if isinstance(node, Word):
        return [node]
    if isinstance(node, Phrase):
        return list(node.words)
    if isinstance(node, Except):
        return words_of(node.include)
    if isinstance(node, Joined):
        return words_of(node.node)
    if isinstance(node, Some):
        return [w for item in (*node.required, *node.items) for w in words_of(item)]
    return [w for item in node.items for w in words_of(item)]


# Up to this many words typed apart are also tried joined: 'guarda chuva' finds 'guardachuva'.
MAX_JOINED = 4


def with_joined_words(node: Node | None) -> Node | None:
    """The query where words typed side by side also match their joined form, as the index
    joins a hyphenated compound ('guarda chuva' finds 'guarda-chuva', which the text splits
    into two words, and also 'guardachuva'). Only for runs of 2 to MAX_JOINED plain words."""
    if node is None or isinstance(node, Word | Phrase):
        return node
    if isinstance(node, Except):
        return Except(with_joined_words(node.include), with_joined_words(node.exclude))
    if isinstance(node, Some):
        required = tuple(with_joined_words(i) for i in node.required)
        if not _joinable(node.items):
            return Some(node.items, required)
        return Some(node.items + tuple(Joined(a) for a in _joinings(node.items)), required)
    items = tuple(with_joined_words(i) for i in node.items)
    if isinstance(node, Any_):
        return Any_(items)
    if not _joinable(items):
        return All(items)
    alternatives = _joinings(items)
    return Any_((All(items), *alternatives)) if alternatives else All(items)


def _joinable(items: tuple) -> bool:
    return 2 <= len(items) <= MAX_JOINED and all(
        isinstance(w, Word) and not w.prefix for w in items)


def _joinings(items: tuple) -> list[Node]:
    """Every way of joining some neighbours of a run of plain words, the run as typed aside."""
    alternatives: list[Node] = []
    for cuts in range(1, 2 ** (len(items) - 1)):
        # Bit i of `cuts` set: words i and i + 1 are joined.
        groups: list[list[Word]] = [[items[0]]]
        for i, word in enumerate(items[1:]):
            if cuts >> i & 1:
                groups[-1].append(word)
            else:
                groups.append([word])
        joined = tuple(Word("".join(w.raw for w in g), "".join(w.folded for w in g))
                       for g in groups)
        if all(len(w.folded) <= MAX_VARIANT for w in joined):
            alternatives.append(joined[0] if len(joined) == 1 else All(joined))
    return alternatives


@dataclass(frozen=True)
class Joined:
    """Optional words typed apart, also tried joined ('guarda chuva' -> guardachuva): an
    alternative that ranks, not a word of its own for the coordination reward."""

    node: Node
