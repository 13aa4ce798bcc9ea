package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/platen-print/platen/bench/loadgen"
	"github.com/platen-print/platen/bench/printseed"
	"github.com/platen-print/platen/internal/storage"
)

// PrintsOptions configures the prints suite (RunPrints): the operator's
// prints list, GET /api/v1/operator/prints, over a database seeded with
// Prints prints, each query Runs times.
type PrintsOptions struct {
	Platen      string
	PostgresURL string
	Prints      int
	Runs        int
}

func (o PrintsOptions) validate() error {
	switch {
	case o.Prints < 1000:
		return errors.New("-prints-n must be at least 1000")
	case o.Runs < 1:
		return errors.New("-prints-runs must be positive")
	}
	return nil
}

func printsFlags(fs *flag.FlagSet) func(platen, postgresURL string) PrintsOptions {
	var o PrintsOptions
	fs.IntVar(&o.Prints, "prints-n", 100_000, "prints: how many prints to seed (70% Family A, 30% Family B, 20 teams)")
	fs.IntVar(&o.Runs, "prints-runs", 50, "prints: timed requests of each query, after 3 unmeasured")
	return func(platen, postgresURL string) PrintsOptions {
		o.Platen, o.PostgresURL = platen, postgresURL
		return o
	}
}

// printsSpec is the seed of the suite: twenty teams of three stores, the
// first team the largest, over the last 90 days.
func printsSpec(n int) printseed.Spec {
	return printseed.Spec{Prints: n, Teams: 20, StoresPerTeam: 3, Days: 90, End: time.Now(), Seed: 13}
}

// teamOperatorRank is the rank of the team whose operator the suite signs
// in as: a team of middling size (about 5% of the prints).
const teamOperatorRank = 5

// RunPrints runs the prints suite on SQLite (and PostgreSQL), writing a
// markdown table to out and progress to logw. Every answer is checked
// against the seed: a query that answers the wrong prints fails the run.
func RunPrints(ctx context.Context, o PrintsOptions, out, logw io.Writer) error {
	if err := o.validate(); err != nil {
		return err
	}
	goVersion, err := builtWith(o.Platen)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\nplaten-bench prints: %s %s/%s, NumCPU %d; platen built with %s\n\n",
		runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), goVersion)
	fmt.Fprintf(out, "GET /api/v1/operator/prints (a page of 50), then the panel's Prints page (GET /operator/prints, the whole HTML page) for the same query, "+
		"over %d prints of 20 teams, %d times each after 3 unmeasured, one request at a time; every API answer compared with the seed, every page checked to link each print of it.\n\n", o.Prints, o.Runs)
	fmt.Fprintln(out, "| database | query | as | on page | API p50 ms | API p95 ms | API max ms | panel p50 ms | panel p95 ms | panel max ms |")
	fmt.Fprintln(out, "|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
	return onEachDatabase(ctx, o.PostgresURL, "prints", logw, func(db database) error {
		return printsOn(ctx, o, db, out, logw)
	})
}

