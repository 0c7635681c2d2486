package sessionlog

// PageRequest is the optional argument of the todo_history and session_log
// queries: entries with seq > AfterSeq, at most Limit of them (0: all).
type PageRequest struct {
	AfterSeq int64 `json:"afterSeq"`
	Limit    int   `json:"limit"`
}

// Page returns the entries after req.AfterSeq, oldest first. Entries are in
// seq order, so the start is found by binary search: a query on a long
// session costs the same as on a short one.
func Page[T any](entries []T, seqOf func(*T) int64, req PageRequest) []T {
	lo, hi := 0, len(entries)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if seqOf(&entries[mid]) <= req.AfterSeq {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	out := entries[lo:]
	if req.Limit > 0 && len(out) > req.Limit {
		out = out[:req.Limit]
	}
	if out == nil {
		return []T{}
	}
	return out
}
