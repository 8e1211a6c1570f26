// evotune dashboard: a single page over `evotune serve`'s JSON API. Everything that comes
// from the database is put into the page as text (textContent, setAttribute), never as
// markup: a database may come from someone else.
'use strict';

const app = document.getElementById('app');
const live = document.getElementById('live');
// window.evotune exposes the drawn charts and the viewer's state to tests and curious users.
window.evotune = { charts: {}, route: '', step: 0, fetched: [] };

// el builds an HTML element: attrs (text = textContent, onX = listener, else attribute),
// then children (strings become text nodes).
function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null) continue;
    if (k === 'text') e.textContent = String(v);
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, String(v));
  }
  for (const c of kids) if (c !== null && c !== undefined) e.append(c);
  return e;
}

// svg builds an SVG element the same way.
function svg(tag, attrs, ...kids) {
  const e = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null) continue;
    if (k === 'text') e.textContent = String(v);
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, String(v));
  }
  for (const c of kids) if (c) e.append(c);
  return e;
}

function link(href, text) { return el('a', { href: href, text: text }); }
function runHref(id) { return '#/run/' + Number(id); }
function lineageHref(run, ind) { return '#/run/' + Number(run) + '/lineage/' + encodeURIComponent(ind); }
function individualHref(run, ind) { return '#/run/' + Number(run) + '/individual/' + encodeURIComponent(ind); }

// base names what a run's candidates were measured against: the paper's weights, or an
// outside engine's layout defaults (long: in sentences; short: in axis labels).
function base(run) { return run.outside ? { long: 'the layout\'s defaults', short: 'default' } : { long: 'the paper\'s weights', short: 'paper' }; }

// when writes a stored UTC timestamp in this browser's time zone, to the second, with how
// long ago it was ("2026-11-24 05:27:40 (3 min ago)").
function when(ts) {
  const t = new Date(ts);
  if (isNaN(t)) return ts || '—';
  const p = n => String(n).padStart(2, '0');
  const local = t.getFullYear() + '-' + p(t.getMonth() + 1) + '-' + p(t.getDate()) + ' ' + p(t.getHours()) + ':' + p(t.getMinutes()) + ':' + p(t.getSeconds());
  const s = Math.max(0, (Date.now() - t) / 1000);
  const ago = s < 90 ? Math.round(s) + ' s ago' : s < 5400 ? Math.round(s / 60) + ' min ago' : s < 172800 ? Math.round(s / 3600) + ' h ago' : Math.round(s / 86400) + ' days ago';
  return local + ' (' + ago + ')';
}

// fmt prints x with d decimals; a value that rounds to zero has no sign ("-0.0" read as a
// negative bound).
function fmt(x, d) {
  if (x === null || x === undefined) return '—';
  const t = Number(x).toFixed(d);
  return /^-0(\.0*)?$/.test(t) ? t.slice(1) : t;
}

// compactLabels labels an axis of large or small real numbers briefly ("10M", "2.5k",
// "0.05"): a slice's axis of pattern scores was clipped ("10,000,00").
const compactNumber = new Intl.NumberFormat('en', { notation: 'compact', maximumSignificantDigits: 3 });
function compactLabels(u, vals) { return vals.map(v => v == null ? null : compactNumber.format(v)); }
function fmtElo(e) {
  if (!e) return '—';
  if (e.games === 0) return 'not measured (the champion is the baseline itself)';
  if (e.elo === null) return 'unbounded (all wins or all losses), ' + e.games + ' games';
  const s = (e.elo >= 0 ? '+' : '') + e.elo.toFixed(1);
  const ci = e.elo_ci95 === null ? '' : ' ± ' + e.elo_ci95.toFixed(1);
  return s + ci + ' (' + e.games + ' games, ' + e.distinct_pairs + ' distinct pairs)';
}

async function getJSON(url) {
  window.evotune.fetched.push(url);
  if (window.evotune.fetched.length > 50) window.evotune.fetched.shift();
  const r = await fetch(url, { cache: 'no-store' });
  const body = await r.json().catch(() => ({ error: 'bad response from the server' }));
  if (!r.ok) throw new Error(body.error || r.statusText);
  return body;
}

// A poll of a run's page or genes asks only for the generations after the last one it has
// (?from=) and appends them: saved generations never change. The whole view is fetched
// again when the hash changes, when the server sampled the new stretch, and once the
// appended generations would make the page long (a long run's page is a sample: the
// server resamples it).
const runCache = {};
let polling = false;

async function getRunJSON(path, merge) {
  const c = runCache[path];
  if (polling && c && c.generations.length && c.generations.length < 2500) {
    const last = c.generations[c.generations.length - 1];
    const d = await getJSON(path + (path.includes('?') ? '&' : '?') + 'from=' + ((last.generation ?? last) + 1));
    if (!d.sampled) {
      merge(c, d);
      d.total_generations += c.total_generations;
      d.sampled = c.sampled;
      runCache[path] = d;
      return d;
    }
  }
  const v = await getJSON(path);
  runCache[path] = v;
  return v;
}

function destroyCharts() {
  for (const c of Object.values(window.evotune.charts)) c.destroy();
  window.evotune.charts = {};
}

// chart draws one uPlot chart into parent under name; data[0] is x. The container's
// data-points says how many x values carry a value of the first y series.
// logSplits places a log axis's ticks at 1, 2 and 5 × 10^k (adding 1.5, 3 and 7 when
// fewer than four fit), so a narrow range is labelled, not only its powers of ten.
function logSplits(u, axis, min, max) {
  const pick = ms => {
    const out = [];
    for (let k = Math.floor(Math.log10(min)) - 1; k <= Math.ceil(Math.log10(max)); k++)
      for (const m of ms) { const v = m * Math.pow(10, k); if (v >= min * 0.999 && v <= max * 1.001) out.push(v); }
    return out;
  };
  const s = pick([1, 2, 5]);
  return s.length >= 4 ? s : pick([1, 1.5, 2, 3, 5, 7]);
}

// distinctLabels labels an axis's ticks with the fewest decimals that tell them apart
// (a narrow range read "0.054, 0.054, 0.053" at uPlot's default precision).
function distinctLabels(u, vals) {
  for (let d = 0; d <= 8; d++) {
    const t = vals.map(v => v == null ? null : v.toFixed(d));
    if (new Set(t).size === t.length) return t;
  }
  return vals.map(v => v == null ? null : String(v));
}

// integerIncrs are the tick steps of an axis of whole numbers (generations, steps): a
// two-generation run is labelled 0, 1, not 0, 0.2 … 1.
const integerIncrs = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6];

// chart draws a uPlot chart; opts.xlabel names the x axis (default: generation, whole
// numbers; opts.xreal for an axis of real numbers such as wall time).
function chart(parent, name, title, data, series, opts) {
  const box = el('div', { class: 'chart', 'data-chart': name }, el('h3', { text: title }));
  parent.append(box);
  const xlabel = opts && opts.xlabel || 'generation';
  const xaxis = Object.assign({ label: xlabel }, opts && opts.xreal ? {} : { incrs: integerIncrs }, opts && opts.xvalues ? { values: opts.xvalues } : {});
  const o = Object.assign({
    width: 460, height: 240,
    legend: { live: false }, // the labels only: values under the cursor read "--" elsewhere
    scales: { x: { time: false } },
    series: [{ label: xlabel }].concat(series),
    axes: [xaxis,
      Object.assign({ label: opts && opts.ylabel || '' }, opts && opts.ylog ? { splits: logSplits, space: 12, values: (u, vals) => vals.map(v => v == null ? null : String(Number(v.toPrecision(2)))) }
        : { values: distinctLabels })],
  }, opts && opts.uplot || {});
  const u = new uPlot(o, data, box);
  // A band's edges are drawn as its fill; their legend entries would only repeat the band.
  const rows = u.root.querySelectorAll('.u-legend .u-series');
  const off = o.series.length - rows.length; // 1 when the x series has no row (live: false)
  o.series.forEach((sr, i) => { if (sr.edge && rows[i - off]) rows[i - off].style.display = 'none'; });
  window.evotune.charts[name] = u;
  const pts = data[1] ? data[1].filter(v => v !== null && v !== undefined).length : 0;
  box.setAttribute('data-points', pts);
  return u;
}

// ---- views ----

