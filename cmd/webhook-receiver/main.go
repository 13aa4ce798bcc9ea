// Command webhook-receiver is an endpoint for Platen's webhooks on your
// own machine, for trying them out: it checks each delivery's signature
// with the tutorial's handler (docs/tutorial.md) (the same code, kept the same by a test) and
// prints each delivery it accepts as one line: its id, its event and its
// body. Run it as
//
//	go run ./cmd/webhook-receiver -secret whsec_… [-addr 127.0.0.1:9999]
//
// and point a store's webhook at http://ADDR/ (Platen started with
// --allow-private-network, since it is on this machine).
package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"strings"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:9999", "address to listen on")
	secret := flag.String("secret", os.Getenv("PLATEN_WEBHOOK_SECRET"), "the store's signing secret, whsec_… (or PLATEN_WEBHOOK_SECRET)")
	flag.Parse()
	if !strings.HasPrefix(*secret, "whsec_") {
		log.Fatal("-secret must be the store's signing secret, whsec_…")
	}
	printed := make(chan string)
	go func() {
		for line := range printed {
			fmt.Println(line)
		}
	}()
	handler := webhookHandler(*secret, func(delivery, event string, body []byte) {
		printed <- delivery + " " + event + " " + string(body)
	})
	log.Printf("listening on http://%s/ for Platen's webhooks", *addr)
	log.Fatal(http.ListenAndServe(*addr, handler))
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
