package printfiles

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/files"
	"github.com/platen-print/platen/internal/links"
)

// ItemScope is the scope of a Family A item's download token.
const ItemScope = "order_item"

// RoutePrefix is the path of Family A download links: RoutePrefix + the
// item's uid + ?token=….
const RoutePrefix = "/api/v1/print-files/"

// redirectTTL is how long the file URL a download link redirects to lives:
// long enough for a slow download, short because anyone holding it may use
// it; the link itself lasts 7 days and hands out a fresh one each time.
const redirectTTL = 15 * time.Minute

// Download is a ready item's stored file.
type Download struct {
	OrderUID string
	Status   string
	// FileKey is set when Status is ready.
	FileKey *string
	// Filename parts: the shop's ids, which mean something to the printer.
	EcommerceOrderID, EcommerceOrderItemID string
}

// Links signs download links and answers them.
type Links struct {
	signer *links.Signer
	base   string
	store  Store
	files  *files.Store
	now    func() time.Time
}

// NewLinks returns the links of publicURL, signed by signer, answered from
// store and files.
func NewLinks(signer *links.Signer, publicURL string, store Store, fileStore *files.Store) *Links {
	return &Links{signer: signer, base: strings.TrimRight(publicURL, "/"), store: store, files: fileStore, now: time.Now}
}

// ItemURL is a fresh download link for an item's print file, valid for
// links.DefaultTTL and only for that item of that order.
func (l *Links) ItemURL(orderUID, itemUID string) string {
	token := l.signer.Sign(links.Claims{Scope: ItemScope, Order: orderUID, Subject: itemUID, Expires: l.now().Add(links.DefaultTTL)})
	return l.base + RoutePrefix + url.PathEscape(itemUID) + "?token=" + token
}

// ServeHTTP answers GET RoutePrefix{item_uid}?token=…: 302 to the file, 403
// for a missing, altered, expired or other item's token, 404 for an item
// that is gone or has no file (yet).
func (l *Links) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	itemUID := r.PathValue("item_uid")
	claims, err := l.signer.Verify(r.URL.Query().Get("token"), l.now())
	switch {
	case r.URL.Query().Get("token") == "":
		forbidden(w, "the download link has no token")
		return
	case err != nil:
		forbidden(w, err.Error())
		return
	case claims.Scope != ItemScope || claims.Subject != itemUID:
		forbidden(w, "the token is for another file")
		return
	}
	dl, err := l.store.Download(r.Context(), itemUID)
	switch {
	case errors.Is(err, apierr.ErrNotFound):
		files.WriteError(w, http.StatusNotFound, codes.NotFound, fmt.Sprintf("order item %q not found", itemUID))
		return
	case err != nil:
		l.internal(w, err)
		return
	case dl.OrderUID != claims.Order:
		forbidden(w, links.ErrOtherOrder.Error())
		return
	case dl.FileKey == nil:
		files.WriteError(w, http.StatusNotFound, codes.NotFound,
			fmt.Sprintf("order item %q has no print file: its print status is %s", itemUID, dl.Status))
		return
	}
	target, err := l.files.SignedURL(r.Context(), *dl.FileKey, filename(dl), redirectTTL)
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
	files.WriteError(w, http.StatusServiceUnavailable, codes.Unavailable, "the file cannot be reached right now; try again")
}

// filename names the download after the shop's order and item ids.
func filename(dl *Download) string {
	return dl.EcommerceOrderID + "-" + dl.EcommerceOrderItemID + ".pdf"
}
