package main

import (
	"testing"
	"time"
)

func TestStopTimeoutFromFlagEnvOrDefault(t *testing.T) {
	t.Setenv("AGENT_STOP_TIMEOUT", "")
	if c, err := parseConfig(nil); err != nil || c.StopTimeout != defaultStopTimeout {
		t.Errorf("no flag, no env: %s, %v; want %s", c.StopTimeout, err, defaultStopTimeout)
	}
	t.Setenv("AGENT_STOP_TIMEOUT", "45s")
	if c, err := parseConfig(nil); err != nil || c.StopTimeout != 45*time.Second {
		t.Errorf("AGENT_STOP_TIMEOUT=45s: %s, %v", c.StopTimeout, err)
	}
	if c, err := parseConfig([]string{"-stop-timeout", "0s"}); err != nil || c.StopTimeout != 0 {
		t.Errorf("the flag wins over the env: %s, %v", c.StopTimeout, err)
	}
	for _, bad := range [][]string{{"-stop-timeout", "-1s"}, {"-stop-timeout", "soon"}} {
		if _, err := parseConfig(bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	t.Setenv("AGENT_STOP_TIMEOUT", "soon")
	if _, err := parseConfig(nil); err == nil {
		t.Error("AGENT_STOP_TIMEOUT=soon accepted")
	}
}
