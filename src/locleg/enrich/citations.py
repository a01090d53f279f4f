"""Citations between norms: every reference a norm's text makes to another norm, and what it
does to it (cites, revokes, alters, regulates), with the sentence that says so.

Pure functions over text: `find_citations` reads a text, `citation_key` and `citation_urn`
name the cited norm for the resolver, `revocation_cycles` finds norms that revoke each other.
The grammar lives in `citation_patterns.py`; docs/enrichment.md ("Citations") has the rules.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from datetime import date
from typing import NamedTuple, Protocol

from . import citation_patterns as P
from .numbering import canonical_number
from .urn import norm_urn

CITES = "cites"
REVOKES = "revokes"
REVOKES_IN_PART = "revokes_in_part"
ALTERS = "alters"
REGULATES = "regulates"
# From the notes of consolidated texts, "(Redação dada pela Lei nº …)": the cited norm acted
# on the citing one.
ALTERED_BY = "altered_by"
REVOKED_BY = "revoked_by"
REVOKED_IN_PART_BY = "revoked_in_part_by"
REGULATED_BY = "regulated_by"
KINDS = (CITES, REVOKES, REVOKES_IN_PART, ALTERS, REGULATES,
         ALTERED_BY, REVOKED_BY, REVOKED_IN_PART_BY, REGULATED_BY)
_FORWARD = {REVOKES, REVOKES_IN_PART, ALTERS, REGULATES}

# The first and the latest plausible year of a Brazilian norm: the court's arrival in 1808
# and next year (laws are dated ahead by mistake, never by a century).
FIRST_YEAR = 1808


@dataclass(frozen=True, slots=True)
class NormRef:
    """The citing norm, to drop its mentions of itself: family, number, year."""

    family: str
    number: str | None
    year: int | None = None


class JurisdictionInfo(Protocol):
    """What naming a cited norm needs of the citing jurisdiction (`Jurisdiction` has it)."""

    level: str  # municipal, estadual or distrital
    lexml_label: str  # br;bahia;juazeiro


@dataclass(slots=True)
class Citation:
    """One reference to another norm, as written, with what it does to that norm.

    `sphere_source` says where `sphere` came from: `written` ("Lei Federal"), `type`
    (a Decreto-Lei is federal), `issuer` (Resolução CONTRAN), `known` (a well-known federal
    law recognised by number and year, or by name), `text` (the same norm was cited with its
    sphere earlier in the text), `implied` (no sphere written: the citing jurisdiction's). `article` ("Art. 31") is filled for every kind but `cites`; None there,
    or before the first article (heading, ementa, preamble). `flags` give reasons to doubt.
    """

    start: int
    end: int
    text: str
    family: str
    number: str | None
    year: int | None
    date: date | None
    sphere: str | None
    sphere_source: str
    fragment: str | None = None
    kind: str = CITES
    sentence: str = ""
    article: str | None = None
    flags: tuple[str, ...] = ()
    issuer: str | None = None

    @property
    def span(self) -> tuple[int, int]:
        return self.start, self.end


class CitationKey(NamedTuple):
    """What resolves a citation to a corpus norm: LexML locality (`br`, `br;bahia`,
    `br;bahia;juazeiro`), family, canonical number, year (None when not written)."""

    scope: str
    family: str
    number: str | None
    year: int | None


def find_citations(text: str, own: NormRef | None = None, *,
                   level: str = "municipal") -> list[Citation]:
    """Every reference to another norm in `text`, in order.

    `own` is the citing norm: its mentions of itself are dropped (a revocation of itself is
    kept, flagged `targets_itself`). Without `own`, the heading ("LEI Nº 2.199/2011" alone on
    its line before the first article) stands for it. `level` is the citing jurisdiction's
    level, the sphere of a citation that writes none.
    """
    if not text:
        return []
    low = text.lower()
    if len(low) != len(text):  # a few letters lowercase to two characters ("İ")
        low = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    scan = _Scan(text, low, level)
    raws = scan.run()
    if not raws:
        return []
    raws = _drop_named_echoes(text, raws)
    heading = _heading(text, raws)
    selves = [r for r in (own, heading and _ref(heading)) if r is not None]
    kept = [c for c in raws if c is not heading]
    _read_acts(text, low, kept)
    result = []
    for c in kept:
        if any(_same_norm(c, ref, level) for ref in selves):
            if c.kind == CITES:
                continue
            c.flags += ("targets_itself",)
        if own is not None and own.year and c.year and c.year > own.year \
                and c.kind in _FORWARD | {CITES}:
            c.flags += ("later_than_citing",)
        result.append(c)
    return result


def citation_key(citation: Citation, citing: JurisdictionInfo) -> CitationKey | None:
    """(scope, family, number, year) of the cited norm; None when its jurisdiction cannot be
    known (a municipal law cited by a state's text)."""
    scope = _scope(citation, citing)
    if scope is None:
        return None
    return CitationKey(scope, citation.family, citation.number, citation.year)


def citation_urn(citation: Citation, citing: JurisdictionInfo) -> str | None:
    """The cited norm's LexML URN, with `!fragment` when the citation names one.

    None when the URN cannot be complete: no signature date (neither written nor known for a
    well-known federal law), no number, an unknown jurisdiction or issuing body, or a date
    flagged as absurd. The resolver then works from `citation_key`.
    """
    if {"implausible_year", "invalid_date"} & set(citation.flags):
        return None
    scope = _scope(citation, citing)
    sphere = _sphere(citation, citing)
    if scope is None or sphere is None:
        return None
    signed = citation.date
    if signed is None and citation.number is not None and citation.year is not None:
        signed = P.KNOWN_FEDERAL.get((citation.family, citation.number, citation.year)) \
            if sphere == "federal" else None
    if signed is None:
        return None
    number = str(signed.year) if citation.family == "constituicao" else citation.number
    authority = _authority(citation, sphere)
    if authority is None or number is None:
        return None
    urn = norm_urn(scope, authority, citation.family, signed, number)
    if urn and citation.fragment:
        urn += "!" + citation.fragment
    return urn


def revocation_cycles(edges: Iterable[tuple[Hashable, Hashable]]) -> list[tuple[Hashable, ...]]:
    """Groups of norms that revoke one another ((revoker, revoked) pairs in, cycles out),
    including a norm that revokes itself. Each group is sorted by repr for stable output."""
    graph: dict[Hashable, list[Hashable]] = {}
    for a, b in edges:
        graph.setdefault(a, []).append(b)
        graph.setdefault(b, [])
    index: dict[Hashable, int] = {}
    low: dict[Hashable, int] = {}
    stack: list[Hashable] = []
    on_stack: set[Hashable] = set()
    cycles = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(graph[child])))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1 or node in graph[node]:
                    cycles.append(tuple(sorted(group, key=repr)))
    return cycles


