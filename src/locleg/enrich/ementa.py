"""The ementa as the text prints it: the paragraph right after the heading ("DISPÕE SOBRE ...",
"Altera a Lei nº ...", often in capitals or in quotation marks), for norms whose record has none;
and, where the record has one, whether the two are one ementa (`disagreement`).

A person finds it by where it stands: after the heading line(s) and before the preamble ("O
PREFEITO MUNICIPAL DE ..., no uso de suas atribuições", "A CÂMARA MUNICIPAL aprovou e eu
sanciono", "CONSIDERANDO ..."), the enacting clause or the first article. What stands there
and is not an ementa is passed over: a publisher's annotation ("(Revogado pelo Decreto nº 3)",
a "> note", "Autor: ..."), or refused: a preamble, a letterhead, an article. A norm printed
without an ementa (straight from the heading to its preamble) has none: nothing is made up.

Texts come as extraction gives them (a PDF's text layer, OCR, HTML, Markdown): lines wrapped
inside the paragraph are joined, Markdown emphasis and links are reduced to their words.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from .heading import Disagreement, Heading, fold_fast, looks_like_ocr

# The longest ementa kept; past it the "paragraph" is a body that had no preamble before it.
MAX_CHARS = 1500
MIN_CHARS = 8
# An ementa is one paragraph; a layout that wraps it ends it at a blank line or at one of these.
_MAX_LINES = 8

# Lines that start the preamble, the enacting clause or the body (folded, lowercase).
_STOPS = re.compile(
    r"(?:o|a)\s+(?:prefeit[oa]|president[ea]|vice-prefeit[oa]|governador[a]?|secretari[oa]"
    r"|camara|mesa|povo|municipal\s+camara|municipio|diretor[a]?|superintendente|chefe|poder)\b"
    r"|(?:camara|mesa|povo)\s+(?:municipal|diretora|da|do)\b"
    r"|faco\s+saber|fazemos\s+saber|fica\s+|ficam\s+"
    r"|considerando\b|decreta\b|resolve\b|promulga\b|sanciono\b"
    r"|art(?:igo)?\s*\.?\s*[1il|]\s*(?:[o°º.\s-]|$)"
    r"|(?:cap[ií]tulo|titulo|secao|anexo)\b"
    # "FARID SAID MADI, Prefeito Municipal de ...", never "... DE VEREADOR, PREFEITO, VICE-"
    r"|[a-z' ]{3,60},\s+(?:prefeit[oa]|president[ea])\s+(?:municipal|d[oae])\b"
)
# Words of a preamble or a letterhead inside a would-be ementa (lowercased): it is not one.
_NOT_EMENTA = re.compile(
    r"\bno uso (?:de suas|das) atribui|\baprovou e (?:eu|ele|o)\b|\bsanciono\b"
    r"|^(?:estado|prefeitura|c[aâ]mara municipal|gabinete|munic[ií]pio) d[aoe]s?\b"
    r"|^(?:rep[uú]blica federativa|poder (?:executivo|legislativo))\b"
)
_WORD = re.compile(r"[^\W\d_]{3}")
_ABBREVIATION_END = re.compile(r"\b(?:n[o°º]|art|arts|inc|al|p)\.$")
# How much of a line decides whether it starts a preamble or is an annotation.
_LINE_START = 48
# A publisher's note between the heading and the ementa: passed over.
_ANNOTATION = re.compile(
    r"^(?:\(|\[\(|>|autor(?:ia)?\s*:|visualizar ato|conteudo obsoleto|publicad[oa]\b"
    r"|(?:projeto de lei|processo|mensagem)\b[^a-z]*\d)"
)
_LABEL = re.compile(r"^(?:ementa|assunto|sumula)\s*[:.-]\s*", re.IGNORECASE)
_MARKDOWN_LINK = re.compile(r"\[([^\]\n]*)\]\([^)\n]*\)")
_MARKDOWN_MARKS = re.compile(r"^#{1,6}\s*|\*\*\*|\*\*|~~|(?<!\w)_{1,2}(?=\w)|(?<=\w)_{1,2}(?!\w)")
_QUOTES = "\"“”'‘’«»"


def read_ementa(text: str, heading: Heading) -> str | None:
    """The ementa printed after `heading` in `text` (the page it was read from), or None."""
    lines = text.split("\n", heading.line + 48)  # the ementa is near: the rest stays whole
    if heading.line >= len(lines) or lines[heading.line].strip() != heading.lines[0]:
        return None  # a heading read from another text (a second reading of the scan)
    start = heading.line + _span(lines, heading)
    kept: list[str] = []
    for raw in lines[start:start + 40]:
        line = _plain(raw)
        if not line:
            if kept:
                break  # the paragraph ended
            continue
        low = fold_fast(line[:_LINE_START])
        if not kept and _ANNOTATION.match(low):
            continue
        # In quotation marks it is the ementa, whatever its first word ("“Fica fixada ...”").
        if _STOPS.match(low) and (kept or low[:1] not in _QUOTES):
            break
        kept.append(line)
        if len(kept) >= _MAX_LINES or _ends_paragraph(line):
            break
    ementa = _clean(" ".join(kept))
    if not MIN_CHARS <= len(ementa) <= MAX_CHARS:
        return None
    if _NOT_EMENTA.search(ementa.lower()) or not _WORD.search(ementa):
        return None
    return ementa


def _span(lines: list[str], heading: Heading) -> int:
    """How many lines of the text the heading took (blank lines between its parts included)."""
    taken, index = 0, heading.line
    for part in heading.lines:
        while index < len(lines) and lines[index].strip() != part:
            index += 1
        index += 1
        taken = index - heading.line
    return max(1, taken)


def _plain(line: str) -> str:
    """A line as words: Markdown links and emphasis and table bars dropped, spaces collapsed."""
    if "[" in line:
        line = _MARKDOWN_LINK.sub(r"\1", line)
    if any(mark in line for mark in "#*~_"):
        line = _MARKDOWN_MARKS.sub("", line.strip())
    return " ".join(line.strip(" |\t").split())


def _ends_paragraph(line: str) -> bool:
    """An ementa's last line ends with a full stop or a closing quote ("... providências.")."""
    return line[-1] in ".”\"" and not _ABBREVIATION_END.search(line[-6:].lower())


