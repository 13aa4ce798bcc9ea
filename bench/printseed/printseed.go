// Package printseed fills a Platen database with many prints of both
// families, as years of a print shop's orders would, for the operator's
// prints list benchmark and its test. It writes through Ent in large
// transactions, not through the API: a hundred thousand orders posted one
// by one would take the benchmark's whole budget, and what is measured is
// the list, not the create.
package printseed

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"time"

	entsql "entgo.io/ent/dialect/sql"

	"github.com/platen-print/platen/ent"
	"github.com/platen-print/platen/ent/schema"
)

// Spec is what to seed.
type Spec struct {
	// Prints is how many prints in all: 70% Family A items, 30% Family B
	// prints.
	Prints int
	// Teams is how many teams share them, the first the largest (a team's
	// share falls as 1/rank); each has StoresPerTeam stores.
	Teams, StoresPerTeam int
	// Days is the span of their created_at, ending at End.
	Days int
	End  time.Time
	// Seed makes the data the same from run to run.
	Seed uint64
}

// Print is a seeded print as the operator's list shows it, with every
// reference a search may find it by.
type Print struct {
	ID        string
	Family    string // "A" or "B"
	TeamID    int
	StoreID   string
	Status    string
	CreatedAt time.Time
	// Its references: Family A's order uid, ecommerce order id and number
	// and item id; Family B's reference_number, external_id and line
	// external_id; either's design version.
	OrderUID, EcommerceOrderID, EcommerceOrderNumber, EcommerceOrderItemID string
	ReferenceNumber, ExternalID, LineExternalID                            string
	DesignVersionID                                                        string
	// Family A's customer: an e-mail of the order's own, and a name and a
	// surname drawn from a few, as a shop's customers share them.
	CustomerEmail, CustomerName, CustomerSurname string
}

// Customers' names and surnames, as few as a shop's are common: a
// surname names about one order in 40.
var (
	names    = []string{"Ada", "Grace", "Alan", "Zoë", "Linus", "Margaret", "Dennis", "Barbara", "Ken", "Frances"}
	surnames = []string{"Lovelace", "Hopper", "Turing", "Hamilton", "Ritchie", "Liskov", "Thompson", "Allen", "Knuth", "Wirth",
		"Kay", "Backus", "Naur", "Dijkstra", "Hoare", "Milner", "Church", "Gödel", "Shannon", "Babbage",
		"Perlis", "Minsky", "McCarthy", "Sutherland", "Engelbart", "Cerf", "Kahn", "Postel", "Berners-Lee", "Torvalds",
		"Pike", "Kernighan", "Stroustrup", "Gosling", "Rossum", "Wall", "Matsumoto", "Eich", "Hejlsberg", "Lattner"}
)

// Team is a seeded team with its stores.
type Team struct {
	ID     int
	Name   string
	Stores []string
}

// Seeded is what Seed wrote, newest print first.
type Seeded struct {
	Teams  []Team
	Prints []Print
}

// Each family's statuses, with their share of its prints in percent.
var (
	statusesA = []weighted{{"ready", 90}, {"processingfailed", 2}, {"processing", 3}, {"received", 5}}
	statusesB = []weighted{{"ready", 92}, {"failed", 2}, {"processing", 5}, {"cancelled", 1}}
)

type weighted struct {
	value   string
	percent int
}

// batchRows bounds the rows of one INSERT: SQLite allows 32,766
// parameters in a statement, and an item has about twenty columns.
const batchRows = 500

// Seed writes spec's teams, stores, orders and prints into the migrated
// database on pool, whose dialect is "sqlite3" or "postgres", and returns
// them. Team names start with prefix, so that a database may hold several
// seeds.
func Seed(ctx context.Context, pool *sql.DB, dialect, prefix string, spec Spec) (*Seeded, error) {
	client := ent.NewClient(ent.Driver(entsql.OpenDB(dialect, pool)))
	g := &generator{spec: spec, rand: rand.New(rand.NewPCG(spec.Seed, spec.Seed^0x9e3779b97f4a7c15)), prefix: prefix}
	out := &Seeded{}
	var err error
	if out.Teams, err = g.teams(ctx, client); err != nil {
		return nil, err
	}
	countA := spec.Prints * 7 / 10
	a, err := g.familyA(ctx, client, out.Teams, countA)
	if err != nil {
		return nil, err
	}
	b, err := g.familyB(ctx, client, out.Teams, spec.Prints-countA)
	if err != nil {
		return nil, err
	}
	out.Prints = append(a, b...)
	SortNewestFirst(out.Prints)
	return out, analyze(ctx, pool, dialect)
}

