package catalog_test

import (
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/platen-print/platen/internal/platentest"
)

// These tests are written from the API reference (docs/api-family-a.md,
// "Product variants", and its limits), not from the code: each
// kind of bad input is its own subtest through the real HTTP server, and
// every rejection must carry the API's status and error body, name the
// field, and leave nothing behind.

// specCase is one request the service must refuse.
type specCase struct {
	name   string
	body   any // a map (encoded) or a raw string (sent as is)
	status int
	// field is the JSON path the error must name ("" when no field applies);
	// alt lists other acceptable spellings (an element path for an element
	// of the wrong type, for instance).
	field string
	alt   []string
}

// specExpectError checks r against the documented rules: status, error body and the
// field its BadRequest violations name. A 409 may name the field in its
// message instead of a field violation.
func specExpectError(t *testing.T, r *platentest.Response, c specCase) {
	t.Helper()
	message, fields := platentest.ErrorBody(t, r, c.status)
	if c.field == "" {
		return
	}
	accepted := append([]string{c.field}, c.alt...)
	if len(fields) == 1 && slices.Contains(accepted, fields[0]) {
		return
	}
	if c.status == 409 && len(fields) == 0 && strings.Contains(message, c.field) {
		return
	}
	t.Errorf("error names fields %v (message %q), want exactly %q; body %s", fields, message, c.field, r.Raw)
}

// specList returns the items of one large page of a list endpoint.
func specList(t *testing.T, srv *platentest.Server, path, key, token string) []any {
	t.Helper()
	r := srv.Do(t, "GET", path+"?page_size=500", token, nil)
	if r.Status != 200 {
		t.Fatalf("GET %s: %d %s", path, r.Status, r.Raw)
	}
	obj := r.Object(t)
	items, ok := obj[key].([]any)
	if !ok {
		t.Fatalf("GET %s: %q is not an array: %s", path, key, r.Raw)
	}
	if len(items) == 0 {
		t.Fatalf("GET %s: empty list, so an unchanged list would prove nothing: %s", path, r.Raw)
	}
	return items
}

// specRejectCreate posts c.body to path, checks the error, and checks that
// the caller's list is unchanged.
func specRejectCreate(t *testing.T, srv *platentest.Server, path, key, token string, c specCase) {
	t.Helper()
	before := specList(t, srv, path, key, token)
	specExpectError(t, srv.Do(t, "POST", path, token, c.body), c)
	if after := specList(t, srv, path, key, token); !reflect.DeepEqual(before, after) {
		t.Errorf("rejected create changed the list: %d items before, %d after", len(before), len(after))
	}
}

// specCreate posts body to path and returns the created object.
func specCreate(t *testing.T, srv *platentest.Server, path, token string, body any) map[string]any {
	t.Helper()
	r := srv.Do(t, "POST", path, token, body)
	if r.Status != 200 {
		t.Fatalf("POST %s %v: %d %s", path, body, r.Status, r.Raw)
	}
	return r.Object(t)
}

// specWith returns a copy of base with key set to value, or removed when
// value is specAbsent.
func specWith(base map[string]any, key string, value any) map[string]any {
	out := make(map[string]any, len(base)+1)
	for k, v := range base {
		out[k] = v
	}
	if value == specAbsent {
		delete(out, key)
	} else {
		out[key] = value
	}
	return out
}

// specNamed is a named value of a table.
type specNamed struct {
	name  string
	value any
}

// specAbsent marks a key to remove in specWith.
var specAbsent = &struct{ absent bool }{true}

const variantsPath = "/api/v1/product-variants"

// specProduct creates a category and a product for tenant and returns the
// product's integer id.
func specProduct(t *testing.T, srv *platentest.Server, tenant platentest.Tenant) float64 {
	t.Helper()
	category := specCreate(t, srv, "/api/v1/product-categories", tenant.Token, map[string]any{"name": "Mugs"})
	product := specCreate(t, srv, "/api/v1/products", tenant.Token, map[string]any{
		"category_id": category["id"], "name": "Mug", "order_column": 1, "active": true, "team_id": tenant.TeamID,
	})
	id, ok := product["id"].(float64)
	if !ok {
		t.Fatalf("product id: %v", product)
	}
	return id
}

