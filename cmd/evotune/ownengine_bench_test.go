package main

import (
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// outsideGames is the number of games of one BenchmarkOutsideEngine iteration.
const outsideGames = 200

// BenchmarkOutsideEngine measures throughput: games per second of `evotune
// match --workers 2` (gomoku, 200 games, a fresh seed each iteration) with
//   - in-process: evotune's engine at depth 2 on both sides;
//   - gomocup-reused / gomocup-restarted: one side the same engine through its Gomocup
//     protocol ('cmd:evotune engine --game gomoku --depth 2'), its process kept between
//     games (RESTART) or started anew every game (--engine-log DIR, which keeps a
//     transcript per game and so a process per game);
//   - toy-reused / toy-restarted: both sides the test engine testdata/pbrain-toy (a
//     one-ply Gomocup engine reading its parameters from a file), kept or restarted.
//
// The gomocup sub-benchmarks report their cost per game over in-process
// (µs-overhead/game). Run it with
//
//	go test ./cmd/evotune -run '^$' -bench OutsideEngine -benchtime 2x
func BenchmarkOutsideEngine(b *testing.B) {
	dir := b.TempDir()
	toy := toyEngine(b, dir)
	writeFile(b, dir, "toy.json", `{"attack": 1, "defence": 0.05, "centre": 3, "base": 1.5}`)
	own := "cmd:" + bin + " engine --game gomoku --depth 2"
	toyCmd := "cmd:" + toy + " -params " + filepath.Join(dir, "toy.json")
	seed := 500
	var inNs float64
	for _, c := range []struct {
		name  string
		args  []string
		perGm bool // a process per game
	}{
		{"in-process", []string{"--a", "default", "--b", "default"}, false},
		{"gomocup-reused", []string{"--a", own, "--b", "default"}, false},
		{"gomocup-restarted", []string{"--a", own, "--b", "default"}, true},
		{"toy-reused", []string{"--a", toyCmd, "--b", toyCmd}, false},
		{"toy-restarted", []string{"--a", toyCmd, "--b", toyCmd}, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			start := time.Now()
			for i := 0; i < b.N; i++ {
				seed++
				args := append([]string{"match", "--game", "gomoku", "--depth", "2", "--workers", "2", "--games", strconv.Itoa(outsideGames),
					"--seed", strconv.Itoa(seed)}, c.args...)
				if c.perGm {
					args = append(args, "--engine-log", filepath.Join(dir, "logs"+strconv.Itoa(seed)))
				}
				if _, stderr, code := runTimeout(b, dir, 5*time.Minute, args...); code != 0 {
					b.Fatalf("evotune %v: %s", args, stderr)
				}
			}
			ns := float64(time.Since(start).Nanoseconds()) / float64(b.N*outsideGames)
			b.ReportMetric(1e9/ns, "games/s")
			switch {
			case c.name == "in-process":
				inNs = ns
			case inNs > 0 && c.name[:7] == "gomocup":
				b.ReportMetric((ns-inNs)/1e3, "µs-overhead/game")
			}
		})
	}
}
