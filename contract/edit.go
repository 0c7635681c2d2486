package contract

// People and programs steer a running agent with conflict-checked edits and
// say who they are in a Temporal header; README's "Contract" documents both.
const (
	// UpdateTodoEdit takes {"todos":[...], "expectedSeq": N, "note": "why"}:
	// a todo_write that applies only while the plan is still at seq N.
	UpdateTodoEdit = "todo_edit"

	// QueryTodoDiff takes {"fromSeq":A,"toSeq":B} and returns what changed
	// in the plan between those two seqs.
	QueryTodoDiff = "todo_diff"

	// HeaderWriter is the Temporal header (a JSON string payload) in which a
	// todo_write or todo_edit update names who sends it: a self-declared
	// identity, recorded with the snapshot and told to the model. Nothing
	// checks it; it says who claims to have written, not who did.
	HeaderWriter = "agent-todos-writer"

	// MaxWriterBytes and MaxNoteBytes bound what a snapshot records about its
	// writer, so that the history carried across continue-as-new stays within
	// its budget: a longer identity is cut, a longer note is rejected.
	MaxWriterBytes = 128
	MaxNoteBytes   = 1024
)
