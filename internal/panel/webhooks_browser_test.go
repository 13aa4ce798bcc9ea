package panel_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/config"
	"github.com/platen-print/platen/internal/platentest"
)

// TestWebhooksAndTokensInABrowser drives the webhooks, stores and tokens
// pages in Debian's chromium (browser/webhooks.test.js): staff refused a bad
// URL with the API's reason, set a store's URL, rotate its secret (hidden,
// then shown new), see a delivery and resend it (each confirmed), see the
// teams and stores, issue a token shown once that works on the API, and
// revoke it; each page fits a phone; a team's operator reaches neither the
// stores page nor another team's webhook. Screenshots go to
// $PLATEN_SCREENSHOTS when set.
func TestWebhooksAndTokensInABrowser(t *testing.T) {
	t.Parallel() // a browser test mostly waits (on the page's refreshes, a render): the four overlap
	chromium := needBrowser(t)
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		hooks := platentest.NewReceiver(t)
		srv := platentest.StartWith(t, b, func(c *config.Config) { c.AllowPrivateNetwork = true })
		acme, other := srv.Bootstrap(t, "acme", "acme-shop"), srv.Bootstrap(t, "other", "other-shop")
		staff := srv.Staff(t, "grace@example.com")
		member := srv.TeamOperator(t, "lin@example.com", other.TeamID)
		out := runScript(t, b, "webhooks.test.js", 15, map[string]string{"BASE": srv.BaseURL, "CHROMIUM": chromium,
			"STAFF_EMAIL": staff.Email, "STAFF_PASSWORD": staff.Password, "MEMBER_EMAIL": member.Email, "MEMBER_PASSWORD": member.Password,
			"RECEIVER": hooks.URL, "TEAM_ID": strconv.Itoa(acme.TeamID)},
			func(step string) {
				if step == "set the URL" {
					order(t, srv, acme, "1001") // its ready print is the delivery the page then lists
				}
			})
		hooks.Wait(t, 2, 30*time.Second) // the delivery, and its resending
		checkScreenshots(t, out, "webhooks", "webhook", "delivery", "stores", "token", "tokens", "phone-webhooks", "phone-webhooks-acme-shop", "phone-stores", "phone-tokens")
	})
}
