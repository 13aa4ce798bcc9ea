// Package renderproc is where renders run: the render service of
// proto/platen/render/v1 (Server, service.go), which turns a design document
// into print files with internal/render and fetches images with
// internal/fetch, and the supervised child processes it runs in
// (Supervisor, supervisor.go), so that no document can cost anyone but its
// own print. `platen serve` calls it in process through a Supervisor, or
// `platen render` processes over gRPC (Dial, Serve).
package renderproc
