package uci

import (
	"math"
	"strings"
	"testing"
)

// FuzzParseOption: any line is refused, or is an option with a name, and neither its name
// nor its default holds a line break or carriage return (setoption sends them back).
func FuzzParseOption(f *testing.F) {
	for _, s := range []string{
		"option name Hash type spin default 16 min 1 max 33554432",
		"option name Skill Level type spin default 20 min 0 max 20",
		"option name Style type combo default Normal var Solid var Normal var Risky",
		"option name Clear Hash type button", "option name UCI_Chess960 type check default false",
		"option name x type spin default 5 min 9 max 1", "option name  type spin", "option name a\tb type string default c",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		o, ok := ParseOption(line)
		if !ok {
			return
		}
		if o.Name == "" || strings.ContainsAny(o.Name, "\r\n") || strings.ContainsAny(o.Default, "\r\n") {
			t.Fatalf("%q: accepted %+v", line, o)
		}
	})
}

// FuzzParseInfo: any info line gives statistics that are never negative (nodes, depth) and
// a score that is a number.
func FuzzParseInfo(f *testing.F) {
	for _, s := range []string{
		"info depth 12 seldepth 18 multipv 1 score cp 35 nodes 120000 nps 600000 time 200 pv e2e4 e7e5",
		"info depth 5 score mate -3 pv a1a2", "info score cp 10 lowerbound", "info nodes -5 depth -1", "info string hello",
		"info depth 99999999999999999999 score cp 99999999999999999999",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		st, _, ok := parseInfo(line)
		if !ok {
			return
		}
		if st.Nodes < 0 || st.Depth < 0 || st.Elapsed < 0 {
			t.Fatalf("%q: %+v", line, st)
		}
		if f := float64(st.Score); math.IsNaN(f) {
			t.Fatalf("%q: score %v", line, st.Score)
		}
	})
}