// workersSection lists the broker's workers and queue (serve --broker), or nothing.
function workersSection(v) {
  if (!v || !v.enabled) return [];
  const out = [el('h2', { text: 'Workers of ' + v.broker })];
  if (v.error) return out.concat([el('p', { class: 'error', text: 'The broker does not answer: ' + v.error })]);
  const tbody = el('tbody');
  for (const w of v.workers) {
    tbody.append(el('tr', { 'data-worker': w.id },
      el('td', { text: w.id }), el('td', { text: w.version }),
      el('td', { class: 'num', text: w.slots }), el('td', { class: 'num', text: w.played }),
      el('td', { class: 'num', text: fmt(w.games_per_s, 1) }), el('td', { class: 'num', text: w.tasks }),
      el('td', { class: 'num', text: w.refused }), el('td', { class: 'num', text: fmt(w.cpu_s, 1) }),
      el('td', { text: (w.busy || []).map(b => b.run + ' for ' + Math.round(b.for_s) + ' s').join(', ') || '—' }),
      el('td', { text: (w.playing || []).join(', ') || '—' })));
  }
  const head = el('tr', {}, ...['Worker', 'Build', 'At once', 'Games', 'Games/s (1 min)', 'Tasks', 'Refused',
    'CPU s', 'Busy with', 'Playing'].map(h => el('th', { text: h })));
  const q = v.queue;
  out.push(v.workers.length ? el('table', { id: 'workers' }, el('thead', {}, head), tbody)
    : el('p', { text: 'No worker is connected: start one with evotune worker --broker ' + v.broker + '.' }));
  out.push(el('p', { id: 'queue', text: 'Queue: ' + q.queued + ' tasks waiting, ' + q.in_flight + ' being played, ' +
    q.redelivered + ' redelivered, ' + q.waiting_requests + ' workers\' requests waiting.' }));
  return out;
}

async function viewRuns() {
  const [runs, workers, matches, tournaments] = await Promise.all([getJSON('/api/runs'), getJSON('/api/workers'), getJSON('/api/matches'), getJSON('/api/tournaments')]);
  return () => {
    const tbody = el('tbody');
    for (const r of runs) {
      tbody.append(el('tr', { 'data-run': r.id },
        el('td', { class: 'num', text: r.id }),
        el('td', { class: 'name' }, link(runHref(r.id), r.name)),
        el('td', { text: r.game }),
        el('td', { text: terms(r).title }),
        el('td', { text: r.status }),
        el('td', { class: 'num', text: r.generations_done }),
        el('td', { class: 'progress', text: progressText(r) }),
        el('td', { class: 'num', text: fmt(r.best_score, 3), title: 'the champion\'s score in its last ' + terms(r).generation + ', or that ' + terms(r).generation + '\'s best when the champion played no game (a centre)' }),
        el('td', { text: r.champion || '—' }),
        el('td', { text: fmtElo(r.verified) }),
        el('td', { text: when(r.updated_at), title: r.updated_at }),
        el('td', { class: 'error', text: r.error || '' })));
    }
    const head = el('tr', {}, ...['ID', 'Name', 'Game', 'Method', 'Status', 'Generations', 'Progress', 'Best score', 'Champion',
      'Verified Elo ± 95% CI', 'Updated', 'Error'].map(h => el('th', { text: h })));
    return [el('h1', { text: 'Runs' }),
      runs.length ? el('table', { id: 'runs' }, el('thead', {}, head), tbody)
        : el('p', { text: 'No runs yet: start one with evotune tune.' }), ...workersSection(workers), ...matchesSection(matches, tournaments)];
  };
}

function matchHref(id) { return '#/match/' + Number(id); }
function tournamentHref(id) { return '#/tournament/' + Number(id); }

// scoreText is a match's record from A's side: W/D/L, score and Elo ± 95% (live while it runs).
function scoreText(m) {
  if (!m.games) return 'no game yet';
  const p = m.played;
  const e = m.estimate ? fmtSigned(m.estimate.elo) + ' ± ' + m.estimate.elo_ci95.toFixed(1) : (m.score === 1 ? 'all wins' : m.score === 0 ? 'all losses' : 'unbounded');
  return 'W ' + p.wins + ' D ' + p.draws + ' L ' + p.losses + ' · ' + (m.score * 100).toFixed(1) + '% · Elo ' + e;
}

// matchesSection lists the stored tournaments and the matches outside them (evotune match
// and tournament store every game as it ends): each links to its page.
function matchesSection(matches, tournaments) {
  const out = [];
  if ((tournaments || []).length) {
    out.push(el('h2', { text: 'Tournaments' }), el('table', { id: 'tournaments' },
      el('thead', {}, el('tr', {}, ...['ID', 'Game', 'Entrants', 'Kind', 'Status', 'Pairings', 'Leader', 'Updated'].map(h => el('th', { text: h })))),
      el('tbody', {}, ...tournaments.map(t => el('tr', { 'data-tournament': t.id },
        el('td', { class: 'num' }, link(tournamentHref(t.id), String(t.id))), el('td', { text: t.game }),
        el('td', { text: t.entrants.map(e => e.name).join(', ') }), el('td', { text: (t.gauntlet ? 'gauntlet' : 'round-robin') + ', ' + plural(t.rounds, 'round') }),
        el('td', { text: t.status }), el('td', { class: 'num', text: t.pairings.length + ' / ' + t.pairings_planned }),
        el('td', { text: t.standings.length && t.standings[0].score !== null ? t.standings[0].name : '—' }),
        el('td', { text: when(t.updated_at), title: t.updated_at }))))));
  }
  const own = (matches || []).filter(m => m.tournament === null);
  if (own.length) {
    out.push(el('h2', { text: 'Matches' }), el('table', { id: 'matches' },
      el('thead', {}, el('tr', {}, ...['ID', 'Game', 'A', 'B', 'Status', 'Games', 'A\'s record', 'Updated'].map(h => el('th', { text: h })))),
      el('tbody', {}, ...own.map(m => el('tr', { 'data-match': m.id },
        el('td', { class: 'num' }, link(matchHref(m.id), String(m.id))), el('td', { text: m.game }), el('td', { text: m.a_name }), el('td', { text: m.b_name }),
        el('td', { text: m.status }), el('td', { class: 'num', text: m.games + ' / ' + m.games_requested }), el('td', { text: scoreText(m) }),
        el('td', { text: when(m.updated_at), title: m.updated_at }))))));
  }
  return out;
}

function matchHeader(m) {
  return [el('h1', { class: 'match-name', text: 'Match ' + m.id + ': ' + m.a_name + ' vs ' + m.b_name }),
    el('p', {}, el('span', { text: m.game + ' · ' + m.status + ' · ' + m.games + ' of ' + m.games_requested + ' games' })),
    el('nav', { class: 'links' }, link('#/', 'Runs, matches and tournaments'), m.tournament !== null ? link(tournamentHref(m.tournament), 'Its tournament') : null)];
}

// viewMatch is a stored match: its live score and its games, each replayed in the viewer.
async function viewMatch(id) {
  const v = await getJSON('/api/matches/' + Number(id));
  return () => {
    const m = v.match;
    const out = matchHeader(m);
    out.push(el('p', { id: 'score', text: 'A (' + m.a_name + '): ' + scoreText(m) + (m.played.penta ? ' · pentanomial [' + m.played.penta.join(' ') + ']' : '') }));
    const rows = v.games.map(g => el('tr', { 'data-pair': g.pair, 'data-game': g.game },
      el('td', {}, link(matchHref(m.id) + '/game/' + g.pair + '/' + g.game, 'replay ' + g.pair + '.' + g.game)),
      el('td', { text: g.a_side }), el('td', { class: 'num', text: g.a_score }), el('td', { text: g.result }), el('td', { class: 'num', text: g.plies }),
      el('td', { class: 'error', text: g.forfeit || '' })));
    out.push(el('table', { id: 'match-games' }, el('tr', {}, ...['Game', 'A\'s side', 'A\'s score', 'Result', 'Plies', 'Forfeit'].map(h => el('th', { text: h }))), ...rows));
    return out;
  };
}

