package server_test

import (
	"context"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"

	"github.com/platen-print/platen/internal/platentest"
)

// A gRPC request that cannot be decoded is the client's error,
// InvalidArgument naming where it breaks, not Internal (grpc-go's answer
// for any codec failure). The bytes go as given, over a real connection.
func TestGRPCUndecodableMessage(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		conn := srv.GRPC(t)
		ctx := platentest.Bearer(context.Background(), acme.Token)
		const notProtobuf = "the request message is not well-formed protobuf"
		tests := []struct {
			name, method string
			msg          []byte
			message      string
			violation    string
		}{
			{"garbage", "/platen.v1.OrderService/CreateOrder", []byte{0xff, 0xff, 0xff}, notProtobuf, ": " + notProtobuf},
			{"a length past the end", "/platen.v1.OrderService/CreateOrder", []byte{0x0a, 0x05, 'a'}, notProtobuf, ": " + notProtobuf},
			{"a string that is not UTF-8", "/platen.v1.OrderService/CreateOrder", []byte{0x0a, 0x02, 0xff, 0xfe},
				"store_id: must be UTF-8 text", "store_id: must be UTF-8 text"},
			{"in the second item", "/platen.v1.OrderService/CreateOrder",
				[]byte{0x12, 0x00, 0x12, 0x04, 0x12, 0x02, 0xc3, 0x28},
				"items[1].ecommerce_order_item_id: must be UTF-8 text", "items[1].ecommerce_order_item_id: must be UTF-8 text"},
			{"a shop order", "/platen.v1.ShopService/CreateShopOrder", []byte{0x0a, 0x01, 0x80},
				"external_id: must be UTF-8 text", "external_id: must be UTF-8 text"},
			{"a health check (no token needed)", "/grpc.health.v1.Health/Check", []byte{0x0a, 0x01, 0xff},
				"service: must be UTF-8 text", "service: must be UTF-8 text"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				wantStatus(t, invokeRaw(ctx, conn, tt.method, tt.msg), codes.InvalidArgument, tt.message, tt.violation)
			})
		}
		t.Run("a stream's message (reflection)", func(t *testing.T) {
			stream, err := conn.NewStream(context.Background(), &grpc.StreamDesc{ClientStreams: true, ServerStreams: true},
				"/grpc.reflection.v1.ServerReflection/ServerReflectionInfo", grpc.ForceCodecV2(rawCodec{}))
			if err != nil {
				t.Fatal(err)
			}
			if err := stream.SendMsg([]byte{0xff, 0xff, 0xff}); err != nil {
				t.Fatal(err)
			}
			var reply []byte
			wantStatus(t, stream.RecvMsg(&reply), codes.InvalidArgument, notProtobuf, ": "+notProtobuf)
		})
		t.Run("a well-formed message still reaches the service", func(t *testing.T) {
			err := invokeRaw(ctx, conn, "/platen.v1.OrderService/GetOrder", []byte{0x0a, 0x01, 'x'})
			wantStatus(t, err, codes.NotFound, `order "x" not found`)
		})
	})
}
