package files

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// backends opens one store of each kind; the tests below hold for both.
var backends = map[string]func(t *testing.T) *Store{
	"file": func(t *testing.T) *Store { return newLocal(t).Store },
	"s3":   newS3,
}

// failingReader yields n bytes and then an error, like a render that dies
// halfway through writing its PDF. 12 MiB is past the S3 transfer manager's
// 8 MiB part size, so on S3 a multipart upload starts and must be abandoned.
type failingReader struct{ n int }

var errRenderDied = errors.New("render died")

func (r *failingReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, errRenderDied
	}
	k := min(len(p), r.n)
	for i := range k {
		p[i] = 'x'
	}
	r.n -= k
	return k, nil
}

func TestPutIsAtomic(t *testing.T) {
	for name, open := range backends {
		t.Run(name, func(t *testing.T) {
			s := open(t)
			ctx := context.Background()
			if _, err := s.Put(ctx, pdfKey, &failingReader{n: 12 << 20}, "application/pdf"); !errors.Is(err, errRenderDied) {
				t.Fatalf("Put: %v", err)
			}
			if ok, err := s.Exists(ctx, pdfKey); ok || err != nil {
				t.Fatalf("after a failed first Put: exists %v, %v", ok, err)
			}
			first := printFile()
			put(t, s, pdfKey, first, "application/pdf")
			if _, err := s.Put(ctx, pdfKey, &failingReader{n: 12 << 20}, "application/pdf"); !errors.Is(err, errRenderDied) {
				t.Fatalf("second Put: %v", err)
			}
			if got := readAll(t, s, pdfKey); !bytes.Equal(got, first) {
				t.Errorf("after a failed second Put the file has %d bytes, want the first %d", len(got), len(first))
			}
		})
	}
}

func TestPutCancelled(t *testing.T) {
	for name, open := range backends {
		t.Run(name, func(t *testing.T) {
			s := open(t)
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if _, err := s.Put(ctx, pdfKey, bytes.NewReader(printFile()), "application/pdf"); err == nil {
				t.Fatal("a cancelled Put succeeded")
			}
			if ok, err := s.Exists(context.Background(), pdfKey); ok || err != nil {
				t.Errorf("exists %v, %v", ok, err)
			}
		})
	}
}

func TestPutDeleteExists(t *testing.T) {
	for name, open := range backends {
		t.Run(name, func(t *testing.T) {
			s := open(t)
			ctx := context.Background()
			put(t, s, pdfKey, []byte("v1"), "application/pdf")
			put(t, s, pdfKey, []byte("version two"), "application/pdf")
			if got := readAll(t, s, pdfKey); string(got) != "version two" {
				t.Errorf("after overwrite: %q", got)
			}
			attrs, err := s.bucket.Attributes(ctx, pdfKey)
			if err != nil || attrs.ContentType != "application/pdf" {
				t.Errorf("attributes %+v, %v", attrs, err)
			}
			if ok, err := s.Exists(ctx, pdfKey); !ok || err != nil {
				t.Fatalf("exists %v, %v", ok, err)
			}
			if err := s.Delete(ctx, pdfKey); err != nil {
				t.Fatal(err)
			}
			if ok, err := s.Exists(ctx, pdfKey); ok || err != nil {
				t.Fatalf("after delete: exists %v, %v", ok, err)
			}
			if err := s.Delete(ctx, pdfKey); err != nil {
				t.Errorf("second delete: %v", err)
			}
		})
	}
}

func TestLocalFailedPutLeavesNothing(t *testing.T) {
	l := newLocal(t)
	if _, err := l.Put(context.Background(), pdfKey, &failingReader{n: 1 << 20}, "application/pdf"); err == nil {
		t.Fatal("Put succeeded")
	}
	err := filepath.WalkDir(l.dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			t.Errorf("left behind: %s", path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestLocalDeleteRemovesEmptyFolders: a Delete removes the folders it
// left empty, innermost first, and stops at one that still holds a file;
// the store's own directory stays, and a Put into a removed folder makes
// it again. Also with a file:// URL relative to the working directory.
func TestLocalDeleteRemovesEmptyFolders(t *testing.T) {
	ctx := context.Background()
	for name, open := range map[string]func(t *testing.T) (*Store, string){
		"absolute": func(t *testing.T) (*Store, string) { l := newLocal(t); return l.Store, l.dir },
		"relative": func(t *testing.T) (*Store, string) {
			t.Chdir(t.TempDir())
			s, err := Open(ctx, "file://./data/files", "http://127.0.0.1:1", testSecret)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s, filepath.Join("data", "files")
		},
	} {
		t.Run(name, func(t *testing.T) {
			s, dir := open(t)
			exists := func(rel string) bool {
				_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(rel)))
				return err == nil
			}
			for _, key := range []string{"orders/o1/i1-1.pdf", "orders/o1/i2-2.pdf", "orders/o2/i3-3.pdf"} {
				put(t, s, key, []byte("pdf"), "application/pdf")
			}
			if err := s.Delete(ctx, "orders/o1/i1-1.pdf"); err != nil {
				t.Fatal(err)
			}
			if !exists("orders/o1") {
				t.Fatal("a folder that still holds a file was removed")
			}
			if err := s.Delete(ctx, "orders/o1/i2-2.pdf"); err != nil {
				t.Fatal(err)
			}
			if exists("orders/o1") || !exists("orders/o2") {
				t.Errorf("after its last file went: orders/o1 there %v, orders/o2 there %v", exists("orders/o1"), exists("orders/o2"))
			}
			if err := s.Delete(ctx, "orders/o2/i3-3.pdf"); err != nil {
				t.Fatal(err)
			}
			if exists("orders") || !exists("") {
				t.Errorf("once empty: orders there %v, the store's directory there %v", exists("orders"), exists(""))
			}
			put(t, s, "orders/o1/i1-4.pdf", []byte("again"), "application/pdf")
			if got := readAll(t, s, "orders/o1/i1-4.pdf"); string(got) != "again" {
				t.Errorf("a Put into a removed folder stored %q", got)
			}
		})
	}
}

func readAll(t *testing.T, s *Store, key string) []byte {
	t.Helper()
	r, err := s.bucket.NewReader(context.Background(), key, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.Close() }()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
