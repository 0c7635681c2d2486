package e2e

import (
	"context"
	"reflect"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/durabletodos/agenttodos/activities"
	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/embedded"
	"github.com/durabletodos/agenttodos/tests/sessiontest"
	"github.com/durabletodos/agenttodos/todo"
	"github.com/durabletodos/agenttodos/workflows"
)

const (
	planV1 = `{"todos":[{"content":"Reproduce the crash","status":"in_progress"},{"content":"Fix it","status":"pending"}]}`
	planV2 = `{"todos":[{"content":"Reproduce the crash","status":"completed"},{"content":"Fix it","status":"in_progress"}]}`
	planV3 = `{"todos":[{"content":"Reproduce the crash","status":"completed"},{"content":"Fix it","status":"completed"}]}`
)

// TestPlanSurvivesWorkerRestart restarts the worker binary, and with it the
// embedded server, on the same data directory: what a person does when they
// stop `go run ./worker` and start it again.
func TestPlanSurvivesWorkerRestart(t *testing.T) {
	t.Parallel()
	cfg := newWorkerConfig(t)
	a := startWorker(t, "A", cfg)
	s := startSession(t, dial(t, cfg.Frontend), "restart-worker")
	s.MustWrite("restart-1", planV1)
	s.MustWrite("restart-2", planV2)
	before, beforeHistory := s.Todos(), s.AllHistory()
	a.Stop()

	startWorker(t, "B", cfg)
	s = sessiontest.Session{T: s.T, C: dial(t, cfg.Frontend), ID: s.ID}
	checkSurvived(t, s, before, beforeHistory)
}

// TestPlanSurvivesServerRestartOnSameSQLite does the same in-process, through
// the embedded package's API, so a failure here points at the server and its
// SQLite file rather than at the worker binary.
func TestPlanSurvivesServerRestartOnSameSQLite(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()

	first := startInProcess(t, dataDir)
	s := startSession(t, first.c, "restart-server")
	s.MustWrite("restart-1", planV1)
	s.MustWrite("restart-2", planV2)
	before, beforeHistory := s.Todos(), s.AllHistory()
	first.stop()

	second := startInProcess(t, dataDir)
	checkSurvived(t, sessiontest.Session{T: s.T, C: second.c, ID: s.ID}, before, beforeHistory)
}

// checkSurvived expects the session to answer as it did before the restart
// and to keep counting seq from where it was.
func checkSurvived(t *testing.T, s sessiontest.Session, before todo.State, beforeHistory []todo.Snapshot) {
	t.Helper()
	if before.Seq != 2 || len(beforeHistory) != 2 {
		t.Fatalf("before the restart: seq %d, %d snapshots; want 2 and 2", before.Seq, len(beforeHistory))
	}
	if after := s.Todos(); !reflect.DeepEqual(after, before) {
		t.Errorf("todos after the restart = %+v\nbefore = %+v", after, before)
	}
	if after := s.AllHistory(); !reflect.DeepEqual(after, beforeHistory) {
		t.Errorf("todo_history after the restart = %+v\nbefore = %+v", after, beforeHistory)
	}
	res := s.MustWrite("restart-3", planV3)
	if res.Seq != 3 {
		t.Errorf("first write after the restart got seq %d, want 3", res.Seq)
	}
	if got := s.Todos(); got.Seq != 3 || got.Counts != (todo.Counts{Completed: 2}) {
		t.Errorf("todos after the new write = %+v, want seq 3 with both items completed", got)
	}
	if h := s.AllHistory(); len(h) != 3 || !reflect.DeepEqual(h[:2], beforeHistory) || h[2].Seq != 3 {
		t.Errorf("todo_history after the new write = %+v, want the old two then seq 3", h)
	}
}

// inProcess is an embedded server and a worker registered as the worker
// binary registers it, with the client both use.
type inProcess struct {
	t    *testing.T
	srv  *embedded.Server
	c    client.Client
	w    worker.Worker
	once sync.Once
}

func startInProcess(t *testing.T, dataDir string) *inProcess {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, err := embedded.Start(ctx, embedded.Options{
		DataDir:          dataDir,
		FrontendAddress:  "127.0.0.1:0",
		UIAddress:        embedded.UIDisabled,
		SearchAttributes: contract.SearchAttributeNames,
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.DialContext(ctx, client.Options{HostPort: srv.FrontendAddress(), Namespace: srv.Namespace(), Logger: sessiontest.QuietLogger()})
	if err != nil {
		_ = srv.Stop()
		t.Fatal(err)
	}
	w := worker.New(c, contract.TaskQueue, sessiontest.WorkerOptions())
	workflows.Register(w, &workflows.Config{SearchAttributes: true}, &activities.Todos{}, &activities.Models{Client: c})
	if err := w.Start(); err != nil {
		c.Close()
		_ = srv.Stop()
		t.Fatal(err)
	}
	p := &inProcess{t: t, srv: srv, c: c, w: w}
	t.Cleanup(p.stop)
	return p
}

// stop shuts down in the order a process exit would: worker, client,
// server. The server must be gone before the next one opens its file.
func (p *inProcess) stop() {
	p.once.Do(func() {
		p.w.Stop()
		p.c.Close()
		if err := p.srv.Stop(); err != nil {
			p.t.Errorf("stop the embedded server: %v", err)
		}
	})
}
