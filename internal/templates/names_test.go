package templates_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/templates"
)

// hiddenNames are names that print other than they read: a newline starts
// a slug line of its own, U+202E reverses what follows it.
var hiddenNames = map[string]string{
	"a newline":                "Cards\nBatch 00000000 · sheet 1 of 1",
	"a right-to-left override": "Cards \u202efdp.ecioval",
	"a bidi isolate":           "Cards \u2066x\u2069",
	"a left-to-right mark":     "Cards\u200e",
	"a line separator":         "Cards\u2028two",
	"a zero-width space":       "Car\u200bds",
}

// TestTemplateNamesAreText: a print template's name with a newline or a
// bidi override reached every batch sheet's slug line; the API refuses
// one, naming the field, on create and on update.
func TestTemplateNamesAreText(t *testing.T) {
	srv := platentest.Start(t, platentest.SQLite())
	acme := srv.Bootstrap(t, "acme", "acme-shop")
	staff := srv.Staff(t, "grace@example.com")
	template := func(name string) map[string]any {
		b := sra3(acme.TeamID)
		b["name"], b["variant_ids"] = name, []int{}
		return b
	}
	created := srv.Do(t, "POST", "/api/v1/operator/print-templates", staff.Token, template("SRA3"))
	if created.Status != http.StatusOK {
		t.Fatalf("create: %d %s", created.Status, created.Raw)
	}
	uid := created.Object(t)["uid"].(string)
	for what, name := range hiddenNames {
		body := template(name)
		for _, call := range []struct{ method, path string }{
			{"POST", "/api/v1/operator/print-templates"},
			{"PUT", "/api/v1/operator/print-templates/" + uid},
		} {
			r := srv.Do(t, call.method, call.path, staff.Token, body)
			if _, fields := platentest.ErrorBody(t, r, http.StatusBadRequest); !slices.Equal(fields, []string{"name"}) {
				t.Errorf("%s, %s: fields %v", what, call.method, fields)
			}
		}
	}
	if r := srv.Do(t, "PUT", "/api/v1/operator/print-templates/"+uid, staff.Token, template("Cartes A6 ×8 — «été» 名刺 🃏")); r.Status != http.StatusOK {
		t.Errorf("a name in other scripts: %d %s", r.Status, r.Raw)
	}
}

// TestPrintableNameKeepsNamesStoredBefore: a name stored before the rule
// prints with its hidden characters as spaces.
func TestPrintableNameKeepsNamesStoredBefore(t *testing.T) {
	for what, name := range hiddenNames {
		got := templates.PrintableName(name)
		if strings.ContainsFunc(got, func(r rune) bool { return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp) }) || len([]rune(got)) != len([]rune(name)) {
			t.Errorf("%s: %q prints as %q", what, name, got)
		}
	}
	if got := templates.PrintableName("SRA3 A6 ×8"); got != "SRA3 A6 ×8" {
		t.Errorf("a plain name prints as %q", got)
	}
}
