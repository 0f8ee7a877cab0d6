package budget

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

func TestReserve(t *testing.T) {
	b := New(100, 1)
	ctx := context.Background()
	if _, err := b.Reserve(ctx, 101, time.Second); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("over the budget: %v", err)
	}
	r1, err := b.Reserve(ctx, 60, time.Second)
	if err != nil || b.Reserved() != 60 {
		t.Fatal(err)
	}
	if _, err := b.Reserve(ctx, 50, 20*time.Millisecond); !errors.Is(err, ErrBusy) {
		t.Fatalf("does not fit: %v", err)
	}
	// One waits (the queue holds one) and gets its bytes when they are
	// given back; a second waiter is refused at once.
	var wg sync.WaitGroup
	var waited error
	wg.Go(func() {
		r, err := b.Reserve(ctx, 50, 2*time.Second)
		waited = err
		if err == nil {
			r()
		}
	})
	for b.waiting.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	if _, err := b.Reserve(ctx, 50, time.Second); !errors.Is(err, ErrBusy) {
		t.Errorf("queue full: %v", err)
	}
	r1()
	r1() // twice is harmless
	wg.Wait()
	if waited != nil || b.Reserved() != 0 {
		t.Errorf("waiter: %v, %d reserved", waited, b.Reserved())
	}
}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"1073741824": 1 << 30, "2GiB": 2 << 30, "512 MiB": 512 << 20, "1.5GB": 1_500_000_000, "10kb": 10_000, "0": 0} {
		if got, err := ParseBytes(in); err != nil || got != want {
			t.Errorf("%q: %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "GiB", "2 parsecs", "-3"} {
		if _, err := ParseBytes(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	if Format(3<<29) != "1.5 GiB" || Format(512) != "512 B" {
		t.Errorf("format: %s %s", Format(3<<29), Format(512))
	}
	if SystemLimit() <= 0 {
		t.Log("no memory limit readable here")
	}
}

// A reservation grows as its work learns what it holds: past the whole
// budget it is refused as too large, past what is free as busy (after its
// wait), and Release gives back all it grew to.
func TestReservationGrows(t *testing.T) {
	b := New(100, 4)
	ctx := context.Background()
	r, err := b.Take(ctx, 30, 10*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Grow(ctx, 40); err != nil || r.Size() != 70 || b.Reserved() != 70 {
		t.Fatalf("grow: %v, size %d, reserved %d", err, r.Size(), b.Reserved())
	}
	if err := r.Grow(ctx, 31); !errors.Is(err, ErrTooLarge) || r.Size() != 70 {
		t.Fatalf("past the budget: %v, size %d", err, r.Size())
	}
	other, err := b.Take(ctx, 25, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Grow(ctx, 10); !errors.Is(err, ErrBusy) || r.Size() != 70 {
		t.Fatalf("past what is free: %v, size %d", err, r.Size())
	}
	// Through a context, as a reader grows it; without one, nothing.
	rctx := NewContext(ctx, r)
	if err := Grow(rctx, 5); err != nil || r.Size() != 75 {
		t.Fatalf("through the context: %v, size %d", err, r.Size())
	}
	if err := Grow(ctx, 1<<40); err != nil {
		t.Fatalf("no reservation: %v", err)
	}
	r.Shrink(50)
	if r.Size() != 25 || b.Reserved() != 50 {
		t.Fatalf("shrunk: size %d, reserved %d", r.Size(), b.Reserved())
	}
	r.Shrink(1000) // keeps one byte
	if r.Size() != 1 {
		t.Fatalf("shrunk past its size: %d", r.Size())
	}
	r.Release()
	r.Release()
	r.Shrink(1)
	other.Release()
	if b.Reserved() != 0 {
		t.Fatalf("%d reserved after release", b.Reserved())
	}
	if err := r.Grow(ctx, 1); err == nil {
		t.Fatal("a released reservation grew")
	}
	if b.Reserved() != 0 {
		t.Fatalf("%d reserved after a refused grow", b.Reserved())
	}
	// Concurrent growth keeps the books: every byte taken is given back.
	r, _ = b.Take(ctx, 1, time.Second)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 10 {
				r.Grow(ctx, 1)
			}
		})
	}
	wg.Wait()
	if r.Size() != 81 || b.Reserved() != 81 {
		t.Fatalf("concurrent grows: size %d, reserved %d", r.Size(), b.Reserved())
	}
	r.Release()
	if b.Reserved() != 0 {
		t.Fatalf("%d reserved", b.Reserved())
	}
}