# --- scanning -------------------------------------------------------------------------------

class _Scan:
    """One pass over a text: candidate positions by substring search, then the grammar at
    each position, left to right, never inside a citation already read."""

    def __init__(self, text: str, low: str, level: str) -> None:
        self.text, self.low, self.level = text, low, level
        self.out: list[Citation] = []
        self.spheres: dict[tuple[str, str], tuple[str, int | None]] = {}

    def run(self) -> list[Citation]:
        low, text = self.low, self.text
        hits: list[tuple[int, str]] = []
        for keyword in P.KEYWORDS:
            i = low.find(keyword)
            while i != -1:
                hits.append((i, keyword))
                i = low.find(keyword, i + 1)
        for m in P.ACRONYM.finditer(text):
            hits.append((m.start(), m.group()))
        hits.sort()
        consumed = 0
        for pos, keyword in hits:
            if pos < consumed:
                continue
            end = self._at(pos, keyword)
            if end:
                consumed = end
        return self.out

    def _at(self, pos: int, keyword: str) -> int | None:
        low = self.low
        if keyword == "digo":
            pos -= 2
            if pos < 0 or low[pos:pos + 2] not in ("có", "co"):
                return None
        elif keyword == "provis":
            back = low[max(0, pos - 9):pos]
            cut = back.rfind("medida")
            if cut == -1 or back[cut:].strip() not in ("medida", "medidas"):
                return None
            pos -= len(back) - cut
        elif keyword == "normativa":
            back = low[max(0, pos - 12):pos]
            cut = max(back.rfind("instru"), -1)
            if cut == -1:
                return None
            pos -= len(back) - cut
        if pos > 0 and (low[pos - 1].isalnum() or low[pos - 1] == "_"):
            return None
        if keyword in ("lei", "decret", "resolu", "portaria", "emenda", "provis", "normativa"):
            return self._typed(pos, keyword)
        if keyword in ("digo", "estatuto"):
            return self._named(pos)
        if keyword == "constitui":
            return self._constitution(pos)
        return self._acronym(pos, keyword)

    # numbered citations and what can stand in their place
    def _typed(self, pos: int, keyword: str) -> int | None:
        text, low = self.text, self.low
        if P.BILL_BEFORE.search(low, max(0, pos - 24), pos):
            t = P.TYPE.match(text, pos)
            r = t and P.REST.match(text, t.end())
            return r.end() if r else None
        end = self._numbered(pos)
        if end:
            return end
        if keyword == "emenda":
            m = P.EMENDA_NUMBER_FIRST.match(text, pos)
            if m:
                number = canonical_number(m["num"])
                year = _year(m["year"])
                self._add(pos, m.end(), "emenda.lei.organica", number, year, None,
                          self.level, "implied")
                return m.end()
            return None
        if keyword != "lei":
            return self._anaphora(pos)
        m = P.NAMED.match(text, pos)
        if m:
            return self._known_name(pos, m.end(), m.lastgroup)
        back = low[max(0, pos - 20):pos]
        if P.CLT_NAME.search(back):
            m = P.CLT_REST.match(text, pos)
            if m:
                start = pos - (len(back) - P.CLT_NAME.search(back).start())
                return self._known_name(start, m.end(), "clt")
        if "emenda" in low[max(0, pos - 14):pos]:
            return None  # "Esta Emenda à Lei Orgânica": the citing norm's own type
        m = P.LOM.match(text, pos)
        # "Lei Orgânica da Magistratura" is not the municipality's
        if m and (m["df"] or self.level == "municipal" and (m["mun"] or m["after"] is None)):
            sphere = "distrital" if m["df"] else "municipal"
            self._add(pos, m.end(), "lei.organica", None, None, None, sphere, "type")
            return m.end()
        return self._anaphora(pos)

    def _numbered(self, pos: int) -> int | None:
        text = self.text
        t = P.TYPE.match(text, pos)
        if t is None:
            return None
        r = P.REST.match(text, t.end())
        if r is None:
            return None
        family = P.FAMILY[t.lastgroup]
        if r["compl"] and family == "lei":
            family = "lei.complementar"
        typed = t.group()
        plural = typed.split()[0].lower().endswith(("s", "ões", "oes")) or \
            bool(r["no"] and r["no"].rstrip(".").lower().endswith("s"))
        if r["no"] is None and family != "lei.complementar" and not _dated(r) \
                and "." not in r["num"]:
            if not typed[0].isupper() or P.QUANTITY_AFTER.match(text, r.end("num")):
                return None
        sphere = (r["sphere"] or r["sphere2"] or "").lower() or None
        issuer = r["issuer"]
        end = r.end()
        if issuer is None and family in ("resolucao", "portaria", "instrucao.normativa"):
            after = P.ISSUER_AFTER.match(text, end)
            if after:
                issuer = after["issuer"]
        if sphere is None and issuer is None and P.FEDERAL_BODY_AFTER.match(text, end):
            sphere = "federal"
        if issuer is not None:
            issuer = " ".join(issuer.split())
        items = [(pos, r)]
        cursor = r.end()
        while True:
            li = P.LIST_ITEM.match(text, cursor)
            if li is None or not (plural or li["no"] or li["year"] or _dated(li)):
                break
            items.append((li.start("start"), li))
            cursor = li.end()
        list_year = _year_of(items[-1][1]) if len(items) > 1 else None
        for start, m in items:
            self._add_numbered(start, m, family, sphere, issuer, list_year)
        return cursor

    def _add_numbered(self, start: int, m, family: str, sphere: str | None,
                      issuer: str | None, list_year: int | None) -> None:
        raw = m["num"] + (m["suffix"] or "")
        number = canonical_number(raw)
        if number is None:
            return
        end = m.end()
        if m["reed"]:
            if family == "medida.provisoria":
                number += "-" + m["reed"]
            else:
                end = m.start("reed") - 1
        flags: list[str] = []
        signed, date_year = _date(m, flags)
        year = _year(m["year"])
        if year is not None and date_year is not None and year != date_year:
            flags.append("year_mismatch")
        if year is None:
            year = date_year
        if year is None and list_year is not None:
            year = list_year
            flags.append("list_year")
        if year is not None and not FIRST_YEAR <= year <= date.today().year + 1:
            flags.append("implausible_year")
        if sphere is not None:
            source = "written"
        elif issuer and issuer.lower() in P.FEDERAL_ISSUERS:
            sphere, source = "federal", "issuer"
        elif family in P.FEDERAL_FAMILIES:
            sphere, source = "federal", "type"
        elif year is not None and (family, number, year) in P.KNOWN_FEDERAL:
            sphere, source = "federal", "known"
        elif self._sphere_seen(family, number, year):
            sphere, source = self._sphere_seen(family, number, year), "text"
        else:
            sphere, source = self.level, "implied"
        if source != "implied" and source != "text":
            # the same norm cited again further on, without its sphere, is the same norm
            self.spheres.setdefault((family, number), (sphere, year))
        self._add(start, end, family, number, year, signed, sphere, source,
                  tuple(flags), issuer)

    def _sphere_seen(self, family: str, number: str, year: int | None) -> str | None:
        seen = self.spheres.get((family, number))
        if seen is None or year is not None and seen[1] is not None and year != seen[1]:
            return None
        return seen[0]

    def _known_name(self, start: int, end: int, name: str) -> int:
        family, number, signed = P.known(name)
        self._add(start, end, family, number, signed.year, signed, "federal", "known",
                  ("known_law",))
        return end

    def _named(self, pos: int) -> int | None:
        m = P.NAMED.match(self.text, pos)
        return self._known_name(pos, m.end(), m.lastgroup) if m else None

    def _constitution(self, pos: int) -> int | None:
        m = P.CONSTITUTION.match(self.text, pos)
        if m is None:
            return None
        if m["fed"]:
            return self._known_name(pos, m.end(), "cf")
        self._add(pos, m.end(), "constituicao", None, None, None, "estadual", "written")
        return m.end()

    def _acronym(self, pos: int, acronym: str) -> int | None:
        text = self.text
        end = pos + len(acronym)
        if end < len(text) and text[end].isalnum():
            return None
        if acronym.startswith(("LC", "L.C")):
            return self._numbered(pos)
        if acronym.startswith("CF"):
            if end < len(text) and text[end] == "." and text[end + 1:end + 3].strip()[:1].islower():
                return None
            return self._known_name(pos, end, "cf")
        if acronym == "LOM":
            if self.level != "municipal":
                return None
            self._add(pos, end, "lei.organica", None, None, None, "municipal", "type")
            return end
        return self._known_name(pos, end, P.ACRONYM_KNOWN[acronym])

    def _anaphora(self, pos: int) -> int | None:
        """'a referida Lei', 'da mesma Lei', 'a Lei supracitada': the latest norm of that type."""
        text, low = self.text, self.low
        t = P.ANAPHORA_TYPE.match(text, pos)
        if t is None:
            return None
        start, end = pos, t.end()
        back = P.ANAPHORA_BEFORE.search(low, max(0, pos - 24), pos)
        if back:
            start = back.start()
        else:
            after = P.ANAPHORA_AFTER.match(text, end)
            if after is None:
                return None
            end = after.end()
        families = {"lei": ("lei", "lei.complementar", "lei.delegada")}.get(
            t.lastgroup, (P.FAMILY[t.lastgroup],))
        for previous in reversed(self.out):
            if previous.family in families and previous.number is not None \
                    and not _quoted_before(text, previous, start):
                self._add(start, end, previous.family, previous.number, previous.year,
                          previous.date, previous.sphere, previous.sphere_source,
                          ("anaphora",), previous.issuer)
                return end
        return None

    def _add(self, start: int, end: int, family: str, number: str | None, year: int | None,
             signed: date | None, sphere: str | None, source: str,
             flags: tuple[str, ...] = (), issuer: str | None = None) -> None:
        while end > start and self.text[end - 1] in " \t\n,":
            end -= 1
        self.out.append(Citation(start, end, self.text[start:end], family, number, year, signed,
                                 sphere, source, flags=flags, issuer=issuer))


