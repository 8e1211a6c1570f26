//go:build linux

package wire

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestEnginePipesOutsidePoller: an engine's standard input and output are not in the
// runtime's epoll set, where every line the engine wrote would wake the poller's thread
// for nothing; its standard error, read by a goroutine, is (so the set read is the
// runtime's). A line goes through both pipes.
func TestEnginePipesOutsidePoller(t *testing.T) {
	e := &Conn{Name: "cat", Command: func() ([]string, error) { return []string{"cat"}, nil }}
	defer e.Close("")
	if err := e.Start(); err != nil {
		t.Fatal(err)
	}
	if err := e.Send("ping"); err != nil {
		t.Fatal(err)
	}
	if l, err := e.Read(context.Background(), time.Now().Add(10*time.Second), func(l string) bool { return true }); err != nil || l != "ping" {
		t.Fatalf("read %q, %v; want ping", l, err)
	}
	watched := epollTargets(t)
	if len(watched) == 0 {
		t.Fatal("no descriptor in the runtime's epoll set: the engine's standard error should be")
	}
	for name, fd := range map[string]int{"standard output": e.out.fd, "standard input": int(e.stdin.Fd())} {
		if watched[fd] {
			t.Errorf("the engine's %s (fd %d) is in the runtime's epoll set %v", name, fd, watched)
		}
	}
}

// epollTargets returns the descriptors in this process's epoll sets (from /proc/self/fdinfo).
func epollTargets(t *testing.T) map[int]bool {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	out := map[int]bool{}
	for _, f := range fds {
		if l, _ := os.Readlink(filepath.Join("/proc/self/fd", f.Name())); l != "anon_inode:[eventpoll]" {
			continue
		}
		info, err := os.ReadFile(filepath.Join("/proc/self/fdinfo", f.Name()))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(info), "\n") {
			if fields := strings.Fields(line); len(fields) >= 2 && fields[0] == "tfd:" {
				if n, err := strconv.Atoi(fields[1]); err == nil {
					out[n] = true
				}
			}
		}
	}
	return out
}
