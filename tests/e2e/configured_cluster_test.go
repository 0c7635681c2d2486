package e2e

import (
	"context"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/tests/sessiontest"
	"github.com/durabletodos/agenttodos/workflows"
)

// TestWorkerOnAConfiguredClusterStartsNothing runs a second worker with
// TEMPORAL_ADDRESS set, as in production: it must connect to that cluster and
// start no server and no UI of its own.
func TestWorkerOnAConfiguredClusterStartsNothing(t *testing.T) {
	t.Parallel()
	cluster := newWorkerConfig(t)
	startWorker(t, "cluster", cluster)

	remote := newWorkerConfig(t)
	remote.Env = []string{
		"TEMPORAL_ADDRESS=" + cluster.Frontend,
		"TEMPORAL_NAMESPACE=default",
		"AGENT_TASK_QUEUE=configured-cluster",
	}
	w := startWorker(t, "configured", remote)
	out := w.out.String()
	if strings.Contains(out, "starting the embedded server") || strings.Contains(out, "Temporal Web UI") {
		t.Fatalf("a worker with TEMPORAL_ADDRESS started an embedded server:\n%s", out)
	}
	if !strings.Contains(out, "Temporal frontend: "+cluster.Frontend) {
		t.Fatalf("worker did not report the configured cluster:\n%s", out)
	}
	if _, err := os.Stat(remote.DataDir); !os.IsNotExist(err) {
		t.Fatalf("worker created a data dir on a configured cluster (%v)", err)
	}
	for _, addr := range []string{remote.Frontend, remote.UI} {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			t.Fatalf("something listens on %s, which only an embedded server would use", addr)
		}
	}

	// Its sessions run on the configured cluster.
	c := dial(t, cluster.Frontend)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "configured-cluster", TaskQueue: "configured-cluster"},
		contract.WorkflowType, workflows.SessionInput{})
	if err != nil {
		t.Fatal(err)
	}
	s := sessiontest.Session{T: t, C: c, ID: "configured-cluster"}
	if res := s.MustWrite("", `{"todos":[{"content":"runs remotely","status":"in_progress"}]}`); res.Seq != 1 {
		t.Fatalf("write %+v", res)
	}
}
