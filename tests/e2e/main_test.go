// Package e2e runs the real worker binary, the stock Temporal CLI and a real
// browser against each other: what a user gets from `go run ./worker`, not
// what an in-process test server promises.
package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// workerBin is the worker binary built once for the whole test binary:
// building it takes seconds, and every subprocess test runs the same code.
var workerBin string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "agenttodos-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e set-up:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	workerBin, err = buildWorker(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e set-up:", err)
		return 1
	}
	return m.Run()
}

func buildWorker(dir string) (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		// go test may run with a PATH that lacks go (an IDE, a CI step
		// calling the test binary); the toolchain that built us is next best.
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	bin := filepath.Join(dir, "worker")
	cmd := exec.Command(goBin, "build", "-o", bin, "./worker")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./worker: %v\n%s", err, out)
	}
	return bin, nil
}

// moduleRoot is found from the package directory, where go test runs us.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod above %s", dir)
		}
	}
}
