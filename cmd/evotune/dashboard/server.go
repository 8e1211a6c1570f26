package dashboard

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"strconv"
	"sync/atomic"

	"evotune/db"
	"evotune/tuner/cluster"
	"evotune/tuner/runview"
)

// static holds the page, its script and style, and uPlot 1.6.32 (npm package "uplot",
// dist/uPlot.iife.min.js and uPlot.min.css, MIT, see static/uPlot.LICENSE): a 52 KB
// canvas chart library with log axes and bands, fast enough to redraw every generation
// of a night's run live, with no dependencies; and dagre 3.1.3 (npm "@dagrejs/dagre",
// dist/dagre.esm.js, MIT, see static/dagre.LICENSE), the layered graph layout that places
// the lineage graph's boxes and routes its edges (49 KB, graphlib included). Nothing is
// loaded from elsewhere.
//
//go:embed static
var static embed.FS

// MaxConcurrentAPI bounds the API requests Handler answers at once.
const MaxConcurrentAPI = 8

// apiBusy counts the API requests being answered, over every Handler; apiPeak is the most
// seen at once.
var apiBusy, apiPeak atomic.Int64

// Handler serves the dashboard over d (opened read-only by the caller):
//
//	GET /                                   the page (runs, run, genes, lineage and game views)
//	GET /api/runs                           []runview.RunItem
//	GET /api/runs/{id}                      runview.RunView
//	GET /api/runs/{id}/genes                runview.GenesView
//	GET /api/runs/{id}/lineage/{individual} runview.LineageView
//	GET /api/runs/{id}/individuals/{ind}    runview.IndividualView
//	GET /api/runs/{id}/analysis              runview.AnalysisView
//	GET /api/runs/{id}/games?generation=N   []runview.GameItem (N omitted: the first 500 of the run)
//	GET /api/runs/{id}/games/{game}         runview.GameView
//	GET /api/workers                        WorkersView (Options.Workers; enabled false without)
//	GET /api/matches                        []runview.MatchItem (tournaments' pairings too)
//	GET /api/matches/{id}                   runview.MatchView
//	GET /api/matches/{id}/games/{pair}/{game} runview.GameView (its match set)
//	GET /api/tournaments                    []runview.TournamentItem
//	GET /api/tournaments/{id}               runview.TournamentItem
//
// Errors are JSON {"error": "..."} with status 400 (a malformed ID), 404 (not in the
// database) or 500. Every response forbids scripts from anywhere but this server
// (Content-Security-Policy), a second guard behind the page's drawing of data as text.
func Handler(d *db.DB, o Options) http.Handler {
	mux := http.NewServeMux()
	sub, _ := fs.Sub(static, "static")
	files := http.FileServer(http.FS(sub))
	mux.Handle("GET /static/", http.StripPrefix("/static/", files))
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		data, _ := static.ReadFile("static/index.html")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(data)
	})
	// At most MaxConcurrentAPI views are built at once; the other requests wait their turn
	// (a goroutine each) or go when their client does. Each view holds its rows and a
	// database connection (a thread in SQLite's C code): 6 000 requests at once grew the
	// server by 280 MB and 100 threads, kept for good.
	sem := make(chan struct{}, MaxConcurrentAPI)
	api := func(pattern string, f func(ctx context.Context, r *http.Request) (any, error)) {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
			case <-r.Context().Done():
				return // the client left
			}
			if n := apiBusy.Add(1); n > apiPeak.Load() {
				apiPeak.Store(n) // racy between two peaks, exact below the bound: a measure
			}
			defer apiBusy.Add(-1)
			v, err := f(r.Context(), r)
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Cache-Control", "no-store")
			if err != nil {
				status := http.StatusInternalServerError
				var bad badRequest
				switch {
				case errors.As(err, &bad):
					status = http.StatusBadRequest
				case errors.Is(err, runview.ErrNotFound):
					status = http.StatusNotFound
				}
				w.WriteHeader(status)
				json.NewEncoder(w).Encode(map[string]string{"error": err.Error()})
				return
			}
			json.NewEncoder(w).Encode(v)
		})
	}
	api("GET /api/runs", func(ctx context.Context, r *http.Request) (any, error) { return runview.Runs(ctx, d) })
	api("GET /api/workers", func(ctx context.Context, r *http.Request) (any, error) {
		if o.Workers == nil {
			return WorkersView{}, nil
		}
		return o.Workers(ctx), nil
	})
	api("GET /api/runs/{id}", func(ctx context.Context, r *http.Request) (any, error) {
		id, err := pathInt(r, "id")
		if err != nil {
			return nil, err
		}
		w, err := window(r)
		if err != nil {
			return nil, err
		}
		return runview.RunWindow(ctx, d, id, w)
	})
	api("GET /api/runs/{id}/genes", func(ctx context.Context, r *http.Request) (any, error) {
		id, err := pathInt(r, "id")
		if err != nil {
			return nil, err
		}
		w, err := window(r)
		if err != nil {
			return nil, err
		}
		return runview.GenesWindow(ctx, d, id, w)
	})
	api("GET /api/runs/{id}/lineage/{individual}", func(ctx context.Context, r *http.Request) (any, error) {
		id, err := pathInt(r, "id")
		if err != nil {
			return nil, err
		}
		return runview.Lineage(ctx, d, id, r.PathValue("individual"))
	})
	api("GET /api/runs/{id}/analysis", func(ctx context.Context, r *http.Request) (any, error) {
		id, err := pathInt(r, "id")
		if err != nil {
			return nil, err
		}
		return runview.Analysis(ctx, d, id)
	})
	api("GET /api/runs/{id}/individuals/{individual}", func(ctx context.Context, r *http.Request) (any, error) {
		id, err := pathInt(r, "id")
		if err != nil {
			return nil, err
		}
		return runview.Individual(ctx, d, id, r.PathValue("individual"))
	})
	api("GET /api/runs/{id}/games", func(ctx context.Context, r *http.Request) (any, error) {
		id, err := pathInt(r, "id")
		if err != nil {
			return nil, err
		}
		gen, limit := -1, 500
		if s := r.URL.Query().Get("generation"); s != "" {
			g, err := strconv.Atoi(s)
			if err != nil || g < 0 {
				return nil, badRequest{"generation " + strconv.Quote(s) + ": want a generation number"}
			}
			gen, limit = g, 0
		}
		return runview.Games(ctx, d, id, gen, limit)
	})
	api("GET /api/runs/{id}/games/{game}", func(ctx context.Context, r *http.Request) (any, error) {
		id, err := pathInt(r, "id")
		if err != nil {
			return nil, err
		}
		g, err := pathInt(r, "game")
		if err != nil {
			return nil, err
		}
		return runview.Game(ctx, d, id, g)
	})
	api("GET /api/matches", func(ctx context.Context, r *http.Request) (any, error) { return runview.Matches(ctx, d) })
	api("GET /api/matches/{id}", func(ctx context.Context, r *http.Request) (any, error) {
		id, err := pathInt(r, "id")
		if err != nil {
			return nil, err
		}
		return runview.Match(ctx, d, id)
	})
	api("GET /api/matches/{id}/games/{pair}/{game}", func(ctx context.Context, r *http.Request) (any, error) {
		id, err := pathInt(r, "id")
		if err != nil {
			return nil, err
		}
		pair, err := pathInt(r, "pair")
		if err != nil {
			return nil, err
		}
		game, err := pathInt(r, "game")
		if err != nil {
			return nil, err
		}
		return runview.MatchGame(ctx, d, id, int(pair), int(game))
	})
	api("GET /api/tournaments", func(ctx context.Context, r *http.Request) (any, error) { return runview.Tournaments(ctx, d) })
	api("GET /api/tournaments/{id}", func(ctx context.Context, r *http.Request) (any, error) {
		id, err := pathInt(r, "id")
		if err != nil {
			return nil, err
		}
		return runview.Tournament(ctx, d, id)
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		mux.ServeHTTP(w, r)
	})
}

