package main

import (
	"strings"
	"testing"

	"github.com/durabletodos/agenttodos/todo"
)

func TestChecklistRoundTrip(t *testing.T) {
	st := todo.State{Seq: 7, Todos: []todo.Item{
		{Content: "Read the code", Status: todo.Completed},
		{Content: "Write the fix", Status: todo.InProgress},
		{Content: "two\nlines", Status: todo.Pending},
		{Content: `"quoted"`, Status: todo.Pending},
		{Content: " padded ", Status: todo.Pending},
		{Content: "- [x] looks like an item", Status: todo.Pending},
	}}
	text := renderChecklist("demo", st)
	if !strings.Contains(text, "- [x] Read the code\n- [~] Write the fix\n- [ ] \"two\\nlines\"\n") {
		t.Fatalf("checklist:\n%s", text)
	}
	got, err := parseChecklist(text)
	if err != nil || !samePlan(got, st.Todos) {
		t.Fatalf("read back %+v, %v", got, err)
	}
	if items, err := parseChecklist("# all gone\n\n"); err != nil || len(items) != 0 {
		t.Fatalf("empty checklist: %+v %v", items, err)
	}
	if items, err := parseChecklist("* [X] Done\n  - [ ] Indented\n"); err != nil || len(items) != 2 || items[0].Status != todo.Completed {
		t.Fatalf("other spellings: %+v %v", items, err)
	}
	if _, err := parseChecklist("- [x] ok\nnot an item\n"); err == nil || !strings.HasPrefix(err.Error(), `line 2: "not an item" is not a checklist item`) {
		t.Fatalf("bad line: %v", err)
	}
}

func TestFindItem(t *testing.T) {
	items := []todo.Item{{Content: "Run the tests"}, {Content: "Run the linter"}, {Content: "Deploy"}}
	for ref, want := range map[string]int{"1": 0, "3": 2, "Deploy": 2, "deploy": 2, "linter": 1} {
		if i, err := findItem(items, ref); err != nil || i != want {
			t.Errorf("%q: %d %v", ref, i, err)
		}
	}
	for ref, want := range map[string]string{
		"4":   "no item 4: the plan has 3 items",
		"run": `"run" matches 2 items (1. Run the tests; 2. Run the linter): give its number or more of its text`,
		"x":   `no item matches "x"`,
	} {
		if _, err := findItem(items, ref); err == nil || err.Error() != want {
			t.Errorf("%q: %v", ref, err)
		}
	}
}
