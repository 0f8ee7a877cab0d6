//go:build race

package chunkers_test

// raceEnabled skips the live-heap measurement under the race detector,
// which slows the chunkers tenfold and changes what the heap holds; the
// plain go test measures it.
const raceEnabled = true
