// The dashboard's page: polls the JSON API, plots the charts' series
// (drawCharts, charts.js), and draws the boards of recorded and live
// games as SVG (drawBoard, board.js).
"use strict";

const $ = (id) => document.getElementById(id);

async function getJSON(url) {
  const r = await fetch(url, { cache: "no-store" });
  if (!r.ok) throw new Error(url + ": " + r.status + " " + (await r.text()));
  return r.json();
}

function clock(s) {
  if (s < 0 || !isFinite(s)) return "?";
  s = Math.round(s);
  const h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, sec = s % 60;
  const two = (n) => String(n).padStart(2, "0");
  return h > 0 ? `${h}:${two(m)}:${two(sec)}` : `${m}:${two(sec)}`;
}

// --- runs -----------------------------------------------------------------

// shownRun is the run whose status, games and matches are shown ("": the
// dashboard's own); the charts show every run.
let shownRun = "";

// api adds the run shown to a request of the API.
function api(path) {
  if (!shownRun) return path;
  return path + (path.includes("?") ? "&" : "?") + "run=" + encodeURIComponent(shownRun);
}

async function setupRuns() {
  const names = await getJSON("api/runs");
  const sel = $("run-select");
  if (names.length < 2) return;
  sel.replaceChildren(...names.map((n, i) => new Option(n, i === 0 ? "" : n)));
  sel.hidden = false;
  $("run").hidden = true;
  sel.onchange = () => {
    shownRun = sel.value;
    current = null;
    showingLive = false;
    $("game-list").replaceChildren();
    for (const f of [refreshStatus, refreshMatches, refreshGameList]) f().catch((e) => console.warn(e.message));
  };
}

// --- status -------------------------------------------------------------

let liveAvailable = false;

// statusShown is when the status shown was read; a failed refresh says
// so rather than leave old figures looking current.
let statusShown = null;

async function refreshStatus() {
  let st;
  const run = shownRun;
  try {
    st = await getJSON(api("api/status"));
  } catch (e) {
    const stale = $("status-stale");
    stale.hidden = false;
    stale.textContent = `not updated${statusShown ? " since " + statusShown.toLocaleTimeString() : ""}: ${e.message}`;
    throw e;
  }
  if (run !== shownRun) return; // another run was chosen meanwhile
  statusShown = new Date();
  $("status-stale").hidden = true;
  $("run").textContent = st.run;
  $("game").textContent = st.game;
  // The newest checkpoint is the last generation's candidate; the best
  // network is the one self-play plays (the live game's).
  $("generation").textContent = "generation " + st.generation;
  $("step").textContent = st.step;
  $("best").textContent = `generation ${st.best}` + (st.best !== st.generation ? " (self-play plays it)" : "");
  $("clock").textContent = clock(st.train_clock_s);
  // Over the last generation's self-play phase, as the trainer's log
  // line "self-play: N samples in Ts".
  const over = st.selfplay_s > 0 ? ` (the last generation's self-play: ${st.selfplay_samples} samples in ${st.selfplay_s.toFixed(st.selfplay_s < 10 ? 1 : 0)} s)` : "";
  $("selfplay").textContent = st.selfplay_samples_s.toFixed(0) + " samples/s" + over;
  $("evals").textContent = st.evals_s.toFixed(0) + " /s" + (over ? " (the same phase)" : "");
  $("training").textContent = st.train_samples_s.toFixed(0) + " samples/s (the last training report)";
  const ph = st.phase;
  if (ph) {
    $("phase-name").textContent = ph.name;
    $("phase-bar").value = ph.total > 0 ? Math.min(ph.done / ph.total, 1) : 0;
    let t = `${ph.done}${ph.total > 0 ? "/" + ph.total : ""} ${ph.unit}, ${ph.rate.toFixed(1)}/s, ${clock(ph.elapsed_s)}`;
    if (ph.eta_s >= 0) t += `, ETA ${clock(ph.eta_s)}`;
    $("phase-text").textContent = t;
  } else {
    $("phase-name").textContent = "idle";
    $("phase-bar").value = 0;
    $("phase-text").textContent = "";
  }
  const workers = st.workers || [];
  $("workers").hidden = workers.length === 0;
  const body = $("workers").querySelector("tbody");
  body.replaceChildren(...workers.map((w) => {
    const tr = document.createElement("tr");
    // The trainer's rate by the shards' creation times; absent until
    // they span long enough to say.
    const rate = w.samples_per_s > 0 ? w.samples_per_s.toFixed(0) : "-";
    for (const v of [w.name, rate, w.samples, w.games, new Date(w.last_seen).toLocaleTimeString()]) {
      const td = document.createElement("td");
      td.textContent = v;
      tr.append(td);
    }
    return tr;
  }));
  if (st.live && !liveAvailable) {
    liveAvailable = true;
    startLive();
  }
}

// --- charts (charts.js) ---------------------------------------------------

// The series are fetched through the browser's cache, which asks the
// server whether they changed (ETag) before taking them again.
let seriesTag = null;

async function refreshCharts() {
  const r = await fetch("api/series", { cache: "no-cache" });
  if (!r.ok) throw new Error("api/series: " + r.status + " " + (await r.text()));
  const tag = r.headers.get("ETag");
  if (tag && tag === seriesTag) return; // the same series: nothing to draw
  drawCharts(await r.json());
  seriesTag = tag;
}

