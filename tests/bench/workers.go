package main

// workers: the throughput of sessions spread over two worker processes
// against one, on the same server in the same run. Both are this binary
// re-run with -worker-child (the worker binary's registration, on a task
// queue of their own). Order: one, two, two, one; each round writes
// sessions started while its workers ran, so they are spread over the
// workers that were polling (a session then stays on its worker's sticky
// queue).
func (b *bench) workers() error {
	first, err := startChild(b.hostPort, b.namespace)
	if err != nil {
		return err
	}
	defer first.stop()
	on := &bench{o: b.o, c: b.c, r: &report{}, hostPort: b.hostPort, namespace: b.namespace, queue: childQueue}
	one, _, err := on.throughputOf("one-worker", []string{kindOurs}, "")
	if err != nil {
		return err
	}
	second, err := startChild(b.hostPort, b.namespace)
	if err != nil {
		return err
	}
	two, _, err := on.throughputOf("two-workers", []string{kindOurs, kindOurs}, "")
	second.stop()
	if err != nil {
		return err
	}
	one[kindOurs].add(on.throughputRound("one-worker", kindOurs))
	b.r.oneWorker, b.r.twoWorkers = one[kindOurs].rate(), two[kindOurs].rate()
	b.r.copyErrors("two workers", &on.r.errorNotes)
	return nil
}
