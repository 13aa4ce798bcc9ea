package files

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"gocloud.dev/blob"
	"gocloud.dev/blob/driver"
	"gocloud.dev/blob/fileblob"
)

// MinSecretSize is the shortest secret Open accepts for the local store.
const MinSecretSize = 32

// PathPrefix is where Handler expects the local store's URLs, under the
// public URL's own path.
const PathPrefix = "/files/"

// Reasons Handler refuses a local download URL; each becomes a 403.
var (
	errLinkMalformed = errors.New("the download link is malformed")
	errLinkSignature = errors.New("the download link's signature does not match: it was altered or is not from this service")
	errLinkExpired   = errors.New("the download link has expired")
	errNotHere       = errors.New("not a download link")
)

// SignedURL returns a URL a client can GET the file under key from, for ttl
// (at most MaxTTL). The download is named filename (cleaned of directories,
// quotes and control characters; the key's last segment when empty). The file
// need not exist yet: a URL for a missing file answers 404.
func (s *Store) SignedURL(ctx context.Context, key, filename string, ttl time.Duration) (string, error) {
	return s.SignedDigestURL(ctx, key, filename, "", ttl)
}

// SignedDigestURL is SignedURL for a file whose SHA-256 (lowercase hex, as
// Put returned it) is known: on the local store the URL carries it, signed
// with the rest, and the download answers it as Repr-Digest and
// Content-Digest (RFC 9530) without reading the file twice, for a Range
// request too. S3 answers its presigned URLs itself, without them. ""
// for a file stored before digests were kept.
func (s *Store) SignedDigestURL(ctx context.Context, key, filename, sha256Hex string, ttl time.Duration) (string, error) {
	if err := checkKey(key); err != nil {
		return "", err
	}
	if ttl <= 0 || ttl > MaxTTL {
		return "", fmt.Errorf("files: a signed URL lives between 1ns and %v, not %v", MaxTTL, ttl)
	}
	if sha256Hex != "" && !validSHA256(sha256Hex) {
		return "", fmt.Errorf("files: sign %s: %q is not a SHA-256 in lowercase hex", key, sha256Hex)
	}
	filename = cleanFilename(filename, key)
	if s.local != nil {
		return s.local.sign(ctx, key, filename, sha256Hex, ttl)
	}
	disposition := contentDisposition(filename)
	u, err := s.bucket.SignedURL(ctx, key, &blob.SignedURLOptions{
		Expiry: ttl,
		// S3 answers the presigned GET with this Content-Disposition
		// (response-content-disposition, covered by the signature).
		BeforeSign: func(as func(any) bool) error {
			var in *s3.GetObjectInput
			if as(&in) {
				in.ResponseContentDisposition = &disposition
			}
			return nil
		},
	})
	if err != nil {
		return "", fmt.Errorf("files: sign %s: %w", key, err)
	}
	return u, nil
}

// localSigner makes and checks the local store's download URLs,
// {public_url}/files/{key}?expiry=…&filename=…&method=GET&signature=…, and
// &sha256=… when the file's digest is known. fileblob's URLSignerHMAC
// computes the signature over the expiry, the method and one object name:
// the key, the filename and the digest (when there is one) joined by NUL
// bytes, which none may contain, so that none can change without breaking
// it. (A URL without a digest signs what URLs signed before digests did.)
type localSigner struct {
	hmac   *fileblob.URLSignerHMAC
	prefix string // the URL path in front of a key
}

func newLocalSigner(publicURL string, secret []byte) (*localSigner, error) {
	if len(secret) < MinSecretSize {
		return nil, fmt.Errorf("the local store's signing secret has %d bytes, it needs at least %d", len(secret), MinSecretSize)
	}
	base, err := url.Parse(strings.TrimRight(publicURL, "/"))
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" ||
		base.User != nil || base.RawQuery != "" || base.Fragment != "" {
		return nil, fmt.Errorf("public url %q: want http(s)://host[:port][/path]", publicURL)
	}
	base.RawPath = ""
	return &localSigner{
		hmac:   fileblob.NewURLSignerHMAC(base, append([]byte(nil), secret...)),
		prefix: base.Path + PathPrefix,
	}, nil
}

func signedObject(key, filename, sha256Hex string) string {
	if sha256Hex == "" {
		return key + "\x00" + filename
	}
	return key + "\x00" + filename + "\x00" + sha256Hex
}

func (l *localSigner) sign(ctx context.Context, key, filename, sha256Hex string, ttl time.Duration) (string, error) {
	opts := &driver.SignedURLOptions{Expiry: ttl, Method: http.MethodGet}
	u, err := l.hmac.URLFromKey(ctx, signedObject(key, filename, sha256Hex), opts)
	if err != nil {
		return "", fmt.Errorf("files: sign %s: %w", key, err)
	}
	q := u.Query()
	q.Del("obj") // the key travels in the path, the filename and digest beside it
	q.Set("filename", filename)
	if sha256Hex != "" {
		q.Set("sha256", sha256Hex)
	}
	u.Path = l.prefix + key
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// check returns the key, filename and digest ("" when the URL has none) of
// a request for a download URL when its signature holds and it has not
// expired at now. Expiry is checked first so that an expired link says so;
// the signature then covers the expiry too.
func (l *localSigner) check(ctx context.Context, r *http.Request, now time.Time) (key, filename, sha256Hex string, err error) {
	key, ok := strings.CutPrefix(r.URL.Path, l.prefix)
	if !ok {
		// Behind a proxy that strips the public URL's path.
		key, ok = strings.CutPrefix(r.URL.Path, PathPrefix)
	}
	if !ok || checkKey(key) != nil {
		return "", "", "", errNotHere
	}
	q := r.URL.Query()
	expiry, err := strconv.ParseInt(q.Get("expiry"), 10, 64)
	sha256Hex = q.Get("sha256")
	if err != nil || q.Get("method") != http.MethodGet || q.Get("signature") == "" ||
		(q.Has("sha256") && !validSHA256(sha256Hex)) {
		return "", "", "", errLinkMalformed
	}
	if at := time.Unix(expiry, 0); !now.Before(at) {
		return "", "", "", fmt.Errorf("%w: it expired at %s", errLinkExpired, at.UTC().Format(time.RFC3339))
	}
	filename = q.Get("filename")
	signed := url.Values{
		"obj":       {signedObject(key, filename, sha256Hex)},
		"expiry":    {q.Get("expiry")},
		"method":    {http.MethodGet},
		"signature": {q.Get("signature")},
	}
	if _, err := l.hmac.KeyFromURL(ctx, &url.URL{RawQuery: signed.Encode()}); err != nil {
		return "", "", "", errLinkSignature
	}
	return key, filename, sha256Hex, nil
}