// --- matches ------------------------------------------------------------

async function refreshMatches() {
  const run = shownRun;
  const rows = await getJSON(api("api/matches"));
  if (run !== shownRun) return;
  const body = $("matches").querySelector("tbody");
  body.replaceChildren(...rows.slice(-300).reverse().map((r) => {
    const tr = document.createElement("tr");
    const elo = r.elo_text || (r.elo_ci95 != null ? `${Math.round(r.elo)} ± ${Math.round(r.elo_ci95)}` : String(Math.round(r.elo)));
    const verdict = r.threshold ? (r.passed ? "passed" : "failed") : "";
    for (const v of [r.kind, r.minutes.toFixed(1), r.generation, r.opponent, `${r.wins}-${r.draws}-${r.losses}`, r.score.toFixed(3), elo, verdict]) {
      const td = document.createElement("td");
      td.textContent = v;
      tr.append(td);
    }
    return tr;
  }));
}

// --- games --------------------------------------------------------------

let current = null; // the replay shown
let ply = 0;        // boards[ply] is shown
let showingLive = false;

async function refreshGameList() {
  const run = shownRun;
  const refs = await getJSON(api("api/games"));
  if (run !== shownRun) return;
  const sel = $("game-list");
  const keep = sel.value;
  const opts = [];
  if (liveAvailable && !shownRun) opts.push(new Option("live: the self-play game being played", "live"));
  for (const r of refs) {
    opts.push(new Option(`${r.label} (${r.result || "unfinished"}, ${r.plies} plies)`, `${r.source}#${r.index}`));
  }
  sel.replaceChildren(...opts);
  if (keep && [...sel.options].some((o) => o.value === keep)) sel.value = keep;
  if (!current && sel.options.length > 0) {
    sel.value = sel.options[0].value;
    selectGame();
  }
}

async function selectGame() {
  const v = $("game-list").value;
  showingLive = v === "live";
  if (showingLive) {
    if (lastLive) show(lastLive, true);
    return;
  }
  const [source, index] = v.split("#");
  const rep = await getJSON(api(`api/game?source=${encodeURIComponent(source)}&index=${index}`));
  // Another game (the live one, as it appears) may have been chosen while
  // this one loaded: a late answer must not replace it.
  if ($("game-list").value !== v) return;
  show(rep, false);
}

function show(rep, atEnd) {
  const same = current && current.id === rep.id;
  current = rep;
  $("replay-title").textContent = rep.title + (rep.over ? ` - ${rep.result} ${rep.reason ? "(" + rep.reason + ")" : ""}` : " - being played");
  if (atEnd || !same) ply = atEnd ? rep.boards.length - 1 : 0;
  ply = Math.min(ply, rep.boards.length - 1);
  const moves = $("moves");
  moves.replaceChildren(...rep.moves.map((m, i) => {
    const li = document.createElement("li");
    li.textContent = m;
    li.onclick = () => { ply = i + 1; render(); };
    return li;
  }));
  render();
}

function render() {
  if (!current) return;
  drawBoard($("board"), current.boards[ply], current.game);
  $("ply").textContent = `ply ${ply} of ${current.boards.length - 1}`;
  [...$("moves").children].forEach((li, i) => li.classList.toggle("current", i === ply - 1));
  const s = current.search && current.search[ply];
  const next = current.moves[ply];
  let text = next ? `next: ${next}` : "";
  if (s) {
    text += ` | search value ${s.value.toFixed(2)} | ` + s.top.map((t) => `${t.move} ${(100 * t.share).toFixed(0)}%`).join(", ");
  }
  $("search").textContent = text;
}

function step(d) {
  if (!current) return;
  ply = Math.max(0, Math.min(current.boards.length - 1, ply + d));
  render();
}

// --- live game (server-sent events) ---------------------------------------

let lastLive = null;

function startLive() {
  const es = new EventSource("api/live");
  es.addEventListener("game", (e) => {
    lastLive = JSON.parse(e.data);
    if (showingLive) show(lastLive, $("follow").checked);
  });
  // The game being played is what a run's dashboard shows first.
  refreshGameList().then(() => {
    $("game-list").value = "live";
    return selectGame();
  }).catch((e) => console.warn(e.message));
}

// --- start ----------------------------------------------------------------

function every(ms, f) {
  const run = () => f().catch((e) => console.warn(e.message));
  run();
  return setInterval(run, ms);
}

document.addEventListener("DOMContentLoaded", () => {
  $("first").onclick = () => step(-1e9);
  $("prev").onclick = () => step(-1);
  $("next").onclick = () => step(1);
  $("last").onclick = () => step(1e9);
  $("game-list").onchange = () => selectGame().catch((e) => console.warn(e.message));
  document.addEventListener("keydown", (e) => {
    if (e.key === "ArrowLeft") step(-1);
    if (e.key === "ArrowRight") step(1);
  });
  setupRuns().catch((e) => console.warn(e.message));
  every(2000, refreshStatus);
  every(10000, refreshMatches);
  every(15000, refreshGameList);
  every(30000, refreshCharts);
});
