"""A local dump to import (a manifest CSV or a bare folder), read and validated whole.

Nothing in a dump is trusted. Its files are opened without following any link, so a link to
/etc/passwd never reaches a public corpus; every value is checked against what the database
accepts; and a manifest with any bad row is rejected whole, naming the line and column,
before anything is written.
"""

from __future__ import annotations

import codecs
import csv
import errno
import os
import re
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from ..enrich.types import normalize_type
from ..errors import ManifestError, UserError
from ..extract.encoding import decode_text
from ..jurisdictions import fold
from ..store import Store
from ..store.limits import refusal, refusals, text_refusal
from ..store.schema import document, record, version

TEXTO_INTEGRAL = "texto_integral"
ANEXO = "anexo"
REQUIRED_COLUMNS = ("file", "type", "number", "year")
OPTIONAL_COLUMNS = ("date", "ementa", "native_id", "url", "norm_url", "role", "title",
                    "jurisdiction")
MAX_ERRORS_SHOWN = 10
# What the rows of one norm must agree on; an empty cell agrees with anything.
NORM_FIELDS = ("type_raw", "number", "year", "date", "ementa", "url")
# A stored field -> the manifest column it comes from, for messages.
_MANIFEST_COLUMN = {"type_raw": "type", "type_normalized": "type", "url": "norm_url",
                    "jurisdiction_code": "jurisdiction"}
# The codec a detected encoding is streamed with: the -sig and BOM-aware forms drop the BOM.
_STREAM_CODEC = {"utf-8": "utf-8-sig", "utf-16-le": "utf-16", "utf-16-be": "utf-16",
                 "utf-32-le": "utf-32", "utf-32-be": "utf-32"}
_EXPECTED_ENCODING = "save it as UTF-8 (UTF-16 with a BOM and Windows-1252 are read too)"
_CHUNK = 1 << 20

# Lei1167-2014.pdf, LEI_1167_2014.pdf, decreto nº 45-A de 2013.pdf, LC-12-2009.pdf
_FILE_NAME = re.compile(
    r"^(?P<type>[A-Za-zÀ-ÿ_ .]*?)[ _.-]*(?:n[º°o]?[ _.]*)?"
    r"(?P<number>[0-9][0-9.]*(?:-?[A-Za-z])?)[ _-]+(?:de[ _-]+)?(?P<year>(?:1[89]|20)[0-9]{2})$",
    re.IGNORECASE,
)
_TYPE_ABBREVIATIONS = {"lc": "Lei Complementar", "lo": "Lei Ordinária", "dl": "Decreto Legislativo"}
_ISO_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_BR_DATE = re.compile(r"([0-9]{1,2})/([0-9]{1,2})/([0-9]{4})")
_ROLES = {"texto integral": TEXTO_INTEGRAL, "texto_integral": TEXTO_INTEGRAL, "": TEXTO_INTEGRAL,
          "anexo": ANEXO}


@dataclass
class Entry:
    """One file to import and the norm it belongs to."""

    path: str  # absolute; a plain string because pathlib costs more than the read itself
    relative: str  # as stored: the path inside the dump, in text the database accepts
    jurisdiction_code: int
    native_id: str
    type_raw: str | None = None
    number: str | None = None
    year: int | None = None
    date: date | None = None
    ementa: str | None = None
    url: str | None = None
    norm_url: str | None = None
    role: str = TEXTO_INTEGRAL
    title: str | None = None
    line: int | None = None

    @property
    def document_url(self) -> str:
        return self.url or f"file:{self.relative}"

    @property
    def origin(self) -> str:
        """Where the bytes are read from, as stored."""
        return storable_path(self.path)

    def record_fields(self) -> dict:
        """The record's fields as given; the normalized type is derived from type_raw."""
        return {
            "native_id": self.native_id,
            "jurisdiction_code": self.jurisdiction_code,
            "type_raw": self.type_raw,
            "number": self.number,
            "year": self.year,
            "date": self.date,
            "ementa": self.ementa,
            "url": self.norm_url,
        }

    def record_row(self) -> dict:
        return {**self.record_fields(), "type_normalized": normalize_type(self.type_raw)}

    def stored_rows(self) -> list[tuple]:
        """(table, values) of what importing this entry writes (but the normalized type, one
        of a short vocabulary)."""
        return [(record, self.record_fields()),
                (document, {"url": self.document_url, "role": self.role, "title": self.title}),
                (version, {"origin": self.origin})]


