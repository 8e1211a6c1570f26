package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/spf13/cobra"

	"evotune/tuner"
	"evotune/tuner/cluster"
)

// buildVersion is the version tasks carry and workers compare: the program version and a
// fingerprint of the build, the git revision it was built from (a clean tree) or else the
// SHA-256 of the executable, so that a rebuilt engine without a version bump neither mixes
// its results with another build's nor reads back a batch the other build played (batch IDs
// hash it). Computed once.
var buildVersion = sync.OnceValue(func() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		rev, clean := "", false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				clean = s.Value == "false"
			}
		}
		if rev != "" && clean {
			return version + "+git." + rev[:min(12, len(rev))]
		}
	}
	if exe, err := os.Executable(); err == nil {
		if f, err := os.Open(exe); err == nil {
			defer f.Close()
			h := sha256.New()
			if _, err := io.Copy(h, f); err == nil {
				return version + "+sha256." + hex.EncodeToString(h.Sum(nil))[:12]
			}
		}
	}
	return version
})

// clusterOpts are the flags that send a command's games to workers through a broker.
type clusterOpts struct {
	url, creds, tlsCA string
	ackWait           time.Duration
	maxDeliver        int
}

func addClusterFlags(c *cobra.Command, o *clusterOpts) {
	f := c.Flags()
	f.StringVar(&o.url, "broker", "", "play the games on workers through this NATS JetStream broker, e.g. nats://127.0.0.1:4222 (see 'evotune broker', 'evotune worker')")
	f.DurationVar(&o.ackWait, "ack-wait", 30*time.Second, "with --broker: a task a worker holds this long without a sign of life goes to another worker")
	f.IntVar(&o.maxDeliver, "max-deliver", 5, "with --broker: deliveries of one task before it is reported as failed")
	f.StringVar(&o.creds, "creds", "", "with --broker: NATS credentials file")
	f.StringVar(&o.tlsCA, "tls-ca", "", "with --broker: CA certificate for a TLS broker")
}

// client connects when --broker is given (nil, nil otherwise).
func (o clusterOpts) client(ctx context.Context, log io.Writer) (*cluster.Client, error) {
	if o.url == "" {
		return nil, nil
	}
	if o.maxDeliver < 1 {
		return nil, fmt.Errorf("--max-deliver %d: want at least 1", o.maxDeliver)
	}
	if o.ackWait < time.Second {
		return nil, fmt.Errorf("--ack-wait %v: want at least 1s", o.ackWait)
	}
	c, err := cluster.NewClient(ctx, cluster.Options{URL: o.url, Creds: o.creds, TLSCA: o.tlsCA, AckWait: o.ackWait,
		MaxDeliver: o.maxDeliver, Version: buildVersion(), Log: log})
	if err != nil {
		return nil, fmt.Errorf("--broker: %w", err)
	}
	fmt.Fprintf(log, "games go to the workers of %s (ack wait %v, %d deliveries at most)\n", o.url, o.ackWait, o.maxDeliver)
	return c, nil
}

// attach connects when --broker is given and hands the client to set (Tuner.SetRunner, or
// a match's setup); the returned function closes the connection (a no-op without --broker).
func (o clusterOpts) attach(ctx context.Context, log io.Writer, set func(tuner.BatchRunner)) (func(), error) {
	c, err := o.client(ctx, log)
	if err != nil || c == nil {
		return func() {}, err
	}
	set(c)
	return c.Close, nil
}

func newBrokerCmd() *cobra.Command {
	var addr, store, token string
	c := &cobra.Command{
		Use:   "broker [--addr 127.0.0.1:4222] [--store DIR] [--token T]",
		Short: "Run an embedded NATS server with JetStream for tuning on several machines",
		Long: "broker runs a NATS server with JetStream (file storage in --store) in this process until\n" +
			"interrupted. 'evotune worker --broker nats://HOST:PORT' on any machine plays the games that\n" +
			"'evotune tune --broker …' (or match, verify, resume) publishes. Any NATS server with JetStream\n" +
			"works as well. It binds to loopback unless --addr says otherwise.",
		Args:    cobra.NoArgs,
		Example: "  evotune broker\n  evotune broker --addr 0.0.0.0:4222 --store /var/lib/evotune-broker --token s3cret",
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runBroker(cmd.Context(), addr, store, token, cmd.ErrOrStderr())
		},
	}
	c.Flags().StringVar(&addr, "addr", "127.0.0.1:4222", "address to listen on (host:port)")
	c.Flags().StringVar(&store, "store", "evotune-broker", "JetStream storage directory (tasks and results survive a restart)")
	c.Flags().StringVar(&token, "token", "", "require this token from clients (nats://TOKEN@host:port)")
	return c
}

