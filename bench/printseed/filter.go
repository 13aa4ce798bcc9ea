package printseed

import (
	"cmp"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Filter is a query of the operator's prints list, as its URL parameters
// say it and as a brute-force match over the seed answers it.
type Filter struct {
	TeamID                      int
	State, Family, StoreID      string
	Search                      string
	CreatedAfter, CreatedBefore time.Time
}

// Values are the filter's query parameters of GET /api/v1/operator/prints.
func (f Filter) Values() url.Values {
	v := url.Values{}
	set := func(name, value string) {
		if value != "" {
			v.Set(name, value)
		}
	}
	if f.TeamID != 0 {
		v.Set("team_id", strconv.Itoa(f.TeamID))
	}
	set("state", f.State)
	set("family", f.Family)
	set("store_id", f.StoreID)
	set("query", f.Search)
	if !f.CreatedAfter.IsZero() {
		v.Set("created_after", f.CreatedAfter.Format(time.RFC3339Nano))
	}
	if !f.CreatedBefore.IsZero() {
		v.Set("created_before", f.CreatedBefore.Format(time.RFC3339Nano))
	}
	return v
}

// Match says whether the list should hold p.
func (f Filter) Match(p *Print) bool {
	switch {
	case f.TeamID != 0 && p.TeamID != f.TeamID,
		f.State != "" && p.State() != f.State,
		f.Family != "" && p.Family != f.Family,
		f.StoreID != "" && p.StoreID != f.StoreID,
		!f.CreatedAfter.IsZero() && p.CreatedAt.Before(f.CreatedAfter),
		!f.CreatedBefore.IsZero() && !p.CreatedAt.Before(f.CreatedBefore):
		return false
	}
	return f.Search == "" || p.foundBy(f.Search)
}

// foundBy says whether a search for text finds p: its uid or its order's
// equal to it, or a reference of p that begins with it, in any case, or
// for a text of fewer than three characters, one equal to it. (The
// seed's references have no accents but one surname, which no case
// searches.)
func (p *Print) foundBy(text string) bool {
	text = strings.ToLower(strings.Join(strings.Fields(text), " "))
	if text == p.ID || text == p.OrderUID {
		return true
	}
	for _, ref := range p.references() {
		ref = strings.ToLower(ref)
		if ref == text || utf8.RuneCountInString(text) >= 3 && strings.HasPrefix(ref, text) {
			return true
		}
	}
	return false
}

// State is p's state as the list reads it: a seeded print has no
// operator's action on it, and no seeded Family B render has started.
func (p *Print) State() string {
	switch p.Status {
	case "received":
		return "queued"
	case "processing":
		if p.Family == "B" {
			return "queued"
		}
		return "rendering"
	case "processingfailed":
		return "failed"
	}
	return p.Status // ready, failed, cancelled
}

// references are every value but the uids a search finds p by the start
// of.
func (p *Print) references() []string {
	refs := []string{p.EcommerceOrderID, p.EcommerceOrderNumber, p.EcommerceOrderItemID,
		p.ReferenceNumber, p.ExternalID, p.LineExternalID, p.DesignVersionID,
		p.CustomerEmail, p.CustomerName, p.CustomerSurname}
	if p.CustomerName != "" {
		refs = append(refs, p.CustomerName+" "+p.CustomerSurname)
	}
	return slices.DeleteFunc(refs, func(s string) bool { return s == "" })
}

// Page is the ids the list answers on page (from 0) of size, as the
// service orders prints: newest first, then by id, descending.
func Page(prints []Print, f Filter, page, size int) []string {
	var ids []string
	skip := page * size
	for i := range prints {
		if !f.Match(&prints[i]) {
			continue
		}
		if skip > 0 {
			skip--
			continue
		}
		if ids = append(ids, prints[i].ID); len(ids) == size {
			break
		}
	}
	return ids
}

// SortNewestFirst orders prints as the list does.
func SortNewestFirst(prints []Print) {
	slices.SortFunc(prints, func(a, b Print) int {
		return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), cmp.Compare(b.ID, a.ID))
	})
}
