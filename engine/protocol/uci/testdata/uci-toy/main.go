// Command uci-toy is the project's own small deterministic UCI engine for tests: evotune's
// built-in chess player (material and piece-square tables, each value a spin option) served
// by uci.Serve, so that tests need no installed engine. go nodes and go depth are honoured;
// the same position and options always give the same move.
//
// -fault makes it misbehave the way real engines do, for the referee's tests:
//
//	no-uciok    never answers uci
//	illegal     answers a1a1 to every go
//	none        answers bestmove (none)
//	crash       exits at its third go
//	spam        writes 100 MB of info lines (230 000) before its first bestmove
//	chatter     writes unknown lines and blank lines around every answer
//	slow        sleeps 2 s before each bestmove
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"evotune/engine/chess"
	"evotune/engine/protocol/uci"
	"evotune/engine/protocol/wire"
	"evotune/genomes"
)

func main() {
	fault := flag.String("fault", "", "misbehave: no-uciok, illegal, none, crash, spam, chatter or slow")
	flag.Parse()
	g := chess.Game{}
	cfg := wire.Config{Game: g, Weights: g.DefaultWeights(), FallbackDepth: 2, Name: "uci-toy", Version: "1",
		OptionBounds: genomes.ChessLayout().SpinBounds()}
	if *fault == "" {
		if err := uci.Serve(context.Background(), cfg, os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	// The faults sit between the manager and a well-behaved server: its answers pass
	// through filter.
	pr, pw := io.Pipe()
	out := bufio.NewWriter(os.Stdout)
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pr)
		gos := 0
		for sc.Scan() {
			l := sc.Text()
			switch {
			case l == "uciok" && *fault == "no-uciok":
				continue
			case strings.HasPrefix(l, "bestmove"):
				gos++
				switch *fault {
				case "illegal":
					l = "bestmove a1a1"
				case "none":
					l = "bestmove (none)"
				case "crash":
					if gos == 3 {
						fmt.Fprintln(os.Stderr, "uci-toy: crashing on purpose")
						out.Flush()
						os.Exit(3)
					}
				case "spam":
					for i := 0; i < 230000 && gos == 1; i++ {
						fmt.Fprintf(out, "info depth 1 seldepth 1 nodes %d score cp 0 pv e2e4 %s\n", i, strings.Repeat("x", 400))
					}
				case "slow":
					out.Flush()
					time.Sleep(2 * time.Second)
				}
			}
			if *fault == "chatter" {
				fmt.Fprintln(out, "")
				fmt.Fprintln(out, "hello from the toy: this is not UCI")
			}
			fmt.Fprintln(out, l)
			out.Flush()
		}
	}()
	uci.Serve(context.Background(), cfg, os.Stdin, pw)
	pw.Close()
	<-done
}
