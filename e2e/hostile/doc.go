// Package hostile is the hostile-input suite: every attack a tenant (or
// anyone without a token) made on Platen, run against real servers on
// both databases, asserting what the attack gets (the status, the reason)
// and what it costs everyone else: the server's memory and /healthz
// latency while it runs, and another team's order reaching ready
// meanwhile. It holds only tests.
package hostile
