package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"evotune/engine/protocol"
	"evotune/tuner/arena"
	"evotune/tuner/cluster"
	"evotune/tuner/runview"
)

// buildVersion is the version tasks carry and workers compare (cluster.BuildVersion),
// computed once.
var buildVersion = sync.OnceValue(func() string { return cluster.BuildVersion(version) })

// clusterOpts are the flags that send a command's games to workers through a broker.
type clusterOpts struct {
	url, creds, tlsCA, tokenFile string
	ackWait, timeout             time.Duration
	maxDeliver, taskGames        int
}

// token is the broker token: --token-file, else $EVOTUNE_BROKER_TOKEN (cluster.ReadToken).
func (o clusterOpts) token() (string, error) { return cluster.ReadToken(o.tokenFile) }

// addAuthFlags adds the flags that reach a broker (tune, match, verify, resume, worker).
func addAuthFlags(c *cobra.Command, o *clusterOpts) {
	f := c.Flags()
	f.StringVar(&o.tokenFile, "token-file", "", "with --broker: the file holding the broker's token (default: $"+cluster.TokenEnv+"; 'evotune broker' prints where it keeps its token)")
	f.StringVar(&o.creds, "creds", "", "with --broker: NATS credentials file")
	f.StringVar(&o.tlsCA, "tls-ca", "", "with --broker: CA certificate for a TLS broker")
}

func addClusterFlags(c *cobra.Command, o *clusterOpts) {
	f := c.Flags()
	f.StringVar(&o.url, "broker", "", "play the games on workers through this NATS JetStream broker, e.g. nats://127.0.0.1:4222 (see 'evotune broker', 'evotune worker')")
	f.DurationVar(&o.ackWait, "ack-wait", 30*time.Second, "with --broker: a task a worker holds this long without a sign of life goes to another worker")
	f.IntVar(&o.maxDeliver, "max-deliver", 5, "with --broker: deliveries of one task before it is reported as failed")
	f.IntVar(&o.taskGames, "task-games", 0, "with --broker: games in one task (0: sized to about a second of play from the games' measured length; 1: a task per game)")
	f.DurationVar(&o.timeout, "broker-timeout", 10*time.Minute, "with --broker: stop with an error after this long without a finished game (the reason is printed every 10 s before); resume continues")
	addAuthFlags(c, o)
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
	if o.taskGames < 0 || o.taskGames > 256 {
		return nil, fmt.Errorf("--task-games %d: want 0 (automatic) to 256", o.taskGames)
	}
	if o.timeout < 10*time.Second {
		return nil, fmt.Errorf("--broker-timeout %v: want at least 10s", o.timeout)
	}
	tok, err := o.token()
	if err != nil {
		return nil, err
	}
	c, err := cluster.NewClient(ctx, cluster.Options{URL: o.url, Token: tok, Creds: o.creds, TLSCA: o.tlsCA, AckWait: o.ackWait,
		MaxDeliver: o.maxDeliver, TaskGames: o.taskGames, Version: buildVersion(), Log: runview.NewTermWriter(log), StallTimeout: o.timeout})
	if err != nil {
		return nil, fmt.Errorf("--broker: %w", err)
	}
	fmt.Fprintf(log, "games go to the workers of %s (ack wait %v, %d deliveries at most)\n", o.url, o.ackWait, o.maxDeliver)
	return c, nil
}

// attach connects when --broker is given and hands the client to set (Tuner.SetRunner, or
// a match's setup); the returned function closes the connection (a no-op without --broker).
func (o clusterOpts) attach(ctx context.Context, log io.Writer, set func(arena.BatchRunner)) (func(), error) {
	c, err := o.client(ctx, log)
	if err != nil || c == nil {
		return func() {}, err
	}
	set(c)
	return c.Close, nil
}

