package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"evotune/cmd/evotune/dashboard"
	"evotune/tuner/cluster"
)

func newServeCmd() *cobra.Command {
	var dbPath, addr string
	var cl clusterOpts
	var allowHosts []string
	c := &cobra.Command{
		Use:   "serve [--db FILE] [--addr 127.0.0.1:8080]",
		Short: "Serve a live web dashboard of the database: runs, charts, genes, lineage and a game viewer",
		Long: "serve opens the database read-only (safe while tune writes it) and serves a dashboard:\n" +
			"the runs, a run's score (with its 95% band), held-out Elo over generations and wall time,\n" +
			"diversity and games/s, every gene against the paper's value, any individual's lineage as a\n" +
			"graph and any stored game replayed move by move. Pages follow the database every 3 s. It\n" +
			"works offline (nothing is loaded from elsewhere) and binds to loopback unless --addr says\n" +
			"otherwise (with a warning: anyone who reaches the address can read the database). It\n" +
			"answers only requests whose Host is an IP address, localhost, this machine's name or a\n" +
			"name given with --allow-host (a web page on a name of its own that rebinds that name to\n" +
			"127.0.0.1 gets 421 Misdirected Request, not the database). With --broker, the runs page\n" +
			"also lists the broker's workers and work queue (as 'evotune workers'). Stop it with Ctrl-C.",
		Args:    cobra.NoArgs,
		Example: "  evotune serve --db evotune.db            # then open http://127.0.0.1:8080/\n  evotune serve --addr 0.0.0.0:8080 --allow-host tuner.lan   # reachable from other machines",
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runServe(cmd.Context(), dbPath, addr, allowHosts, cl, cmd.ErrOrStderr())
		},
	}
	c.Flags().StringArrayVar(&allowHosts, "allow-host", nil, "a host name the dashboard answers to besides IP addresses, localhost and this machine's name (repeatable)")
	c.Flags().StringVar(&dbPath, "db", "evotune.db", "SQLite database file")
	c.Flags().StringVar(&addr, "addr", "127.0.0.1:8080", "address to listen on (HOST:PORT; port 0 picks a free one)")
	c.Flags().StringVar(&cl.url, "broker", "", "also show the workers and work queue of this NATS broker, e.g. nats://127.0.0.1:4222")
	addAuthFlags(c, &cl)
	return c
}

func runServe(ctx context.Context, dbPath, addr string, allowHosts []string, cl clusterOpts, log interface{ Write([]byte) (int, error) }) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %q: want HOST:PORT, e.g. 127.0.0.1:8080", addr)
	}
	d, err := openRO(ctx, dbPath)
	if err != nil {
		return err
	}
	defer d.Close()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--addr %s: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		fmt.Fprintf(log, "warning: the dashboard listens on %s, not loopback: anyone who reaches it can read the database\n", addr)
	}
	names := append([]string{"localhost"}, allowHosts...)
	if me, err := os.Hostname(); err == nil {
		names = append(names, me)
	}
	var opts dashboard.Options
	if cl.url != "" {
		tok, err := cl.token()
		if err != nil {
			return err
		}
		w, err := cluster.Watch(ctx, cluster.Options{URL: cl.url, Token: tok, Creds: cl.creds, TLSCA: cl.tlsCA, Version: buildVersion()})
		if err != nil {
			return fmt.Errorf("--broker: %w", err)
		}
		defer w.Close()
		opts.Workers = func(ctx context.Context) dashboard.WorkersView {
			v := dashboard.WorkersView{Enabled: true, Broker: cl.url, Workers: []cluster.WorkerStatus{}}
			q, ws, err := w.Status(ctx)
			if err != nil {
				v.Error = err.Error()
				return v
			}
			v.Queue = q
			if ws != nil {
				v.Workers = ws
			}
			return v
		}
	}
	srv := &http.Server{Handler: hostCheck(dashboard.Handler(d, opts), names), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute,
		ConnState: dashboard.ReleaseAfterBursts()}
	fmt.Fprintf(log, "dashboard of %s on http://%s/ (read-only); stop with Ctrl-C\n", dbPath, l.Addr())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(l) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(shut)
		if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}

// hostCheck answers only requests whose Host header is an IP address or one of names (case
// does not matter, the port is not compared); others get 421 Misdirected Request. A page
// served from a name of its own that the attacker's DNS then points at 127.0.0.1 (DNS
// rebinding) sends that name as Host, so it cannot read the dashboard through a browser
// on this machine; an IP address cannot be rebound. Vite and webpack's development
// servers do the same.
func hostCheck(h http.Handler, names []string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if hh, _, err := net.SplitHostPort(host); err == nil {
			host = hh
		}
		host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
		ok := net.ParseIP(host) != nil
		for _, n := range names {
			ok = ok || strings.EqualFold(host, n)
		}
		if !ok {
			http.Error(w, "misdirected request: this dashboard does not answer to the host "+strconv.Quote(r.Host)+" (see serve --allow-host)", http.StatusMisdirectedRequest)
			return
		}
		h.ServeHTTP(w, r)
	})
}
