package todo_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"go.temporal.io/sdk/temporal"

	"github.com/durabletodos/agenttodos/todo"
	"github.com/durabletodos/agenttodos/todo/todotest"
)

// The contract's messages (DESIGN.md, "Validation", rules 1 to 10). The
// parameterised ones capture their parameters; a captured key or content is
// a JSON string literal, checked separately.
const (
	msgNotArray      = "invalid todos: `todos` must be an array"
	msgContentEmpty  = "invalid todo: `content` must be a non-empty string"
	msgStatusInvalid = "invalid todo: `status` must be one of pending, in_progress, completed"
)

var (
	reUnknownTopKey  = regexp.MustCompile(`^invalid todos: unknown key ("(?:[^"\\]|\\.)*")$`)
	reTooManyItems   = regexp.MustCompile(`^invalid todos: at most ([0-9]+) items \(got ([0-9]+)\)$`)
	reItemNotObject  = regexp.MustCompile("^invalid todo: `todos\\[([0-9]+)\\]` must be an object$")
	reUnknownItemKey = regexp.MustCompile(`^invalid todo: unknown key ("(?:[^"\\]|\\.)*")$`)
	reContentTooLong = regexp.MustCompile("^invalid todo: `content` exceeds ([0-9]+) bytes$")
	reDuplicate      = regexp.MustCompile(`^invalid todos: duplicate content ("(?:[^"\\]|\\.)*")$`)
	reListTooLarge   = regexp.MustCompile(`^invalid todos: list exceeds ([0-9]+) bytes$`)
)

// rule classifies a contract message by its rule number (1 to 10), or 0 when
// it is not one of the contract's messages. It also checks the parameters: a
// quoted key or content must be a valid JSON string literal, and the limits
// quoted must be the configured ones.
func rule(t *testing.T, msg string, limits todo.Limits) int {
	t.Helper()
	limits = limits.WithDefaults()
	validQuoted := func(q string) bool {
		v := jsontext.Value(q)
		return v.IsValid() && v.Kind() == '"'
	}
	switch {
	case msg == msgNotArray:
		return 1
	case reUnknownTopKey.MatchString(msg):
		if !validQuoted(reUnknownTopKey.FindStringSubmatch(msg)[1]) {
			t.Errorf("%q: key is not a JSON string literal", msg)
		}
		return 2
	case reTooManyItems.MatchString(msg):
		m := reTooManyItems.FindStringSubmatch(msg)
		limit, _ := strconv.Atoi(m[1])
		got, _ := strconv.Atoi(m[2])
		if limit != limits.MaxItems || got <= limit {
			t.Errorf("%q: want limit %d and more items than it", msg, limits.MaxItems)
		}
		return 3
	case reItemNotObject.MatchString(msg):
		return 4
	case reUnknownItemKey.MatchString(msg):
		if !validQuoted(reUnknownItemKey.FindStringSubmatch(msg)[1]) {
			t.Errorf("%q: key is not a JSON string literal", msg)
		}
		return 5
	case msg == msgContentEmpty:
		return 6
	case reContentTooLong.MatchString(msg):
		if m := reContentTooLong.FindStringSubmatch(msg); m[1] != strconv.Itoa(limits.MaxContentBytes) {
			t.Errorf("%q: want limit %d", msg, limits.MaxContentBytes)
		}
		return 7
	case msg == msgStatusInvalid:
		return 8
	case reDuplicate.MatchString(msg):
		if !validQuoted(reDuplicate.FindStringSubmatch(msg)[1]) {
			t.Errorf("%q: content is not a JSON string literal", msg)
		}
		return 9
	case reListTooLarge.MatchString(msg):
		if m := reListTooLarge.FindStringSubmatch(msg); m[1] != strconv.Itoa(limits.MaxTotalBytes) {
			t.Errorf("%q: want limit %d", msg, limits.MaxTotalBytes)
		}
		return 10
	}
	return 0
}

// FuzzParse seeds from the checked-in corpus in testdata/fuzz/FuzzParse (one
// seed per rule and the tricky encodings) plus a generated valid list, and
// checks every input against the contract with the default limits.
func FuzzParse(f *testing.F) {
	f.Add(todotest.ListJSON(3))
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkParse(t, raw, todo.Limits{})
	})
}

// smallLimits make every limit reachable by short fuzzed inputs.
var smallLimits = todo.Limits{MaxItems: 3, MaxContentBytes: 8, MaxTotalBytes: 16}

