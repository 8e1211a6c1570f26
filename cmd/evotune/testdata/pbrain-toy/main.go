// Command pbrain-toy is a small Gomocup engine for evotune's tests of tuning an outside
// engine: a one-ply chooser whose play depends on four parameters, with defaults far from
// good. It reads its parameters from a flat JSON file (-params FILE, {"attack": 1, …}) and
// from Gomocup "INFO NAME VALUE" lines, and speaks START, RESTART, BEGIN, TURN, BOARD,
// INFO, ABOUT and END.
//
// With PBRAIN_TOY_SLEEP=D (a Go duration, "5ms") in its environment, it sleeps D before
// every move: an engine whose moves cost wall time and no CPU, so that many game slots
// behave like many cores on a small machine (the measurements of slot utilisation).
//
// With PBRAIN_TOY_CRASH_ABOVE=X in its environment, it exits (status 3) instead of moving
// whenever its attack parameter is above X: an engine that crashes at some values, for the
// tests of what a run stores of a crash.
//
// A candidate point p (empty, within two points of a stone) scores, over the four lines
// through it, attack·base^own + defence·base^opp − centre·distance(p, centre), where own
// (opp) is the length of the player's (opponent's) run that a stone at p would make (or
// block); a run of five wins at once. Ties go to the first point in row order, so the
// engine is deterministic.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
)

type params struct {
	Attack  float64 `json:"attack"`
	Defence float64 `json:"defence"`
	Centre  float64 `json:"centre"`
	Base    float64 `json:"base"`
}

func (p *params) set(name string, v float64) bool {
	switch name {
	case "attack":
		p.Attack = v
	case "defence":
		p.Defence = v
	case "centre":
		p.Centre = v
	case "base":
		p.Base = v
	default:
		return false
	}
	return true
}

// defaults are deliberately poor: it barely defends and is pulled to the centre.
var defaults = params{Attack: 1, Defence: 0.05, Centre: 3, Base: 1.5}

type game struct {
	n     int
	cells []int // 0 empty, 1 own, 2 opponent
}

func (g *game) at(x, y int) int {
	if x < 0 || y < 0 || x >= g.n || y >= g.n {
		return -1
	}
	return g.cells[y*g.n+x]
}

// run is the length of the run of colour c through (x, y) along (dx, dy) if c stood there.
func (g *game) run(x, y, dx, dy, c int) int {
	n := 1
	for s := 1; g.at(x+s*dx, y+s*dy) == c; s++ {
		n++
	}
	for s := 1; g.at(x-s*dx, y-s*dy) == c; s++ {
		n++
	}
	return n
}

func (g *game) best(p params) (int, int) {
	bx, by, bs := -1, -1, math.Inf(-1)
	stones := false
	for _, c := range g.cells {
		stones = stones || c != 0
	}
	mid := float64(g.n-1) / 2
	for y := 0; y < g.n; y++ {
		for x := 0; x < g.n; x++ {
			if g.at(x, y) != 0 {
				continue
			}
			if stones && !g.near(x, y) {
				continue
			}
			s := -p.Centre * math.Hypot(float64(x)-mid, float64(y)-mid)
			for _, d := range [4][2]int{{1, 0}, {0, 1}, {1, 1}, {1, -1}} {
				own, opp := g.run(x, y, d[0], d[1], 1), g.run(x, y, d[0], d[1], 2)
				if own >= 5 {
					s += 1e12
				}
				if opp >= 5 {
					s += 1e11
				}
				s += p.Attack*math.Pow(p.Base, float64(own)) + p.Defence*math.Pow(p.Base, float64(opp))
			}
			if s > bs {
				bx, by, bs = x, y, s
			}
		}
	}
	return bx, by
}

func (g *game) near(x, y int) bool {
	for dy := -2; dy <= 2; dy++ {
		for dx := -2; dx <= 2; dx++ {
			if v := g.at(x+dx, y+dy); v == 1 || v == 2 {
				return true
			}
		}
	}
	return false
}

func main() {
	file := flag.String("params", "", "JSON file of parameters (attack, defence, centre, base)")
	flag.Parse()
	p := defaults
	if *file != "" {
		data, err := os.ReadFile(*file)
		if err == nil {
			err = json.Unmarshal(data, &p)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "pbrain-toy:", err)
			os.Exit(2)
		}
	}
	in := bufio.NewScanner(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	say := func(format string, a ...any) { fmt.Fprintf(out, format+"\n", a...); out.Flush() }
	var g game
	crashAbove, crashes := strconv.ParseFloat(os.Getenv("PBRAIN_TOY_CRASH_ABOVE"), 64)
	think, _ := time.ParseDuration(os.Getenv("PBRAIN_TOY_SLEEP"))
	move := func() {
		time.Sleep(think)
		if crashes == nil && p.Attack > crashAbove {
			os.Exit(3)
		}
		x, y := g.best(p)
		if x < 0 {
			say("ERROR no move")
			return
		}
		g.cells[y*g.n+x] = 1
		say("%d,%d", x, y)
	}
	put := func(s string, c int) bool {
		a, b, ok := strings.Cut(s, ",")
		x, e1 := strconv.Atoi(strings.TrimSpace(a))
		y, e2 := strconv.Atoi(strings.TrimSpace(b))
		if !ok || e1 != nil || e2 != nil || g.at(x, y) != 0 {
			say("ERROR bad point %q", s)
			return false
		}
		g.cells[y*g.n+x] = c
		return true
	}
	for in.Scan() {
		cmd, arg, _ := strings.Cut(strings.TrimSpace(in.Text()), " ")
		switch strings.ToUpper(cmd) {
		case "START":
			n, err := strconv.Atoi(arg)
			if err != nil || n < 5 || n > 30 {
				say("ERROR bad size")
				continue
			}
			g = game{n: n, cells: make([]int, n*n)}
			say("OK")
		case "RESTART":
			g.cells = make([]int, g.n*g.n)
			say("OK")
		case "INFO":
			k, v, _ := strings.Cut(arg, " ")
			if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
				p.set(k, f)
			}
		case "BEGIN":
			move()
		case "TURN":
			if put(arg, 2) {
				move()
			}
		case "BOARD":
			g.cells = make([]int, g.n*g.n)
			for in.Scan() {
				l := strings.TrimSpace(in.Text())
				if strings.EqualFold(l, "DONE") {
					break
				}
				f := strings.Split(l, ",")
				if len(f) == 3 {
					c, _ := strconv.Atoi(f[2])
					put(f[0]+","+f[1], c)
				}
			}
			move()
		case "ABOUT":
			say(`name="pbrain-toy", version="1", author="evotune tests"`)
		case "END":
			return
		default:
			say("UNKNOWN %s", cmd)
		}
	}
}
