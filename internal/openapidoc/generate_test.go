package openapidoc

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/platen-print/platen/gen/openapi"
	platenv1 "github.com/platen-print/platen/gen/platen/v1"
)

func loadDocument(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(openapi.Document)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the committed document is not valid OpenAPI: %v", err)
	}
	return doc
}

// The committed document is OpenAPI 3.1 and says what the issue asked of
// it: the Bearer schemes, 201 where the server answers 201, the error body,
// and the routes served beside the gateway.
func TestCommittedDocument(t *testing.T) {
	doc := loadDocument(t)
	if doc.OpenAPI != "3.1.0" || doc.Info.Title != "Platen" {
		t.Errorf("openapi %q, title %q", doc.OpenAPI, doc.Info.Title)
	}
	for _, s := range []string{clientToken, operatorToken} {
		if ss := doc.Components.SecuritySchemes[s]; ss == nil || ss.Value.Scheme != "bearer" {
			t.Errorf("security scheme %s missing or not bearer", s)
		}
	}
	create := doc.Paths.Find("/v1/shop/orders").Post
	if create.Responses.Status(201) == nil || create.Responses.Status(200) == nil {
		t.Errorf("POST /v1/shop/orders lists %v, want 201 and 200", create.Responses.Map())
	}
	if ref := create.Responses.Default().Ref; ref != "#/components/responses/Error" {
		t.Errorf("default response %q", ref)
	}
	for _, path := range []string{"/healthz", "/readyz", "/metrics", "/api/v1/print-files/{item_uid}",
		"/v1/shop/files/{print_id}/{index}", "/api/v1/batch-files/{batch_uid}/{index}", "/openapi.json", "/docs"} {
		item := doc.Paths.Find(path)
		if item == nil || item.Get == nil {
			t.Errorf("GET %s is not listed", path)
			continue
		}
		if item.Get.Security == nil || len(*item.Get.Security) != 0 {
			t.Errorf("GET %s should need no token", path)
		}
	}
	if op := doc.Paths.Find("/api/v1/operator/prints").Get; op == nil || (*op.Security)[0][operatorToken] == nil {
		t.Errorf("the operator API should take operator tokens")
	}
	order := doc.Components.Schemas["Order"].Value
	if !order.Properties["note"].Value.Type.Includes("null") {
		t.Errorf("Order.note should be nullable")
	}
	if !contains(order.Required, "note") || !contains(order.Required, "items") {
		t.Errorf("Order.required = %v", order.Required)
	}
	param := doc.Paths.Find("/v1/shop/orders/{order_ref}").Get.Parameters.GetByInAndName("path", "order_ref")
	if param == nil || param.Extensions[MultiSegment] != true {
		t.Errorf("order_ref should be marked %s", MultiSegment)
	}
}

// Every schema of an answer takes what the gateway's codec writes for its
// message: empty (zeros and nulls) and with every field set. This holds
// the required and nullable rules to the codec itself.
//
// The values are made up ("x", 7), so the limits and vocabularies of
// propertyRules are left out here: real answers are checked against them
// by the conformance test of every end-to-end test (platentest).
func TestResponseSchemasTakeTheCodecsJSON(t *testing.T) {
	doc := loadDocument(t)
	withoutValueRules(doc)
	codec := protojson.MarshalOptions{UseProtoNames: true, EmitUnpopulated: true}
	checked := 0
	for name := range responseSchemas(doc) {
		md := messageNamed(name)
		if md == nil {
			continue
		}
		schema := doc.Components.Schemas[name].Value
		for _, full := range []bool{false, true} {
			msg := dynamicpb.NewMessage(md)
			if full {
				fill(msg, 2)
			}
			data, err := codec.Marshal(msg)
			if err != nil {
				t.Fatal(err)
			}
			var v any
			if err := json.Unmarshal(data, &v); err != nil {
				t.Fatal(err)
			}
			if err := schema.VisitJSON(v, openapi3.EnableJSONSchema2020()); err != nil {
				t.Errorf("%s (filled: %v) does not take %s: %v", name, full, data, err)
			}
			checked++
		}
	}
	if checked < 40 {
		t.Errorf("checked only %d messages", checked)
	}
}

// withoutValueRules clears what propertyRules set in doc's schemas.
func withoutValueRules(doc *openapi3.T) {
	for schema, props := range propertyRules {
		for name := range props {
			p := doc.Components.Schemas[schema].Value.Properties[name].Value
			p.Enum, p.Min, p.Max, p.MinItems, p.MaxItems = nil, nil, nil, 0, nil
		}
	}
}

// responseSchemas are the schemas the answers use, directly or not.
func responseSchemas(doc *openapi3.T) map[string]bool {
	seen := map[string]bool{}
	var visit func(r *openapi3.SchemaRef)
	visit = func(r *openapi3.SchemaRef) {
		if r == nil {
			return
		}
		if r.Ref != "" {
			name := strings.TrimPrefix(r.Ref, schemaPrefix)
			if seen[name] {
				return
			}
			seen[name] = true
			visit(&openapi3.SchemaRef{Value: doc.Components.Schemas[name].Value})
			return
		}
		walkSchemaRef(r, func(x *openapi3.SchemaRef) {
			if x != r {
				visit(x)
			}
		}, false)
	}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			for _, resp := range op.Responses.Map() {
				if resp.Value == nil {
					continue
				}
				for _, mt := range resp.Value.Content {
					visit(mt.Schema)
				}
			}
		}
	}
	return seen
}