func runBroker(ctx context.Context, addr, store, token string, log io.Writer) error {
	host, portText, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %q: %w", addr, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil || port < 0 || port > 65535 {
		return fmt.Errorf("--addr %q: bad port", addr)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		fmt.Fprintf(log, "warning: the broker listens on %s, not loopback: anyone who reaches it can queue games for the workers", addr)
		if token == "" {
			fmt.Fprint(log, " (no --token set)")
		}
		fmt.Fprintln(log)
	}
	if err := os.MkdirAll(store, 0o755); err != nil {
		return fmt.Errorf("--store: %w", err)
	}
	s, err := startBroker(host, port, store, token)
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "broker: NATS with JetStream on nats://%s (store %s); stop with Ctrl-C\n", s.Addr(), store)
	<-ctx.Done()
	s.Shutdown()
	s.WaitForShutdown()
	fmt.Fprintln(log, "broker: stopped")
	return nil
}

// startBroker starts an embedded NATS server with JetStream and waits until it accepts
// connections.
func startBroker(host string, port int, store, token string) (*server.Server, error) {
	s, err := server.NewServer(&server.Options{Host: host, Port: port, JetStream: true, StoreDir: store, NoSigs: true, Authorization: token})
	if err != nil {
		return nil, fmt.Errorf("broker: %w", err)
	}
	go s.Start()
	if !s.ReadyForConnections(15 * time.Second) {
		s.Shutdown()
		return nil, fmt.Errorf("broker: not ready on %s:%d after 15 s (port in use?)", host, port)
	}
	return s, nil
}

func newWorkerCmd() *cobra.Command {
	var o cluster.WorkerOptions
	var cl clusterOpts
	c := &cobra.Command{
		Use:   "worker --broker nats://HOST:4222 [--workers N] [--allow-engine PATH]",
		Short: "Play the games a tune, match or verify publishes on a broker",
		Long: "worker pulls game tasks from the broker's work queue, plays them with this machine's\n" +
			"built-in engines (one per worker goroutine, fresh for every game, so results are the same\n" +
			"as on the tuning machine), publishes each record keyed by its task and acknowledges it. It\n" +
			"refuses tasks of another evotune version and tasks naming an external engine it was not\n" +
			"started with --allow-engine for. Stop it with Ctrl-C; a killed worker's tasks go to the\n" +
			"others after the ack wait.",
		Args:    cobra.NoArgs,
		Example: "  evotune worker --broker nats://127.0.0.1:4222\n  evotune worker --broker nats://TOKEN@tuner.lan:4222 --workers 8 --allow-engine ./pbrain-other",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cl.url == "" {
				return fmt.Errorf("--broker is required (e.g. nats://127.0.0.1:4222)")
			}
			if o.Workers < 1 {
				return fmt.Errorf("--workers %d: want at least 1", o.Workers)
			}
			o.Options = cluster.Options{URL: cl.url, Creds: cl.creds, TLSCA: cl.tlsCA, Version: buildVersion(), Log: cmd.ErrOrStderr()}
			o.Allowed = programAllowed
			return cluster.Work(cmd.Context(), o)
		},
	}
	c.Flags().StringVar(&cl.url, "broker", "", "the NATS JetStream broker, e.g. nats://127.0.0.1:4222")
	c.Flags().StringVar(&cl.creds, "creds", "", "NATS credentials file")
	c.Flags().StringVar(&cl.tlsCA, "tls-ca", "", "CA certificate for a TLS broker")
	c.Flags().IntVar(&o.Workers, "workers", runtime.NumCPU(), "games played at once")
	c.Flags().StringArrayVar(&o.Allow, "allow-engine", nil, "an external engine program tasks may run here (repeat for each)")
	return c
}
