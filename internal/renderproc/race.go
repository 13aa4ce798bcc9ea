//go:build race

package renderproc

// The race detector maps its shadow memory as the program's data, which a
// data limit would refuse: under it only the supervisor's watch on the
// child's resident memory holds the limit (tests are built with -race).
const raceEnabled = true