def _quoted_before(text: str, c: Citation, pos: int) -> bool:
    """Is `c` inside a quotation that closes before `pos` (the new wording of an amended
    provision, which "a referida Lei" after it does not point into)?"""
    line = text.rfind("\n", 0, c.start) + 1
    opened = max(text.rfind("“", line, c.start), text.rfind('"', line, c.start))
    if opened == -1:
        return False
    return any(q in text[c.end:pos] for q in '"”')


def _dated(m) -> bool:
    return bool(m["year"] or m["dyear"] or m["nyear"] or m["oyear"])


def _year(raw: str | None) -> int | None:
    """'2008' -> 2008; two digits to the latest century that is not in the future."""
    if not raw:
        return None
    raw = raw.replace(".", "")
    value = int(raw)
    if len(raw) == 2:
        this = date.today().year
        value += 2000 if 2000 + value <= this + 1 else 1900
    return value


def _year_of(m) -> int | None:
    return _year(m["year"] or m["dyear"] or m["nyear"] or m["oyear"])


def _date(m, flags: list[str]) -> tuple[date | None, int | None]:
    """The written date of signature, and its year (kept even when the date is impossible)."""
    if m["dyear"]:
        day, month, year = int(m["day"]), P.MONTH[m["month"].lower().replace("ç", "c")], \
            _year(m["dyear"])
    elif m["nyear"]:
        day, month, year = int(m["nday"]), int(m["nmonth"]), _year(m["nyear"])
    else:
        return None, _year(m["oyear"])
    try:
        return date(year, month, day), year
    except ValueError:
        flags.append("invalid_date")
        return None, year


