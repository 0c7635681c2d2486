package main

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"golang.org/x/sync/errgroup"
	"google.golang.org/protobuf/proto"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/notify"
	"github.com/durabletodos/agenttodos/tests/sessiontest"
	"github.com/durabletodos/agenttodos/todo"
	"github.com/durabletodos/agenttodos/workflows"
)

type bench struct {
	o options
	c client.Client
	r *report

	hostPort, namespace string
	// queue is where startSession starts sessions; empty: agent-sessions.
	queue string
}

// opTimeout bounds one client call; nothing here should come near it.
const opTimeout = 30 * time.Second

// listItems is the size of the list every write carries: a small plan, like
// an agent's.
const listItems = 5

// benchList is write k of a plan that moves on one step per write (the first
// k%6 items completed, the next in progress), so the counts change on every
// write and every write pays for its search-attribute upsert, as a working
// agent's writes do.
func benchList(k int) []byte {
	done := k % (listItems + 1)
	b := []byte(`{"todos":[`)
	for i := range listItems {
		if i > 0 {
			b = append(b, ',')
		}
		status := todo.Pending
		switch {
		case i < done:
			status = todo.Completed
		case i == done:
			status = todo.InProgress
		}
		b = append(b, `{"content":"Step `...)
		b = strconv.AppendInt(b, int64(i+1), 10)
		b = append(b, `: refactor the session log reader and rerun the tests","status":"`...)
		b = append(b, status...)
		b = append(b, `"}`...)
	}
	return append(b, "]}"...)
}

func (b *bench) startSession(id string, in workflows.SessionInput) error {
	queue := b.queue
	if queue == "" {
		queue = contract.TaskQueue
	}
	return b.startSessionOn(queue, id, in)
}

func (b *bench) startSessionOn(queue, id string, in workflows.SessionInput) error {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	_, err := b.c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue}, contract.WorkflowType, in)
	return err
}

func (b *bench) startNoop(id string) error {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	_, err := b.c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: contract.TaskQueue}, noopWorkflowType)
	return err
}

// update sends one update and waits for its result, as `h.write` in the
// e2e tests and any client does.
func (b *bench) update(id, name string, args []byte, into any) error {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	return sessiontest.Update(ctx, b.c, id, "", name, args, into)
}

func (b *bench) write(id string, args []byte) (todo.WriteResult, error) {
	var res todo.WriteResult
	err := b.update(id, contract.UpdateTodoWrite, args, &res)
	return res, err
}

func (b *bench) noopWrite(id string, args []byte) error {
	var res noopResult
	return b.update(id, noopUpdate, args, &res)
}

func (b *bench) query(id, name string, into any) error {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	return sessiontest.Query(ctx, b.c, id, name, into)
}

func (b *bench) queryTodos(id string) error {
	var st todo.State
	return b.query(id, contract.QueryTodos, &st)
}

func (b *bench) queryNoop(id string) error {
	var res noopResult
	return b.query(id, noopQuery, &res)
}

// parallel runs fn(0..n-1) on at most the given number of goroutines and
// returns the first error; after an error no new call starts.
func parallel(n, goroutines int, fn func(i int) error) error {
	var g errgroup.Group
	g.SetLimit(goroutines)
	failed := atomic.Bool{}
	for i := range n {
		if failed.Load() {
			break
		}
		g.Go(func() error {
			if err := fn(i); err != nil {
				failed.Store(true)
				return err
			}
			return nil
		})
	}
	return g.Wait()
}

// memory: baseline RSS and heap of the process (embedded server + worker),
// then the same with the configured number of live sessions, each holding a
// small list; then as many BenchNoop workflows with one no-op update each,
// to show what Temporal itself costs per live workflow.
func (b *bench) memory() error {
	b.r.memBefore = readMemory()
	b.r.goroutinesBefore = runtime.NumGoroutine()
	if err := b.liveSessions("rss"); err != nil {
		return err
	}
	b.r.memAfter = readMemory()
	b.r.goroutinesAfter = runtime.NumGoroutine()
	if b.o.memProfile != "" {
		if err := writeHeapProfile(b.o.memProfile); err != nil {
			return err
		}
	}
	err := parallel(b.o.sessions, b.o.concurrency, func(i int) error {
		id := fmt.Sprintf("rss-noop-%d", i)
		if err := b.startNoop(id); err != nil {
			return err
		}
		return b.noopWrite(id, benchList(i))
	})
	if err != nil {
		return err
	}
	b.r.memNoop = readMemory()
	b.r.goroutinesNoop = runtime.NumGoroutine()
	// The first sessions also pay for everything the process sets up on
	// first use; as many again, after the no-op workflows, show the
	// marginal cost of one more session.
	if err := b.liveSessions("rss-more"); err != nil {
		return err
	}
	b.r.memMore = readMemory()
	return nil
}

// liveSessions starts the configured number of sessions and writes a small
// list to each, so each is a live, cached workflow holding a plan.
func (b *bench) liveSessions(prefix string) error {
	return parallel(b.o.sessions, b.o.concurrency, func(i int) error {
		id := fmt.Sprintf("%s-%d", prefix, i)
		if err := b.startSession(id, workflows.SessionInput{}); err != nil {
			return err
		}
		_, err := b.write(id, benchList(i))
		return err
	})
}

