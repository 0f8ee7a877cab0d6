// Package pgtest starts throwaway PostgreSQL clusters for tests, from the
// server binaries of Debian's postgresql packages (initdb, pg_ctl), in a
// temporary directory, listening on a Unix socket only. As root (CI), the
// cluster runs as the unprivileged user nobody, since PostgreSQL refuses
// to run as root.
package pgtest

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"testing"
)

// BinDir returns the directory of initdb and pg_ctl, or "" when
// PostgreSQL's server is not installed.
func BinDir() string {
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		dir := string(out[:len(out)-1])
		if _, err := os.Stat(filepath.Join(dir, "initdb")); err == nil {
			return dir
		}
	}
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	sort.Strings(found)
	if len(found) == 0 {
		return ""
	}
	return filepath.Dir(found[len(found)-1])
}

// Start starts a cluster for the test and returns the connection string
// of its postgres database; the cluster is stopped and removed when the
// test ends. Without PostgreSQL's server the test is skipped, saying how
// to get it (.ci/run installs it).
func Start(t testing.TB) string {
	t.Helper()
	bin := BinDir()
	if bin == "" {
		t.Skip("PostgreSQL's server is not installed (apt-get install postgresql; .ci/run does it): skipping the PostgreSQL tests")
	}
	dir, err := os.MkdirTemp("", "gochunk-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	var cred *syscall.Credential
	name := ""
	if os.Geteuid() == 0 {
		u, err := user.Lookup("nobody")
		if err != nil {
			t.Skipf("running as root without a user nobody to run PostgreSQL as: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		name = "nobody"
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	} else if u, err := user.Current(); err == nil {
		name = u.Username
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command(filepath.Join(bin, args[0]), args[1:]...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", args[0], err, out)
		}
	}
	run("initdb", "-D", data, "--auth=trust", "--username", name, "--encoding=UTF8", "--locale=C", "--no-sync")
	opts := fmt.Sprintf("-c listen_addresses='' -c unix_socket_directories=%s -c fsync=off -c max_connections=50", dir)
	run("pg_ctl", "-D", data, "-o", opts, "-l", filepath.Join(dir, "log"), "-w", "start")
	t.Cleanup(func() {
		cmd := exec.Command(filepath.Join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		cmd.Run()
	})
	return fmt.Sprintf("host=%s dbname=postgres user=%s sslmode=disable", dir, name)
}