// messageNamed is the message a schema stands for, by short name.
func messageNamed(name string) protoreflect.MessageDescriptor {
	for full, short := range wellKnownNames {
		if short == name {
			d, _ := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(full))
			md, _ := d.(protoreflect.MessageDescriptor)
			if md != nil && md.ParentFile().Package() == "google.protobuf" {
				return nil
			}
			return md
		}
	}
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(Package + "." + name))
	if err != nil {
		return nil
	}
	md, _ := d.(protoreflect.MessageDescriptor)
	return md
}

// fill sets every field of m, nested messages depth levels down.
func fill(m protoreflect.Message, depth int) {
	fields := m.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		switch {
		case fd.IsList():
			l := m.Mutable(fd).List()
			if fd.Message() != nil {
				if depth > 0 && fd.Message().FullName() != "google.protobuf.Any" {
					e := l.NewElement()
					fill(e.Message(), depth-1)
					l.Append(e)
				}
			} else {
				l.Append(scalar(fd))
			}
		case fd.IsMap():
		case fd.Message() != nil:
			if depth > 0 {
				fillMessage(m, fd, depth)
			}
		default:
			m.Set(fd, scalar(fd))
		}
	}
}

func fillMessage(m protoreflect.Message, fd protoreflect.FieldDescriptor, depth int) {
	switch fd.Message().FullName() {
	case "google.protobuf.Timestamp":
		v := m.Mutable(fd).Message()
		v.Set(v.Descriptor().Fields().ByName("seconds"), protoreflect.ValueOfInt64(1_700_000_000))
	case "google.protobuf.Struct":
		s, _ := structpb.NewStruct(map[string]any{"a": 1.0})
		m.Set(fd, protoreflect.ValueOfMessage(s.ProtoReflect()))
	case "google.protobuf.FieldMask", "google.protobuf.Any", "google.protobuf.Value":
	default:
		if strings.HasPrefix(string(fd.Message().FullName()), "google.protobuf.") { // a wrapper
			v := m.Mutable(fd).Message()
			vf := v.Descriptor().Fields().ByName("value")
			v.Set(vf, scalar(vf))
			return
		}
		fill(m.Mutable(fd).Message(), depth-1)
	}
}

func scalar(fd protoreflect.FieldDescriptor) protoreflect.Value {
	switch fd.Kind() {
	case protoreflect.StringKind:
		return protoreflect.ValueOfString("x")
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(true)
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(7)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(7)
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(7)
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(7)
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(1.5)
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32(1.5)
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes([]byte("x"))
	case protoreflect.EnumKind:
		return protoreflect.ValueOfEnum(fd.Enum().Values().Get(0).Number())
	}
	panic("unexpected kind " + fd.Kind().String())
}

// Request schemas require the fields whose comment says "Required", and
// nothing else: a request the server takes passes.
func TestRequestSchemasRequireCommentedFields(t *testing.T) {
	doc := loadDocument(t)
	s := doc.Components.Schemas["CreateShopOrderRequest"].Value
	if !reflect.DeepEqual(s.Required, []string{"external_id", "lines"}) {
		t.Errorf("CreateShopOrderRequest.required = %v", s.Required)
	}
	// OrderItem is used both ways: its request copy requires what its
	// comments say.
	want := []string{"ecommerce_order_item_id", "ecommerce_variant_id", "quantity", "template_config", "thumbnails"}
	if in := doc.Components.Schemas["OrderItemInput"]; in == nil || !reflect.DeepEqual(in.Value.Required, want) {
		t.Errorf("OrderItemInput missing, or requiring other than %v", want)
	}
	items := doc.Components.Schemas["CreateOrderRequest"].Value.Properties["items"].Value.Items.Ref
	if items != schemaPrefix+"OrderItemInput" {
		t.Errorf("CreateOrderRequest.items refers to %s", items)
	}
	for _, tc := range []struct {
		comment string
		want    bool
	}{
		{"Required.", true},
		{"Required: the client's order id.", true},
		{"Required, at least one: UIDs.", true},
		{"The team: required for staff.", false},
		{"Requirements differ.", false},
		{"", false},
	} {
		if got := requiredComment.MatchString(tc.comment); got != tc.want {
			t.Errorf("requiredComment(%q) = %v", tc.comment, got)
		}
	}
}

