package server_test

import "google.golang.org/protobuf/types/known/wrapperspb"

func wrap(s string) *wrapperspb.StringValue { return wrapperspb.String(s) }
