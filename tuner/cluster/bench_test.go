package cluster

import (
	"context"
	"evotune/tuner/arena"
	"fmt"
	"testing"
	"time"
)

// BenchmarkBatchOverhead measures what a batch costs through the broker over playing it in
// process: 32 depth-2 Gomoku games (an SPSA step's size) through an embedded broker and an
// in-process worker of one game slot, against arena.PlayBatch with one worker. Each
// iteration's batch is new (its games carry the iteration in their names), so nothing is
// read back. Reports µs of overhead per batch and per game. Run it with
//
//	go test ./tuner/cluster -run '^$' -bench BatchOverhead -benchtime 50x
func BenchmarkBatchOverhead(b *testing.B) {
	setup, tasks := gomokuBatch(b, 32)
	ctx := context.Background()
	s, _ := newTestServer(b)
	o := Options{URL: s, Version: "bench"}
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	go Work(wctx, WorkerOptions{Options: o, Workers: 1})
	time.Sleep(200 * time.Millisecond)
	c, err := NewClient(ctx, o)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	rename := func(i int) []arena.GameTask {
		out := append([]arena.GameTask(nil), tasks...)
		for k := range out {
			out[k].Name = fmt.Sprintf("it%d-%d", i, k)
		}
		return out
	}
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if _, err := arena.PlayBatch(ctx, setup, rename(i), 1, nil); err != nil {
			b.Fatal(err)
		}
	}
	local := time.Since(start)
	b.ResetTimer()
	start = time.Now()
	for i := 0; i < b.N; i++ {
		if _, err := c.PlayBatch(ctx, setup, rename(b.N+i), nil); err != nil {
			b.Fatal(err)
		}
	}
	remote := time.Since(start)
	per := (remote - local).Seconds() / float64(b.N)
	b.ReportMetric(per*1e6, "µs-overhead/batch")
	b.ReportMetric(per*1e6/float64(len(tasks)), "µs-overhead/game")
	b.ReportMetric((remote-local).Seconds()/local.Seconds(), "overhead-share")
}
