package tests

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/durabletodos/agenttodos/tests/chattest"
)

// stepModel is a Chat Completions model whose every answer follows from the
// request, so it behaves the same however often the session continues as
// new: for the newest user message T (reminders aside) it writes the plan
// "T step 1" … "T step N" one tool call per turn, then answers "done: T".
// N is 1, or n for a message "long n: …". A call's ID names T and the step,
// so a message worked twice shows as two snapshots with one source ID.
// Like a model that reads its tool results, it sends a step again when the
// session turned it down because the plan changed from outside meanwhile
// (the stale-write result): only applied steps count.
func stepModel(t testing.TB, think time.Duration) *chattest.Server {
	return newChatServer(t, func(_ int, req chattest.Request) (int, any) {
		time.Sleep(think)
		task, results := "", 0
		for _, m := range req.Messages {
			switch {
			case m.Role == "user" && !strings.Contains(m.Text(), "<system-reminder>"):
				task, results = m.Text(), 0
			case m.Role == "tool" && !strings.HasPrefix(m.Text(), "Error: the todo list was changed by "):
				results++
			}
		}
		steps := 1
		if rest, ok := strings.CutPrefix(task, "long "); ok {
			n, _, _ := strings.Cut(rest, ":")
			steps, _ = strconv.Atoi(n)
		}
		if results >= steps {
			return 200, completion("done: " + task)
		}
		args := fmt.Sprintf(`{"todos":[{"content":%q,"status":"completed"}]}`, fmt.Sprintf("%s step %d", task, results+1))
		return 200, completion("", todoCall(fmt.Sprintf("%s/%d", task, results+1), args))
	})
}

// stepCallID is the tool call ID stepModel gives step k of task.
func stepCallID(task string, k int) string {
	return "call_" + strings.ReplaceAll(fmt.Sprintf("%s/%d", task, k), " ", "_") + "_0"
}