// analyze gathers PostgreSQL's statistics of the seeded tables, as its
// autovacuum does within a minute of such a load, so that what is measured
// is not a planner blind for that minute. On SQLite, Platen gathers them
// itself (storage.DB.Optimize, when it starts and hourly).
func analyze(ctx context.Context, pool *sql.DB, dialect string) error {
	if dialect != "postgres" {
		return nil
	}
	_, err := pool.ExecContext(ctx, "ANALYZE orders, order_items, shop_orders, shop_prints")
	return err
}

// generator draws the seed's values from one random source.
type generator struct {
	spec   Spec
	rand   *rand.Rand
	prefix string
	serial int
}

func (g *generator) teams(ctx context.Context, client *ent.Client) ([]Team, error) {
	teams := make([]Team, g.spec.Teams)
	for i := range teams {
		t, err := client.Team.Create().SetName(fmt.Sprintf("%s-team-%02d", g.prefix, i+1)).Save(ctx)
		if err != nil {
			return nil, fmt.Errorf("seed team: %w", err)
		}
		teams[i] = Team{ID: t.ID, Name: t.Name}
		for s := range g.spec.StoresPerTeam {
			id := fmt.Sprintf("%s-t%02d-store-%d", g.prefix, i+1, s+1)
			if err := client.Store.Create().SetID(id).SetTeamID(t.ID).SetWebhookSecret("whsec_seed").Exec(ctx); err != nil {
				return nil, fmt.Errorf("seed store: %w", err)
			}
			teams[i].Stores = append(teams[i].Stores, id)
		}
	}
	return teams, nil
}

// team picks a team, the first the most often: rank r has weight 1/r.
func (g *generator) team(teams []Team) *Team {
	total := 0.0
	for r := range teams {
		total += 1 / float64(r+1)
	}
	x := g.rand.Float64() * total
	for r := range teams {
		if x -= 1 / float64(r+1); x < 0 {
			return &teams[r]
		}
	}
	return &teams[len(teams)-1]
}

// createdAt is a time in the seed's span, to the microsecond as Platen
// keeps it.
func (g *generator) createdAt() time.Time {
	span := time.Duration(g.spec.Days) * 24 * time.Hour
	return g.spec.End.Add(-time.Duration(g.rand.Int64N(int64(span)))).UTC().Truncate(time.Microsecond)
}

func (g *generator) status(of []weighted) string {
	x := g.rand.IntN(100)
	for _, w := range of {
		if x -= w.percent; x < 0 {
			return w.value
		}
	}
	return of[0].value
}

// uuid is a random version 4 UUID, as Platen's uids are, from the seed.
func (g *generator) uuid() string {
	hi, lo := g.rand.Uint64(), g.rand.Uint64()
	hi = hi&^0xf000 | 0x4000
	lo = lo&^(0xc<<60) | 0x8<<60
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", hi>>32, hi>>16&0xffff, hi&0xffff, lo>>48, lo&0xffffffffffff)
}

// design is the one small design every seeded item carries: the list never
// reads it.
const design = `{"width":20,"height":20,"layers":[{"type":"rect","x":0,"y":0,"width":20,"height":20,"fill":"#204080"}]}`

