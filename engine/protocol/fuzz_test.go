package protocol

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"evotune/engine"
	"evotune/engine/amazons"
	"evotune/engine/chess"
	"evotune/engine/connect6"
	"evotune/engine/gomoku"
	"evotune/engine/protocol/botzone"
	"evotune/engine/protocol/gomocup"
	"evotune/engine/protocol/sau"
	"evotune/engine/protocol/uci"
	"evotune/engine/protocol/wire"
)

var (
	gomocupLine = regexp.MustCompile(`^(OK|\d+,\d+|ERROR .*|UNKNOWN .*|MESSAGE depth \d+ .* pv .*|name=".*)$`)
	sauAnswer   = regexp.MustCompile(`^(name .+|move [A-S]{2}([A-S]{2}|@@)?|error .*)$`)
	// Botzone's simple answer, its JSON one (input that starts with "{" is the JSON
	// interaction), or the keep-running marker.
	botzoneAnswer = regexp.MustCompile(`^(-?\d+ -?\d+ -?\d+ -?\d+ -?\d+ -?\d+|\{"response":\{("[xy][012]":-?\d+,?){6}\}\}|` + regexp.QuoteMeta(botzone.KeepRunning) + `)$`)
	uciLine       = regexp.MustCompile(`^(id (name|author) .+|option name .+|uciok|readyok|bestmove \S+( ponder \S+)?|info .*)$`)
)

func fuzzCfg(g engine.Game, board int) wire.Config {
	return wire.Config{Game: g, Weights: g.DefaultWeights(), Limits: engine.Limits{Depth: 1, Width: 4}, Board: board, Name: "evotune", Version: "fuzz"}
}

// FuzzServers feeds arbitrary input to the protocol servers (Gomocup, SAU, Botzone, UCI):
// they never panic and every line they write is a valid answer of their protocol.
func FuzzServers(f *testing.F) {
	for _, s := range []string{
		"START 15\nBEGIN\nTURN 8,8\nEND\n",
		"START 15\nBOARD\n7,7,1\n8,8,2\nDONE\nTAKEBACK 8,8\n",
		"RECTSTART 10,10\nINFO timeout_turn 100\nBEGIN\n",
		"name?\nnew black\nmove KKLL\nend\nquit\n",
		"new white\nmove JJ@@\nmove AA\n",
		"1\n-1 -1 -1 -1 -1 -1\n",
		"2\n2 0 2 5 5 5\n0 5 0 4 1 3\n7 5 6 5 6 4\n",
		"START 5\nBOARD\n0,0,1\n0,1,1\n0,2,1\n0,3,1\n1,0,2\n1,1,2\n1,2,2\n1,3,2\nDONE\n",
		"uci\nisready\nucinewgame\nposition startpos moves e2e4 e7e5\ngo depth 1\nquit\n",
		"uci\nsetoption name knight value 300\nposition fen 7k/8/8/8/8/8/8/K6Q w - - 0 1\ngo nodes 50\n",
		"position startpos moves e2e5\ngo\nsetoption name pst value -1\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if len(in) > 4096 {
			return
		}
		check := func(name string, out string, re *regexp.Regexp) {
			for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
				if l != "" && !re.MatchString(l) {
					t.Fatalf("%s answered %q to %q", name, l, in)
				}
			}
		}
		var out, errOut bytes.Buffer
		gomocup.Serve(context.Background(), fuzzCfg(gomoku.Game{}, 0), strings.NewReader(in), &out)
		check("gomocup", out.String(), gomocupLine)
		out.Reset()
		sau.Serve(context.Background(), fuzzCfg(connect6.Game{}, 0), strings.NewReader(in), &out)
		check("sau", out.String(), sauAnswer)
		out.Reset()
		botzone.Serve(context.Background(), fuzzCfg(amazons.Game{}, 8), strings.NewReader(in), &out, &errOut, true)
		check("botzone", out.String(), botzoneAnswer)
		out.Reset()
		uci.Serve(context.Background(), fuzzCfg(chess.Game{}, 0), strings.NewReader(in), &out)
		check("uci", out.String(), uciLine)
	})
}
