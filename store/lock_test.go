package store

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Two openers preparing one new SQLite file at once both succeed: the
// schema is created once, the other waits for it (it got "UNIQUE
// constraint failed: gochunk_meta.key" or SQLITE_BUSY when transactions
// took the write lock only at their first write).
func TestSQLiteConcurrentPrepare(t *testing.T) {
	for round := range 5 {
		path := filepath.Join(t.TempDir(), "s.db")
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for i := range errs {
			wg.Go(func() {
				st, err := OpenSQLite(t.Context(), path)
				if err != nil {
					errs[i] = err
					return
				}
				defer st.Close()
				if errs[i] = st.Prepare(t.Context(), 8); errs[i] == nil {
					errs[i] = st.SetMeta(t.Context(), "embedder", "lexical")
				}
			})
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d, opener %d: %v", round, i, err)
			}
		}
	}
}

// LockRun lets one run hold a store at a time: the second waits, told
// who holds it, and gets the store when the first releases it; a
// cancelled wait returns the context's error.
func TestSQLiteLockRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db")
	open := func() *SQLite {
		st, err := OpenSQLite(t.Context(), path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	first, second := open(), open()
	release, err := first.LockRun(t.Context(), func(string) { t.Error("the first run waited") })
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	var holder string
	if _, err := second.LockRun(ctx, func(h string) { holder = h }); err != context.DeadlineExceeded {
		t.Fatalf("a wait cancelled: %v", err)
	}
	if !strings.Contains(holder, "another gochunk index run") || !strings.Contains(holder, "process ") {
		t.Errorf("holder %q", holder)
	}
	got := make(chan error, 1)
	waited := make(chan string, 1)
	go func() {
		rel, err := second.LockRun(t.Context(), func(h string) { waited <- h })
		if err == nil {
			err = rel()
		}
		got <- err
	}()
	<-waited // the second run is waiting: let it have the store
	if err := release(); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatal(err)
	}
}
