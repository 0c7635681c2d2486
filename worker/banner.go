package main

import (
	"fmt"
	"io"
	"strings"
)

// printReady tells a person where everything is and what to try first. The
// banner goes out in one write, so log lines cannot land in the middle of it
// and a program waiting for the ready line sees the addresses with it.
func printReady(out io.Writer, conn *connection, taskQueue string) {
	w := &strings.Builder{}
	defer func() { _, _ = io.WriteString(out, w.String()) }()
	fmt.Fprintf(w, "\nAgent worker ready on task queue %q, namespace %q\n", taskQueue, conn.Namespace)
	fmt.Fprintf(w, "  Temporal frontend: %s\n", conn.Address)
	if conn.Server != nil && conn.Server.UIURL() != "" {
		fmt.Fprintf(w, "  Temporal Web UI:   %s/namespaces/%s/workflows\n", conn.Server.UIURL(), conn.Namespace)
	}
	fmt.Fprintf(w, "\nTry:\n")
	fmt.Fprintf(w, "  go run ./client run --script examples/plan-and-build.json \"Add a --json flag to the report command\"\n")
	fmt.Fprintf(w, "  go run ./client start --id demo && go run ./client write demo --todo \"in_progress:Read the code\" --todo \"pending:Write the fix\"\n")
	fmt.Fprintf(w, "  temporal workflow query --address %s --workflow-id demo --type todos\n\n", conn.Address)
}