// FuzzParseLimits checks the same properties with small configured limits,
// so that the limit rules (3, 7, 10) fire often and their messages must
// quote the configured numbers. It also seeds from FuzzParse's corpus.
func FuzzParseLimits(f *testing.F) {
	for _, s := range []string{
		`{"todos":[{"content":"a","status":"pending"},{"content":"b","status":"pending"},{"content":"c","status":"pending"}]}`,
		`{"todos":[{"content":"a","status":"pending"},{"content":"b","status":"pending"},{"content":"c","status":"pending"},{"content":"d","status":"pending"}]}`,
		`{"todos":[{"content":"12345678","status":"completed"}]}`,
		`{"todos":[{"content":"123456789","status":"completed"}]}`,
		`{"todos":[{"content":"12345678","status":"pending"},{"content":"abcdefgh","status":"in_progress"}]}`,
		`{"todos":[{"content":"12345678","status":"pending"},{"content":"abcdefgh","status":"in_progress"},{"content":"x","status":"completed"}]}`,
		`{"todos":[{"content":"\u00e9\u00e9\u00e9\u00e9\u00e9","status":"pending"}]}`,
	} {
		f.Add([]byte(s))
	}
	for _, seed := range readCorpus(f, "FuzzParse") {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkParse(t, raw, smallLimits)
	})
}

// checkParse runs todo.Parse on raw and checks, whatever the input:
//   - it does not panic, does not modify raw and gives the same answer twice
//     (the pooled scanner leaks no state);
//   - a rejection is a non-retryable ApplicationError of type InvalidTodos
//     whose message is one of the contract's, and exactly the message the
//     reference model (refParse, built on jsonv2) expects;
//   - an accepted list is what the reference model accepts, its contents and
//     statuses agree with a strict, case-sensitive jsonv2 decode, and it
//     round-trips: encoding/json marshals it to bytes that Parse accepts
//     again, giving identical items and identical bytes once re-marshalled.
func checkParse(t *testing.T, raw []byte, limits todo.Limits) {
	orig := bytes.Clone(raw)
	items, err := todo.Parse(raw, limits)
	if !bytes.Equal(raw, orig) {
		t.Fatalf("Parse modified its input")
	}
	items2, err2 := todo.Parse(raw, limits)
	if !slices.Equal(items, items2) || errMsg(err) != errMsg(err2) {
		t.Fatalf("two Parses of the same input differ: (%v, %v) then (%v, %v)", items, err, items2, err2)
	}

	strictOK, strict := strictDecode(raw)
	wantItems, wantMsg := refParse(raw, limits)

	if err != nil {
		var appErr *temporal.ApplicationError
		if !errors.As(err, &appErr) {
			t.Fatalf("error %T %v is not an ApplicationError", err, err)
		}
		if appErr.Type() != todo.ErrTypeInvalidTodos || !appErr.NonRetryable() {
			t.Fatalf("%q: type %q nonRetryable %v, want %q non-retryable", appErr.Message(), appErr.Type(), appErr.NonRetryable(), todo.ErrTypeInvalidTodos)
		}
		msg := todo.ErrorMessage(err)
		if msg != appErr.Message() {
			t.Fatalf("ErrorMessage %q differs from the ApplicationError's message %q", msg, appErr.Message())
		}
		r := rule(t, msg, limits)
		if r == 0 {
			t.Fatalf("message %q is none of the contract's", msg)
		}
		if strictOK && (r == 2 || r == 5) {
			t.Fatalf("strict jsonv2 accepts the shape but Parse says %q", msg)
		}
		if wantMsg != msg {
			t.Fatalf("Parse says %q, the reference model says %q (accepting %d items)", msg, wantMsg, len(wantItems))
		}
		return
	}

	if wantMsg != "" {
		t.Fatalf("Parse accepted %d items, the reference model says %q", len(items), wantMsg)
	}
	if items == nil {
		t.Fatalf("accepted list is nil: it would marshal as null")
	}
	if !slices.Equal(items, wantItems) {
		t.Fatalf("Parse gives %q, the reference model %q", items, wantItems)
	}
	if !strictOK {
		t.Fatalf("Parse accepted %d items that a strict jsonv2 decode rejects", len(items))
	}
	if len(strict) != len(items) {
		t.Fatalf("Parse gives %d items, jsonv2 %d", len(items), len(strict))
	}
	for i, it := range items {
		if it.Content != strict[i].Content || string(it.Status) != strict[i].Status {
			t.Fatalf("item %d: Parse gives %q/%q, jsonv2 %q/%q", i, it.Content, it.Status, strict[i].Content, strict[i].Status)
		}
		if !utf8.ValidString(it.Content) {
			t.Fatalf("item %d: content %q is not valid UTF-8", i, it.Content)
		}
	}
	c := todo.CountOf(items)
	if c.Total() != len(items) {
		t.Fatalf("counts %+v do not add up to %d items", c, len(items))
	}

	type doc struct {
		Todos []todo.Item `json:"todos"`
	}
	out, err := json.Marshal(doc{items})
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	again, err := todo.Parse(out, limits)
	if err != nil {
		t.Fatalf("re-parsing %s: %v", out, err)
	}
	if !slices.Equal(items, again) {
		t.Fatalf("round trip changed the list: %q became %q", items, again)
	}
	out2, err := json.Marshal(doc{again})
	if err != nil || !bytes.Equal(out, out2) {
		t.Fatalf("round trip is not byte-exact: %s then %s (%v)", out, out2, err)
	}
}

