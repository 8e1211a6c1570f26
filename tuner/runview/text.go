package runview

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"evotune/db"
	"evotune/genomes"
	"evotune/tuner/config"
	"evotune/tuner/runstore"
	"evotune/tuner/spsa"
	"evotune/tuner/stats"
)

// The text views of a stored run, as the inspecting commands print them for a person:
// every string from the database passes through Safe or a TermWriter.

// RunsText writes the runs table (evotune runs): one row per run with its status,
// generations, champion, the champion's last score, the verified Elo and when it was
// created.
func RunsText(out io.Writer, runs []db.Run) error {
	tw := tabwriter.NewWriter(NewTermWriter(out), 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tGAME\tSTATUS\tGENERATIONS\tCHAMPION\tITS LAST SCORE\tVERIFIED ELO\tCREATED")
	for _, r := range runs {
		var score *float64
		if r.BestFitness != nil {
			s := 1 - *r.BestFitness
			score = &s
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", r.ID, SafeCell(r.Name), SafeCell(r.Game), SafeCell(r.Status), r.GenerationsDone, SafeCell(string(r.BestIndividual)), fmtFloat(score, "%.3f"), verifiedElo(r), shortTime(r.CreatedAt))
	}
	return tw.Flush()
}

// verifiedElo summarises a run's verification: "+35.2 ± 40.1 (H0, 1-g4-02, 60 games)", the
// verdict left out when no SPRT ran; "not measured" when it played no games.
func verifiedElo(r db.Run) string {
	if r.Verification == "" {
		return "-"
	}
	var v struct {
		Champion string  `json:"champion"`
		Games    int     `json:"games"`
		Elo      float64 `json:"elo"`
		CI       float64 `json:"elo_ci95"`
		Verdict  string  `json:"verdict"`
	}
	if json.Unmarshal([]byte(r.Verification), &v) != nil {
		return "?"
	}
	if v.Games == 0 {
		return "not measured"
	}
	verdict := ""
	if v.Verdict != "" {
		verdict = v.Verdict + ", "
	}
	return fmt.Sprintf("%s (%s%s, %d games)", stats.FormatEloCI(v.Elo, v.CI), verdict, v.Champion, v.Games)
}

func shortTime(s string) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return s
	}
	return t.Local().Format("2006-01-02 15:04")
}

func fmtFloat(p *float64, format string) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf(format, *p)
}

// GenerationsText writes run runID's generations table (evotune generations) from
// GenerationTable's rows, headed in the run's method's terms (cfg: the run's stored
// configuration): an SPSA run's steps, the best individual of a GA generation as the race
// winner or the best of peers, of a steady-state GA the best member, of CMA-ES the best
// candidate.
func GenerationsText(out io.Writer, id int64, cfg config.Config, views []GenerationRow) error {
	if cfg.Method == config.MethodSPSA {
		return spsaStepsText(id, views, out)
	}
	spec, ok := config.MethodOf(cfg.Method)
	if !ok {
		spec, _ = config.MethodOf(config.MethodGA) // a later version's method: the GA's columns
	}
	best := spec.BestColumn(cfg)
	tw := tabwriter.NewWriter(NewTermWriter(out), 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "GEN\t"+best+"\tSCORE ± SE\tGAMES\tMEAN\tDIVERSITY\tPLAYED\tELAPSED\tHALL OF FAME TEST\tCHAMPION\tVERIFIED ELO")
	for _, v := range views {
		g := v.GenerationRow
		score := "-"
		if v.BestScoreSE != nil {
			score = fmt.Sprintf("%.3f ± %.3f", v.BestScore, *v.BestScoreSE)
		}
		test := "-"
		if a := v.Admission; a != nil {
			verdict := "rejected"
			if a.Admitted {
				verdict = "admitted"
			}
			test = fmt.Sprintf("%s %+.3f ± %.3f over %s: %s", SafeCell(a.Candidate), a.Diff, a.DiffSE, SafeCell(a.Opponent), verdict)
		}
		verified := "-"
		if c := v.Checkpoint; c != nil && c.Games == 0 {
			verified = "not measured (the paper's weights)"
		} else if c != nil && c.Elo != nil {
			verified = fmt.Sprintf("%s (%d pairs)", stats.FormatEloCI(*c.Elo, *c.EloCI95), c.Pairs)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%.3f\t%.3f\t%d\t%s\t%s\t%s\t%s\n", g.Generation, SafeCell(g.Best), score, v.BestGames, 1-g.FitMean, g.Diversity, g.Games,
			(time.Duration(g.ElapsedMS) * time.Millisecond).Round(time.Second), test, SafeCell(OrDash(g.Champion)), verified)
	}
	return tw.Flush()
}

