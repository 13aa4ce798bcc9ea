package server

import (
	"google.golang.org/grpc"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
)

// registerPlanned registers the services whose implementation arrives with
// later issues: they answer Unimplemented (HTTP 501) until then, and the
// whole API surface is visible through reflection meanwhile. (The operator
// service's methods other than print templates do the same, through the
// Unimplemented server templates.Service embeds.)
func registerPlanned(s grpc.ServiceRegistrar) {
	platenv1.RegisterBatchServiceServer(s, platenv1.UnimplementedBatchServiceServer{})
}
