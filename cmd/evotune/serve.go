package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"evotune/cmd/evotune/dashboard"
)

func newServeCmd() *cobra.Command {
	var dbPath, addr string
	c := &cobra.Command{
		Use:   "serve [--db FILE] [--addr 127.0.0.1:8080]",
		Short: "Serve a live web dashboard of the database: runs, charts, genes, lineage and a game viewer",
		Long: "serve opens the database read-only (safe while tune writes it) and serves a dashboard:\n" +
			"the runs, a run's score (with its 95% band), held-out Elo over generations and wall time,\n" +
			"diversity and games/s, every gene against the paper's value, any individual's lineage as a\n" +
			"graph and any stored game replayed move by move. Pages follow the database every 3 s. It\n" +
			"works offline (nothing is loaded from elsewhere) and binds to loopback unless --addr says\n" +
			"otherwise (with a warning: anyone who reaches the address can read the database). Stop it\n" +
			"with Ctrl-C.",
		Args:    cobra.NoArgs,
		Example: "  evotune serve --db evotune.db            # then open http://127.0.0.1:8080/\n  evotune serve --addr 0.0.0.0:8080      # reachable from other machines",
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runServe(cmd.Context(), dbPath, addr, cmd.ErrOrStderr())
		},
	}
	c.Flags().StringVar(&dbPath, "db", "evotune.db", "SQLite database file")
	c.Flags().StringVar(&addr, "addr", "127.0.0.1:8080", "address to listen on (HOST:PORT; port 0 picks a free one)")
	return c
}

func runServe(ctx context.Context, dbPath, addr string, log interface{ Write([]byte) (int, error) }) error {
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
	srv := &http.Server{Handler: dashboard.Handler(d), ReadHeaderTimeout: 10 * time.Second}
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