@dataclass
class Plan:
    """A validated input: its files, and what an import of it must know beforehand."""

    root: str  # every file is read from inside this folder, never through a link
    count: int
    entries: Callable[[], Iterator[Entry]]
    jurisdiction_code: int | None = None  # a folder's; a manifest may name one per row
    skipped: list[tuple[str, str]] = field(default_factory=list)  # a folder's (path, why)
    # a folder's files whose name gives no number: imported as norms "s/n", and recorded
    unnumbered: list[str] = field(default_factory=list)
    # (jurisdiction, native_id) of norms named by several rows: later rows fill, never empty
    repeated: set[tuple[int, str]] = field(default_factory=set)


def parse_date(text: str) -> date:
    """YYYY-MM-DD or DD/MM/YYYY; ValueError for anything else, impossible days included."""
    match = _BR_DATE.fullmatch(text)
    if match:
        return date(int(match[3]), int(match[2]), int(match[1]))
    if _ISO_DATE.fullmatch(text):
        return date.fromisoformat(text)
    raise ValueError(text)


def infer_from_file_name(name: str) -> tuple[str | None, str | None, int | None]:
    """(type, number, year) from names like Lei1167-2014.pdf; Nones where it cannot tell."""
    match = _FILE_NAME.match(Path(name).stem.strip())
    if not match:
        return None, None, None
    raw_type = match["type"].replace("_", " ").strip(" .-") or None
    if raw_type and raw_type.casefold() in _TYPE_ABBREVIATIONS:
        raw_type = _TYPE_ABBREVIATIONS[raw_type.casefold()]
    elif raw_type:
        raw_type = raw_type.title() if raw_type.isupper() or raw_type.islower() else raw_type
    number = match["number"].replace(".", "").upper()
    if refusal(record.c.number, number):
        return None, None, None  # "Lei 0000…0001-2014": a number no norm has
    return raw_type, number, int(match["year"])


def default_native_id(type_raw: str | None, number: str | None, year: int | None,
                      relative: str) -> str:
    """A stable id when the input names none: type, number and year, else the file path."""
    if number and year:
        return f"{fold(type_raw or '').replace(' ', '-')}:{number}/{year}"
    return relative


# -- files, never through a link ------------------------------------------------------------


class RefusedFile(ValueError):
    """A file of a dump that is not imported: missing, a link, or not a regular file."""


def open_in_dump(root: str, path: str) -> int:
    """A read-only descriptor of PATH, a regular file under ROOT, reached through no link.

    Each folder on the way is opened relative to the one above it with O_NOFOLLOW, so a
    link swapped in after validation, for the file or any folder above it, is refused at
    the copy too. RefusedFile says why, naming the path inside the dump.
    """
    if not path.startswith(root + os.sep):
        raise RefusedFile(f"{clipped(storable_path(path))} is outside {storable_path(root)}")
    relative = path[len(root) + 1:]
    parts = relative.split(os.sep)
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for i, part in enumerate(parts):
            last = i == len(parts) - 1
            # O_NONBLOCK: a FIFO put in the dump must not hang the import at open().
            flags = (os.O_RDONLY | os.O_NOFOLLOW
                     | (os.O_NONBLOCK if last else os.O_DIRECTORY))
            try:
                opened = os.open(part, flags, dir_fd=fd)
            except OSError as e:
                raise _refused(root, parts[: i + 1], relative, e) from None
            os.close(fd)
            fd = opened
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise RefusedFile(f"{clipped(storable_path(relative))} is not a regular file")
    except BaseException:
        os.close(fd)
        raise
    return fd


def _refused(root: str, parts: list[str], relative: str, error: OSError) -> RefusedFile:
    """Why opening the path up to PARTS failed, in the dump's own terms."""
    partial = os.path.join(root, *parts)
    shown, relative = storable_path("/".join(parts)), clipped(storable_path(relative))
    try:
        is_link = stat.S_ISLNK(os.lstat(partial).st_mode)
    except OSError:
        is_link = False
    if is_link:
        what = relative if shown == relative else f"{relative}: its folder {shown}"
        return RefusedFile(f"{what} is a symbolic link (to {_link_target(partial)}): links in a "
                           "dump are never followed")
    if error.errno in (errno.ENOENT, errno.ENOTDIR):
        return RefusedFile(f"file not found: {relative}")
    return RefusedFile(f"cannot read {relative}: {error.strerror}")


