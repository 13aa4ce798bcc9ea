package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// previewFloodPrints is how many slow prints the preview flood opens.
const previewFloodPrints = 8

// slowPreviewDesign is a design whose PDF is a few vector ellipses (tens
// of milliseconds) but whose 36-dpi preview blends ellipses the size of a
// 2.8 m page into a 16-megapixel PNG one after another: about 15 s.
func slowPreviewDesign() string {
	list := make([]string, 40)
	for i := range list {
		list[i] = fmt.Sprintf(`{"type":"ellipse","x":%d,"y":0,"width":2800,"height":2800,"rotation":%d,"opacity":0.5,"fill":"#ff0000"}`, i, i*5)
	}
	return `{"width":2800,"height":2800,"layers":[` + strings.Join(list, ",") + `]}`
}

// attackPreviewFlood is the attacking team's operator, signed in to the
// panel, opening the previews of eight prints that are cheap to print but
// slow to preview, with eight senders, as a prints page's lazy images do.
func attackPreviewFlood(ctx context.Context, h *hostileRun, answers *statusCounts) error {
	panel, err := h.signedInOperator(ctx)
	if err != nil {
		return err
	}
	ids, err := h.slowPreviewPrints(ctx)
	if err != nil {
		return err
	}
	return senders(ctx, 8, func(i int) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.e.baseURL+"/operator/prints/"+ids[i%len(ids)]+"/preview", nil)
		if err != nil {
			return err
		}
		resp, err := panel.Do(req)
		if err != nil {
			return ctx.Err()
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		answers.add(resp.StatusCode)
		return nil
	})
}

// signedInOperator creates an operator of the attacking team and signs it
// in to the panel: a client with its session cookie.
func (h *hostileRun) signedInOperator(ctx context.Context) (*http.Client, error) {
	raw, err := h.e.admin(ctx, h.e.cmd.Path, "operator", "create", "--email", "mallory@example.com", "--name", "Mallory",
		"--team", strconv.FormatInt(h.e.teamID, 10))
	if err != nil {
		return nil, err
	}
	var created struct {
		Password string `json:"password"`
	}
	if err := json.Unmarshal(raw, &created); err != nil {
		return nil, err
	}
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Timeout: readyWait, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	form := url.Values{"email": {"mallory@example.com"}, "password": {created.Password}, "next": {"/operator/prints"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.e.baseURL+"/operator/login", strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		return nil, fmt.Errorf("the attacker's sign-in: %s", resp.Status)
	}
	return client, nil
}

// slowPreviewPrints orders the attacker's slow-preview prints and waits
// until they are ready (their PDFs are quick); it returns their ids.
func (h *hostileRun) slowPreviewPrints(ctx context.Context) ([]string, error) {
	ids := make([]string, previewFloodPrints)
	for i := range ids {
		var answer struct {
			Items []struct {
				UID string `json:"uid"`
			} `json:"items"`
		}
		body := attackOrder(h.e.storeID, fmt.Sprintf("preview-%d", i), slowPreviewDesign())
		if err := h.e.call(ctx, h.client, http.MethodPost, "/api/v1/orders", body, &answer); err != nil {
			return nil, err
		}
		if len(answer.Items) != 1 {
			return nil, errors.New("the attacker's order answered no item")
		}
		ids[i] = answer.Items[0].UID
	}
	for i := range ids {
		if err := h.waitReady(ctx, fmt.Sprintf("preview-%d-1", i)); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

func (h *hostileRun) waitReady(ctx context.Context, itemID string) error {
	for {
		status, err := h.e.printStatus(ctx, h.client, itemID)
		switch {
		case err != nil:
			return err
		case status == "ready":
			return nil
		case status == "processingfailed":
			return fmt.Errorf("the attacker's print %s failed (see the server's log)", itemID)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
