// Package downloads serves Platen's public download links: the HTTP routes
// that check a link's signed token (package token) and redirect to the
// stored file, for Family A items, Family B shop orders and batches, and
// the links the API's answers carry.
package downloads

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/downloads/token"
	"github.com/platen-print/platen/internal/files"
)

// Token scopes: a Family A token opens one item's file; a Family B token
// opens every file of one shop order.
const (
	ItemScope = "order_item"
	ShopScope = "shop_order"
	// BatchScope opens every file of one batch order.
	BatchScope = "batch_order"
)

// Route prefixes of download links: ItemRoutePrefix + the item's uid, and
// ShopRoutePrefix + the print's id + "/" + the file's index, each followed
// by ?token=….
const (
	ItemRoutePrefix = "/api/v1/print-files/"
	ShopRoutePrefix = "/v1/shop/files/"
	// BatchRoutePrefix + the batch's uid + "/" + the file's index (from 1,
	// in the order of the batch's print_templates).
	BatchRoutePrefix = "/api/v1/batch-files/"
)

// redirectTTL is how long the file URL a download link redirects to lives:
// long enough for a slow download, short because anyone holding it may use
// it; the link itself lasts 7 days and hands out a fresh one each time.
const redirectTTL = 15 * time.Minute

// Download is a print's stored file, as its link finds it.
type Download struct {
	// Order is the order the file belongs to: an order uid (Family A) or a
	// shop order's reference_number (Family B), as its token names it.
	Order  string
	Status string
	// FileKey is set when the print is ready.
	FileKey *string
	// SHA256 is the file's SHA-256 in lowercase hex; "" when unknown (a
	// file stored before digests were kept).
	SHA256 string
	// Filename is what the file is saved as, from the shop's own ids.
	Filename string
}

// Downloads finds the files download links open; each answers
// apierr.ErrNotFound for a print or file that does not exist.
type Downloads interface {
	ItemDownload(ctx context.Context, itemUID string) (*Download, error)
	PrintDownload(ctx context.Context, printUID string, index int) (*Download, error)
	BatchDownload(ctx context.Context, batchUID string, index int) (*Download, error)
}

// Links signs download links and answers them.
type Links struct {
	signer *token.Signer
	base   string
	store  Downloads
	files  *files.Store
	now    func() time.Time
	// reload loads the signing keys again when a token's signature
	// matches none of them; nil when keys never change.
	reload KeyReloader
}

// KeyReloader loads the link-signing keys again, for a token signed with
// a key this process has not read yet (another process signed it after a
// rotation); it reports whether the keys changed.
type KeyReloader func(context.Context) bool

// ReloadKeysWith makes l call reload when a token's signature matches
// none of its signer's keys, and check the token again if they changed.
func (l *Links) ReloadKeysWith(reload KeyReloader) { l.reload = reload }

// NewLinks returns the links of publicURL, signed by signer, answered from
// store and files.
func NewLinks(signer *token.Signer, publicURL string, store Downloads, fileStore *files.Store) *Links {
	return &Links{signer: signer, base: strings.TrimRight(publicURL, "/"), store: store, files: fileStore, now: time.Now}
}

// ItemURL is a fresh download link for an item's print file, valid for
// token.DefaultTTL and only for that item of that order.
func (l *Links) ItemURL(orderUID, itemUID string) string {
	signed := l.signer.Sign(token.Claims{Scope: ItemScope, Order: orderUID, Subject: itemUID, Expires: l.now().Add(token.DefaultTTL)})
	return l.base + ItemRoutePrefix + url.PathEscape(itemUID) + "?token=" + signed
}

// ShopFileURLs returns fresh download links for the files (index from 1)
// of one order's prints, valid for token.DefaultTTL, all under one token
// that opens that order's files only: signed once per answer or event, not
// once per file.
func (l *Links) ShopFileURLs(reference string) func(printUID string, index int) string {
	signed := l.signer.Sign(token.Claims{Scope: ShopScope, Order: reference, Expires: l.now().Add(token.DefaultTTL)})
	return func(printUID string, index int) string {
		return l.base + ShopRoutePrefix + url.PathEscape(printUID) + "/" + strconv.Itoa(index) + "?token=" + signed
	}
}

// BatchFileURL is a fresh download link for file index (from 1) of a
// batch, valid for token.DefaultTTL and only for that batch's files.
func (l *Links) BatchFileURL(batchUID string, index int) string {
	signed := l.signer.Sign(token.Claims{Scope: BatchScope, Order: batchUID, Expires: l.now().Add(token.DefaultTTL)})
	return l.base + BatchRoutePrefix + url.PathEscape(batchUID) + "/" + strconv.Itoa(index) + "?token=" + signed
}

