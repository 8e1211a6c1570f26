package wire

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestConnSendAfterExit: an engine that prints a line and exits before reading its
// input makes the next command fail with a broken pipe; what it printed must still reach
// the transcript (the only clue to why it died), however the exit and the write race.
func TestConnSendAfterExit(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	p := filepath.Join(t.TempDir(), "crash.sh")
	os.WriteFile(p, []byte("#!/bin/sh\necho hello; exit 3\n"), 0o755)
	e := &Conn{Name: "crash.sh", Command: func() ([]string, error) { return []string{p}, nil }}
	defer e.Close("")
	if err := e.Start(); err != nil {
		t.Fatal(err)
	}
	// Its output is closed and the line sits unread, as when the write loses the race.
	// Its output closes a moment before its input does (seen here: a write right after the
	// EOF still succeeded): wait until the process is a zombie, every descriptor closed.
	waitZombie(t, e.cmd.Process.Pid)
	if err := e.Send("START 15"); err == nil || !strings.Contains(err.Error(), "exited or stopped reading") {
		t.Fatalf("send to an engine that exited: %v", err)
	}
	if tr := e.Transcript(); !strings.Contains(tr, "stdout: hello") {
		t.Fatalf("transcript %q lacks what the engine printed before it exited", tr)
	}
}

// waitZombie waits (at most 5 s) until process pid has exited and is not yet reaped: all
// its file descriptors are closed. Without /proc it waits 200 ms.
func waitZombie(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			time.Sleep(200 * time.Millisecond)
			return
		}
		// stat is "pid (comm) S …": the state follows the last ')'.
		if i := strings.LastIndexByte(string(st), ')'); i > 0 && i+2 < len(st) && st[i+2] == 'Z' {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("process %d did not exit within 5 s", pid)
}

// TestSendOneLine: a line with a line break in it (an option value from a task) is refused
// and nothing reaches the engine; the next proper line does.
func TestSendOneLine(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	got := filepath.Join(dir, "stdin")
	p := filepath.Join(dir, "cat.sh")
	os.WriteFile(p, []byte("#!/bin/sh\ncat > "+got+"\n"), 0o755)
	e := &Conn{Name: "cat.sh", Command: func() ([]string, error) { return []string{p}, nil }}
	if err := e.Start(); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"x\nBOARD", "1\r\nEND", "a\x00b"} {
		if err := e.Send("INFO %s %s", bad, "1"); err == nil || !strings.Contains(err.Error(), "control character") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if err := e.Send("INFO %s %s", "strength", "5"); err != nil {
		t.Fatal(err)
	}
	e.Close("")
	data, _ := os.ReadFile(got)
	if string(data) != "INFO strength 5\n" {
		t.Errorf("the engine read %q, want only the proper line", data)
	}
}

// TestReadDeadlines: Read returns an answer as soon as it is written, keeps a line begun
// before the deadline passed for the next Read, fails with ErrTimeLoss at the deadline,
// with the context's error when the context ends (within ctxSlice), and with the exit once
// the engine's output closes.
func TestReadDeadlines(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	p := filepath.Join(t.TempDir(), "slow.sh")
	// "info" at once; "best" in two halves 300 ms apart; then silence until input arrives.
	os.WriteFile(p, []byte("#!/bin/sh\necho info; printf be; sleep 0.3; echo st; read x; echo got $x; read y; exit 0\n"), 0o755)
	e := &Conn{Name: "slow.sh", Command: func() ([]string, error) { return []string{p}, nil }}
	defer e.Close("")
	if err := e.Start(); err != nil {
		t.Fatal(err)
	}
	isBest := func(l string) bool { return l == "best" }
	// The deadline passes in the middle of "be|st".
	if _, err := e.Read(context.Background(), time.Now().Add(100*time.Millisecond), isBest); !errors.Is(err, ErrTimeLoss) {
		t.Fatalf("read past the deadline: %v, want ErrTimeLoss", err)
	}
	if l, err := e.Read(context.Background(), time.Now().Add(5*time.Second), isBest); err != nil || l != "best" {
		t.Fatalf("read after a deadline: %q, %v, want the line begun before it", l, err)
	}
	if tr := e.Transcript(); !strings.Contains(tr, "stdout: info") {
		t.Errorf("the line that was no answer is not in the transcript: %q", tr)
	}
	// Nothing comes until it gets a line: a cancelled context ends the wait.
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	// Canceled, not the 10 s deadline: the cancellation ended it (no clock asserted).
	if _, err := e.Read(ctx, time.Now().Add(10*time.Second), isBest); !errors.Is(err, context.Canceled) {
		t.Fatalf("read with a cancelled context: %v", err)
	}
	if err := e.Send("ping"); err != nil {
		t.Fatal(err)
	}
	if l, err := e.Read(context.Background(), time.Now().Add(5*time.Second), func(l string) bool { return strings.HasPrefix(l, "got") }); err != nil || l != "got ping" {
		t.Fatalf("read after a cancelled one: %q, %v", l, err)
	}
	e.CloseInput()
	if _, err := e.Read(context.Background(), time.Now().Add(5*time.Second), isBest); err == nil || !strings.Contains(err.Error(), "exited") {
		t.Fatalf("read from an engine that exited: %v", err)
	}
}
