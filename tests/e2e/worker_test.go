package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/durabletodos/agenttodos/embedded"
	"github.com/durabletodos/agenttodos/tests/sessiontest"
)

const (
	readyLine     = "Agent worker ready"
	readyTimeout  = 2 * time.Minute
	stopGrace     = 20 * time.Second
	namespaceName = "default"
)

// workerConfig is where a worker process keeps its state and listens. A
// restarted worker reuses it, which is what a user's restart does.
type workerConfig struct {
	DataDir  string
	Frontend string   // host:port of the embedded server's gRPC frontend
	UI       string   // host:port of the Web UI
	Env      []string // more environment, e.g. TEMPORAL_ADDRESS for a configured cluster
}

func newWorkerConfig(t *testing.T) workerConfig {
	t.Helper()
	return workerConfig{
		DataDir:  filepath.Join(t.TempDir(), "data"),
		Frontend: freeAddr(t),
		UI:       freeAddr(t),
	}
}

func (c workerConfig) UIURL() string { return "http://" + c.UI }

// freeAddr is an address the worker can bind a moment later; see
// embedded.FreeAddress for why it is not simply a closed ":0" listener.
func freeAddr(t *testing.T) string {
	t.Helper()
	addr, err := embedded.FreeAddress("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	return addr
}

// workerProc is one run of the worker binary.
type workerProc struct {
	t    *testing.T
	name string
	cfg  workerConfig
	cmd  *exec.Cmd
	out  *outputWatcher
	done chan struct{} // closed once the process has exited
	err  error         // exit status, valid after done
}

// startWorker runs the worker binary in embedded-server mode and returns
// once it says it is ready. Its output goes into the test log only if the
// test fails, because a healthy worker logs a lot.
func startWorker(t *testing.T, name string, cfg workerConfig) *workerProc {
	t.Helper()
	w := &workerProc{t: t, name: name, cfg: cfg, out: newOutputWatcher(readyLine), done: make(chan struct{})}
	w.cmd = exec.Command(workerBin)
	w.cmd.Env = append(cleanEnv(t),
		"AGENT_DATA_DIR="+cfg.DataDir,
		"AGENT_FRONTEND_ADDRESS="+cfg.Frontend,
		"AGENT_UI_ADDRESS="+cfg.UI,
	)
	w.cmd.Env = append(w.cmd.Env, cfg.Env...)
	w.cmd.Stdout = w.out
	w.cmd.Stderr = w.out
	if err := w.cmd.Start(); err != nil {
		t.Fatalf("start worker %s: %v", name, err)
	}
	go func() {
		w.err = w.cmd.Wait()
		close(w.done)
	}()
	t.Cleanup(func() {
		w.Kill()
		if t.Failed() {
			t.Logf("output of worker %s:\n%s", name, w.out.String())
		}
	})

	select {
	case <-w.out.ready:
	case <-w.done:
		t.Fatalf("worker %s exited before it was ready (%v)", name, w.err)
	case <-time.After(readyTimeout):
		t.Fatalf("worker %s not ready after %s", name, readyTimeout)
	}
	return w
}

// Stop shuts the worker down the way a terminal or a service manager does
// and expects a clean exit.
func (w *workerProc) Stop() {
	w.t.Helper()
	_ = w.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-w.done:
	case <-time.After(stopGrace):
		w.Kill()
		w.t.Fatalf("worker %s still running %s after SIGTERM; killed it", w.name, stopGrace)
	}
	if w.err != nil {
		w.t.Fatalf("worker %s exited with %v after SIGTERM", w.name, w.err)
	}
}

// Kill ends the process without warning: a crash, an OOM kill, a pulled plug.
func (w *workerProc) Kill() {
	select {
	case <-w.done:
		return
	default:
	}
	_ = w.cmd.Process.Signal(syscall.SIGKILL)
	<-w.done
}

// cleanEnv is this process's environment without anything that could point
// the worker or the CLI at a real cluster or change the worker's behaviour:
// a developer's shell often has TEMPORAL_ADDRESS or a CLI profile.
func cleanEnv(t *testing.T) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "TEMPORAL_") || strings.HasPrefix(name, "AGENT_") || strings.HasPrefix(name, "OPENAI_") {
			continue
		}
		env = append(env, kv)
	}
	// envconfig (worker) and the CLI also read a profile file from the user's
	// config dir; a file that does not exist is ignored, so point them at one.
	return append(env, "TEMPORAL_CONFIG_FILE="+filepath.Join(t.TempDir(), "no-temporal.toml"))
}

// outputWatcher collects a process's output and notices the ready line.
type outputWatcher struct {
	marker []byte
	ready  chan struct{}

	mu   sync.Mutex
	buf  bytes.Buffer
	seen bool
}

func newOutputWatcher(marker string) *outputWatcher {
	return &outputWatcher{marker: []byte(marker), ready: make(chan struct{})}
}

func (o *outputWatcher) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.buf.Write(p)
	if !o.seen && bytes.Contains(o.buf.Bytes(), o.marker) {
		o.seen = true
		close(o.ready)
	}
	return len(p), nil
}

func (o *outputWatcher) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// dial connects an SDK client to a worker's embedded server.
func dial(t *testing.T, frontend string) client.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := client.DialContext(ctx, client.Options{HostPort: frontend, Namespace: namespaceName, Logger: sessiontest.QuietLogger()})
	if err != nil {
		t.Fatalf("dial %s: %v", frontend, err)
	}
	t.Cleanup(c.Close)
	return c
}

// findTool returns the first candidate that is an executable file, or fails
// the test with how to install it: these tests are the only check that the
// stock CLI and a real browser work with the system, so a missing tool must
// never look like a pass.
func findTool(t *testing.T, what, hint string, onPath bool, candidates ...string) string {
	t.Helper()
	for _, c := range candidates {
		if c == "" {
			continue
		}
		if st, err := os.Stat(c); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return c
		}
	}
	looked := strings.Join(nonEmpty(candidates), ", ")
	if onPath {
		looked = "PATH, " + looked
	}
	msg := fmt.Sprintf("%s not found (looked at %s).\n%s", what, looked, hint)
	if os.Getenv("CI") != "" {
		msg += "\nCI must provide it: a missing tool fails this job rather than skipping the test."
	}
	t.Fatal(msg)
	return ""
}

func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func temporalCLI(t *testing.T) string {
	t.Helper()
	var candidates []string
	if p, err := exec.LookPath("temporal"); err == nil {
		candidates = append(candidates, p)
	}
	if d := os.Getenv("TEMPORAL_CLI_BIN"); d != "" {
		candidates = append(candidates, filepath.Join(d, "temporal"))
	}
	if home, err := os.UserHomeDir(); err == nil {
		candidates = append(candidates, filepath.Join(home, ".cache", "agenttodos", "bin", "temporal"))
	}
	return findTool(t, "Temporal CLI", "Install it (about 5 minutes to build) with:\n"+
		"  GOBIN=$HOME/.cache/agenttodos/bin go install github.com/temporalio/cli/cmd/temporal@v1.5.1\n"+
		"or put a temporal binary on PATH, or set TEMPORAL_CLI_BIN to the directory holding it.", true, candidates...)
}

const chromiumPath = "/usr/bin/chromium"

func chromium(t *testing.T) string {
	t.Helper()
	return findTool(t, "Chromium", "Install it with: apt-get install chromium fonts-noto-color-emoji", false, chromiumPath)
}