def _clean(ementa: str) -> str:
    """'EMENTA: Dispõe ...' and '“Dispõe ...”' as the ementa they print."""
    ementa = _LABEL.sub("", ementa.strip())
    if ementa[:1] in _QUOTES and ementa.count(ementa[:1]) + ementa.count("”") <= 2:
        ementa = ementa.strip(_QUOTES + " .") + "."  # quotes around the whole ementa only
    return ementa.strip()


def similarity(a: str, b: str) -> float:
    """How alike two ementas are, case, accents, spacing and punctuation aside (0..1)."""
    x, y = _loose(a), _loose(b)
    if not x or not y:
        return 0.0
    return SequenceMatcher(None, x, y, autojunk=False).ratio()


def _loose(text: str) -> str:
    return " ".join(re.sub(r"[\W_]+", " ", fold_fast(text)).split())


# -- the source's ementa against the text's ---------------------------------------------------

# Words that carry no meaning of their own between two ementas: articles, prepositions, and the
# boilerplate some sources keep and others drop ("Dispõe sobre", "e dá outras providências").
_STOPWORDS = frozenset(
    "a o as os e ou de da do das dos em na no nas nos ao aos à às para por pela pelo pelas "
    "pelos com sem sobre que se um uma seu sua seus suas art arts dispoe".split())
_BOILERPLATE_HEAD = re.compile(r"^(?:ementa|assunto|sumula)\s+")
_BOILERPLATE_TAIL = re.compile(r"\s+(?:e\s+)?(?:da|adota|dando|toma)\s+outras?\s+providencias?$")
_LOOSE_WORD = re.compile(r"[^\W_]+")