// viewTournament is a stored tournament: the standings (score and Elo against the field),
// the crosstable (points the row scored against the column) and its pairings.
async function viewTournament(id) {
  const t = await getJSON('/api/tournaments/' + Number(id));
  return () => {
    const out = [el('h1', { text: 'Tournament ' + t.id }),
      el('p', { text: t.game + ' · ' + (t.gauntlet ? 'gauntlet' : 'round-robin') + ' · ' + plural(t.rounds, 'round') + ' · ' + t.status + ' · ' + t.pairings.length + ' of ' + t.pairings_planned + ' pairings' }),
      el('nav', { class: 'links' }, link('#/', 'Runs, matches and tournaments'))];
    out.push(el('h2', { text: 'Standings' }), el('table', { id: 'standings' },
      el('tr', {}, ...['Rank', 'Name', 'Elo ± 95%', 'Games', 'Score', 'Draws'].map(h => el('th', { text: h }))),
      ...t.standings.map(s => el('tr', {}, el('td', { class: 'num', text: s.rank }), el('td', { text: s.name }),
        el('td', { class: 'num', text: s.estimate ? fmtSigned(s.estimate.elo) + ' ± ' + s.estimate.elo_ci95.toFixed(1) : '—' }),
        el('td', { class: 'num', text: s.result.wins + s.result.draws + s.result.losses }),
        el('td', { class: 'num', text: s.score === null ? '—' : (s.score * 100).toFixed(1) + '%' }), el('td', { class: 'num', text: s.result.draws })))));
    const names = t.entrants.map(e => e.name);
    out.push(el('h2', { text: 'Crosstable' }), el('table', { id: 'crosstable' },
      el('tr', {}, el('th'), ...names.map(n => el('th', { text: n }))),
      ...t.crosstable.map((row, i) => el('tr', {}, el('th', { text: names[i] }),
        ...row.map((x, j) => el('td', { class: 'num', text: i === j ? '' : x === null ? '—' : String(x) }))))));
    out.push(el('h2', { text: 'Pairings' }), el('table', { id: 'pairings' },
      el('tr', {}, ...['Match', 'A', 'B', 'Status', 'Games', 'A\'s record'].map(h => el('th', { text: h }))),
      ...t.pairings.map(m => el('tr', { 'data-match': m.id }, el('td', {}, link(matchHref(m.id), String(m.id))), el('td', { text: m.a_name }),
        el('td', { text: m.b_name }), el('td', { text: m.status }), el('td', { class: 'num', text: m.games + ' / ' + m.games_requested }),
        el('td', { text: scoreText(m) })))));
    return out;
  };
}

// progressText is how far a run has come: its games against its budget, or its
// generations against those asked for, and for a running run the time left.
function progressText(r) {
  let t = r.budget_games > 0 ? r.games + '/' + r.budget_games + ' games' : r.generations > 0 ? r.generations_done + '/' + (r.generations + 1) + ' ' + terms(r).generation + 's' : r.games + ' games';
  if (r.eta_s !== null && r.eta_s !== undefined) t += ', ETA ' + (r.eta_s < 120 ? Math.round(r.eta_s) + ' s' : r.eta_s < 7200 ? Math.round(r.eta_s / 60) + ' min' : (r.eta_s / 3600).toFixed(1) + ' h');
  return t;
}

// terms are a run's method's own words (the API's method_terms; a method this page does not
// know is named as the API gives it).
function terms(r) {
  return r.method_terms || { name: r.method, title: r.method, generation: 'generation', champion: 'the champion', range: 'the range of its genomes' };
}

// colourText is a stored colour ('black': the first mover, 'white': the second) in the
// run's game's own words (chess: white moves first).
function colourText(run, c) {
  const names = (run && run.colour_names) || ['black', 'white'];
  return c === 'black' ? names[0] : c === 'white' ? names[1] : c;
}

function plural(n, word) { return n + ' ' + word + (n === 1 ? '' : 's'); }

// proofSection is the run's proof: the headline verification's ladder, one row per rung
// (the tuning condition, then each condition asked for: a deeper search, nodes, a clock, a
// time per move, other engines), with whether the champion's gain holds there. Nothing for a
// verification of one rung (the line above says it all).
function proofSection(ver) {
  if (!ver || !(ver.ladder || []).length) return [];
  const rungs = [ver].concat(ver.ladder);
  const rows = rungs.map(r => el('tr', { class: 'rung ' + (r.holds || '').replace(/ /g, '-') },
    el('td', { class: 'num', text: r.rung || 0 }), el('td', { text: r.condition || 'the tuning condition' }),
    el('td', { class: 'num', text: r.games + (r.baseline_match ? ' + ' + r.baseline_match.games : '') }),
    el('td', { class: 'num', text: rungElo(r), title: r.warning || '' }),
    el('td', { text: r.baseline_match ? 'champion ' + (r.champion_elo === null ? rungElo(r.champion_match) : fmtSigned(r.champion_elo)) + ', baseline ' +
      (r.baseline_elo === null ? rungElo(r.baseline_match) : fmtSigned(r.baseline_elo)) + ' against it' : sprtText(r.verdict) }),
    el('td', { text: r.holds || '' })));
  return [el('h2', { text: 'Proof' }),
    el('table', { id: 'proof' }, el('thead', {}, el('tr', {}, ...['Rung', 'Condition', 'Games', 'Elo gain ± 95% CI', '', 'Holds'].map(h => el('th', { text: h })))),
      el('tbody', {}, ...rows))];
}

// rungElo is a rung's Elo gain ± 95%: '—' when not measured, and an infinite Elo or
// interval (null in the API, ±1e9 in databases written before) said in words.
function rungElo(r) {
  if (!r.games || r.unbounded) return '—';
  if (r.elo === null || Math.abs(r.elo) >= 1e8) return r.score >= 0.5 ? 'all wins' : 'all losses';
  if (r.elo_ci95 === null || r.elo_ci95 >= 1e6) return fmtSigned(r.elo) + ' (unbounded)';
  return fmtSigned(r.elo) + ' ± ' + r.elo_ci95.toFixed(1);
}

// fmtSigned writes an Elo with its sign; ±1e9 is how the API holds an infinite Elo (all
// wins, all losses).
function fmtSigned(x) {
  if (x === null || x === undefined) return '—';
  if (Math.abs(x) >= 1e8) return x > 0 ? 'all wins' : 'all losses';
  return (x >= 0 ? '+' : '−') + Math.abs(x).toFixed(1);
}

// sprtText says what a match's SPRT decided ('' when none ran).
function sprtText(v) {
  return { H1: 'SPRT: H1 accepted', H0: 'SPRT: H0 accepted', continue: 'SPRT: no decision' }[v] || '';
}

function runHeader(r, extra) {
  const m = terms(r);
  return [el('h1', { class: 'run-name', text: r.name }),
    el('p', {}, el('span', { text: r.game + ' · ' + m.title + ' · ' + r.status + ' · ' + plural(r.generations_done, m.generation) + ' · run ' + r.id })),
    el('nav', { class: 'links' }, link(runHref(r.id), 'Charts'), link(runHref(r.id) + '/genes', 'Genes'),
      link(runHref(r.id) + '/analysis', 'Analysis'),
      r.best_individual ? link(lineageHref(r.id, r.best_individual), 'Lineage of the champion') : null, ...(extra || []))];
}

