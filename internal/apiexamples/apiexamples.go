// Package apiexamples reads the example exchanges of docs/api-examples.md
// and matches answers against them, so that a test can replay every
// example against a real server: the examples users copy are the server's
// real answers.
//
// An example is a ```http block (a request line, headers, a blank line and
// a JSON body) followed by a ```json block whose info string gives the
// status ("```json 201"). In both, {{name}} is a variable: in a request it
// is replaced by its value; in an expected answer, a string "{{name}}"
// takes the value found there the first time and must equal it afterwards.
// An expected answer matches the real one value for value, with these
// placeholders for what changes from run to run: "<uid>" (a UUID), "<time>"
// (an RFC 3339 time), "<url>" (an http(s) URL), "<sha256>" (64 hex
// digits), "<token>" (a plt_ or plo_ token), "<string>", "<number>" and
// "<any>";
// and an object member "…": "…" stands for the members not shown. A
// request block's info string may say "poll=PATH:VALUE": the request is
// sent again until the answer's value at PATH (dot-separated, list indexes
// as numbers) is VALUE.
package apiexamples

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
)

// Exchange is one example: a request and the answer it gets.
type Exchange struct {
	Line    int // of the request block, for messages
	Method  string
	Path    string
	Headers []string // name, value, name, value …
	Body    string   // empty for none
	Poll    *Poll
	Status  int
	Answer  any // the expected JSON answer, nil for an empty body
}

// Poll repeats a request until the answer's value at Path is Value.
type Poll struct{ Path, Value string }

var fencePattern = regexp.MustCompile("(?ms)^```([^\n]*)\n(.*?)^```[ \t]*$")

// Parse reads every example of a document. A fence other than an http
// block followed by a json block is an error, so that no example is left
// unchecked.
func Parse(doc string) ([]Exchange, error) {
	type fence struct {
		info, body string
		line       int
	}
	var fences []fence
	for _, m := range fencePattern.FindAllStringSubmatchIndex(doc, -1) {
		fences = append(fences, fence{strings.TrimSpace(doc[m[2]:m[3]]), doc[m[4]:m[5]], strings.Count(doc[:m[0]], "\n") + 1})
	}
	var out []Exchange
	for i := 0; i < len(fences); i++ {
		req := fences[i]
		kind, opts, _ := strings.Cut(req.info, " ")
		if kind != "http" {
			return nil, fmt.Errorf("line %d: a ```%s block outside an example", req.line, req.info)
		}
		if i+1 >= len(fences) || !strings.HasPrefix(fences[i+1].info, "json ") {
			return nil, fmt.Errorf("line %d: a request without a ```json STATUS answer after it", req.line)
		}
		ans := fences[i+1]
		i++
		ex, err := parseRequest(req.body, opts)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", req.line, err)
		}
		ex.Line = req.line
		if ex.Status, err = strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(ans.info, "json "))); err != nil {
			return nil, fmt.Errorf("line %d: the answer's status: %w", ans.line, err)
		}
		if body := strings.TrimSpace(ans.body); body != "" {
			if err := json.Unmarshal([]byte(body), &ex.Answer); err != nil {
				return nil, fmt.Errorf("line %d: the answer is not JSON: %w", ans.line, err)
			}
		}
		out = append(out, ex)
	}
	return out, nil
}

func parseRequest(block, opts string) (Exchange, error) {
	var ex Exchange
	head, body, _ := strings.Cut(block, "\n\n")
	lines := strings.Split(strings.TrimSpace(head), "\n")
	method, path, ok := strings.Cut(lines[0], " ")
	if !ok || method != strings.ToUpper(method) || !strings.HasPrefix(path, "/") {
		return ex, fmt.Errorf("the request line %q is not METHOD /path", lines[0])
	}
	ex.Method, ex.Path, ex.Body = method, strings.TrimSpace(path), strings.TrimSpace(body)
	for _, h := range lines[1:] {
		name, value, ok := strings.Cut(h, ":")
		if !ok {
			return ex, fmt.Errorf("the header %q has no colon", h)
		}
		ex.Headers = append(ex.Headers, http.CanonicalHeaderKey(strings.TrimSpace(name)), strings.TrimSpace(value))
	}
	if ex.Body != "" && !json.Valid([]byte(ex.Body)) {
		// Variables stand where JSON values go; check the body with them as strings.
		if !json.Valid([]byte(variable.ReplaceAllString(ex.Body, `"x"`))) {
			return ex, fmt.Errorf("the request body is not JSON")
		}
	}
	for _, opt := range strings.Fields(opts) {
		key, value, _ := strings.Cut(opt, "=")
		path, want, ok := strings.Cut(value, ":")
		if key != "poll" || !ok {
			return ex, fmt.Errorf("unknown option %q", opt)
		}
		ex.Poll = &Poll{Path: path, Value: want}
	}
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

var placeholders = map[string]*regexp.Regexp{
	"<uid>":    regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`),
	"<time>":   regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$`),
	"<url>":    regexp.MustCompile(`^https?://\S+$`),
	"<sha256>": regexp.MustCompile(`^[0-9a-f]{64}$`),
	"<token>":  regexp.MustCompile(`^pl[to]_[A-Za-z0-9_-]{43}$`),
	"<string>": regexp.MustCompile(`(?s)^.*$`),
}

// elided is the member that stands for members not shown.
const elided = "…"

func (v Vars) match(path string, want, got any) error {
	switch w := want.(type) {
	case string:
		return v.matchString(path, w, got)
	case map[string]any:
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

func (v Vars) matchString(path, want string, got any) error {
	if m := variable.FindStringSubmatch(want); m != nil && m[0] == want {
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
	if want == "<any>" {
		return nil
	}
	if want == "<number>" {
		if _, ok := got.(float64); !ok {
			return fmt.Errorf("%s: got %s, want a number", show(path), brief(got))
		}
		return nil
	}
	if re, ok := placeholders[want]; ok {
		s, isString := got.(string)
		if !isString || !re.MatchString(s) {
			return fmt.Errorf("%s: got %s, want %s", show(path), brief(got), want)
		}
		return nil
	}
	if got != want {
		return fmt.Errorf("%s: got %s, want %q", show(path), brief(got), want)
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
