package catalog_test

import (
	"context"
	"net/url"
	"strconv"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/platentest"
)

// violatedFields returns the gRPC error's code and the fields its
// BadRequest detail names.
func violatedFields(err error) (codes.Code, []string) {
	st := status.Convert(err)
	var fields []string
	for _, d := range st.Details() {
		if br, ok := d.(*errdetails.BadRequest); ok {
			for _, v := range br.FieldViolations {
				fields = append(fields, v.Field)
			}
		}
	}
	return st.Code(), fields
}

// TestCatalogueOverGRPC drives the catalogue and the design registry over
// gRPC with the REST token: same answers, same rules.
func TestCatalogueOverGRPC(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		globex := srv.Bootstrap(t, "globex", "globex-shop")
		conn := srv.GRPC(t)
		catalog, designs := platenv1.NewCatalogServiceClient(conn), platenv1.NewDesignServiceClient(conn)
		ctx := platentest.Bearer(context.Background(), acme.Token)
		theirs := platentest.Bearer(context.Background(), globex.Token)

		category, err := catalog.CreateProductCategory(ctx, &platenv1.CreateProductCategoryRequest{Name: "Mugs", DefaultDpi: proto.Int32(240)})
		if err != nil {
			t.Fatalf("CreateProductCategory: %v", err)
		}
		product, err := catalog.CreateProduct(ctx, &platenv1.CreateProductRequest{CategoryId: &category.Id, Name: "Mug",
			OrderColumn: proto.Int32(1), Active: proto.Bool(true), TeamId: proto.Int32(int32(acme.TeamID))})
		if err != nil {
			t.Fatalf("CreateProduct: %v", err)
		}
		variant, err := catalog.CreateProductVariant(ctx, &platenv1.CreateProductVariantRequest{Name: "White",
			ProductId: &product.Id, CountryId: proto.Int32(276), Weight: wrapperspb.UInt32(350),
			EcommerceVariantIds: []string{"sku-1"}})
		if err != nil {
			t.Fatalf("CreateProductVariant: %v", err)
		}
		r := srv.Do(t, "GET", "/api/v1/product-variants/"+itoa(variant.Id), acme.Token, nil).Object(t)
		if r["uuid"] != variant.Uuid || r["weight"] != 350.0 {
			t.Errorf("REST sees %v", r)
		}

		t.Run("update without a mask replaces the set fields", func(t *testing.T) {
			got, err := catalog.UpdateProductVariant(ctx, &platenv1.UpdateProductVariantRequest{VariantId: variant.Id,
				DefaultDpi: wrapperspb.UInt32(450)})
			if err != nil || got.GetDefaultDpi().GetValue() != 450 || got.Name != "White" || got.GetWeight().GetValue() != 350 {
				t.Errorf("update: %v %v", got, err)
			}
		})
		t.Run("the same rules", func(t *testing.T) {
			_, err := catalog.CreateProductVariant(ctx, &platenv1.CreateProductVariantRequest{Name: "Bad",
				ProductId: &product.Id, CountryId: proto.Int32(150)})
			if code, fields := violatedFields(err); code != codes.InvalidArgument || len(fields) != 1 || fields[0] != "country_id" {
				t.Errorf("region as country: %v %v", code, fields)
			}
			_, err = catalog.CreateProductVariant(ctx, &platenv1.CreateProductVariantRequest{Name: "Dup",
				ProductId: &product.Id, CountryId: proto.Int32(276), Uuid: wrapperspb.String(variant.Uuid)})
			if code, fields := violatedFields(err); code != codes.AlreadyExists || len(fields) != 1 || fields[0] != "uuid" {
				t.Errorf("duplicate uuid: %v %v (%v)", code, fields, err)
			}
			if _, err := catalog.GetProductVariant(theirs, &platenv1.GetProductVariantRequest{VariantId: variant.Id}); status.Code(err) != codes.NotFound {
				t.Errorf("another team's variant: %v", err)
			}
			if _, err := catalog.GetProductVariant(context.Background(), &platenv1.GetProductVariantRequest{VariantId: variant.Id}); status.Code(err) != codes.Unauthenticated {
				t.Errorf("no token: %v", err)
			}
		})
		t.Run("design versions and print settings", func(t *testing.T) {
			v, err := designs.CreateDesignVersion(ctx, &platenv1.CreateDesignVersionRequest{
				DesignVersionId: proto.String("g-dv"), TemplateConfig: url.QueryEscape(`{"width":10,"height":10,"layers":[]}`)})
			if err != nil {
				t.Fatalf("CreateDesignVersion: %v", err)
			}
			if got, err := designs.GetDesignVersion(ctx, &platenv1.GetDesignVersionRequest{DesignVersionId: "g-dv"}); err != nil || !proto.Equal(got, v) {
				t.Errorf("GetDesignVersion: %v %v", got, err)
			}
			_, err = designs.CreateDesignVersion(ctx, &platenv1.CreateDesignVersionRequest{
				DesignVersionId: proto.String("g-dv"), TemplateConfig: url.QueryEscape(`{"width":11,"height":10,"layers":[]}`)})
			if code, fields := violatedFields(err); code != codes.AlreadyExists || len(fields) != 1 || fields[0] != "design_version_id" {
				t.Errorf("changed version: %v %v", code, fields)
			}
			got, err := catalog.GetPrintSettings(ctx, &platenv1.GetPrintSettingsRequest{DesignVersionId: "g-dv", EcommerceVariantId: "sku-1"})
			if err != nil || got.Dpi != 450 || got.DpiSource != "variant" || got.GetProductVariantId().GetValue() != variant.Id {
				t.Errorf("GetPrintSettings: %v %v", got, err)
			}
		})
	})
}

func itoa(n int32) string { return strconv.Itoa(int(n)) }
