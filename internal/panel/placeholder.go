package panel

import (
	"fmt"
	"html"
	"net/http"

	"github.com/platen-print/platen/internal/prints"
)

// placeholderWords are a placeholder's short words, by reason.
var placeholderWords = map[string]string{
	prints.ReasonPending: "Preview pending",
	prints.ReasonBusy:    "Preview busy",
	prints.ReasonSlow:    "Preview too slow",
	prints.ReasonFailed:  "No preview",
}

// placeholder answers a preview that cannot be shown now with a small
// image saying why (its title the whole reason), at once: a page never
// waits on a preview. It is not cached, so a reload asks again; the
// X-Preview header names the reason for scripts.
func (p *Panel) placeholder(w http.ResponseWriter, u *prints.Unavailable) {
	words, ok := placeholderWords[u.Reason]
	if !ok {
		words = "No preview"
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	w.Header().Set("X-Preview", u.Reason)
	w.WriteHeader(http.StatusOK)
	_, _ = fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="160" height="100" viewBox="0 0 160 100">`+
		`<title>%s</title><rect width="160" height="100" fill="#f4f4f4" stroke="#ccc"/>`+
		`<text x="80" y="55" font-family="sans-serif" font-size="13" text-anchor="middle" fill="#666">%s</text></svg>`,
		html.EscapeString(u.Message), html.EscapeString(words))
}