func TestVariantBadInputFromSpec(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		globex := srv.Bootstrap(t, "globex", "globex-shop")
		mug, foreign := specProduct(t, srv, acme), specProduct(t, srv, globex)
		base := map[string]any{"name": "Mug 11oz white", "product_id": mug, "country_id": 276}

		const givenUUID = "0e7b3b0c-2f1a-4c1e-9a0b-1c2d3e4f5a6b"
		first := specCreate(t, srv, variantsPath, acme.Token, specWith(specWith(base, "uuid", givenUUID), "ecommerce_variant_ids", []string{"shop-1", "shop-2"}))
		second := specCreate(t, srv, variantsPath, acme.Token, specWith(base, "ecommerce_variant_ids", []string{"shop-3"}))
		theirs := specCreate(t, srv, variantsPath, globex.Token, map[string]any{"name": "Theirs", "product_id": foreign, "country_id": 276, "ecommerce_variant_ids": []string{"shop-1"}})

		t.Run("valid creates", func(t *testing.T) {
			specVariantValid(t, srv, acme, base, first, second, theirs, givenUUID)
		})
		t.Run("create", func(t *testing.T) {
			for _, c := range specVariantCreateCases(base, mug, foreign, givenUUID) {
				t.Run(c.name, func(t *testing.T) {
					specRejectCreate(t, srv, variantsPath, "product_variants", acme.Token, c)
				})
			}
		})
		t.Run("rejected writes leave no ecommerce_variant_ids behind", func(t *testing.T) {
			// The 409 create above listed fresh-1 beside the taken shop-1, and
			// the 409 update below lists shop-3; neither may keep a claim,
			// and shop-2 stays the first variant's.
			specCreate(t, srv, variantsPath, acme.Token, specWith(base, "ecommerce_variant_ids", []string{"fresh-1"}))
			specRejectCreate(t, srv, variantsPath, "product_variants", acme.Token, specCase{
				body: specWith(base, "ecommerce_variant_ids", []string{"shop-2"}), status: 409, field: "ecommerce_variant_ids[0]",
			})
		})
		t.Run("update", func(t *testing.T) {
			path := fmt.Sprintf("%s/%d", variantsPath, int(first["id"].(float64)))
			for _, c := range specVariantUpdateCases(foreign, second["uuid"]) {
				t.Run(c.name, func(t *testing.T) {
					before := srv.Do(t, "GET", path, acme.Token, nil)
					specExpectError(t, srv.Do(t, "PUT", path, acme.Token, c.body), c)
					if after := srv.Do(t, "GET", path, acme.Token, nil); !reflect.DeepEqual(before.JSON, after.JSON) {
						t.Errorf("rejected update changed the variant:\nbefore %s\nafter  %s", before.Raw, after.Raw)
					}
				})
			}
		})
		t.Run("another team", func(t *testing.T) {
			specVariantOtherTeam(t, srv, acme, globex, first, theirs)
		})
	})
}

// specVariantValid checks the creates the bad-input cases are measured
// against, and the valid edges of each range.
func specVariantValid(t *testing.T, srv *platentest.Server, acme platentest.Tenant, base, first, second, theirs map[string]any, givenUUID string) {
	for _, v := range []map[string]any{first, second, theirs} {
		if id, ok := v["id"].(float64); !ok || id != float64(int(id)) || id <= 0 {
			t.Errorf("id is not a positive integer: %v", v)
		}
		if u, _ := v["uuid"].(string); len(u) != 36 {
			t.Errorf("uuid is not 36 characters: %v", v)
		}
	}
	if first["uuid"] != givenUUID {
		t.Errorf("given uuid %q came back as %v", givenUUID, first["uuid"])
	}
	if second["uuid"] == first["uuid"] || second["uuid"] == theirs["uuid"] {
		t.Errorf("generated uuids collide: %v %v %v", first["uuid"], second["uuid"], theirs["uuid"])
	}
	if !reflect.DeepEqual(theirs["ecommerce_variant_ids"], []any{"shop-1"}) {
		t.Errorf("another team could not reuse shop-1: %v", theirs)
	}
	edges := map[string]any{
		"weight": 0, "default_dpi": 1, "length": 0, "width": 0, "height": 0,
		"ecommerce_tags": "red,white", "country_id": 40,
	}
	v := specCreate(t, srv, variantsPath, acme.Token, mergeSpec(base, edges))
	for k, want := range map[string]any{"weight": 0.0, "default_dpi": 1.0, "length": 0.0, "ecommerce_tags": "red,white", "country_id": 40.0} {
		if v[k] != want {
			t.Errorf("%s = %v, want %v (%v)", k, v[k], want, v)
		}
	}
	v = specCreate(t, srv, variantsPath, acme.Token, mergeSpec(base, map[string]any{"default_dpi": 10000, "weight": 4294967295, "length": 2147483647}))
	if v["default_dpi"] != 10000.0 || v["weight"] != 4294967295.0 || v["length"] != 2147483647.0 {
		t.Errorf("largest default_dpi, weight and length: %v", v)
	}
	path := fmt.Sprintf("%s/%d", variantsPath, int(first["id"].(float64)))
	r := srv.Do(t, "PUT", path, acme.Token, map[string]any{"uuid": givenUUID, "ecommerce_variant_ids": []string{"shop-1", "shop-2"}})
	if r.Status != 200 {
		t.Errorf("PUT of the variant's own uuid and ids: %d %s", r.Status, r.Raw)
	}
}

