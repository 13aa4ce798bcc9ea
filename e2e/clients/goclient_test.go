package clients

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/platen-print/platen/internal/platentest"
)

// oapiCodegen is the generator the tutorial runs, at the version it pins.
var oapiCodegen = regexp.MustCompile(`go run (github\.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v[0-9.]+) (-generate types,client,skip-prune -package platen)`)

// goProgram creates an order twice with one Idempotency-Key through the
// generated client, as an integrator's retry would, and prints what each
// answer said: its status, the order's uid and Idempotent-Replayed.
const goProgram = `package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"

	"example.com/platenclient/platen"
)

func main() {
	base, token, body := os.Args[1], os.Args[2], os.Args[3]
	auth := func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer "+token)
		return nil
	}
	c, err := platen.NewClientWithResponses(base, platen.WithRequestEditorFn(auth))
	if err != nil {
		panic(err)
	}
	key := "generated-client-1"
	for range 2 {
		params := &platen.OrderServiceCreateOrderParams{IdempotencyKey: &key}
		r, err := c.OrderServiceCreateOrderWithBodyWithResponse(context.Background(), params, "application/json", strings.NewReader(body))
		if err != nil {
			panic(err)
		}
		if r.JSON200 == nil {
			fmt.Println(r.StatusCode(), "", "", string(r.Body))
			continue
		}
		fmt.Println(r.StatusCode(), r.JSON200.Uid, r.HTTPResponse.Header.Get("Idempotent-Replayed"))
	}
}
`

// TestGoClientFromTheDocument: the tutorial's oapi-codegen command makes a
// Go client of the served document that compiles, and sends an
// Idempotency-Key: the retry is answered with the first order, marked
// replayed.
func TestGoClientFromTheDocument(t *testing.T) {
	tutorial, err := os.ReadFile("../../docs/tutorial.md")
	if err != nil {
		t.Fatal(err)
	}
	command := oapiCodegen.FindStringSubmatch(string(tutorial))
	if command == nil {
		t.Fatal("docs/tutorial.md gives no oapi-codegen command")
	}
	srv := platentest.Start(t, platentest.SQLite())
	acme := srv.Bootstrap(t, "acme", "acme-shop")
	_, document := platentest.Get(t, http.DefaultClient, srv.BaseURL+"/openapi.json")

	dir := t.TempDir()
	write(t, filepath.Join(dir, "platen.openapi.json"), document)
	write(t, filepath.Join(dir, "go.mod"), []byte("module example.com/platenclient\n\ngo 1.25\n"))
	write(t, filepath.Join(dir, "main.go"), []byte(goProgram))
	if err := os.Mkdir(filepath.Join(dir, "platen"), 0o755); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"run", command[1]}, strings.Fields(command[2])...)
	generated := goTool(t, dir, append(args, "platen.openapi.json")...)
	write(t, filepath.Join(dir, "platen", "platen.gen.go"), generated)
	goTool(t, dir, "mod", "tidy")

	body, _ := json.Marshal(platentest.OrderBody("acme-shop", "gen-1"))
	out := goTool(t, dir, "run", ".", srv.BaseURL, acme.Token, string(body))
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 {
		t.Fatalf("the client printed %q, want two answers", out)
	}
	first, again := strings.Fields(lines[0]), strings.Fields(lines[1])
	if len(first) != 2 || first[0] != "200" || first[1] == "" {
		t.Errorf("first create: %q, want 200 and the order's uid", lines[0])
	}
	if len(again) != 3 || again[0] != "200" || len(first) < 2 || again[1] != first[1] || again[2] != "true" {
		t.Errorf("the retry with the key: %q, want 200, the first order's uid, Idempotent-Replayed true", lines[1])
	}
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// goTool runs the go command in dir, with modules from the proxy, and
// returns its output.
func goTool(t *testing.T, dir string, args ...string) []byte {
	t.Helper()
	return []byte(runWith(t, dir, []string{"GOFLAGS=-mod=mod", "GOWORK=off"}, "go", args...))
}
