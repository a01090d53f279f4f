"""Official gazettes (Querido Diário) and the acts cut out of them (harvest/querido_diario.py).

A gazette is one edition of a municipality's Diário Oficial as Querido Diário lists it; its
text file is archived as an original (`text_sha256`, originals/). Every act segmentation finds
in it (gazette/segment.py) is a `gazette_act` row: the normative ones also become records of
norms (`record_id`), the rest (licitações, contratos, nomeações) stay rows here. Migration
0012 creates exactly this.
"""

from __future__ import annotations

from sqlalchemy import Boolean, Column, Date, ForeignKey, Index, Integer, String, Table, Text

from .schema import Timestamp, metadata

gazette = Table(
    "gazette",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("source_id", Integer, ForeignKey("source.id"), nullable=False),
    # territory/date/sha1 of its file, whichever storage host serves it: a gazette listed
    # twice (once as an extra edition) is one gazette
    Column("file_key", Text, nullable=False),
    Column("territory_id", String(16), nullable=False),
    Column("date", Date, nullable=False),
    Column("edition", String(32)),
    Column("is_extra", Boolean, nullable=False, default=False),
    Column("url", Text),  # the PDF
    Column("txt_url", Text),  # Tika's text of it
    Column("scraped_at", Text),  # as Querido Diário says (its incremental marker)
    Column("text_sha256", String(64)),  # the archived text (an original)
    Column("pdf_sha256", String(64)),  # the archived PDF (--with-pdf, or for OCR)
    Column("ocr_sha256", String(64)),  # our OCR of the PDF, when the text was unusable
    Column("quality", Text),  # null: text segmented; else why not (no text, garbage)
    Column("segmented_at", Timestamp),
)
Index("ix_gazette_file", gazette.c.source_id, gazette.c.file_key, unique=True)
Index("ix_gazette_date", gazette.c.source_id, gazette.c.date)

gazette_act = Table(
    "gazette_act",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("gazette_id", Integer, ForeignKey("gazette.id"), nullable=False),
    Column("kind", String(64), nullable=False),  # lei, decreto, ... or licitacao, contrato...
    Column("heading", Text, nullable=False),
    Column("number", String(32)),
    Column("year", Integer),
    Column("date", Date),
    Column("start", Integer, nullable=False),  # characters of the gazette's text
    Column("end", Integer, nullable=False),
    Column("page", Integer),
    Column("flags", Text),  # space-separated: republished continues continuation truncated headless
    Column("municipality", Text),  # its section of an association gazette
    Column("record_id", Integer, ForeignKey("record.id")),  # the norm record (normative acts)
)
Index("ix_gazette_act_gazette", gazette_act.c.gazette_id)
Index("ix_gazette_act_record", gazette_act.c.record_id)