// ServeItem answers GET ItemRoutePrefix{item_uid}?token=…: 302 to the file,
// 403 for a missing, altered, expired or other item's token, 404 for an
// item that is gone or has no file (yet).
func (l *Links) ServeItem(w http.ResponseWriter, r *http.Request) {
	itemUID := r.PathValue("item_uid")
	l.serve(w, r, func(c token.Claims) bool { return c.Scope == ItemScope && c.Subject == itemUID },
		func(ctx context.Context) (*Download, error) { return l.store.ItemDownload(ctx, itemUID) })
}

// ServeShopFile answers GET ShopRoutePrefix{print_id}/{index}?token=… the
// same way, for a token of the print's shop order.
func (l *Links) ServeShopFile(w http.ResponseWriter, r *http.Request) {
	printUID := r.PathValue("print_id")
	index, ok := fileIndex(w, r, "print", printUID)
	if !ok {
		return
	}
	l.serve(w, r, func(c token.Claims) bool { return c.Scope == ShopScope },
		func(ctx context.Context) (*Download, error) { return l.store.PrintDownload(ctx, printUID, index) })
}

// ServeBatchFile answers GET BatchRoutePrefix{batch_uid}/{index}?token=…
// the same way, for a token of that batch.
func (l *Links) ServeBatchFile(w http.ResponseWriter, r *http.Request) {
	batchUID := r.PathValue("batch_uid")
	index, ok := fileIndex(w, r, "batch", batchUID)
	if !ok {
		return
	}
	l.serve(w, r, func(c token.Claims) bool { return c.Scope == BatchScope },
		func(ctx context.Context) (*Download, error) { return l.store.BatchDownload(ctx, batchUID, index) })
}

// fileIndex is the {index} of a download path, from 1; anything else is
// answered 404 for the owner (a print or a batch) and reported not ok.
func fileIndex(w http.ResponseWriter, r *http.Request, owner, uid string) (int, bool) {
	index, err := strconv.Atoi(r.PathValue("index"))
	if err != nil || index < 1 {
		files.WriteError(w, http.StatusNotFound, codes.NotFound, fmt.Sprintf("%s %q has no file %q", owner, uid, r.PathValue("index")))
		return 0, false
	}
	return index, true
}

// serve checks the token (and that it is for this kind of file), finds the
// file, checks the token's order owns it, and redirects to it.
func (l *Links) serve(w http.ResponseWriter, r *http.Request, forThis func(token.Claims) bool, find func(context.Context) (*Download, error)) {
	given := r.URL.Query().Get("token")
	claims, err := l.signer.Verify(given, l.now())
	if errors.Is(err, token.ErrBadSignature) && l.reload != nil && l.reload(r.Context()) {
		claims, err = l.signer.Verify(given, l.now())
	}
	switch {
	case given == "":
		forbidden(w, "the download link has no token")
		return
	case err != nil:
		forbidden(w, err.Error())
		return
	case !forThis(claims):
		forbidden(w, "the token is for another file")
		return
	}
	dl, err := find(r.Context())
	switch {
	case errors.Is(err, apierr.ErrNotFound):
		files.WriteError(w, http.StatusNotFound, codes.NotFound, err.Error())
		return
	case err != nil:
		l.internal(w, err)
		return
	case dl.Order != claims.Order:
		forbidden(w, token.ErrOtherOrder.Error())
		return
	case dl.FileKey == nil:
		files.WriteError(w, http.StatusNotFound, codes.NotFound, "the print has no file: its status is "+dl.Status)
		return
	}
	// The redirect leads to the store: a store that cannot be reached, or
	// has lost the file, is said here, as a 503 the client retries,
	// rather than by a broken download there.
	switch exists, err := l.files.Exists(r.Context(), *dl.FileKey); {
	case err != nil:
		l.internal(w, err)
		return
	case !exists:
		l.internal(w, fmt.Errorf("print file %s is missing from the store", *dl.FileKey))
		return
	}
	target, err := l.files.SignedDigestURL(r.Context(), *dl.FileKey, dl.Filename, dl.SHA256, redirectTTL)
	if err != nil {
		l.internal(w, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, target, http.StatusFound)
}

func forbidden(w http.ResponseWriter, message string) {
	files.WriteError(w, http.StatusForbidden, codes.PermissionDenied, message)
}

func (l *Links) internal(w http.ResponseWriter, err error) {
	slog.Error("download link", "error", err)
	w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds))
	files.WriteError(w, http.StatusServiceUnavailable, codes.Unavailable, "the file cannot be reached right now; try again")
}

// retryAfterSeconds is what a download that cannot be served now tells
// the client to wait.
const retryAfterSeconds = 5
