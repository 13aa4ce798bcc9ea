// Package files owns where rendered print files live and how clients fetch
// them: a gocloud.dev bucket on the local disk (file://, fileblob) or on
// S3-compatible storage (s3://, s3blob), written atomically, and the
// short-lived signed URLs a download link redirects to.
//
// On S3 a signed URL is the bucket's own presigned GET URL, and S3 serves the
// file. On the local disk it points back at this service,
// {public_url}/files/{key}?expiry=…&filename=…[&sha256=…]&method=GET&signature=…,
// and Handler checks it and serves the file with its Content-Type, a
// filename, a strong ETag, Last-Modified, Range support and, when the URL
// carries the file's SHA-256, RFC 9530's Repr-Digest and Content-Digest.
// Put returns each file's size and SHA-256, hashed as it writes.
package files

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/s3/transfermanager"
	tmtypes "github.com/aws/aws-sdk-go-v2/feature/s3/transfermanager/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	"gocloud.dev/blob/s3blob"
	"gocloud.dev/gcerrors"
)

// MaxTTL is the longest a signed URL may live: S3 refuses presigned URLs
// valid for longer, and the local store follows the same rule.
const MaxTTL = 7 * 24 * time.Hour

// Store is a bucket of print files. It is safe for concurrent use.
type Store struct {
	bucket *blob.Bucket
	local  *localSigner // nil when the bucket signs its own URLs (S3)
	// localDir is the local store's directory, absolute; empty on S3.
	localDir string
	// s3Checksum asks S3 to check and keep each upload's SHA-256.
	s3Checksum bool
	now        func() time.Time
}

// Open opens the bucket blobURL names:
//
//   - file:///abs/dir (or file://./rel/dir): files on the local disk, the
//     directory made when missing. Signed URLs point at publicURL, keyed
//     with secret (at least MinSecretSize bytes), and Handler serves them.
//   - s3://bucket?endpoint=…&use_path_style=true&disable_https=true&region=…:
//     S3-compatible storage, credentials from the usual AWS environment.
//     publicURL and secret are not used.
//
// Open fails when the bucket cannot be reached, so that a wrong URL stops
// the service at start rather than at the first render.
func Open(ctx context.Context, blobURL, publicURL string, secret []byte) (*Store, error) {
	u, err := url.Parse(blobURL)
	if err != nil {
		return nil, fmt.Errorf("files: blob url: %w", err)
	}
	s := &Store{now: time.Now}
	switch u.Scheme {
	case fileblob.Scheme:
		s.bucket, s.local, s.localDir, err = openLocal(ctx, u, publicURL, secret)
	case s3blob.Scheme:
		if s.bucket, err = (&s3blob.URLOpener{}).OpenBucketURL(ctx, u); err == nil {
			var client *s3.Client
			s.s3Checksum = s.bucket.As(&client) &&
				client.Options().RequestChecksumCalculation != aws.RequestChecksumCalculationWhenRequired
		}
	default:
		return nil, fmt.Errorf("files: blob url scheme %q is not supported: use file:// or s3://", u.Scheme)
	}
	if err != nil {
		return nil, fmt.Errorf("files: open %s bucket: %w", u.Scheme, err)
	}
	if ok, err := s.bucket.IsAccessible(ctx); !ok {
		_ = s.bucket.Close()
		if err == nil {
			err = errors.New("it does not exist")
		}
		return nil, fmt.Errorf("files: bucket %s://%s cannot be reached: %w", u.Scheme, u.Host+u.Path, err)
	}
	return s, nil
}

// openLocal opens a fileblob bucket, and returns its directory too.
// Temporary files go next to their final path, not to os.TempDir, so that
// the rename that publishes a finished file stays on one file system (the
// data dir is often on another mount than /tmp).
func openLocal(ctx context.Context, u *url.URL, publicURL string, secret []byte) (*blob.Bucket, *localSigner, string, error) {
	switch u.Host {
	case "", ".", "localhost":
	default:
		return nil, nil, "", fmt.Errorf("file url names host %q: write file:///abs/dir or file://./rel/dir", u.Host)
	}
	signer, err := newLocalSigner(publicURL, secret)
	if err != nil {
		return nil, nil, "", err
	}
	// The directory as fileblob reads it from the URL: file://./rel/dir is
	// relative.
	dir := u.Path
	if u.Host == "." {
		dir = strings.TrimPrefix(dir, "/")
	}
	if dir, err = filepath.Abs(filepath.FromSlash(dir)); err != nil {
		return nil, nil, "", err
	}
	opener := &fileblob.URLOpener{Options: fileblob.Options{CreateDir: true, NoTempDir: true}}
	b, err := opener.OpenBucketURL(ctx, u)
	return b, signer, dir, err
}

// Each call to the store has a deadline of its own. An S3 server that
// stops answering (paused, partitioned) leaves its connections open, and
// the SDK would wait on them for ever: a render stuck in its upload holds
// its team's render place, and a download link its request. Past these
// the call fails, as an unreachable store does, and its job is retried.
var (
	// putTimeout bounds storing one file: a print file of tens of MB
	// takes about a second on the networks S3 runs on.
	putTimeout = 30 * time.Second
	// callTimeout bounds a call that moves no file: Exists, Delete.
	callTimeout = 10 * time.Second
)

