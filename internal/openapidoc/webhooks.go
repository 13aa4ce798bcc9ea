package openapidoc

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/platen-print/platen/internal/batches"
	"github.com/platen-print/platen/internal/orders"
	"github.com/platen-print/platen/internal/shop"
	"github.com/platen-print/platen/internal/webhooks"
)

// The webhooks Platen sends, as OpenAPI 3.1's webhooks section: each
// event's POST with its headers and its body's schema, made from the Go
// type the deliveries encode, so that generators make types for them.

// webhookEvent is one event and the body it carries.
type webhookEvent struct {
	name, summary string
	body          any
	// words are the event field's and the status field's vocabularies.
	events, statuses []string
}

// The vocabularies of the bodies one Go type carries for two events.
var (
	itemEvents    = []string{webhooks.EventItemReady, webhooks.EventItemFailed}
	itemStatuses  = []string{orders.PrintReady, orders.PrintProcessingFailed}
	batchEvents   = []string{webhooks.EventBatchReady, webhooks.EventBatchFailed}
	batchStatuses = []string{batches.StatusReady, batches.StatusFailed}
)

var webhookEvents = []webhookEvent{
	{webhooks.EventPrintFilesReady, "A Family B print's files are rendered.", webhooks.PrintFilesReady{},
		[]string{webhooks.EventPrintFilesReady}, []string{shop.PrintReady}},
	{webhooks.EventItemReady, "A Family A item's print file is ready.", webhooks.ItemPrint{}, itemEvents, itemStatuses},
	{webhooks.EventItemFailed, "A Family A item's print file failed (by its render, or an operator).", webhooks.ItemPrint{},
		itemEvents, itemStatuses},
	{webhooks.EventBatchReady, "A batch order's files are ready.", webhooks.BatchOrder{}, batchEvents, batchStatuses},
	{webhooks.EventBatchFailed, "A batch order failed.", webhooks.BatchOrder{}, batchEvents, batchStatuses},
}

// webhookEventNames are every event's name, in webhookEvents' order.
func webhookEventNames() []string {
	names := make([]string, len(webhookEvents))
	for i, e := range webhookEvents {
		names[i] = e.name
	}
	return names
}

// webhookHeaders are the headers of every delivery.
var webhookHeaders = []struct {
	name, description string
	required          bool
}{
	{"Platen-Signature", "`sha256=` and the hex HMAC-SHA256 of the body, keyed with the whole secret (`whsec_…`), signed with the newest secret.", true},
	{"Platen-Signature-Previous", "The same, signed with the most recently rotated-out secret, while it still signs (a day after its rotation).", false},
	{"Platen-Event", "The event's name, as `event` in the body.", true},
	{"Platen-Delivery", "The delivery's id: the same on every attempt of one delivery, for deduplication.", true},
	{"webhook-id", "Standard Webhooks: the delivery's id, as Platen-Delivery.", true},
	{"webhook-timestamp", "Standard Webhooks: the attempt's time, Unix seconds.", true},
	{"webhook-signature", "Standard Webhooks: `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the base64-decoded secret after `whsec_`; one per secret still signing, space-separated, newest first.", true},
}

// webhooks adds the webhooks section and its bodies' schemas.
func (g *generator) webhooks() error {
	g.doc.Webhooks = map[string]*openapi3.PathItem{}
	for _, e := range webhookEvents {
		name, err := g.webhookSchema(reflect.TypeOf(e.body))
		if err != nil {
			return err
		}
		body := g.doc.Components.Schemas[name].Value
		body.Description = "The body of " + strings.Join(e.events, " and ") + "."
		oneOf(e.events...)(body.Properties["event"].Value)
		oneOf(e.statuses...)(body.Properties["status"].Value)
		g.doc.Webhooks[e.name] = &openapi3.PathItem{Post: webhookOperation(e, name)}
	}
	return nil
}

func webhookOperation(e webhookEvent, schema string) *openapi3.Operation {
	op := &openapi3.Operation{
		OperationID: "Webhook_" + strings.NewReplacer(".", "_").Replace(e.name),
		Summary:     e.summary,
		Description: "POSTed to the store's webhook endpoint, signed; tried again on any answer but a 2xx, nine attempts over about 45 hours.",
		Tags:        []string{tagWebhooks},
		Security:    &openapi3.SecurityRequirements{},
		RequestBody: &openapi3.RequestBodyRef{Value: openapi3.NewRequestBody().WithRequired(true).
			WithJSONSchemaRef(&openapi3.SchemaRef{Ref: schemaPrefix + schema})},
		Responses: openapi3.NewResponses(),
	}
	for _, h := range webhookHeaders {
		op.Parameters = append(op.Parameters, &openapi3.ParameterRef{Value: &openapi3.Parameter{
			Name: h.name, In: openapi3.ParameterInHeader, Description: h.description, Required: h.required,
			Schema: &openapi3.SchemaRef{Value: openapi3.NewStringSchema()},
		}})
	}
	ok, retried := "Any 2xx: delivered.", "Anything else, or no answer within 10 s: tried again later."
	op.Responses.Set("2XX", &openapi3.ResponseRef{Value: &openapi3.Response{Description: &ok}})
	op.Responses.Set("default", &openapi3.ResponseRef{Value: &openapi3.Response{Description: &retried}})
	return op
}

// webhookSchema adds the schema of a body's Go struct type t (named
// Webhook and the type's name), its structs' too, and returns its name.
// Every field is required; a pointer may be null.
func (g *generator) webhookSchema(t reflect.Type) (string, error) {
	name := "Webhook" + t.Name()
	if _, done := g.doc.Components.Schemas[name]; done {
		return name, nil
	}
	s := openapi3.NewObjectSchema()
	s.Properties = openapi3.Schemas{}
	for i := range t.NumField() {
		f := t.Field(i)
		field, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		ref, err := g.webhookField(f.Type)
		if err != nil {
			return "", fmt.Errorf("webhook body %s.%s: %w", t.Name(), f.Name, err)
		}
		s.Properties[field] = ref
		s.Required = append(s.Required, field)
	}
	g.doc.Components.Schemas[name] = &openapi3.SchemaRef{Value: s}
	return name, nil
}

func (g *generator) webhookField(t reflect.Type) (*openapi3.SchemaRef, error) {
	nullable := t.Kind() == reflect.Pointer
	if nullable {
		t = t.Elem()
	}
	var s *openapi3.Schema
	switch t.Kind() {
	case reflect.String:
		s = openapi3.NewStringSchema()
	case reflect.Int, reflect.Int64:
		s = openapi3.NewIntegerSchema()
	case reflect.Slice:
		items, err := g.webhookField(t.Elem())
		if err != nil {
			return nil, err
		}
		s = openapi3.NewArraySchema()
		s.Items = items
	case reflect.Struct:
		name, err := g.webhookSchema(t)
		if err != nil {
			return nil, err
		}
		return &openapi3.SchemaRef{Ref: schemaPrefix + name}, nil
	default:
		return nil, fmt.Errorf("no schema for a %s", t)
	}
	if nullable {
		s.Type = &openapi3.Types{s.Type.Slice()[0], openapi3.TypeNull}
	}
	return &openapi3.SchemaRef{Value: s}, nil
}
