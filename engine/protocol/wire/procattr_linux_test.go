package wire

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestEngineDiesWithReferee: a referee killed with SIGKILL takes its engine with it, even
// an engine that ignores end of input and SIGTERM (it was left running under PID 1). The
// referee is this test binary run again with EVOTUNE_WIRE_REFEREE set: it starts the
// engine, writes its PID and waits to be killed.
func TestEngineDiesWithReferee(t *testing.T) {
	if pidFile := os.Getenv("EVOTUNE_WIRE_REFEREE"); pidFile != "" {
		e := &Conn{Name: "stubborn", Command: func() ([]string, error) {
			return []string{"sh", "-c", "trap '' TERM HUP; while :; do sleep 1; done"}, nil
		}}
		if err := e.Start(); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(pidFile, []byte(strconv.Itoa(e.cmd.Process.Pid)), 0o644)
		time.Sleep(time.Minute)
		return
	}
	pidFile := filepath.Join(t.TempDir(), "engine.pid")
	ref := exec.Command(os.Args[0], "-test.run", "^TestEngineDiesWithReferee$")
	ref.Env = append(os.Environ(), "EVOTUNE_WIRE_REFEREE="+pidFile)
	if err := ref.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	for deadline := time.Now().Add(30 * time.Second); pid == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			ref.Process.Kill()
			t.Fatal("the referee never started its engine")
		}
		b, _ := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	ref.Process.Kill() // SIGKILL: nothing of the referee runs after it
	ref.Wait()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if err := syscall.Kill(pid, 0); err != nil {
			return // gone (reaped by init once killed)
		}
		if b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); strings.Contains(string(b), ") Z") {
			return // killed, waiting for init to reap it
		}
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("engine %d still runs 30 s after its referee was killed", pid)
		}
	}
}