func newBrokerCmd() *cobra.Command {
	var addr, store, tokenFile string
	var noAuth bool
	c := &cobra.Command{
		Use:   "broker [--addr 127.0.0.1:4222] [--store DIR] [--token-file FILE]",
		Short: "Run an embedded NATS server with JetStream for tuning on several machines",
		Long: "broker runs a NATS server with JetStream (file storage in --store) in this process until\n" +
			"interrupted. 'evotune worker --broker nats://HOST:PORT' on any machine plays the games that\n" +
			"'evotune tune --broker …' (or match, verify, resume) publishes. Any NATS server with JetStream\n" +
			"works as well. It binds to loopback unless --addr says otherwise.\n\n" +
			"Clients need its token: without --token-file it makes a random one, keeps it in STORE/token\n" +
			"(mode 0600, the same after a restart) and prints how clients get it: --token-file FILE or\n" +
			"$" + cluster.TokenEnv + ", never the command line. --no-auth runs it open (loopback only).",
		Args:    cobra.NoArgs,
		Example: "  evotune broker\n  evotune broker --addr 0.0.0.0:4222 --store /var/lib/evotune-broker",
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runBroker(cmd.Context(), addr, store, tokenFile, noAuth, cmd.ErrOrStderr())
		},
	}
	c.Flags().StringVar(&addr, "addr", "127.0.0.1:4222", "address to listen on (host:port)")
	c.Flags().StringVar(&store, "store", "evotune-broker", "JetStream storage directory (tasks and results survive a restart)")
	c.Flags().StringVar(&tokenFile, "token-file", "", "require the token this file holds (default: a random token kept in STORE/token)")
	c.Flags().BoolVar(&noAuth, "no-auth", false, "require no token (refused unless the address is loopback)")
	return c
}

func runBroker(ctx context.Context, addr, store, tokenFile string, noAuth bool, log io.Writer) error {
	return cluster.ServeBroker(ctx, cluster.BrokerConfig{Addr: addr, Store: store, TokenFile: tokenFile, NoAuth: noAuth}, log)
}

func newWorkerCmd() *cobra.Command {
	var o cluster.WorkerOptions
	var cl clusterOpts
	c := &cobra.Command{
		Use:   "worker --broker nats://HOST:4222 [--workers N] [--allow-engine 'cmd:PROG ARGS'] [--allow-option NAME] [--max-depth D --max-width W --max-task-time T]",
		Short: "Play the games a tune, match or verify publishes on a broker",
		Long: "worker pulls tasks (one or more games each) from the broker's work queue, plays their games\n" +
			"on --workers goroutines with this machine's built-in engines (each goroutine's players reset to\n" +
			"fresh for every game, so results are the same as on the tuning machine), publishes the records\n" +
			"keyed by game and acknowledges the task. Every 2 s it publishes a heartbeat ('evotune workers'\n" +
			"shows them). It\n" +
			"refuses tasks of another evotune build and tasks naming an external engine whose whole\n" +
			"command line (program and every argument, placeholders as written) is not one given with\n" +
			"--allow-engine, and tasks setting an engine's memory, threads or a file or folder (Hash, Threads,\n" +
			"EvalFile, Debug Log File…) unless --allow-option names it; a refused task is answered with\n" +
			"the reason and the worker keeps serving.\n" +
			"Tasks never name a file the worker reads or writes. Stop it with Ctrl-C; a killed worker's\n" +
			"tasks go to the others after the ack wait.",
		Args: cobra.NoArgs,
		Example: "  evotune worker --broker nats://127.0.0.1:4222 --token-file evotune-broker/token\n" +
			"  evotune worker --broker nats://tuner.lan:4222 --token-file ~/broker.token --workers 8 --allow-engine 'cmd:./pbrain-mine --params {weights}'",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cl.url == "" {
				return fmt.Errorf("--broker is required (e.g. nats://127.0.0.1:4222)")
			}
			if o.Workers < 1 {
				return fmt.Errorf("--workers %d: want at least 1", o.Workers)
			}
			if o.MaxDepth < 1 || o.MaxWidth < 1 || o.MaxTaskTime <= 0 {
				return fmt.Errorf("--max-depth %d, --max-width %d, --max-task-time %v: want positive limits", o.MaxDepth, o.MaxWidth, o.MaxTaskTime)
			}
			tok, err := cl.token()
			if err != nil {
				return err
			}
			for _, a := range o.Allow {
				if _, err := protocol.ParseAllowed(a); err != nil {
					return fmt.Errorf("--allow-engine %q: %w", a, err)
				}
			}
			o.Options = cluster.Options{URL: cl.url, Token: tok, Creds: cl.creds, TLSCA: cl.tlsCA, Version: buildVersion(), Log: runview.NewTermWriter(cmd.ErrOrStderr())} // task text is escaped
			o.Allowed = protocol.CommandAllowed
			return cluster.Work(cmd.Context(), o)
		},
	}
	c.Flags().StringVar(&cl.url, "broker", "", "the NATS JetStream broker, e.g. nats://127.0.0.1:4222")
	addAuthFlags(c, &cl)
	c.Flags().IntVar(&o.Workers, "workers", runtime.NumCPU(), "games played at once")
	c.Flags().StringArrayVar(&o.Allow, "allow-engine", nil, "an external engine command line tasks may run here, compared whole: 'cmd:PROG ARGS' as the tune names it, placeholders such as {weights} as written (repeat for each)")
	c.Flags().IntVar(&o.MaxDepth, "max-depth", cluster.DefaultMaxDepth, "refuse tasks whose search depth (built-in engine, or an outside engine's go depth) is above this")
	c.Flags().IntVar(&o.MaxWidth, "max-width", cluster.DefaultMaxWidth, "refuse tasks whose search width is above this")
	c.Flags().DurationVar(&o.MaxTaskTime, "max-task-time", cluster.DefaultMaxTaskTime, "stop a task that runs longer than this and refuse it with the reason (it is not handed to another worker)")
	c.Flags().StringArrayVar(&o.AllowOptions, "allow-option", nil, "an engine option a task may set although the worker guards it (Hash, Threads, MultiPV, Ponder, UCI_*, files and folders such as EvalFile or SyzygyPath, any value that is not a number or true/false), e.g. --allow-option Hash (repeat for each)")
	return c
}

