package cluster

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServeBroker: flags refused before anything starts (a bad --addr, --no-auth with a
// token file or off loopback); a broker that starts makes its token (mode 0600, kept
// across restarts), says where it is, accepts connections and stops with its context;
// ReadToken reads the file's one line or the environment.
func TestServeBroker(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	for _, bad := range []struct {
		c    BrokerConfig
		want string
	}{
		{BrokerConfig{Addr: "nohost", Store: dir}, "--addr"},
		{BrokerConfig{Addr: "127.0.0.1:99999", Store: dir}, "bad port"},
		{BrokerConfig{Addr: "127.0.0.1:4222", Store: dir, NoAuth: true, TokenFile: "x"}, "choose one"},
		{BrokerConfig{Addr: "0.0.0.0:4222", Store: dir, NoAuth: true}, "--no-auth on 0.0.0.0:4222"},
	} {
		if err := ServeBroker(ctx, bad.c, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%+v: %v, want an error naming %q", bad.c, err, bad.want)
		}
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	store := filepath.Join(dir, "store")
	run, stop := context.WithCancel(ctx)
	var log lockedBuffer
	done := make(chan error, 1)
	go func() { done <- ServeBroker(run, BrokerConfig{Addr: addr, Store: store}, &log) }()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(log.String(), "clients need the token") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("the broker does not accept connections: %v\n%s", err, log.String())
	}
	c.Close()
	tokenFile := filepath.Join(store, "token")
	st, err := os.Stat(tokenFile)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v, %v", st, err)
	}
	tok, err := ReadToken(tokenFile)
	if err != nil || len(tok) != 64 {
		t.Errorf("ReadToken: %q, %v", tok, err)
	}
	stop()
	if err := <-done; err != nil || !strings.Contains(log.String(), "broker: stopped") {
		t.Errorf("stop: %v\n%s", err, log.String())
	}
	if err := ensureToken(tokenFile); err != nil {
		t.Fatal(err)
	}
	if again, _ := ReadToken(tokenFile); again != tok {
		t.Error("the token changed across a restart")
	}
	t.Setenv(TokenEnv, " from-env \n")
	if tok, err := ReadToken(""); err != nil || tok != "from-env" {
		t.Errorf("ReadToken from the environment: %q, %v", tok, err)
	}
	two := filepath.Join(dir, "two")
	os.WriteFile(two, []byte("a\nb\n"), 0o600)
	if _, err := ReadToken(two); err == nil || !strings.Contains(err.Error(), "--token-file") {
		t.Errorf("a token file of two lines: %v", err)
	}
}

// TestBuildVersion: a test binary has no clean git revision, so its version is the
// program's and the SHA-256 of the executable, the same every time; BusyText names each
// run once, the longest held first.
func TestBuildVersion(t *testing.T) {
	v := BuildVersion("9.9")
	if !strings.HasPrefix(v, "9.9+sha256.") || len(v) != len("9.9+sha256.")+12 {
		t.Errorf("BuildVersion = %q", v)
	}
	if BuildVersion("9.9") != v {
		t.Error("BuildVersion changed between calls")
	}
	if got := BusyText([]Busy{{Run: "run 3 (gomoku) of h/40", Seconds: 62}, {Run: "run 3 (gomoku) of h/40", Seconds: 5}, {Run: "run 4 (chess) of h/41", Seconds: 1}}); got != "run 3 (gomoku) of h/40 for 1m2s, run 4 (chess) of h/41 for 1s" {
		t.Errorf("BusyText = %q", got)
	}
	if BusyText(nil) != "-" {
		t.Error("BusyText of nothing")
	}
}
