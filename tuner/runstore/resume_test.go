package runstore

import (
	"context"
	"strings"
	"testing"

	"evotune/engine/protocol"
)

// TestPrepareResume: the resume policy on a real stored run — a finished run, a run a live
// process holds, outside engines this machine has not allowed, bad worker counts and a
// verification file that is not the run's are refused with the way out; an allowed
// resume gets the run's configuration with the workers applied and capped, and its state.
func TestPrepareResume(t *testing.T) {
	ctx := context.Background()
	d, _, _, sum := smallRun(t, []int{1}, 0)
	id := sum.RunID
	alive := func(pid int) bool { return pid == 4242 }
	name := func(int) string { return "evotune" }
	opts := ResumeOptions{Alive: alive, Name: name, Self: 1}
	if _, err := PrepareResume(ctx, d, id, opts); err == nil || !strings.Contains(err.Error(), "already finished") {
		t.Errorf("finished run: %v", err)
	}
	set := func(q string) {
		t.Helper()
		if _, err := d.SQL().ExecContext(ctx, q, id); err != nil {
			t.Fatal(err)
		}
	}
	set("UPDATE runs SET status = 'running', pid = 4242 WHERE id = ?")
	if _, err := PrepareResume(ctx, d, id, opts); err == nil || !strings.Contains(err.Error(), "process 4242 (evotune), which is alive") || !strings.Contains(err.Error(), "--force") {
		t.Errorf("run held by a live process: %v", err)
	}
	forced := opts
	forced.Force = true
	r, err := PrepareResume(ctx, d, id, forced)
	if err != nil {
		t.Fatalf("--force: %v", err)
	}
	if r.State.LastGeneration != 1 || len(r.State.Population) != 4 || r.Config.Workers != 2 || len(r.Warnings) != 0 {
		t.Errorf("forced resume: last generation %d, %d individuals, %d workers, warnings %q", r.State.LastGeneration, len(r.State.Population), r.Config.Workers, r.Warnings)
	}
	if h := r.Header("r.db"); !strings.Contains(h, "resuming run 1 (gomoku) after generation 1 of 1, 2 workers") {
		t.Errorf("header %q", h)
	}

	set("UPDATE runs SET status = 'stopped', pid = NULL WHERE id = ?")
	many := opts
	many.Workers, many.MaxWorkers, many.MaxWorkersNote = 50, 8, "4× its 2 CPUs"
	if r, err := PrepareResume(ctx, d, id, many); err != nil || r.Config.Workers != 8 || len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "this machine plays 8 at once (4× its 2 CPUs)") {
		t.Errorf("50 workers on an 8-worker machine: %d workers, warnings %q, %v", r.Config.Workers, r.Warnings, err)
	}
	bad := opts
	bad.Workers = -2
	if _, err := PrepareResume(ctx, d, id, bad); err == nil || !strings.Contains(err.Error(), "--workers -2") {
		t.Errorf("negative workers: %v", err)
	}
	bad = opts
	bad.VerifyOpenings = "other.txt"
	if _, err := PrepareResume(ctx, d, id, bad); err == nil || !strings.Contains(err.Error(), "only that file may be named again") {
		t.Errorf("another verification file: %v", err)
	}

	set(`UPDATE runs SET config = json_set(config, '$.opponents', json_array('cmd:/bin/true --x')) WHERE id = ?`)
	if _, err := PrepareResume(ctx, d, id, opts); err == nil || !strings.Contains(err.Error(), "none was started:\n  cmd:/bin/true --x\n") || !strings.Contains(err.Error(), "evotune resume 1 --db "+protocol.ShellQuote(d.Path())+" --allow-engine 'cmd:/bin/true --x'") {
		t.Errorf("an engine not allowed: %v", err)
	}
	allowed := opts
	allowed.Allow = []string{"cmd:/bin/true --x"}
	if r, err := PrepareResume(ctx, d, id, allowed); err != nil || len(r.Config.Opponents) != 1 {
		t.Errorf("the engine allowed: %+v, %v", r.Config.Opponents, err)
	}
}
