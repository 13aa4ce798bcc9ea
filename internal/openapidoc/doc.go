// Package openapidoc is everything about Platen's OpenAPI document: it makes
// the OpenAPI 3.1 document from the protos (Generate, generate.go, run by
// cmd/platen-openapi into gen/openapi), names the gRPC service types whose
// routes it lists (Types), writes the API reference of docs/ from it
// (Markdown), and serves it at /openapi.json with a Redoc page at /docs
// (Document, Page and Script, serve.go).
package openapidoc
