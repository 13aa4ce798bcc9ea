// Package apiexamples reads the example exchanges of the API documents in
// docs/ and matches the server's real answers against them, so that a test
// can replay every example against a real server: the examples users copy
// are the server's real answers.
//
// An example is a request fence (```http: a request line, headers, a blank
// line and a JSON body) followed by its answer: either a ```json fence
// whose info string gives the status ("```json 201"), or a response fence
// (```http starting with a status line such as "HTTP/1.1 201 Created",
// then the headers the answer must carry) followed by a plain ```json fence
// with the body, which may be left out only when the answer is not JSON. A
// ```http webhook fence is a request the webhook receiver must get. Every
// other fence is an error, so that no example goes unchecked.
// docs_test.go describes the whole format: variables ({{name}}),
// placeholders ("<uid>", "<time>"…), elided members and polling.
package apiexamples

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
)

// Kind tells a request sent to the server from a delivery the webhook
// receiver must get.
type Kind int

const (
	// Request is sent to the server, and its answer checked.
	Request Kind = iota
	// Delivery is a webhook request the receiver must get.
	Delivery
)

// Exchange is one example: a request and the answer it gets, or a webhook
// delivery.
type Exchange struct {
	Line    int // of the request block, for messages
	Kind    Kind
	Method  string
	Path    string
	Headers []string // the request's: name, value, name, value …
	Body    string   // empty for none
	Poll    *Poll
	Status  int // the answer's; 0 for a delivery
	// WantHeaders are the headers the answer (or the delivery) must carry:
	// name, value … A value may hold placeholders and variables, or be
	// "<absent>".
	WantHeaders []string
	// Answer is the expected JSON body; HasAnswer is false when the example
	// shows none, and the answer must then not be JSON.
	Answer    any
	HasAnswer bool
}

// Poll repeats a request until the answer's value at Path is Value.
type Poll struct{ Path, Value string }

// Absent is the value of an expected header that must not be sent.
const Absent = "<absent>"

var fencePattern = regexp.MustCompile("(?ms)^```([^\n]*)\n(.*?)^```[ \t]*$")

type fence struct {
	info, body string
	line       int
}

func fencesOf(doc string) []fence {
	var out []fence
	for _, m := range fencePattern.FindAllStringSubmatchIndex(doc, -1) {
		out = append(out, fence{strings.TrimSpace(doc[m[2]:m[3]]), doc[m[4]:m[5]], strings.Count(doc[:m[0]], "\n") + 1})
	}
	return out
}

// Parse reads every example of a document. A fence that is not part of an
// example is an error, so that no example is left unchecked.
func Parse(doc string) ([]Exchange, error) {
	fences := fencesOf(doc)
	var out []Exchange
	for i := 0; i < len(fences); {
		f := fences[i]
		kind, opts, _ := strings.Cut(f.info, " ")
		var ex Exchange
		var used int
		var err error
		switch {
		case kind == "http" && strings.TrimSpace(opts) == "webhook":
			ex, err = parseDelivery(f.body)
			used = 1
		case kind == "http" && !isResponse(f.body):
			ex, used, err = parseExample(fences[i:], opts)
		default:
			err = fmt.Errorf("a ```%s block outside an example", f.info)
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", f.line, err)
		}
		ex.Line = f.line
		out = append(out, ex)
		i += used
	}
	return out, nil
}

func isResponse(block string) bool { return strings.HasPrefix(strings.TrimSpace(block), "HTTP/") }

