package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// netns is a test's set of network namespaces: "hosts" joined by veth links to a bridge in
// the broker's namespace, on addresses private to them (10.77.0.0/24).
type netns struct {
	t      *testing.T
	prefix string
}

// ip runs ip(8) with args, failing the test on an error.
func (n *netns) ip(args ...string) {
	n.t.Helper()
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		n.t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// ns names a namespace of this test.
func (n *netns) ns(host string) string { return n.prefix + host }

// newNetns makes the broker's namespace with a bridge, or skips the test with the reason
// when namespaces cannot be made here (not root, no ip(8), a kernel or sandbox that
// refuses them); under CI (where .ci/run installs iproute2 and runs as root) it fails
// instead.
func newNetns(t *testing.T) *netns {
	t.Helper()
	skip := func(why string) {
		t.Helper()
		if os.Getenv("CI") != "" {
			t.Fatal(why + " (CI runs as root with iproute2: .ci/run installs it)")
		}
		t.Skip(why)
	}
	if os.Geteuid() != 0 {
		skip(fmt.Sprintf("network namespaces need root (ip netns add); this test runs as uid %d", os.Geteuid()))
	}
	if _, err := exec.LookPath("ip"); err != nil {
		skip(fmt.Sprintf("no ip(8) (Debian's iproute2) to make network namespaces: %v", err))
	}
	n := &netns{t: t, prefix: fmt.Sprintf("evt%d", os.Getpid()%100000)}
	if out, err := exec.Command("ip", "netns", "add", n.ns("b")).CombinedOutput(); err != nil {
		skip(fmt.Sprintf("network namespaces are not allowed here: ip netns add: %v: %s", err, out))
	}
	t.Cleanup(func() {
		for _, h := range []string{"b", "t", "w1", "w2"} {
			exec.Command("ip", "netns", "del", n.ns(h)).Run()
		}
	})
	n.ip("-n", n.ns("b"), "link", "set", "lo", "up")
	n.ip("-n", n.ns("b"), "link", "add", "br0", "type", "bridge")
	n.ip("-n", n.ns("b"), "addr", "add", "10.77.0.1/24", "dev", "br0")
	n.ip("-n", n.ns("b"), "link", "set", "br0", "up")
	return n
}

// host makes namespace h joined to the broker's bridge by a veth link, address 10.77.0.last.
func (n *netns) host(h string, last int) {
	n.t.Helper()
	ns, in, out := n.ns(h), n.prefix+h+"i", n.prefix+h+"o"
	n.ip("netns", "add", ns)
	n.ip("link", "add", in, "type", "veth", "peer", "name", out)
	n.ip("link", "set", in, "netns", ns)
	n.ip("link", "set", out, "netns", n.ns("b"))
	n.ip("-n", n.ns("b"), "link", "set", out, "master", "br0")
	n.ip("-n", n.ns("b"), "link", "set", out, "up")
	n.ip("-n", ns, "link", "set", "lo", "up")
	n.ip("-n", ns, "addr", "add", fmt.Sprintf("10.77.0.%d/24", last), "dev", in)
	n.ip("-n", ns, "link", "set", in, "up")
}

// link sets host h's side of its link (or, for "b", the broker's bridge) down or up.
func (n *netns) link(h string, up bool) {
	n.t.Helper()
	state := map[bool]string{false: "down", true: "up"}[up]
	dev := n.prefix + h + "i"
	if h == "b" {
		dev = "br0"
	}
	n.ip("-n", n.ns(h), "link", "set", dev, state)
}

// start runs the evotune binary in host h's namespace; the test kills it at the end.
func (n *netns) start(h, dir string, args ...string) (*exec.Cmd, *syncBuffer) {
	n.t.Helper()
	cmd := exec.Command("ip", append([]string{"netns", "exec", n.ns(h), bin}, args...)...)
	cmd.Dir, cmd.Env = dir, envOf(n.t)
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		n.t.Fatal(err)
	}
	n.t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, out
}

