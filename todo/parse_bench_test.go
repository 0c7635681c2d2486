package todo_test

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/durabletodos/agenttodos/todo"
)

// benchSizes are the list lengths measured; 500 is the default MaxItems.
var benchSizes = []int{1, 10, 100, 500}

// benchSink keeps results alive so the compiler cannot drop the work.
var benchSink int

// BenchmarkParse measures todo.Parse on a valid list of N items.
func BenchmarkParse(b *testing.B) {
	for _, n := range benchSizes {
		b.Run("items="+strconv.Itoa(n), func(b *testing.B) { benchParse(b, todo.ListJSON(n)) })
	}
}

// BenchmarkBaselineDecode is the yardstick: encoding/json decoding the SAME
// bytes. It decodes the whole {"todos":[...]} document into
// struct{ Todos []map[string]any }, i.e. every item becomes a map[string]any,
// with none of the contract's validation.
func BenchmarkBaselineDecode(b *testing.B) {
	for _, n := range benchSizes {
		b.Run("items="+strconv.Itoa(n), func(b *testing.B) { benchBaseline(b, todo.ListJSON(n)) })
	}
}

func benchParse(b *testing.B, raw []byte) {
	b.ReportAllocs()
	b.SetBytes(int64(len(raw)))
	if _, err := todo.Parse(raw, todo.Limits{}); err != nil { // also warms the pool
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		items, err := todo.Parse(raw, todo.Limits{})
		if err != nil {
			b.Fatal(err)
		}
		benchSink += len(items)
	}
}

// baselineDoc is what the baseline decodes into: the full document, whose
// `todos` array becomes []map[string]any.
type baselineDoc struct {
	Todos []map[string]any `json:"todos"`
}

func benchBaseline(b *testing.B, raw []byte) {
	b.ReportAllocs()
	b.SetBytes(int64(len(raw)))
	b.ResetTimer()
	for b.Loop() {
		var doc baselineDoc
		if err := json.Unmarshal(raw, &doc); err != nil {
			b.Fatal(err)
		}
		benchSink += len(doc.Todos)
	}
}

// BenchmarkParseVsBaseline runs both benchmarks inside one run with
// testing.Benchmark for every size and reports Parse's time as a fraction of
// the baseline's (metric "ratio-N"; target <= 0.5) and whether Parse's
// allocations stay constant in the number of items. It reports "met" or
// "missed" and never fails on timing.
func BenchmarkParseVsBaseline(b *testing.B) {
	const targetRatio = 0.5
	type row struct {
		n                       int
		parse, base             testing.BenchmarkResult
		ratio                   float64
		parseAllocs, baseAllocs int64
	}
	// testing.Benchmark picks its own iteration count; run the comparison
	// once however many times the outer benchmark is asked to loop.
	var rows []row
	for _, n := range benchSizes {
		raw := todo.ListJSON(n)
		p := testing.Benchmark(func(b *testing.B) { benchParse(b, raw) })
		d := testing.Benchmark(func(b *testing.B) { benchBaseline(b, raw) })
		r := row{n: n, parse: p, base: d, parseAllocs: p.AllocsPerOp(), baseAllocs: d.AllocsPerOp()}
		if d.NsPerOp() > 0 {
			r.ratio = float64(p.T.Nanoseconds()) / float64(p.N) / (float64(d.T.Nanoseconds()) / float64(d.N))
		}
		rows = append(rows, r)
	}
	for b.Loop() {
		// The measurement above is the benchmark; nothing to repeat here.
	}

	ratioMet, allocsMet := true, true
	b.Logf("%-6s %14s %12s %10s %14s %12s %10s %7s %s",
		"items", "parse ns/op", "B/op", "allocs/op", "base ns/op", "B/op", "allocs/op", "ratio", "ratio<=0.5")
	for _, r := range rows {
		b.ReportMetric(r.ratio, "ratio-"+strconv.Itoa(r.n))
		verdict := "met"
		if r.ratio > targetRatio {
			verdict, ratioMet = "missed", false
		}
		b.Logf("%-6d %14d %12d %10d %14d %12d %10d %7.3f %s",
			r.n, r.parse.NsPerOp(), r.parse.AllocedBytesPerOp(), r.parseAllocs,
			r.base.NsPerOp(), r.base.AllocedBytesPerOp(), r.baseAllocs, r.ratio, verdict)
	}
	// Constant allocations: the largest list allocates no more often than the
	// smallest one.
	first, last := rows[0], rows[len(rows)-1]
	if last.parseAllocs > first.parseAllocs {
		allocsMet = false
	}
	b.Logf("ratio <= %.1f at every size: %s", targetRatio, metOrMissed(ratioMet))
	b.Logf("Parse allocs/op constant in items (%d at %d items, %d at %d items): %s",
		first.parseAllocs, first.n, last.parseAllocs, last.n, metOrMissed(allocsMet))
}

func metOrMissed(ok bool) string {
	if ok {
		return "met"
	}
	return "missed"
}
