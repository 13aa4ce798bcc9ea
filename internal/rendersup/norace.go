//go:build !race

package rendersup

const raceEnabled = false