class _LettersTable(dict):
    """For str.translate: a character folded (fold_fast) if a letter or digit, else dropped;
    filled on first sight, so one pass over the ementa does both."""

    def __missing__(self, code: int) -> str:
        self[code] = kept = "".join(c for c in fold_fast(chr(code)) if c.isalnum())
        return kept


_LETTERS = _LettersTable()
_TAILS = tuple(f"{e}{verb}outra{s}providencia{s}" for e in ("e", "") for s in ("s", "")
               for verb in ("da", "adota", "dando", "toma"))
# A hyphen at a line's end inside a word ("provi-\ndências", "provi- dências" once joined).
_HYPHENATED = re.compile(r"(?<=[^\W\d_])[-\u00ad]\s+(?=[^\W\d_])")
# Of the content words the two ementas share room for, how many may differ (OCR damage, a
# reworded word) before they are different ementas.
MAX_DIFFERING = 0.1
# Content words one ementa may say that the other leaves out (a shortening, not another ementa).
_SHORTENING = 3
# Digits OCR prints for letters, read back as the letters inside a word.
_OCR_LETTERS = str.maketrans("015", "ols")
# Words of the longer looked at past the shorter's length (words one of them adds inside).
_SLACK = 4


def disagreement(source: str | None, text: str | None) -> Disagreement | None:
    """The source's ementa against the one its text prints: a Disagreement when they are
    different ementas (another norm's, or one that says something else), else None.

    Not a disagreement: one cut short of the other (a source's ementa truncated at a field's
    length, or the text's at its paragraph's end), case, accents, punctuation, spacing and
    hyphenation at a line's end, "Dispõe sobre" and "e dá outras providências" said by one and
    not the other, and a few words misread (OCR) or reworded. A number that differs ("R$
    8.097.890,91", "Lei nº 1.234") is a different ementa: it is what tells apart the ementas of
    decrees that open credits or laws that name streets.
    """
    if not source or not text:
        return None
    shorter, longer = sorted((_letters(source), _letters(text)), key=len)
    if not shorter or longer.startswith(shorter):  # the common case: equal, or one cut short
        return None
    a, b = _words(source), _words(text)
    if not a or not b:
        return None
    differing, compared, numbers, rephrased = _differences(a, b)
    if not numbers and not rephrased and differing <= MAX_DIFFERING * compared:
        return None
    if numbers == ["ocr"] and differing == 1:  # that number alone differs
        return Disagreement("ementa", text, source, True,
                            "a number differs as an OCR misreading does")
    return Disagreement("ementa", text, source, False,
                        f"another ementa ({differing} of {compared} words differ"
                        + (", a number differs" if numbers else "") + ")")


def _letters(ementa: str) -> str:
    """An ementa's letters and digits alone, folded, without the boilerplate some sources drop:
    two writings of one ementa, or one cut short of the other, compare as a prefix."""
    letters = ementa.translate(_LETTERS)
    for head in ("ementa", "dispoesobre"):
        if letters.startswith(head):
            letters = letters[len(head):]
    for tail in _TAILS:
        if letters.endswith(tail):
            return letters[:-len(tail)]
    return letters


def _words(ementa: str) -> list[str]:
    """The words of an ementa, folded, without the boilerplate some sources drop."""
    if "](" in ementa:  # a Markdown link: its words, not its address
        ementa = _MARKDOWN_LINK.sub(r"\1", ementa)
    loose = " ".join(_LOOSE_WORD.findall(fold_fast(_HYPHENATED.sub("", ementa))))
    loose = _BOILERPLATE_TAIL.sub("", _BOILERPLATE_HEAD.sub("", loose))
    return loose.split()