func errMsg(err error) string {
	if err == nil {
		return ""
	}
	return todo.ErrorMessage(err)
}

// strictItem is an item as a strict jsonv2 decode sees it.
type strictItem struct {
	Content string `json:"content"`
	Status  string `json:"status"`
}

// strictDecode decodes raw with jsonv2: case-sensitive names (the v2
// default), unknown members rejected at both levels, duplicate names and
// invalid UTF-8 rejected (also v2 defaults).
func strictDecode(raw []byte) (bool, []strictItem) {
	var doc struct {
		Todos []strictItem `json:"todos"`
	}
	if err := jsonv2.Unmarshal(raw, &doc, jsonv2.RejectUnknownMembers(true)); err != nil {
		return false, nil
	}
	return true, doc.Todos
}

// refParse is an independent model of rules 1 to 10: it decodes with jsonv2
// into maps and slices of raw values, then applies the rules in the
// contract's order. It returns the accepted items, or the expected message.
//
// "White space" (rule 6) is read as Unicode white space (unicode.IsSpace), as
// Parse does; DESIGN.md does not pin the set down. Keys are sorted by bytes
// (rules 2 and 5). Quoted keys and contents are rendered as JSON.stringify
// would, with the tag rule on top (refQuote), independently of todo's own
// quoting.
func refParse(raw []byte, limits todo.Limits) ([]todo.Item, string) {
	limits = limits.WithDefaults()
	var top jsontext.Value
	if err := jsonv2.Unmarshal(raw, &top); err != nil || top.Kind() != '{' {
		return nil, msgNotArray
	}
	var obj map[string]jsontext.Value
	if err := jsonv2.Unmarshal(top, &obj); err != nil {
		return nil, msgNotArray
	}
	todosRaw, ok := obj["todos"]
	if !ok || todosRaw.Kind() != '[' {
		return nil, msgNotArray
	}
	if k := firstUnknown(obj, "todos"); k != nil {
		return nil, "invalid todos: unknown key " + refQuote(*k)
	}
	var list []jsontext.Value
	if err := jsonv2.Unmarshal(todosRaw, &list); err != nil {
		return nil, msgNotArray
	}
	if len(list) > limits.MaxItems {
		return nil, "invalid todos: at most " + strconv.Itoa(limits.MaxItems) + " items (got " + strconv.Itoa(len(list)) + ")"
	}
	for i, v := range list {
		if v.Kind() != '{' {
			return nil, "invalid todo: `todos[" + strconv.Itoa(i) + "]` must be an object"
		}
	}
	objs := make([]map[string]jsontext.Value, len(list))
	for i, v := range list {
		if err := jsonv2.Unmarshal(v, &objs[i]); err != nil {
			return nil, msgNotArray
		}
	}
	for _, o := range objs {
		if k := firstUnknown(o, "content", "status"); k != nil {
			return nil, "invalid todo: unknown key " + refQuote(*k)
		}
	}
	items := make([]todo.Item, len(objs))
	for i, o := range objs {
		v, ok := o["content"]
		if !ok || v.Kind() != '"' {
			return nil, msgContentEmpty
		}
		if err := jsonv2.Unmarshal(v, &items[i].Content); err != nil {
			return nil, msgNotArray
		}
		if strings.TrimFunc(items[i].Content, unicode.IsSpace) == "" {
			return nil, msgContentEmpty
		}
	}
	for _, it := range items {
		if len(it.Content) > limits.MaxContentBytes {
			return nil, "invalid todo: `content` exceeds " + strconv.Itoa(limits.MaxContentBytes) + " bytes"
		}
	}
	for i, o := range objs {
		var s string
		v, ok := o["status"]
		if !ok || v.Kind() != '"' || jsonv2.Unmarshal(v, &s) != nil {
			return nil, msgStatusInvalid
		}
		switch todo.Status(s) {
		case todo.Pending, todo.InProgress, todo.Completed:
			items[i].Status = todo.Status(s)
		default:
			return nil, msgStatusInvalid
		}
	}
	seen := make(map[string]bool, len(items))
	total := 0
	for _, it := range items {
		if seen[it.Content] {
			return nil, "invalid todos: duplicate content " + refQuote(it.Content)
		}
		seen[it.Content] = true
		total += len(it.Content)
	}
	if total > limits.MaxTotalBytes {
		return nil, "invalid todos: list exceeds " + strconv.Itoa(limits.MaxTotalBytes) + " bytes"
	}
	return items, ""
}