// mergeSpec returns base with every key of extra set.
func mergeSpec(base, extra map[string]any) map[string]any {
	out := base
	for k, v := range extra {
		out = specWith(out, k, v)
	}
	return out
}

// specVariantCreateCases lists every create the API refuses.
func specVariantCreateCases(base map[string]any, mug, foreign float64, givenUUID string) []specCase {
	var cases []specCase
	add := func(name, key string, value any, status int, field string, alt ...string) {
		cases = append(cases, specCase{name: name, body: specWith(base, key, value), status: status, field: field, alt: alt})
	}
	for _, f := range []string{"name", "product_id", "country_id"} {
		add("missing "+f, f, specAbsent, 400, f)
		add("null "+f, f, nil, 400, f)
	}
	// Wrong JSON types.
	add("name is a number", "name", 123, 400, "name")
	add("product_id is a string", "product_id", fmt.Sprint(int(mug)), 400, "product_id")
	add("product_id is fractional", "product_id", mug+0.5, 400, "product_id")
	add("country_id is a string", "country_id", "276", 400, "country_id")
	add("country_id is a boolean", "country_id", true, 400, "country_id")
	add("weight is a string", "weight", "10", 400, "weight")
	add("weight is fractional", "weight", 2.5, 400, "weight")
	add("default_dpi is a string", "default_dpi", "300", 400, "default_dpi")
	add("length is a string", "length", "5", 400, "length")
	add("uuid is a number", "uuid", 123, 400, "uuid")
	add("description is a boolean", "description", true, 400, "description")
	add("ecommerce_tags is a number", "ecommerce_tags", 7, 400, "ecommerce_tags")
	add("ecommerce_tags is an array", "ecommerce_tags", []string{"red", "white"}, 400, "ecommerce_tags")
	add("ecommerce_variant_ids is a string", "ecommerce_variant_ids", "shop-9", 400, "ecommerce_variant_ids")
	add("price_id is a string", "price_id", "1", 400, "price_id")
	add("product_variant_category_id is a string", "product_variant_category_id", "1", 400, "product_variant_category_id")
	add("name is empty", "name", "", 400, "name")
	add("ecommerce_variant_ids holds a number", "ecommerce_variant_ids", []any{9}, 400, "ecommerce_variant_ids", "ecommerce_variant_ids[0]")
	// Unsigned and ranged integers.
	add("negative weight", "weight", -1, 400, "weight")
	add("weight over uint32", "weight", 4294967296, 400, "weight")
	add("negative default_dpi", "default_dpi", -1, 400, "default_dpi")
	add("default_dpi 0", "default_dpi", 0, 400, "default_dpi")
	add("default_dpi 10001", "default_dpi", 10001, 400, "default_dpi")
	for _, f := range []string{"length", "width", "height"} {
		add("negative "+f, f, -1, 400, f)
	}
	add("length over int32", "length", 2147483648, 400, "length")
	// Countries: ISO 3166-1 numeric codes of real countries only.
	add("country_id 0", "country_id", 0, 400, "country_id")
	add("country_id 150 is a region", "country_id", 150, 400, "country_id")
	add("country_id 999", "country_id", 999, 400, "country_id")
	add("country_id -276", "country_id", -276, 400, "country_id")
	// Products: the caller's team's only.
	add("product_id does not exist", "product_id", 999999, 400, "product_id")
	add("product_id of another team", "product_id", foreign, 400, "product_id")
	add("product_id 0", "product_id", 0, 400, "product_id")
	add("product_id over int32", "product_id", 99999999999, 400, "product_id")
	// UUIDs: 36 characters, a UUID, unique.
	add("uuid too short", "uuid", "0e7b3b0c-2f1a", 400, "uuid")
	add("uuid too long", "uuid", givenUUID+"0", 400, "uuid")
	add("uuid empty", "uuid", "", 400, "uuid")
	add("uuid 36 chars not hex", "uuid", "zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz", 400, "uuid")
	add("uuid 36 hex chars without hyphens", "uuid", "0e7b3b0c2f1a4c1e9a0b1c2d3e4f5a6b0000", 400, "uuid")
	add("uuid hyphens misplaced", "uuid", "0e7b3b0c2-f1a-4c1e-9a0b-1c2d3e4f5a6b", 400, "uuid")
	add("uuid duplicate", "uuid", givenUUID, 409, "uuid")
	// ecommerce_variant_ids: unique within the team.
	add("ecommerce_variant_ids held by another variant", "ecommerce_variant_ids", []string{"fresh-1", "shop-1"}, 409, "ecommerce_variant_ids[1]")
	// Bodies that are not a JSON object.
	for _, raw := range []specNamed{
		{"malformed JSON", `{"name": "x"`},
		{"trailing comma", `{"name": "x", "product_id": 1, "country_id": 276,}`},
		{"body is an array", `[]`},
		{"body is a string", `"variant"`},
		{"number overflows float64", `{"name": "x", "product_id": 1e400, "country_id": 276}`},
	} {
		cases = append(cases, specCase{name: raw.name, body: raw.value, status: 400})
	}
	return cases
}

