package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/durabletodos/agenttodos/codec"
)

// printReady tells a person where everything is and what to try first. The
// banner goes out in one write, so log lines cannot land in the middle of it
// and a program waiting for the ready line sees the addresses with it.
func printReady(out io.Writer, conn *connection, taskQueue string, enc *encryption) {
	w := &strings.Builder{}
	defer func() { _, _ = io.WriteString(out, w.String()) }()
	fmt.Fprintf(w, "\nAgent worker ready on task queue %q, namespace %q\n", taskQueue, conn.Namespace)
	fmt.Fprintf(w, "  Temporal frontend: %s\n", conn.Address)
	if conn.Server != nil && conn.Server.UIURL() != "" {
		fmt.Fprintf(w, "  Temporal Web UI:   %s/namespaces/%s/workflows\n", conn.Server.UIURL(), conn.Namespace)
	}
	clientFlags := ""
	if enc.keys != nil {
		fmt.Fprintf(w, "  Payloads:          encrypted (%s); clients need the same keys\n", enc.keys)
		if enc.keyFile != "" {
			clientFlags = " --encryption-keys " + enc.keyFile
		}
	}
	codecFlags := ""
	if u := enc.codecURL(); u != "" {
		fmt.Fprintf(w, "  Codec server:      %s (the Web UI decrypts through it)\n", u)
		codecFlags = " --codec-endpoint " + u
		if enc.token != "" {
			fmt.Fprintf(w, "  Browsers sign in:  %s/login with the codec token\n", u)
			// The token itself stays out of the banner, which may be logged.
			if enc.tokenFile != "" {
				codecFlags += ` --codec-auth "Bearer $(cat ` + enc.tokenFile + `)"`
			} else {
				codecFlags += ` --codec-auth "Bearer $` + codec.EnvToken + `"`
			}
		}
	}
	if len(conn.Security) > 0 {
		fmt.Fprintf(w, "  Clients need:      %s\n", strings.Join(conn.Security, ";\n                     "))
	}
	fmt.Fprintf(w, "\nTry:\n")
	fmt.Fprintf(w, "  go run ./client%s run --script examples/plan-and-build.json \"Add a --json flag to the report command\"\n", clientFlags)
	fmt.Fprintf(w, "  go run ./client%s start --id demo && go run ./client%s write demo --todo \"in_progress:Read the code\" --todo \"pending:Write the fix\"\n", clientFlags, clientFlags)
	fmt.Fprintf(w, "  temporal workflow query --address %s --workflow-id demo --type todos%s\n\n", conn.Address, codecFlags)
}