async function viewRun(id) {
  const v = await getRunJSON('/api/runs/' + id, (c, d) => {
    d.generations = c.generations.concat(d.generations);
    d.run.champion = d.run.champion ?? c.run.champion;
  });
  return () => {
    const g = v.generations;
    const x = g.map(p => p.generation);
    const z = 1.96;
    const m = terms(v.run);
    const probes = !!m.probes; // a generation is one pair of probes (SPSA's θ+ and θ−)
    const out = runHeader(v.run, []);
    out.push(el('p', { text: 'Verified: ' + fmtElo(v.run.verified) }));
    out.push(...proofSection(v.verification));
    if ((v.verifications || []).length > 1) {
      // Every verification is kept; the run's headline is one of them.
      const rows = v.verifications.map(x => el('tr', { class: x.headline ? 'headline' : '' },
        el('td', { class: 'num', text: x.id }), el('td', { text: x.source }), el('td', { text: when(x.created_at), title: x.created_at }),
        el('td', { text: (x.result || {}).champion || '—' }), el('td', { text: fmtElo(x.result) }),
        el('td', { text: sprtText((x.result || {}).verdict).replace('SPRT: ', '') }),
        el('td', { class: 'rungs', text: ((x.result || {}).ladder || []).map(r => (r.condition || 'rung ' + r.rung) + ' ' + rungElo(r) + (r.holds ? ' ' + r.holds : '')).join('; ') || '—' }),
        el('td', { text: x.headline ? 'headline' : '' })));
      out.push(el('table', { id: 'verifications' }, el('thead', {}, el('tr', {}, ...['Verification', 'By', 'When', 'Champion', 'Elo ± 95% CI',
        'SPRT', 'Other rungs', ''].map(h => el('th', { text: h })))), el('tbody', {}, ...rows)));
    }
    if (v.sampled) {
      out.push(el('p', { class: 'muted', id: 'sampled', text: 'Charts show ' + v.generations.length + ' of ' + v.total_generations + ' ' + m.generation +
        's: of each stretch the best, the worst and the last, and every checkpoint (the API gives a stretch at full resolution: ?from=G&to=G).' }));
    }
    if (!g.length) { // empty chart frames would say nothing: say why there is nothing
      out.push(el('p', { class: 'muted', id: 'no-generations', text: v.run.status === 'running'
        ? 'No ' + m.generation + ' saved yet: the first appears here when its games are played.'
        : 'No ' + m.generation + ' was saved: the run ' + v.run.status + ' before its first ' + m.generation + ' finished' + (v.run.error ? ' (' + v.run.error + ')' : '') + '.' }));
      return out;
    }
    const charts = el('div', { class: 'charts' });
    out.push(charts);
    const after = [];
    after.push(() => {
      if (probes) {
        // An SPSA step plays θ+ against θ−: its result moves θ; θ itself plays no games.
        const s = g.map(p => p.plus_score);
        const lo = g.map(p => p.plus_se === null || p.plus_score === null ? null : p.plus_score - z * p.plus_se);
        const hi = g.map(p => p.plus_se === null || p.plus_score === null ? null : p.plus_score + z * p.plus_se);
        chart(charts, 'score', 'SPSA: θ+ against θ− per step (score ± 95%; ½ = no gradient seen)', [x, s, lo, hi, x.map(() => 0.5)],
          [{ label: 'θ+ score', stroke: '#c33', width: 1, points: { show: true, size: 3 } }, { label: '−95%', stroke: 'rgba(204,51,51,0.2)', edge: true },
            { label: '+95%', stroke: 'rgba(204,51,51,0.2)', edge: true }, { label: '½', stroke: '#888', dash: [4, 4] }],
          { xlabel: 'step', ylabel: 'score', uplot: { bands: [{ series: [3, 2], fill: 'rgba(204,51,51,0.10)' }] } });
      } else {
      const best = g.map(p => p.best_score), mean = g.map(p => p.mean_score);
      const lo = g.map(p => p.best_se === null ? null : p.best_score - z * p.best_se);
      const hi = g.map(p => p.best_se === null ? null : p.best_score + z * p.best_se);
      const mlo = g.map(p => p.mean_score - p.score_std), mhi = g.map(p => p.mean_score + p.score_std);
      chart(charts, 'score', 'Score against the ' + m.generation + '\'s references (best ± 95%, mean ± sd)',
        [x, best, lo, hi, mean, mlo, mhi],
        [{ label: 'best', stroke: '#c33', width: 2 }, { label: 'best −95%', stroke: 'rgba(204,51,51,0.3)', edge: true },
          { label: 'best +95%', stroke: 'rgba(204,51,51,0.3)', edge: true }, { label: 'mean', stroke: '#36c', width: 2 },
          { label: 'mean − sd', stroke: 'rgba(51,102,204,0.3)', edge: true }, { label: 'mean + sd', stroke: 'rgba(51,102,204,0.3)', edge: true }],
        { xlabel: m.generation, ylabel: 'score', uplot: { bands: [{ series: [3, 2], fill: 'rgba(204,51,51,0.12)' }, { series: [6, 5], fill: 'rgba(51,102,204,0.10)' }] } });
      }
      const cps = g.filter(p => p.checkpoint && p.checkpoint.elo !== null);
      const ce = cps.map(p => p.checkpoint.elo);
      const clo = cps.map(p => p.checkpoint.elo_ci95 === null ? null : p.checkpoint.elo - p.checkpoint.elo_ci95);
      const chi = cps.map(p => p.checkpoint.elo_ci95 === null ? null : p.checkpoint.elo + p.checkpoint.elo_ci95);
      const eloSeries = [{ label: 'Elo', stroke: '#383', width: 2, points: { show: true, size: 6 } },
        { label: '−95%', stroke: 'rgba(51,136,51,0.3)', edge: true }, { label: '+95%', stroke: 'rgba(51,136,51,0.3)', edge: true }];
      const band = { bands: [{ series: [3, 2], fill: 'rgba(51,136,51,0.12)' }] };
      if (cps.length) {
        chart(charts, 'elo', 'Held-out Elo of the champion against ' + base(v.run).long + ' (tune --verify-every)',
          [cps.map(p => p.generation), ce, clo, chi], eloSeries, { xlabel: m.generation, ylabel: 'Elo', uplot: band });
        const maxMs = Math.max(...cps.map(p => p.elapsed_ms));
        const unit = maxMs < 120000 ? ['s', 1000] : maxMs < 7200000 ? ['min', 60000] : ['h', 3600000];
        chart(charts, 'elo-time', 'The same against wall time',
          [cps.map(p => p.elapsed_ms / unit[1]), ce, clo, chi], eloSeries, { xlabel: 'wall time (' + unit[0] + ')', xreal: true, ylabel: 'Elo', uplot: band });
      } else { // two empty charts would look like a measurement of nothing
        charts.append(el('p', { class: 'muted', 'data-chart': 'elo-none', text: 'No held-out Elo during the run: ' +
          (g.some(p => p.checkpoint) ? 'its checkpoints measured only ' + base(v.run).long + '.' : 'tune --verify-every N measures the champion every N ' + m.generation + 's.') }));
      }
      chart(charts, 'diversity', probes ? 'Distance between θ+ and θ− (the perturbation 2·c_k, normalised gene distance)'
        : 'Diversity (mean normalised gene distance)', [x, g.map(p => p.diversity)],
        [{ label: probes ? 'θ+ to θ−' : 'diversity', stroke: '#a6c', width: 2 }], { xlabel: m.generation, ylabel: 'distance' });
      chart(charts, 'speed', 'Games per second', [x, g.map(p => p.games_per_s)],
        [{ label: 'games/s', stroke: '#c80', width: 2 }], { xlabel: m.generation, ylabel: 'games/s' });
      if (g.some(p => p.slot_utilisation !== null)) {
        chart(charts, 'slots', 'Game-slot utilisation (busy slot time / (wall time × slots))', [x, g.map(p => p.slot_utilisation === null ? null : 100 * p.slot_utilisation)],
          [{ label: '% busy', stroke: '#396', width: 2 }], { xlabel: m.generation, ylabel: '% of slot time' });
      }
    });
    if (v.hall_of_fame.length) {
      out.push(el('h2', { text: 'Hall of fame' }));
      const rows = v.hall_of_fame.map(h => el('tr', {},
        el('td', {}, link(individualHref(v.run.id, h.id), h.id)), el('td', { class: 'num', text: h.admitted }),
        el('td', { class: 'num', text: h.games }), el('td', { class: 'num', text: h.wins + '/' + h.draws + '/' + h.losses }),
        el('td', { class: 'num', text: fmt(h.elo, 1) }), el('td', { class: 'num', text: fmt(h.elo_lcb, 1) })));
      out.push(el('table', { id: 'hall' }, el('tr', {}, ...['Individual', 'Admitted', 'Games', 'W/D/L', 'Elo', 'Lower bound'].map(h => el('th', { text: h }))), ...rows));
    }
    if (probes) {
      out.push(el('h2', { text: 'Steps' }));
      const srows = g.slice().reverse().map(p => el('tr', { 'data-generation': p.generation },
        el('td', { class: 'num', text: p.generation }),
        el('td', {}, link(individualHref(v.run.id, p.best_individual), p.best_individual)),
        el('td', { class: 'num', text: fmt(p.plus_score, 3) + (p.plus_se === null ? '' : ' ± ' + fmt(z * p.plus_se, 3)) }),
        el('td', { class: 'num', text: fmt(p.diversity, 3) }),
        el('td', {}, link(runHref(v.run.id) + '/generation/' + p.generation, p.games + ' games')),
        el('td', { class: 'num', text: fmt(p.games_per_s, 1) }),
        el('td', { text: p.checkpoint ? fmtElo(p.checkpoint) : '' })));
      out.push(el('table', { id: 'generations' }, el('tr', {}, ...['Step', 'θ after it', 'θ+ score vs θ− ± 95%', 'Perturbation',
        'Games', 'Games/s', 'Held-out Elo'].map(h => el('th', { text: h }))), ...srows));
      out.after = after;
      return out;
    }
    out.push(el('h2', { text: 'Generations' }));
    const rows = g.slice().reverse().map(p => el('tr', { 'data-generation': p.generation },
      el('td', { class: 'num', text: p.generation }),
      el('td', {}, link(individualHref(v.run.id, p.best_individual), p.best_individual)),
      el('td', { class: 'num', text: fmt(p.best_score, 3) + (p.best_se === null ? '' : ' ± ' + fmt(z * p.best_se, 3)) }),
      el('td', { class: 'num', text: fmt(p.mean_score, 3) }),
      el('td', { class: 'num', text: fmt(p.diversity, 3) }),
      el('td', {}, link(runHref(v.run.id) + '/generation/' + p.generation, p.games + ' games')),
      el('td', { class: 'num', text: fmt(p.games_per_s, 1) }),
      el('td', { text: p.champion || '—' }),
      el('td', { class: 'hof-test', text: p.admission ? p.admission.candidate + ' vs ' + p.admission.opponent + ': ' +
        (p.admission.diff >= 0 ? '+' : '') + fmt(p.admission.diff, 3) + ' ± ' + fmt(z * p.admission.diff_se, 3) + ' (' + p.admission.games + ' games) → ' +
        (p.admission.admitted ? 'admitted' : 'not admitted') : '—' }),
      el('td', { text: p.checkpoint ? fmtElo(p.checkpoint) : '' })));
    out.push(el('table', { id: 'generations' }, el('tr', {}, ...['Gen', 'Best', 'Best score ± 95%', 'Mean', 'Diversity', 'Games',
      'Games/s', 'Champion', 'Hall-of-fame test (score difference ± 95%)', 'Held-out Elo'].map(h => el('th', { text: h }))), ...rows));
    out.after = after;
    return out;
  };
}