// specVariantUpdateCases lists every update the API refuses.
func specVariantUpdateCases(foreign float64, otherUUID any) []specCase {
	one := func(name, key string, value any, status int, field string) specCase {
		return specCase{name: name, body: map[string]any{key: value}, status: status, field: field}
	}
	return []specCase{
		one("name is a number", "name", 5, 400, "name"),
		one("null name", "name", nil, 400, "name"),
		one("null product_id", "product_id", nil, 400, "product_id"),
		one("null country_id", "country_id", nil, 400, "country_id"),
		one("weight is a string", "weight", "10", 400, "weight"),
		one("negative weight", "weight", -1, 400, "weight"),
		one("default_dpi 0", "default_dpi", 0, 400, "default_dpi"),
		one("negative default_dpi", "default_dpi", -1, 400, "default_dpi"),
		one("default_dpi 10001", "default_dpi", 10001, 400, "default_dpi"),
		one("negative height", "height", -1, 400, "height"),
		one("country_id 150", "country_id", 150, 400, "country_id"),
		one("country_id 999", "country_id", 999, 400, "country_id"),
		one("product_id of another team", "product_id", foreign, 400, "product_id"),
		one("product_id does not exist", "product_id", 999999, 400, "product_id"),
		one("uuid malformed", "uuid", "not-a-uuid", 400, "uuid"),
		one("uuid of another variant", "uuid", otherUUID, 409, "uuid"),
		one("ecommerce_tags is an array", "ecommerce_tags", []string{"a"}, 400, "ecommerce_tags"),
		one("ecommerce_variant_ids held by another variant", "ecommerce_variant_ids", []string{"shop-1", "shop-3"}, 409, "ecommerce_variant_ids[1]"),
		{name: "malformed JSON", body: `{"name": `, status: 400},
	}
}

