package bench

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// scenario is one kind of load. newRequest returns, for a started and
// seeded env, the function that builds a worker's seq-th request. seed,
// when set, is the scenario's own seeding, run once per server before it.
type scenario struct {
	name        string
	description string
	newRequest  func(e *env) func(worker, seq int) (*http.Request, error)
	seed        func(ctx context.Context, e *env) error
}

// allScenarios lists the scenarios in the order -h shows them.
var allScenarios = []scenario{
	{
		name:        "create",
		description: "POST /api/v1/orders: a new one-item order each time, create_print_files false",
		newRequest:  createOrder,
	},
	{
		name:        "print",
		description: "GET /api/v1/order-items/{id}/print of the seeded order's item",
		newRequest:  getPrint,
	},
	{
		name:        "shop-get",
		description: "GET /v1/shop/orders/{ref} of a seeded 10-line Family B order, every print ready",
		newRequest:  getShopOrder,
		seed:        func(ctx context.Context, e *env) error { return e.seedShop(ctx) },
	},
}

func findScenario(name string) *scenario {
	for i := range allScenarios {
		if allScenarios[i].name == name {
			return &allScenarios[i]
		}
	}
	return nil
}

func scenarioNames() string {
	names := make([]string, len(allScenarios))
	for i, s := range allScenarios {
		names[i] = s.name
	}
	return strings.Join(names, ", ")
}

// orderBody is the JSON of a one-item order with the given ids, which must
// not need escaping (the bench's ids are letters, digits and dashes).
func orderBody(storeID, orderID, itemID string) []byte {
	return fmt.Appendf(nil, `{"store_id":%q,"ecommerce_order_id":%q,"create_print_files":false,`+
		`"items":[{"ecommerce_order_item_id":%q,"ecommerce_variant_id":"v1","quantity":1,`+
		`"template_config":"%%7B%%22width%%22%%3A10%%2C%%22height%%22%%3A10%%2C%%22layers%%22%%3A%%5B%%5D%%7D","thumbnails":["https://example.com/t.png"]}]}`,
		storeID, orderID, itemID)
}

func (e *env) newOrderRequest(orderID, itemID string) (*http.Request, error) {
	req, err := http.NewRequest(http.MethodPost, e.baseURL+"/api/v1/orders",
		bytes.NewReader(orderBody(e.storeID, orderID, itemID)))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+e.token)
	req.Header.Set("Content-Type", "application/json")
	return req, nil
}

func (e *env) newPrintRequest(itemID string) (*http.Request, error) {
	req, err := http.NewRequest(http.MethodGet,
		e.baseURL+"/api/v1/order-items/"+url.PathEscape(itemID)+"/print", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+e.token)
	return req, nil
}

// createOrder posts orders whose ids are unique per run, worker and seq.
func createOrder(e *env) func(worker, seq int) (*http.Request, error) {
	return func(worker, seq int) (*http.Request, error) {
		id := fmt.Sprintf("%s-w%d-%d", e.run, worker, seq)
		return e.newOrderRequest("o-"+id, "i-"+id)
	}
}

// getPrint reads the print status of the seeded item.
func getPrint(e *env) func(worker, seq int) (*http.Request, error) {
	return func(int, int) (*http.Request, error) {
		return e.newPrintRequest(e.seedItemID)
	}
}