// parseExample reads a request fence and its answer's fences; it returns
// how many fences they took.
func parseExample(fences []fence, opts string) (Exchange, int, error) {
	ex, err := parseRequest(fences[0].body)
	if err != nil {
		return ex, 0, err
	}
	if ex.Poll, err = parseOptions(opts); err != nil {
		return ex, 0, err
	}
	if len(fences) < 2 {
		return ex, 0, fmt.Errorf("a request without its answer after it")
	}
	ans := fences[1]
	switch kind, status, _ := strings.Cut(ans.info, " "); {
	case kind == "json" && status != "":
		if ex.Status, err = strconv.Atoi(strings.TrimSpace(status)); err != nil {
			return ex, 0, fmt.Errorf("line %d: the answer's status: %w", ans.line, err)
		}
		err = ex.setAnswer(ans)
		return ex, 2, err
	case ans.info == "http" && isResponse(ans.body):
		if ex.Status, ex.WantHeaders, err = parseResponseHead(ans.body); err != nil {
			return ex, 0, fmt.Errorf("line %d: %w", ans.line, err)
		}
		if len(fences) > 2 && fences[2].info == "json" {
			return ex, 3, ex.setAnswer(fences[2])
		}
		return ex, 2, nil
	}
	return ex, 0, fmt.Errorf("a request without its answer after it (```json STATUS, or ```http with HTTP/1.1 STATUS)")
}

func (ex *Exchange) setAnswer(f fence) error {
	body := strings.TrimSpace(f.body)
	if body == "" {
		return nil
	}
	if err := json.Unmarshal([]byte(body), &ex.Answer); err != nil {
		return fmt.Errorf("line %d: the answer is not JSON: %w", f.line, err)
	}
	ex.HasAnswer = true
	return nil
}

// parseOptions reads a request fence's info string after "http": "poll:
// PATH=VALUE" (or the older "poll=PATH:VALUE").
func parseOptions(opts string) (*Poll, error) {
	opts = strings.TrimSpace(opts)
	if opts == "" {
		return nil, nil
	}
	sep := "="
	rest, ok := strings.CutPrefix(opts, "poll:")
	if !ok {
		if rest, ok = strings.CutPrefix(opts, "poll="); !ok {
			return nil, fmt.Errorf("unknown option %q", opts)
		}
		sep = ":"
	}
	path, value, ok := strings.Cut(strings.TrimSpace(rest), sep)
	if !ok || path == "" {
		return nil, fmt.Errorf("the option %q is not poll: PATH=VALUE", opts)
	}
	return &Poll{Path: path, Value: value}, nil
}

// parseMessage splits a request fence into its first line, its headers
// and its body.
func parseMessage(block string) (first string, headers []string, body string, err error) {
	head, body, _ := strings.Cut(strings.TrimSpace(block), "\n\n")
	lines := strings.Split(strings.TrimSpace(head), "\n")
	for _, h := range lines[1:] {
		name, value, ok := strings.Cut(h, ":")
		if !ok {
			return "", nil, "", fmt.Errorf("the header %q has no colon", h)
		}
		headers = append(headers, http.CanonicalHeaderKey(strings.TrimSpace(name)), strings.TrimSpace(value))
	}
	return strings.TrimSpace(lines[0]), headers, strings.TrimSpace(body), nil
}

func parseRequest(block string) (Exchange, error) {
	ex := Exchange{Kind: Request}
	first, headers, body, err := parseMessage(block)
	if err != nil {
		return ex, err
	}
	method, path, ok := strings.Cut(first, " ")
	path = strings.TrimSpace(path)
	// A path, or a variable holding a link an answer gave.
	if !ok || method != strings.ToUpper(method) || !(strings.HasPrefix(path, "/") || strings.HasPrefix(path, "{{")) {
		return ex, fmt.Errorf("the request line %q is not METHOD /path", first)
	}
	ex.Method, ex.Path, ex.Headers, ex.Body = method, path, headers, body
	if ex.Body != "" && !json.Valid([]byte(ex.Body)) {
		// A variable stands for a value, or for text inside a string: check the
		// body with each as a number, which is valid JSON in both places.
		if !json.Valid([]byte(variable.ReplaceAllString(ex.Body, "0"))) {
			return ex, fmt.Errorf("the request body is not JSON")
		}
	}
	return ex, nil
}

// parseResponseHead reads "HTTP/1.1 201 Created" and the headers below it.
func parseResponseHead(block string) (int, []string, error) {
	first, headers, body, err := parseMessage(block)
	if err != nil {
		return 0, nil, err
	}
	if body != "" {
		return 0, nil, fmt.Errorf("a response fence holds the status line and headers only: put the body in a ```json fence after it")
	}
	fields := strings.SplitN(first, " ", 3)
	if len(fields) < 3 || !strings.HasPrefix(fields[0], "HTTP/") {
		return 0, nil, fmt.Errorf("the status line %q is not HTTP/1.1 STATUS REASON", first)
	}
	status, err := strconv.Atoi(fields[1])
	if err != nil || http.StatusText(status) != fields[2] {
		return 0, nil, fmt.Errorf("the status line %q: want %d %s", first, status, http.StatusText(status))
	}
	return status, headers, nil
}

