package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/durabletodos/agenttodos/workflows"
)

// Throughput kinds: "ours" writes a plan that moves one step per write (the
// counts, and so the search attributes, change every time), "same" writes
// the same list every time (no upsert), "noop" is BenchNoop's update.
const (
	kindOurs = "ours"
	kindSame = "same"
	kindNoop = "noop"
)

// throughput: 50 sessions written concurrently, ours against no-op updates,
// in a symmetric order so drift in the machine's load hits both alike. The
// first round of ours is CPU-profiled, for where the time goes.
func (b *bench) throughput() error {
	profile := b.o.cpuProfile
	if profile == "" {
		dir, err := os.MkdirTemp("", "bench-profile-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		profile = filepath.Join(dir, "cpu.prof")
	}
	rates, profiled, err := b.throughputOf("tp", []string{kindOurs, kindNoop, kindSame, kindSame, kindNoop, kindOurs}, profile)
	if err != nil {
		return err
	}
	b.r.tpOurs, b.r.tpBase, b.r.tpSame = rates[kindOurs].rate(), rates[kindNoop].rate(), rates[kindSame].rate()
	b.r.cpu, err = readCPUProfile(profile)
	b.r.cpu.writes = profiled
	return err
}

// throughputOf starts b.o.concurrency sessions (or BenchNoop workflows) of
// each kind in order, named prefix-kind-i, writes each once, then runs one
// round per entry of order and returns each kind's tally. The first round
// runs under a CPU profile written to profile, if set; its writes are
// returned too.
func (b *bench) throughputOf(prefix string, order []string, profile string) (rates map[string]*tally, profiled int64, err error) {
	n := b.o.concurrency
	kinds := slices.Compact(slices.Sorted(slices.Values(order)))
	err = parallel(n, n, func(i int) error {
		for _, kind := range kinds {
			id := fmt.Sprintf("%s-%s-%d", prefix, kind, i)
			if kind == kindNoop {
				if err := b.startNoop(id); err != nil {
					return err
				}
				if err := b.noopWrite(id, benchList(1)); err != nil {
					return err
				}
				continue
			}
			if err := b.startSession(id, workflows.SessionInput{}); err != nil {
				return err
			}
			if _, err := b.write(id, benchList(1)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	rates = map[string]*tally{}
	for round, kind := range order {
		var stop func()
		if round == 0 && profile != "" {
			if stop, err = startCPUProfile(profile); err != nil {
				return nil, 0, err
			}
		}
		n, d := b.throughputRound(prefix, kind)
		if stop != nil {
			stop()
			profiled = n
		}
		if rates[kind] == nil {
			rates[kind] = &tally{}
		}
		rates[kind].add(n, d)
	}
	return rates, profiled, nil
}

func (b *bench) throughputRound(prefix, kind string) (int64, time.Duration) {
	n := b.o.concurrency
	var ops atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	lat := map[string]*latencies{kindOurs: &b.r.tpLatOurs, kindNoop: &b.r.tpLatBase, kindSame: &b.r.tpLatSame}[kind]
	start := time.Now()
	deadline := start.Add(b.o.roundFor)
	for i := range n {
		wg.Go(func() {
			id := fmt.Sprintf("%s-%s-%d", prefix, kind, i)
			var mine latencies
			defer func() {
				mu.Lock()
				*lat = append(*lat, mine...)
				mu.Unlock()
			}()
			for k := 1; time.Now().Before(deadline); k++ {
				err := mine.time(func() error {
					switch kind {
					case kindOurs:
						_, err := b.write(id, benchList(k))
						return err
					case kindSame:
						_, err := b.write(id, benchList(1))
						return err
					}
					return b.noopWrite(id, benchList(k))
				})
				if err != nil {
					b.r.noteError("throughput ("+kind+")", err)
					continue
				}
				ops.Add(1)
			}
		})
	}
	wg.Wait()
	return ops.Load(), time.Since(start)
}

// tally is writes done over time spent, summed over rounds.
type tally struct {
	ops  int64
	took time.Duration
}

func (t *tally) add(ops int64, d time.Duration) { t.ops += ops; t.took += d }

func (t *tally) rate() float64 {
	if t == nil || t.took <= 0 {
		return 0
	}
	return float64(t.ops) / t.took.Seconds()
}
