package server

import (
	"net/netip"
	"testing"
)

// A server made with the defaults listens on this machine only.
func TestDefaultAddrIsLoopback(t *testing.T) {
	ap, err := netip.ParseAddrPort(DefaultConfig().Addr)
	if err != nil || !ap.Addr().IsLoopback() || ap.Port() != 8080 {
		t.Errorf("DefaultConfig().Addr = %q; want loopback at port 8080", DefaultConfig().Addr)
	}
}
