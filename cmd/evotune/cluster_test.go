package main

import (
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// freePort returns a loopback TCP port nobody listens on now.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// start runs the binary in the background; the test kills it at the end.
func start(t testing.TB, dir string, args ...string) (*exec.Cmd, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = dir, envOf(t)
	out := new(syncBuffer) // the process writes while the test reads
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, out
}

// waitFor polls until the output has s.
func waitFor(t testing.TB, out *syncBuffer, s string) {
	t.Helper()
	for i := 0; i < 100 && !strings.Contains(out.String(), s); i++ {
		time.Sleep(100 * time.Millisecond)
	}
	if !strings.Contains(out.String(), s) {
		t.Fatalf("no %q in:\n%s", s, out.String())
	}
}

// startTestBroker starts `evotune broker` on a free loopback port with its store in dir and
// returns its URL once it serves.
func startTestBroker(t testing.TB, dir string) string {
	t.Helper()
	port := freePort(t)
	_, out := start(t, dir, "broker", "--addr", "127.0.0.1:"+strconv.Itoa(port), "--store", filepath.Join(dir, "store"))
	waitFor(t, out, "broker: NATS with JetStream")
	useBrokerToken(t, filepath.Join(dir, "store"))
	return "nats://127.0.0.1:" + strconv.Itoa(port)
}

// useBrokerToken gives every evotune the test starts from now on the token the broker
// made in store (through $EVOTUNE_BROKER_TOKEN, as a user would export it; setEnv).
func useBrokerToken(t testing.TB, store string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(store, "token"))
	if err != nil {
		t.Fatalf("the broker made no token: %v", err)
	}
	if fi, _ := os.Stat(filepath.Join(store, "token")); fi.Mode().Perm() != 0o600 {
		t.Fatalf("the token file has mode %v, want 0600", fi.Mode().Perm())
	}
	tok := strings.TrimSpace(string(data))
	setEnv(t, "EVOTUNE_BROKER_TOKEN", tok)
	return tok
}