def storable_path(path: str) -> str:
    """A path as text the database accepts: bytes of a non-UTF-8 name become \\xNN."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def clipped(value: str, keep: int = 120) -> str:
    """A value as a message shows it: whole when short, else its two ends and its length, so
    that a hostile 5,000-character cell cannot push the reason off the line."""
    if len(value) <= keep:
        return value
    return f"{value[:keep // 2]}…{value[-keep // 2:]} ({len(value):,} characters)"


def _link_target(link: str) -> str:
    try:
        return storable_path(os.readlink(link))
    except OSError as e:  # replaced since it was seen
        return f"unreadable: {e.strerror}"


def _folder_files(folder: str) -> tuple[list[str], list[tuple[str, str]]]:
    """Relative paths of the regular files under FOLDER, and (path, why) of those left out.

    Hidden files and folders are left out silently; links, to files or folders, are never
    followed and are reported.
    """
    files: list[str] = []
    skipped: list[tuple[str, str]] = []
    folders = [""]
    while folders:
        inside = folders.pop()
        try:
            listing = list(os.scandir(os.path.join(folder, inside)))
        except OSError as e:
            skipped.append((inside, f"cannot read the folder: {e.strerror}"))
            continue
        for item in listing:
            if item.name.startswith("."):
                continue
            relative = f"{inside}/{item.name}" if inside else item.name
            if item.is_symlink():
                skipped.append((relative, f"a symbolic link (to {_link_target(item.path)}): "
                                          "links in a dump are never followed"))
            elif item.is_dir(follow_symlinks=False):
                folders.append(relative)
            elif item.is_file(follow_symlinks=False):
                files.append(relative)
            else:
                skipped.append((relative, "not a regular file"))
    files.sort()
    return files, skipped


def _folder_entry(folder: str, relative: str, jurisdiction_code: int) -> Entry:
    shown = storable_path(relative)
    # A name that is not UTF-8 comes from an old Windows server: read it as Latin-1 to infer
    # type, number and year; it is stored escaped, which names one file only.
    name = os.fsencode(relative.rsplit("/", 1)[-1]).decode("latin-1") if shown != relative \
        else relative.rsplit("/", 1)[-1]
    type_raw, number, year = infer_from_file_name(name)
    # A name that gives no number makes a norm "s/n": its file name titles its texto
    # integral, the one thing that tells such norms apart (and the import records it).
    return Entry(path=os.path.join(folder, relative), relative=shown,
                 jurisdiction_code=jurisdiction_code, native_id=shown, type_raw=type_raw,
                 number=number, year=year,
                 title=None if number else storable_path(name))


def _plan_folder(folder: str, code: int) -> Plan:
    files, skipped = _folder_files(folder)
    kept, unnumbered = [], []
    for relative in files:
        entry = _folder_entry(folder, relative, code)
        refused = [why for table, values in entry.stored_rows()
                   for _, why in refusals(table, values)]
        if refused:
            skipped.append((relative, f"its path {refused[0]}"))
        else:
            kept.append(relative)
            if entry.number is None:
                unnumbered.append(entry.relative)
    skipped = [(storable_path(relative), why) for relative, why in sorted(skipped)]
    return Plan(folder, len(kept), lambda: (_folder_entry(folder, r, code) for r in kept),
                code, skipped, unnumbered=unnumbered)


# -- manifests ------------------------------------------------------------------------------


def manifest_encoding(manifest: Path) -> str:
    """The codec to read a manifest with: its BOM, else UTF-8 when valid, else detected.

    The whole file is decoded once here, so a byte that is not of the encoding is reported
    with its line before any row is read.
    """
    try:
        with manifest.open("rb") as f:
            _, detected = decode_text(f.read(_CHUNK))
            codec = _STREAM_CODEC.get(detected, detected)
            f.seek(0)
            decoder = codecs.getincrementaldecoder(codec)()
            line = 1
            while True:
                chunk = f.read(_CHUNK)
                try:
                    decoder.decode(chunk, final=not chunk)
                except UnicodeDecodeError as e:
                    at = line + e.object[: e.start].count(b"\n")
                    raise ManifestError(f"{manifest.name} line {at}: not {detected} text "
                                        f"({e.reason}); {_EXPECTED_ENCODING}") from None
                if not chunk:
                    return codec
                line += chunk.count(b"\n")
    except OSError as e:
        raise UserError(f"cannot read {manifest}: {e.strerror}") from None


def _delimiter(header: str) -> str:
    """Commas, or the semicolons Excel writes in a Brazilian locale, or tabs."""
    for candidate in (",", ";", "\t"):
        if "file" in (h.strip().lower() for h in header.split(candidate)):
            return candidate
    return ","


def _manifest_rows(manifest: Path, encoding: str) -> Iterator[tuple[int, dict[str, str]]]:
    try:
        handle = manifest.open(newline="", encoding=encoding)
    except OSError as e:
        raise UserError(f"cannot read {manifest}: {e.strerror}") from None
    with handle:
        delimiter = _delimiter(handle.readline())
        handle.seek(0)
        reader = csv.DictReader(handle, delimiter=delimiter)
        header = [h.strip().lower() for h in (reader.fieldnames or [])]
        missing = [c for c in REQUIRED_COLUMNS if c not in header]
        if missing:
            raise ManifestError(
                f"{manifest.name}: missing column{'s' if len(missing) > 1 else ''} "
                f"{', '.join(repr(c) for c in missing)} (the header needs "
                f"{', '.join(REQUIRED_COLUMNS)}; optional: {', '.join(OPTIONAL_COLUMNS)})"
            )
        unknown = [h for h in header if h not in REQUIRED_COLUMNS + OPTIONAL_COLUMNS]
        if unknown:
            raise ManifestError(
                f"{manifest.name}: unknown column{'s' if len(unknown) > 1 else ''} "
                f"{', '.join(repr(c) for c in unknown)} (known: "
                f"{', '.join(REQUIRED_COLUMNS + OPTIONAL_COLUMNS)})"
            )
        reader.fieldnames = header
        try:
            for row in reader:
                yield reader.line_num, {k: (v or "").strip() for k, v in row.items() if k}
        except csv.Error as e:
            # The csv reader's own count: the DictReader's stops at the last good row.
            line = reader.reader.line_num
            if "field larger than field limit" in str(e):
                raise ManifestError(f"{manifest.name} line {line}: a cell is longer than "
                                    f"{csv.field_size_limit():,} characters, more than any "
                                    "field of a norm holds") from None
            raise ManifestError(f"{manifest.name} line {line}: {e}") from None


def _entry_from_row(manifest: Path, line: int, row: dict[str, str],
                    jurisdiction_code: int | None, known_codes: set[int],
                    check_file: bool = True) -> Entry:
    """One manifest row as an Entry; ValueError with a readable reason when it is bad.

    CHECK_FILE: open the file to see it is a regular file reached through no link (the
    validation pass); the copy checks again, and a file refused then becomes a problem.
    """
    where = f"{manifest.name} line {line}"
    # Before a value reaches a path or a parser (open() meets a NUL with a traceback); one
    # check of the whole row first, as nearly every row passes.
    if text_refusal("".join(row.values())):
        for column, value in row.items():
            why = text_refusal(value)
            if why:
                raise ValueError(f"{where}, column {column!r}: {why}")
    if not row.get("file"):
        raise ValueError(f"{where}: empty 'file'")
    base = str(manifest.parent)
    path = os.path.normpath(os.path.join(base, row["file"]))
    # A manifest from elsewhere must not pull /etc/passwd into a public corpus.
    if not path.startswith(base + os.sep):
        raise ValueError(f"{where}: {clipped(row['file'])} is outside the manifest's folder")
    if check_file:
        try:
            os.close(open_in_dump(base, path))
        except RefusedFile as e:
            raise ValueError(f"{where}: {e}") from None
    code = jurisdiction_code
    if row.get("jurisdiction"):
        if not re.fullmatch(r"[0-9]{1,9}", row["jurisdiction"]):
            raise ValueError(
                f"{where}: jurisdiction {clipped(row['jurisdiction'])!r} is not an IBGE code"
            )
        code = int(row["jurisdiction"])
    if code is None:
        raise ValueError(
            f"{where}: no jurisdiction (give --jurisdiction or a 'jurisdiction' column)"
        )
    if code not in known_codes:
        raise ValueError(f"{where}: unknown IBGE code {code}")
    year = None
    if row.get("year"):
        if not re.fullmatch(r"[0-9]{4}", row["year"]):
            raise ValueError(f"{where}: bad year {row['year'][:20]!r} (four digits, e.g. 2011)")
        year = int(row["year"])
    when = None
    if row.get("date"):
        try:
            when = parse_date(row["date"])
        except ValueError:
            raise ValueError(
                f"{where}: bad date {row['date'][:20]!r} (use YYYY-MM-DD or DD/MM/YYYY)"
            ) from None
    role = _ROLES.get(row.get("role", "").casefold())
    if role is None:
        raise ValueError(f"{where}: unknown role {row['role'][:20]!r} "
                         "(texto integral or anexo)")
    number = row.get("number") or None
    relative = row["file"]
    entry = Entry(
        path=path,
        relative=relative,
        jurisdiction_code=code,
        native_id=row.get("native_id") or default_native_id(row.get("type"), number, year,
                                                             relative),
        type_raw=row.get("type") or None,
        number=number,
        year=year,
        date=when,
        ementa=row.get("ementa") or None,
        url=row.get("url") or None,
        norm_url=row.get("norm_url") or None,
        role=role,
        title=row.get("title") or None,
        line=line,
    )
    for table, values in entry.stored_rows():
        for name, why in refusals(table, values):
            raise ValueError(f"{where}, column {_column_of(table, name, row)}: {why}")
    return entry


def _column_of(table, name: str, row: dict[str, str]) -> str:
    """The manifest column a stored value came from, as messages name it."""
    if table is version or (table is document and name == "url" and not row.get("url")):
        return "'file'"
    if table is record and name == "native_id" and not row.get("native_id"):
        return "'native_id' (made of type, number and year)"
    return repr(_MANIFEST_COLUMN.get(name, name) if table is record else name)


class _NormAgreement:
    """The norm data each (jurisdiction, native_id) had so far, to find rows that disagree.

    Values are kept as hashes: a manifest of a million rows must not be held in memory.
    """

    def __init__(self, manifest: Path) -> None:
        self.name = manifest.name
        # key -> (line each field was set at, hash of each field or None)
        self.seen: dict[tuple[int, str], tuple[tuple, tuple]] = {}
        self.repeated: set[tuple[int, str]] = set()

    def check(self, entry: Entry) -> str | None:
        """Why ENTRY disagrees with an earlier row of its norm, or None."""
        row = entry.record_fields()
        values = tuple(None if row[f] is None else hash(row[f]) for f in NORM_FIELDS)
        key = (entry.jurisdiction_code, entry.native_id)
        found = self.seen.get(key)
        if found is None:
            self.seen[key] = ((entry.line,) * len(values), values)
            return None
        self.repeated.add(key)
        lines, known = found
        for i, name in enumerate(NORM_FIELDS):
            if known[i] is not None and values[i] is not None and known[i] != values[i]:
                return (f"{self.name} line {entry.line}: native_id {entry.native_id[:40]!r} "
                        f"repeats line {lines[i]} with a different "
                        f"{_MANIFEST_COLUMN.get(name, name)}: the rows of one norm must agree "
                        "(leave the cell empty in all but one)")
        if any(k is None and v is not None for k, v in zip(known, values, strict=True)):
            self.seen[key] = (
                tuple(line if k is not None else entry.line for line, k in zip(lines, known,
                                                                                strict=True)),
                tuple(k if k is not None else v for k, v in zip(known, values, strict=True)),
            )
        return None


def _plan_manifest(store: Store, manifest: Path, code: int | None) -> Plan:
    encoding = manifest_encoding(manifest)
    known = {j["ibge_code"] for j in store.jurisdictions()}
    agreement = _NormAgreement(manifest)
    errors, count = [], 0
    for line, row in _manifest_rows(manifest, encoding):
        try:
            entry = _entry_from_row(manifest, line, row, code, known)
        except ValueError as e:
            errors.append(str(e))
            continue
        disagreement = agreement.check(entry)
        if disagreement:
            errors.append(disagreement)
        else:
            count += 1
    if errors:
        hidden = len(errors) - MAX_ERRORS_SHOWN
        more = f" (and {hidden} more)" if hidden > 0 else ""
        shown = "\n  ".join(errors[:MAX_ERRORS_SHOWN])
        raise ManifestError(
            f"{manifest.name} has {len(errors)} bad row{'s' if len(errors) > 1 else ''}; "
            f"nothing was imported{more}:\n  {shown}"
        )

    def entries() -> Iterator[Entry]:
        for line, row in _manifest_rows(manifest, encoding):
            try:
                yield _entry_from_row(manifest, line, row, code, known, check_file=False)
            except ValueError as e:
                raise ManifestError(f"{e} (the manifest changed during the import; the "
                                    "batches before this line are kept)") from None

    return Plan(str(manifest.parent), count, entries, repeated=agreement.repeated)


def plan(store: Store, target: Path, jurisdiction: int | str | None) -> Plan:
    """Validate the whole input (a folder or a manifest) before anything is written."""
    target = target.expanduser().resolve()
    if not target.exists():
        raise UserError(f"{target} does not exist")
    code = store.require_jurisdiction(jurisdiction)["ibge_code"] if jurisdiction else None
    if target.is_dir():
        if code is None:
            raise UserError("importing a folder needs --jurisdiction IBGE_CODE")
        return _plan_folder(str(target), code)
    if target.suffix.lower() != ".csv":
        raise UserError(f"{target.name}: give a folder or a manifest .csv file")
    return _plan_manifest(store, target, code)
