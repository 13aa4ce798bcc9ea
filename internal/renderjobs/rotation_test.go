package renderjobs_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/server"
	"github.com/platen-print/platen/internal/storage"
)

// TestLinkKeyRotation rotates the link-signing key under running serves
// sharing one database, as `platen admin keys rotate-links` does: links
// sent before keep working everywhere; a link signed with the new key by a
// serve that has read it works at one that has not yet; and a second
// rotation drops the first key, so links signed with it stop working.
func TestLinkKeyRotation(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		a := platentest.Start(t, b)
		tenant := a.Bootstrap(t, "acme", "shop-1")
		doc := designDoc(dataURI(photo(t, 60, 40)))
		if r := a.Do(t, "POST", "/api/v1/orders", tenant.Token, platentest.OrderBody(tenant.StoreID, "3001", platentest.PrintFiles(), platentest.Design(doc))); r.Status != http.StatusOK {
			t.Fatalf("create: %d %s", r.Status, r.Raw)
		}
		before := a.WaitPrint(t, tenant.Token, "3001-1")["url"].(string)
		rotate(t, a)
		// A serve started after the rotation signs with the new key.
		c := another(t, a)
		afterFirst := c.Do(t, "GET", "/api/v1/order-items/3001-1/print", tenant.Token, nil).Object(t)["url"].(string)
		if afterFirst == before {
			t.Fatal("the same link after a rotation")
		}
		for what, link := range map[string]string{"a link sent before the rotation": before, "a link of the new key, at a serve that has not read it": afterFirst} {
			if resp, _ := platentest.Get(t, platentest.NoRedirect, relink(link, a)); resp.StatusCode != http.StatusFound {
				t.Errorf("%s answers %d at the first serve, want 302", what, resp.StatusCode)
			}
		}
		rotate(t, a)
		d := another(t, a)
		if resp, _ := platentest.Get(t, platentest.NoRedirect, relink(before, d)); resp.StatusCode != http.StatusForbidden {
			t.Errorf("a link of a key rotated out twice answers %d, want 403", resp.StatusCode)
		}
		if resp, _ := platentest.Get(t, platentest.NoRedirect, relink(afterFirst, d)); resp.StatusCode != http.StatusFound {
			t.Errorf("a link of the previous key answers %d, want 302", resp.StatusCode)
		}
	})
}

// rotate rotates the link-signing key of srv's database from outside the
// serve, as the command does.
func rotate(t *testing.T, srv *platentest.Server) {
	t.Helper()
	db, err := storage.Open(srv.Config.DatabaseURL, srv.Config.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.RotateServiceKey(context.Background(), server.LinkKeyName); err != nil {
		t.Fatal(err)
	}
}

// another starts a second serve on srv's database and data directory.
func another(t *testing.T, srv *platentest.Server) *platentest.Server {
	t.Helper()
	cfg := srv.Config
	cfg.HTTPAddr, cfg.GRPCAddr = "127.0.0.1:0", "127.0.0.1:0"
	return platentest.StartConfig(t, cfg)
}

// relink is link as sent to srv: same path and token, srv's address.
func relink(link string, srv *platentest.Server) string {
	u, _ := urlParse(link)
	return srv.BaseURL + u
}

// urlParse returns link's path and query.
func urlParse(link string) (string, error) {
	u, err := url.Parse(link)
	if err != nil {
		return "", err
	}
	return u.RequestURI(), nil
}
