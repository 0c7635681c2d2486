package main

import (
	"cmp"
	"os"
	"os/user"
)

// defaultWriter is who the client says it writes for when --as is not
// given: AGENT_WRITER, else the login name. It is a claim the session
// records, not a credential.
func defaultWriter() string {
	if w, ok := os.LookupEnv("AGENT_WRITER"); ok {
		return w
	}
	name := ""
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	return cmp.Or(name, os.Getenv("USER"), os.Getenv("USERNAME"))
}