def _differences(a: list[str], b: list[str]) -> tuple[int, int, list[str], bool]:
    """Content words that differ, content words compared, the numbers that differ ('ocr'
    when the two look like an OCR misreading of one another, else 'other'), and whether a
    phrase was said otherwise (two content words or more in one place, none alike: "de
    Professor" against "de merendeira e servente"). A word here and there is a misreading or
    a typist's; a phrase replaced is another ementa.

    They are compared as far as the shorter goes: the longer's words past it are the part the
    shorter was cut before, and the shorter's last word may be cut inside ("providên").
    """
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    long = long[:len(short) + _SLACK]
    ops = SequenceMatcher(None, short, long, autojunk=False).get_opcodes()
    if ops and ops[-1][0] == "insert" and ops[-1][4] == len(long):
        ops.pop()  # the longer goes on past the end of the shorter
    elif ops and ops[-1][0] == "replace" and ops[-1][2] == len(short):
        # the shorter ends here: the longer's words past as many are the part it was cut before
        tag, i1, i2, j1, j2 = ops.pop()
        j2 = min(j2, j1 + i2 - i1)
        if long[j2 - 1].startswith(short[-1]):
            i2, j2 = i2 - 1, j2 - 1  # and it was cut inside its last word ("providên")
        if i1 < i2:
            ops.append((tag, i1, i2, j1, j2))
    differing = compared = 0
    numbers: list[str] = []
    rephrased = False
    for tag, i1, i2, j1, j2 in ops:
        left = [w for w in short[i1:i2] if _content(w)]
        right = [w for w in long[j1:j2] if _content(w)]
        if tag == "equal":
            compared += len(left)
            continue
        # a word of one side alike a word of the other near it is one word misread (OCR
        # damages words, it does not move them)
        used: set[int] = set()
        unmatched = []
        for i, x in enumerate(left):
            near = (j for j in range(max(0, i - 2), min(len(right), i + 3)) if j not in used)
            j = next((j for j in near if _alike(x, right[j])), None)
            if j is None:
                unmatched.append(x)
            else:
                used.add(j)
                compared += 1
        left, right = unmatched, [y for j, y in enumerate(right) if j not in used]
        if not left or not right:
            # One says more. A few words ("o chamado mototaxi") are the other's shortening;
            # a clause ("cria a taxa de controle ambiental e ...") is another ementa's.
            if len(left) + len(right) > _SHORTENING:
                compared += len(left) + len(right)
                differing += len(left) + len(right)
            continue
        compared += max(len(left), len(right))
        differing += max(len(left), len(right))
        rephrased |= max(len(left), len(right)) >= 2
        for x, y in zip([w for w in left if w.isdigit()], [w for w in right if w.isdigit()],
                        strict=False):
            numbers.append("ocr" if looks_like_ocr(x, y) else "other")
    return differing, compared, numbers, rephrased


def _content(word: str) -> bool:
    """A word that says something: not an article or preposition, nor a shard of one or two
    letters (OCR's "Dc" for "DE"); a number always, but for a lone "0" (OCR's "O")."""
    if word.isdigit():
        return word != "0"
    return len(word) > 2 and word not in _STOPWORDS


def _alike(x: str, y: str) -> bool:
    """One word misread or misspelt ("provldências", "C0NSELHO", "rnunicipal", "Rerida",
    "QUc"): a letter in four changed, added or lost (one in a short word), as written or once
    OCR's look-alikes are read as letters. A number is alike only itself ("1165", "1169")."""
    if x.isdigit() or y.isdigit():
        return x == y
    return _near(x, y) or _near(_as_letters(x), _as_letters(y))


def _near(x: str, y: str) -> bool:
    """Levenshtein distance within a quarter of the longer word (at least 1), given up as soon
    as every path exceeds it (most pairs of different words, after a letter or two)."""
    allowed = max(1, max(len(x), len(y)) // 4)
    if abs(len(x) - len(y)) > allowed:
        return False
    previous = list(range(len(y) + 1))
    for i, a in enumerate(x, 1):
        current = [i]
        for j, b in enumerate(y, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a != b)))
        if min(current) > allowed:
            return False
        previous = current
    return previous[-1] <= allowed


def _as_letters(word: str) -> str:
    return word.translate(_OCR_LETTERS).replace("rn", "m").replace("ri", "n").replace("ii", "u")
