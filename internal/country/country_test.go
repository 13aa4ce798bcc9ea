package country

import "testing"

func TestLookup(t *testing.T) {
	for code, want := range map[int]string{4: "AF", 40: "AT", 276: "DE", 826: "GB", 840: "US", 894: "ZM"} {
		if c, ok := Lookup(code); !ok || c.Alpha2 != want {
			t.Errorf("Lookup(%d) = %+v, %v; want %s", code, c, ok, want)
		}
	}
	for _, code := range []int{-1, 0, 1, 150, 891, 983, 999, 1000} {
		if c, ok := Lookup(code); ok {
			t.Errorf("Lookup(%d) = %+v; want no country", code, c)
		}
	}
	if len(countries) != 249 {
		t.Errorf("%d countries; ISO 3166-1 has 249", len(countries))
	}
}
