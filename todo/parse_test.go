package todo

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"go.temporal.io/sdk/temporal"

	"github.com/durabletodos/agenttodos/contract"
)

func TestParseRejectsWithContractMessages(t *testing.T) {
	long := strings.Repeat("x", contract.DefaultMaxContentBytes+1)
	many := `{"todos":[` + strings.Repeat(`1,`, contract.DefaultMaxItems) + `1]}`
	var big strings.Builder
	big.WriteString(`{"todos":[`)
	for i := 0; i < 70; i++ {
		if i > 0 {
			big.WriteString(",")
		}
		big.WriteString(`{"content":"` + strings.Repeat(string(rune('a'+i%26)), 4000) + strings.Repeat("z", i) + `","status":"pending"}`)
	}
	big.WriteString(`]}`)

	cases := []struct {
		name, raw, want string
		wantType        string
	}{
		{"not json", `{"todos":`, "invalid todos: `todos` must be an array", ErrTypeInvalidTodos},
		{"array instead of object", `[]`, "invalid todos: `todos` must be an array", ErrTypeInvalidTodos},
		{"null", `null`, "invalid todos: `todos` must be an array", ErrTypeInvalidTodos},
		{"empty input", ``, "invalid todos: `todos` must be an array", ErrTypeInvalidTodos},
		{"todos missing", `{}`, "invalid todos: `todos` must be an array", ErrTypeInvalidTodos},
		{"todos not array", `{"todos":{"content":"a"}}`, "invalid todos: `todos` must be an array", ErrTypeInvalidTodos},
		{"todos null", `{"todos":null}`, "invalid todos: `todos` must be an array", ErrTypeInvalidTodos},
		{"todos missing beats unknown key", `{"extra":1}`, "invalid todos: `todos` must be an array", ErrTypeInvalidTodos},
		{"duplicate top key is not an object", `{"todos":[],"todos":[]}`, "invalid todos: `todos` must be an array", ErrTypeInvalidTodos},
		{"unknown top key", `{"todos":[],"merge":true}`, `invalid todos: unknown key "merge"`, ErrTypeInvalidTodos},
		{"empty top key", `{"todos":[],"":1}`, `invalid todos: unknown key ""`, ErrTypeInvalidTodos},
		{"empty item key", `{"todos":[{"":0,"zz":1,"content":"a","status":"pending"}]}`, `invalid todo: unknown key ""`, ErrTypeInvalidTodos},
		{"unknown top key sorted first", `{"zeta":1,"todos":[],"alpha":2}`, `invalid todos: unknown key "alpha"`, ErrTypeInvalidTodos},
		{"unknown top key before item rules", `{"todos":[1],"x":1}`, `invalid todos: unknown key "x"`, ErrTypeInvalidTodos},
		{"too many items", many, "invalid todos: at most 500 items (got 501)", ErrTypeInvalidTodos},
		{"item not object", `{"todos":[{"content":"a","status":"pending"},"b"]}`, "invalid todo: `todos[1]` must be an object", ErrTypeInvalidTodos},
		{"item null", `{"todos":[null]}`, "invalid todo: `todos[0]` must be an object", ErrTypeInvalidTodos},
		{"not-object checked before unknown key", `{"todos":[{"content":"a","status":"pending","id":1},7]}`, "invalid todo: `todos[1]` must be an object", ErrTypeInvalidTodos},
		{"unknown item key", `{"todos":[{"content":"a","status":"pending","id":"1"}]}`, `invalid todo: unknown key "id"`, ErrTypeInvalidTodos},
		{"unknown item key sorted first", `{"todos":[{"priority":1,"content":"a","status":"pending","activeForm":"x"}]}`, `invalid todo: unknown key "activeForm"`, ErrTypeInvalidTodos},
		{"content missing", `{"todos":[{"status":"pending"}]}`, "invalid todo: `content` must be a non-empty string", ErrTypeInvalidTodos},
		{"content not string", `{"todos":[{"content":5,"status":"pending"}]}`, "invalid todo: `content` must be a non-empty string", ErrTypeInvalidTodos},
		{"content empty", `{"todos":[{"content":"","status":"pending"}]}`, "invalid todo: `content` must be a non-empty string", ErrTypeInvalidTodos},
		{"content white space", `{"todos":[{"content":" \t\n","status":"pending"}]}`, "invalid todo: `content` must be a non-empty string", ErrTypeInvalidTodos},
		{"content too long", `{"todos":[{"content":"` + long + `","status":"pending"}]}`, "invalid todo: `content` exceeds 4096 bytes", ErrTypeInvalidTodos},
		{"status missing", `{"todos":[{"content":"a"}]}`, "invalid todo: `status` must be one of pending, in_progress, completed", ErrTypeInvalidTodos},
		{"status unknown", `{"todos":[{"content":"a","status":"done"}]}`, "invalid todo: `status` must be one of pending, in_progress, completed", ErrTypeInvalidTodos},
		{"status wrong case", `{"todos":[{"content":"a","status":"Pending"}]}`, "invalid todo: `status` must be one of pending, in_progress, completed", ErrTypeInvalidTodos},
		{"status not string", `{"todos":[{"content":"a","status":1}]}`, "invalid todo: `status` must be one of pending, in_progress, completed", ErrTypeInvalidTodos},
		{"content checked before status", `{"todos":[{"content":"a"},{"content":"","status":"pending"}]}`, "invalid todo: `content` must be a non-empty string", ErrTypeInvalidTodos},
		{"duplicate content", `{"todos":[{"content":"a","status":"pending"},{"content":"b","status":"pending"},{"content":"b","status":"completed"},{"content":"a","status":"pending"}]}`, `invalid todos: duplicate content "b"`, ErrTypeInvalidTodos},
		{"duplicate content quoted like JSON", `{"todos":[{"content":"say \"hi\"","status":"pending"},{"content":"say \"hi\"","status":"pending"}]}`, `invalid todos: duplicate content "say \"hi\""`, ErrTypeInvalidTodos},
		{"list too large", big.String(), "invalid todos: list exceeds 262144 bytes", ErrTypeInvalidTodos},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			items, err := Parse([]byte(tc.raw), Limits{})
			if err == nil {
				t.Fatalf("accepted %d items, want %q", len(items), tc.want)
			}
			var appErr *temporal.ApplicationError
			if !errors.As(err, &appErr) {
				t.Fatalf("error %T is not an ApplicationError", err)
			}
			if appErr.Message() != tc.want || appErr.Type() != tc.wantType || !appErr.NonRetryable() {
				t.Fatalf("got %q type %q nonRetryable %v, want %q type %q", appErr.Message(), appErr.Type(), appErr.NonRetryable(), tc.want, tc.wantType)
			}
			if ErrorResult(err) != "Error: "+tc.want {
				t.Fatalf("model sees %q", ErrorResult(err))
			}
		})
	}
}

