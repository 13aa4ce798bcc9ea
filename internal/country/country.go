// Package country knows the ISO 3166-1 countries by their numeric code, the
// form a product variant's country_id takes.
package country

//go:generate go run generate.go

// Country is one ISO 3166-1 entry.
type Country struct {
	Alpha2 string
	Name   string
}

// Lookup returns the country with the numeric code, and whether there is
// one: 276 is Germany; 0, 999 and 150 (Europe, a region) are not countries.
func Lookup(code int) (Country, bool) {
	c, ok := countries[code]
	return c, ok
}
