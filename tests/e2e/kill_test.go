package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/durabletodos/agenttodos/tests/sessiontest"
	"github.com/durabletodos/agenttodos/todo"
)

// accepted is one write as its sender saw it succeed.
type accepted struct {
	updateID string
	content  string
	seq      int64
	attempts int
	// first and last attempt's start and end, to see which writes the
	// outage touched.
	start, end time.Time
}

// TestNoAcceptedWriteLostWhenWorkerIsKilled kills the worker binary (and the
// server inside it, with its SQLite file in WAL mode) while writers keep sending todo_write updates, starts a
// new one on the same data directory, and lets the writers retry with the
// same update IDs, as a careful client does when it cannot know whether a
// write took. Every write a client saw succeed must be in todo_history
// exactly once, and nothing may be applied twice.
func TestNoAcceptedWriteLostWhenWorkerIsKilled(t *testing.T) {
	t.Parallel()
	cfg := newWorkerConfig(t)
	before := startWorker(t, "before-kill", cfg)
	s := startSession(t, dial(t, cfg.Frontend), "kill-session")

	const writers = 4
	// Generous: a loaded machine can take many seconds to restart the worker.
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	var stop atomic.Bool
	var wg sync.WaitGroup
	results := make([][]accepted, writers)
	errs := make([]error, writers)
	// A t.Fatal below must not leave writers running against a closed client.
	defer func() {
		stop.Store(true)
		cancel()
		wg.Wait()
	}()
	for g := range writers {
		wg.Go(func() {
			for i := 0; !stop.Load(); i++ {
				content := fmt.Sprintf("writer %d, write %d", g, i)
				a, err := writeUntilAccepted(ctx, s, fmt.Sprintf("kill-%d-%d", g, i), content)
				if err != nil {
					errs[g] = err
					return
				}
				results[g] = append(results[g], a)
				// A steady stream, not a flood: the point is writes in flight
				// at the kill, not a history long enough to continue as new.
				time.Sleep(20 * time.Millisecond)
			}
		})
	}

	time.Sleep(1500 * time.Millisecond)
	// The server commits to a write-ahead log without waiting for the disk
	// (synchronous=NORMAL): what this test proves is that a SIGKILL loses
	// none of those commits.
	if _, err := os.Stat(filepath.Join(cfg.DataDir, "temporal.db-wal")); err != nil {
		t.Fatalf("the database is not in WAL mode: %v", err)
	}
	killedAt := time.Now()
	before.Kill()
	startWorker(t, "after-kill", cfg)
	readyAt := time.Now()
	t.Logf("worker down for %s", readyAt.Sub(killedAt).Round(time.Millisecond))
	time.Sleep(1500 * time.Millisecond)
	stop.Store(true)
	wg.Wait()
	for g, err := range errs {
		if err != nil {
			t.Fatalf("writer %d: %v", g, err)
		}
	}

	var all []accepted
	retried, atKill, duringOutage := 0, 0, 0
	for _, rs := range results {
		for _, a := range rs {
			all = append(all, a)
			if a.attempts > 1 {
				retried++
			}
			if a.start.Before(readyAt) && a.end.After(killedAt) {
				duringOutage++
			}
			if a.start.Before(killedAt) && a.end.After(killedAt) {
				atKill++
			}
		}
	}
	// The SDK retries an unreachable server inside one attempt, with the same
	// update ID, so most writes caught by the kill succeed at their first
	// attempt; ours are the second line of retries.
	t.Logf("%d writes accepted; %d in flight at the kill, %d during the outage; %d needed more than one attempt",
		len(all), atKill, duringOutage, retried)
	if duringOutage == 0 {
		t.Fatal("no write was in flight while the worker was down: the test proved nothing")
	}

	history := s.AllHistory()
	seen := map[string]todo.Snapshot{}
	for i, snap := range history {
		if i > 0 && snap.Seq <= history[i-1].Seq {
			t.Errorf("seq not strictly increasing: %d after %d", snap.Seq, history[i-1].Seq)
		}
		if len(snap.Todos) != 1 {
			t.Errorf("snapshot seq %d has %d items; every write had one", snap.Seq, len(snap.Todos))
			continue
		}
		content := snap.Todos[0].Content
		if prev, dup := seen[content]; dup {
			t.Errorf("%q applied twice: seq %d (%s) and seq %d (%s)", content, prev.Seq, prev.Source.ID, snap.Seq, snap.Source.ID)
		}
		seen[content] = snap
	}
	for _, a := range all {
		snap, ok := seen[a.content]
		switch {
		case !ok:
			t.Errorf("accepted write %s (%q, seq %d) is missing from todo_history", a.updateID, a.content, a.seq)
		case snap.Seq != a.seq || snap.Source != (todo.Source{Kind: todo.SourceUpdate, ID: a.updateID}):
			t.Errorf("write %s returned seq %d but history has seq %d from %+v", a.updateID, a.seq, snap.Seq, snap.Source)
		}
	}
	// Every write was retried until it succeeded, so history holds exactly
	// the accepted writes: anything more was applied without being accepted.
	if len(history) != len(all) {
		t.Errorf("todo_history has %d snapshots for %d accepted writes", len(history), len(all))
	}
	if len(history) > 0 {
		last := history[len(history)-1]
		if cur := s.Todos(); cur.Seq != last.Seq || !reflect.DeepEqual(cur.Todos, last.Todos) {
			t.Errorf("current list is seq %d %+v, want the highest snapshot, seq %d %+v", cur.Seq, cur.Todos, last.Seq, last.Todos)
		}
	}
}

// writeUntilAccepted sends one write and, whatever goes wrong, sends it again
// with the same update ID until it succeeds: the server and the workflow
// must make the retries of an accepted write harmless.
func writeUntilAccepted(ctx context.Context, s sessiontest.Session, updateID, content string) (accepted, error) {
	args := todosJSON([]todo.Item{{Content: content, Status: todo.InProgress}})
	a := accepted{updateID: updateID, content: content, start: time.Now()}
	for {
		a.attempts++
		attempt, cancel := context.WithTimeout(ctx, 10*time.Second)
		res, err := sessiontest.Write(attempt, s.C, s.ID, updateID, []byte(args))
		cancel()
		if err == nil {
			a.seq, a.end = res.Seq, time.Now()
			return a, nil
		}
		// A rejected list is an answer, not an outage; these lists are valid.
		if _, ok := errors.AsType[*temporal.ApplicationError](err); ok {
			return a, fmt.Errorf("write %s rejected: %w", updateID, err)
		}
		if ctx.Err() != nil {
			return a, fmt.Errorf("write %s still not accepted after %d attempts: %w", updateID, a.attempts, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
