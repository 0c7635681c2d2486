package main

import (
	"fmt"
	"io"
)

// printReady tells a person where everything is and what to try first.
func printReady(w io.Writer, conn *connection, taskQueue string) {
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
