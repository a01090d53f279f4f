"""A norm's legal life: revoked, revoked in part, suspended, altered, or no revocation known.

The evidence comes from two places: the vínculos a SAPL publishes (Lei 2.199 "revoga
integralmente" Lei 1.996) and the texts of norms ("Fica revogada a Lei Municipal nº 1.996",
"(Redação dada pela Lei nº 2758/1973)"); "revogadas as disposições em contrário, especialmente
as contidas na Lei X" is no evidence of a revocation of Lei X (see citation_acts). Every piece
of evidence names the norm that acted and the sentence or vínculo that says so. "No revocation
known" is what it says: silence is not proof that a norm is in force.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence

from sqlalchemy import bindparam, func, select, update
from sqlalchemy.engine import Connection

from ..store import metadata
from ..store.schema import citation, norm, record
from .citation_model import (
    ALTERED_BY,
    ALTERS,
    REVOKED_BY,
    REVOKED_IN_PART_BY,
    REVOKES,
    REVOKES_IN_PART,
)

NONE_KNOWN = "none_known"
REVOKED, REVOKED_IN_PART, SUSPENDED, ALTERED = "revoked", "revoked_in_part", "suspended", \
    "altered"
# Strongest first: a norm revoked in part and later revoked wholly is revoked.
RANK = (REVOKED, SUSPENDED, REVOKED_IN_PART, ALTERED, NONE_KNOWN)
# As shown to readers (badges, facets, the CLI): the Portuguese word a norm's status is known
# by; silence is said as such, never as "em vigor".
STATUS_LABELS = {REVOKED: "revogada", REVOKED_IN_PART: "revogada em parte",
                 SUSPENDED: "suspensa", ALTERED: "alterada",
                 NONE_KNOWN: "no revocation known"}
# Acts another norm's text does to the norm it cites; and notes in a norm's own text about
# what was done to it.
_BY_OTHERS = {REVOKES: REVOKED, REVOKES_IN_PART: REVOKED_IN_PART, ALTERS: ALTERED}
_ON_ITSELF = {REVOKED_BY: REVOKED, REVOKED_IN_PART_BY: REVOKED_IN_PART, ALTERED_BY: ALTERED}
# SAPL's tipos de vínculo, by sigla, as the norm on the passive side lives them.
SAPL_VINCULOS = {"R": REVOKED, "T": REVOKED, "P": REVOKED_IN_PART, "A": ALTERED,
                 "K": ALTERED, "L": SUSPENDED, "N": SUSPENDED, "O": ALTERED}


def recompute(conn: Connection, norm_ids: Iterable[int]) -> None:
    """Status, evidence and cited-by counts of these norms, from what the corpus holds now."""
    ids = sorted(set(norm_ids))
    for start in range(0, len(ids), 500):
        _recompute(conn, ids[start:start + 500])


def _recompute(conn: Connection, ids: Sequence[int]) -> None:
    evidence: dict[int, list[dict]] = defaultdict(list)
    citing = citation.alias("citing")
    for row in conn.execute(
        select(citing.c.target_norm_id, citing.c.norm_id, citing.c.kind, citing.c.sentence,
               citing.c.article, citing.c.page, citing.c.text, citing.c.flags)
        .where(citing.c.target_norm_id.in_(ids), citing.c.kind.in_(list(_BY_OTHERS)),
               citing.c.norm_id != citing.c.target_norm_id)
    ):
        evidence[row.target_norm_id].append({
            "status": _BY_OTHERS[row.kind], "by_norm": row.norm_id, "via": "text",
            "kind": row.kind, "citation": row.text, "article": row.article, "page": row.page,
            "sentence": row.sentence, "flags": _flags(row.flags)})
    for row in conn.execute(
        select(citation.c.norm_id, citation.c.target_norm_id, citation.c.kind,
               citation.c.sentence, citation.c.page, citation.c.text, citation.c.urn)
        .where(citation.c.norm_id.in_(ids), citation.c.kind.in_(list(_ON_ITSELF)))
    ):
        evidence[row.norm_id].append({
            "status": _ON_ITSELF[row.kind], "by_norm": row.target_norm_id, "via": "text",
            "kind": row.kind, "citation": row.text, "page": row.page, "urn": row.urn,
            "sentence": row.sentence})
    relation = metadata.tables.get("sapl_relation")
    if relation is not None:
        passive = record.alias("passive")
        active = record.alias("active")
        for row in conn.execute(
            select(passive.c.norm_id.label("target"), active.c.norm_id.label("by_norm"),
                   relation.c.tipo_sigla, relation.c.descricao_passiva, relation.c.resumo,
                   relation.c.norm_native_id)
            .join(passive, passive.c.id == relation.c.related_record_id)
            .outerjoin(active, active.c.id == relation.c.record_id)
            .where(passive.c.norm_id.in_(ids), relation.c.removed_at.is_(None),
                   relation.c.tipo_sigla.in_(list(SAPL_VINCULOS)))
        ):
            evidence[row.target].append({
                "status": SAPL_VINCULOS[row.tipo_sigla], "by_norm": row.by_norm, "via": "sapl",
                "kind": row.tipo_sigla, "label": row.descricao_passiva,
                "sentence": row.resumo, "native_id": row.norm_native_id})
    cited_by = dict(conn.execute(
        select(citation.c.target_norm_id, func.count(func.distinct(citation.c.norm_id)))
        .where(citation.c.target_norm_id.in_(ids), citation.c.norm_id != citation.c.target_norm_id)
        .group_by(citation.c.target_norm_id)).all())
    rows = []
    for norm_id in ids:
        found = evidence.get(norm_id, [])
        status = min((e["status"] for e in found), key=RANK.index, default=NONE_KNOWN)
        rows.append({"b_id": norm_id, "b_status": status,
                     "b_evidence": json.dumps(found, ensure_ascii=False, default=str)
                     if found else None,
                     "b_cited_by": int(cited_by.get(norm_id, 0))})
    if rows:
        conn.execute(update(norm).where(norm.c.id == bindparam("b_id"))
                     .values(status=bindparam("b_status"),
                             status_evidence=bindparam("b_evidence"),
                             cited_by=bindparam("b_cited_by")), rows)


def _flags(text: str | None) -> list[str]:
    return text.split() if text else []
