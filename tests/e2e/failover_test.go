package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/tests/chattest"
	"github.com/durabletodos/agenttodos/tests/sessiontest"
	"github.com/durabletodos/agenttodos/workflows"
)

// TestSessionsFailOverBetweenWorkers runs two worker processes on one task
// queue of one server, writes to and prompts 20 sessions concurrently, and
// kills one worker with SIGKILL halfway. Every acknowledged write is in its
// session's history once, every prompt is answered once, and the sessions
// carry on on the survivor.
func TestSessionsFailOverBetweenWorkers(t *testing.T) {
	t.Parallel()
	const (
		queue    = "failover"
		sessions = 20
		writes   = 6
	)
	// The model answers every prompt at once with a text naming it.
	model := chattest.NewServer(t, chatAPIKey, func(_ int, req chattest.Request) (int, any) {
		last := ""
		for _, m := range req.Messages {
			if m.Role == "user" && !strings.Contains(m.Text(), "<system-reminder>") {
				last = m.Text()
			}
		}
		return 200, chattest.Completion("done: " + last)
	})
	modelEnv := []string{"OPENAI_BASE_URL=" + model.URL + "/v1", "OPENAI_API_KEY=" + chatAPIKey, "AGENT_MODEL=test-model"}

	// The cluster: a worker process that owns the embedded server and works
	// another queue, so the two workers under test are alone on theirs.
	cluster := newWorkerConfig(t)
	cluster.Env = []string{"AGENT_TASK_QUEUE=cluster-own"}
	startWorker(t, "cluster", cluster)
	workerEnv := append([]string{"TEMPORAL_ADDRESS=" + cluster.Frontend, "TEMPORAL_NAMESPACE=default", "AGENT_TASK_QUEUE=" + queue}, modelEnv...)
	a, b := newWorkerConfig(t), newWorkerConfig(t)
	a.Env, b.Env = workerEnv, workerEnv
	startWorker(t, "a", a)
	victim := startWorker(t, "b", b)

	c := dial(t, cluster.Frontend)
	ids := make([]string, sessions)
	for i := range ids {
		ids[i] = fmt.Sprintf("failover-%02d", i)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: ids[i], TaskQueue: queue}, contract.WorkflowType, workflows.SessionInput{})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
	}

	type ack struct {
		updateID string
		seq      int64
	}
	var mu sync.Mutex
	acks := map[string][]ack{}
	answers := map[string]string{}
	var wg sync.WaitGroup
	killAt := make(chan struct{})
	var once sync.Once
	for _, id := range ids {
		s := sessiontest.Session{T: t, C: c, ID: id}
		wg.Go(func() {
			for k := range writes {
				if k == writes/2 {
					once.Do(func() { close(killAt) })
				}
				uid := fmt.Sprintf("%s-w%d", id, k)
				res, err := s.Write(uid, fmt.Sprintf(`{"todos":[{"content":"%s step %d","status":"in_progress"}]}`, id, k))
				if err != nil {
					t.Errorf("%s: %v", uid, err)
					return
				}
				mu.Lock()
				acks[id] = append(acks[id], ack{uid, res.Seq})
				mu.Unlock()
			}
		})
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
				WorkflowID: id, UpdateID: id + "-prompt", UpdateName: contract.UpdatePrompt,
				Args: []any{"prompt for " + id}, WaitForStage: client.WorkflowUpdateStageCompleted,
			})
			var answer string
			if err == nil {
				err = h.Get(ctx, &answer)
			}
			if err != nil {
				t.Errorf("%s prompt: %v", id, err)
				return
			}
			mu.Lock()
			answers[id] = answer
			mu.Unlock()
		})
	}
	<-killAt
	victim.Kill()
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}

	victimID := fmt.Sprintf("%d@", victim.cmd.Process.Pid)
	moved := 0
	for _, id := range ids {
		s := sessiontest.Session{T: t, C: c, ID: id}
		// Which workers completed this session's workflow tasks, in order.
		onVictim, afterVictim := false, false
		for _, e := range s.FetchHistory("").GetEvents() {
			if at := e.GetWorkflowTaskCompletedEventAttributes(); at != nil {
				if strings.HasPrefix(at.GetIdentity(), victimID) {
					onVictim = true
				} else if onVictim {
					afterVictim = true
				}
			}
		}
		if onVictim && afterVictim {
			moved++
		}
		bySource := map[string][]int64{}
		for _, sn := range s.AllHistory() {
			bySource[sn.Source.ID] = append(bySource[sn.Source.ID], sn.Seq)
		}
		if len(acks[id]) != writes {
			t.Errorf("%s: %d writes acknowledged", id, len(acks[id]))
		}
		for _, a := range acks[id] {
			if got := bySource[a.updateID]; len(got) != 1 || got[0] != a.seq {
				t.Errorf("%s: acknowledged at seq %d, history has %v", a.updateID, a.seq, got)
			}
		}
		if want := "done: prompt for " + id; answers[id] != want {
			t.Errorf("%s answered %q", id, answers[id])
		}
		asked, answered := 0, 0
		for _, e := range s.Log() {
			switch e.Type {
			case sessionlog.UserMessage:
				asked++
			case sessionlog.AssistantMessage:
				var d sessionlog.AssistantData
				_ = json.Unmarshal(e.Data, &d)
				if d.Content == "done: prompt for "+id {
					answered++
				}
			}
		}
		if asked != 1 || answered != 1 {
			t.Errorf("%s: the prompt was asked %d times and answered %d times in the log", id, asked, answered)
		}
		// The survivor keeps the session going.
		if res := s.MustWrite(id+"-after", fmt.Sprintf(`{"todos":[{"content":"%s after the failover","status":"completed"}]}`, id)); res.Seq == 0 {
			t.Errorf("%s: no write after the failover", id)
		}
	}
	if moved == 0 {
		t.Fatal("no session moved from the killed worker to the survivor")
	}
	t.Logf("%d of %d sessions moved from the killed worker to the survivor", moved, sessions)
}