// waitOut polls until out has s (at most d).
func waitOut(t *testing.T, out *syncBuffer, s string, d time.Duration) {
	t.Helper()
	for end := time.Now().Add(d); !strings.Contains(out.String(), s) && time.Now().Before(end); {
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(out.String(), s) {
		t.Fatalf("no %q in:\n%s", s, out.String())
	}
}

// TestClusterAcrossNamespaces is the cluster across hosts (network namespaces): the broker, two workers and
// the tune each in a network namespace of their own, joined by veth links on private
// addresses (the broker listens on 10.77.0.1, not loopback). A seeded tune runs through the
// broker; in the middle of it one worker's link goes down (its task in hand is redelivered
// to the other after the ack wait) and comes back, then the broker's link goes down and
// comes back. The run finishes and its tables equal the local pool's.
func TestClusterAcrossNamespaces(t *testing.T) {
	t.Parallel() // mostly waiting (brokers, timeouts, processes): overlaps the others
	long(t, "a broker and workers in network namespaces: about 30 s")
	n := newNetns(t)
	n.host("t", 2)
	n.host("w1", 3)
	n.host("w2", 4)
	dir := t.TempDir()
	args := []string{"tune", "--game", "gomoku", "--method", "ga", "--selection", "peers", "--pop", "8", "--games", "8", "--generations", "8", "--depth", "3", "--verify-games", "20", "--seed", "11"}
	if _, stderr, code := run(t, dir, append(args, "--db", "local.db")...); code != 0 {
		t.Fatalf("local tune: %s", stderr)
	}
	store := filepath.Join(dir, "store")
	_, bout := n.start("b", dir, "broker", "--addr", "10.77.0.1:4222", "--store", store)
	waitOut(t, bout, "broker: NATS with JetStream", 15*time.Second)
	useBrokerToken(t, store)
	url := "nats://10.77.0.1:4222"
	_, w1 := n.start("w1", dir, "worker", "--broker", url, "--workers", "1")
	_, w2 := n.start("w2", dir, "worker", "--broker", url, "--workers", "1")
	waitOut(t, w1, "worker 1×", 15*time.Second)
	waitOut(t, w2, "worker 1×", 15*time.Second)
	tune, tout := n.start("t", dir, append(args, "--db", "remote.db", "--broker", url, "--ack-wait", "2s")...)
	done := make(chan error, 1)
	go func() { done <- tune.Wait() }()
	running := func(when string) {
		t.Helper()
		select {
		case err := <-done:
			t.Fatalf("the tune ended (%v) before %s; the test needs a longer run:\n%s", err, when, tout.String())
		default:
		}
	}
	// Worker 1 drops off the network with a task in hand and comes back after the ack wait.
	waitOut(t, w1, "played task", time.Minute)
	n.link("w1", false)
	before := strings.Count(w2.String(), "played task")
	time.Sleep(3 * time.Second)
	running("worker 1's link came back")
	if strings.Count(w2.String(), "played task") == before {
		t.Fatalf("worker 2 played nothing while worker 1 was cut off:\n%s\n%s", w2.String(), tout.String())
	}
	n.link("w1", true)
	back := strings.Count(w1.String(), "played task")
	time.Sleep(500 * time.Millisecond)
	// The broker drops off the network and comes back.
	running("the broker's link went down")
	n.link("b", false)
	time.Sleep(2 * time.Second)
	n.link("b", true)
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("tune through the broker across namespaces: %v\n%s", err, tout.String())
		}
	case <-time.After(4 * time.Minute):
		t.Fatalf("the tune did not finish:\n%s\nworker 1:\n%s\nworker 2:\n%s", tout.String(), w1.String(), w2.String())
	}
	if local, remote := tableDump(t, filepath.Join(dir, "local.db")), tableDump(t, filepath.Join(dir, "remote.db")); local != remote || local == "" {
		t.Fatalf("the run across namespaces differs from the local run:\n%s", tout.String())
	}
	t.Logf("worker 1 played %d tasks before its link came back, %d in all; worker 2 %d", back, strings.Count(w1.String(), "played task"), strings.Count(w2.String(), "played task"))
	if !strings.Contains(tout.String(), "games go to the workers") {
		t.Fatalf("the tune did not use the broker:\n%s", tout.String())
	}
}
