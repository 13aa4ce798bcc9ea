package openapidoc

import (
	"net/http"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// Status is a success status a method answers with.
type Status struct {
	Code        int
	Description string
}

// Statuses are the success statuses of the methods whose handler chooses
// its HTTP status (httpstatus.Set), in the order documented; every other
// method answers 200. The protos cannot say this (google.api.http has no
// status), so it is declared here, beside the handlers' own tests; the
// conformance test fails on a status the document does not list.
var Statuses = map[protoreflect.FullName][]Status{
	// internal/shop: a new order is 201, the same order again 200.
	Package + ".ShopService.CreateShopOrder": {
		{http.StatusCreated, "A new order."},
		{http.StatusOK, "The order this `external_id` already names, created with the same lines."},
	},
}
