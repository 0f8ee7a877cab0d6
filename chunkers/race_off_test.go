//go:build !race

package chunkers_test

const raceEnabled = false