# --- what stands around the citations ---------------------------------------------------------

def _drop_named_echoes(text: str, raws: list[Citation]) -> list[Citation]:
    """'Lei nº 5.172/66 (CTN)', 'Código Tributário Nacional (Lei nº 5.172/66)': one norm named
    twice side by side is one citation, the one with the number as written."""
    out: list[Citation] = []
    for c in raws:
        prev = out[-1] if out else None
        if prev is not None and prev.family == c.family and prev.number == c.number \
                and not text[prev.end:c.start].strip(" \t\n()[],;-–—/"):
            if "known_law" in prev.flags and "known_law" not in c.flags:
                out[-1] = c
            continue
        out.append(c)
    return out


def _heading(text: str, raws: list[Citation]) -> Citation | None:
    """The norm's own heading: an uppercase citation alone on its line before the first
    article ("LEI Nº 2.199/2011")."""
    first_article = None
    for c in raws:
        if not text[c.start:c.start + 3].isupper() or c.family == "constituicao":
            continue
        line_start = text.rfind("\n", 0, c.start) + 1
        line_end = text.find("\n", c.end)
        line_end = len(text) if line_end == -1 else line_end
        if text[line_start:c.start].strip() or text[c.end:line_end].strip(" \t.:-–—"):
            continue
        if first_article is None:
            first_article = _first_article(text)
        if c.start < first_article:
            return c
    return None


