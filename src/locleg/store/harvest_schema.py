"""The harvester's tables: the persistent frontier, host politeness state, listed norms, vínculos.

Defined on the corpus `metadata`; migrations 0002, 0010 (host claims) and 0011 (listed_norm,
once sapl_norm) create exactly this.
"""

from __future__ import annotations

from sqlalchemy import (
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    Text,
    UniqueConstraint,
)

from .schema import Timestamp, metadata

# One row per host the harvester talks to: what robots.txt says and how the host behaves.
harvest_host = Table(
    "harvest_host",
    metadata,
    Column("host", Text, primary_key=True),  # host[:port] as in the URL, lowercase
    Column("robots_txt", Text),  # the body, or null when there was none (404)
    Column("robots_status", Integer),
    Column("robots_fetched_at", Timestamp),
    Column("crawl_delay", Float),  # robots.txt Crawl-delay for our User-Agent, if any
    Column("failures", Integer, nullable=False, default=0),  # consecutive failed requests
    Column("parked_until", Timestamp),  # kept failing: left alone until then
    Column("last_error", Text),
    Column("last_request_at", Timestamp),
    # The harvest process working the host now (harvest/claims.py), until its lease runs out.
    Column("claimed_by", Text),
    Column("claim_expires_at", Timestamp),
    Column("next_allowed_at", Timestamp),  # its Crawl-delay, kept for whichever process is next
)

# The frontier: every request still to make, with when it may be made at the earliest.
harvest_request = Table(
    "harvest_request",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("source_id", Integer, ForeignKey("source.id"), nullable=False),
    Column("host", Text, nullable=False),
    Column("kind", String(16), nullable=False),  # robots, casa, types, norms, anexos, file...
    Column("url", Text, nullable=False),
    Column("payload", Text, nullable=False, default="{}"),  # JSON: what the handler needs
    Column("priority", Integer, nullable=False, default=5),  # lower first, on one host
    Column("state", String(8), nullable=False, default="pending"),  # pending, failed
    Column("not_before", Timestamp, nullable=False),
    Column("attempts", Integer, nullable=False, default=0),
    Column("last_error", Text),
    Column("created_at", Timestamp, nullable=False),
    UniqueConstraint("source_id", "kind", "url", name="uq_harvest_request"),
)
Index("ix_harvest_request_host", harvest_request.c.host, harvest_request.c.state,
      harvest_request.c.priority, harvest_request.c.not_before)

# What the harvester last saw of each listed norm, whatever its platform (harvest/listed.py):
# enough to tell a changed norm and the files it no longer lists.
listed_norm = Table(
    "listed_norm",
    metadata,
    Column("source_id", Integer, ForeignKey("source.id"), primary_key=True,
           autoincrement=False),
    Column("native_id", Text, primary_key=True),  # the publisher's id of the norm
    Column("record_id", Integer, ForeignKey("record.id"), nullable=False),
    # What changes when the publisher changes the norm (SAPL's data_ultima_atualizacao, an
    # OAI datestamp, a digest of a detail page); may be null.
    Column("marker", Text),
    # Its files as listed, JSON [[url, role], ...] (texto integral first): several per norm
    # on some platforms, so a list, read back whole (never queried by URL).
    Column("files", Text, nullable=False),
)

# Vínculos between norms (normarelacionada + tipovinculonormajuridica), by SAPL native ids.
sapl_relation = Table(
    "sapl_relation",
    metadata,
    Column("source_id", Integer, ForeignKey("source.id"), primary_key=True,
           autoincrement=False),
    Column("native_id", Text, primary_key=True),  # normarelacionada.id
    Column("norm_native_id", Text, nullable=False),  # norma_principal
    Column("record_id", Integer, ForeignKey("record.id")),
    Column("related_native_id", Text, nullable=False),  # norma_relacionada
    Column("related_record_id", Integer, ForeignKey("record.id")),
    Column("tipo_sigla", String(8)),  # A altera, R revoga integralmente, ...
    Column("descricao_ativa", Text),  # "Revoga integralmente o(a)"
    Column("descricao_passiva", Text),  # "Revogado(a) integralmente pelo(a)"
    Column("revoga_integralmente", Boolean),
    Column("resumo", Text),
    Column("seen_at", Timestamp, nullable=False),
    Column("removed_at", Timestamp),
)
Index("ix_sapl_relation_related", sapl_relation.c.related_record_id)
Index("ix_sapl_relation_record", sapl_relation.c.record_id)
