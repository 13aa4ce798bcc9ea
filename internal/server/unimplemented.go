package server

import (
	"google.golang.org/grpc"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
)

// registerPlanned registers the services whose implementation arrives with
// later issues: they answer Unimplemented (HTTP 501) until then, and the
// whole API surface is visible through reflection meanwhile.
func registerPlanned(s grpc.ServiceRegistrar) {
	platenv1.RegisterBatchServiceServer(s, platenv1.UnimplementedBatchServiceServer{})
	platenv1.RegisterOperatorServiceServer(s, platenv1.UnimplementedOperatorServiceServer{})
}
