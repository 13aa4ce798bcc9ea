package storage

import (
	"context"
	"fmt"
	"slices"

	"entgo.io/ent/dialect"

	"github.com/platen-print/platen/ent"
	"github.com/platen-print/platen/ent/itemdesign"
	"github.com/platen-print/platen/ent/orderitem"
	"github.com/platen-print/platen/internal/orders"
)

// An order item's design document lives in item_designs under the item's
// id (see ent/schema/itemdesign.go): written with the item and when an
// update replaces it, read only where a design is wanted (a render, a
// preview, an order read back whole), never by a print's changes of state.

// writeItemDesigns stores the designs of items, which have their ids.
func writeItemDesigns(ctx context.Context, tx *Tx, items []*orders.Item) error {
	builders := make([]*ent.ItemDesignCreate, len(items))
	for i, it := range items {
		builders[i] = tx.ItemDesign.Create().SetID(it.ID).SetTemplateConfig(it.TemplateConfig)
	}
	return tx.ItemDesign.CreateBulk(builders...).Exec(ctx)
}

// replaceItemDesign stores the item's design in place of its last.
func replaceItemDesign(ctx context.Context, tx *Tx, it *orders.Item) error {
	return tx.ItemDesign.UpdateOneID(it.ID).SetTemplateConfig(it.TemplateConfig).Exec(ctx)
}

// dropItemDesigns deletes the designs of the items ids.
func dropItemDesigns(ctx context.Context, tx *Tx, ids []int) error {
	for chunk := range slices.Chunk(ids, itemChunk) {
		if _, err := tx.ItemDesign.Delete().Where(itemdesign.IDIn(chunk...)).Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

// itemDesigns reads the designs of the items ids, by id.
func itemDesigns(ctx context.Context, designs *ent.ItemDesignClient, ids []int) (map[int]string, error) {
	out := make(map[int]string, len(ids))
	for chunk := range slices.Chunk(ids, itemChunk) {
		rows, err := designs.Query().Where(itemdesign.IDIn(chunk...)).All(ctx)
		if err != nil {
			return nil, err
		}
		for _, row := range rows {
			out[row.ID] = row.TemplateConfig
		}
	}
	return out, nil
}

// itemDesign reads the design of the item id.
func itemDesign(ctx context.Context, designs *ent.ItemDesignClient, id int) (string, error) {
	row, err := designs.Get(ctx, id)
	if err != nil {
		return "", err
	}
	return row.TemplateConfig, nil
}

// orderDesigns reads the designs of the items rows hold.
func orderDesigns(ctx context.Context, designs *ent.ItemDesignClient, rows ...*ent.Order) (map[int]string, error) {
	var ids []int
	for _, row := range rows {
		for _, it := range row.Edges.Items {
			ids = append(ids, it.ID)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	return itemDesigns(ctx, designs, ids)
}

// moveItemDesigns moves the designs a database made before item_designs
// keeps in order_items' template_config column into item_designs, fills
// in the design_bytes of items written before that column, and drops the
// column, in one transaction: an item is never without its design. It
// returns 1 when it moved them, 0 when there was no column to move.
//
// Two processes starting at once may both find the column; on PostgreSQL
// the table's lock holds the second until the first has committed, and it
// then finds the column gone. SQLite takes one writer at a time.
func (db *DB) moveItemDesigns(ctx context.Context) (int, error) {
	lookup := `SELECT count(*) FROM pragma_table_info('order_items') WHERE name = 'template_config'`
	size := "length(CAST(template_config AS BLOB))"
	if db.dialect == dialect.Postgres {
		lookup = `SELECT count(*) FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = 'order_items' AND column_name = 'template_config'`
		size = "octet_length(template_config)"
	}
	// Looked for first outside the transaction: the lock below is the
	// order items' table's, which every start would otherwise take.
	var found int
	if err := db.writePool.QueryRowContext(ctx, lookup).Scan(&found); err != nil {
		return 0, fmt.Errorf("apply schema: look for order_items.template_config: %w", err)
	}
	if found == 0 {
		return 0, nil
	}
	moved := 0
	err := db.inTx(ctx, func(ctx context.Context, tx *Tx) error {
		if db.dialect == dialect.Postgres {
			if _, err := tx.SQL.ExecContext(ctx, "LOCK TABLE "+orderitem.Table+" IN ACCESS EXCLUSIVE MODE"); err != nil {
				return err
			}
		}
		var n int
		if err := tx.SQL.QueryRowContext(ctx, lookup).Scan(&n); err != nil || n == 0 {
			return err
		}
		for _, statement := range []string{
			`INSERT INTO item_designs (id, template_config) SELECT id, template_config FROM order_items
				WHERE id NOT IN (SELECT id FROM item_designs)`,
			`UPDATE order_items SET design_bytes = ` + size + ` WHERE design_bytes IS NULL`,
			`ALTER TABLE order_items DROP COLUMN template_config`,
		} {
			if _, err := tx.SQL.ExecContext(ctx, statement); err != nil {
				return err
			}
		}
		moved = 1
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("apply schema: move the designs to item_designs: %w", err)
	}
	return moved, nil
}
