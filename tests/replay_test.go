package tests

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/worker"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/durabletodos/agenttodos/tests/sessiontest"
	"github.com/durabletodos/agenttodos/workflows"
)

var recordHistories = flag.Bool("record-histories", false, "add the histories of replay-worthy sessions to testdata/histories (never overwriting one)")

func newReplayer(t testing.TB) worker.WorkflowReplayer {
	r := worker.NewWorkflowReplayer()
	workflows.RegisterWorkflow(r, &workflows.Config{SearchAttributes: true})
	return r
}

// replay re-runs every run of a session's real history against the current
// workflow code: any non-determinism fails the test.
func (h *harness) replay(id string) {
	h.t.Helper()
	runID := h.on(id).RunID()
	for {
		hist := h.on(id).FetchHistory(runID)
		if !hasCompletedTask(hist) {
			// A run that has only just continued as new has decided
			// nothing yet: replay it once its first task is done.
			sessiontest.WaitFor(h.t, 30*time.Second, "the newest run's first workflow task", func() bool {
				hist = h.on(id).FetchHistory(runID)
				return hasCompletedTask(hist)
			})
		}
		if err := newReplayer(h.t).ReplayWorkflowHistory(nil, hist); err != nil {
			h.t.Fatalf("replay of %s run %s: %v", id, runID, err)
		}
		if *recordHistories {
			h.record(id, runID, hist)
		}
		// Follow the chain backwards through continue-as-new.
		first := hist.GetEvents()[0].GetWorkflowExecutionStartedEventAttributes()
		if first.GetContinuedExecutionRunId() == "" {
			return
		}
		runID = first.GetContinuedExecutionRunId()
	}
}

func hasCompletedTask(hist *historypb.History) bool {
	for _, e := range hist.GetEvents() {
		if e.GetEventType() == enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED {
			return true
		}
	}
	return false
}

func (h *harness) record(id, runID string, hist *historypb.History) {
	raw, err := protojson.MarshalOptions{Indent: "  "}.Marshal(hist)
	if err != nil {
		h.t.Fatal(err)
	}
	// Recorded histories are what running sessions look like to a new
	// worker: they are added beside the older ones, never overwritten.
	path := filepath.Join("testdata/histories", id+"-"+runID+".json")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		h.t.Fatalf("recording %s: %v", path, err)
	}
	defer f.Close()
	if _, err := f.Write(raw); err != nil {
		h.t.Fatal(err)
	}
}

// TestReplayRecordedHistories replays histories recorded from real sessions
// by earlier versions of the workflow, so a change that would break running
// sessions fails here first.
func TestReplayRecordedHistories(t *testing.T) {
	files, _ := filepath.Glob("testdata/histories/*.json")
	if len(files) == 0 {
		t.Fatal("no recorded histories in testdata/histories; record them with go test ./tests -record-histories")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			if err := newReplayer(t).ReplayWorkflowHistoryFromJSONFile(nil, f); err != nil {
				t.Fatal(err)
			}
		})
	}
}
