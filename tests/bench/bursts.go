package main

import (
	"fmt"
	"sync"

	"go.temporal.io/api/enums/v1"

	"github.com/durabletodos/agenttodos/workflows"
)

// Bursts: concurrent writers on one session, the way an agent, a person and
// a couple of tools write to one plan at once.
const (
	burstRounds = 10
	burstSize   = 50
	// targetBurstSlowestMs is the slowest call any burst may take.
	targetBurstSlowestMs = 2000
)

// bursts sends burstRounds bursts of burstSize concurrent todo_write updates
// to one session, each burst followed by the same on the no-op workflow, and
// counts the session's failed workflow tasks.
func (b *bench) bursts() error {
	ours, base := "burst-ours", "burst-noop"
	if err := b.startSession(ours, workflows.SessionInput{}); err != nil {
		return err
	}
	if err := b.startNoop(base); err != nil {
		return err
	}
	var mu sync.Mutex
	burst := func(into *latencies, write func(k int) error) error {
		return parallel(burstSize, burstSize, func(k int) error {
			var l latencies
			err := l.time(func() error { return write(k) })
			mu.Lock()
			*into = append(*into, l...)
			mu.Unlock()
			return err
		})
	}
	for round := range burstRounds {
		err := burst(&b.r.burstOurs, func(k int) error {
			_, err := b.write(ours, benchList(round*burstSize+k))
			return err
		})
		if err != nil {
			return fmt.Errorf("burst %d: %w", round, err)
		}
		if err := burst(&b.r.burstBase, func(k int) error { return b.noopWrite(base, benchList(round*burstSize+k)) }); err != nil {
			return fmt.Errorf("no-op burst %d: %w", round, err)
		}
	}
	events, err := b.events(ours)
	if err != nil {
		return err
	}
	for _, e := range events {
		if e.GetEventType() == enums.EVENT_TYPE_WORKFLOW_TASK_FAILED {
			b.r.burstFailedTasks++
		}
	}
	return nil
}
