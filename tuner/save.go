package tuner

import (
	"context"

	"evotune/tuner/record"
)

// pendingSave is a step being written to the store while the next one plays.
type pendingSave struct {
	gen  int
	done chan struct{} // closed when err is set
	err  error
}

// saveBehind writes step rec in the background (the next step's games need nothing from
// the store) once the previous step's write has ended, and reports ev ("step K saved")
// when it is committed: a step's transaction (its games, θ± and θ_{k+1}, one fsync) costs
// about 3 ms, a few percent of a Gomoku step of 32 games. The write does not stop with ctx:
// a finished step is saved even when the run is stopped. An error of the previous write is
// returned here (or by waitSave).
func (t *Tuner) saveBehind(rec record.GenerationRecord, ev record.Event) error {
	if err := t.waitSave(); err != nil {
		return err
	}
	p := &pendingSave{gen: rec.Generation, done: make(chan struct{})}
	t.saving.pending = p
	ctx := context.WithoutCancel(t.ctx)
	go func() {
		defer close(p.done)
		if p.err = t.store.SaveGeneration(ctx, rec); p.err == nil {
			t.emit(ev)
		}
	}()
	return nil
}

// waitSave waits for the step being written; after an error the summary counts only the
// steps saved before it.
func (t *Tuner) waitSave() error {
	p := t.saving.pending
	if p == nil {
		return nil
	}
	<-p.done
	t.saving.pending = nil
	if p.err != nil {
		t.rep.summary.Generations = p.gen
		return p.err
	}
	return nil
}

// countGeneration counts saved generation rec in the summary (report.Summary.CountRecords) and notes
// where its champion stands (the path Movement is measured on).
func (t *Tuner) countGeneration(rec record.GenerationRecord) {
	t.rep.summary.CountRecords(rec)
	if len(t.rep.path) == 0 {
		t.rep.pathFrom = rec.Generation
	}
	t.rep.path = append(t.rep.path, append([]float64(nil), t.rep.summary.BestGenes...))
}
