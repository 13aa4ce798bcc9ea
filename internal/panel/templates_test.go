package panel_test

import (
	"encoding/xml"
	"fmt"
	"html"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/platen-print/platen/internal/impose"
	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/templates"
)

// tplVariant creates a product and a variant of the tenant's team through
// the client API and returns the variant's integer id.
func tplVariant(t *testing.T, srv *platentest.Server, tenant platentest.Tenant, product, name string) int {
	t.Helper()
	token := srv.TeamToken(t, tenant.TeamID)
	cat := srv.Do(t, "POST", "/api/v1/product-categories", token, map[string]any{"name": "Cards " + name})
	prod := srv.Do(t, "POST", "/api/v1/products", token, map[string]any{"category_id": cat.Object(t)["id"], "name": product,
		"order_column": 1, "active": true, "team_id": tenant.TeamID})
	v := srv.Do(t, "POST", "/api/v1/product-variants", token, map[string]any{"name": name, "product_id": prod.Object(t)["id"], "country_id": 276})
	if v.Status != http.StatusOK {
		t.Fatalf("variant: %d %s", v.Status, v.Raw)
	}
	return int(v.Object(t)["id"].(float64))
}

// sra3Form is an SRA3 sheet of 2 × 4 A6 slots as the panel's form sends
// it.
func sra3Form(name string) url.Values {
	return url.Values{"name": {name}, "sheet_width_mm": {"320"}, "sheet_height_mm": {"450"}, "margin_top_mm": {"5"},
		"margin_right_mm": {"5"}, "margin_bottom_mm": {"7"}, "margin_left_mm": {"5"}, "gap_mm": {"6"}, "slot_bleed_mm": {"3"},
		"crop_marks": {"on"}, "layout": {"grid"}, "grid.columns": {"2"}, "grid.rows": {"4"}, "grid.slot_width_mm": {"148"},
		"grid.slot_height_mm": {"105"}}
}

// with is form with its fields set to pairs (name, value, …).
func with(form url.Values, pairs ...string) url.Values {
	out := url.Values{}
	for k, v := range form {
		out[k] = v
	}
	for i := 0; i < len(pairs); i += 2 {
		out.Set(pairs[i], pairs[i+1])
	}
	return out
}

var templateLocation = regexp.MustCompile(`^/operator/templates/([0-9a-f-]{36})\?done=`)

