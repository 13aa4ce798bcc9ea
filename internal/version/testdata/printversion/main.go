// Command printversion prints version.Read() as platen version does, for
// version_test.go to build with and without a stamp.
package main

import (
	"fmt"

	"github.com/platen-print/platen/internal/version"
)

func main() {
	fmt.Println(version.Read())
}
