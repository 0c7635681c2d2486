package workflows

import (
	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/todo"
)

// What continue-as-new carries is the next run's input, one payload, and a
// payload over Temporal's blob limit (2 MiB by default) would fail the
// workflow task for good. The carry is sized as encoded:
//   - the current list always, packed: at most 4/3 of its content bytes plus
//     a few bytes per item (about 350 KB at the default limits);
//   - the conversation the model still sees (conversationBudgetBytes), the
//     input's script and system prompt (bounded in input_bounds.go);
//   - queued messages up to carryInboxBytes, answered update IDs up to
//     carryAnsweredBytes;
//   - older snapshots while the total stays within carryBudget.
const (
	carryBudget        = 1 << 20
	carryInboxBytes    = 64 << 10
	carryAnsweredBytes = 64 << 10
	// historyTail is the most snapshots that survive continue-as-new.
	historyTail = 1000
	// snapshotOverhead approximates a carried snapshot's JSON beyond its list.
	snapshotOverhead = 128
)

// carry is what the next run starts from.
func (s *session) carry() *Carry {
	c := &Carry{
		Seq:              s.seq,
		Log:              s.conversationToCarry(),
		ConversationFrom: s.conversationFrom,
		ScriptTurn:       s.scriptTurn,
		Runs:             s.runs,
		Prompts:          s.prompts,
		Resuming:         s.resuming,
		TurnsUsed:        s.turnsUsed,
		Signals:          s.signalCount,
		Answered:         s.answered.newest(carryAnsweredBytes),
		Outside:          s.outside,
	}
	used := inputBytes(s.in)
	for _, e := range c.Log {
		used += len(e.Data) + len(e.Type) + 64
	}
	for _, p := range s.inbox {
		c.Inbox = append(c.Inbox, p.text)
		used += todo.EncodedStringSize(p.text) + 4
	}
	for _, a := range c.Answered {
		used += a.size()
	}
	for _, src := range c.Outside {
		used += sourceBytes(src)
	}
	subs, subsBytes := s.subscribersToCarry()
	c.Subscribers = subs
	used += subsBytes
	c.Snapshots = s.snapshotsToCarry(carryBudget - used)
	return c
}

// snapshotsToCarry is the newest part of the history: always the current
// list, then older snapshots while they fit in room, at most historyTail.
func (s *session) snapshotsToCarry(room int) []CarriedSnapshot {
	var rev []CarriedSnapshot
	size := 0
	for i := len(s.history) - 1; i >= 0 && len(rev) < historyTail; i-- {
		snap := &s.history[i]
		packed := todo.Pack(snap.Todos)
		n := (len(packed)+2)/3*4 + snapshotOverhead + sourceBytes(snap.Source)
		if len(rev) > 0 && size+n > room {
			break
		}
		size += n
		rev = append(rev, CarriedSnapshot{Seq: snap.Seq, Todos: packed, At: snap.At, Source: snap.Source})
	}
	out := make([]CarriedSnapshot, len(rev))
	for i := range rev {
		out[len(rev)-1-i] = rev[i]
	}
	return out
}

// sourceBytes is what a source's writer and note add to its encoding (at
// most contract.MaxWriterBytes and contract.MaxNoteBytes, as JSON).
func sourceBytes(src todo.Source) int {
	return todo.EncodedStringSize(src.By) + todo.EncodedStringSize(src.Note) + 32
}

// inputBytes approximates the encoded size of the input the carry rides in.
func inputBytes(in SessionInput) int {
	return 512 + todo.EncodedStringSize(in.Prompt) + todo.EncodedStringSize(in.SystemPrompt) + len(in.Model) + in.scriptBytes()
}

// restore takes over what the previous run carried.
func (s *session) restore(c *Carry) error {
	s.seq, s.log = c.Seq, c.Log
	s.conversationFrom, s.scriptTurn, s.runs = c.ConversationFrom, c.ScriptTurn, c.Runs+1
	s.resuming, s.turnsUsed, s.prompts = c.Resuming, c.TurnsUsed, c.Prompts
	s.signalCount = c.Signals
	s.outside = c.Outside
	s.answered.restore(c.Answered)
	for _, text := range c.Inbox {
		s.inbox = append(s.inbox, &prompt{text: text})
	}
	switch {
	case len(c.Snapshots) > 0:
		s.history = make([]todo.Snapshot, 0, len(c.Snapshots))
		for _, cs := range c.Snapshots {
			items, err := todo.Unpack(cs.Todos)
			if err != nil {
				return err
			}
			s.history = append(s.history, todo.Snapshot{Seq: cs.Seq, Todos: items, Counts: todo.CountOf(items), At: cs.At, Source: cs.Source})
		}
		last := s.history[len(s.history)-1]
		s.current = todo.State{Todos: last.Todos, Counts: last.Counts, Seq: last.Seq, UpdatedAt: last.At}
	case c.Current != nil:
		s.history, s.current = c.History, *c.Current
		if s.current.Todos == nil {
			s.current.Todos = []todo.Item{}
		}
	}
	if len(s.current.Todos) > 0 {
		s.remind = sessionlog.ReminderContinuedAsNew
	}
	return nil
}