// onEachDatabase runs a suite's run on SQLite, then on PostgreSQL when
// postgresURL is set; a database that fails is reported and the next runs.
func onEachDatabase(ctx context.Context, postgresURL, suite string, logw io.Writer, run func(database) error) error {
	databases := []database{sqliteDatabase{}}
	if postgresURL != "" {
		databases = append(databases, postgresDatabase{url: postgresURL})
	}
	var failed []error
	for _, db := range databases {
		if ctx.Err() != nil {
			break
		}
		if err := run(db); err != nil {
			fmt.Fprintf(logw, "platen-bench: %s: %s: %v\n", suite, db.name(), err)
			failed = append(failed, fmt.Errorf("%s: %w", db.name(), err))
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return errors.Join(failed...)
}

// printsOn seeds db before platen serve starts on it, then times every
// query of listCases.
func printsOn(ctx context.Context, o PrintsOptions, db database, out, logw io.Writer) (err error) {
	var lister *printLister
	prepare := func(e *env, _ []string) error {
		lister, err = seedPrints(ctx, o, e, db, logw)
		return err
	}
	e, err := startEnvWith(ctx, o.Platen, db, logw, envOptions{prepare: prepare})
	if err != nil {
		return err
	}
	defer stopKeepingErr(e, &err)
	lister.baseURL = e.baseURL
	fmt.Fprintf(logw, "platen-bench: prints: %s: %d queries, %d runs each\n", db.name(), len(listCases), o.Runs)
	return lister.each(ctx, 3, o.Runs, func(r listResult) {
		fmt.Fprintf(out, "| %s | %s | %s | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |\n", db.name(), r.name, r.as, r.onPage,
			millis(loadgen.Percentile(r.took, 50)), millis(loadgen.Percentile(r.took, 95)), millis(r.took[len(r.took)-1]),
			millis(loadgen.Percentile(r.panel, 50)), millis(loadgen.Percentile(r.panel, 95)), millis(r.panel[len(r.panel)-1]))
	})
}

// seedPrints seeds e's database, which platen admin bootstrap has just
// migrated, and creates the staff and team operators.
func seedPrints(ctx context.Context, o PrintsOptions, e *env, db database, logw io.Writer) (*printLister, error) {
	start := time.Now()
	store, err := storage.Open(e.databaseURL, e.dataDir)
	if err != nil {
		return nil, err
	}
	seeded, err := printseed.Seed(ctx, store.JobPool(), store.Dialect(), "seed", printsSpec(o.Prints))
	if err == nil { // the seed's search keys, as a start would write them
		err = store.Migrate(ctx)
	}
	if err := errors.Join(err, store.Close()); err != nil {
		return nil, err
	}
	fmt.Fprintf(logw, "platen-bench: prints: %s: seeded %d prints in %s\n", db.name(), len(seeded.Prints), time.Since(start).Round(time.Millisecond))
	staff, err := e.createOperator(ctx, o.Platen, "--email", operatorEmail, "--staff")
	if err != nil {
		return nil, err
	}
	team := seeded.Teams[teamOperatorRank-1]
	member, err := e.createOperator(ctx, o.Platen, "--email", "team-operator@example.com", "--team", team.Name)
	if err != nil {
		return nil, err
	}
	return newPrintLister(seeded, operatorLogin{operatorEmail, staff.Password, staff.Token},
		operatorLogin{member.Email, member.Password, member.Token}, team.ID), nil
}

// operatorLogin is how an operator signs in: a password for the panel, a
// token for the API.
type operatorLogin struct{ email, password, token string }

// printLister asks a server for pages of prints, as staff or as the
// operator of one team, through the API and the panel's Prints page, and
// checks each answer against the seed.
type printLister struct {
	baseURL       string
	client        *http.Client
	seed          *printseed.Seeded
	staff, member operatorLogin
	team          int
	rand          *rand.Rand
	panels        map[string]*http.Client // by e-mail, once signed in
	byFamily      map[string][]*printseed.Print
}

func newPrintLister(seed *printseed.Seeded, staff, member operatorLogin, team int) *printLister {
	l := &printLister{client: &http.Client{}, seed: seed, staff: staff, member: member, team: team,
		rand: rand.New(rand.NewPCG(1, 2)), panels: map[string]*http.Client{}, byFamily: map[string][]*printseed.Print{}}
	for i := range seed.Prints {
		p := &seed.Prints[i]
		l.byFamily[p.Family] = append(l.byFamily[p.Family], p)
	}
	return l
}

// panel is a client signed in to the panel as who, with its session
// cookie.
func (l *printLister) panel(ctx context.Context, who operatorLogin) (*http.Client, error) {
	if c := l.panels[who.email]; c != nil {
		return c, nil
	}
	jar, err := cookiejar.New(nil)
	if err != nil {
		return nil, err
	}
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	form := url.Values{"email": {who.email}, "password": {who.password}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.baseURL+"/operator/login", strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		return nil, fmt.Errorf("signing in to the panel as %s: %s", who.email, resp.Status)
	}
	l.panels[who.email] = c
	return c, nil
}

// listResult is what one query measured, its times sorted: through the
// API, and as the panel's Prints page.
type listResult struct {
	name, as    string
	onPage      int
	took, panel []time.Duration
}

// each runs every case warmup times unmeasured and runs times measured,
// handing each case's result to emit as it completes.
func (l *printLister) each(ctx context.Context, warmup, runs int, emit func(listResult)) error {
	for _, c := range listCases {
		r := listResult{name: c.name, as: "staff"}
		if c.member {
			r.as = "team operator"
		}
		for i := range warmup + runs {
			took, page, n, err := l.run(ctx, c)
			if err != nil {
				return fmt.Errorf("%s, %s: %w", r.as, c.name, err)
			}
			if i >= warmup {
				r.took, r.panel = append(r.took, took), append(r.panel, page)
			}
			r.onPage = n
		}
		slices.Sort(r.took)
		slices.Sort(r.panel)
		emit(r)
	}
	return nil
}

// run asks for the case's page with new values drawn from the seed, from
// the API and then from the panel, checks both answers and says how long
// each took and how many prints the page held.
func (l *printLister) run(ctx context.Context, c listCase) (api, panel time.Duration, n int, err error) {
	f := c.filter(l)
	values := f.Values()
	who := l.staff
	if c.member {
		// The server applies the operator's team; the request names none.
		values.Del("team_id")
		f.TeamID, who = l.team, l.member
	}
	var page listPage
	if c.page > 0 {
		// The first page's token, not timed.
		if _, err := l.get(ctx, who.token, values.Encode(), &page); err != nil {
			return 0, 0, 0, err
		}
		if page.NextPageToken == "" {
			return 0, 0, 0, fmt.Errorf("?%s: no next_page_token on the first page", values.Encode())
		}
		values.Set("page_token", page.NextPageToken)
	}
	if api, err = l.get(ctx, who.token, values.Encode(), &page); err != nil {
		return 0, 0, 0, err
	}
	want := printseed.Page(l.seed.Prints, f, c.page, 50)
	got := make([]string, len(page.Prints))
	for i, p := range page.Prints {
		got[i] = p.ID
	}
	if !slices.Equal(got, want) {
		return 0, 0, 0, fmt.Errorf("?%s: answered %d prints %s, the seed says %d: %s", values.Encode(),
			len(got), firstIDs(got), len(want), firstIDs(want))
	}
	panel, err = l.panelPage(ctx, who, panelQuery(values), want)
	return api, panel, len(got), err
}

// panelQuery is the Prints page's query for the API's: the same names but
// for the creation range, which the page takes as days (the cases' weeks
// start and end at midnight UTC).
func panelQuery(api url.Values) url.Values {
	q := url.Values{}
	for k, v := range api {
		q[k] = v
	}
	if after, err := time.Parse(time.RFC3339Nano, q.Get("created_after")); err == nil {
		q.Set("from", after.UTC().Format(time.DateOnly))
	}
	if before, err := time.Parse(time.RFC3339Nano, q.Get("created_before")); err == nil {
		q.Set("to", before.UTC().AddDate(0, 0, -1).Format(time.DateOnly)) // the page's "to" day is included
	}
	q.Del("created_after")
	q.Del("created_before")
	return q
}

// panelPage times the panel's Prints page, whole, and checks that it
// links every print of want.
func (l *printLister) panelPage(ctx context.Context, who operatorLogin, query url.Values, want []string) (time.Duration, error) {
	c, err := l.panel(ctx, who)
	if err != nil {
		return 0, err
	}
	body, took, err := timedGet(ctx, c, l.baseURL+"/operator/prints?"+query.Encode(), "")
	if err != nil {
		return 0, fmt.Errorf("panel ?%s: %w", query.Encode(), err)
	}
	for _, id := range want {
		if !bytes.Contains(body, []byte(`href="/operator/prints/`+id+`"`)) {
			return 0, fmt.Errorf("panel ?%s: the page does not link print %s", query.Encode(), id)
		}
	}
	return took, nil
}

func firstIDs(ids []string) string {
	if len(ids) > 3 {
		return strings.Join(ids[:3], ", ") + ", …"
	}
	return strings.Join(ids, ", ")
}

// listPage is the part of a ListPrints answer the suite reads.
type listPage struct {
	Prints []struct {
		ID string `json:"id"`
	} `json:"prints"`
	NextPageToken string `json:"next_page_token"`
}

// get times one GET of the list, from the request to the end of its body.
func (l *printLister) get(ctx context.Context, token, query string, page *listPage) (time.Duration, error) {
	body, took, err := timedGet(ctx, l.client, l.baseURL+"/api/v1/operator/prints?"+query, token)
	if err != nil {
		return 0, fmt.Errorf("?%s: %w", query, err)
	}
	*page = listPage{}
	return took, json.Unmarshal(body, page)
}

// timedGet GETs target (with a bearer token unless empty) and times it
// from the request to the end of its body; an answer other than 200 is an
// error.
func timedGet(ctx context.Context, c *http.Client, target, token string) ([]byte, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, 0, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	start := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	took := time.Since(start)
	if err != nil {
		return nil, 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, 0, fmt.Errorf("%s: %s", resp.Status, tail(body))
	}
	return body, took, nil
}

// pick draws a print of family ("" for either) that ok accepts.
func (l *printLister) pick(family string, ok func(*printseed.Print) bool) *printseed.Print {
	list := l.seed.Prints
	if family != "" {
		all := l.byFamily[family]
		for {
			if p := all[l.rand.IntN(len(all))]; ok == nil || ok(p) {
				return p
			}
		}
	}
	for {
		if p := &list[l.rand.IntN(len(list))]; ok == nil || ok(p) {
			return p
		}
	}
}

// week is a random seven days of the seed's span, from midnight UTC.
func (l *printLister) week() (from, to time.Time) {
	newest, oldest := l.seed.Prints[0].CreatedAt, l.seed.Prints[len(l.seed.Prints)-1].CreatedAt
	span := newest.Sub(oldest) - 7*24*time.Hour
	from = oldest.Add(time.Duration(l.rand.Int64N(int64(max(span, time.Hour))))).UTC().Truncate(24 * time.Hour)
	return from, from.Add(7 * 24 * time.Hour)
}

func (l *printLister) largestTeam() int  { return l.seed.Teams[0].ID }
func (l *printLister) smallestTeam() int { return l.seed.Teams[len(l.seed.Teams)-1].ID }

// anyStore is one store of a random team.
func (l *printLister) anyStore() string {
	t := l.seed.Teams[l.rand.IntN(len(l.seed.Teams))]
	return t.Stores[l.rand.IntN(len(t.Stores))]
}

// search is a case that searches by one reference of a drawn print.
func search(family string, ref func(*printseed.Print) string) func(*printLister) printseed.Filter {
	return func(l *printLister) printseed.Filter {
		p := l.pick(family, func(p *printseed.Print) bool { return ref(p) != "" })
		return printseed.Filter{Search: ref(p)}
	}
}

// listCase is one query of the list: its filter, drawn anew on each run,
// who asks (staff, or the team operator, whose team the server applies),
// and which page.
type listCase struct {
	name   string
	member bool
	page   int
	filter func(*printLister) printseed.Filter
}

func fixed(f printseed.Filter) func(*printLister) printseed.Filter {
	return func(*printLister) printseed.Filter { return f }
}

// listCases are the queries the suite times: each filter alone, a search
// by each kind of reference (and by one that matches nothing), the
// filters together, and the second page.
var listCases = []listCase{
	{name: "no filter", filter: fixed(printseed.Filter{})},
	{name: "state ready", filter: fixed(printseed.Filter{State: "ready"})},
	{name: "state failed", filter: fixed(printseed.Filter{State: "failed"})},
	{name: "state queued", filter: fixed(printseed.Filter{State: "queued"})},
	{name: "state rendering", filter: fixed(printseed.Filter{State: "rendering"})},
	{name: "state failed, family B", filter: fixed(printseed.Filter{State: "failed", Family: "B"})},
	{name: "state cancelled", filter: fixed(printseed.Filter{State: "cancelled"})},
	{name: "family A", filter: fixed(printseed.Filter{Family: "A"})},
	{name: "family B", filter: fixed(printseed.Filter{Family: "B"})},
	{name: "largest team", filter: func(l *printLister) printseed.Filter { return printseed.Filter{TeamID: l.largestTeam()} }},
	{name: "smallest team", filter: func(l *printLister) printseed.Filter { return printseed.Filter{TeamID: l.smallestTeam()} }},
	{name: "a store", filter: func(l *printLister) printseed.Filter { return printseed.Filter{StoreID: l.anyStore()} }},
	{name: "a week", filter: func(l *printLister) printseed.Filter {
		from, to := l.week()
		return printseed.Filter{CreatedAfter: from, CreatedBefore: to}
	}},
	{name: "search print id (A)", filter: search("A", func(p *printseed.Print) string { return p.ID })},
	{name: "search print id (B)", filter: search("B", func(p *printseed.Print) string { return p.ID })},
	{name: "search order uid", filter: search("A", func(p *printseed.Print) string { return p.OrderUID })},
	{name: "search ecommerce order id", filter: search("A", func(p *printseed.Print) string { return p.EcommerceOrderID })},
	{name: "search order number", filter: search("A", func(p *printseed.Print) string { return p.EcommerceOrderNumber })},
	{name: "search ecommerce item id", filter: search("A", func(p *printseed.Print) string { return p.EcommerceOrderItemID })},
	{name: "search reference_number", filter: search("B", func(p *printseed.Print) string { return p.ReferenceNumber })},
	{name: "search external_id", filter: search("B", func(p *printseed.Print) string { return p.ExternalID })},
	{name: "search line external_id", filter: search("B", func(p *printseed.Print) string { return p.LineExternalID })},
	{name: "search design version", filter: search("", func(p *printseed.Print) string { return p.DesignVersionID })},
	{name: "search customer e-mail", filter: search("A", func(p *printseed.Print) string { return p.CustomerEmail })},
	{name: "search e-mail prefix (customer.12…)", filter: fixed(printseed.Filter{Search: "customer.12"})},
	{name: "search a surname", filter: fixed(printseed.Filter{Search: "hopper"})},
	{name: "search a full name", filter: search("A", func(p *printseed.Print) string { return p.CustomerName + " " + p.CustomerSurname })},
	{name: "search order id prefix", filter: search("A", func(p *printseed.Print) string { return p.EcommerceOrderID[:5] })},
	{name: "search, nothing matches", filter: fixed(printseed.Filter{Search: "no-such-reference"})},
	{name: "smallest team, failed, family A", filter: func(l *printLister) printseed.Filter {
		return printseed.Filter{TeamID: l.smallestTeam(), State: "failed", Family: "A"}
	}},
	{name: "a store in a week", filter: func(l *printLister) printseed.Filter {
		from, to := l.week()
		return printseed.Filter{StoreID: l.anyStore(), CreatedAfter: from, CreatedBefore: to}
	}},
	{name: "largest team, search item id", filter: func(l *printLister) printseed.Filter {
		p := l.pick("A", func(p *printseed.Print) bool { return p.TeamID == l.largestTeam() })
		return printseed.Filter{TeamID: l.largestTeam(), Search: p.EcommerceOrderItemID}
	}},
	{name: "page 2, no filter", page: 1, filter: fixed(printseed.Filter{})},
	{name: "page 2, state ready", page: 1, filter: fixed(printseed.Filter{State: "ready"})},
	{name: "no filter", member: true, filter: fixed(printseed.Filter{})},
	{name: "state failed", member: true, filter: fixed(printseed.Filter{State: "failed"})},
	{name: "search own order number", member: true, filter: func(l *printLister) printseed.Filter {
		p := l.pick("A", func(p *printseed.Print) bool { return p.TeamID == l.team })
		return printseed.Filter{Search: p.EcommerceOrderNumber}
	}},
	{name: "search another team's reference_number", member: true, filter: func(l *printLister) printseed.Filter {
		p := l.pick("B", func(p *printseed.Print) bool { return p.TeamID != l.team })
		return printseed.Filter{Search: p.ReferenceNumber}
	}},
	{name: "page 2, no filter", member: true, page: 1, filter: fixed(printseed.Filter{})},
}