// familyA seeds count order items over orders of 1 to 6 items each.
func (g *generator) familyA(ctx context.Context, client *ent.Client, teams []Team, count int) ([]Print, error) {
	var prints []Print
	return prints, inBatches(ctx, client, func(tx *ent.Tx) (bool, error) {
		var orders []*ent.OrderCreate
		var items [][]Print
		rows := 0
		for rows < batchRows && len(prints)+rows < count {
			team := g.team(teams)
			g.serial++
			o := Print{
				Family: "A", TeamID: team.ID, StoreID: team.Stores[g.rand.IntN(len(team.Stores))], CreatedAt: g.createdAt(),
				OrderUID: g.uuid(), EcommerceOrderID: fmt.Sprintf("%d", 5_000_000+g.serial), EcommerceOrderNumber: fmt.Sprintf("#%d", 10_000+g.serial),
				CustomerEmail: fmt.Sprintf("Customer.%d@Example.com", g.serial),
				CustomerName:  names[g.rand.IntN(len(names))], CustomerSurname: surnames[g.rand.IntN(len(surnames))],
			}
			customer, err := json.Marshal(map[string]string{"email": o.CustomerEmail, "name": o.CustomerName, "surname": o.CustomerSurname})
			if err != nil {
				return false, err
			}
			orders = append(orders, tx.Order.Create().SetUID(o.OrderUID).SetTeamID(o.TeamID).SetStoreID(o.StoreID).
				SetEcommerceOrderID(o.EcommerceOrderID).SetEcommerceOrderNumber(o.EcommerceOrderNumber).SetCustomer(customer).
				SetCreatePrintFiles(true).SetPrintFilesRequested(true).SetCreatedAt(o.CreatedAt).SetUpdatedAt(o.CreatedAt))
			n := min(1+g.rand.IntN(6), count-len(prints)-rows)
			list := make([]Print, n)
			for i := range list {
				p := o
				p.ID, p.Status = g.uuid(), g.status(statusesA)
				p.EcommerceOrderItemID = fmt.Sprintf("%s-%d", o.EcommerceOrderID, i+1)
				if g.rand.IntN(4) == 0 { // a quarter from the design library
					p.DesignVersionID = fmt.Sprintf("dv_%d", g.rand.IntN(500))
				}
				list[i] = p
			}
			items = append(items, list)
			rows += n
		}
		saved, err := tx.Order.CreateBulk(orders...).Save(ctx)
		if err != nil {
			return false, fmt.Errorf("seed orders: %w", err)
		}
		var creates []*ent.OrderItemCreate
		for i, o := range saved {
			for pos, p := range items[i] {
				creates = append(creates, itemCreate(tx, o.ID, pos, p))
				prints = append(prints, p)
			}
		}
		savedItems, err := tx.OrderItem.CreateBulk(creates...).Save(ctx)
		if err != nil {
			return false, fmt.Errorf("seed order items: %w", err)
		}
		designs := make([]*ent.ItemDesignCreate, len(savedItems))
		for i, row := range savedItems {
			designs[i] = tx.ItemDesign.Create().SetID(row.ID).SetTemplateConfig(design)
		}
		if err := tx.ItemDesign.CreateBulk(designs...).Exec(ctx); err != nil {
			return false, fmt.Errorf("seed order items' designs: %w", err)
		}
		return len(prints) < count, nil
	})
}

func itemCreate(tx *ent.Tx, orderID, position int, p Print) *ent.OrderItemCreate {
	c := tx.OrderItem.Create().SetUID(p.ID).SetOrderID(orderID).SetTeamID(p.TeamID).SetStoreID(p.StoreID).
		SetPosition(position).SetEcommerceOrderItemID(p.EcommerceOrderItemID).SetEcommerceVariantID("variant-1").
		SetQuantity(1).SetThumbnails([]string{}).SetPrintStatus(p.Status).
		SetCreatedAt(p.CreatedAt).SetUpdatedAt(p.CreatedAt)
	if p.DesignVersionID != "" {
		c.SetDesignVersionID(p.DesignVersionID)
	}
	switch p.Status {
	case "ready":
		c.SetPrintFileKey("seed/" + p.ID + ".pdf").SetPrintFileSize(48_213).SetPrintFileSha256(fakeSHA256)
	case "processingfailed":
		c.SetPrintError(`layers[0]: image "https://cdn.example.com/p.png": 404 Not Found`)
	}
	return c
}

