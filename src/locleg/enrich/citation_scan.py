"""Reading the citations of a text: candidate positions by plain substring search, then the
grammar of `citation_patterns` at each position."""

from __future__ import annotations

from datetime import date
from functools import lru_cache

from . import citation_patterns as P
from .citation_model import FIRST_YEAR, Citation
from .citation_typos import misspelt_type
from .numbering import canonical_number

# Numbers repeat from text to text (and within one); canonical_number folds accents first.
canonical = lru_cache(maxsize=65536)(canonical_number)


class Scan:
    """One pass over a text: candidate positions by substring search, then the grammar at
    each position, left to right, never inside a citation already read."""

    def __init__(self, text: str, low: str, level: str) -> None:
        self.text, self.low, self.level = text, low, level
        self.out: list[Citation] = []
        self.spheres: dict[tuple[str, str], tuple[str, int | None]] = {}
        self.consumed = 0  # where the last citation read (or bill skipped) ends

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
        for sign in ("º", "°"):  # a number sign where no type word was read: a misspelt one?
            i = low.find(sign)
            while i != -1:
                n = i - 1 if low[i - 1:i] == "n" else i - 2 if low[i - 2:i] in ("n.", "n ") \
                    else -1
                if n > 0 and not low[n - 1].isalnum():
                    hits.append((n, "nº"))
                i = low.find(sign, i + 1)
        hits.sort()
        self.consumed = 0
        for pos, keyword in hits:
            if pos < self.consumed:
                continue
            end = self._at(pos, keyword)
            if end:
                self.consumed = end
        return self.out

    def _at(self, pos: int, keyword: str) -> int | None:
        low = self.low
        if keyword == "nº":
            return self._misspelt(pos)
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
            cut = back.rfind("instru")
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
            t = P.TYPE_LOW.match(low, pos)
            r = t and P.REST_LOW.match(low, t.end())
            return r.end() if r else None
        end = self._numbered(pos)
        if end:
            return end
        if keyword == "emenda":
            m = P.EMENDA_NUMBER_FIRST.match(text, pos)
            if m:
                number = canonical(m["num"])
                year = _year(m["year"])
                self._add(pos, m.end(), "emenda.lei.organica", number, year, None,
                          self.level, "implied")
                return m.end()
            return self._bare_emenda(pos)
        if keyword != "lei":
            return self._anaphora(pos)
        m = P.NAMED.match(text, pos)
        if m:
            return self._known_name(pos, m.end(), m.lastgroup)
        back = low[max(0, pos - 20):pos]
        if P.CLT_NAME.search(back):
            m = P.CLT_REST.match(low, pos)
            if m:
                start = pos - (len(back) - P.CLT_NAME.search(back).start())
                return self._known_name(start, m.end(), "clt")
        if "emenda" in low[max(0, pos - 14):pos]:
            return None  # "Esta Emenda à Lei Orgânica": the citing norm's own type
        m = P.LOM.match(text, pos)
        if m and P.THIS_BEFORE.search(low, max(0, pos - 8), pos):
            return m.end()  # "desta Lei Orgânica": the citing text itself
        # "Lei Orgânica da Magistratura" is not the municipality's
        if m and (m["df"] or self.level == "municipal" and (m["mun"] or m["after"] is None)):
            sphere = "distrital" if m["df"] else "municipal"
            self._add(pos, m.end(), "lei.organica", None, None, None, sphere, "type")
            return m.end()
        return self._anaphora(pos)

    def _numbered(self, pos: int, cased: bool = False,
                  typed_as: tuple[str, int] | None = None,
                  flags: tuple[str, ...] = ()) -> int | None:
        """A numbered citation (or a list of them) at pos. `cased`: the type is an acronym
        ("LC"), read on the text itself. `typed_as`: the family and the end of type words read
        otherwise (misspelt, or a bare "Emenda")."""
        text, low = self.text, self.low
        if typed_as is not None:
            family, type_end = typed_as
        else:
            t = P.TYPE.match(text, pos) if cased else P.TYPE_LOW.match(low, pos)
            if t is None:
                return None
            family, type_end = P.FAMILY[t.lastgroup], t.end()
        if cased or family in P.ISSUER_FAMILIES:
            r = P.REST.match(text, type_end)
        else:
            r = P.REST_LOW.match(low, type_end)
        if r is None:
            return None
        if r["compl"] and family == "lei":
            family = "lei.complementar"
        typed = low[pos:type_end]
        plural = typed.split()[0].endswith(("s", "ões", "oes")) or \
            bool(r["no"] and r["no"].rstrip(".").lower().endswith("s"))
        if r["no"] is None and family != "lei.complementar" and not _dated(r) \
                and "." not in r["num"]:
            if not text[pos].isupper() or P.QUANTITY_AFTER.match(low, r.end("num")):
                return None
        sphere = (r["sphere"] or r["sphere2"] or "").lower() or None
        sphere = P.SPHERE_WORD.get(sphere, sphere)
        issuer = r["issuer"]
        end = r.end()
        if issuer is None and family in P.ISSUER_FAMILIES:
            after = P.ISSUER_AFTER.match(text, end)
            if after:
                issuer = after["issuer"]
        if sphere is None and issuer is None:
            if P.FEDERAL_BODY_AFTER.match(low, end):
                sphere = "federal"
            elif after := P.SPHERE_AFTER.match(low, end):
                sphere = after.lastgroup
        if issuer is not None:
            issuer = " ".join(issuer.split())
        items = [(pos, r)]
        cursor = r.end()
        while True:
            li = P.LIST_ITEM_LOW.match(low, cursor)
            if li is None or not (plural or li["no"] or li["year"] or _dated(li)):
                break
            if ";" in low[cursor:li.start("start")] and not (li["no"] or _dated(li)):
                break  # after a semicolon, only an item that says it is a norm goes on
            items.append((li.start("start"), li))
            cursor = li.end()
        list_year = _year_of(items[-1][1]) if len(items) > 1 else None
        if sphere is None and issuer is None:
            sphere = self._sphere_after_all(pos, cursor, len(items))
        for start, m in items:
            self._add_numbered(start, m, family, sphere, issuer, list_year, flags)
        return cursor

    def _sphere_after_all(self, pos: int, cursor: int, count: int) -> str | None:
        """The sphere written after a list for all of it ("Leis nº 1 e 2, ambas estaduais"),
        given also to the citations named with it before, in the same sentence, that wrote
        none: the one before for "ambas", those chained by "e" or a comma otherwise."""
        tail = P.SPHERE_AFTER_ALL.match(self.low, cursor)
        if tail is None:
            return None
        sphere = tail.lastgroup
        both = (tail["all"] or "").startswith("amb")
        if count > 1 and both:
            return sphere
        edge = pos
        for c in reversed(self.out):
            gap = self.low[c.end:edge]
            chained = P.CHAIN.match(gap) is not None
            if not chained and not (both and len(gap) < 120 and " e " in f" {gap} "
                                    and not any(x in gap for x in ";:")
                                    and P.SENTENCE_END.search(self.text, c.end, edge) is None):
                break
            if c.sphere_source in ("implied", "text") and c.number is not None:
                c.sphere, c.sphere_source = sphere, "written"
                self.spheres[(c.family, c.number)] = (sphere, c.year)
            count += 1
            edge = c.start
            if both and count >= 2:
                break
        # "ambas", "todas" take this one in; a bare plural after one norm says nothing sure
        return sphere if count > 1 or tail["all"] else None

    def _add_numbered(self, start: int, m, family: str, sphere: str | None,
                      issuer: str | None, list_year: int | None,
                      extra: tuple[str, ...] = ()) -> None:
        raw = m["num"] + (m["suffix"] or "")
        number = canonical(raw)
        if number is None:
            return
        end = m.end()
        if m["reed"]:
            if family == "medida.provisoria":
                number += "-" + m["reed"]
            else:
                end = m.start("reed") - 1
        flags: list[str] = list(extra)
        signed, date_year = _date(m, flags)
        year = _year(m["year"])
        if year is not None and date_year is not None and year != date_year:
            flags.append("year_mismatch")
        if year is None:
            year = date_year
        if year is None and list_year is not None:
            year = list_year
            flags.append("list_year")
        if year is not None and not FIRST_YEAR <= year <= _this_year() + 1:
            flags.append("implausible_year")
        if sphere == "federal" and family == "lei" and year is not None \
                and ("lei.complementar", number, year) in P.KNOWN_FEDERAL:
            family = "lei.complementar"  # "Lei Federal nº 101/2000": no ordinary law bears it
        if sphere is not None:
            source = "written"
        elif issuer and issuer.lower() in P.FEDERAL_ISSUERS:
            sphere, source = "federal", "issuer"
        elif issuer and issuer.lower() in P.STATE_ISSUERS:
            sphere, source = "estadual", "issuer"
        elif family in P.FEDERAL_FAMILIES:
            sphere, source = "federal", "type"
        elif year is not None and (family, number, year) in P.KNOWN_FEDERAL:
            sphere, source = "federal", "known"
        elif seen := self._sphere_seen(family, number, year):
            sphere, source = seen, "text"
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

    def _misspelt(self, sign: int) -> int | None:
        """A misspelt type word before a number sign nothing read ("LEI COOMPLEMENAR Nº 019")."""
        found = misspelt_type(self.low, sign, self.consumed)
        if found is None:
            return None
        start, type_end, family = found
        if P.BILL_BEFORE.search(self.low, max(0, start - 24), start):
            return None
        return self._numbered(start, typed_as=(family, type_end), flags=("type_misspelt",))

    def _bare_emenda(self, pos: int) -> int | None:
        """"Emenda nº 43" near the Lei Orgânica it amends: an amendment to the town's."""
        low = self.low
        m = P.EMENDA_BARE.match(low, pos)
        if m is None or self.level != "municipal" \
                or P.EMENDA_BARE_NOT_BEFORE.search(low, max(0, pos - 24), pos) \
                or not P.LOM_NEAR.search(low, max(0, pos - P.EMENDA_REACH),
                                         pos + P.EMENDA_REACH):
            return None
        r = P.REST_LOW.match(low, m.end())
        if r is None or r["sphere"] or r["sphere2"] or r["compl"] \
                or P.EMENDA_BARE_NOT_AFTER.match(low, r.end()):
            return None
        return self._numbered(pos, typed_as=("emenda.lei.organica", m.end()))

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
            return self._numbered(pos, cased=True)
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
        t = P.ANAPHORA_TYPE.match(low, pos)
        if t is None:
            return None
        start, end = pos, t.end()
        back = P.ANAPHORA_BEFORE.search(low, max(0, pos - 24), pos)
        if back:
            start = back.start()
        else:
            after = P.ANAPHORA_AFTER.match(low, end)
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


def _this_year() -> int:
    return date.today().year


def _dated(m) -> bool:
    return bool(m["year"] or m["dyear"] or m["nyear"] or m["oyear"])


def _year(raw: str | None) -> int | None:
    """'2008' -> 2008; two digits to the latest century that is not in the future."""
    if not raw:
        return None
    raw = raw.replace(".", "")
    value = int(raw)
    if len(raw) == 2:
        this = _this_year()
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