async function viewGenes(id) {
  const v = await getRunJSON('/api/runs/' + id + '/genes', (c, d) => {
    d.generations = c.generations.concat(d.generations);
    for (const k of ['best', 'min', 'max']) d[k] = c[k].map((a, i) => a.concat(d[k][i] || []));
  });
  return () => {
    const out = runHeader(v.run);
    const b = base(v.run).short;
    const m = terms(v.run);
    out.push(el('p', { class: 'muted', text: 'Each gene of the champion (' + m.champion + ') after each ' + m.generation + ' (line) and ' + m.range + ' (band), ' +
      'relative to ' + base(v.run).long + ': value ÷ ' + b + ' on a log axis for log-scale genes, value − ' + b + ' otherwise.' }));
    const box = el('div', { class: 'genes', id: 'genes' });
    out.push(box);
    out.after = [() => {
      v.genes.forEach((gene, i) => {
        const pos = a => a.every(x => x === null || x > 0);
        const ratio = gene.scale === 'log' && gene.default > 0 && pos(v.min[i]) && pos(v.best[i]);
        const tr = x => x === null ? null : ratio ? x / gene.default : x - gene.default;
        const data = [v.generations, v.best[i].map(tr), v.min[i].map(tr), v.max[i].map(tr)];
        const title = gene.name + ' (' + b + ' ' + gene.default + ', ' + (ratio ? '÷ ' + b + ', log' : '− ' + b) + ')' + (gene.fixed ? ' · fixed' : '');
        const holder = el('div', { class: 'gene', 'data-gene': gene.name });
        box.append(holder);
        chart(holder, 'gene:' + gene.name, title, data,
          [{ label: 'champion', stroke: '#c33', width: 2 }, { label: 'min', stroke: 'rgba(51,102,204,0.4)', edge: true }, { label: 'max', stroke: 'rgba(51,102,204,0.4)', edge: true }],
          { xlabel: m.generation, ylabel: ratio ? 'value ÷ ' + b : 'value − ' + b, ylog: ratio, uplot: { width: 320, height: 190, legend: { show: false },
            scales: { x: { time: false }, y: ratio ? { distr: 3 } : { range: linearRange(gene) } }, bands: [{ series: [3, 2], fill: 'rgba(51,102,204,0.12)' }] } });
      });
    }];
    return out;
  };
}

// linearRange is a linear gene chart's y range (value − default): the data's, widened to at
// least ±5% of the gene's own range, so that a gene that never moved still shows its scale
// instead of one tick at 0.
function linearRange(gene) {
  const s = 0.05 * (gene.max - gene.min) || 1;
  return (u, lo, hi) => [Math.min(lo === null ? 0 : lo, -s), Math.max(hi === null ? 0 : hi, s)];
}

async function viewLineage(id, ind) {
  // dagre (vendored, an ES module) lays the graph out in layers and routes the edges.
  const [v, dagre] = await Promise.all([getJSON('/api/runs/' + id + '/lineage/' + encodeURIComponent(ind)), import('/static/dagre.esm.js')]);
  return () => {
    const out = runHeader(v.run);
    out.push(el('h2', { text: 'Lineage of ' + v.id + ' (' + v.nodes.length + ' genomes' + (v.truncated ? ', older ones left out' : '') + ')' }));
    out.push(el('p', { class: 'muted', text: 'Each box is a genome: its ID, the operator that made it, and its score in the first generation it played ' +
      '(against that generation\'s references); lines lead down to its parents (laid out by dagre). Click a box for the individual\'s page.' }));
    const bw = 140, bh = 50;
    const G = new dagre.graphlib.Graph();
    G.setGraph({ rankdir: 'TB', nodesep: 18, ranksep: 40, edgesep: 10, marginx: 10, marginy: 10 });
    G.setDefaultEdgeLabel(() => ({}));
    const known = new Set(v.nodes.map(n => n.id));
    for (const n of v.nodes) G.setNode(n.id, { width: bw, height: bh });
    for (const n of v.nodes) for (const p of n.parents) if (known.has(p)) G.setEdge(n.id, p);
    dagre.layout(G);
    const { width, height } = G.graph();
    const g = svg('svg', { class: 'lineage', id: 'lineage', width: Math.ceil(width), height: Math.ceil(height), viewBox: '0 0 ' + Math.ceil(width) + ' ' + Math.ceil(height) });
    for (const e of G.edges()) {
      const pts = G.edge(e).points.map(p => p.x.toFixed(1) + ',' + p.y.toFixed(1)).join(' ');
      g.append(svg('polyline', { class: 'edge', points: pts, fill: 'none', 'data-child': e.v, 'data-parent': e.w }));
    }
    for (const n of v.nodes) {
      const c = G.node(n.id);
      const genes = Object.entries(n.genes || {}).map(([k, val]) => k + ' = ' + Number(val).toPrecision(4)).join('\n');
      const score = n.score === null ? 'played no game' : 'score ' + fmt(n.score, 3) + ' (gen ' + n.generation + ')';
      const node = svg('g', { class: 'node' + (n.id === v.id ? ' self' : ''), 'data-id': n.id, transform: 'translate(' + (c.x - bw / 2).toFixed(1) + ',' + (c.y - bh / 2).toFixed(1) + ')',
        onclick: () => { location.hash = individualHref(v.run.id, n.id); } },
        svg('title', { text: n.id + ' (born in generation ' + n.born_generation + ', ' + n.operator + ')\n' + genes }),
        svg('rect', { width: bw, height: bh, rx: 4 }),
        svg('text', { x: 6, y: 15, text: n.id }),
        svg('text', { x: 6, y: 30, class: 'muted', text: n.operator }),
        svg('text', { x: 6, y: 44, class: 'score', text: score }));
      g.append(node);
    }
    out.push(el('div', { style: 'overflow:auto' }, g));
    return out;
  };
}