def _first_article(text: str) -> int:
    for pos, _ in _articles(text):
        return pos
    return len(text)


def _articles(text: str):
    """(position, 'Art. 5') of each article heading, in order."""
    found = []
    for word in ("Art", "ART"):
        i = text.find(word)
        while i != -1:
            m = P.ARTICLE_HEAD.match(text, i)
            j = i - 1
            while j >= 0 and text[j] in " \t":
                j -= 1
            if m and (j < 0 or text[j] in "\n.;:"):
                label = f"Art. {canonical_number(m['n'])}" + (f"-{m['s']}" if m["s"] else "")
                found.append((i, label))
            i = text.find(word, i + 3)
    found.sort()
    return found


def _ref(c: Citation) -> NormRef:
    return NormRef(c.family, c.number, c.year)


def _same_norm(c: Citation, ref: NormRef, level: str) -> bool:
    if c.family != ref.family or c.number is None or c.number != canonical_number(ref.number):
        return False
    if c.year is not None and ref.year is not None and c.year != ref.year:
        return False
    return c.sphere == level


def _sentence_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """The sentence around [start, end): after the last end of sentence before it, up to the
    next one, at most 700 characters either side."""
    lo = max(0, start - 700)
    s = lo
    for m in P.SENTENCE_END.finditer(text, lo, start):
        if not _abbreviation(text, m.start()):
            s = m.end()
    e = min(len(text), end + 700)
    for m in P.SENTENCE_END.finditer(text, end, e):
        if not _abbreviation(text, m.start()):
            e = m.end()
            break
    return s, e


def _abbreviation(text: str, dot: int) -> bool:
    if text[dot] != ".":
        return False
    i = dot
    while i > 0 and (text[i - 1].isalpha() or text[i - 1] in "º°"):
        i -= 1
    return text[i:dot].lower() in P.ABBREVIATIONS


