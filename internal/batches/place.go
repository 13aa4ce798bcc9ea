package batches

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/designdoc"
	"github.com/platen-print/platen/internal/impose"
	"github.com/platen-print/platen/internal/renderproc"
	"github.com/platen-print/platen/internal/templates"
)

// templateInfo is a listed template with its slots and variants at hand.
type templateInfo struct {
	*templates.Template
	slots int
}

func newTemplateInfo(t *templates.Template) *templateInfo {
	return &templateInfo{Template: t, slots: len(t.Layout())}
}

// place picks each item's template: the first listed one assigned to the
// item's variant that its trim fits (turned if need be). It refuses an
// item no listed template serves or fits, a template that would place
// nothing, and a file over renderproc.MaxSheetCopies copies, naming them.
//
// It returns each item's template and each template's copies.
func (s *Service) place(ctx context.Context, teamID int, items []*Item, tmpls []*templateInfo) (placed, copies []int, err error) {
	if err := checkDesignBytes(items); err != nil {
		return nil, nil, err
	}
	variants, err := s.variants(ctx, teamID, items)
	if err != nil {
		return nil, nil, err
	}
	docs, err := s.designs(ctx, teamID, items)
	if err != nil {
		return nil, nil, err
	}
	placed, copies = make([]int, len(items)), make([]int, len(tmpls))
	var vs apierr.Violations
	for i, it := range items {
		field := fmt.Sprintf("order_items[%d]", i)
		doc := docs[it.DesignKey]
		if doc.err != nil {
			vs.Add(field, "its template_config cannot be laid out: %v", doc.err)
			continue
		}
		placed[i] = pick(&vs, field, it, variants[it.EcommerceVariantID], doc.doc, tmpls)
		if placed[i] >= 0 {
			copies[placed[i]] += it.Quantity * len(doc.doc.Surfaces)
		}
	}
	for j, n := range copies {
		field := fmt.Sprintf("print_templates[%d]", j)
		switch {
		case !vs.Empty():
		case n == 0:
			vs.Add(field, "places none of the order items (each item goes to the first listed template assigned to its variant that it fits)")
		case n > renderproc.MaxSheetCopies:
			vs.Add(field, "would lay out %d copies; one file holds at most %d: split the batch", n, renderproc.MaxSheetCopies)
		}
	}
	return placed, copies, vs.Err()
}

// checkDesignBytes refuses a batch whose distinct designs, each counted
// once, exceed MaxDesignBytes.
func checkDesignBytes(items []*Item) error {
	seen := map[string]bool{}
	total := 0
	for _, it := range items {
		if !seen[it.DesignKey] {
			seen[it.DesignKey] = true
			total += it.DesignBytes
		}
	}
	if total > MaxDesignBytes {
		return apierr.Invalid("order_items", "the items' distinct designs total %.1f MB; a batch takes at most %d MB of them: split it",
			float64(total)/(1<<20), MaxDesignBytes>>20)
	}
	return nil
}

// pick is the index of item's template, or -1 with the reason added.
func pick(vs *apierr.Violations, field string, it *Item, variant int, doc *designdoc.Document, tmpls []*templateInfo) int {
	if variant == 0 {
		vs.Add(field, "its ecommerce_variant_id %q names no product variant of the team, so no print template is assigned to it", it.EcommerceVariantID)
		return -1
	}
	var assigned []string
	for j, t := range tmpls {
		if !slices.Contains(t.VariantIDs, variant) {
			continue
		}
		if impose.Fits(t.Template, doc) {
			return j
		}
		assigned = append(assigned, fmt.Sprintf("print_templates[%d]", j))
	}
	if len(assigned) == 0 {
		vs.Add(field, "none of the listed print templates is assigned to its product variant %d", variant)
		return -1
	}
	w, h := impose.Trim(doc)
	vs.Add(field, "its trim of %.4g × %.4g mm fits no slot of %s, even turned", w, h, strings.Join(assigned, ", "))
	return -1
}

// variants resolves each distinct ecommerce_variant_id of items to the id
// of the team's variant listing it, 0 for none.
func (s *Service) variants(ctx context.Context, teamID int, items []*Item) (map[string]int, error) {
	out := map[string]int{}
	for _, it := range items {
		if _, done := out[it.EcommerceVariantID]; done {
			continue
		}
		settings, err := s.settings.Resolve(ctx, teamID, it.EcommerceVariantID, nil)
		if err != nil {
			return nil, err
		}
		out[it.EcommerceVariantID] = 0
		if settings.Variant != nil {
			out[it.EcommerceVariantID] = settings.Variant.VariantID
		}
	}
	return out, nil
}

// parsed is a design as the batch sees it: the document, or why it is
// none.
type parsed struct {
	doc *designdoc.Document
	err error
}

// designs parses each distinct design of items once.
func (s *Service) designs(ctx context.Context, teamID int, items []*Item) (map[string]parsed, error) {
	stored, err := s.store.Designs(ctx, teamID, items)
	if err != nil {
		return nil, err
	}
	out := make(map[string]parsed, len(stored))
	for key, config := range stored {
		var p parsed
		raw, err := designdoc.Decode(config)
		if err == nil {
			p.doc, err = designdoc.Parse(raw)
		}
		p.err = err
		out[key] = p
	}
	return out, nil
}

// notFoundAs is err, or when it is apierr.ErrNotFound the 404 the format
// says.
func notFoundAs(err error, format string, args ...any) error {
	if errors.Is(err, apierr.ErrNotFound) {
		return apierr.NotFound(format, args...)
	}
	return err
}