func TestParseDuplicateAmongManyItems(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"todos":[`)
	for i := 0; i < 100; i++ {
		b.WriteString(`{"content":"task ` + strconv.Itoa(i%50) + `","status":"pending"},`)
	}
	b.WriteString(`{"content":"last","status":"pending"}]}`)
	_, err := Parse([]byte(b.String()), Limits{})
	if got := ErrorMessage(err); got != `invalid todos: duplicate content "task 0"` {
		t.Fatalf("got %q", got)
	}
}

func TestParseAcceptsAndKeepsContentExactly(t *testing.T) {
	raw := `{ "todos" : [
		{"status":"in_progress","content":"  Run the tests  "},
		{"content":"caf\u00e9 ☕ \"quoted\"","status":"pend\u0069ng"},
		{"content":"Ship","status":"completed"},
		{"content":"Also in progress","status":"in_progress"}
	]}`
	items, err := Parse([]byte(raw), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Item{
		{"  Run the tests  ", InProgress},
		{`café ☕ "quoted"`, Pending},
		{"Ship", Completed},
		{"Also in progress", InProgress},
	}
	if len(items) != len(want) {
		t.Fatalf("got %v", items)
	}
	for i := range want {
		if items[i] != want[i] {
			t.Fatalf("item %d: got %+v want %+v", i, items[i], want[i])
		}
	}
	c := CountOf(items)
	if c != (Counts{Pending: 1, InProgress: 2, Completed: 1}) {
		t.Fatalf("counts %+v", c)
	}
	if got := Message(c); got != "Updated todo list: 1 pending, 2 in progress, 1 completed." {
		t.Fatalf("message %q", got)
	}
}

func TestParseEmptyListClearsThePlan(t *testing.T) {
	items, err := Parse([]byte(`{"todos":[]}`), Limits{})
	if err != nil || len(items) != 0 {
		t.Fatalf("items %v err %v", items, err)
	}
	if got := Message(CountOf(items)); got != "Updated todo list: 0 pending, 0 in progress, 0 completed." {
		t.Fatalf("message %q", got)
	}
}

func TestParseHonoursConfiguredLimits(t *testing.T) {
	l := Limits{MaxItems: 2, MaxContentBytes: 3, MaxTotalBytes: 5}
	cases := map[string]string{
		`{"todos":[{"content":"a","status":"pending"},{"content":"b","status":"pending"},{"content":"c","status":"pending"}]}`: "invalid todos: at most 2 items (got 3)",
		`{"todos":[{"content":"abcd","status":"pending"}]}`:                                                                    "invalid todo: `content` exceeds 3 bytes",
		`{"todos":[{"content":"abc","status":"pending"},{"content":"def","status":"pending"}]}`:                                "invalid todos: list exceeds 5 bytes",
	}
	for raw, want := range cases {
		if _, err := Parse([]byte(raw), l); ErrorMessage(err) != want {
			t.Errorf("%s: got %v, want %q", raw, err, want)
		}
	}
	if _, err := Parse([]byte(`{"todos":[{"content":"abc","status":"pending"},{"content":"de","status":"pending"}]}`), l); err != nil {
		t.Fatalf("at the limits: %v", err)
	}
}