// viewAnalysis is the run's parameter importance (each gene's effect on the score per
// within-generation SD, ± 95%, largest first; the method named on the page) and a slice per
// gene: every individual row's score against its value of the gene.
async function viewAnalysis(id) {
  const v = await getJSON('/api/runs/' + id + '/analysis');
  return () => {
    const out = runHeader(v.run);
    out.push(el('h2', { text: 'Parameter importance' }));
    out.push(el('p', { class: 'muted', id: 'analysis-rows', text: 'Method: ' + v.method + '. ' + v.rows + ' rows in ' + v.groups + ' generations' +
      (v.stride > 1 ? ' (every ' + v.stride + 'th generation, counted back from the last: ' + v.total_rows + ' rows in all)' : '') +
      (v.r2 === null ? '' : ', R² ' + fmt(v.r2, 3) + ' (of the variation within generations)') + '.' }));
    if (v.note) out.push(el('p', { class: 'muted', id: 'analysis-note', text: 'No importance for this method: ' + v.note + '.' }));
    if (v.error) out.push(el('p', { class: 'error', id: 'analysis-error', text: 'No importance: ' + v.error }));
    const ranked = v.genes.filter(g => g.coef !== null).sort((a, b) => Math.abs(b.coef) - Math.abs(a.coef));
    const span = Math.max(1e-9, ...ranked.map(g => Math.abs(g.coef) + g.ci95));
    const W = 240, mid = W / 2;
    const bar = g => {
      const s = svg('svg', { width: W, height: 16, class: 'effect' });
      const px = x => mid + x / span * (mid - 4);
      s.append(svg('line', { x1: mid, y1: 0, x2: mid, y2: 16, stroke: '#999' }));
      s.append(svg('rect', { x: Math.min(mid, px(g.coef)), y: 4, width: Math.abs(px(g.coef) - mid), height: 8, fill: g.coef >= 0 ? '#393' : '#c33' }));
      s.append(svg('line', { x1: px(g.coef - g.ci95), y1: 8, x2: px(g.coef + g.ci95), y2: 8, stroke: '#222', 'stroke-width': 1.5 }));
      return s;
    };
    if (ranked.length) out.push(el('table', { id: 'importance' }, el('tr', {}, ...['Gene', 'Effect on the score per SD ± 95%', '', 'SD (' + 'ln units for log genes)', 'Interval excludes 0'].map(h => el('th', { text: h }))),
      ...ranked.map(g => el('tr', { 'data-gene': g.name }, el('td', { text: g.name }),
        el('td', { class: 'num', text: (g.coef >= 0 ? '+' : '') + fmt(g.coef, 4) + ' ± ' + fmt(g.ci95, 4) }), el('td', {}, bar(g)),
        el('td', { class: 'num', text: fmt(g.sd, 4) }), el('td', { text: Math.abs(g.coef) > g.ci95 ? 'yes' : 'no' })))));
    const fixed = v.genes.filter(g => g.coef === null).map(g => g.name);
    if (fixed.length && !v.error && !v.note) out.push(el('p', { class: 'muted', text: 'Not in the regression (fixed, or the same in every row): ' + fixed.join(', ') }));
    out.push(el('h2', { text: 'Parallel coordinates' }));
    out.push(el('p', { class: 'muted', text: 'Each line is an individual row (the latest ' + v.lines.length + '), across one axis per gene ' +
      '(the range of the rows shown, bottom to top, labelled; log axes for log-scale genes), coloured by its score: red 0, yellow ½, green 1.' }));
    out.push(parallel(v));
    out.push(el('h2', { text: 'Slices: score against each gene' }));
    if (v.slice_rows < v.rows) out.push(el('p', { class: 'muted', text: 'Each slice shows ' + v.slice_rows + ' of the ' + v.rows + ' rows, evenly spaced in generation order.' }));
    const box = el('div', { class: 'genes', id: 'slices' });
    out.push(box);
    out.after = [() => {
      v.genes.forEach(g => {
        if (!g.values.length) return;
        const holder = el('div', { class: 'gene', 'data-slice': g.name });
        box.append(holder);
        chart(holder, 'slice:' + g.name, g.name + (g.fixed ? ' (fixed)' : ''), [g.values, g.scores],
          [{ label: 'score', stroke: 'rgba(51,102,204,0.8)', paths: () => null, points: { show: true, size: 4, fill: 'rgba(51,102,204,0.4)' } }],
          { xlabel: g.name, xreal: true, xvalues: compactLabels, ylabel: 'score', uplot: { width: 320, height: 190, legend: { show: false },
            scales: { x: { time: false, distr: g.scale === 'log' && g.values[0] > 0 ? 3 : 1 } } } });
      });
    }];
    return out;
  };
}

// parallel draws parallel coordinates of an analysis: one vertical axis per gene over the
// layout's bounds (log for log-scale genes), one polyline per individual row coloured by
// its score.
function parallel(v) {
  // The axes fit the page (at most ~1 200 px), each spanning the range its rows take
  // (log axes for log-scale genes), not the layout's bounds: gomoku's pattern scores would
  // all run 1…10 000 000 with the rows in a sliver of them.
  const n = Math.max(1, v.genes.length - 1);
  const gx = Math.max(56, Math.min(110, Math.floor(1160 / n))), top = 20, H = 260, W = 60 + gx * n;
  const g = svg('svg', { id: 'parallel', width: W + 60, height: H + 60, viewBox: '0 0 ' + (W + 60) + ' ' + (H + 60) });
  const ranges = v.genes.map((gene, i) => {
    const log = gene.scale === 'log' && gene.min > 0;
    const xs = v.lines.map(l => l.values[i]).filter(x => x !== null && x !== undefined && (!log || x > 0));
    let lo = xs.length ? Math.min(...xs) : gene.min, hi = xs.length ? Math.max(...xs) : gene.max;
    if (lo === hi) { lo = gene.min; hi = gene.max; } // one value: the bounds, the value inside them
    return { log, lo, hi };
  });
  const y = (i, x) => {
    const r = ranges[i];
    const t = r.log ? (Math.log(x) - Math.log(r.lo)) / (Math.log(r.hi) - Math.log(r.lo)) : (x - r.lo) / (r.hi - r.lo);
    return top + H - Math.max(0, Math.min(1, t)) * H;
  };
  const colour = s => { const r = s < 0.5 ? 220 : Math.round(220 * (1 - s) * 2), gr = s < 0.5 ? Math.round(200 * s * 2) : 180; return 'rgba(' + r + ',' + gr + ',40,0.35)'; };
  for (const l of [...v.lines].sort((a, b) => a.score - b.score)) { // the best drawn last, on top
    const pts = l.values.map((x, i) => (40 + i * gx) + ',' + y(i, x).toFixed(1)).join(' ');
    g.append(svg('polyline', { class: 'pline', points: pts, fill: 'none', stroke: colour(l.score), 'stroke-width': 1 }));
  }
  v.genes.forEach((gene, i) => {
    const x = 40 + i * gx;
    g.append(svg('line', { x1: x, y1: top, x2: x, y2: top + H, stroke: '#333' }));
    g.append(svg('text', { x: x, y: top + H + 16, 'text-anchor': 'middle', 'font-size': 11, text: gene.name }));
    g.append(svg('text', { x: x + 3, y: top + H, 'font-size': 9, class: 'muted', text: Number(ranges[i].lo.toPrecision(3)) }));
    g.append(svg('text', { x: x + 3, y: top + 8, 'font-size': 9, class: 'muted', text: Number(ranges[i].hi.toPrecision(3)) }));
  });
  return el('div', { style: 'overflow:auto' }, g);
}

// indCell is a table cell naming a player: a link to the individual's page when it is one
// of the run's individuals (RUN-gGEN-SLOT), else the text (baseline, an engine command).
function indCell(run, name) {
  return /^\d+-g\d+-\d+$/.test(name) ? el('td', {}, link(individualHref(run, name), name)) : el('td', { text: name });
}

