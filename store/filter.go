package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// filtered tells whether q keeps only some chunks.
func (q Query) filtered() bool { return q.SourcePrefix != "" || len(q.Metadata) > 0 }

// sqliteFilter returns the condition, over gochunk_chunks c joined with
// gochunk_documents d, that a chunk meets q's filters, and its arguments.
func sqliteFilter(q Query) (string, []any) {
	var conds []string
	var args []any
	if q.SourcePrefix != "" {
		conds = append(conds, `substr(c.document_id, 1, ?) = ?`)
		args = append(args, len([]rune(q.SourcePrefix)), q.SourcePrefix)
	}
	for _, k := range slices.Sorted(maps.Keys(q.Metadata)) {
		conds = append(conds, `coalesce(CAST(json_extract(c.metadata, '$.' || json_quote(?)) AS TEXT),
			CAST(json_extract(d.metadata, '$.' || json_quote(?)) AS TEXT)) = ?`)
		args = append(args, k, k, q.Metadata[k])
	}
	return strings.Join(conds, " AND "), args
}

// maxFilterScan is the most chunks a filter may keep for a vector search
// to score them all (exactly) rather than filter the index's candidates.
const maxFilterScan = 4096

// allowed returns the ids of the chunks with vectors that q's filters
// keep.
func (s *SQLite) allowed(ctx context.Context, q Query) (map[int64]bool, error) {
	return filteredChunks(ctx, s.rdb, q, "c.embedding IS NOT NULL AND ")
}

// filteredChunks returns the ids of the chunks q's filters keep, read
// through db, with the further condition extra (ending in AND) when not
// empty.
func filteredChunks(ctx context.Context, db querier, q Query, extra string) (map[int64]bool, error) {
	cond, args := sqliteFilter(q)
	rows, err := db.QueryContext(ctx, `SELECT c.id FROM gochunk_chunks c JOIN gochunk_documents d ON d.id = c.document_id WHERE `+extra+cond, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]bool{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out[id] = true
	}
	return out, rows.Err()
}

// filteredVectorSearch finds the k nearest of the chunks q's filters keep:
// by the index, its candidates filtered as they are ranked, when many
// are kept; by scoring every one kept when few are, or when the index
// found fewer than k (so a filtered search returns k hits when k exist).
func (s *SQLite) filteredVectorSearch(ctx context.Context, q Query) ([]candidate, error) {
	keep, err := s.allowed(ctx, q)
	if err != nil {
		return nil, err
	}
	if len(keep) > maxFilterScan && !q.Exact {
		best, ok, err := s.ivfSearchKeep(ctx, q, keep)
		if err != nil {
			return nil, err
		}
		if ok && len(best) >= min(q.K, len(keep)) {
			return best, nil
		}
	}
	ids := make([]candidate, 0, len(keep))
	for id := range keep {
		ids = append(ids, candidate{rowid: id})
	}
	slices.SortFunc(ids, func(a, b candidate) int { return int(a.rowid - b.rowid) })
	best, err := s.rescore(ctx, q, ids)
	if err != nil {
		return nil, err
	}
	if len(best) < min(q.K, len(keep)) {
		return nil, errors.New("chunks disappeared during the search: search again")
	}
	return best, nil
}

// MetadataFilter returns the Query.Metadata of a filter given as JSON
// values (an API's or a tool's "where" object): strings as they are,
// booleans as 1 and 0 and numbers as written without a fraction when
// whole (3, 2.5), which is how the stores compare metadata. It refuses
// an empty key and values that are not a string, a number or a boolean.
func MetadataFilter(where map[string]any) (map[string]string, error) {
	if len(where) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(where))
	for k, v := range where {
		if k == "" {
			return nil, errors.New("where: an empty key; give metadata keys with the values to keep")
		}
		switch v := v.(type) {
		case string:
			out[k] = v
		case bool:
			out[k] = "0"
			if v {
				out[k] = "1"
			}
		case float64:
			out[k] = strconv.FormatFloat(v, 'f', -1, 64)
		case json.Number:
			out[k] = v.String()
		default:
			return nil, fmt.Errorf("where %q: want a string, a number or a boolean to compare the metadata value with, not %s", k, jsonKind(v))
		}
	}
	return out, nil
}

// jsonKind names a decoded JSON value's kind for an error.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "that value"
}
