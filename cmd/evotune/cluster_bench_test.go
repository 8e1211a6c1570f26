package main

import (
	"fmt"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// benchGames is the number of games of one benchmark iteration: a match of 512 games at
// depth 3 (the tuning default, 16 batches of 32), long enough that the start of `match`
// (≈ 30 ms, and its connection to the broker) is a small part.
const benchGames = 512

// localNsPerGame holds the in-process pool's wall time per game by its number of
// workers, measured by the local sub-benchmarks of BenchmarkClusterGames before the
// cluster ones, which report their overhead against it.
var localNsPerGame = map[int]float64{}

// BenchmarkClusterGames measures throughput: gomoku games per
// second of `evotune match` on the in-process pool (1 and 2 workers) and through an
// embedded broker with 1, 2 and 4 local worker processes (one game at a time each), with
// tasks sized automatically (several games a task) and, for comparison, a task per game
// (--task-games 1, as the cluster once sent them). Each iteration uses a fresh --seed, so
// the broker never answers from stored results. The cluster sub-benchmarks report their
// overhead per game in µs and as a share of the local pool's time per game with the same
// number of games at once (2 for 4 processes: this machine has 2 cores), and games per
// CPU-second of the worker processes. Run it with
//
//	go test ./cmd/evotune -run '^$' -bench ClusterGames -benchtime 3x
func BenchmarkClusterGames(b *testing.B) {
	dir := b.TempDir()
	url := startTestBroker(b, dir)
	seed := 1000
	match := func(b *testing.B, extra ...string) {
		b.Helper()
		seed++
		args := append([]string{"match", "--game", "gomoku", "--a", "default", "--b", "default", "--depth", "3",
			"--games", strconv.Itoa(benchGames), "--seed", strconv.Itoa(seed)}, extra...)
		if _, stderr, code := runTimeout(b, dir, 5*time.Minute, args...); code != 0 {
			b.Fatalf("evotune %v: %s", args, stderr)
		}
	}
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("local-%d", w), func(b *testing.B) {
			start := time.Now()
			for i := 0; i < b.N; i++ {
				match(b, "--workers", strconv.Itoa(w))
			}
			ns := float64(time.Since(start).Nanoseconds()) / float64(b.N*benchGames)
			localNsPerGame[w] = ns
			b.ReportMetric(1e9/ns, "games/s")
		})
	}
	for _, procs := range []int{1, 2, 4} {
		for _, mode := range []struct{ name, taskGames string }{{"auto", "0"}, {"single", "1"}} {
			b.Run(fmt.Sprintf("workers-%d-%s", procs, mode.name), func(b *testing.B) {
				var ws []*exec.Cmd
				for i := 0; i < procs; i++ {
					w, out := start(b, dir, "worker", "--broker", url, "--workers", "1")
					waitFor(b, out, "worker")
					ws = append(ws, w)
				}
				b.ResetTimer()
				start := time.Now()
				for i := 0; i < b.N; i++ {
					match(b, "--broker", url, "--workers", strconv.Itoa(procs), "--task-games", mode.taskGames)
				}
				ns := float64(time.Since(start).Nanoseconds()) / float64(b.N*benchGames)
				b.StopTimer()
				cpu := 0.0 // the worker processes' CPU time (user + system), read once they end
				for _, w := range ws {
					w.Process.Kill()
					w.Wait()
					if w.ProcessState != nil {
						cpu += (w.ProcessState.UserTime() + w.ProcessState.SystemTime()).Seconds()
					}
				}
				b.ReportMetric(1e9/ns, "games/s")
				if cpu > 0 {
					b.ReportMetric(float64(b.N*benchGames)/cpu, "games/worker-cpu-s")
				}
				if local, ok := localNsPerGame[min(procs, 2)]; ok {
					b.ReportMetric((ns-local)/1e3, "µs-overhead/game")
					b.ReportMetric((ns-local)/local, "overhead-share")
				}
			})
		}
	}
}
