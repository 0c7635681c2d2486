package embedded

import (
	"fmt"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestFreeAddressIsHeldInTimeWait checks the reservation FreeAddress relies
// on: the port sits in TIME_WAIT (which Linux's bind(":0") skips) and can
// still be bound explicitly at once.
func TestFreeAddressIsHeldInTimeWait(t *testing.T) {
	addr, err := FreeAddress(loopback)
	if err != nil {
		t.Fatal(err)
	}
	_, portStr, _ := net.SplitHostPort(addr)
	port, _ := strconv.Atoi(portStr)
	if runtime.GOOS == "linux" {
		tcp, err := os.ReadFile("/proc/net/tcp")
		if err != nil {
			t.Fatal(err)
		}
		// Columns: sl local_address rem_address st ...; 06 is TIME_WAIT.
		local := fmt.Sprintf(":%04X", port)
		held := false
		for _, line := range strings.Split(string(tcp), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) > 3 && strings.HasSuffix(f[1], local) && f[3] == "06" {
				held = true
			}
		}
		if !held {
			t.Fatalf("port %d is not in TIME_WAIT after FreeAddress; bind(\":0\") elsewhere may take it", port)
		}
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("binding the address FreeAddress returned: %v", err)
	}
	l.Close()
}
