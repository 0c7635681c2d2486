package mcpserver

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/todo"
)

// watcher polls one session's plan while clients are subscribed to it, and
// sends notifications/resources/updated when its seq changes, whoever wrote.
//
// It polls because a Temporal query cannot wait for a change, and a waiting
// update would add history events to the session for every watcher. Each
// tick is one DescribeWorkflowExecution, answered by the server from the
// workflow's state without waking the worker; only when the history grew
// (or the run changed: continue-as-new) does it run the todos query, which
// the worker answers. An idle agent's plan thus costs the worker nothing.
type watcher struct {
	mu      sync.Mutex
	running bool
	// where is where the session was when last checked.
	runID  string
	length int64
	seq    int64
}

// subscribe starts the watcher if it is not running. It reads the plan
// before it answers, so a change made after the subscription is confirmed
// is never mistaken for the starting point.
func (b *Bound) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	if req.Params.URI != ResourceURI(b.ID) {
		return fmt.Errorf("no resource %q on this server (it serves %s)", req.Params.URI, ResourceURI(b.ID))
	}
	w := &b.watch
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.running {
		return nil
	}
	runID, length, err := b.position(ctx)
	if err != nil {
		return err
	}
	plan, err := b.plan(ctx)
	if err != nil {
		return err
	}
	w.runID, w.length, w.seq, w.running = runID, length, plan.Seq, true
	go b.watchLoop(b.sessions.ctx)
	return nil
}

// position is the session's current run and its history length.
func (b *Bound) position(ctx context.Context) (string, int64, error) {
	qctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	d, err := b.sessions.opts.Client.DescribeWorkflowExecution(qctx, b.ID, "")
	if err != nil {
		return "", 0, err
	}
	info := d.GetWorkflowExecutionInfo()
	return info.GetExecution().GetRunId(), info.GetHistoryLength(), nil
}

func (b *Bound) watchLoop(ctx context.Context) {
	t := time.NewTicker(b.sessions.opts.Poll)
	defer t.Stop()
	w := &b.watch
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if !b.connected() {
			// The last client left; the next subscription starts afresh.
			w.mu.Lock()
			w.running = false
			w.mu.Unlock()
			return
		}
		if err := b.check(ctx); err != nil && ctx.Err() == nil {
			b.sessions.opts.Logger.Warn("watching the plan", "session", b.ID, "error", err)
		}
	}
}

// check notifies subscribers if the plan's seq moved since the last check.
func (b *Bound) check(ctx context.Context) error {
	w := &b.watch
	runID, length, err := b.position(ctx)
	if err != nil {
		return err
	}
	w.mu.Lock()
	same := runID == w.runID && length == w.length
	w.mu.Unlock()
	if same {
		return nil
	}
	qctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	v, err := b.sessions.opts.Client.QueryWorkflow(qctx, b.ID, runID, contract.QueryTodos)
	if err != nil {
		return err
	}
	var st todo.State
	if err := v.Get(&st); err != nil {
		return err
	}
	w.mu.Lock()
	changed := st.Seq != w.seq
	w.runID, w.length, w.seq = runID, length, st.Seq
	w.mu.Unlock()
	if changed {
		return b.Server.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: ResourceURI(b.ID)})
	}
	return nil
}

// connected says some MCP session is still using this server.
func (b *Bound) connected() bool {
	for range b.Server.Sessions() {
		return true
	}
	return false
}