// Close releases the bucket.
func (s *Store) Close() error {
	return s.bucket.Close()
}

// Put stores the contents of r under key with the given Content-Type
// (detected from the first bytes when empty), and returns their size and
// SHA-256, hashed as they are written (the file is never read back).
// Readers see either the whole new file or what was there before: a failed
// or cancelled Put leaves no partial file behind.
//
// On S3 the upload also carries the object's SHA-256 checksum
// (x-amz-checksum-sha256, computed by the SDK as it sends), so that S3
// checks what it received and keeps the checksum with the object; not when
// the bucket URL (or the AWS configuration) says
// request_checksum_calculation=when_required, which is for S3-compatible
// services that refuse checksums.
func (s *Store) Put(ctx context.Context, key string, r io.Reader, contentType string) (Digest, error) {
	if err := checkKey(key); err != nil {
		return Digest{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, putTimeout)
	defer cancel()
	opts := &blob.WriterOptions{ContentType: contentType}
	if s.s3Checksum {
		opts.BeforeWrite = func(as func(any) bool) error {
			var in *transfermanager.UploadObjectInput
			if as(&in) {
				in.ChecksumAlgorithm = tmtypes.ChecksumAlgorithmSha256
			}
			return nil
		}
	}
	w, err := s.newWriter(ctx, key, opts)
	if err != nil {
		return Digest{}, fmt.Errorf("files: put %s: %w", key, err)
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(w, h), r)
	if err != nil {
		cancel() // gocloud abandons a writer whose context ends before Close
		_ = w.Close()
		return Digest{}, fmt.Errorf("files: put %s: %w", key, err)
	}
	if err := w.Close(); err != nil {
		return Digest{}, fmt.Errorf("files: put %s: %w", key, err)
	}
	return Digest{Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// newWriter opens a writer of key. On the local disk a Delete may remove
// the key's folder, left empty, between the moment the writer makes the
// folder and the one it creates its temporary file there (another serve
// sharing the directory, or this one): the writer then finds no folder,
// and a new attempt makes it again.
func (s *Store) newWriter(ctx context.Context, key string, opts *blob.WriterOptions) (*blob.Writer, error) {
	for attempt := 1; ; attempt++ {
		w, err := s.bucket.NewWriter(ctx, key, opts)
		if err == nil || s.localDir == "" || gcerrors.Code(err) != gcerrors.NotFound || attempt == 3 {
			return w, err
		}
	}
}

// Delete removes the file under key, and on the local disk the folders
// its removal left empty (an order's orders/<uid>/ when its last file
// goes; S3 has no folders). A key with no file is not an error, so that
// cleanups can run twice.
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	if err := s.bucket.Delete(ctx, key); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
		return fmt.Errorf("files: delete %s: %w", key, err)
	}
	s.removeEmptyFolders(key)
	return nil
}

// removeEmptyFolders removes the local store's folders of key, innermost
// first, while they are empty; never the store's own directory. A folder
// that still holds a file stops it: os.Remove refuses a folder that is
// not empty, so a file written meanwhile is never lost.
func (s *Store) removeEmptyFolders(key string) {
	if s.localDir == "" {
		return
	}
	for dir := path.Dir(key); dir != "."; dir = path.Dir(dir) {
		err := os.Remove(filepath.Join(s.localDir, filepath.FromSlash(dir)))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return
		}
	}
}

// DeletePrefix removes every file whose key begins with prefix: the files
// of a render that stored them and stopped before recording their keys.
// The prefix must itself be a valid key that names a folder's file (it
// holds a "/"), so that no call can empty the bucket.
func (s *Store) DeletePrefix(ctx context.Context, prefix string) error {
	if err := checkKey(prefix); err != nil || !strings.Contains(prefix, "/") {
		return fmt.Errorf("files: delete prefix %q: not a file key prefix", prefix)
	}
	listCtx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	var keys []string
	iter := s.bucket.List(&blob.ListOptions{Prefix: prefix})
	for {
		obj, err := iter.Next(listCtx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("files: list %s: %w", prefix, err)
		}
		keys = append(keys, obj.Key)
	}
	for _, key := range keys {
		if err := s.Delete(ctx, key); err != nil {
			return err
		}
	}
	return nil
}

// Exists reports whether a file is stored under key.
func (s *Store) Exists(ctx context.Context, key string) (bool, error) {
	if err := checkKey(key); err != nil {
		return false, err
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	ok, err := s.bucket.Exists(ctx, key)
	if err != nil {
		return false, fmt.Errorf("files: exists %s: %w", key, err)
	}
	return ok, nil
}

// SignedURLOrigin is where the signed URLs of the bucket blobURL names
// point when they are not this server's: the S3 endpoint's origin (any
// https origin for AWS's own, whose host names the bucket), or "" for
// local files, which this server serves.
func SignedURLOrigin(blobURL string) string {
	u, err := url.Parse(blobURL)
	if err != nil || u.Scheme != s3blob.Scheme {
		return ""
	}
	endpoint, err := url.Parse(u.Query().Get("endpoint"))
	if err != nil || endpoint.Host == "" {
		return "https:"
	}
	return endpoint.Scheme + "://" + endpoint.Host
}
