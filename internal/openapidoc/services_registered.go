// Types names the types that implement the API's gRPC
// services, as internal/server registers them: the OpenAPI generator
// (cmd/platen-openapi) leaves out the routes of the methods they do not
// implement, which answer 501.

package openapidoc

import (
	"reflect"

	"google.golang.org/protobuf/reflect/protoreflect"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/batches"
	"github.com/platen-print/platen/internal/catalog"
	"github.com/platen-print/platen/internal/designversions"
	"github.com/platen-print/platen/internal/operatorapi"
	"github.com/platen-print/platen/internal/orders"
	"github.com/platen-print/platen/internal/shop"
	"github.com/platen-print/platen/internal/webhooks"
)

// Types are the types internal/server registers, by service (a test there
// holds it to what it registers).
func Types() map[protoreflect.FullName]reflect.Type {
	return map[protoreflect.FullName]reflect.Type{
		serviceName(platenv1.OrderService_ServiceDesc.ServiceName):    reflect.TypeFor[*orders.Service](),
		serviceName(platenv1.CatalogService_ServiceDesc.ServiceName):  reflect.TypeFor[*catalog.Service](),
		serviceName(platenv1.DesignService_ServiceDesc.ServiceName):   reflect.TypeFor[*designversions.Service](),
		serviceName(platenv1.ShopService_ServiceDesc.ServiceName):     reflect.TypeFor[*shop.Service](),
		serviceName(platenv1.WebhookService_ServiceDesc.ServiceName):  reflect.TypeFor[*webhooks.Service](),
		serviceName(platenv1.BatchService_ServiceDesc.ServiceName):    reflect.TypeFor[*batches.Service](),
		serviceName(platenv1.OperatorService_ServiceDesc.ServiceName): reflect.TypeFor[*operatorapi.Service](),
	}
}

func serviceName(s string) protoreflect.FullName { return protoreflect.FullName(s) }
