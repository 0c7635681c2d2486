package main

import (
	"context"
	"log/slog"
	"os"
	"time"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"

	"github.com/durabletodos/agenttodos/activities"
	"github.com/durabletodos/agenttodos/codec"
	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/tests/sessiontest"
	"github.com/durabletodos/agenttodos/todo"
	"github.com/durabletodos/agenttodos/workflows"
)

// encryption measures the todo_write round trip and the todos query with
// payload encryption on against the same with it off, on the same server in
// the same run: two more workers in this process, each on a task queue of
// its own with a client of its own, one encrypting (codec.Configure with a
// key) and one not (codec.Configure without: our JSON converter, as the
// worker binary runs by default), written and queried alternately.
func (b *bench) encryption() error {
	line, err := codec.NewKeyLine("bench")
	if err != nil {
		return err
	}
	keys, err := codec.ParseKeys(line, "bench")
	if err != nil {
		return err
	}
	off, err := b.encryptionSide("bench-encryption-off", nil)
	if err != nil {
		return err
	}
	defer off.stop()
	on, err := b.encryptionSide("bench-encryption-on", keys)
	if err != nil {
		return err
	}
	defer on.stop()

	sides := []*encryptionSide{off, on}
	for _, s := range sides {
		if err := s.start(); err != nil {
			return err
		}
	}
	write := func(s *encryptionSide, k int) func() error {
		return func() error {
			ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
			defer cancel()
			_, err := sessiontest.Write(ctx, s.c, s.id, "", benchList(k))
			return err
		}
	}
	query := func(s *encryptionSide) func() error {
		return func() error {
			ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
			defer cancel()
			return queryTodosOn(ctx, s.c, s.id)
		}
	}
	var discard latencies
	for k := range b.o.warmup {
		for _, s := range sides {
			if err := discard.time(write(s, k)); err != nil {
				return err
			}
			if err := discard.time(query(s)); err != nil {
				return err
			}
		}
	}
	for k := range b.o.updates {
		a := b.o.warmup + k
		// Off first on even rounds, on first on odd ones: neither side
		// always follows the other.
		order := sides
		if k%2 == 1 {
			order = []*encryptionSide{on, off}
		}
		for _, s := range order {
			if err := s.writes.time(write(s, a)); err != nil {
				return err
			}
		}
	}
	for k := range b.o.queries {
		order := sides
		if k%2 == 1 {
			order = []*encryptionSide{on, off}
		}
		for _, s := range order {
			if err := s.queries.time(query(s)); err != nil {
				return err
			}
		}
	}
	b.r.encWriteOff, b.r.encWriteOn = off.writes, on.writes
	b.r.encQueryOff, b.r.encQueryOn = off.queries, on.queries
	return nil
}

// encryptionSide is one worker, its client and the session it writes.
type encryptionSide struct {
	c       client.Client
	w       worker.Worker
	queue   string
	id      string
	writes  latencies
	queries latencies
}

func (b *bench) encryptionSide(queue string, keys *codec.Keys) (*encryptionSide, error) {
	opts := client.Options{HostPort: b.hostPort, Namespace: b.namespace, Logger: sdklog.NewStructuredLogger(
		slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))}
	codec.Configure(&opts, keys)
	c, err := client.Dial(opts)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s := &encryptionSide{c: c, queue: queue, id: queue + "-session"}
	s.w = worker.New(c, queue, worker.Options{})
	workflows.Register(s.w,
		&workflows.Config{SearchAttributes: searchAttributesRegistered(ctx, c, b.namespace), DataConverter: opts.DataConverter},
		&activities.Todos{}, &activities.Models{Client: c, Config: activities.ModelConfigFromEnv()})
	if err := s.w.Start(); err != nil {
		c.Close()
		return nil, err
	}
	return s, nil
}

func (s *encryptionSide) start() error {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	_, err := s.c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: s.id, TaskQueue: s.queue}, contract.WorkflowType, workflows.SessionInput{})
	return err
}

func (s *encryptionSide) stop() {
	s.w.Stop()
	s.c.Close()
}

// queryTodosOn is the todos query through client c.
func queryTodosOn(ctx context.Context, c client.Client, id string) error {
	v, err := c.QueryWorkflow(ctx, id, "", contract.QueryTodos)
	if err != nil {
		return err
	}
	var st todo.State
	return v.Get(&st)
}
