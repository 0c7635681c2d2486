// The race detector makes sync.Pool drop items at random, so allocation
// counts mean nothing under -race; `make test` runs this file without it.

//go:build !race

package todo

import (
	"testing"

	"github.com/durabletodos/agenttodos/todo/todotest"
)

func TestParseAllocationsDoNotGrowWithItems(t *testing.T) {
	for _, n := range []int{1, 10, 100, 500} {
		raw := todotest.ListJSON(n)
		Parse(raw, Limits{}) // warm the pool
		allocs := testing.AllocsPerRun(50, func() {
			if _, err := Parse(raw, Limits{}); err != nil {
				t.Fatal(err)
			}
		})
		if allocs > 4 {
			t.Errorf("%d items: %.0f allocations per Parse, want at most 4", n, allocs)
		}
	}
}
