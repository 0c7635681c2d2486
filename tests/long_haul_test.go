package tests

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/tests/sessiontest"
	"github.com/durabletodos/agenttodos/todo"
	"github.com/durabletodos/agenttodos/todo/todotest"
	"github.com/durabletodos/agenttodos/workflows"
)

// TestLongHaulSessionAccountsForEverything drives one session across several
// continue-as-new crossings with everything a long agent session sees at
// once: model turns, todo_write updates and signals from outside while the
// model works, queued user messages and prompts someone waits on. At the end
// every accepted write, message and prompt is accounted for exactly once.
func TestLongHaulSessionAccountsForEverything(t *testing.T) {
	t.Parallel()
	cs := stepModel(t, 20*time.Millisecond)
	h := newHarness(t, harnessOptions{models: chatConfig(cs, "test-key")})
	id := uniqueID("long-haul")
	h.start(id, workflows.SessionInput{ContinueAsNewAfterEvents: 60, MaxTurnsPerPrompt: 40})

	const updates, signals, messages, prompts, steps = 30, 30, 10, 5, 3
	var mu sync.Mutex
	updateSeqs := map[string]int64{}
	answers := map[string]string{}
	var wg sync.WaitGroup
	pace := func(i int) { time.Sleep(time.Duration(40+i%3*15) * time.Millisecond) }
	wg.Go(func() {
		for i := range updates {
			uid := fmt.Sprint("haul-update-", i)
			res, err := h.on(id).Write(uid, todotest.OneItem(uid))
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			updateSeqs[uid] = res.Seq
			mu.Unlock()
			pace(i)
		}
	})
	wg.Go(func() {
		for i := range signals {
			h.on(id).Signal(contract.SignalTodoWrite, json.RawMessage(todotest.OneItem(fmt.Sprint("haul-signal-", i))))
			pace(i)
		}
	})
	wg.Go(func() {
		for i := range messages {
			h.on(id).Signal(contract.SignalUserMessage, fmt.Sprintf("long %d: message %d", steps, i))
			pace(i * 7)
		}
	})
	wg.Go(func() {
		for i := range prompts {
			text := fmt.Sprintf("long %d: prompt %d", steps, i)
			answer, err := h.on(id).Prompt("", text)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			answers[text] = answer
			mu.Unlock()
		}
	})
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}

	tasks := []string{}
	for i := range messages {
		tasks = append(tasks, fmt.Sprintf("long %d: message %d", steps, i))
	}
	for i := range prompts {
		tasks = append(tasks, fmt.Sprintf("long %d: prompt %d", steps, i))
	}
	var hist []todo.Snapshot
	sessiontest.WaitFor(t, 2*time.Minute, "every signal and every task's last step", func() bool {
		hist = h.on(id).History()
		return signalled(hist) == signals && allStepsDone(hist, tasks, steps)
	})

	for i := 1; i < len(hist); i++ {
		if hist[i].Seq <= hist[i-1].Seq {
			t.Fatalf("seq went back: %d after %d", hist[i].Seq, hist[i-1].Seq)
		}
	}
	counts := sourceCounts(hist)
	for uid, seq := range updateSeqs {
		if counts[uid] != 1 {
			t.Errorf("update %s recorded %d times", uid, counts[uid])
		}
		if i, ok := findSeq(hist, seq); !ok || hist[i].Source.ID != uid {
			t.Errorf("update %s answered seq %d, which history does not hold as its own", uid, seq)
		}
	}
	contents := map[string]int{}
	for _, sn := range hist {
		if sn.Source.Kind == todo.SourceSignal {
			contents[sn.Todos[0].Content]++
			if counts[sn.Source.ID] != 1 {
				t.Errorf("signal source ID %s used %d times", sn.Source.ID, counts[sn.Source.ID])
			}
		}
	}
	for i := range signals {
		if n := contents[fmt.Sprint("haul-signal-", i)]; n != 1 {
			t.Errorf("signal %d applied %d times", i, n)
		}
	}
	for _, task := range tasks {
		for k := 1; k <= steps; k++ {
			if n := counts[stepCallID(task, k)]; n != 1 {
				t.Errorf("%q step %d applied %d times", task, k, n)
			}
		}
	}
	for text, answer := range answers {
		if answer != "done: "+text {
			t.Errorf("prompt %q answered %q", text, answer)
		}
	}
	if len(updateSeqs) != updates || len(answers) != prompts {
		t.Fatalf("%d updates and %d prompts answered", len(updateSeqs), len(answers))
	}
	if runs := len(h.on(id).RunInputs()); runs < 4 {
		t.Fatalf("%d runs, want at least 3 continue-as-new crossings", runs)
	}
	if total := updates + signals + (messages+prompts)*steps; len(hist) != total {
		t.Fatalf("history holds %d snapshots, want %d", len(hist), total)
	}
	h.replay(id)
}

func signalled(hist []todo.Snapshot) int {
	n := 0
	for _, sn := range hist {
		if sn.Source.Kind == todo.SourceSignal {
			n++
		}
	}
	return n
}

func allStepsDone(hist []todo.Snapshot, tasks []string, steps int) bool {
	counts := sourceCounts(hist)
	for _, task := range tasks {
		if counts[stepCallID(task, steps)] == 0 {
			return false
		}
	}
	return true
}

func findSeq(hist []todo.Snapshot, seq int64) (int, bool) {
	for i := range hist {
		if hist[i].Seq == seq {
			return i, true
		}
	}
	return 0, false
}
