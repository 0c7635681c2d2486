package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"

	"github.com/durabletodos/agenttodos/activities"
	"github.com/durabletodos/agenttodos/todo"
	"github.com/durabletodos/agenttodos/workflows"
)

// The worker-only figure: the same worker registration in a process of its
// own (this binary, re-run with -worker-child), connected to the embedded
// server of the parent, as a worker runs in production against an external
// Temporal. It answers "mem" on stdin with its memory, after a GC.
const childQueue = "agent-sessions-worker-only"

func runChild(spec string) error {
	hostPort, namespace, ok := strings.Cut(spec, ",")
	if !ok {
		return fmt.Errorf("-worker-child wants host:port,namespace, got %q", spec)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	c, err := client.Dial(client.Options{HostPort: hostPort, Namespace: namespace, Logger: sdklog.NewStructuredLogger(logger)})
	if err != nil {
		return err
	}
	defer c.Close()
	limits := todo.Limits{}
	w := worker.New(c, childQueue, worker.Options{})
	workflows.Register(w,
		&workflows.Config{Limits: limits, SearchAttributes: searchAttributesRegistered(context.Background(), c, namespace)},
		&activities.Todos{Limits: limits},
		&activities.Models{Client: c, Config: activities.ModelConfigFromEnv()})
	if err := w.Start(); err != nil {
		return err
	}
	defer w.Stop()
	fmt.Println("ready")
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		if sc.Text() == "mem" {
			m := readMemory()
			fmt.Printf("%d %d %d %d\n", m.rssBytes, m.rssAnon, m.heapInuse, runtime.NumGoroutine())
		}
	}
	return nil
}

// child is the parent's handle on a worker-only process.
type child struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

func startChild(hostPort, namespace string) (*child, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, "-worker-child", hostPort+","+namespace)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	ch := &child{cmd: cmd, in: in, out: bufio.NewScanner(outPipe)}
	ready := make(chan bool, 1)
	go func() { ready <- ch.out.Scan() && ch.out.Text() == "ready" }()
	select {
	case ok := <-ready:
		if !ok {
			ch.stop()
			return nil, fmt.Errorf("worker-only process did not start")
		}
	case <-time.After(time.Minute):
		ch.stop()
		return nil, fmt.Errorf("worker-only process did not start in a minute")
	}
	return ch, nil
}

type childMemory struct {
	memory
	goroutines int
}

func (ch *child) memory() (childMemory, error) {
	if _, err := io.WriteString(ch.in, "mem\n"); err != nil {
		return childMemory{}, err
	}
	if !ch.out.Scan() {
		return childMemory{}, fmt.Errorf("worker-only process: no answer")
	}
	var m childMemory
	_, err := fmt.Sscanf(ch.out.Text(), "%d %d %d %d", &m.rssBytes, &m.rssAnon, &m.heapInuse, &m.goroutines)
	return m, err
}

// stop closes stdin, which ends the child; it is killed if it lingers.
func (ch *child) stop() {
	_ = ch.in.Close()
	done := make(chan struct{})
	go func() { _ = ch.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = ch.cmd.Process.Kill()
		<-done
	}
}
