//go:build race

package tokenize

// raceEnabled lets the heaviest randomized tests run fewer cases under
// the race detector, which slows them tenfold; the full runs are the
// plain go test's.
const raceEnabled = true
