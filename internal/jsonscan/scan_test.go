package jsonscan

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"
)

// FuzzSplit: for any valid JSON, the one-scan splitters find the members
// and elements encoding/json finds, byte for byte.
func FuzzSplit(f *testing.F) {
	for _, seed := range []string{
		`{}`, `[]`, ` { "a" : 1 , "b":[1, {"c":"}"}], "d":"\"]"} `, `[1,"x",{"y":[]},null,true,-2.5e3]`,
		`{"k\u00e9y":"v","a":1,"a":2}`, `{"src":"data:image/png;base64,AAAA\\\\\"","x":1}`, `"s"`, `12`, `null`,
		`{"layers":[{"type":"rect","x":-2,"width":1e2,"fill":"#fff"},{"type":"text","text":"a\nb"}]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		if !json.Valid(doc) {
			t.Skip()
		}
		var wantObj map[string]json.RawMessage
		objErr := json.Unmarshal(doc, &wantObj)
		gotObj, ok := Object(doc)
		if isObject := objErr == nil && wantObj != nil; ok != isObject {
			t.Fatalf("Object(%s) ok %v, encoding/json %v", doc, ok, isObject)
		}
		if ok && !maps.EqualFunc(gotObj, wantObj, func(a, b json.RawMessage) bool { return string(a) == string(b) }) {
			t.Fatalf("Object(%s) = %q, want %q", doc, gotObj, wantObj)
		}
		var wantList []json.RawMessage
		listErr := json.Unmarshal(doc, &wantList)
		gotList, ok := Array(doc)
		if isList := listErr == nil && wantList != nil; ok != isList {
			t.Fatalf("Array(%s) ok %v, encoding/json %v", doc, ok, isList)
		}
		if ok && !slices.EqualFunc(gotList, wantList, func(a, b json.RawMessage) bool { return string(a) == string(b) }) {
			t.Fatalf("Array(%s) = %q, want %q", doc, gotList, wantList)
		}
	})
}
