package storage

import (
	"context"
	"fmt"
	"strconv"

	"github.com/platen-print/platen/ent"
	"github.com/platen-print/platen/ent/order"
	"github.com/platen-print/platen/ent/orderitem"
	"github.com/platen-print/platen/ent/shoporder"
	"github.com/platen-print/platen/ent/shopprint"
	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/batches"
	"github.com/platen-print/platen/internal/downloads"
	"github.com/platen-print/platen/internal/files"
	"github.com/platen-print/platen/internal/orders"
	"github.com/platen-print/platen/internal/shop"
)

// Downloads finds the stored files download links lead to, for each kind
// of link (downloads.Downloads); it only reads.
type Downloads struct{ db *DB }

// Downloads returns the store download links read.
func (db *DB) Downloads() *Downloads { return &Downloads{db: db} }

var _ downloads.Downloads = (*Downloads)(nil)

// ItemDownload returns the item's stored file and the name it is
// downloaded by: {ecommerce_order_id}-{ecommerce_order_item_id}.pdf.
func (s *Downloads) ItemDownload(ctx context.Context, itemUID string) (*downloads.Download, error) {
	it, err := s.db.read.OrderItem.Query().Where(orderitem.UID(itemUID)).
		Select(orderitem.FieldOrderID, orderitem.FieldPrintStatus, orderitem.FieldPrintFileKey, orderitem.FieldPrintFileSha256,
			orderitem.FieldEcommerceOrderItemID).
		WithOrder(func(q *ent.OrderQuery) { q.Select(order.FieldUID, order.FieldEcommerceOrderID) }).
		Only(ctx)
	if err != nil {
		return nil, notFound(err, "order item %q not found", itemUID)
	}
	dl := &downloads.Download{
		Order:    it.Edges.Order.UID,
		Status:   it.PrintStatus,
		Filename: it.Edges.Order.EcommerceOrderID + "-" + it.EcommerceOrderItemID + ".pdf",
	}
	if it.PrintStatus == orders.PrintReady {
		dl.FileKey = it.PrintFileKey
		if it.PrintFileSha256 != nil {
			dl.SHA256 = *it.PrintFileSha256
		}
	}
	return dl, nil
}

// PrintDownload returns file index (from 1) of a shop print, named
// {order external_id}-{line external_id}-{index}.pdf.
func (s *Downloads) PrintDownload(ctx context.Context, printUID string, index int) (*downloads.Download, error) {
	p, err := s.db.read.ShopPrint.Query().Where(shopprint.UID(printUID)).
		WithOrder(func(q *ent.ShopOrderQuery) {
			q.Select(shoporder.FieldReferenceNumber, shoporder.FieldExternalID)
		}).Only(ctx)
	if err != nil {
		return nil, notFound(err, "print %q not found", printUID)
	}
	dl := &downloads.Download{
		Order:    p.Edges.Order.ReferenceNumber,
		Status:   p.Status,
		Filename: p.Edges.Order.ExternalID + "-" + p.LineExternalID + "-" + strconv.Itoa(index) + ".pdf",
	}
	if p.Status == shop.PrintReady {
		if index > len(p.FileKeys) {
			return nil, apierr.NotFound("print %q has %d files; there is no file %d", printUID, len(p.FileKeys), index)
		}
		dl.FileKey = &p.FileKeys[index-1]
		if d := files.DigestAt(shopDigests(p.FileDigests), index-1); d != nil {
			dl.SHA256 = d.SHA256
		}
	}
	return dl, nil
}

// BatchDownload returns file index (from 1) of a batch, saved as
// batch-{uid}-{index}.pdf.
func (s *Downloads) BatchDownload(ctx context.Context, batchUID string, index int) (*downloads.Download, error) {
	b, err := s.db.batch(ctx, batchUID)
	if err != nil {
		return nil, err
	}
	dl := &downloads.Download{Order: b.UID, Status: b.Status, Filename: fmt.Sprintf("batch-%s-%d.pdf", b.UID, index)}
	if b.Status == batches.StatusReady {
		if index > len(b.Files) {
			return nil, apierr.NotFound("batch %q has %d files; there is no file %d", batchUID, len(b.Files), index)
		}
		dl.FileKey = &b.Files[index-1].Key
		dl.SHA256 = b.Files[index-1].Digest.SHA256
	}
	return dl, nil
}
