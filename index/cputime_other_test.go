//go:build !unix

package index

import "time"

// cpuTime returns 0: the CPU time is not measured here.
func cpuTime() time.Duration { return 0 }
