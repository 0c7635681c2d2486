package todo

import "time"

// SourceKind says where an accepted write came from.
type SourceKind string

// Where a write can come from: a Temporal update, a signal, or the model's own
// tool call inside the agent loop.
const (
	SourceUpdate SourceKind = "update"
	SourceSignal SourceKind = "signal"
	SourceModel  SourceKind = "model"
	// SourceEdit is the todo_edit update: a write checked against the seq
	// its writer last saw.
	SourceEdit SourceKind = "edit"
)

// Source identifies one write: the update ID, the signal's request ID or the
// model's tool call ID; and, for writes from outside, who says they wrote it
// (the contract.HeaderWriter header; empty when the writer did not say) and
// why (a todo_edit's note).
type Source struct {
	Kind SourceKind `json:"kind"`
	ID   string     `json:"id"`
	By   string     `json:"by,omitempty"`
	Note string     `json:"note,omitempty"`
}

// WriteResult is what a todo_write returns: the accepted list, its counts,
// the model-facing message and the seq the write was recorded at.
type WriteResult struct {
	Todos   []Item `json:"todos"`
	Counts  Counts `json:"counts"`
	Message string `json:"message"`
	Seq     int64  `json:"seq"`
}

// State is the current list as the todos query returns it; seq 0 and an empty
// list before any write.
type State struct {
	Todos     []Item    `json:"todos"`
	Counts    Counts    `json:"counts"`
	Seq       int64     `json:"seq"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// Snapshot is one accepted write in the session's history.
type Snapshot struct {
	Seq    int64     `json:"seq"`
	Todos  []Item    `json:"todos"`
	Counts Counts    `json:"counts"`
	At     time.Time `json:"at"`
	Source Source    `json:"source"`
	// Change is what this snapshot changed against the one before it; the
	// todo_history query fills it in, and leaves it out for the oldest
	// snapshot a continued session still keeps, whose predecessor is gone.
	Change *Change `json:"change,omitempty"`
}
