// Package progress draws a one-line progress bar on a terminal.
package progress

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Bar reports progress towards a total on one line of w, redrawn at most
// ten times a second. A nil *Bar does nothing, so callers need not check
// whether progress is wanted.
type Bar struct {
	mu    sync.Mutex
	w     io.Writer
	label string
	unit  string // set for a count of unknown total (NewCounter)
	total int64
	done  int64
	start time.Time
	last  time.Time
}

// New returns a bar, or nil when enabled is false.
func New(w io.Writer, label string, total int64, enabled bool) *Bar {
	if !enabled {
		return nil
	}
	return &Bar{w: w, label: label, total: total, start: time.Now()}
}

// NewCounter returns a bar for work of unknown size: it shows how many
// units (documents, say) are done and at what rate; nil when enabled is
// false.
func NewCounter(w io.Writer, label, unit string, enabled bool) *Bar {
	if !enabled {
		return nil
	}
	return &Bar{w: w, label: label, unit: unit, total: -1, start: time.Now()}
}

// Add records n more units done.
func (b *Bar) Add(n int64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done += n
	if now := time.Now(); now.Sub(b.last) >= 100*time.Millisecond || b.done >= b.total && b.total >= 0 {
		b.last = now
		b.draw()
	}
}

// Finish draws the final state and ends the line.
func (b *Bar) Finish() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.draw()
	fmt.Fprintln(b.w)
}

func (b *Bar) draw() {
	if b.unit != "" {
		fmt.Fprintf(b.w, "\r%s: %d %s (%.1f/s)", b.label, b.done, b.unit, float64(b.done)/max(time.Since(b.start).Seconds(), 1e-9))
		return
	}
	frac := 1.0
	if b.total > 0 {
		frac = min(float64(b.done)/float64(b.total), 1)
	}
	const width = 30
	full := int(frac * width)
	rate := float64(b.done) / max(time.Since(b.start).Seconds(), 1e-9) / 1e6
	fmt.Fprintf(b.w, "\r%s [%s%s] %3.0f%% %.1f MB/s", b.label, strings.Repeat("=", full), strings.Repeat(" ", width-full), frac*100, rate)
}

// Downloads returns a function that draws download progress ("file: done /
// total MB") on w, one line per file, safe for concurrent use.
func Downloads(w io.Writer) func(done, total int64, file string) {
	var mu sync.Mutex
	return func(done, total int64, file string) {
		mu.Lock()
		defer mu.Unlock()
		if total > 0 {
			fmt.Fprintf(w, "\rdownloading %s: %.1f / %.1f MB", file, float64(done)/1e6, float64(total)/1e6)
			if done >= total {
				fmt.Fprintln(w)
			}
		}
	}
}
