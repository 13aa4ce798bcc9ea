package openapidoc

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platen-print/platen/gen/openapi"
)

// referenceFile is the committed reference, from this package's folder.
var referenceFile = filepath.Join("..", "..", "docs", "api-reference.md")

// TestCommittedReferenceIsTheDocuments: docs/api-reference.md is what the
// OpenAPI document the server answers makes (make generate rewrites it).
func TestCommittedReferenceIsTheDocuments(t *testing.T) {
	want, err := Markdown(openapi.Document)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(referenceFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is not what the OpenAPI document makes: run make generate", referenceFile)
	}
}

// TestEveryOperationAndFieldIsListed: the reference has a heading for every
// operation of the document, and a row for every field of every type.
func TestEveryOperationAndFieldIsListed(t *testing.T) {
	md, err := Markdown(openapi.Document)
	if err != nil {
		t.Fatal(err)
	}
	text := string(md)
	var doc document
	if err := json.Unmarshal(openapi.Document, &doc); err != nil {
		t.Fatal(err)
	}
	ops := 0
	for path, methods := range doc.Paths {
		for method := range methods {
			ops++
			if heading := "### `" + strings.ToUpper(method) + " " + path + "`\n"; !strings.Contains(text, heading) {
				t.Errorf("no section for %s %s", strings.ToUpper(method), path)
			}
		}
	}
	fields := 0
	for name, s := range doc.Components.Schemas {
		section := sectionOf(text, "### "+name+"\n")
		if section == "" {
			t.Errorf("no section for the type %s", name)
			continue
		}
		for field := range s.Properties {
			fields++
			if !strings.Contains(section, "| `"+field+"` |") {
				t.Errorf("%s: no row for %s", name, field)
			}
		}
	}
	if ops < 60 || fields < 300 {
		t.Errorf("only %d operations and %d fields listed: the document lost its paths or types", ops, fields)
	}
}

// sectionOf is the text from heading to the next heading of its level.
func sectionOf(text, heading string) string {
	i := strings.Index(text, heading)
	if i < 0 {
		return ""
	}
	rest := text[i+len(heading):]
	if j := strings.Index(rest, "\n### "); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

func TestTypeOf(t *testing.T) {
	tests := []struct {
		schema string
		want   string
	}{
		{`{"$ref": "#/components/schemas/Order"}`, "[Order](#order)"},
		{`{"type": ["string", "null"], "format": "date-time"}`, "string (date-time)"},
		{`{"type": "array", "items": {"type": "integer", "format": "int32"}}`, "array of integer (int32)"},
		{`{"anyOf": [{"$ref": "#/components/schemas/Customer"}, {"type": "null"}]}`, "[Customer](#customer)"},
		{`{"type": "object", "additionalProperties": {"type": "string"}}`, "object of string"},
		{`{"type": "object", "additionalProperties": true}`, "object"},
		{`{}`, "any"},
	}
	for _, tt := range tests {
		var s schema
		if err := json.Unmarshal([]byte(tt.schema), &s); err != nil {
			t.Fatal(err)
		}
		if got := typeOf(&s); got != tt.want {
			t.Errorf("typeOf(%s) = %q, want %q", tt.schema, got, tt.want)
		}
	}
}

func TestNullableAndDescribe(t *testing.T) {
	var s schema
	if err := json.Unmarshal([]byte(`{"type": ["integer", "null"], "minimum": 0, "maximum": 4294967295, "description": "Size in bytes."}`), &s); err != nil {
		t.Fatal(err)
	}
	if !isNullable(&s) {
		t.Error("[integer, null] is not nullable")
	}
	if got, want := describe(&s), "Size in bytes. From 0 to 4294967295."; got != want {
		t.Errorf("describe = %q, want %q", got, want)
	}
}