// firstUnknown returns the smallest key, in byte order, that is not one of
// the allowed ones, or nil when there is none. A pointer, because the empty
// string is a key like any other.
func firstUnknown(o map[string]jsontext.Value, allowed ...string) *string {
	var unknown []string
	for k := range o {
		if !slices.Contains(allowed, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	return &unknown[0]
}

// refQuote renders s the way JSON.stringify does for a well-formed string
// (only '"', '\\' and the C0 controls are escaped, with the short forms
// \b \t \n \f \r and lower-case \u00xx otherwise), plus the contract's tag
// rule (README, "The plan cannot be turned against the model"): a '<'
// followed by a letter, '/', '!' or '?' is written \u003c.
func refQuote(s string) string {
	const hex = "0123456789abcdef"
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '<':
			if i+1 < len(s) && strings.ContainsRune("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ/!?", rune(s[i+1])) {
				b.WriteString(`\u003c`)
			} else {
				b.WriteByte('<')
			}
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if c < 0x20 {
				b.WriteString(`\u00`)
				b.WriteByte(hex[c>>4])
				b.WriteByte(hex[c&0xf])
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// readCorpus reads the []byte seeds of a checked-in corpus directory
// (testdata/fuzz/<name>, Go's "go test fuzz v1" format).
func readCorpus(tb testing.TB, name string) [][]byte {
	tb.Helper()
	dir := filepath.Join("testdata", "fuzz", name)
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatalf("reading the seed corpus: %v", err)
	}
	var seeds [][]byte
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			tb.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, len(data)+1)
		if !sc.Scan() || sc.Text() != "go test fuzz v1" {
			tb.Fatalf("%s: not a corpus file", e.Name())
		}
		if !sc.Scan() {
			tb.Fatalf("%s: no value", e.Name())
		}
		line := sc.Text()
		if !strings.HasPrefix(line, "[]byte(") || !strings.HasSuffix(line, ")") {
			tb.Fatalf("%s: want one []byte value, got %.40s", e.Name(), line)
		}
		s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(line, "[]byte("), ")"))
		if err != nil {
			tb.Fatalf("%s: %v", e.Name(), err)
		}
		seeds = append(seeds, []byte(s))
	}
	return seeds
}

// TestFuzzSeedsCoverEveryRule keeps the checked-in corpus honest: with the
// default limits its seeds reach every rule from 1 to 10 and acceptance.
func TestFuzzSeedsCoverEveryRule(t *testing.T) {
	hit := map[int]int{}
	for _, seed := range readCorpus(t, "FuzzParse") {
		_, err := todo.Parse(seed, todo.Limits{})
		if err == nil {
			hit[0]++
			continue
		}
		hit[rule(t, todo.ErrorMessage(err), todo.Limits{})]++
	}
	if hit[0] == 0 {
		t.Errorf("no seed is accepted")
	}
	for r := 1; r <= 10; r++ {
		if hit[r] == 0 {
			t.Errorf("no seed reaches rule %d", r)
		}
	}
	t.Logf("seeds per rule (0 = accepted): %v", hit)
}
