package openapidoc

import (
	"fmt"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/platen-print/platen/internal/batches"
	"github.com/platen-print/platen/internal/designversions"
	"github.com/platen-print/platen/internal/orders"
	"github.com/platen-print/platen/internal/prints"
	"github.com/platen-print/platen/internal/shop"
	"github.com/platen-print/platen/internal/webhooks"
)

// The limits and vocabularies the protos cannot say, as JSON Schema
// keywords, so that validators and generated clients know them: counts
// and quantities with their bounds, and the words a status, an event or
// a kind can be. Each takes its values from the package that enforces or
// answers them.

// rule completes one property's schema.
type rule func(*openapi3.Schema)

// count bounds an array's length.
func count(least, most int) rule {
	return func(s *openapi3.Schema) {
		s.MinItems = uint64(least)
		maxItems := uint64(most)
		s.MaxItems = &maxItems
	}
}

// between bounds an integer.
func between(least, most int) rule {
	return func(s *openapi3.Schema) {
		lo, hi := float64(least), float64(most)
		s.Min, s.Max = &lo, &hi
	}
}

// oneOf is a string's vocabulary.
func oneOf(words ...string) rule {
	return func(s *openapi3.Schema) {
		s.Enum = make([]any, len(words))
		for i, w := range words {
			s.Enum[i] = w
		}
	}
}

// Family A's and Family B's print statuses.
var (
	itemPrintStatuses = oneOf(orders.PrintReceived, orders.PrintProcessing, orders.PrintProcessingFailed, orders.PrintReady)
	shopStatuses      = []string{shop.PrintProcessing, shop.PrintReady, shop.PrintFailed, shop.PrintCancelled}
	// An operator's print is in its family's own words.
	anyPrintStatus = oneOf(orders.PrintReceived, orders.PrintProcessing, orders.PrintProcessingFailed, orders.PrintReady,
		shop.PrintFailed, shop.PrintCancelled)
)

// propertyRules are the rules of each schema's properties, by the
// schemas' names in the document.
var propertyRules = map[string]map[string]rule{
	"CreateOrderRequest":          {"items": count(1, orders.MaxItems)},
	"OrderServiceUpdateOrderBody": {"items": count(0, orders.MaxItems)},
	"OrderItemInput":              {"quantity": between(1, orders.MaxQuantity), "thumbnails": count(1, orders.MaxThumbnails)},
	"OrderItem":                   {"quantity": between(1, orders.MaxQuantity), "thumbnails": count(1, orders.MaxThumbnails)},
	"OrderItemPrint":              {"status": itemPrintStatuses},
	"PrintFile":                   {"status": itemPrintStatuses},
	"PrintFileInput":              {"status": itemPrintStatuses},
	"CreateShopOrderRequest":      {"lines": count(1, shop.MaxLines)},
	"ShopOrderLineInput":          {"quantity": between(1, shop.MaxQuantity)},
	"ShopOrderLine":               {"quantity": between(1, shop.MaxQuantity)},
	"ShopPrint":                   {"status": oneOf(shopStatuses...)},
	"CreateDesignVersionRequest":  {"thumbnails": count(0, designversions.MaxThumbnails)},
	"DesignVersion":               {"thumbnails": count(0, designversions.MaxThumbnails)},
	"BatchOrder":                  {"status": oneOf(batches.StatusBatching, batches.StatusReady, batches.StatusFailed)},
	"Print":                       {"status": anyPrintStatus, "state": oneOf(prints.States...)},
	"PrintEvent": {"kind": oneOf(prints.EventQueued, prints.EventRendering, prints.EventReady, prints.EventFailed,
		prints.EventRetried, prints.EventFlagged, prints.EventCancelled)},
	"WebhookDelivery": {
		"event":  oneOf(webhookEventNames()...),
		"status": oneOf(webhooks.StatusPending, webhooks.StatusDelivered, webhooks.StatusFailed),
	},
}

// bounds applies propertyRules to the schemas the document has (a
// document of some services lacks the others'; the committed one has
// every schema, TestCommittedDocumentBounds checks); a rule for a
// property its schema lacks is an error, so that a rename cannot drop it.
func (g *generator) bounds() error {
	for _, name := range sortedKeys(propertyRules) {
		ref := g.doc.Components.Schemas[name]
		if ref == nil || ref.Value == nil {
			continue
		}
		for _, prop := range sortedKeys(propertyRules[name]) {
			p := ref.Value.Properties[prop]
			if p == nil || p.Value == nil {
				return fmt.Errorf("bounds: schema %s has no property %s", name, prop)
			}
			propertyRules[name][prop](p.Value)
		}
	}
	return nil
}