// workerOnlyMemory runs the same number of sessions on a worker that is a
// process of its own, without the server, and reads that process's memory.
func (b *bench) workerOnlyMemory() error {
	ch, err := startChild(b.hostPort, b.namespace)
	if err != nil {
		return err
	}
	defer ch.stop()
	if b.r.childBefore, err = ch.memory(); err != nil {
		return err
	}
	err = parallel(b.o.sessions, b.o.concurrency, func(i int) error {
		id := fmt.Sprintf("worker-only-%d", i)
		if err := b.startSessionOn(childQueue, id, workflows.SessionInput{}); err != nil {
			return err
		}
		_, err := b.write(id, benchList(i))
		return err
	})
	if err != nil {
		return err
	}
	b.r.childAfter, err = ch.memory()
	return err
}

// updateLatency alternates one todo_write and one no-op update, so both see
// the same load on the machine at the same moments.
func (b *bench) updateLatency() error {
	ours, base := "lat-ours", "lat-noop"
	if err := b.startSession(ours, workflows.SessionInput{}); err != nil {
		return err
	}
	if err := b.startNoop(base); err != nil {
		return err
	}
	// A third session has a webhook subscriber told of every write: the
	// write must not wait for its delivery.
	rcv := newReceiver()
	defer rcv.Close()
	subscribed := "lat-subscribed"
	if err := b.startSession(subscribed, workflows.SessionInput{Subscribers: []notify.Subscriber{
		{ID: "bench", URL: rcv.URL, SecretName: benchSecretName},
	}}); err != nil {
		return err
	}
	args := func(k int) []byte { return benchList(k) }
	b.r.listBytes = len(benchList(1))
	var discard latencies
	for k := range b.o.warmup {
		if err := discard.time(func() error { _, err := b.write(ours, args(k)); return err }); err != nil {
			return err
		}
		if err := discard.time(func() error { return b.noopWrite(base, args(k)) }); err != nil {
			return err
		}
		if err := discard.time(func() error { _, err := b.write(subscribed, args(k)); return err }); err != nil {
			return err
		}
	}
	for k := range b.o.updates {
		a := args(b.o.warmup + k)
		if err := b.r.updOurs.time(func() error { _, err := b.write(ours, a); return err }); err != nil {
			return err
		}
		if err := b.r.updBase.time(func() error { return b.noopWrite(base, a) }); err != nil {
			return err
		}
		if err := b.r.updSubscribed.time(func() error { _, err := b.write(subscribed, a); return err }); err != nil {
			return err
		}
	}
	// Every change is a notification; the step waits for the last to be
	// delivered, and reports how long after the last write that was.
	b.r.notifications = int64(b.o.warmup + b.o.updates)
	lastWrite := time.Now()
	for time.Since(lastWrite) < opTimeout {
		var subs []workflows.SubscriberStatus
		if err := b.query(subscribed, contract.QuerySubscribers, &subs); err != nil {
			return err
		}
		if len(subs) == 1 && subs[0].Pending == 0 {
			b.r.drained = time.Since(lastWrite)
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	b.r.delivered = rcv.count()
	// The receiver goes away with this step: unsubscribe, or the session
	// would retry its last notification through the steps that follow.
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	h, err := b.c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: subscribed, UpdateName: contract.UpdateUnsubscribe, Args: []any{notify.Unsubscribe{ID: "bench"}},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err == nil {
		err = h.Get(ctx, nil)
	}
	return err
}

// queryLatency measures `todos` on a session with one write and on one with
// many, beside the no-op query, interleaved.
func (b *bench) queryLatency() error {
	one, many, base := "query-1", "query-many", "lat-noop"
	for _, id := range []string{one, many} {
		if err := b.startSession(id, workflows.SessionInput{}); err != nil {
			return err
		}
	}
	if _, err := b.write(one, benchList(1)); err != nil {
		return err
	}
	// Four writers at once: sessions continue as new several times on the
	// way. A write that fails is retried twice, unless the session is
	// wedged (its workflow task keeps failing), which the report shows.
	var done atomic.Int64
	err := parallel(b.o.manyWrites, 4, func(k int) error {
		for attempt := 0; ; attempt++ {
			_, err := b.write(many, benchList(k))
			if err == nil {
				done.Add(1)
				return nil
			}
			if attempt >= 2 || strings.Contains(err.Error(), "failed state") {
				return err
			}
			b.r.noteError("writes on one session (retried)", err)
			time.Sleep(100 * time.Millisecond)
		}
	})
	b.r.manyDone = done.Load()
	if err != nil {
		b.r.manyErr = err
		b.r.noteError("writes on one session (gave up)", err)
	} else {
		var st todo.State
		if err := b.query(many, contract.QueryTodos, &st); err != nil {
			return err
		}
		b.r.manySeq = st.Seq
	}
	b.r.manyRuns = b.countRuns(many)

	ops := []func() error{func() error { return b.queryTodos(one) }, func() error { return b.queryNoop(base) }}
	samples := []*latencies{&b.r.qOne, &b.r.qBase}
	if b.r.manyErr == nil {
		ops = append(ops, func() error { return b.queryTodos(many) })
		samples = append(samples, &b.r.qMany)
	}
	var discard latencies
	for range b.o.warmup {
		for _, op := range ops {
			if err := discard.time(op); err != nil {
				return err
			}
		}
	}
	for range b.o.queries {
		for i, op := range ops {
			if err := samples[i].time(op); err != nil {
				return err
			}
		}
	}
	return nil
}

// countRuns follows the continue-as-new chain back from the current run.
func (b *bench) countRuns(id string) int {
	runs, runID := 0, ""
	for {
		ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
		it := b.c.GetWorkflowHistory(ctx, id, runID, false, 0)
		if !it.HasNext() {
			cancel()
			return runs
		}
		ev, err := it.Next()
		cancel()
		if err != nil {
			return runs
		}
		runs++
		runID = ev.GetWorkflowExecutionStartedEventAttributes().GetContinuedExecutionRunId()
		if runID == "" {
			return runs
		}
	}
}

func (b *bench) events(id string) ([]*historypb.HistoryEvent, error) {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	it := b.c.GetWorkflowHistory(ctx, id, "", false, 0)
	var out []*historypb.HistoryEvent
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			return nil, err
		}
		out = append(out, ev)
	}
	return out, nil
}

