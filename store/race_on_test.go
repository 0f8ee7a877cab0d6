//go:build race

package store

// raceEnabled lets the tests that build stores past the vector index's
// training size leave the race detector out: SQLite's Go code runs ten to
// fifty times slower under it, and those tests hold no goroutines of their
// own (the plain go test runs them in full).
const raceEnabled = true
