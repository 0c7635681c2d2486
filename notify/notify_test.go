package notify

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/durabletodos/agenttodos/todo"
)

func items(pairs ...string) []todo.Item {
	var out []todo.Item
	for _, p := range pairs {
		st, c, _ := strings.Cut(p, ":")
		out = append(out, todo.Item{Content: c, Status: todo.Status(st)})
	}
	return out
}

func TestKindsOf(t *testing.T) {
	model := todo.Source{Kind: todo.SourceModel, ID: "call_1"}
	person := todo.Source{Kind: todo.SourceEdit, ID: "u1", By: "alice"}
	cases := []struct {
		name          string
		before, after []todo.Item
		src           todo.Source
		want          []Kind
	}{
		{"same list", items("pending:a"), items("pending:a"), model, nil},
		{"added pending", nil, items("pending:a"), model, []Kind{Changed}},
		{"started", items("pending:a"), items("in_progress:a"), model, []Kind{Changed, ItemStarted}},
		{"added in progress", items("pending:a"), items("pending:a", "in_progress:b"), model, []Kind{Changed, ItemStarted}},
		{"completed, not all", items("in_progress:a", "pending:b"), items("completed:a", "in_progress:b"), model, []Kind{Changed, ItemStarted, ItemCompleted}},
		{"finished", items("completed:a", "in_progress:b"), items("completed:a", "completed:b"), person, []Kind{Changed, ItemCompleted, PlanFinished, ChangedOutside}},
		{"still finished, reordered", items("completed:a", "completed:b"), items("completed:b", "completed:a"), model, []Kind{Changed}},
		{"emptied", items("completed:a"), nil, person, []Kind{Changed, ChangedOutside}},
		{"reopened", items("completed:a"), items("pending:a"), model, []Kind{Changed}},
	}
	for _, c := range cases {
		got := KindsOf(c.before, c.after, todo.Diff(c.before, c.after), c.src)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestSubscriberFilterAndDeadline(t *testing.T) {
	s := Subscriber{ID: "a", URL: "https://x/y", SecretName: "k"}
	if !s.Wants([]Kind{Changed}) || s.Wants(nil) {
		t.Fatal("no filter means every change")
	}
	s.Events = []Kind{PlanFinished}
	if s.Wants([]Kind{Changed, ItemCompleted}) || !s.Wants([]Kind{Changed, PlanFinished}) {
		t.Fatal("filter")
	}
	if s.Deadline() != DefaultGiveUpAfter {
		t.Fatal("default giveUpAfter")
	}
	s.GiveUpAfter = "90s"
	if err := s.Check(); err != nil || s.Deadline() != 90*time.Second {
		t.Fatalf("90s: %v %v", err, s.Deadline())
	}
	if err := CheckAll([]Subscriber{s, s}); err == nil || err.Error() != "subscriber a is listed twice" {
		t.Fatalf("twice: %v", err)
	}
}

func TestSignature(t *testing.T) {
	body := []byte(`{"id":"s:1"}`)
	sig := Sign([]byte("secret-secret-secret"), body)
	if !strings.HasPrefix(sig, "sha256=") || len(sig) != len("sha256=")+64 {
		t.Fatalf("signature %q", sig)
	}
	if !Verify([]byte("secret-secret-secret"), body, sig) {
		t.Fatal("own signature refused")
	}
	for _, bad := range []string{"", sig[7:], "sha256=zz", strings.Replace(sig, "sha256=", "sha1=", 1)} {
		if Verify([]byte("secret-secret-secret"), body, bad) {
			t.Errorf("%q accepted", bad)
		}
	}
	if Verify([]byte("another-secret-value"), body, sig) || Verify([]byte("secret-secret-secret"), append(body, ' '), sig) {
		t.Fatal("signature accepted for another key or body")
	}
}

func TestLargeChangesAreLeftOut(t *testing.T) {
	var after []todo.Item
	for i := range 200 {
		after = append(after, todo.Item{Content: strings.Repeat("x", 60) + string(rune('A'+i%26)) + strings.Repeat("y", i), Status: todo.Pending})
	}
	n := New("s", 9, 4, []Kind{Changed}, todo.Diff(nil, after), todo.CountOf(after), todo.Source{Kind: todo.SourceModel}, time.Unix(0, 0))
	if n.Change != nil || !n.ChangeTruncated || n.ID != "s:9" || n.PreviousSeq != 4 {
		t.Fatalf("%+v", n)
	}
	if n.Size() > 1024 {
		t.Fatalf("a truncated notification weighs %d bytes", n.Size())
	}
	small := New("s", 2, 1, []Kind{Changed}, todo.Diff(nil, items("pending:a")), todo.Counts{Pending: 1}, todo.Source{}, time.Unix(0, 0))
	if small.Change == nil || small.ChangeTruncated {
		t.Fatalf("%+v", small)
	}
}

func TestLoadSecrets(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ok := write("ok", "# team hooks\n\nteam = 0123456789abcdef0123\nops=another-long-secret\n", 0o600)
	s, err := LoadSecrets(ok)
	if err != nil {
		t.Fatal(err)
	}
	if v, found := s.Lookup("team"); !found || string(v) != "0123456789abcdef0123" || !s.Has("ops") || s.Has("nope") {
		t.Fatalf("lookup: %q %v", v, found)
	}
	if got := s.String(); got != "2 webhook secrets" || strings.Contains(got, "0123") {
		t.Fatalf("String shows %q", got)
	}
	for name, c := range map[string]struct {
		text string
		mode os.FileMode
		want string
	}{
		"shared": {"a=0123456789abcdef", 0o644, "can be read by others (mode 0644): chmod 600 it"},
		"short":  {"a=short", 0o600, `webhook secret "a" is shorter than 16 bytes`},
		"twice":  {"a=0123456789abcdef\na=0123456789abcdef", 0o600, `line 2: "a" is defined twice`},
		"no-eq":  {"just-a-line", 0o600, "line 1: want name=secret"},
		"name":   {"a b=0123456789abcdef", 0o600, `webhook secret name "a b"`},
	} {
		_, err := LoadSecrets(write(name, c.text, c.mode))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "0123456789abcdef") {
			t.Errorf("%s: the error shows the secret: %v", name, err)
		}
	}
}
