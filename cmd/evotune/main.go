// Command evotune tunes the evaluation weights of Connect6, Gomoku and Amazons engines by
// a genetic algorithm whose fitness comes from alpha-beta self-play, stores every run in
// SQLite, and exports the best weights as JSON the engines load. See README.md and docs/.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"evotune/engine/protocol"
	"evotune/tuner/arena"
	"evotune/tuner/runview"
)

// version is the program version recorded with every run and exported file.
var version = "0.1.0"

func main() {
	// The first SIGINT or SIGTERM cancels the context: a tune stops taking games, keeps
	// every saved generation, marks the run "stopped" and exits non-zero. A second one
	// exits at once.
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-sigs
		fmt.Fprintf(os.Stderr, "\nevotune: %v: stopping; what is finished is kept (signal again to exit at once)\n", s)
		cancel()
		<-sigs
		fmt.Fprintln(os.Stderr, "evotune: exiting at once")
		os.Exit(130)
	}()
	if code := execute(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr); code != 0 {
		os.Exit(code)
	}
}

// execute runs the command line args (without the program name) with the given standard
// streams and returns the exit status: 0, an exitError's code, 130 when ctx was cancelled
// (a signal), else 1; the error is written to errOut as "evotune: …", its terminal escapes
// made visible. main runs it once; the command tests run it in process.
func execute(ctx context.Context, args []string, in io.Reader, out, errOut io.Writer) int {
	invoked = args
	root := newRootCmd()
	root.SetArgs(args)
	root.SetIn(in)
	root.SetOut(out)
	root.SetErr(errOut)
	err := root.ExecuteContext(ctx)
	arena.CloseIdleWorkers() // the external engines kept between batches
	if stopProfile != nil {
		stopProfile()
		stopProfile = nil
	}
	if err == nil {
		return 0
	}
	code := 1
	var ee exitError
	switch {
	case errors.As(err, &ee):
		code = ee.code
	case ctx.Err() != nil:
		code = 130
	}
	fmt.Fprintln(errOut, "evotune:", runview.SafeText(err.Error()))
	return code
}

// invoked is the command line execute runs (without the program name).
var invoked []string

// commandLine is the command line being run as a shell would take it ("evotune verify 1
// --games 4 --verify-nodes 100 --db x.db"): a suggestion that repeats the user's command
// with a flag added repeats all of it.
func commandLine() string {
	words := []string{"evotune"}
	for _, a := range invoked {
		words = append(words, protocol.ShellQuote(a))
	}
	return strings.Join(words, " ")
}

// exitError carries a specific exit status.
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string { return e.err.Error() }
func (e exitError) Unwrap() error { return e.err }

// cpuProfile is the --cpuprofile file; stopProfile ends the profile (nil when none runs).
var (
	cpuProfile  string
	stopProfile func()
)

// startProfile starts a CPU profile (runtime/pprof) into path when path is set.
func startProfile(path string) error {
	if path == "" {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("--cpuprofile: %w", err)
	}
	stopProfile = func() {
		pprof.StopCPUProfile()
		f.Close()
	}
	return nil
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "evotune",
		Short:         "Tune board-game evaluation weights by a genetic algorithm with self-play fitness",
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
		// One validation step before any command opens a file or plays a move.
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if err := validateFlags(cmd); err != nil {
				return err
			}
			return startProfile(cpuProfile)
		},
	}
	root.SetFlagErrorFunc(flagError)
	root.PersistentFlags().StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the command to this file (go tool pprof FILE)")
	root.AddCommand(newWeightsCmd(), newPerftCmd(), newPlayCmd(), newBenchCmd(), newTuneCmd(), newCompareCmd(),
		newRunsCmd(), newGenerationsCmd(), newIndividualCmd(), newLineageCmd(), newExportCmd(), newMatchCmd(), newTournamentCmd(), newVerifyCmd(), newResumeCmd(), newEngineCmd(), newBrokerCmd(), newWorkerCmd(), newWorkersCmd(), newExportDataCmd(), newExportGamesCmd(), newServeCmd(), newPlotCmd(), newSensitivityCmd(), newDocsCmd())
	installCompletions(root)
	return root
}
