package main

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"
)

// latencies collects one operation's round trips.
type latencies []time.Duration

func (l *latencies) time(op func() error) error {
	start := time.Now()
	err := op()
	if err == nil {
		*l = append(*l, time.Since(start))
	}
	return err
}

// quantile is the nearest-rank quantile: the smallest sample at or above
// fraction q of the samples.
func (l latencies) quantile(q float64) time.Duration {
	if len(l) == 0 {
		return 0
	}
	s := slices.Clone(l)
	slices.Sort(s)
	rank := int(math.Ceil(q*float64(len(s)))) - 1
	return s[max(rank, 0)]
}

func (l latencies) p50() time.Duration { return l.quantile(0.50) }
func (l latencies) p99() time.Duration { return l.quantile(0.99) }

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }

func ratio(a, b float64) float64 {
	if b == 0 {
		return math.Inf(1)
	}
	return a / b
}

// memory is what the process holds: the kernel's resident set (VmRSS) and
// the Go heap in use, after a forced collection so the heap figure is live
// data rather than garbage waiting for the next cycle.
//
// rssBytes is what `ps` shows at that moment; rssReleased is the same after
// debug.FreeOSMemory hands freed heap pages back to the kernel, which the Go
// scavenger would otherwise do gradually.
type memory struct {
	rssBytes, rssReleased, heapInuse uint64
	// rssAnon is the anonymous part of rssBytes (heap, stacks, the SQLite
	// allocator); the rest is mostly the executable's own pages.
	rssAnon uint64
}

func readMemory() memory {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m := memory{rssBytes: procStatus("VmRSS:"), rssAnon: procStatus("RssAnon:"), heapInuse: ms.HeapInuse}
	debug.FreeOSMemory()
	m.rssReleased = procStatus("VmRSS:")
	return m
}

// procStatus reads one "kB" field of /proc/self/status, in bytes.
func procStatus(field string) uint64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field); ok {
			fields := strings.Fields(rest) // "123456 kB"
			if len(fields) > 0 {
				kb, _ := strconv.ParseUint(fields[0], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// machine describes where the numbers were taken.
type machine struct {
	goos, goarch, cpu, goVersion string
	nproc                        int
}

func describeMachine() machine {
	m := machine{goos: runtime.GOOS, goarch: runtime.GOARCH, nproc: runtime.NumCPU(), goVersion: runtime.Version(), cpu: "unknown"}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	return m
}

func (m machine) String() string {
	return fmt.Sprintf("%s/%s, %s, nproc %d, %s", m.goos, m.goarch, m.cpu, m.nproc, m.goVersion)
}

// loadAverage is /proc/loadavg's 1, 5 and 15 minute figures.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

func startCPUProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return pprof.WriteHeapProfile(f)
}