// spsaStepsText is GenerationsText for an SPSA run: per step, θ+'s score against θ− (the
// step's only games), and θ after the step, which plays no game.
func spsaStepsText(runID int64, views []GenerationRow, out io.Writer) error {
	tw := tabwriter.NewWriter(NewTermWriter(out), 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STEP\tθ+ AGAINST θ− (SCORE ± SE)\tGAMES\tθ AFTER THE STEP (CHAMPION)\tELAPSED\tVERIFIED ELO")
	for _, v := range views {
		g := v.GenerationRow
		score, games := "-", 0
		for _, in := range v.Individuals {
			if in.ID == spsa.PlusID(runID, g.Generation) && in.ScoreSE != nil {
				score, games = fmt.Sprintf("%.3f ± %.3f", in.Score, *in.ScoreSE), in.Games
			}
		}
		verified := "-"
		if c := v.Checkpoint; c != nil && c.Elo != nil {
			verified = fmt.Sprintf("%s (%d pairs)", stats.FormatEloCI(*c.Elo, *c.EloCI95), c.Pairs)
		}
		fmt.Fprintf(tw, "%d\t%s\t%d\t%s\t%s\t%s\n", g.Generation, score, games, SafeCell(OrDash(g.Champion)),
			(time.Duration(g.ElapsedMS) * time.Millisecond).Round(time.Second), verified)
	}
	return tw.Flush()
}

// OrDash is s, or "-" for an empty s (a table cell with nothing to show).
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// IndividualText writes individual id (evotune individual): its birth and parents, its
// genes beside the layout's defaults (the paper's weights, or an outside engine's
// defaults when outside), its record in every generation it lived in and its hall-of-fame
// record.
func IndividualText(out io.Writer, id string, v runstore.Individual, layout *genomes.Layout, outside bool) error {
	out = NewTermWriter(out)
	parents := strings.Trim(SafeCell(v.Genome.Parent1)+" "+SafeCell(v.Genome.Parent2), " ")
	if parents == "" {
		parents = "-"
	}
	fmt.Fprintf(out, "individual %s (run %d): born in generation %d by %s, parents %s\n", Safe(id), v.Run, v.Genome.Born, SafeCell(v.Genome.Operator), parents)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	def := "PAPER"
	if outside {
		def = "DEFAULT"
	}
	fmt.Fprintf(tw, "GENE\tVALUE\t%s\n", def)
	for _, g := range layout.Genes {
		fmt.Fprintf(tw, "%s\t%.6g\t%.6g\n", SafeCell(g.Name), v.Genes[g.Name], g.Default)
	}
	tw.Flush()
	tw = tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "GEN\tRANK\tROUND\tSCORE ± SE\tELO ± 95%\tGAMES\tW\tD\tL\tPENTANOMIAL 0/½/1/1½/2")
	for _, h := range v.History {
		score, elo := fmt.Sprintf("%.3f", h.Score), "-"
		if h.ScoreSE != nil {
			score += fmt.Sprintf(" ± %.3f", *h.ScoreSE)
		}
		if h.Elo != nil && h.EloCI95 != nil {
			elo = stats.FormatEloCI(*h.Elo, *h.EloCI95)
		}
		fmt.Fprintf(tw, "%d\t%d\t%d\t%s\t%s\t%d\t%d\t%d\t%d\t%v\n", h.Generation, h.Rank, h.Round, score, elo, h.Games, h.Wins, h.Draws, h.Losses, h.Penta)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(out, "(each generation's row holds only that generation's games against its references; rows of different generations are not added up)")
	if h := v.Famer; h != nil {
		fmt.Fprintf(out, "hall of fame: admitted in generation %d; since then %d games against the paper's weights", h.Admitted, h.Games)
		if h.Elo != nil && h.EloSE != nil {
			fmt.Fprintf(out, ", Elo %s ± %.1f (1 SE), lower bound %s", stats.EloText(*h.Elo), *h.EloSE, stats.EloText(*h.EloLCB))
		}
		fmt.Fprintln(out)
	}
	return nil
}

// LineageDot writes the ancestors anc (db.Ancestors) as a Graphviz digraph, child → parent.
func LineageDot(out io.Writer, anc []db.GenomeRow) error {
	fmt.Fprintf(out, "digraph lineage {\n  rankdir=BT;\n  node [shape=box];\n")
	for _, g := range anc {
		dotq := strings.NewReplacer(`"`, `\"`).Replace
		fmt.Fprintf(out, "  \"%s\" [label=\"%s\\ngen %d, %s\"];\n", dotq(Safe(g.ID)), dotq(Safe(g.ID)), g.Born, dotq(Safe(g.Operator)))
		for _, p := range []string{g.Parent1, g.Parent2} {
			if p != "" {
				fmt.Fprintf(out, "  \"%s\" -> \"%s\";\n", dotq(Safe(g.ID)), dotq(Safe(p)))
			}
		}
	}
	fmt.Fprintln(out, "}")
	return nil
}

// LineageText writes the ancestry tree of individual id from its ancestors anc
// (db.Ancestors), indented by generation of descent; an ancestor reached twice is printed
// once.
func LineageText(out io.Writer, id string, anc []db.GenomeRow) error {
	byID := map[string]db.GenomeRow{}
	for _, g := range anc {
		byID[g.ID] = g
	}
	out = NewTermWriter(out)
	printed := map[string]bool{}
	var walk func(id, indent string)
	walk = func(id, indent string) {
		g := byID[id]
		if printed[id] {
			fmt.Fprintf(out, "%s%s (see above)\n", indent, SafeCell(id))
			return
		}
		printed[id] = true
		fmt.Fprintf(out, "%s%s  gen %d  %s\n", indent, SafeCell(id), g.Born, SafeCell(g.Operator))
		for _, p := range []string{g.Parent1, g.Parent2} {
			if p != "" {
				walk(p, indent+"  ")
			}
		}
	}
	walk(id, "")
	return nil
}
