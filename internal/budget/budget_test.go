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