// parseDelivery reads a ```http webhook fence: the POST the receiver gets,
// its headers and its JSON body.
func parseDelivery(block string) (Exchange, error) {
	ex := Exchange{Kind: Delivery}
	first, headers, body, err := parseMessage(block)
	if err != nil {
		return ex, err
	}
	method, path, ok := strings.Cut(first, " ")
	if !ok || method != http.MethodPost {
		return ex, fmt.Errorf("a webhook delivery starts with POST /path, not %q", first)
	}
	ex.Method, ex.Path, ex.WantHeaders = method, strings.TrimSpace(path), headers
	if err := json.Unmarshal([]byte(body), &ex.Answer); err != nil {
		return ex, fmt.Errorf("the delivery's body is not JSON: %w", err)
	}
	ex.HasAnswer = true
	return ex, nil
}

var variable = regexp.MustCompile(`\{\{([a-z0-9_]+)\}\}`)

// Vars are the values an example run has taken so far.
type Vars map[string]string

// Expand replaces {{name}} in s; an unknown name is an error.
func (v Vars) Expand(s string) (string, error) {
	var missing string
	out := variable.ReplaceAllStringFunc(s, func(m string) string {
		name := variable.FindStringSubmatch(m)[1]
		val, ok := v[name]
		if !ok {
			missing = name
		}
		return val
	})
	if missing != "" {
		return "", fmt.Errorf("{{%s}} is used before an answer gave it", missing)
	}
	return out, nil
}

// Match compares a real answer with an expected one, taking variables as
// it goes; it returns the first difference, with its path.
func (v Vars) Match(want, got any) error { return v.match("", want, got) }

// MatchHeaders checks the expected headers (name, value …) against the
// real ones, taking variables as it goes.
func (v Vars) MatchHeaders(want []string, got http.Header) error {
	for i := 0; i+1 < len(want); i += 2 {
		name, value := want[i], want[i+1]
		values := got.Values(name)
		switch {
		case value == Absent && len(values) > 0:
			return fmt.Errorf("header %s: %q, the example says it is absent", name, strings.Join(values, ", "))
		case value == Absent:
			continue
		case len(values) == 0:
			return fmt.Errorf("header %s: missing", name)
		}
		if err := v.matchText(value, strings.Join(values, ", ")); err != nil {
			return fmt.Errorf("header %s: %w", name, err)
		}
	}
	return nil
}

// placeholders are the shapes of what changes from run to run; they match
// a whole JSON string, or a part of a string or header.
var placeholders = map[string]string{
	"<uid>":       `[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`,
	"<time>":      `\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z`,
	"<url>":       `https?://\S+`,
	"<sha256>":    `[0-9a-f]{64}`,
	"<token>":     `pl[to]_[A-Za-z0-9_-]{43}`,
	"<secret>":    `whsec_[A-Za-z0-9+/]+=*`,
	"<reference>": `[0-9A-Z]{4}-[0-9A-Z]{4}`,
	"<hex>":       `[0-9a-f]+`,
	"<base64>":    `[A-Za-z0-9+/]+=*`,
	"<digits>":    `[0-9]+`,
	"<string>":    `(?s:.*)`,
}

var placeholderPattern = regexp.MustCompile(`<[a-z0-9]+>|\{\{[a-z0-9_]+\}\}`)

// elided is the member that stands for members not shown.
const elided = "…"

func (v Vars) match(path string, want, got any) error {
	switch w := want.(type) {
	case string:
		return v.matchString(path, w, got)
	case map[string]any:
		return v.matchObject(path, w, got)
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return fmt.Errorf("%s: got %s, want a list of %d", show(path), brief(got), len(w))
		}
		for i := range w {
			if err := v.match(fmt.Sprintf("%s[%d]", path, i), w[i], g[i]); err != nil {
				return err
			}
		}
		return nil
	}
	if fmt.Sprint(want) != fmt.Sprint(got) {
		return fmt.Errorf("%s: got %s, want %s", show(path), brief(got), brief(want))
	}
	return nil
}

