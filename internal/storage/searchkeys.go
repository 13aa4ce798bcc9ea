package storage

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"

	"github.com/platen-print/platen/ent"
	"github.com/platen-print/platen/ent/orderitem"
	"github.com/platen-print/platen/ent/searchkey"
	"github.com/platen-print/platen/ent/shopprint"
	"github.com/platen-print/platen/internal/orders"
	"github.com/platen-print/platen/internal/prints"
	"github.com/platen-print/platen/internal/shop"
)

// maxKeyBytes is how much of a reference a key keeps: a search for a
// longer text finds the prints whose references begin with its first
// maxKeyBytes bytes.
const maxKeyBytes = 120

// prefixFrom is the length (in characters) from which a search text
// finds references that begin with it; a shorter one finds references
// equal to it, since a prefix of one or two characters would match most
// prints and say nothing.
const prefixFrom = 3

// fold is the form a key and a search text are compared in: accents
// dropped, lower case, runs of spaces as one, at most maxKeyBytes.
func fold(text string) string {
	plain := text
	if !ascii(text) {
		// A transformer holds state: one per call.
		var err error
		if plain, _, err = transform.String(transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC), text); err != nil {
			plain = text
		}
	}
	key := strings.ToLower(strings.Join(strings.Fields(plain), " "))
	if len(key) <= maxKeyBytes {
		return key
	}
	cut := maxKeyBytes
	for cut > 0 && !utf8.RuneStart(key[cut]) {
		cut--
	}
	return key[:cut]
}