// specVariantOtherTeam checks that another team's variant answers 404 and
// stays untouched.
func specVariantOtherTeam(t *testing.T, srv *platentest.Server, acme, globex platentest.Tenant, mine, theirs map[string]any) {
	minePath := fmt.Sprintf("%s/%d", variantsPath, int(mine["id"].(float64)))
	theirPath := fmt.Sprintf("%s/%d", variantsPath, int(theirs["id"].(float64)))
	requests := []struct {
		method, path, token string
		body                any
	}{
		{"GET", theirPath, acme.Token, nil},
		{"PUT", theirPath, acme.Token, map[string]any{"name": "taken"}},
		{"DELETE", theirPath, acme.Token, nil},
		{"GET", minePath, globex.Token, nil},
		{"PUT", minePath, globex.Token, map[string]any{"name": "taken"}},
		{"DELETE", minePath, globex.Token, nil},
		{"GET", variantsPath + "/999999", acme.Token, nil},
		{"PUT", variantsPath + "/999999", acme.Token, map[string]any{"name": "x"}},
		{"DELETE", variantsPath + "/999999", acme.Token, nil},
	}
	for _, q := range requests {
		t.Run(q.method+" "+q.path+" by "+map[string]string{acme.Token: "acme", globex.Token: "globex"}[q.token], func(t *testing.T) {
			specExpectError(t, srv.Do(t, q.method, q.path, q.token, q.body), specCase{status: 404})
		})
	}
	t.Run("non-integer id", func(t *testing.T) {
		specExpectError(t, srv.Do(t, "GET", variantsPath+"/not-a-number", acme.Token, nil), specCase{status: 400})
	})
	t.Run("both variants unchanged and lists separate", func(t *testing.T) {
		if r := srv.Do(t, "GET", theirPath, globex.Token, nil); r.Status != 200 || r.Object(t)["name"] != "Theirs" {
			t.Errorf("globex's variant after acme's attempts: %d %s", r.Status, r.Raw)
		}
		if r := srv.Do(t, "GET", minePath, acme.Token, nil); r.Status != 200 || r.Object(t)["name"] != mine["name"] {
			t.Errorf("acme's variant after globex's attempts: %d %s", r.Status, r.Raw)
		}
		for _, v := range specList(t, srv, variantsPath, "product_variants", globex.Token) {
			if v.(map[string]any)["id"] != theirs["id"] {
				t.Errorf("globex lists a variant not its own: %v", v)
			}
		}
	})
}

const designsPath = "/api/v1/design-versions"

// specDoc URL-encodes a small design document.
func specDoc(width int) string {
	return url.QueryEscape(fmt.Sprintf(`{"version":1,"unit":"mm","width":%d,"height":100,"surfaces":[{"name":"front","layers":[]}]}`, width))
}

func TestDesignVersionBadInputFromSpec(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		globex := srv.Bootstrap(t, "globex", "globex-shop")
		doc, other := specDoc(100), specDoc(200)
		// A version in the list, so that "the list is unchanged" means something.
		specCreate(t, srv, designsPath, acme.Token, map[string]any{"design_version_id": "dv-seed", "template_config": doc})

		t.Run("valid creates", func(t *testing.T) {
			specDesignValid(t, srv, acme, globex, doc, other)
		})
		t.Run("immutable", func(t *testing.T) {
			body := map[string]any{"design_version_id": "dv-immutable", "template_config": doc, "thumbnails": []string{"https://example.com/t.png"}}
			created := specCreate(t, srv, designsPath, acme.Token, body)
			again := srv.Do(t, "POST", designsPath, acme.Token, body)
			if again.Status != 200 || !reflect.DeepEqual(again.JSON, any(created)) {
				t.Errorf("same id and document again: %d %s, first %v", again.Status, again.Raw, created)
			}
			specRejectCreate(t, srv, designsPath, "design_versions", acme.Token, specCase{
				body: specWith(body, "template_config", other), status: 409,
			})
			if got := srv.Do(t, "GET", designsPath+"/dv-immutable", acme.Token, nil); !reflect.DeepEqual(got.JSON, any(created)) {
				t.Errorf("stored version after the 409: %s, want %v", got.Raw, created)
			}
		})
		t.Run("create", func(t *testing.T) {
			for _, c := range specDesignCreateCases(doc) {
				t.Run(c.name, func(t *testing.T) {
					specRejectCreate(t, srv, designsPath, "design_versions", acme.Token, c)
				})
			}
		})
	})
}