// viewIndividual is one individual: how it was made, its genes beside the baseline's, the
// generations it played, its hall-of-fame record and its games.
async function viewIndividual(id, ind) {
  const v = await getJSON('/api/runs/' + id + '/individuals/' + encodeURIComponent(ind));
  return () => {
    const out = runHeader(v.run);
    const b = base(v.run);
    out.push(el('h2', { id: 'individual', text: 'Individual ' + v.id }));
    const made = el('p', { id: 'made' }, el('span', { text: 'Born in generation ' + v.born + ' by ' + v.operator +
      (v.parents.length ? ' from ' : ' (no parents)') }));
    v.parents.forEach((p, i) => { if (i) made.append(' and '); made.append(link(individualHref(id, p), p)); });
    made.append(' · ', link(lineageHref(id, v.id), 'lineage'));
    out.push(made);
    out.push(el('h3', { text: 'Genes beside ' + b.long }));
    out.push(el('table', { id: 'ind-genes' }, el('tr', {}, ...['Gene', 'Value', b.short === 'paper' ? 'Paper' : 'Default', 'Ratio or difference', ''].map(h => el('th', { text: h }))),
      ...v.genes.map(g => el('tr', { 'data-gene': g.name }, el('td', { text: g.name }), el('td', { class: 'num', text: Number(g.value.toPrecision(6)) }),
        el('td', { class: 'num', text: g.default }),
        el('td', { class: 'num', text: g.scale === 'log' && g.default > 0 ? '×' + (g.value / g.default).toFixed(3) : (g.value - g.default >= 0 ? '+' : '') + (g.value - g.default).toPrecision(4) }),
        el('td', { class: 'muted', text: g.fixed ? 'fixed' : '' })))));
    out.push(el('h3', { text: 'Generations it played (each row: that generation\'s games against its references)' }));
    const history = v.history || [], games = v.games || [];
    out.push(history.length ? el('table', { id: 'ind-history' }, el('tr', {}, ...['Gen', 'Rank', 'Round', 'Score ± SE', 'Elo ± 95%', 'Games', 'W/D/L'].map(h => el('th', { text: h }))),
      ...history.map(h => el('tr', { 'data-generation': h.generation }, el('td', { class: 'num', text: h.generation }), el('td', { class: 'num', text: h.rank }),
        el('td', { class: 'num', text: h.round }), el('td', { class: 'num', text: fmt(h.score, 3) + (h.score_se === null ? '' : ' ± ' + fmt(h.score_se, 3)) }),
        el('td', { class: 'num', text: h.elo === null ? '—' : (h.elo >= 0 ? '+' : '') + fmt(h.elo, 1) + (h.elo_ci95 === null ? '' : ' ± ' + fmt(h.elo_ci95, 1)) }),
        el('td', { class: 'num', text: h.games }), el('td', { text: h.wins + '/' + h.draws + '/' + h.losses }))))
      : el('p', { class: 'muted', text: 'It played in no generation: a genome made and not played (the hall of fame\'s centre, SPSA\'s θ, CMA-ES\'s mean), or a parent kept only as a genome.' }));
    const h = v.hall_of_fame;
    out.push(el('p', { id: 'ind-hof', text: h ? 'Hall of fame: admitted in generation ' + h.admitted + '; its record against ' + b.long + ': ' +
      h.games + ' games, ' + h.wins + '/' + h.draws + '/' + h.losses + (h.elo === null ? '' : ', Elo ' + fmt(h.elo, 1) + ' (lower bound ' + fmt(h.elo_lcb, 1) + ')')
      : 'Not a member of the hall of fame.' }));
    out.push(el('h3', { text: 'Its games (' + games.length + (v.games_truncated ? ', the first of more' : '') + ')' }));
    out.push(el('table', { id: 'ind-games' }, el('tr', {}, ...['Game', 'Generation', 'Individual', 'Opponent', 'Individual\'s colour', 'Result', 'Plies', 'Round'].map(x => el('th', { text: x }))),
      ...games.map(g => el('tr', { 'data-game': g.id }, el('td', {}, link(runHref(id) + '/game/' + g.id, 'replay ' + g.id)),
        el('td', { class: 'num', text: g.generation }), indCell(id, g.individual), indCell(id, g.opponent), el('td', { class: 'colour', text: colourText(v.run, g.colour) }),
        el('td', { text: g.result }), el('td', { class: 'num', text: g.plies }), el('td', { class: 'num', text: g.round })))));
    return out;
  };
}

async function viewGenerationGames(id, gen) {
  const [r, games] = await Promise.all([getJSON('/api/runs/' + id), getJSON('/api/runs/' + id + '/games?generation=' + gen)]);
  return () => {
    const out = runHeader(r.run);
    out.push(el('h2', { text: 'Games of generation ' + gen + ' (' + games.length + ')' }));
    const rows = games.map(g => el('tr', { 'data-game': g.id },
      el('td', {}, link(runHref(id) + '/game/' + g.id, 'replay ' + g.id)),
      indCell(id, g.individual), indCell(id, g.opponent), el('td', { class: 'colour', text: colourText(r.run, g.colour) }),
      el('td', { text: g.result }), el('td', { class: 'num', text: g.plies }), el('td', { class: 'num', text: g.round }),
      el('td', { class: 'error', text: g.forfeit || '' })));
    out.push(el('table', { id: 'games' }, el('tr', {}, ...['Game', 'Individual', 'Opponent', 'Its colour', 'Result', 'Plies', 'Round', 'Forfeit'].map(h => el('th', { text: h }))), ...rows));
    return out;
  };
}

// glyphs draws the piece letters of a board that pictures itself (v.squares: FEN's letters,
// White in capitals) as the Unicode chess symbols; other letters are drawn as they are.
const glyphs = { K: '♔', Q: '♕', R: '♖', B: '♗', N: '♘', P: '♙', k: '♚', q: '♛', r: '♜', b: '♝', n: '♞', p: '♟' };

// drawBoard draws frame (rows from the top) of a size×size board: stones on the
// intersections (Gomoku, Connect6), or pieces on squares for a game whose pieces stand on
// squares (v.on_squares: Amazons' amazons and arrows; chess's pieces as v.squares' letters say).
function drawBoard(v, step) {
  const n = v.size, cell = n > 12 ? 28 : 44, pad = 24, side = pad * 2 + cell * (n - 1);
  const amazons = v.on_squares || v.squares; // pieces on squares (Amazons, chess), not stones on intersections
  const W = amazons ? pad * 2 + cell * n : side;
  const g = svg('svg', { id: 'board', width: W, height: W, viewBox: '0 0 ' + W + ' ' + W });
  g.append(svg('rect', { width: W, height: W, fill: amazons ? '#fff' : '#dcb36c' }));
  const files = 'abcdefghijklmnopqrstuvwxyz';
  const frame = v.frames[Math.min(step, v.frames.length - 1)];
  const last = step > 0 ? (v.moves[step - 1] || '').toLowerCase().match(/[a-z]\d+/g) || [] : [];
  const final = step === v.frames.length - 1;
  const win = final ? v.winning_line || [] : [];
  for (let i = 0; i < n; i++) {
    if (amazons) {
      for (let j = 0; j < n; j++) g.append(svg('rect', { x: pad + i * cell, y: pad + j * cell, width: cell, height: cell, fill: (i + j) % 2 ? '#b58863' : '#f0d9b5' }));
    } else {
      g.append(svg('line', { x1: pad, y1: pad + i * cell, x2: pad + (n - 1) * cell, y2: pad + i * cell, stroke: '#333', 'stroke-width': 1 }));
      g.append(svg('line', { x1: pad + i * cell, y1: pad, x2: pad + i * cell, y2: pad + (n - 1) * cell, stroke: '#333', 'stroke-width': 1 }));
    }
    const c = amazons ? pad + i * cell + cell / 2 : pad + i * cell;
    g.append(svg('text', { x: c, y: 14, 'text-anchor': 'middle', 'font-size': 11, text: files[i] }));
    g.append(svg('text', { x: 10, y: c + 4, 'text-anchor': 'middle', 'font-size': 11, text: n - i }));
  }
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) {
      const ch = frame[r][c];
      if (ch === '.') continue;
      const point = files[c] + (n - r);
      const cx = amazons ? pad + c * cell + cell / 2 : pad + c * cell, cy = amazons ? pad + r * cell + cell / 2 : pad + r * cell;
      const mark = last.includes(point);
      if (v.squares) {
        if (mark) g.append(svg('rect', { x: cx - cell / 2 + 1, y: cy - cell / 2 + 1, width: cell - 2, height: cell - 2, fill: 'none', stroke: '#e22', 'stroke-width': 2 }));
        g.append(svg('text', { class: 'piece', 'data-piece': ch, 'data-point': point, x: cx, y: cy + cell * 0.3, 'text-anchor': 'middle',
          'font-size': cell * 0.8, fill: '#111', text: glyphs[ch] || ch }));
      } else if (ch === 'x') {
        g.append(svg('rect', { class: 'arrow', 'data-point': point, x: cx - cell / 2 + 3, y: cy - cell / 2 + 3, width: cell - 6, height: cell - 6, fill: '#444', stroke: mark ? '#e22' : 'none', 'stroke-width': 3 }));
      } else {
        g.append(svg('circle', { class: amazons ? 'amazon' : 'stone', 'data-colour': ch, 'data-point': point, cx: cx, cy: cy, r: cell * 0.45,
          fill: ch === 'B' ? '#111' : '#f8f8f8', stroke: mark ? '#e22' : '#555', 'stroke-width': mark ? 3 : 1 }));
        if (amazons) g.append(svg('text', { x: cx, y: cy + 5, 'text-anchor': 'middle', 'font-size': 14, 'font-weight': 'bold', fill: ch === 'B' ? '#fff' : '#111', text: 'Q' }));
      }
    }
  }
  if (win.length >= 2) { // the winning line, drawn through its stones in the final position
    const at = p => [pad + files.indexOf(p[0]) * cell, pad + (n - Number(p.slice(1))) * cell];
    const [a, b] = [at(win[0]), at(win[win.length - 1])];
    g.append(svg('line', { class: 'winning-line', 'data-points': win.join(' '), x1: a[0], y1: a[1], x2: b[0], y2: b[1],
      stroke: '#e22', 'stroke-width': 4, 'stroke-linecap': 'round', opacity: 0.8 }));
  }
  return g;
}

