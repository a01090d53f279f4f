"""`/urn/<urn>`: a LexML URN to the corpus norm it names.

urn:lex:br;bahia;juazeiro:municipal:lei:2011-06-27;2199 is the place (LexML locality), the
authority, the type and the descriptor (date;number). The norm is found by its key
(jurisdiction|family|number|year, enrich/identity.py), which is indexed; a fragment
(!art39-B) or version (@...) names a part or a state of the same norm.
"""

from __future__ import annotations

import re
from datetime import date

from sqlalchemy import select

from ..enrich.numbering import canonical_number
from ..search.query import quoted
from ..store import Store
from ..store.schema import jurisdiction, norm
from .citations import base_urn, lexml_url
from .data import BadRequest, NotFound

_URN = re.compile(
    r"urn:lex:(?P<place>br(?:;[a-z0-9.-]+){0,2}):(?P<authority>[a-z0-9.;-]+):"
    r"(?P<type>[a-z0-9.]+):(?P<date>[0-9]{4}(?:-[0-9]{2}(?:-[0-9]{2})?)?);"
    r"(?P<number>[a-z0-9.-]{1,32})")
_SHAPE = "urn:lex:<place>:<authority>:<type>:<date>;<number>"


def norm_for_urn(store: Store, text: str) -> int:
    """The id of the live norm a URN names; BadRequest when it is no LexML URN of a norm,
    NotFound when the corpus does not hold that norm."""
    urn = base_urn(text.strip().lower())
    match = _URN.fullmatch(urn or "") if len(text) <= 200 else None
    if match is None:
        raise BadRequest(f"not a LexML URN of a norm: {quoted(text[:80])} (expected {_SHAPE})")
    signed = _date(match["date"])
    number = canonical_number(match["number"])
    if number is None:
        raise BadRequest(f"this URN names no number: {quoted(text[:80])}")
    family, year = match["type"], int(match["date"][:4])
    with store.engine.connect() as conn:
        code = conn.scalar(select(jurisdiction.c.ibge_code)
                           .where(jurisdiction.c.lexml_label == match["place"]))
        if code is None:
            where = ("federal and other national norms are not collected"
                     if match["place"] == "br" else f"no jurisdiction is {match['place']}")
            raise NotFound(f"no norm in the corpus has the URN {urn}: {where} (LexML: "
                           f"{lexml_url(urn)})")
        found = conn.scalar(select(norm.c.id).where(
            norm.c.key == f"{code}|{family}|{number}|{year}", norm.c.merged_into.is_(None)))
        if found is None:
            # The key's year is the numbering year, which a source may give apart from the
            # signing date the URN carries: the same number and type with this very URN.
            candidates = conn.execute(
                select(norm.c.id, norm.c.urn, norm.c.date)
                .where(norm.c.number_key == number, norm.c.family == family,
                       norm.c.jurisdiction_code == code, norm.c.merged_into.is_(None))
                .order_by(norm.c.id).limit(50)).all()
            same = [c.id for c in candidates if c.urn == urn
                    or (signed is not None and c.date is not None and str(c.date) == str(signed))]
            found = same[0] if same else None
    if found is None:
        raise NotFound(f"no norm in the corpus has the URN {urn}")
    return found


def _date(text: str) -> date | None:
    """The URN's date when it is a whole one; a bad one is a malformed URN."""
    parts = [int(p) for p in text.split("-")]
    if len(parts) < 3:
        return None
    try:
        return date(*parts)
    except ValueError:
        raise BadRequest(f"not a date: {text}") from None
