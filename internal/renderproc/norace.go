//go:build !race

package renderproc

const raceEnabled = false