def _fragment(low: str, lo: int, start: int) -> tuple[str | None, int, bool]:
    """The provision named just before a citation ("art. 39-B da"): its LexML fragment
    (art39-B, art61_inc4), where it starts, and whether it names several provisions."""
    window_start = max(lo, start - 160)
    window = low[window_start:start]
    tail = P.FRAGMENT_TAIL.search(window)
    if tail is None:
        return None, start, False
    tokens = list(P.FRAGMENT_TOKEN.finditer(window, 0, tail.start()))
    chain: list = []
    edge = tail.start()
    for tok in reversed(tokens):
        glue = window[tok.end():edge]
        if glue and not P.FRAGMENT_GLUE.match(glue):
            break
        if tok["roman"] and not window.startswith(",", tok.end()):
            break
        chain.append(tok)
        edge = tok.start()
    if not chain:
        return None, start, False
    chain.reverse()
    if chain[0]["roman"]:
        chain = chain[1:]
        if not chain:
            return None, start, False
    parts: dict[str, str] = {}
    several = False
    for tok in chain:
        if tok["art"]:
            several |= bool(tok["arts"] or tok["artmore"])
            n = tok["artn"].replace(".", "")
            parts.setdefault("art", f"art{n}" + (f"-{tok['arts_suffix'].upper()}"
                                                 if tok["arts_suffix"] else ""))
        elif tok["par"]:
            several |= bool(tok["pars"] or tok["parw"])
            n = tok["parn"] or tok["parn2"]
            parts.setdefault("par", f"par{n}" if n else "par1u")
        elif tok["inc"] or tok["roman"]:
            several |= bool(tok["incs"])
            n = P.roman_to_int(tok["incn"] or tok["romann"])
            if n:
                parts.setdefault("inc", f"inc{n}")
        elif tok["ali"]:
            several |= bool(tok["alis"])
            parts.setdefault("ali", f"ali{ord(tok['alin']) - 96}")
        elif tok["ite"]:
            several |= bool(tok["ites"])
            parts.setdefault("ite", f"ite{tok['iten']}")
        elif tok["cpt"]:
            parts.setdefault("cpt", "cpt")
    begin = window_start + chain[0].start()
    if several or "art" not in parts and "par" not in parts:
        return None, begin, True
    order = ("art", "cpt", "par", "inc", "ali", "ite")
    return "_".join(parts[k] for k in order if k in parts), begin, False


def _read_acts(text: str, low: str, cites: list[Citation]) -> None:
    """Fill sentence, fragment, kind and (for acts) article of each citation."""
    bounds = (-1, -1)
    articles = None
    prev: Citation | None = None
    for c in cites:
        if not bounds[0] <= c.start < bounds[1] or c.end > bounds[1]:
            bounds = _sentence_bounds(text, c.start, c.end)
            prev = None
        s, e = bounds
        c.sentence = " ".join(text[s:e].split())
        fragment, frag_start, several = _fragment(low, max(s, prev.end if prev else s), c.start)
        c.fragment = fragment
        c.kind = _kind(low, c, s, e, frag_start, several or fragment is not None, prev)
        if c.kind != CITES:
            if articles is None:
                articles = _articles(text)
            c.article = None
            for pos, label in articles:
                if pos > c.start:
                    break
                c.article = label
            if c.kind == REVOKED_IN_PART_BY and c.article is None:
                c.kind = REVOKED_BY
        prev = c