func sizeOf(events []*historypb.HistoryEvent) int {
	n := 0
	for _, e := range events {
		n += proto.Size(e)
	}
	return n
}

// historyGrowth counts the events and bytes N writes add to a session's
// history, beside N no-op updates, and keeps the breakdown of the last write.
func (b *bench) historyGrowth() error {
	ours, base := "history-ours", "history-noop"
	// No continue-as-new of our own in the middle of the measurement.
	if err := b.startSession(ours, workflows.SessionInput{ContinueAsNewAfterEvents: workflows.MaxContinueAsNewAfterEvents}); err != nil {
		return err
	}
	if err := b.startNoop(base); err != nil {
		return err
	}
	if _, err := b.write(ours, benchList(0)); err != nil {
		return err
	}
	if err := b.noopWrite(base, benchList(0)); err != nil {
		return err
	}
	before, err := b.events(ours)
	if err != nil {
		return err
	}
	baseBefore, err := b.events(base)
	if err != nil {
		return err
	}
	var beforeLast, baseBeforeLast []*historypb.HistoryEvent
	n := b.o.historyWrites
	for k := 1; k <= n; k++ {
		if k == n {
			if beforeLast, err = b.events(ours); err != nil {
				return err
			}
			if baseBeforeLast, err = b.events(base); err != nil {
				return err
			}
		}
		if _, err := b.write(ours, benchList(k)); err != nil {
			return err
		}
		if err := b.noopWrite(base, benchList(k)); err != nil {
			return err
		}
	}
	after, err := b.events(ours)
	if err != nil {
		return err
	}
	baseAfter, err := b.events(base)
	if err != nil {
		return err
	}
	b.r.histWrites = n
	b.r.histEvents = float64(len(after)-len(before)) / float64(n)
	b.r.histBytes = float64(sizeOf(after)-sizeOf(before)) / float64(n)
	b.r.histBaseEvents = float64(len(baseAfter)-len(baseBefore)) / float64(n)
	b.r.histBaseBytes = float64(sizeOf(baseAfter)-sizeOf(baseBefore)) / float64(n)
	for _, e := range after[len(beforeLast):] {
		b.r.lastWrite = append(b.r.lastWrite, eventSize{name: e.GetEventType().String(), bytes: proto.Size(e)})
	}
	for _, e := range baseAfter[len(baseBeforeLast):] {
		b.r.lastNoop = append(b.r.lastNoop, eventSize{name: e.GetEventType().String(), bytes: proto.Size(e)})
	}
	return nil
}

type eventSize struct {
	name  string
	bytes int
}

// throughput runs the configured number of goroutines, each writing to its
// own session as fast as it can, for fixed rounds in a symmetric order so
// drifting load on the machine weighs on every kind alike: ours (the plan
// moves on every write), no-op, ours with a list whose counts never change
// (no search-attribute upsert), then the same in reverse.
// errorNotes keeps a count per distinct error, for the report.
type errorNotes struct {
	mu     sync.Mutex
	counts map[string]int
}

func (e *errorNotes) noteError(where string, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.counts == nil {
		e.counts = map[string]int{}
	}
	msg := err.Error()
	if len(msg) > 200 {
		msg = msg[:200] + "…"
	}
	e.counts[where+": "+msg]++
}

// copyErrors adds another run's errors, under where.
func (e *errorNotes) copyErrors(where string, from *errorNotes) {
	from.mu.Lock()
	defer from.mu.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.counts == nil {
		e.counts = map[string]int{}
	}
	for k, n := range from.counts {
		e.counts[where+": "+k] += n
	}
}

func (e *errorNotes) lines() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for k, n := range e.counts {
		out = append(out, fmt.Sprintf("%d × %s", n, k))
	}
	sort.Strings(out)
	return out
}
