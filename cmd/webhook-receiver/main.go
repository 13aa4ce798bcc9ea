// Command webhook-receiver is an endpoint for Platen's webhooks on your
// own machine, for trying them out: it checks each delivery's signature
// with the tutorial's handler (docs/tutorial.md) (the same code, kept the same by a test) and
// prints each delivery it accepts as one line: its id, its event and its
// body. Run it as
//
//	jq -r .webhook_secret bootstrap.json | go run ./cmd/webhook-receiver -secret-file - [-addr 127.0.0.1:9999]
//
// and point a store's webhook at http://ADDR/ (Platen started with
// --allow-private-network, since it is on this machine). The store's
// signing secret comes from a file (-secret-file PATH), standard input
// (-secret-file -) or PLATEN_WEBHOOK_SECRET, never from the command line,
// where any user of the machine could read it (ps).
package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
)

func main() {
	if err := run(os.Args[1:], os.Stdin, os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// run is the command: it parses args, reads the secret, and serves until
// it fails.
func run(args []string, stdin io.Reader, stdout io.Writer) error {
	flags := flag.NewFlagSet("webhook-receiver", flag.ContinueOnError)
	addr := flags.String("addr", "127.0.0.1:9999", "address to listen on")
	secretFile := flags.String("secret-file", "", "file holding the store's signing secret, whsec_…; - reads it from standard input (default: PLATEN_WEBHOOK_SECRET)")
	if err := flags.Parse(args); err != nil {
		return err
	}
	secret, err := readSecret(*secretFile, stdin, os.Getenv("PLATEN_WEBHOOK_SECRET"))
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	printed := make(chan string)
	go func() {
		for line := range printed {
			fmt.Fprintln(stdout, line)
		}
	}()
	handler := webhookHandler(secret, func(delivery, event string, body []byte) {
		printed <- delivery + " " + event + " " + string(body)
	})
	log.Printf("listening on http://%s/ for Platen's webhooks", ln.Addr())
	return http.Serve(ln, handler)
}

// readSecret returns the signing secret held by the file named path
// ("-": stdin), or fromEnv when path is empty, surrounding blanks (the
// newline jq or an editor ends a file with) removed.
func readSecret(path string, stdin io.Reader, fromEnv string) (string, error) {
	secret, from := fromEnv, "PLATEN_WEBHOOK_SECRET"
	switch path {
	case "":
	case "-":
		raw, err := io.ReadAll(io.LimitReader(stdin, 4096))
		if err != nil {
			return "", fmt.Errorf("-secret-file -: %w", err)
		}
		secret, from = string(raw), "standard input"
	default:
		raw, err := os.ReadFile(path)
		if err != nil {
			return "", fmt.Errorf("-secret-file: %w", err)
		}
		secret, from = string(raw), path
	}
	secret = strings.TrimSpace(secret)
	switch {
	case path == "" && secret == "":
		return "", errors.New("give the store's signing secret with -secret-file PATH, -secret-file - (standard input) or PLATEN_WEBHOOK_SECRET")
	case !strings.HasPrefix(secret, "whsec_"):
		return "", fmt.Errorf("%s does not hold the store's signing secret, whsec_…", from)
	}
	return secret, nil
}

// webhookHandler is an endpoint for Platen's webhooks: it checks the
// signature, answers at once, and hands the event on; handle deduplicates
// by the delivery id.
func webhookHandler(secret string, handle func(delivery, event string, body []byte)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil || !validSignature(secret, body, r.Header.Get("Platen-Signature")) {
			http.Error(w, "invalid signature", http.StatusUnauthorized) // rule 1
			return
		}
		w.WriteHeader(http.StatusNoContent)                                            // rule 2: answer within 10 s, work afterwards
		go handle(r.Header.Get("Platen-Delivery"), r.Header.Get("Platen-Event"), body) // rule 3
	}
}

// validSignature compares, in constant time, the HMAC-SHA256 of the exact
// body with the header's signature.
func validSignature(secret string, body []byte, header string) bool {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return hmac.Equal([]byte(header), []byte("sha256="+hex.EncodeToString(mac.Sum(nil))))
}