func (v Vars) matchObject(path string, w map[string]any, got any) error {
	g, ok := got.(map[string]any)
	if !ok {
		return fmt.Errorf("%s: got %s, want an object", show(path), brief(got))
	}
	for key, wv := range w {
		if key == elided {
			continue
		}
		gv, ok := g[key]
		if !ok {
			return fmt.Errorf("%s: missing", show(path+"."+key))
		}
		if err := v.match(path+"."+key, wv, gv); err != nil {
			return err
		}
	}
	if _, open := w[elided]; !open {
		for key := range g {
			if _, ok := w[key]; !ok {
				return fmt.Errorf("%s: present (%s) but not in the example; add it, or \"…\": \"…\"", show(path+"."+key), brief(g[key]))
			}
		}
	}
	return nil
}

func (v Vars) matchString(path, want string, got any) error {
	if m := variable.FindStringSubmatch(want); m != nil && m[0] == want {
		// A whole value: it may be a number or an object as well.
		val := fmt.Sprint(got)
		if _, isString := got.(string); !isString {
			b, _ := json.Marshal(got)
			val = string(b)
		}
		if prev, ok := v[m[1]]; ok && prev != val {
			return fmt.Errorf("%s: got %s, want {{%s}} = %s", show(path), brief(got), m[1], prev)
		}
		v[m[1]] = val
		return nil
	}
	switch want {
	case "<any>":
		return nil
	case "<number>":
		if _, ok := got.(float64); !ok {
			return fmt.Errorf("%s: got %s, want a number", show(path), brief(got))
		}
		return nil
	}
	s, isString := got.(string)
	if !isString {
		return fmt.Errorf("%s: got %s, want %q", show(path), brief(got), want)
	}
	if err := v.matchText(want, s); err != nil {
		return fmt.Errorf("%s: %w", show(path), err)
	}
	return nil
}

// matchText matches a string against an expected one whose placeholders
// and variables stand for parts of it; a variable not known yet takes the
// part it stands for.
func (v Vars) matchText(want, got string) error {
	if want == got && !variable.MatchString(want) {
		return nil // text that holds a placeholder's name as it is: "Bearer <token>"
	}
	var expr strings.Builder
	var captured []string
	last := 0
	for _, loc := range placeholderPattern.FindAllStringIndex(want, -1) {
		token := want[loc[0]:loc[1]]
		part, isVar := placeholders[token], false
		if m := variable.FindStringSubmatch(token); m != nil {
			isVar = true
			if val, ok := v[m[1]]; ok {
				part = regexp.QuoteMeta(val)
			} else {
				part, captured = `(.+?)`, append(captured, m[1])
			}
		}
		if part == "" && !isVar {
			continue // not a placeholder: text like <br> stays as it is
		}
		expr.WriteString(regexp.QuoteMeta(want[last:loc[0]]))
		expr.WriteString(part)
		last = loc[1]
	}
	expr.WriteString(regexp.QuoteMeta(want[last:]))
	m := regexp.MustCompile(`^` + expr.String() + `$`).FindStringSubmatch(got)
	if m == nil {
		return fmt.Errorf("got %q, want %q", got, want)
	}
	for i, name := range captured {
		v[name] = m[i+1]
	}
	return nil
}

// At is the value at a dot-separated path (list indexes as numbers).
func At(v any, path string) any {
	for _, step := range strings.Split(path, ".") {
		switch c := v.(type) {
		case map[string]any:
			v = c[step]
		case []any:
			i, err := strconv.Atoi(step)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			v = c[i]
		default:
			return nil
		}
	}
	return v
}

func show(path string) string {
	if path == "" {
		return "the answer"
	}
	return strings.TrimPrefix(path, ".")
}

func brief(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 120 {
		return string(b[:117]) + "…"
	}
	return string(b)
}
