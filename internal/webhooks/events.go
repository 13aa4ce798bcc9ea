package webhooks

import (
	"encoding/json"
	"time"
)

// The events a webhook delivers.
const (
	EventPrintFilesReady = "print_files.ready"
	EventItemReady       = "order_item.print_file.ready"
	EventItemFailed      = "order_item.print_file.failed"
	EventBatchReady      = "batch_order.ready"
	EventBatchFailed     = "batch_order.failed"
)

// ShopFile is a file of a ready Family B print, as in the order response,
// with its size in bytes and SHA-256 (lowercase hex).
type ShopFile struct {
	Index  int     `json:"index"`
	Type   string  `json:"type"`
	Copies int     `json:"copies"`
	URL    string  `json:"url"`
	Size   *int64  `json:"size"`
	SHA256 *string `json:"sha256"`
}

// PrintFilesReady is the body of print_files.ready: a Family B print whose
// files are rendered (the spec's fields, in its order).
type PrintFilesReady struct {
	Event           string     `json:"event"`
	OrderExternalID string     `json:"order_external_id"`
	LineExternalID  string     `json:"line_external_id"`
	DesignVersionID string     `json:"design_version_id"`
	PrintID         string     `json:"print_id"`
	Status          string     `json:"status"`
	Files           []ShopFile `json:"files"`
	SentAt          string     `json:"sent_at"`
}

// ItemPrint is the body of order_item.print_file.ready and .failed: a
// Family A item's print file (url, size and sha256 null unless ready),
// with the reason of a failure (null otherwise), as the item's print
// status carries it.
type ItemPrint struct {
	Event                string  `json:"event"`
	StoreID              string  `json:"store_id"`
	OrderUID             string  `json:"order_uid"`
	EcommerceOrderID     string  `json:"ecommerce_order_id"`
	EcommerceOrderItemID string  `json:"ecommerce_order_item_id"`
	OrderItemUID         string  `json:"order_item_uid"`
	Status               string  `json:"status"`
	URL                  *string `json:"url"`
	Size                 *int64  `json:"size"`
	SHA256               *string `json:"sha256"`
	Error                *string `json:"error"`
	SentAt               string  `json:"sent_at"`
}

// BatchFile is one print template's file of a batch, as in the batch
// order response: url, size and sha256 null unless the batch is Ready.
type BatchFile struct {
	PrintTemplateUID string  `json:"print_template_uid"`
	URL              *string `json:"url"`
	Pages            int     `json:"pages"`
	Size             *int64  `json:"size"`
	SHA256           *string `json:"sha256"`
}

// BatchOrder is the body of batch_order.ready and .failed,
// with the reason of a failure (null otherwise).
type BatchOrder struct {
	Event    string      `json:"event"`
	BatchUID string      `json:"batch_uid"`
	Status   string      `json:"status"`
	Files    []BatchFile `json:"files"`
	Error    *string     `json:"error"`
	SentAt   string      `json:"sent_at"`
}

// Body encodes an event body: the exact bytes every attempt sends.
func Body(event any) []byte {
	data, _ := json.Marshal(event) // plain structs of strings always encode
	return data
}

// SentAt is the sent_at of an event made now.
func SentAt(now time.Time) string { return now.UTC().Format(time.RFC3339) }
