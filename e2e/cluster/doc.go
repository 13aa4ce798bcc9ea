// Package cluster holds the cluster test: two `platen serve` and two
// `platen render` processes built from this repository, sharing a fresh
// PostgreSQL database (through a proxy that can cut it) and a real S3
// server (SeaweedFS) in a process of its own, under a mixed load while
// faults come in a fixed order; then it checks what must hold after the
// faults, and prints it as a table.
//
// It runs only when PLATEN_TEST_CLUSTER=1 (make test-cluster sets it, and
// builds the S3 server once), as it needs PostgreSQL, the S3
// server's binary and a few minutes.
package cluster
