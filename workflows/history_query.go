package workflows

import (
	"cmp"
	"slices"
	"strconv"

	"go.temporal.io/sdk/temporal"

	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/todo"
)

// historyPage answers todo_history: a page of snapshots, each with its change
// against the one before. Changes are computed when asked for, never stored
// or carried: they cost nothing until someone reads them. The page is bounded
// as sessionlog.Page bounds one, changes included; a change that would take
// one snapshot past the budget on its own (megabyte lists rewritten whole) is
// left out, so a page never grows past what a query may answer.
func (s *session) historyPage(req sessionlog.PageRequest) ([]todo.Snapshot, error) {
	lo, _ := slices.BinarySearchFunc(s.history, req.AfterSeq+1, func(sn todo.Snapshot, seq int64) int {
		return cmp.Compare(sn.Seq, seq)
	})
	out := []todo.Snapshot{}
	size := 0
	for i := lo; i < len(s.history) && (req.Limit <= 0 || len(out) < req.Limit); i++ {
		sn := s.history[i]
		n := snapshotBytes(&sn)
		if before, ok := s.planBefore(sn.Seq); ok {
			c := todo.Diff(before, sn.Todos)
			if cn := c.EncodedSize(); n+cn <= sessionlog.MaxPageBytes {
				sn.Change, n = &c, n+cn
			}
		}
		if size+n > sessionlog.MaxPageBytes && len(out) > 0 {
			break
		}
		size += n
		out = append(out, sn)
	}
	return out, nil
}

// snapshotBytes bounds a snapshot's encoded size without its change.
func snapshotBytes(sn *todo.Snapshot) int {
	return todo.EncodedSize(sn.Todos) + 160 + todo.EncodedStringSize(sn.Source.By) + todo.EncodedStringSize(sn.Source.Note)
}

// planBefore is the plan the snapshot at seq replaced: the previous snapshot,
// or the empty plan before a session's first write. After continue-as-new
// dropped older snapshots, the oldest kept one's predecessor is unknown.
func (s *session) planBefore(seq int64) ([]todo.Item, bool) {
	i, ok := s.snapshotIndex(seq)
	switch {
	case !ok:
		return nil, false
	case i > 0:
		return s.history[i-1].Todos, true
	}
	return []todo.Item{}, s.runs == 1
}

// DiffRequest is the todo_diff query's argument; ToSeq 0 means the current
// plan.
type DiffRequest struct {
	FromSeq int64 `json:"fromSeq"`
	ToSeq   int64 `json:"toSeq"`
}

// DiffResult is the plan's change between the plans as they were at FromSeq
// and at ToSeq (each the newest snapshot at or before that seq).
type DiffResult struct {
	FromSeq int64       `json:"fromSeq"`
	ToSeq   int64       `json:"toSeq"`
	Change  todo.Change `json:"change"`
	// Writes are the snapshots between the two, who wrote them and why.
	Writes []DiffWrite `json:"writes"`
}

// DiffWrite is one write between the two seqs of a diff.
type DiffWrite struct {
	Seq    int64       `json:"seq"`
	Source todo.Source `json:"source"`
}

// maxDiffWrites bounds the writes a diff lists, so the answer stays small.
const maxDiffWrites = 1000

// diff answers todo_diff.
func (s *session) diff(req DiffRequest) (DiffResult, error) {
	if req.ToSeq == 0 {
		req.ToSeq = s.current.Seq
	}
	from, err := s.planAt(req.FromSeq)
	if err != nil {
		return DiffResult{}, err
	}
	to, err := s.planAt(req.ToSeq)
	if err != nil {
		return DiffResult{}, err
	}
	res := DiffResult{FromSeq: req.FromSeq, ToSeq: req.ToSeq, Change: todo.Diff(from, to), Writes: []DiffWrite{}}
	if n := res.Change.EncodedSize(); n > sessionlog.MaxPageBytes {
		return DiffResult{}, temporal.NewNonRetryableApplicationError("the change from seq "+strconv.FormatInt(req.FromSeq, 10)+
			" to seq "+strconv.FormatInt(req.ToSeq, 10)+" is too large to answer ("+strconv.Itoa(n)+
			" bytes); read the two plans in todo_history instead", ErrTypeDiffTooLarge, nil)
	}
	size := 0
	lo, hi := min(req.FromSeq, req.ToSeq), max(req.FromSeq, req.ToSeq)
	for i := range s.history {
		if sn := &s.history[i]; sn.Seq > lo && sn.Seq <= hi && len(res.Writes) < maxDiffWrites && size < sessionlog.MaxPageBytes {
			res.Writes = append(res.Writes, DiffWrite{Seq: sn.Seq, Source: sn.Source})
			size += 96 + len(sn.Source.ID) + todo.EncodedStringSize(sn.Source.By) + todo.EncodedStringSize(sn.Source.Note)
		}
	}
	return res, nil
}

// planAt is the plan as it was at seq: the newest snapshot at or before it.
func (s *session) planAt(seq int64) ([]todo.Item, error) {
	if seq < 0 || seq > s.seq {
		return nil, errSeq("seq " + strconv.FormatInt(seq, 10) + " is not in this session (seq 0 to " + strconv.FormatInt(s.seq, 10) + ")")
	}
	i := len(s.history) - 1
	for i >= 0 && s.history[i].Seq > seq {
		i--
	}
	if i >= 0 {
		return s.history[i].Todos, nil
	}
	if s.runs == 1 || len(s.history) == 0 {
		return []todo.Item{}, nil
	}
	return nil, errSeq("seq " + strconv.FormatInt(seq, 10) + " is older than the history this session still keeps (from seq " +
		strconv.FormatInt(s.history[0].Seq, 10) + ")")
}

// Error types of a todo_diff the session cannot answer: a seq it cannot
// show, or a change too large for a query's answer.
const (
	ErrTypeSeqOutOfRange = "SeqOutOfRange"
	ErrTypeDiffTooLarge  = "DiffTooLarge"
)

func errSeq(msg string) error {
	return temporal.NewNonRetryableApplicationError(msg, ErrTypeSeqOutOfRange, nil)
}