async function viewGame(id, gameID) {
  return gameViewer('/api/runs/' + Number(id) + '/games/' + Number(gameID), 'run' + Number(id) + '-game' + Number(gameID),
    v => runHeader(v.run), v => 'Game ' + v.game.id + ', generation ' + v.game.generation + ': ' + v.game.result);
}

// viewMatchGame replays game (1: A moved first) of colour-swapped pair of a stored match.
async function viewMatchGame(id, pair, game) {
  return gameViewer('/api/matches/' + Number(id) + '/games/' + Number(pair) + '/' + Number(game), 'match' + Number(id) + '-pair' + Number(pair) + '-game' + Number(game),
    v => matchHeader(v.match), v => 'Pair ' + pair + ', game ' + game + ': ' + v.game.result);
}

// gameViewer draws the stored game at url (a runview.GameView) under header(v) and
// title(v); file names its downloads.
async function gameViewer(url, file, header, title) {
  const v = await getJSON(url);
  return () => {
    const out = header(v);
    const gm = v.game;
    out.push(el('h2', { text: title(v) }));
    const names = (v.colour_names || ['black', 'white']).map(n => n.charAt(0).toUpperCase() + n.slice(1)); // first mover first
    // A set-up position (a book's FEN) is not a ply.
    const setup = v.moves.length && v.moves[0].startsWith('fen:') ? 1 : 0;
    const opening = v.opening_plies - setup;
    out.push(el('p', { id: 'players' }, el('span', { text: names[0] + ': ' + v.black + ' · ' + names[1] + ': ' + v.white + ' · ' + gm.plies + ' plies' +
      (setup ? ' from a set-up position' : '') + (opening > 0 ? ' (' + opening + ' opening ' + (opening === 1 ? 'ply' : 'plies') + ')' : '') })));
    if (gm.forfeit) out.push(el('p', { class: 'error', text: 'Forfeit: ' + gm.forfeit }));
    if (v.error) out.push(el('p', { class: 'error', text: 'Replay stopped at ' + v.error }));
    const last = v.frames.length - 1;
    const holder = el('div');
    const label = el('span', { id: 'step' });
    const fen = v.fens && v.fens.length ? el('code', { id: 'fen' }) : null;
    const slider = el('input', { type: 'range', min: 0, max: last, value: 0, id: 'slider' });
    const moves = el('div', { class: 'moves', id: 'moves' });
    // Chess moves are named in SAN with their move numbers, read from the FEN before each
    // move (side to move, full move).
    const moveText = k => {
      const m = v.moves[k];
      if (m.startsWith('fen:')) return 'set-up position';
      if (!v.notation || !v.notation[k] || !v.fens || !v.fens[k]) return (k + 1 - setup) + '. ' + m;
      const f = v.fens[k].split(' ');
      if (f[1] === 'w') return f[5] + '. ' + v.notation[k];
      return (k === setup ? f[5] + '… ' : '') + v.notation[k];
    };
    const spans = v.moves.map((m, k) => el('span', { class: k < v.opening_plies ? 'opening' : '', text: moveText(k),
      onclick: () => show(k + 1) }));
    spans.forEach(s => moves.append(s));
    function show(k) {
      k = Math.max(0, Math.min(last, k));
      window.evotune.step = k;
      slider.value = k;
      label.textContent = 'ply ' + Math.max(0, k - setup) + ' / ' + (last - setup);
      holder.replaceChildren(drawBoard(v, k));
      if (fen) fen.textContent = 'FEN: ' + (v.fens[k] || '');
      spans.forEach((s, i) => s.classList.toggle('current', i === k - 1));
    }
    slider.addEventListener('input', () => show(Number(slider.value)));
    const btn = (id, text, f) => el('button', { id: id, text: text, onclick: f });
    const controls = el('div', { class: 'controls' }, btn('first', '«', () => show(0)), btn('prev', '‹', () => show(window.evotune.step - 1)),
      btn('next', '›', () => show(window.evotune.step + 1)), btn('last', '»', () => show(last)), ' ', label, ' ', slider);
    const download = el('a', { id: 'download', href: url,
      download: file + '.json', text: 'Download the game (JSON: moves, players, result, every position)' });
    out.push(controls, el('div', { class: 'viewer' }, holder, moves));
    if (fen) out.push(el('p', {}, fen));
    out.push(el('p', {}, download));
    if (v.pgn) { // the game as a PGN record (a board that pictures itself: chess)
      out.push(el('p', {}, el('a', { id: 'download-pgn', href: URL.createObjectURL(new Blob([v.pgn], { type: 'application/x-chess-pgn' })),
        download: file + '.pgn', text: 'Download the game as PGN' })));
    }
    out.after = [() => show(last)]; // the final position first: how the game ended
    window.evotune.keys = e => { if (e.key === 'ArrowRight') show(window.evotune.step + 1); if (e.key === 'ArrowLeft') show(window.evotune.step - 1); };
    return out;
  };
}

// ---- routing and live updates ----

function parseRoute(h) {
  const p = h.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  if (p[0] === 'match' && /^\d+$/.test(p[1] || '')) {
    if (p[2] === 'game') return { key: 'game', load: () => viewMatchGame(p[1], Number(p[3]), Number(p[4])), live: false };
    return { key: 'match', load: () => viewMatch(p[1]), live: true };
  }
  if (p[0] === 'tournament' && /^\d+$/.test(p[1] || '')) return { key: 'tournament', load: () => viewTournament(p[1]), live: true };
  if (p[0] !== 'run' || !/^\d+$/.test(p[1] || '')) return { key: 'runs', load: viewRuns, live: true };
  const id = p[1];
  switch (p[2]) {
    case undefined: case '': return { key: 'run', load: () => viewRun(id), live: true };
    case 'genes': return { key: 'genes', load: () => viewGenes(id), live: true };
    case 'lineage': return { key: 'lineage', load: () => viewLineage(id, p.slice(3).join('/')), live: false };
    case 'analysis': return { key: 'analysis', load: () => viewAnalysis(id), live: true };
    case 'individual': return { key: 'individual', load: () => viewIndividual(id, p.slice(3).join('/')), live: true };
    case 'generation': return { key: 'generation', load: () => viewGenerationGames(id, Number(p[3])), live: true };
    case 'game': return { key: 'game', load: () => viewGame(id, Number(p[3])), live: false };
  }
  return { key: 'runs', load: viewRuns, live: true };
}

let current = { hash: null, snapshot: null };

async function render(poll) {
  const hash = location.hash || '#/';
  const route = parseRoute(hash);
  if (poll && (!route.live || current.hash !== hash)) return;
  let draw;
  try {
    polling = poll;
    draw = await route.load();
    live.classList.remove('stale');
  } catch (e) {
    if (poll) { live.classList.add('stale'); return; }
    destroyCharts();
    app.replaceChildren(el('p', { class: 'error', text: e.message }));
    current = { hash: hash, snapshot: null };
    window.evotune.rendered = hash;
    return;
  }
  if (hash !== (location.hash || '#/')) return; // the user moved on meanwhile
  if (!poll) window.evotune.keys = null; // the game viewer's draw sets its own
  const nodes = draw();
  const snapshot = JSON.stringify(nodes.map(n => n.textContent));
  if (poll && snapshot === current.snapshot) return;
  const y = window.scrollY;
  destroyCharts();
  app.replaceChildren(...nodes);
  for (const f of nodes.after || []) f();
  current = { hash: hash, snapshot: snapshot };
  window.evotune.route = route.key;
  window.evotune.rendered = hash; // the view of this hash is on the page
  document.body.setAttribute('data-view', route.key);
  if (poll) window.scrollTo(0, y);
}

window.addEventListener('hashchange', () => { window.scrollTo(0, 0); render(false); });
document.addEventListener('keydown', e => { if (window.evotune.keys) window.evotune.keys(e); });
setInterval(() => render(true), 3000);
render(false);
