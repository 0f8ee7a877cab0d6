// Package budget is a memory budget that work reserves bytes from before
// it starts: work that does not fit waits a short while in a bounded queue
// and is then refused; work that could never fit is refused at once. The
// server reserves an estimate for each request from it, so that a few
// large requests cannot take the process past its memory.
package budget

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	"golang.org/x/sync/semaphore"
)

// Errors of Reserve.
var (
	// ErrTooLarge reports a reservation larger than the whole budget.
	ErrTooLarge = errors.New("larger than the memory budget")
	// ErrBusy reports a reservation that did not fit in time, or found the
	// queue full.
	ErrBusy = errors.New("the memory budget is taken")
)

// Budget is a number of bytes shared by reservations. It is safe for
// concurrent use.
type Budget struct {
	total    int64
	sem      *semaphore.Weighted
	reserved atomic.Int64
	waiting  atomic.Int64
	queue    int64
}

// New returns a budget of total bytes where at most queue reservations
// wait at once.
func New(total int64, queue int) *Budget {
	return &Budget{total: total, sem: semaphore.NewWeighted(total), queue: int64(queue)}
}

// Total returns the budget's size in bytes.
func (b *Budget) Total() int64 { return b.total }

// Reserved returns the bytes reserved now.
func (b *Budget) Reserved() int64 { return b.reserved.Load() }

// Reserve takes n bytes from the budget, waiting at most wait (and no
// longer than ctx) for them, and returns the function that gives them
// back. It fails with ErrTooLarge when n exceeds the budget, and with
// ErrBusy when the bytes were not free in time or the queue was full.
func (b *Budget) Reserve(ctx context.Context, n int64, wait time.Duration) (release func(), err error) {
	r, err := b.Take(ctx, n, wait)
	if err != nil {
		return nil, err
	}
	return r.Release, nil
}

// Take is Reserve returning a Reservation, which the work grows as it
// learns what it will hold.
func (b *Budget) Take(ctx context.Context, n int64, wait time.Duration) (*Reservation, error) {
	n = max(n, 1)
	if err := b.acquire(ctx, n, n, wait); err != nil {
		return nil, err
	}
	return &Reservation{b: b, wait: wait, n: n}, nil
}

// acquire takes n bytes for work that will then hold total.
func (b *Budget) acquire(ctx context.Context, n, total int64, wait time.Duration) error {
	if total > b.total {
		return fmt.Errorf("%w: %s wanted, the budget is %s", ErrTooLarge, Format(total), Format(b.total))
	}
	if !b.sem.TryAcquire(n) {
		if b.waiting.Add(1) > b.queue {
			b.waiting.Add(-1)
			return fmt.Errorf("%w: %d requests already wait", ErrBusy, b.queue)
		}
		wctx, cancel := context.WithTimeout(ctx, wait)
		err := b.sem.Acquire(wctx, n)
		cancel()
		b.waiting.Add(-1)
		if err != nil {
			return fmt.Errorf("%w: %s of %s not free within %s", ErrBusy, Format(n), Format(b.total), wait)
		}
	}
	b.reserved.Add(n)
	return nil
}

// Reservation is the bytes one piece of work holds from a budget: taken
// before it starts, grown as it learns what it will hold (a document's
// expanded size, its attachments), given back at once by Release. It is
// safe for concurrent use.
type Reservation struct {
	b    *Budget
	wait time.Duration
	mu   sync.Mutex
	n    int64
	done bool
}

// Size returns the bytes held.
func (r *Reservation) Size() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}

// Grow takes n more bytes, waiting as Take does. It fails with
// ErrTooLarge when the reservation would pass the whole budget, and with
// ErrBusy when the bytes were not free in time: the work should then
// stop, and give back what it holds.
func (r *Reservation) Grow(ctx context.Context, n int64) error {
	if n <= 0 {
		return nil
	}
	r.mu.Lock()
	held, done := r.n, r.done
	r.mu.Unlock()
	if done {
		return errors.New("budget: the reservation was released; grow it before its work ends")
	}
	if err := r.b.acquire(ctx, n, held+n, r.wait); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done { // released while it waited
		r.b.reserved.Add(-n)
		r.b.sem.Release(n)
		return errors.New("budget: the reservation was released; grow it before its work ends")
	}
	r.n += n
	return nil
}

// Shrink gives n of the bytes back (all but one at most), when the work
// learns it holds less than it reserved.
func (r *Reservation) Shrink(n int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n = min(n, r.n-1)
	if r.done || n <= 0 {
		return
	}
	r.n -= n
	r.b.reserved.Add(-n)
	r.b.sem.Release(n)
}

// Release gives the bytes back; later calls do nothing.
func (r *Reservation) Release() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return
	}
	r.done = true
	r.b.reserved.Add(-r.n)
	r.b.sem.Release(r.n)
}

type ctxKey struct{}

// NewContext returns ctx carrying r, for the readers below it to grow
// (see Grow).
func NewContext(ctx context.Context, r *Reservation) context.Context {
	return context.WithValue(ctx, ctxKey{}, r)
}

// FromContext returns the reservation ctx carries, or nil.
func FromContext(ctx context.Context) *Reservation {
	r, _ := ctx.Value(ctxKey{}).(*Reservation)
	return r
}

// Grow grows the reservation ctx carries by n bytes (see
// Reservation.Grow); without one it does nothing. A reader calls it when
// it learns it will hold more than was reserved for it (a part's size, a
// PDF's pages), before it allocates them.
func Grow(ctx context.Context, n int64) error {
	if r := FromContext(ctx); r != nil {
		return r.Grow(ctx, n)
	}
	return nil
}

// ParseBytes parses a size in bytes: a number, optionally with a unit (B,
// KB, MB, GB, TB: powers of 1000; KiB, MiB, GiB, TiB: powers of 1024;
// case-insensitive).
func ParseBytes(s string) (int64, error) {
	s = strings.TrimSpace(s)
	i := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsDigit(r) && r != '.' })
	num, unit := s, ""
	if i >= 0 {
		num, unit = s[:i], strings.ToLower(strings.TrimSpace(s[i:]))
	}
	x, err := strconv.ParseFloat(num, 64)
	mult, ok := map[string]float64{"": 1, "b": 1, "k": 1e3, "kb": 1e3, "m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9, "t": 1e12, "tb": 1e12,
		"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40}[unit]
	if err != nil || !ok || x < 0 {
		return 0, fmt.Errorf("%q: want a number of bytes, optionally with a unit (2GiB, 512MB)", s)
	}
	return int64(x * mult), nil
}

// Format writes n bytes for people: "1.5 GiB".
func Format(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 40, "TiB"}, {1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.size {
			return strconv.FormatFloat(float64(n)/float64(u.size), 'f', 1, 64) + " " + u.name
		}
	}
	return strconv.FormatInt(n, 10) + " B"
}

// SystemLimit returns the memory this process may use: its cgroup's limit
// (v2 memory.max, v1 memory.limit_in_bytes) when set, else the machine's
// memory (MemTotal); 0 where neither can be read.
func SystemLimit() int64 {
	for _, p := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		if b, err := os.ReadFile(p); err == nil {
			if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && n > 0 && n < 1<<60 {
				return n
			}
		}
	}
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, _ := strconv.ParseInt(fields[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}
