package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gochunk/gochunk/internal/pgtest"
	"github.com/gochunk/gochunk/store"
)

// benchCorpus writes n documents of about 3 KB cut from the development
// corpora (../shared/eval/chroma) at paragraph breaks, each with its own
// first line, and returns their directory and total size.
func benchCorpus(b *testing.B, n int) (string, int64) {
	base := filepath.Join("..", "..", "shared", "eval", "chroma")
	var paras []string
	for _, name := range []string{"wikitexts.md", "state_of_the_union.md", "chatlogs.md"} {
		text, err := os.ReadFile(filepath.Join(base, name))
		if err != nil {
			b.Skipf("skipping: the development corpora are not here (%v)", err)
		}
		for _, p := range strings.Split(string(text), "\n\n") {
			if strings.TrimSpace(p) != "" {
				paras = append(paras, p)
			}
		}
	}
	dir := b.TempDir()
	var total int64
	k := 0
	for i := range n {
		var sb strings.Builder
		fmt.Fprintf(&sb, "Document %d.", i)
		for sb.Len() < 3000 {
			sb.WriteString("\n\n" + paras[k%len(paras)])
			k++
		}
		sub := filepath.Join(dir, fmt.Sprintf("%02d", i/1000))
		os.MkdirAll(sub, 0o755)
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("doc%05d.md", i)), []byte(sb.String()), 0o644); err != nil {
			b.Fatal(err)
		}
		total += int64(sb.Len())
	}
	return dir, total
}

// benchIndex indexes the corpus into a fresh store, then again with
// nothing changed, and reports documents/s, chunks/s, MB/s and the
// rerun's share of the first run's time.
func benchIndex(b *testing.B, open func() store.Store) {
	dir, size := benchCorpus(b, 1000)
	p := newPipeline(b, `{}`)
	ctx := context.Background()
	b.ResetTimer()
	var first, again time.Duration
	var chunks int
	for range b.N {
		st := open()
		began := time.Now()
		sum, err := Run(ctx, st, p, []Source{Files{Root: dir}}, Options{Embed: true, Jobs: 2})
		if err != nil {
			b.Fatal(err)
		}
		first += time.Since(began)
		chunks = sum.ChunksWritten
		began = time.Now()
		if sum, err = Run(ctx, st, p, []Source{Files{Root: dir}}, Options{Embed: true, Jobs: 2}); err != nil || sum.Documents.Unchanged != 1000 {
			b.Fatal(sum, err)
		}
		again += time.Since(began)
		st.Close()
	}
	s := first.Seconds() / float64(b.N)
	b.ReportMetric(1000/s, "docs/s")
	b.ReportMetric(float64(chunks)/s, "chunks/s")
	b.ReportMetric(float64(size)/1e6/s, "MB/s")
	b.ReportMetric(100*again.Seconds()/first.Seconds(), "rerun-%")
}

func BenchmarkIndexSQLite(b *testing.B) {
	benchIndex(b, func() store.Store {
		st, err := store.Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"))
		if err != nil {
			b.Fatal(err)
		}
		return st
	})
}

func BenchmarkIndexPostgres(b *testing.B) {
	dsn := pgtest.Start(b)
	benchIndex(b, func() store.Store {
		st, err := store.Open(context.Background(), dsn)
		if err != nil {
			b.Fatal(err)
		}
		// A fresh store each time: drop what the last one wrote.
		for _, t := range []string{"gochunk_chunks", "gochunk_documents", "gochunk_meta"} {
			st.(*store.Postgres).Pool().Exec(context.Background(), "DROP TABLE IF EXISTS "+t+" CASCADE")
		}
		return st
	})
}