// TestPrintTemplatesInThePanel: a template created from the form (not
// without its token), refused values shown again with the API's message,
// the live drawing laid out as internal/impose lays a batch's sheet out,
// edited (grid and explicit slots), assigned to the team's variants,
// another team's out of reach, deleted.
func TestPrintTemplatesInThePanel(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme, other := srv.Bootstrap(t, "acme", "acme-shop"), srv.Bootstrap(t, "other", "other-shop")
		cards, mugs := tplVariant(t, srv, acme, "Greeting card", "A6"), tplVariant(t, srv, acme, `Mug <b>`, "white")
		tplVariant(t, srv, other, "Theirs", "secret-variant")
		staff := srv.Staff(t, "grace@example.com")
		member := srv.TeamOperator(t, "ada@example.com", acme.TeamID)
		br := newBrowser(t, srv.BaseURL)
		br.signIn(staff.Email, staff.Password)
		resp, page := br.do("GET", "/operator/templates/new", nil)
		if resp.StatusCode != http.StatusOK || !strings.Contains(page, `<svg class="sheet"`) || !strings.Contains(page, `>acme (#`) {
			t.Fatalf("the new template's form: %d\n%s", resp.StatusCode, page)
		}
		csrf := csrfField.FindStringSubmatch(page)[1]

		// Create: refused without the form's token, then made.
		hostile := `<script>alert(1)</script>`
		form := with(sra3Form(hostile), "team_id", strconv.Itoa(acme.TeamID))
		if resp, _ := br.do("POST", "/operator/templates", form); resp.StatusCode != http.StatusForbidden {
			t.Errorf("a create without the form's token: %d", resp.StatusCode)
		}
		resp, page = br.do("POST", "/operator/templates", with(form, "csrf", csrf))
		m := templateLocation.FindStringSubmatch(resp.Header.Get("Location"))
		if resp.StatusCode != http.StatusSeeOther || m == nil {
			t.Fatalf("create: %d %s %s", resp.StatusCode, resp.Header.Get("Location"), page)
		}
		uid := m[1]
		tpl := srv.Do(t, "GET", "/api/v1/operator/print-templates/"+uid, staff.Token, nil).Object(t)
		if tpl["name"] != hostile || tpl["team_id"] != float64(acme.TeamID) || tpl["slot_bleed_mm"] != 3.0 || tpl["crop_marks"] != true ||
			tpl["margin_bottom_mm"] != 7.0 || tpl["grid"].(map[string]any)["slot_width_mm"] != 148.0 {
			t.Errorf("created: %v", tpl)
		}
		resp, page = br.do("GET", "/operator/templates/"+uid+"?done=created", nil)
		if resp.StatusCode != http.StatusOK || !strings.Contains(page, "Template created.") || strings.Contains(page, hostile) ||
			!strings.Contains(page, html.EscapeString(hostile)) {
			t.Errorf("the template's page: %d\n%s", resp.StatusCode, page)
		}

		// Refused values: the form again, as typed, with the API's message.
		for name, tc := range map[string]struct {
			form    url.Values
			message string
		}{
			"a grid too wide": {with(form, "gap_mm", "30"), "grid.columns: 2 columns of 148 mm with 30 mm between do not fit"},
			"no team":         {with(form, "team_id", ""), "team_id: is required for staff"},
			"not a number":    {with(form, "margin_top_mm", "five"), `margin_top_mm: must be a number of millimetres, got &#34;five&#34;`},
			"no slots":        {with(form, "layout", "slots", "slots", " \n"), "slots: give at least one slot"},
			"a slot outside":  {with(form, "layout", "slots", "slots", "0 0 10 10"), "slots[0]: must lie inside the margins"},
		} {
			resp, page := br.do("POST", "/operator/templates", with(tc.form, "csrf", csrf))
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, tc.message) || !strings.Contains(page, `id="tpl-form"`) ||
				!strings.Contains(page, `value="`+html.EscapeString(tc.form.Get("margin_top_mm"))+`"`) {
				t.Errorf("%s: %d\n%s", name, resp.StatusCode, page)
			}
		}

		// The drawing: impose's layout of the same values, or the message.
		resp, drawing := br.do("GET", "/operator/templates/drawing?"+form.Encode(), nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("the drawing: %d %s", resp.StatusCode, drawing)
		}
		checkDrawing(t, drawing, &templates.Template{Name: hostile, SheetWidth: 320, SheetHeight: 450, MarginTop: 5, MarginRight: 5, MarginBottom: 7,
			MarginLeft: 5, Gap: 6, SlotBleed: 3, CropMarks: true, Grid: &templates.Grid{Columns: 2, Rows: 4, SlotWidth: 148, SlotHeight: 105}})
		three := with(form, "grid.columns", "3", "grid.rows", "2", "grid.slot_width_mm", "", "grid.slot_height_mm", "", "crop_marks", "")
		_, drawing = br.do("GET", "/operator/templates/drawing?"+three.Encode(), nil)
		checkDrawing(t, drawing, &templates.Template{Name: hostile, SheetWidth: 320, SheetHeight: 450, MarginTop: 5, MarginRight: 5, MarginBottom: 7,
			MarginLeft: 5, Gap: 6, SlotBleed: 3, Grid: &templates.Grid{Columns: 3, Rows: 2}})
		_, drawing = br.do("GET", "/operator/templates/drawing?"+with(form, "grid.columns", "0").Encode(), nil)
		if !strings.Contains(drawing, "grid.columns: must be from 1 to 100, got 0") || strings.Contains(drawing, "<svg") {
			t.Errorf("the drawing of a grid of no column:\n%s", drawing)
		}

		// Edit: the grid, then explicit slots.
		resp, page = br.do("POST", "/operator/templates/"+uid, with(three, "name", "Six cards", "csrf", csrf))
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/operator/templates/"+uid+"?done=saved" {
			t.Fatalf("update: %d %s", resp.StatusCode, page)
		}
		tpl = srv.Do(t, "GET", "/api/v1/operator/print-templates/"+uid, staff.Token, nil).Object(t)
		if g := tpl["grid"].(map[string]any); tpl["name"] != "Six cards" || g["columns"] != 3.0 || g["slot_width_mm"] != 0.0 || tpl["crop_marks"] != false {
			t.Errorf("updated: %v", tpl)
		}
		slots := with(three, "layout", "slots", "slots", "10 10 100 100\r\n10, 120, 100, 100\n")
		if resp, page := br.do("POST", "/operator/templates/"+uid, with(slots, "csrf", csrf)); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("update to slots: %d %s", resp.StatusCode, page)
		}
		tpl = srv.Do(t, "GET", "/api/v1/operator/print-templates/"+uid, staff.Token, nil).Object(t)
		if tpl["grid"] != nil || fmt.Sprint(tpl["slots"]) != "[map[height_mm:100 width_mm:100 x_mm:10 y_mm:10] map[height_mm:100 width_mm:100 x_mm:10 y_mm:120]]" {
			t.Errorf("updated to slots: %v", tpl)
		}
		if _, page := br.do("GET", "/operator/templates/"+uid, nil); !strings.Contains(page, "10 10 100 100\n10 120 100 100</textarea>") {
			t.Errorf("the slots in the form:\n%s", page)
		}
		if resp, page := br.do("POST", "/operator/templates/"+uid, with(slots, "csrf", csrf, "slot_bleed_mm", "11")); resp.StatusCode != http.StatusBadRequest ||
			!strings.Contains(page, "slot_bleed_mm: 11 mm around slot 1 runs off the sheet") || !strings.Contains(page, "Variants") {
			t.Errorf("an update refused: %d\n%s", resp.StatusCode, page)
		}

		// Assign: the team's variants, named, as checkboxes.
		_, page = br.do("GET", "/operator/templates/"+uid, nil)
		if !strings.Contains(page, "Greeting card · A6") || !strings.Contains(page, html.EscapeString(`Mug <b>`)+" · white") ||
			strings.Contains(page, "secret-variant") {
			t.Errorf("the variants to assign:\n%s", page)
		}
		assign := func(checked ...int) {
			t.Helper()
			v := url.Values{"csrf": {csrf}, "shown": {strconv.Itoa(cards), strconv.Itoa(mugs)}}
			for _, id := range checked {
				v.Add("variant", strconv.Itoa(id))
			}
			if resp, page := br.do("POST", "/operator/templates/"+uid+"/assign", v); resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("assign %v: %d %s", checked, resp.StatusCode, page)
			}
		}
		for _, checked := range [][]int{{cards}, {mugs}, {cards, mugs}, {}} {
			assign(checked...)
			var got []int
			for _, id := range srv.Do(t, "GET", "/api/v1/operator/print-templates/"+uid, staff.Token, nil).Object(t)["variant_ids"].([]any) {
				got = append(got, int(id.(float64)))
			}
			if slices.Sort(got); !slices.Equal(got, slices.Sorted(slices.Values(checked))) {
				t.Errorf("assigned %v: variant_ids %v", checked, got)
			}
		}
		assign(cards)
		if _, page := br.do("GET", "/operator/templates", nil); !strings.Contains(page, `data-template="`+uid+`"`) || !strings.Contains(page, fmt.Sprintf("#%d", cards)) {
			t.Errorf("the list:\n%s", page)
		}

		// Another team's template: out of a team operator's reach.
		theirs := srv.Do(t, "POST", "/api/v1/operator/print-templates", staff.Token, map[string]any{"team_id": other.TeamID, "name": "theirs",
			"sheet_width_mm": 100, "sheet_height_mm": 100, "grid": map[string]any{"columns": 1, "rows": 1}}).Object(t)["uid"].(string)
		mb := newBrowser(t, srv.BaseURL)
		mb.signIn(member.Email, member.Password)
		_, page = mb.do("GET", "/operator/templates", nil)
		mcsrf := csrfField.FindStringSubmatch(page)[1]
		if !strings.Contains(page, uid) || strings.Contains(page, theirs) {
			t.Errorf("the team operator's list:\n%s", page)
		}
		if resp, _ := mb.do("GET", "/operator/templates/"+theirs, nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("another team's template: %d", resp.StatusCode)
		}
		for _, path := range []string{"", "/assign", "/delete"} {
			if resp, _ := mb.do("POST", "/operator/templates/"+theirs+path, with(sra3Form("mine now"), "csrf", mcsrf, "variant", strconv.Itoa(cards))); resp.StatusCode != http.StatusNotFound {
				t.Errorf("POST to another team's template%s: %d", path, resp.StatusCode)
			}
		}
		if resp, page := mb.do("GET", "/operator/templates/new", nil); resp.StatusCode != http.StatusOK || strings.Contains(page, `name="team_id"`) {
			t.Errorf("a team operator's new template: %d (no team to choose)", resp.StatusCode)
		}
		resp, _ = mb.do("POST", "/operator/templates", with(sra3Form("ours"), "csrf", mcsrf))
		if m := templateLocation.FindStringSubmatch(resp.Header.Get("Location")); resp.StatusCode != http.StatusSeeOther || m == nil ||
			srv.Do(t, "GET", "/api/v1/operator/print-templates/"+m[1], staff.Token, nil).Object(t)["team_id"] != float64(acme.TeamID) {
			t.Errorf("a team operator's template: %d %s", resp.StatusCode, resp.Header.Get("Location"))
		}

		// Delete.
		resp, _ = br.do("POST", "/operator/templates/"+uid+"/delete", url.Values{"csrf": {csrf}})
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/operator/templates?done=deleted" {
			t.Fatalf("delete: %d %s", resp.StatusCode, resp.Header.Get("Location"))
		}
		if r := srv.Do(t, "GET", "/api/v1/operator/print-templates/"+uid, staff.Token, nil); r.Status != http.StatusNotFound {
			t.Errorf("after delete: %d", r.Status)
		}
		if _, page := br.do("GET", "/operator/templates?done=deleted", nil); !strings.Contains(page, "Template deleted.") || strings.Contains(page, uid) {
			t.Errorf("the list after delete:\n%s", page)
		}
	})
}