// TestClusterTune is the cluster mode end to end on localhost: an embedded broker and three
// worker processes play a tune whose database equals the local run's; one worker is
// killed with SIGKILL in the middle of a batch and the broker is restarted during the
// run, and the database is still the local run's, every game counted once.
func TestClusterTune(t *testing.T) {
	t.Parallel() // mostly waiting (brokers, timeouts, processes): overlaps the others
	long(t, "a tune through a broker and workers, a worker killed and the broker restarted: about 15 s")
	dir := t.TempDir()
	port := freePort(t)
	url := "nats://127.0.0.1:" + strconv.Itoa(port)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	store := filepath.Join(dir, "store")
	broker, bout := start(t, dir, "broker", "--addr", addr, "--store", store)
	waitFor(t, bout, "broker: NATS with JetStream")
	useBrokerToken(t, store)
	var workers []*exec.Cmd
	var wouts []*syncBuffer
	for i := 0; i < 3; i++ {
		w, out := start(t, dir, "worker", "--broker", url, "--workers", "1")
		workers, wouts = append(workers, w), append(wouts, out)
	}
	args := []string{"tune", "--game", "gomoku", "--method", "ga", "--pop", "8", "--games", "8", "--generations", "3", "--depth", "3", "--verify-games", "20", "--seed", "5"}
	if _, stderr, code := run(t, dir, append(args, "--db", "local.db")...); code != 0 {
		t.Fatalf("local tune: %s", stderr)
	}
	tune, tout := start(t, dir, append(args, "--db", "remote.db", "--broker", url, "--ack-wait", "2s")...)
	done := make(chan error, 1)
	go func() { done <- tune.Wait() }()
	// Kill a worker once it has played a few games, then restart the broker, both while the
	// tune is running.
	waitFor(t, wouts[0], "played")
	workers[0].Process.Signal(syscall.SIGKILL)
	time.Sleep(300 * time.Millisecond)
	select {
	case <-done:
		t.Fatalf("the tune finished before the broker restart; the test needs a longer run:\n%s", tout.String())
	default:
	}
	broker.Process.Signal(syscall.SIGKILL)
	broker.Wait()
	time.Sleep(500 * time.Millisecond)
	_, bout2 := start(t, dir, "broker", "--addr", addr, "--store", store)
	waitFor(t, bout2, "broker: NATS with JetStream")
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("tune through the broker: %v\n%s", err, tout.String())
		}
	case <-time.After(3 * time.Minute):
		t.Fatalf("tune through the broker did not finish:\n%s", tout.String())
	}
	local, remote := tableDump(t, filepath.Join(dir, "local.db")), tableDump(t, filepath.Join(dir, "remote.db"))
	if local != remote || local == "" {
		t.Fatalf("the cluster run's database differs from the local run's\n%s", tout.String())
	}
	// The same run again: its deterministic batches are already on the broker, so it
	// completes from the stored results (it once waited for ever) with the same database.
	if _, stderr, code := runTimeout(t, dir, 2*time.Minute, append(args, "--db", "again.db", "--broker", url)...); code != 0 {
		t.Fatalf("the same tune again through the broker: %s", stderr)
	}
	if again := tableDump(t, filepath.Join(dir, "again.db")); again != local {
		t.Fatal("the repeated cluster run's database differs from the local run's")
	}
	// The steady-state GA keeps several births' batches on the broker at once, SPSA its
	// lag's steps (8 by default); each one's database is the local run's too.
	for _, m := range []struct{ name, method string }{{"steady", "steady --pop 6 --games 8"}, {"spsa", "spsa"}} {
		if m.name == "spsa" && testing.Short() {
			t.Log("skipped under -short: SPSA through the broker (the full suite runs it)")
			continue
		}
		args := append([]string{"tune", "--game", "gomoku", "--method"}, strings.Fields(m.method)...)
		args = append(args, "--budget-games", "400", "--depth", "2", "--verify-games", "0", "--seed", "5")
		if _, stderr, code := run(t, dir, append(args, "--db", m.name+"-local.db")...); code != 0 {
			t.Fatalf("local %s tune: %s", m.name, stderr)
		}
		out, stderr, code := runTimeout(t, dir, 2*time.Minute, append(args, "--db", m.name+"-remote.db", "--broker", url)...)
		if code != 0 {
			t.Fatalf("%s tune through the broker: %s", m.name, stderr)
		}
		// Measured against the live workers' game slots, as their heartbeats count them.
		if all := out + stderr; !regexp.MustCompile(`slot utilisation [0-9.]+% of [0-9]+ game slots?`).MatchString(all) {
			t.Fatalf("%s tune through the broker: no slot utilisation of the workers' slots:\n%s", m.name, all)
		}
		if a, b := tableDump(t, filepath.Join(dir, m.name+"-local.db")), tableDump(t, filepath.Join(dir, m.name+"-remote.db")); a != b || a == "" {
			t.Fatalf("the %s cluster run's database differs from the local run's", m.name)
		}
	}
	played := 0
	for _, o := range wouts {
		played += strings.Count(o.String(), "played ")
	}
	if played == 0 || !strings.Contains(tout.String(), "games go to the workers") {
		t.Fatalf("the workers played %d games; tune said:\n%s", played, tout.String())
	}
	// `evotune workers` sees the two live workers (one game at once each, games played) and
	// an empty queue; the killed one is gone.
	out, stderr, code := run(t, dir, "workers", "--broker", url, "--json")
	if code != 0 {
		t.Fatalf("workers: %s", stderr)
	}
	var st struct {
		Queue struct {
			Queued   int `json:"queued"`
			InFlight int `json:"in_flight"`
		} `json:"queue"`
		Workers []struct {
			Slots  int `json:"slots"`
			Played int `json:"played"`
			PID    int `json:"pid"`
		} `json:"workers"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("workers --json: %v\n%s", err, out)
	}
	if len(st.Workers) != 2 || st.Queue.Queued != 0 || st.Queue.InFlight != 0 {
		t.Fatalf("workers --json: %s", out)
	}
	total := 0
	for _, w := range st.Workers {
		if w.Slots != 1 || w.PID == workers[0].Process.Pid {
			t.Fatalf("workers --json: %s", out)
		}
		total += w.Played
	}
	if total == 0 {
		t.Fatalf("the live workers report no games played: %s", out)
	}
	if out, _, code := run(t, dir, "workers", "--broker", url); code != 0 || !strings.Contains(out, "2 workers answered (2 games at once of this build)") {
		t.Fatalf("workers: exit %d\n%s", code, out)
	}
	// The dashboard given --broker serves the same.
	sport := freePort(t)
	_, sout := start(t, dir, "serve", "--db", "remote.db", "--addr", "127.0.0.1:"+strconv.Itoa(sport), "--broker", url)
	waitFor(t, sout, "dashboard of")
	var view struct {
		Enabled bool `json:"enabled"`
		Workers []struct {
			Slots int `json:"slots"`
		} `json:"workers"`
	}
	for i := 0; i < 30; i++ { // heartbeats come every 2 s
		resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(sport) + "/api/workers")
		if err != nil {
			t.Fatal(err)
		}
		err = json.NewDecoder(resp.Body).Decode(&view)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(view.Workers) == 2 {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if !view.Enabled || len(view.Workers) != 2 || view.Workers[0].Slots != 1 {
		t.Fatalf("serve --broker: /api/workers = %+v", view)
	}
}

// TestWorkerRefusals: a worker refuses tasks naming an external engine whose command line
// it was not given, answers them with the reason and keeps serving; the match says why it
// waits and stops at --broker-timeout instead of waiting for ever; with the command line
// allowed, the same worker plays it.
func TestWorkerRefusals(t *testing.T) {
	t.Parallel() // mostly waiting (brokers, timeouts, processes): overlaps the others
	long(t, "workers refusing tasks, each refusal waited out: about 12 s")
	dir := t.TempDir()
	url := startTestBroker(t, dir)
	engine := "cmd:" + bin + " engine --game gomoku --depth 1"
	_, wout := start(t, dir, "worker", "--broker", url, "--workers", "1", "--allow-engine", engine+" --width 3")
	waitFor(t, wout, "worker 1×")
	out, stderr, code := run(t, dir, "match", "--game", "gomoku", "--a", engine, "--b", "default", "--games", "2", "--depth", "1",
		"--broker", url, "--broker-timeout", "10s")
	if code == 0 || !strings.Contains(stderr, "refused task") || !strings.Contains(stderr, "--allow-engine") || !strings.Contains(stderr, "--broker-timeout") {
		t.Fatalf("match with a disallowed engine: exit %d\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(wout.String(), "refused task") {
		t.Fatalf("the worker did not say it refused:\n%s", wout.String())
	}
	_, wout2 := start(t, dir, "worker", "--broker", url, "--workers", "1", "--allow-engine", engine)
	waitFor(t, wout2, "worker 1×")
	if out, stderr, code := run(t, dir, "match", "--game", "gomoku", "--a", engine, "--b", "default", "--games", "2", "--depth", "1",
		"--broker", url, "--broker-timeout", "60s"); code != 0 {
		t.Fatalf("match with an allowed engine: %s\n%s\n%s", out, stderr, wout2.String())
	}
	if strings.Contains(wout.String(), "worker stopped") {
		t.Fatalf("the refusing worker stopped:\n%s", wout.String())
	}
}

// TestClusterResumeAndVersions: a tune through the broker killed with SIGKILL is resumed
// through the broker, with the workers still attached, to the local run's database; a
// worker of another evotune version refuses the tasks and says why.
func TestClusterResumeAndVersions(t *testing.T) {
	t.Parallel() // mostly waiting (brokers, timeouts, processes): overlaps the others
	long(t, "a cluster run killed and resumed, workers of other versions: about 30 s")
	dir := t.TempDir()
	url := startTestBroker(t, dir)
	// A worker of another version first: it refuses whatever it pulls.
	other := filepath.Join(dir, "evotune-other")
	if out, err := exec.Command("go", "build", "-ldflags", "-X main.version=0.0.0-other", "-o", other, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	oc := exec.Command(other, "worker", "--broker", url, "--workers", "1")
	oc.Env = envOf(t)
	oout := new(syncBuffer)
	oc.Stdout, oc.Stderr = oout, oout
	if err := oc.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { oc.Process.Kill(); oc.Wait() })
	_, wout := start(t, dir, "worker", "--broker", url, "--workers", "2")
	waitFor(t, wout, "worker 2×")
	args := []string{"tune", "--game", "gomoku", "--method", "ga", "--pop", "8", "--games", "8", "--generations", "4", "--depth", "3", "--verify-games", "0", "--seed", "9"}
	if _, stderr, code := run(t, dir, append(args, "--db", "local.db")...); code != 0 {
		t.Fatalf("local tune: %s", stderr)
	}
	tune, tout := start(t, dir, append(args, "--db", "remote.db", "--broker", url, "--ack-wait", "2s")...)
	waitFor(t, tout, "generation 1/4 saved")
	tune.Process.Signal(syscall.SIGKILL)
	tune.Wait()
	if _, stderr, code := runTimeout(t, dir, 3*time.Minute, "resume", "1", "--db", "remote.db", "--broker", url, "--ack-wait", "2s"); code != 0 {
		t.Fatalf("resume through the broker: %s\n%s", stderr, tout.String())
	}
	if tableDump(t, filepath.Join(dir, "local.db")) != tableDump(t, filepath.Join(dir, "remote.db")) {
		t.Fatal("the resumed cluster run's database differs from the local run's")
	}
	if !strings.Contains(oout.String(), "refused task") || !strings.Contains(oout.String(), "another build of evotune") || strings.Contains(oout.String(), "worker stopped") {
		t.Fatalf("the other-version worker did not refuse:\n%s", oout.String())
	}
}
