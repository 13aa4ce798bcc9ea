package renderjobs

import (
	"time"

	"github.com/platen-print/platen/internal/files"
	"github.com/platen-print/platen/internal/orders"
	"github.com/platen-print/platen/internal/shop"
	"github.com/platen-print/platen/internal/webhooks"
)

// Notice is a webhook event for a store: what a change of one of its
// prints tells it. The change's store records it, and queues its
// delivery, in the change's own transaction.
type Notice struct {
	TeamID  int
	StoreID string
	Event   string
	Body    []byte
}

// Item is what a Family A item's notice names of the item and its order.
type Item struct {
	TeamID                                                             int
	StoreID, OrderUID, EcommerceOrderID, EcommerceOrderItemID, ItemUID string
	// FilesRequested says the order asked for print files: only such an
	// order's store hears of its items' prints.
	FilesRequested bool
}

// ItemLinks signs the link an item's ready notice carries.
type ItemLinks interface {
	ItemURL(orderUID, itemUID string) string
}

// ItemReady is the notice of it's print made ready with a file of digest,
// with a fresh link to it; false when there is none to send.
func ItemReady(it Item, digest files.Digest, links ItemLinks) (Notice, bool) {
	url := links.ItemURL(it.OrderUID, it.ItemUID)
	return it.notice(webhooks.EventItemReady, orders.PrintReady, func(e *webhooks.ItemPrint) {
		e.URL, e.Size, e.SHA256 = &url, &digest.Size, &digest.SHA256
	})
}

// ItemFailed is the notice of it's print failed with reason (by its render
// or by an operator); false when there is none to send.
func ItemFailed(it Item, reason string) (Notice, bool) {
	return it.notice(webhooks.EventItemFailed, orders.PrintProcessingFailed, func(e *webhooks.ItemPrint) { e.Error = &reason })
}

// notice is it's notice of event with status, completed by fill.
func (it Item) notice(event, status string, fill func(*webhooks.ItemPrint)) (Notice, bool) {
	if !it.FilesRequested {
		return Notice{}, false
	}
	e := webhooks.ItemPrint{
		Event: event, StoreID: it.StoreID, OrderUID: it.OrderUID,
		EcommerceOrderID: it.EcommerceOrderID, EcommerceOrderItemID: it.EcommerceOrderItemID,
		OrderItemUID: it.ItemUID, Status: status, SentAt: webhooks.SentAt(time.Now()),
	}
	fill(&e)
	return Notice{TeamID: it.TeamID, StoreID: it.StoreID, Event: event, Body: webhooks.Body(e)}, true
}

// Line is what a Family B print's notice names of the print and its order.
type Line struct {
	TeamID                                    int
	StoreID, Reference, OrderExternalID       string
	PrintUID, LineExternalID, DesignVersionID string
	Quantity                                  int
}

// ShopLinks signs the links a shop print's ready notice carries.
type ShopLinks interface {
	ShopFileURLs(reference string) func(printUID string, index int) string
}

// ShopReady is the notice of a shop print made ready with stored, one file
// per surface, each with a fresh link. A shop print's failure sends
// none: Family B has no event for it.
func ShopReady(l Line, stored []StoredFile, links ShopLinks) Notice {
	url := links.ShopFileURLs(l.Reference)
	list := make([]webhooks.ShopFile, len(stored))
	for i, f := range stored {
		list[i] = webhooks.ShopFile{Index: i + 1, Type: "single_file", Copies: l.Quantity, Size: &f.Size, SHA256: &f.SHA256,
			URL: url(l.PrintUID, i+1)}
	}
	body := webhooks.Body(webhooks.PrintFilesReady{
		Event: webhooks.EventPrintFilesReady, OrderExternalID: l.OrderExternalID,
		LineExternalID: l.LineExternalID, DesignVersionID: l.DesignVersionID,
		PrintID: l.PrintUID, Status: shop.PrintReady, Files: list, SentAt: webhooks.SentAt(time.Now()),
	})
	return Notice{TeamID: l.TeamID, StoreID: l.StoreID, Event: webhooks.EventPrintFilesReady, Body: body}
}
