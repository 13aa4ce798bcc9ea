package storage

import (
	"github.com/platen-print/platen/ent/schema"
	"github.com/platen-print/platen/internal/files"
)

// itemDigest is an item's file size and SHA-256 as stored; nil when the
// row has none (no file, or a file stored before they were kept).
func itemDigest(size *int64, sha256 *string) *files.Digest {
	if size == nil || sha256 == nil {
		return nil
	}
	return &files.Digest{Size: *size, SHA256: *sha256}
}

// digestColumns are the two columns of an item's file digest, nil when
// there is none.
func digestColumns(d *files.Digest) (size *int64, sha256 *string) {
	if d == nil {
		return nil, nil
	}
	return &d.Size, &d.SHA256
}

// setItemDigest sets (or, for nil, clears) an item's file digest on u, an
// OrderItem update or update-one.
func setItemDigest[B interface {
	SetPrintFileSize(int64) B
	ClearPrintFileSize() B
	SetPrintFileSha256(string) B
	ClearPrintFileSha256() B
}](u B, d *files.Digest) B {
	if d == nil {
		return u.ClearPrintFileSize().ClearPrintFileSha256()
	}
	return u.SetPrintFileSize(d.Size).SetPrintFileSha256(d.SHA256)
}

// shopDigests are a shop print's file digests as the domain holds them.
func shopDigests(rows []schema.FileDigest) []files.Digest {
	if len(rows) == 0 {
		return nil
	}
	out := make([]files.Digest, len(rows))
	for i, r := range rows {
		out[i] = files.Digest{Size: r.Size, SHA256: r.SHA256}
	}
	return out
}