def _kind(low: str, c: Citation, s: int, e: int, frag_start: int, partial: bool,
          prev: Citation | None) -> str:
    lead_from = max(s, frag_start - 200)
    lead = low[lead_from:frag_start]
    note = P.NOTE.search(lead[-160:])
    if note:
        opened = frag_start - len(lead[-160:]) + note.start()
        if prev is not None and 0 <= opened - prev.end <= 3:
            return CITES
        if note["altered"]:
            return ALTERED_BY
        if note["revoked"]:
            return REVOKED_IN_PART_BY
        if note["regulated"]:
            return REGULATED_BY
        return CITES
    if P.AGENT.search(lead[-40:]) or P.REFERENCE_BEFORE.search(lead[-80:]):
        return CITES
    since_prev = low[max(s, prev.end if prev else s):c.start]
    after = P.ACT_AFTER.match(low, c.end, e)
    if after:
        if after["revokes"]:
            return REVOKES_IN_PART if partial or P.PART_WORDS.search(since_prev) else REVOKES
        return ALTERS if after["alters"] else REGULATES
    verb = _last(P.ACT_BEFORE.finditer(low, s, frag_start))
    if verb is None:
        return _kind_from_list_head(low, s, since_prev, partial)
    if P.RELATIVE_BEFORE_VERB.search(low, max(s, verb.start() - 15), verb.start()):
        return CITES
    gap = low[verb.end():frag_start]
    if prev is not None and prev.start >= verb.end():
        if not P.CHAIN.match(low, prev.end, frag_start):
            return CITES
        gap = low[verb.end():prev.start] + " " + low[prev.end:frag_start]
    if P.DETACH.search(gap):
        return CITES
    if verb["revokes"]:
        since_verb = low[max(verb.end(), prev.end if prev and prev.start >= verb.end()
                             else verb.end()):c.start]
        if partial or P.PART_WORDS.search(since_verb) or P.OBJECT_IN.search(since_verb):
            return REVOKES_IN_PART
        return REVOKES
    if verb["part"]:
        return REVOKES_IN_PART
    return ALTERS if verb["alters"] else REGULATES


def _kind_from_list_head(low: str, s: int, since_prev: str, partial: bool) -> str:
    """An inciso of a list whose head acts: "Ficam revogados:\nI - o Decreto nº 8.115 …"."""
    if not _inciso_at(low, s):
        return CITES
    head_end = s
    while True:  # back over the earlier incisos of the same list
        colon = low.rfind(":", max(0, head_end - 2000), head_end)
        semi = low.rfind(";", max(0, head_end - 2000), head_end)
        if colon == -1 and semi == -1:
            return CITES
        if semi > colon:
            head_end = semi
            line = low.rfind("\n", 0, semi)
            if line == -1 or not _inciso_at(low, line + 1):
                return CITES
            head_end = line + 1
            continue
        break
    head = P.LIST_HEAD.search(low, max(0, colon - 200), colon + 1)
    if head is None or "reda" in head.group() or any(q in low[colon:s] for q in "\"“”"):
        return CITES
    verb = _last(P.ACT_BEFORE.finditer(low, head.start(), colon))
    if verb is None or P.DETACH.search(low, verb.end(), colon):
        return CITES
    if verb["revokes"]:
        return REVOKES_IN_PART if partial or P.PART_WORDS.search(since_prev) else REVOKES
    if verb["part"]:
        return REVOKES_IN_PART
    return ALTERS if verb["alters"] else REGULATES


def _last(matches):
    last = None
    for last in matches:  # noqa: B007 - the last one is the one wanted
        pass
    return last


def _inciso_at(low: str, pos: int) -> bool:
    """Does an inciso ("I - ", "IV – ") start at pos (in the lowercased text)?"""
    return P.INCISO_START.match(low, pos) is not None


# --- naming the cited norm ----------------------------------------------------------------------

def _sphere(citation: Citation, citing: JurisdictionInfo) -> str | None:
    return citing.level if citation.sphere_source == "implied" else citation.sphere


def _scope(citation: Citation, citing: JurisdictionInfo) -> str | None:
    sphere = _sphere(citation, citing)
    parts = citing.lexml_label.split(";")
    if sphere == "federal":
        return "br"
    if sphere == "distrital":
        return "br;distrito.federal"
    if sphere == "estadual":
        return ";".join(parts[:2]) if len(parts) >= 2 else None
    if sphere == "municipal" and citing.level == "municipal":
        return citing.lexml_label
    return None


def _authority(citation: Citation, sphere: str) -> str | None:
    """LexML's autoridade: the sphere, or the body that issues that type of norm there."""
    issuer = (citation.issuer or "").lower()
    family = citation.family
    if family in ("resolucao", "portaria", "instrucao.normativa") and issuer:
        if issuer in P.FEDERAL_ISSUERS:
            return P.FEDERAL_ISSUERS[issuer]
        if sphere == "municipal" and family == "resolucao" and issuer.startswith(
                ("mesa", "câmara", "camara")):
            return "camara.municipal"
        return None
    if sphere == "federal":
        if family == "decreto.legislativo":
            return "congresso.nacional"
        if family in ("resolucao", "portaria", "instrucao.normativa"):
            return None  # which ministry, council or house: not written
        return "federal"
    if sphere == "municipal" and family in ("resolucao", "decreto.legislativo"):
        return "camara.municipal"
    return sphere
