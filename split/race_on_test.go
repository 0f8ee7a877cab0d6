//go:build race

package split

// raceEnabled skips the live-heap measurements under the race detector,
// which changes what the heap holds; the plain go test measures them.
const raceEnabled = true
