"""Citations between norms: every reference a norm's text makes to another norm, and what it
does to it (cites, revokes, alters, regulates), with the sentence that says so.

Pure functions over text: `find_citations` reads a text, `citation_key` and `citation_urn`
name the cited norm for the resolver, `revocation_cycles` finds norms that revoke each other.
The grammar lives in `citation_patterns.py`; docs/enrichment.md ("Citations") has the rules.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable

from . import citation_patterns as P
from .citation_acts import first_article, read_acts
from .citation_model import (
    ALTERED_BY,
    ALTERS,
    CITES,
    FORWARD,
    KINDS,
    REGULATED_BY,
    REGULATES,
    REVOKED_BY,
    REVOKED_IN_PART_BY,
    REVOKES,
    REVOKES_IN_PART,
    Citation,
    CitationKey,
    JurisdictionInfo,
    NormRef,
)
from .citation_scan import Scan
from .numbering import canonical_number
from .town_numbering import TownNumbering
from .urn import norm_urn

__all__ = [
    "ALTERED_BY", "ALTERS", "CITES", "KINDS", "REGULATED_BY", "REGULATES", "REVOKED_BY",
    "REVOKED_IN_PART_BY", "REVOKES", "REVOKES_IN_PART", "Citation", "CitationKey",
    "JurisdictionInfo", "NormRef", "TownNumbering", "citation_key", "citation_urn",
    "find_citations", "revocation_cycles",
]


def find_citations(text: str, own: NormRef | None = None, *, level: str = "municipal",
                   numbering: TownNumbering | None = None) -> list[Citation]:
    """Every reference to another norm in `text`, in order.

    `own` is the citing norm: its mentions of itself are dropped (a revocation of itself is
    kept, flagged `targets_itself`). Without `own`, the heading ("LEI Nº 2.199/2011" alone on
    its line before the first article) stands for it. `level` is the citing jurisdiction's
    level, the sphere of a citation that writes none. `numbering`, the citing town's (from
    its corpus): a citation that writes no sphere and whose number is far beyond the town's
    numbering of its year is flagged `beyond_town_numbering`, its sphere unknown.
    """
    if not text:
        return []
    low = text.lower()
    if len(low) != len(text):  # a few letters lowercase to two characters ("İ")
        low = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    raws = Scan(text, low, level).run()
    if not raws:
        return []
    raws = _drop_named_echoes(text, raws)
    heading = _heading(text, raws)
    selves = [_canonical_ref(r) for r in (own, heading and _ref(heading)) if r is not None]
    kept = [c for c in raws if c is not heading]
    read_acts(text, low, kept)
    result = []
    for c in kept:
        if any(_same_norm(c, ref, level) for ref in selves):
            if c.kind == CITES:
                continue
            c.flags += ("targets_itself",)
        if own is not None and own.year and c.year and c.year > own.year \
                and c.kind in (*FORWARD, CITES):
            c.flags += ("later_than_citing",)
        if numbering and c.sphere_source == "implied" and level == "municipal" \
                and numbering.beyond(c.family, c.number, c.year):
            # another sphere's norm (the state's, most often): keyed as none, not as the town's
            c.flags += ("beyond_town_numbering",)
            c.sphere, c.sphere_source = None, "unknown"
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


def _drop_named_echoes(text: str, raws: list[Citation]) -> list[Citation]:
    """'Lei nº 5.172/66 (CTN)', 'Código Tributário Nacional (Lei nº 5.172/66)': one norm named
    twice side by side is one citation, the one with the number as written. The name says
    which norm the number is: "Lei nº 101/2000 – Lei de Responsabilidade Fiscal" is the
    federal LC 101/2000, not a municipal law 101/2000."""
    out: list[Citation] = []
    for c in raws:
        prev = out[-1] if out else None
        if prev is not None and prev.number == c.number and prev.number is not None \
                and (prev.year is None or c.year is None or prev.year == c.year) \
                and not text[prev.end:c.start].strip(" \t\n()[],;-–—/"):
            known, written = (prev, c) if "known_law" in prev.flags else (c, prev)
            if "known_law" in known.flags and "known_law" not in written.flags:
                _take_known(written, known)
                out[-1] = written
                continue
            if prev.family == c.family:
                continue
        out.append(c)
    return out


def _take_known(written: Citation, known: Citation) -> None:
    """The number as written, the family, sphere and date of the norm its name names."""
    if written.family in (known.family, "lei") and written.sphere_source in (
            "implied", "text", "known"):
        written.family, written.sphere, written.sphere_source = \
            known.family, known.sphere, "known"
        written.year = written.year or known.year
        written.date = written.date or known.date


def _heading(text: str, raws: list[Citation]) -> Citation | None:
    """The norm's own heading: an uppercase citation alone on its line before the first
    article ("LEI Nº 2.199/2011")."""
    first = None
    for c in raws:
        if not text[c.start:c.start + 3].isupper() or c.family == "constituicao":
            continue
        line_start = text.rfind("\n", 0, c.start) + 1
        line_end = text.find("\n", c.end)
        line_end = len(text) if line_end == -1 else line_end
        if text[line_start:c.start].strip() or text[c.end:line_end].strip(" \t.:-–—"):
            continue
        if first is None:
            first = first_article(text)
        if c.start < first:
            return c
    return None


def _ref(c: Citation) -> NormRef:
    return NormRef(c.family, c.number, c.year)


def _canonical_ref(ref: NormRef) -> NormRef:
    return NormRef(ref.family, canonical_number(ref.number), ref.year)


def _same_norm(c: Citation, ref: NormRef, level: str) -> bool:
    if c.family != ref.family or c.number is None or c.number != ref.number:
        return False
    if c.year is not None and ref.year is not None and c.year != ref.year:
        return False
    return c.sphere == level


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
