package todo

import "sort"

// Change is what one plan changed against an earlier one, item by item.
// Items are told apart by their content, which is unique within a list; an
// item whose content changed in place (same position, old content gone, new
// content new) is a rename rather than a removal and an addition.
type Change struct {
	Added   []Placed       `json:"added,omitempty"`
	Removed []Placed       `json:"removed,omitempty"`
	Renamed []Rename       `json:"renamed,omitempty"`
	Status  []StatusChange `json:"status,omitempty"`
	Moved   []Move         `json:"moved,omitempty"`
}

// Placed is an item added (index in the new list) or removed (index in the
// old list).
type Placed struct {
	Content string `json:"content"`
	Status  Status `json:"status"`
	Index   int    `json:"index"`
}

// Rename is an item whose content changed at Index (of both lists).
type Rename struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Index int    `json:"index"`
}

// StatusChange is an item whose status changed; a renamed item's names its
// new content.
type StatusChange struct {
	Content string `json:"content"`
	From    Status `json:"from"`
	To      Status `json:"to"`
}

// Move is an item that changed places relative to the others: From and To
// are its indexes in the old and the new list. The fewest items are named
// moved: those outside the longest run of items that kept their order.
type Move struct {
	Content string `json:"content"`
	From    int    `json:"from"`
	To      int    `json:"to"`
}

// Empty says nothing changed.
func (c Change) Empty() bool {
	return len(c.Added)+len(c.Removed)+len(c.Renamed)+len(c.Status)+len(c.Moved) == 0
}

// Diff is what changed from the list before to the list after.
func Diff(before, after []Item) Change {
	var c Change
	oldIndex := make(map[string]int, len(before))
	for i, it := range before {
		oldIndex[it.Content] = i
	}
	newIndex := make(map[string]int, len(after))
	for i, it := range after {
		newIndex[it.Content] = i
	}
	var removed []Placed
	for i, it := range before {
		if _, ok := newIndex[it.Content]; !ok {
			removed = append(removed, Placed{Content: it.Content, Status: it.Status, Index: i})
		}
	}
	goneAt := make(map[int]Placed, len(removed))
	for _, r := range removed {
		goneAt[r.Index] = r
	}
	// common holds, in the new order, each kept item's index in the old list.
	var common, commonNew []int
	for j, it := range after {
		i, kept := oldIndex[it.Content]
		if kept {
			common, commonNew = append(common, i), append(commonNew, j)
			if before[i].Status != it.Status {
				c.Status = append(c.Status, StatusChange{Content: it.Content, From: before[i].Status, To: it.Status})
			}
			continue
		}
		if r, ok := goneAt[j]; ok {
			delete(goneAt, j)
			c.Renamed = append(c.Renamed, Rename{From: r.Content, To: it.Content, Index: j})
			if r.Status != it.Status {
				c.Status = append(c.Status, StatusChange{Content: it.Content, From: r.Status, To: it.Status})
			}
			continue
		}
		c.Added = append(c.Added, Placed{Content: it.Content, Status: it.Status, Index: j})
	}
	for _, r := range removed {
		if _, still := goneAt[r.Index]; still {
			c.Removed = append(c.Removed, r)
		}
	}
	stay := keptOrder(common, commonNew)
	for k, i := range common {
		if !stay[k] {
			c.Moved = append(c.Moved, Move{Content: before[i].Content, From: i, To: commonNew[k]})
		}
	}
	return c
}

// maxWeighedMoves is the most kept items whose moves are weighed item by
// item (quadratic); longer lists take the first longest run (n log n).
const maxWeighedMoves = 200

// keptOrder marks the kept items that did not move: a longest run of items
// that kept their relative order. Of several such runs it prefers the one
// whose items stayed closest to their old index, so after [A B C] became
// [A X C B] it is B that moved (1 to 3), not C (2 to 2).
func keptOrder(oldIdx, newIdx []int) []bool {
	n := len(oldIdx)
	if n > maxWeighedMoves {
		return increasingRun(oldIdx)
	}
	// Each kept item weighs more than all displacements together, so the
	// longest run wins first and the least displaced among them second.
	big := n*n + 1
	best := make([]int, n)
	prev := make([]int, n)
	end := -1
	for k := range n {
		w := big - min(abs(oldIdx[k]-newIdx[k]), n)
		best[k], prev[k] = w, -1
		for j := range k {
			if oldIdx[j] < oldIdx[k] && best[j]+w > best[k] {
				best[k], prev[k] = best[j]+w, j
			}
		}
		if end < 0 || best[k] > best[end] {
			end = k
		}
	}
	in := make([]bool, n)
	for k := end; k >= 0; k = prev[k] {
		in[k] = true
	}
	return in
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// increasingRun marks one longest strictly increasing subsequence of seq, in
// O(n log n): a plan of 500 items diffs in microseconds.
func increasingRun(seq []int) []bool {
	// tails[l] is the index in seq of the smallest tail of an increasing
	// run of length l+1; prev links each element to its predecessor.
	tails := make([]int, 0, len(seq))
	prev := make([]int, len(seq))
	for k, v := range seq {
		l := sort.Search(len(tails), func(m int) bool { return seq[tails[m]] >= v })
		if l > 0 {
			prev[k] = tails[l-1]
		} else {
			prev[k] = -1
		}
		if l == len(tails) {
			tails = append(tails, k)
		} else {
			tails[l] = k
		}
	}
	in := make([]bool, len(seq))
	if len(tails) == 0 {
		return in
	}
	for k := tails[len(tails)-1]; k >= 0; k = prev[k] {
		in[k] = true
	}
	return in
}

// EncodedSize bounds the change's size as JSON, for byte-bounded answers.
func (c Change) EncodedSize() int {
	n := 80
	for _, p := range c.Added {
		n += EncodedStringSize(p.Content) + 48
	}
	for _, p := range c.Removed {
		n += EncodedStringSize(p.Content) + 48
	}
	for _, r := range c.Renamed {
		n += EncodedStringSize(r.From) + EncodedStringSize(r.To) + 40
	}
	for _, s := range c.Status {
		n += EncodedStringSize(s.Content) + 56
	}
	for _, m := range c.Moved {
		n += EncodedStringSize(m.Content) + 48
	}
	return n
}
