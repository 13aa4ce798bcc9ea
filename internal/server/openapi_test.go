package server_test

import (
	"net/http"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/platen-print/platen/gen/openapi"
	"github.com/platen-print/platen/internal/openapidoc"
	"github.com/platen-print/platen/internal/platentest"
)

// The generator learns which methods are implemented from
// openapidoc.Types: they must be the types the server registers.
func TestAPIServiceTypesAreRegistered(t *testing.T) {
	s := platentest.Start(t, platentest.SQLite())
	if got, want := s.RegisteredTypes(), openapidoc.Types(); !reflect.DeepEqual(got, want) {
		t.Errorf("registered %v, apiservices.Types says %v", got, want)
	}
}

// The document lists a gateway route exactly when its method is
// implemented; an unimplemented one answers 501 and is not listed.
func TestOpenAPIListsImplementedRoutes(t *testing.T) {
	unimplemented, err := openapidoc.Unimplemented(protoregistry.GlobalFiles, openapidoc.Package, openapidoc.Types())
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(openapi.Document)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			listed[method+" "+path] = op != nil
		}
	}
	s := platentest.Start(t, platentest.SQLite())
	tenant := s.Bootstrap(t, "acme", "acme-shop")
	staff := s.Staff(t, "grace@example.com")
	protoregistry.GlobalFiles.RangeFilesByPackage(openapidoc.Package, func(fd protoreflect.FileDescriptor) bool {
		for i := 0; i < fd.Services().Len(); i++ {
			methods := fd.Services().Get(i).Methods()
			for j := 0; j < methods.Len(); j++ {
				md := methods.Get(j)
				method, path := httpRoute(md)
				if path == "" {
					continue
				}
				key := method + " " + path
				switch {
				case unimplemented[md.FullName()] && listed[key]:
					t.Errorf("%s (%s) is not implemented, yet listed", key, md.FullName())
				case !unimplemented[md.FullName()] && !listed[key]:
					t.Errorf("%s (%s) is implemented, yet not listed", key, md.FullName())
				}
				if unimplemented[md.FullName()] {
					token := tenant.Token
					if md.Parent().Name() == "OperatorService" {
						token = staff.Token
					}
					r := s.Do(t, method, anyParams.ReplaceAllString(path, "x"), token, map[string]any{})
					if r.Status != http.StatusNotImplemented {
						t.Errorf("%s answered %d, want 501", key, r.Status)
					}
				}
			}
		}
		return true
	})
}

var anyParams = regexp.MustCompile(`\{[^}]*\}`)

// httpRoute is a method's REST route as the document writes it.
func httpRoute(md protoreflect.MethodDescriptor) (method, path string) {
	rule, _ := proto.GetExtension(md.Options(), annotations.E_Http).(*annotations.HttpRule)
	switch p := rule.GetPattern().(type) {
	case *annotations.HttpRule_Get:
		method, path = http.MethodGet, p.Get
	case *annotations.HttpRule_Put:
		method, path = http.MethodPut, p.Put
	case *annotations.HttpRule_Post:
		method, path = http.MethodPost, p.Post
	case *annotations.HttpRule_Delete:
		method, path = http.MethodDelete, p.Delete
	case *annotations.HttpRule_Patch:
		method, path = http.MethodPatch, p.Patch
	default:
		return "", ""
	}
	if i := strings.Index(path, "="); i >= 0 {
		path = path[:i] + path[strings.Index(path[i:], "}")+i:]
	}
	return method, path
}