// Unimplemented finds the methods a type has only from its embedded
// Unimplemented…Server.
func TestUnimplemented(t *testing.T) {
	impls := map[protoreflect.FullName]reflect.Type{
		"platen.v1.OrderService": reflect.TypeFor[*partialOrders](),
		"platen.v1.ShopService":  reflect.TypeFor[*noShop](),
		"platen.v1.CatalogService": reflect.TypeFor[*struct {
			platenv1.UnimplementedCatalogServiceServer
		}](),
		"platen.v1.DesignService": reflect.TypeFor[*struct {
			platenv1.UnimplementedDesignServiceServer
		}](),
		"platen.v1.BatchService": reflect.TypeFor[*struct {
			platenv1.UnimplementedBatchServiceServer
		}](),
		"platen.v1.WebhookService": reflect.TypeFor[*struct {
			platenv1.UnimplementedWebhookServiceServer
		}](),
		"platen.v1.OperatorService": reflect.TypeFor[*struct {
			platenv1.UnimplementedOperatorServiceServer
		}](),
	}
	got, err := Unimplemented(protoregistry.GlobalFiles, Package, impls)
	if err != nil {
		t.Fatal(err)
	}
	if got["platen.v1.OrderService.CreateOrder"] {
		t.Error("CreateOrder is implemented")
	}
	for _, m := range []protoreflect.FullName{"platen.v1.OrderService.GetOrder", "platen.v1.ShopService.CreateShopOrder"} {
		if !got[m] {
			t.Errorf("%s is not implemented", m)
		}
	}
	delete(impls, "platen.v1.ShopService")
	if _, err := Unimplemented(protoregistry.GlobalFiles, Package, impls); err == nil {
		t.Error("a service without a type should be an error")
	}
}

type partialOrders struct {
	platenv1.UnimplementedOrderServiceServer
}

func (*partialOrders) CreateOrder(context.Context, *platenv1.CreateOrderRequest) (*platenv1.Order, error) {
	return nil, nil
}

type noShop struct {
	platenv1.UnimplementedShopServiceServer
}

func TestFirstSentence(t *testing.T) {
	for in, want := range map[string]string{
		"CreateOrder creates an order with its items in one transaction.":                               "CreateOrder creates an order with its items in one transaction.",
		"GetShopOrder returns the order with its prints' status and files, with\nfresh download links.": "GetShopOrder returns the order with its prints' status and files, with fresh download links.",
		"UpdateOrder replaces the fields; arrays present replace.":                                      "UpdateOrder replaces the fields; arrays present replace.",
		"No stop":           "No stop",
		"Uses v1.2 here. B": "Uses v1.2 here.",
	} {
		if got := firstSentence(in); got != want {
			t.Errorf("firstSentence(%q) = %q, want %q", in, got, want)
		}
	}
}

// Generate, on protoc-gen-openapiv2's output for the shop service (a part
// of build/openapiv2/platen.swagger.json, kept in testdata), writes OpenAPI
// 3.1 with the statuses, nullable and required fields, security and the
// declared routes; an unimplemented method's route is left out; and the
// same input gives the same bytes.
func TestGenerate(t *testing.T) {
	swagger, err := os.ReadFile("testdata/shop.swagger.json")
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Files: protoregistry.GlobalFiles, Unimplemented: map[protoreflect.FullName]bool{"platen.v1.ShopService.GetShopOrder": true}}
	out, err := Generate(swagger, opts)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Generate(swagger, opts)
	if err != nil || !bytes.Equal(out, again) {
		t.Fatalf("a second run differs (%v)", err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi %s", doc.OpenAPI)
	}
	if doc.Paths.Find("/v1/shop/orders/{order_ref}") != nil {
		t.Error("the unimplemented GetShopOrder is listed")
	}
	create := doc.Paths.Find("/v1/shop/orders").Post
	if create == nil || create.Responses.Status(201) == nil || create.Responses.Status(401) == nil {
		t.Fatalf("create: %+v", create)
	}
	if got := (*create.Security)[0]; got[clientToken] == nil {
		t.Errorf("security %v", got)
	}
	print := doc.Components.Schemas["ShopPrint"].Value
	if !reflect.DeepEqual(print.Required, []string{"error", "files", "id", "status"}) {
		t.Errorf("ShopPrint.required = %v", print.Required)
	}
	if typ := print.Properties["error"].Value.Type.Slice(); !reflect.DeepEqual(typ, []string{"string", "null"}) {
		t.Errorf("ShopPrint.error type %v", typ)
	}
	data := doc.Components.Schemas["ShopOrderResponse"].Value.Properties["data"].Value
	if len(data.AnyOf) != 2 || data.AnyOf[0].Ref != schemaPrefix+"ShopOrder" || !data.AnyOf[1].Value.Type.Is("null") {
		t.Errorf("ShopOrderResponse.data should be a ShopOrder or null: %+v", data)
	}
	line := doc.Components.Schemas["ShopOrderLineInput"].Value
	if !reflect.DeepEqual(line.Required, []string{"design_version_id", "quantity"}) {
		t.Errorf("ShopOrderLineInput.required = %v", line.Required)
	}
	if doc.Paths.Find("/healthz") == nil || doc.Components.Schemas["Error"] == nil {
		t.Error("declared routes or the error body missing")
	}
	if len(doc.Tags) == 0 || doc.Tags[0].Name != "ShopService" {
		t.Errorf("tags %v", doc.Tags)
	}
}