// specDesignValid checks generated and given ids, the length edge, the list
// shape, and that teams do not see each other's versions.
func specDesignValid(t *testing.T, srv *platentest.Server, acme, globex platentest.Tenant, doc, other string) {
	generated := specCreate(t, srv, designsPath, acme.Token, map[string]any{"template_config": doc})
	id, _ := generated["design_version_id"].(string)
	if id == "" || generated["template_config"] != doc {
		t.Fatalf("generated: %v", generated)
	}
	if got := srv.Do(t, "GET", designsPath+"/"+url.PathEscape(id), acme.Token, nil); !reflect.DeepEqual(got.JSON, any(generated)) {
		t.Errorf("GET %s, created %v", got.Raw, generated)
	}
	for _, long := range []specNamed{
		{"id of 255 characters", strings.Repeat("d", 255)},
		{"id of 255 two-byte characters", strings.Repeat("é", 255)},
	} {
		t.Run(long.name, func(t *testing.T) {
			r := srv.Do(t, "POST", designsPath, acme.Token, map[string]any{"design_version_id": long.value, "template_config": doc})
			if r.Status != 200 || r.Object(t)["design_version_id"] != long.value {
				t.Errorf("%d %s", r.Status, r.Raw)
			}
		})
	}
	mine := specCreate(t, srv, designsPath, acme.Token, map[string]any{"design_version_id": "dv-1", "template_config": doc})
	theirs := specCreate(t, srv, designsPath, globex.Token, map[string]any{"design_version_id": "dv-1", "template_config": other})
	if mine["template_config"] != doc || theirs["template_config"] != other {
		t.Errorf("same id in two teams: %v %v", mine, theirs)
	}
	if got := srv.Do(t, "GET", designsPath+"/dv-1", acme.Token, nil); !reflect.DeepEqual(got.JSON, any(mine)) {
		t.Errorf("acme's dv-1 after globex's: %s", got.Raw)
	}
	specExpectError(t, srv.Do(t, "GET", designsPath+"/"+url.PathEscape(id), globex.Token, nil), specCase{status: 404})
	specExpectError(t, srv.Do(t, "GET", designsPath+"/no-such-version", acme.Token, nil), specCase{status: 404})
	r := srv.Do(t, "GET", designsPath, globex.Token, nil)
	obj := r.Object(t)
	if _, ok := obj["next_page_token"]; r.Status != 200 || !ok {
		t.Errorf("list has no next_page_token: %d %s", r.Status, r.Raw)
	}
	if list, _ := obj["design_versions"].([]any); len(list) != 1 || !reflect.DeepEqual(list[0], any(theirs)) {
		t.Errorf("globex lists %s, want only its dv-1", r.Raw)
	}
}

// specDesignCreateCases lists every design version create the API
// refuses.
func specDesignCreateCases(doc string) []specCase {
	base := map[string]any{"template_config": doc}
	var cases []specCase
	add := func(name, key string, value any, field string, alt ...string) {
		cases = append(cases, specCase{name: name, body: specWith(base, key, value), status: 400, field: field, alt: alt})
	}
	for _, id := range []specNamed{
		{"empty", ""},
		{"256 characters", strings.Repeat("d", 256)},
		{"256 two-byte characters", strings.Repeat("é", 256)},
		{"slash", "a/b"},
		{"space", "a b"},
		{"leading space", " ab"},
		{"tab", "a\tb"},
		{"newline", "a\nb"},
		{"NUL", "a\x00b"},
		{"DEL", "a\x7fb"},
		{"C1 control", "a\u0085b"},
		{"a number", 5},
		{"a boolean", true},
		{"an array of string", []string{"dv"}},
	} {
		add("design_version_id "+id.name, "design_version_id", id.value, "design_version_id")
	}
	for _, config := range []specNamed{
		{"missing", specAbsent},
		{"null", nil},
		{"empty", ""},
		{"bad percent escape", "%7B%zz"},
		{"a JSON array", url.QueryEscape(`[1,2]`)},
		{"a JSON string", url.QueryEscape(`"x"`)},
		{"a JSON number", url.QueryEscape(`42`)},
		{"JSON null", url.QueryEscape(`null`)},
		{"not JSON", "hello"},
		{"truncated JSON", url.QueryEscape(`{"version":1,`)},
		{"a number", 5},
		{"a raw JSON object", map[string]any{"version": 1}},
		{"an array of strings", []string{doc}},
	} {
		add("template_config "+config.name, "template_config", config.value, "template_config")
	}
	add("thumbnails is a string", "thumbnails", "https://example.com/t.png", "thumbnails")
	add("thumbnails holds a number", "thumbnails", []any{5}, "thumbnails", "thumbnails[0]")
	add("thumbnails is an object", "thumbnails", map[string]any{"url": "https://example.com/t.png"}, "thumbnails")
	for _, raw := range []specNamed{
		{"malformed JSON", `{"template_config": "x"`},
		{"body is an array", `[]`},
		{"empty body", ``},
	} {
		cases = append(cases, specCase{name: raw.name, body: raw.value, status: 400})
	}
	return cases
}
