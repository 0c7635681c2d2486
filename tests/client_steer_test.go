package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/durabletodos/agenttodos/todo"
)

// TestClientItemCommandsEditAndNameTheWriter: the item commands change one
// item each with a conflict-checked edit, as the person --as names; history
// reads as a changelog and diff shows a range.
func TestClientItemCommandsEditAndNameTheWriter(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	const id = "client-items"
	if _, errOut, code := h.runClient("start", "--id", id); code != 0 {
		t.Fatal(errOut)
	}
	t.Cleanup(func() { h.runClient("cancel", id) })
	if _, errOut, code := h.runClient("write", id, "--as", "bot", "--todo", "doing:Write the fix", "--todo", "p:Run the tests", "--todo", "p:Update the docs"); code != 0 {
		t.Fatal(errOut)
	}
	steps := [][]string{
		{"item", "add", id, "Back", "up", "the", "database", "--at", "1", "--as", "alice", "-m", "backup first"},
		{"item", "complete", id, "back up", "--as", "alice"},
		{"item", "move", id, "docs", "2", "--as", "alice"},
		{"item", "start", id, "3", "--as", "alice"},
		{"item", "remove", id, "Run the tests", "--as", "alice"},
	}
	for _, args := range steps {
		if out, errOut, code := h.runClient(args...); code != 0 || !strings.HasPrefix(out, "Updated todo list: ") {
			t.Fatalf("%q: exit %d\n%s%s", args, code, out, errOut)
		}
	}
	want := plan("completed:Back up the database", "pending:Update the docs", "in_progress:Write the fix")
	if st := h.on(id).Todos(); st.Seq != 6 || !samePlan(st.Todos, want) {
		t.Fatalf("plan after the item commands: %+v", st)
	}
	hist := h.on(id).History()
	if hist[0].Source.By != "bot" || hist[1].Source.By != "alice" || hist[1].Source.Note != "backup first" || hist[1].Source.Kind != todo.SourceEdit {
		t.Fatalf("sources: %+v", hist)
	}

	_, errOut, code := h.runClient("item", "start", id, "tests")
	if code != 1 || strings.TrimSpace(errOut) != `client: no item matches "tests"` {
		t.Fatalf("unknown item: %q %d", errOut, code)
	}

	out, _, _ := h.runClient("history", id)
	for _, line := range []string{
		"  + Back up the database — by alice, seq 2\n",
		"  ✓ Back up the database — by alice, seq 3\n",
		"  ↕ Update the docs (4 → 2) — by alice, seq 4\n",
		"  − Run the tests — by alice, seq 6\n",
	} {
		if !strings.Contains(out, line) {
			t.Errorf("history lacks %q:\n%s", line, out)
		}
	}
	out, _, code = h.runClient("diff", id, "1", "3")
	if wantDiff := "Plan from seq 1 to seq 3, 2 writes: alice (\"backup first\") at seq 2; alice at seq 3\n  + Back up the database (completed)\n"; code != 0 || out != wantDiff {
		t.Fatalf("diff:\n%s\nwant:\n%s", out, wantDiff)
	}
}

// TestClientEditInTheEditorSurvivesAConflict: `client edit` opens the plan as
// a checklist; while the person edits, someone else writes; the edit is
// refused, the client shows what changed and, told yes, re-opens the editor
// on top of the current plan; the second save applies.
func TestClientEditInTheEditorSurvivesAConflict(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	const id = "client-edit"
	if _, errOut, code := h.runClient("start", "--id", id); code != 0 {
		t.Fatal(errOut)
	}
	t.Cleanup(func() { h.runClient("cancel", id) })
	if _, errOut, code := h.runClient("write", id, "--todo", "doing:Write the fix", "--todo", "p:Run the tests"); code != 0 {
		t.Fatal(errOut)
	}
	// The "editor": the first time, someone else writes while the person
	// edits; each time, the person marks the fix done and adds an item.
	dir := t.TempDir()
	editor := filepath.Join(dir, "editor.sh")
	script := `#!/bin/sh
set -e
cp "$1" "` + dir + `/seen-$(ls ` + dir + ` | wc -l)"
if [ ! -e "` + dir + `/wrote" ]; then
  touch "` + dir + `/wrote"
  "$CLIENT" --address "$ADDR" --namespace "$NS" write ` + id + ` --as bob --todo "doing:Write the fix" --todo "p:Run the tests" --todo "p:Ask for review" >/dev/null
fi
sed -i -e 's/^- \[~\] Write the fix$/- [x] Write the fix/' -e '/^- \[ \] Run the tests$/a - [ ] Update the changelog' "$1"
`
	if err := os.WriteFile(editor, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"EDITOR=" + editor, "VISUAL=", "CLIENT=" + buildClient(t), "ADDR=" + shared.server.GetFrontendHostPort(), "NS=" + shared.server.GetDefaultNamespace()}
	out, errOut, code := h.runClientWith(env, "y\n", "edit", id, "--as", "alice", "-m", "fix done")
	if code != 0 {
		t.Fatalf("edit: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		"The plan changed while you edited it (todo_edit conflict: expectedSeq is 1 but the plan is at seq 2):\n",
		"  Plan from seq 1 to seq 2, 1 write: bob at seq 2\n    + Ask for review\n",
		"Re-open the editor on top of the current plan? [Y/n] ",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if !strings.HasPrefix(out, "Updated todo list: 3 pending, 0 in progress, 1 completed.\n  + Update the changelog\n  ✓ Write the fix\n") {
		t.Errorf("stdout:\n%s", out)
	}
	first, _ := os.ReadFile(filepath.Join(dir, "seen-1"))
	if want := "# Plan of session client-edit at seq 1.\n" + checklistHelpForTest + "- [~] Write the fix\n- [ ] Run the tests\n"; string(first) != want {
		t.Errorf("the editor opened:\n%s\nwant:\n%s", first, want)
	}
	second, _ := os.ReadFile(filepath.Join(dir, "seen-3"))
	if !strings.Contains(string(second), "- [ ] Ask for review\n#\n# Your version, NOT applied") || !strings.Contains(string(second), "# - [ ] Update the changelog\n") {
		t.Errorf("the editor re-opened:\n%s", second)
	}
	want := plan("completed:Write the fix", "pending:Run the tests", "pending:Update the changelog", "pending:Ask for review")
	st := h.on(id).Todos()
	if st.Seq != 3 || !samePlan(st.Todos, want) {
		t.Fatalf("plan %+v", st)
	}
	if src := h.on(id).History()[2].Source; src.By != "alice" || src.Note != "fix done" {
		t.Fatalf("edit source %+v", src)
	}

	// Quitting without a change writes nothing.
	noop := filepath.Join(dir, "noop.sh")
	if err := os.WriteFile(noop, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, _, code = h.runClientWith([]string{"EDITOR=" + noop, "VISUAL="}, "", "edit", id)
	if code != 0 || out != "No change: the plan stays at seq 3.\n" {
		t.Fatalf("unchanged edit: %q %d", out, code)
	}
}

const checklistHelpForTest = `# One item a line, in order: "- [ ] pending", "- [~] in progress", "- [x] completed".
# Save and quit to write the plan back (a todo_edit: it applies only if nobody
# changed the plan meanwhile); quit without changes to leave it as it is.
# Lines starting with # are ignored; delete every item to clear the plan.
`