// Options are the dashboard's optional parts.
type Options struct {
	// Workers, if set, answers GET /api/workers: the broker's workers and queue (serve
	// --broker); the runs page shows them.
	Workers func(ctx context.Context) WorkersView
}

// WorkersView is the cluster seen from the dashboard: Enabled is false when serve was
// given no broker; Error says why the broker did not answer (the page shows it).
type WorkersView struct {
	Enabled bool                   `json:"enabled"`
	Broker  string                 `json:"broker,omitempty"`
	Error   string                 `json:"error,omitempty"`
	Queue   cluster.QueueStatus    `json:"queue"`
	Workers []cluster.WorkerStatus `json:"workers"`
}

// badRequest is a malformed request (status 400).
type badRequest struct{ msg string }

func (b badRequest) Error() string { return b.msg }

func pathInt(r *http.Request, name string) (int64, error) {
	s := r.PathValue(name)
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, badRequest{name + " " + strconv.Quote(s) + ": want a number"}
	}
	return n, nil
}

// window reads a request's ?from=G&to=G (generation numbers; either may be left out): the
// generations a zoomed chart asks for.
func window(r *http.Request) (db.Window, error) {
	w := db.Window{From: 0, To: -1}
	for _, p := range []struct {
		name string
		dst  *int
	}{{"from", &w.From}, {"to", &w.To}} {
		if s := r.URL.Query().Get(p.name); s != "" {
			g, err := strconv.Atoi(s)
			if err != nil || g < 0 {
				return w, badRequest{p.name + " " + strconv.Quote(s) + ": want a generation number"}
			}
			*p.dst = g
		}
	}
	if w.To >= 0 && w.To < w.From {
		return w, badRequest{fmt.Sprintf("from %d, to %d: an empty window", w.From, w.To)}
	}
	return w, nil
}