// checkDrawing reads the drawing's SVG and compares its slots, the bleed
// kept around them and its crop marks with impose's outline of want.
func checkDrawing(t *testing.T, drawing string, want *templates.Template) {
	t.Helper()
	outline, err := impose.Outline(want)
	if err != nil {
		t.Fatal(err)
	}
	start, end := strings.Index(drawing, "<svg"), strings.Index(drawing, "</svg>")
	if start < 0 || end < 0 {
		t.Fatalf("no SVG in the drawing:\n%s", drawing)
	}
	var svg struct {
		ViewBox string `xml:"viewBox,attr"`
		Rects   []struct {
			Class  string  `xml:"class,attr"`
			X      float64 `xml:"x,attr"`
			Y      float64 `xml:"y,attr"`
			Width  float64 `xml:"width,attr"`
			Height float64 `xml:"height,attr"`
		} `xml:"rect"`
		Lines []struct {
			X1 float64 `xml:"x1,attr"`
			Y1 float64 `xml:"y1,attr"`
			X2 float64 `xml:"x2,attr"`
			Y2 float64 `xml:"y2,attr"`
		} `xml:"line"`
	}
	if err := xml.Unmarshal([]byte(drawing[start:end+len("</svg>")]), &svg); err != nil {
		t.Fatalf("the SVG: %v\n%s", err, drawing)
	}
	if svg.ViewBox != fmt.Sprintf("0 0 %v %v", want.SheetWidth, want.SheetHeight) {
		t.Errorf("viewBox %q", svg.ViewBox)
	}
	var slots, kept [][4]float64
	for _, r := range svg.Rects {
		switch r.Class {
		case "slot":
			slots = append(slots, [4]float64{r.X, r.Y, r.Width, r.Height})
		case "kept":
			kept = append(kept, [4]float64{r.X, r.Y, r.Width, r.Height})
		}
	}
	if len(slots) != len(outline.Placements) || len(kept) != len(outline.Placements) || len(svg.Lines) != len(outline.Marks) {
		t.Fatalf("%d slots, %d kept, %d marks; want %d, %d, %d", len(slots), len(kept), len(svg.Lines), len(outline.Placements), len(outline.Placements), len(outline.Marks))
	}
	near := func(a, b [4]float64) bool {
		for i := range a {
			if math.Abs(a[i]-b[i]) > 1e-9 {
				return false
			}
		}
		return true
	}
	for i, p := range outline.Placements {
		if !near(slots[i], [4]float64{p.X, p.Y, p.Width, p.Height}) {
			t.Errorf("slot %d drawn at %v; impose places it at %v", i+1, slots[i], p)
		}
		if b := p.Bleed; !near(kept[i], [4]float64{p.X - b, p.Y - b, p.Width + 2*b, p.Height + 2*b}) {
			t.Errorf("slot %d's bleed kept drawn at %v", i+1, kept[i])
		}
	}
	for i, m := range outline.Marks {
		if l := svg.Lines[i]; !near([4]float64{l.X1, l.Y1, l.X2, l.Y2}, m) {
			t.Errorf("mark %d drawn at %v; impose draws it at %v", i, l, m)
		}
	}
}