func newWorkersCmd() *cobra.Command {
	var cl clusterOpts
	var asJSON bool
	var wait time.Duration
	c := &cobra.Command{
		Use:   "workers --broker nats://HOST:4222 [--json]",
		Short: "Show the workers connected to a broker and its work queue",
		Long: "workers asks every worker of the broker for its heartbeat and prints, for each that answers\n" +
			"within --wait: its host and process, build, games it plays at once, games played (and per\n" +
			"second over the last minute), tasks done and refused, CPU time and what it plays now; then\n" +
			"the work queue from the broker's consumer information: tasks queued, being played (delivered\n" +
			"and not yet acknowledged), redelivered, and workers' fetch requests waiting for a task.",
		Args: cobra.NoArgs,
		Example: "  evotune workers --broker nats://127.0.0.1:4222 --token-file evotune-broker/token\n" +
			"  evotune workers --broker nats://tuner.lan:4222 --json",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cl.url == "" {
				return fmt.Errorf("--broker is required (e.g. nats://127.0.0.1:4222)")
			}
			if wait <= 0 || wait > time.Minute {
				return fmt.Errorf("--wait %v: want more than 0 and at most 1m", wait)
			}
			tok, err := cl.token()
			if err != nil {
				return err
			}
			q, ws, err := cluster.Status(cmd.Context(), cluster.Options{URL: cl.url, Token: tok, Creds: cl.creds, TLSCA: cl.tlsCA, Version: buildVersion()}, wait)
			if err != nil {
				return fmt.Errorf("--broker: %w", err)
			}
			return printWorkers(cmd.OutOrStdout(), q, ws, asJSON)
		},
	}
	c.Flags().StringVar(&cl.url, "broker", "", "the NATS JetStream broker, e.g. nats://127.0.0.1:4222")
	addAuthFlags(c, &cl)
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON: {\"queue\": …, \"workers\": […]}")
	c.Flags().DurationVar(&wait, "wait", time.Second, "how long to wait for the workers' answers")
	return c
}

// printWorkers prints the workers' heartbeats as a table (or JSON) and the queue below.
func printWorkers(out io.Writer, q cluster.QueueStatus, ws []cluster.WorkerStatus, asJSON bool) error {
	if ws == nil {
		ws = []cluster.WorkerStatus{}
	}
	if asJSON {
		return writeJSON(out, struct {
			Queue   cluster.QueueStatus    `json:"queue"`
			Workers []cluster.WorkerStatus `json:"workers"`
		}{q, ws})
	}
	mine := buildVersion()
	tw := tabwriter.NewWriter(runview.NewTermWriter(out), 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "WORKER\tBUILD\tAT ONCE\tGAMES\tGAMES/S (1 MIN)\tTASKS\tREFUSED\tCPU\tUP\tBUSY WITH\tPLAYING")
	slots := 0
	for _, w := range ws {
		build := "this build"
		if w.Version != mine {
			build = "other: " + w.Version
		} else {
			slots += w.Slots
		}
		playing := strings.Join(w.Playing, " ")
		if playing == "" {
			playing = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.1f\t%d\t%d\t%s\t%s\t%s\t%s\n", runview.SafeCell(w.ID), runview.SafeCell(build), w.Slots, w.Played, w.Recent, w.Tasks, w.Refused,
			fmt.Sprintf("%.1fs", w.CPUSeconds), time.Duration(w.UpSeconds*float64(time.Second)).Round(time.Second), runview.SafeCell(cluster.BusyText(w.Busy)), runview.SafeCell(playing))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(out, "%d workers answered (%d games at once of this build); queue: %d tasks waiting, %d being played, %d redelivered, %d fetch requests waiting\n",
		len(ws), slots, q.Queued, q.InFlight, q.Redelivered, q.Waiting)
	return nil
}