// fakeSHA256 is every seeded file's digest: the list shows it, never checks it.
const fakeSHA256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

// familyB seeds count shop prints over orders of 1 to 5 lines each.
func (g *generator) familyB(ctx context.Context, client *ent.Client, teams []Team, count int) ([]Print, error) {
	var prints []Print
	return prints, inBatches(ctx, client, func(tx *ent.Tx) (bool, error) {
		var orders []*ent.ShopOrderCreate
		var lines [][]Print
		rows := 0
		for rows < batchRows && len(prints)+rows < count {
			team := g.team(teams)
			g.serial++
			o := Print{
				Family: "B", TeamID: team.ID, StoreID: team.Stores[g.rand.IntN(len(team.Stores))], CreatedAt: g.createdAt(),
				ReferenceNumber: fmt.Sprintf("R%07d", g.serial), ExternalID: fmt.Sprintf("SO-%d", 700_000+g.serial),
			}
			orders = append(orders, tx.ShopOrder.Create().SetTeamID(o.TeamID).SetStoreID(o.StoreID).SetExternalID(o.ExternalID).
				SetReferenceNumber(o.ReferenceNumber).SetLinesHash("seed").SetCreatedAt(o.CreatedAt).SetUpdatedAt(o.CreatedAt))
			n := min(1+g.rand.IntN(5), count-len(prints)-rows)
			list := make([]Print, n)
			for i := range list {
				p := o
				p.ID, p.Status = g.uuid(), g.status(statusesB)
				p.LineExternalID = fmt.Sprintf("%s-L%d", o.ExternalID, i+1)
				p.DesignVersionID = fmt.Sprintf("dv_%d", g.rand.IntN(500))
				list[i] = p
			}
			lines = append(lines, list)
			rows += n
		}
		saved, err := tx.ShopOrder.CreateBulk(orders...).Save(ctx)
		if err != nil {
			return false, fmt.Errorf("seed shop orders: %w", err)
		}
		var creates []*ent.ShopPrintCreate
		for i, o := range saved {
			for pos, p := range lines[i] {
				creates = append(creates, shopPrintCreate(tx, o.ID, pos, p))
				prints = append(prints, p)
			}
		}
		if err := tx.ShopPrint.CreateBulk(creates...).Exec(ctx); err != nil {
			return false, fmt.Errorf("seed shop prints: %w", err)
		}
		return len(prints) < count, nil
	})
}

func shopPrintCreate(tx *ent.Tx, orderID, position int, p Print) *ent.ShopPrintCreate {
	c := tx.ShopPrint.Create().SetUID(p.ID).SetShopOrderID(orderID).SetTeamID(p.TeamID).SetStoreID(p.StoreID).
		SetPosition(position).SetLineExternalID(p.LineExternalID).SetDesignVersionID(p.DesignVersionID).
		SetQuantity(1).SetStatus(p.Status).SetCreatedAt(p.CreatedAt).SetUpdatedAt(p.CreatedAt)
	switch p.Status {
	case "ready":
		c.SetFileKeys([]string{"seed/" + p.ID + "-1.pdf", "seed/" + p.ID + "-2.pdf"}).SetFileCount(2).
			SetFileDigests([]schema.FileDigest{{Size: 48_213, SHA256: fakeSHA256}, {Size: 47_002, SHA256: fakeSHA256}})
	case "failed":
		c.SetError("design version dv_1: layers[1]: font \"Comic\" is not available")
	}
	return c
}

// inBatches runs fill in transactions of about batchRows rows each
// (twenty at a time in one transaction), until it says there is no more.
func inBatches(ctx context.Context, client *ent.Client, fill func(*ent.Tx) (more bool, err error)) error {
	for more := true; more; {
		tx, err := client.Tx(ctx)
		if err != nil {
			return err
		}
		for i := 0; more && i < 20; i++ {
			if more, err = fill(tx); err != nil {
				return fmt.Errorf("%w (rollback: %v)", err, tx.Rollback())
			}
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	return nil
}
