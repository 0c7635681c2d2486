package workflows

import (
	"encoding/json"

	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/todo"
)

// validateTodoEdit rejects a bad edit, or one made against a seq the plan has
// left, before it is accepted: nothing is written for it. A retry of an edit
// already answered passes, so its handler can answer it again.
func (s *session) validateTodoEdit(ctx workflow.Context, args converter.RawValue) error {
	e, err := todo.ParseEdit([]byte(rawJSON(args)), s.cfg.Limits)
	if err != nil {
		return err
	}
	if _, ok := s.answered.lookup(contract.UpdateTodoEdit, workflow.GetCurrentUpdateInfo(ctx).ID); ok {
		return nil
	}
	if e.ExpectedSeq != s.current.Seq {
		return todo.EditConflictError(e.ExpectedSeq, s.current.Seq)
	}
	return nil
}

// onTodoEditUpdate applies an accepted edit in its turn, unless a write
// accepted before it changed the plan meanwhile: two editors of the same seq
// are both accepted when they arrive together, and the second gets the
// conflict error when its turn comes.
func (s *session) onTodoEditUpdate(ctx workflow.Context, args converter.RawValue) (todo.WriteResult, error) {
	id := workflow.GetCurrentUpdateInfo(ctx).ID
	raw := rawJSON(args)
	s.countTaskBytes(ctx, len(raw))
	list, expected, note, err := decodeAcceptedEdit(raw)
	if err != nil {
		return todo.WriteResult{}, err
	}
	if a, ok := s.answered.lookup(contract.UpdateTodoEdit, id); ok {
		return s.repeatedWrite(a, list)
	}
	src := todo.Source{Kind: todo.SourceEdit, ID: id, By: writerOf(ctx, s.cfg.DataConverter), Note: note}
	res, err := s.writeChecked(ctx, s.takeTicket(), list, src, expected)
	if err != nil {
		return res, err
	}
	s.answered.remember(AnsweredUpdate{Name: contract.UpdateTodoEdit, ID: id, Seq: res.Seq})
	s.reserveTaskBytes(ctx, todo.EncodedSize(res.Todos)+len(res.Message)+96)
	return res, nil
}

// decodeAcceptedEdit reads an edit its validator accepted, with a frozen
// decoder as decodeAccepted does: the todo_write arguments it carries, the
// seq it expects and its note.
func decodeAcceptedEdit(raw string) (list string, expected int64, note string, err error) {
	var v struct {
		Todos       json.RawMessage `json:"todos"`
		ExpectedSeq int64           `json:"expectedSeq"`
		Note        string          `json:"note"`
	}
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		return "", 0, "", err
	}
	if v.Todos == nil {
		v.Todos = json.RawMessage("[]")
	}
	return `{"todos":` + string(v.Todos) + `}`, v.ExpectedSeq, v.Note, nil
}
