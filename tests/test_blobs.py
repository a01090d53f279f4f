"""The originals store: content addressing, atomic writes, verification, no path escapes."""

from __future__ import annotations

import pytest

from locleg.originals.base import BlobError, sha256_of
from locleg.originals.local import BlobStore


def test_put_is_content_addressed_and_idempotent(tmp_path):
    blobs = BlobStore(tmp_path / "originals")
    first = blobs.put(b"%PDF-1.4 lei")
    again = blobs.put(b"%PDF-1.4 lei")
    assert first.sha256 == sha256_of(b"%PDF-1.4 lei") and first.created
    assert again.sha256 == first.sha256 and not again.created
    path = blobs.path_for(first.sha256)
    assert path.relative_to(blobs.root).parts == (first.sha256[:2], first.sha256)
    assert blobs.read(first.sha256) == b"%PDF-1.4 lei"
    assert list(blobs) == [first.sha256]
    assert blobs.leftover_temp_files() == []


@pytest.mark.parametrize("name", ["../../etc/passwd", "/etc/passwd", "a" * 63, "A" * 64,
                                  "g" * 64, "a" * 64 + "/..", "", None])
def test_a_name_that_is_not_a_digest_never_reaches_the_filesystem(tmp_path, name):
    blobs = BlobStore(tmp_path)
    with pytest.raises(BlobError, match="not a sha256"):
        blobs.path_for(name)
    with pytest.raises(BlobError):
        blobs.read(name)


def test_corruption_and_loss_are_detected(tmp_path):
    blobs = BlobStore(tmp_path)
    digest = blobs.put(b"texto integral").sha256
    assert blobs.verify(digest) is None
    blobs.path_for(digest).write_bytes(b"texto integrAl")
    assert blobs.verify(digest) == "hash mismatch"
    with pytest.raises(BlobError, match="corrupted"):
        blobs.read(digest)
    blobs.path_for(digest).unlink()
    assert blobs.verify(digest) == "missing"
    with pytest.raises(BlobError, match="missing"):
        blobs.read(digest)


def test_a_failed_write_leaves_no_partial_original(tmp_path, monkeypatch):
    blobs = BlobStore(tmp_path)

    def crash(*_args):
        raise OSError("disk full")

    monkeypatch.setattr("locleg.originals.local.os.replace", crash)
    with pytest.raises(OSError, match="disk full"):
        blobs.put(b"never stored")
    assert list(blobs) == []
    assert blobs.leftover_temp_files() == []
