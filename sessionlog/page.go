package sessionlog

import (
	"cmp"
	"slices"
)

// PageRequest is the optional argument of the todo_history and session_log
// queries: entries with seq > AfterSeq, at most Limit of them (0: as many as
// fit in MaxPageBytes).
type PageRequest struct {
	AfterSeq int64 `json:"afterSeq"`
	Limit    int   `json:"limit"`
}

// MaxPageBytes bounds one page as encoded. Temporal's frontend fails any
// query result over 2 MiB, so a page stops before this much, and may
// therefore hold fewer entries than asked for: ask again after its last seq.
// A single entry larger than the budget is still returned alone.
const MaxPageBytes = 1 << 20

// Page returns the entries after req.AfterSeq, oldest first, within Limit
// and MaxPageBytes. Entries are in seq order, so the start is found by binary
// search: a query on a long session costs the same as on a short one.
func Page[T any](entries []T, seqOf func(*T) int64, sizeOf func(*T) int, req PageRequest) []T {
	lo, _ := slices.BinarySearchFunc(entries, req.AfterSeq+1, func(e T, seq int64) int {
		return cmp.Compare(seqOf(&e), seq)
	})
	out := entries[lo:]
	if req.Limit > 0 && len(out) > req.Limit {
		out = out[:req.Limit]
	}
	size := 0
	for i := range out {
		size += sizeOf(&out[i])
		if size > MaxPageBytes && i > 0 {
			out = out[:i]
			break
		}
	}
	if out == nil {
		return []T{}
	}
	return out
}

// EventSeq is an event's seq, for Page.
func EventSeq(e *Event) int64 { return e.Seq }

// EventBytes bounds an event's encoded size, for Page: its data is JSON
// already, written as is.
func EventBytes(e *Event) int { return len(e.Data) + len(e.Type) + 64 }