// ascii reports whether text is ASCII alone: it has no accent to drop.
func ascii(text string) bool {
	for i := range len(text) {
		if text[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// keySet gathers an order's keys, folded, each once, for one INSERT.
type keySet struct {
	family  string
	orderID int
	seen    map[keyOf]bool
	rows    [][]any
}

// keyOf is a key of an item (0: of the order).
type keyOf struct {
	item int
	key  string
}

func newKeySet(family string, orderID int) *keySet {
	return &keySet{family: family, orderID: orderID, seen: map[keyOf]bool{}}
}

// add keeps texts as keys of the order (itemID 0) or of one of its items.
// The uids are not keys: a search finds them whole (see matching).
func (k *keySet) add(itemID int, texts ...*string) {
	for _, text := range texts {
		if text == nil {
			continue
		}
		key := fold(*text)
		if key == "" || k.seen[keyOf{itemID, key}] {
			continue
		}
		k.seen[keyOf{itemID, key}] = true
		var item any
		if itemID != 0 {
			item = itemID
		}
		k.rows = append(k.rows, []any{k.family, k.orderID, item, key})
	}
}

// save writes the keys in one statement, without reading anything back
// (Ent's bulk create returns each row's id): an order's insert is the
// hottest write.
func (k *keySet) save(ctx context.Context, tx *Tx) error {
	if len(k.rows) == 0 {
		return nil
	}
	insert := sql.Dialect(tx.dialect).Insert(searchkey.Table).
		Columns(searchkey.FieldFamily, searchkey.FieldOrderID, searchkey.FieldItemID, searchkey.FieldKey)
	for _, row := range k.rows {
		insert.Values(row...)
	}
	query, args := insert.Query()
	_, err := tx.ExecContext(ctx, query, args...)
	return err
}

// replaceOrderKeys replaces a Family A order's keys with those of o as
// it now is.
func replaceOrderKeys(ctx context.Context, tx *Tx, o *orders.Order) error {
	if err := dropKeys(ctx, tx, prints.FamilyA, o.ID); err != nil {
		return err
	}
	return writeOrderKeys(ctx, tx, o)
}

// writeOrderKeys writes a new Family A order's keys: its references, its
// customer's e-mail and names, and each item's references.
func writeOrderKeys(ctx context.Context, tx *Tx, o *orders.Order) error {
	keys := newKeySet(prints.FamilyA, o.ID)
	keys.add(0, &o.EcommerceOrderID, o.EcommerceOrderNumber)
	if c := o.Customer; c != nil {
		keys.add(0, c.Email, c.EcommerceCustomerID, c.Name, c.Surname)
		if c.Name != nil && c.Surname != nil {
			full := *c.Name + " " + *c.Surname
			keys.add(0, &full)
		}
	}
	for _, it := range o.Items {
		keys.add(it.ID, &it.EcommerceOrderItemID, it.DesignVersionID)
	}
	return keys.save(ctx, tx)
}

// writeShopOrderKeys writes a Family B order's keys: its reference number
// and external id, and each print's id, line and design version.
func writeShopOrderKeys(ctx context.Context, tx *Tx, o *shop.Order, printIDs []int) error {
	keys := newKeySet(prints.FamilyB, o.ID)
	keys.add(0, &o.ReferenceNumber, &o.ExternalID)
	for i, l := range o.Lines {
		keys.add(printIDs[i], &l.ExternalID, &l.DesignVersionID)
	}
	return keys.save(ctx, tx)
}

// dropKeys removes an order's keys.
func dropKeys(ctx context.Context, tx *Tx, family string, orderID int) error {
	_, err := tx.SearchKey.Delete().Where(searchkey.Family(family), searchkey.OrderID(orderID)).Exec(ctx)
	return err
}

// keyMatches is the predicate on search_keys of the keys that text finds:
// those that begin with it, or, for a text shorter than prefixFrom, equal
// to it.
func keyMatches(dialectName string, t *sql.SelectTable, text string) *sql.Predicate {
	key := fold(text)
	column := t.C(searchkey.FieldKey)
	if utf8.RuneCountInString(key) < prefixFrom {
		return sql.EQ(column, key)
	}
	// Every text that begins with key sorts, byte by byte, from key to
	// key followed by the last code point.
	upper := key + string(utf8.MaxRune)
	if dialectName != dialect.Postgres {
		return sql.And(sql.GTE(column, key), sql.LT(column, upper))
	}
	return sql.P(func(b *sql.Builder) {
		b.WriteString(column).WriteString(" ~>=~ ").Arg(key).
			WriteString(" AND ").WriteString(column).WriteString(" ~<~ ").Arg(upper)
	})
}

// indexBatch is how many orders one transaction of indexSearch indexes.
const indexBatch = 500

// indexSearch writes the keys of the orders of both families that have
// none: those stored before the keys were kept, or written by a tool
// (a benchmark's seed) straight into the tables. It returns how many
// orders it indexed; on a database kept up to date, none.
//
// On PostgreSQL it then gathers the keys' statistics, as autovacuum
// would within a minute or so: until then its planner, blind to a table
// grown from nothing, walked every key for each search (17 ms where
// 1 ms does).
func (db *DB) indexSearch(ctx context.Context) (int, error) {
	indexed := 0
	for {
		n, err := db.indexSome(ctx)
		if indexed += n; err != nil {
			return indexed, err
		}
		if n == 0 {
			break
		}
	}
	if indexed == 0 || db.dialect != dialect.Postgres {
		return indexed, nil
	}
	_, err := db.writePool.ExecContext(ctx, "ANALYZE "+searchkey.Table)
	return indexed, err
}

// indexSome indexes up to indexBatch orders without keys, of each family,
// in one transaction.
func (db *DB) indexSome(ctx context.Context) (int, error) {
	n := 0
	err := db.inTx(ctx, func(ctx context.Context, tx *Tx) error {
		rows, err := tx.Order.Query().Where(unindexed(prints.FamilyA)).Order(ent.Asc("id")).Limit(indexBatch).
			WithItems(func(q *ent.OrderItemQuery) { q.Order(ent.Asc(orderitem.FieldPosition)) }).All(ctx)
		if err != nil {
			return err
		}
		for _, row := range rows {
			o, err := orderFromRow(row, nil)
			if err != nil {
				return err
			}
			if err := writeOrderKeys(ctx, tx, o); err != nil {
				return err
			}
		}
		shopRows, err := tx.ShopOrder.Query().Where(unindexed(prints.FamilyB)).Order(ent.Asc("id")).Limit(indexBatch).
			WithPrints(func(q *ent.ShopPrintQuery) { q.Order(ent.Asc(shopprint.FieldPosition)) }).All(ctx)
		if err != nil {
			return err
		}
		for _, row := range shopRows {
			ids := make([]int, len(row.Edges.Prints))
			for i, p := range row.Edges.Prints {
				ids[i] = p.ID
			}
			if err := writeShopOrderKeys(ctx, tx, shopOrderFromRow(row), ids); err != nil {
				return err
			}
		}
		n = len(rows) + len(shopRows)
		return nil
	})
	return n, err
}

// unindexed is the predicate on a family's orders table of the orders
// without a key.
func unindexed(family string) func(*sql.Selector) {
	return func(s *sql.Selector) {
		b := sql.Dialect(s.Dialect())
		k := b.Table(searchkey.Table)
		s.Where(sql.NotExists(b.Select(k.C("id")).From(k).
			Where(sql.And(sql.EQ(k.C(searchkey.FieldFamily), family), sql.ColumnsEQ(k.C(searchkey.FieldOrderID), s.C("id"))))))
	}
}
