// The dashboard's page: polls the JSON API, shows the charts the server
// renders, and draws the boards of recorded and live games as SVG.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";

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

// --- status -------------------------------------------------------------

let liveAvailable = false;

async function refreshStatus() {
  const st = await getJSON("api/status");
  $("run").textContent = st.run;
  $("game").textContent = st.game;
  $("generation").textContent = st.generation;
  $("step").textContent = st.step;
  $("best").textContent = "generation " + st.best;
  $("clock").textContent = clock(st.train_clock_s);
  $("selfplay").textContent = st.selfplay_samples_s.toFixed(0) + " samples/s";
  $("evals").textContent = st.evals_s.toFixed(0) + " /s";
  $("training").textContent = st.train_samples_s.toFixed(0) + " samples/s";
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

// --- charts -------------------------------------------------------------

async function setupCharts() {
  const names = await getJSON("api/charts");
  const box = $("charts");
  for (const n of names) {
    const img = document.createElement("img");
    img.id = "chart-" + n;
    img.alt = n;
    img.hidden = true;
    img.onload = () => { img.hidden = false; img.dataset.loaded = "1"; };
    img.onerror = () => { img.hidden = true; }; // no data yet (204)
    box.append(img);
  }
  refreshCharts(names);
  setInterval(() => refreshCharts(names), 30000);
}

function refreshCharts(names) {
  const t = Date.now();
  for (const n of names) $("chart-" + n).src = `api/chart/${n}.svg?t=${t}`;
}

// --- matches ------------------------------------------------------------

async function refreshMatches() {
  const rows = await getJSON("api/matches");
  const body = $("matches").querySelector("tbody");
  body.replaceChildren(...rows.slice(-300).reverse().map((r) => {
    const tr = document.createElement("tr");
    const elo = r.elo_ci95 != null ? `${Math.round(r.elo)} ± ${Math.round(r.elo_ci95)}` : String(Math.round(r.elo));
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
  const refs = await getJSON("api/games");
  const sel = $("game-list");
  const keep = sel.value;
  const opts = [];
  if (liveAvailable) opts.push(new Option("live: the self-play game being played", "live"));
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
  const rep = await getJSON(`api/game?source=${encodeURIComponent(source)}&index=${index}`);
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

// --- boards ---------------------------------------------------------------

function el(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.append(e);
  return e;
}

// drawBoard draws a game.Board: every point or square gets one element
// of class "pt" (data-file, data-rank, data-piece), pieces on top.
function drawBoard(svg, b, gameName) {
  svg.replaceChildren();
  svg.dataset.game = gameName;
  svg.dataset.files = b.files;
  svg.dataset.ranks = b.ranks;
  const cell = 44, m = 30;
  const xiangqi = b.style === "xiangqi";
  const c4 = b.style === "connect4";
  const handRows = b.style === "squares" ? 1 : 0;
  const w = xiangqi ? (b.files - 1) * cell + 2 * m : b.files * cell + 2 * m;
  const hBoard = xiangqi ? (b.ranks - 1) * cell + 2 * m : b.ranks * cell + 2 * m;
  const top = handRows * cell;
  svg.setAttribute("viewBox", `0 0 ${w} ${hBoard + 2 * top}`);
  el("rect", { x: 0, y: 0, width: w, height: hBoard + 2 * top, fill: c4 ? "#1d4fa3" : "#e8c98f" }, svg);
  const pos = (f, r) => xiangqi ? [m + f * cell, top + m + r * cell] : [m + f * cell + cell / 2, top + m + r * cell + cell / 2];
  if (xiangqi) {
    const line = (x1, y1, x2, y2) => el("line", { x1, y1, x2, y2, stroke: "#5a3b1a", "stroke-width": 1.2 }, svg);
    for (let r = 0; r < b.ranks; r++) line(...pos(0, r), ...pos(b.files - 1, r));
    for (let f = 0; f < b.files; f++) {
      if (f === 0 || f === b.files - 1) { line(...pos(f, 0), ...pos(f, b.ranks - 1)); continue; }
      line(...pos(f, 0), ...pos(f, 4)); // the river cuts the inner files
      line(...pos(f, 5), ...pos(f, b.ranks - 1));
    }
    for (const [r0, r1] of [[0, 2], [7, 9]]) { // the palaces
      line(...pos(3, r0), ...pos(5, r1));
      line(...pos(5, r0), ...pos(3, r1));
    }
    const [, ry] = pos(0, 4.5);
    el("text", { x: w / 2, y: ry + 5, "text-anchor": "middle", "font-size": 14, fill: "#5a3b1a", class: "river" }, svg).textContent = "river";
  } else if (!c4) {
    for (let r = 0; r < b.ranks; r++) for (let f = 0; f < b.files; f++) {
      const [x, y] = pos(f, r);
      el("rect", { x: x - cell / 2, y: y - cell / 2, width: cell, height: cell, fill: (f + r) % 2 ? "#d9b77a" : "#f0dcae", stroke: "#5a3b1a" }, svg);
    }
  }
  for (let r = 0; r < b.ranks; r++) for (let f = 0; f < b.files; f++) {
    const piece = b.cells[r * b.files + f];
    const [x, y] = pos(f, r);
    const g = el("g", { class: "pt", "data-file": f, "data-rank": r, "data-piece": piece }, svg);
    if (c4) {
      const fill = piece === "X" ? "#d62828" : piece === "O" ? "#f7d83b" : "#f6f4ef";
      el("circle", { cx: x, cy: y, r: cell * 0.4, fill, stroke: "#0b2a5c" }, g);
      continue;
    }
    if (!piece) { el("circle", { cx: x, cy: y, r: 2, fill: "none" }, g); continue; }
    const first = piece === piece.toUpperCase();
    el("circle", { cx: x, cy: y, r: cell * 0.42, fill: "#fbf3df", stroke: first ? "#b22" : "#222", "stroke-width": 2 }, g);
    el("text", { x, y: y + 6, "text-anchor": "middle", "font-size": 18, "font-weight": "bold", fill: first ? "#b22" : "#222" }, g).textContent = piece.toUpperCase();
  }
  if (handRows) { // the second player's hand above, the first's below
    for (const [side, y] of [[1, top / 2], [0, hBoard + top + top / 2]]) {
      const hand = b.hands[side] || "";
      el("text", { x: 6, y: y + 5, "font-size": 12, class: "hand", "data-side": side }, svg).textContent =
        (side === 0 ? "first: " : "second: ") + (hand || "-");
    }
  }
  el("text", { x: w - 6, y: hBoard + 2 * top - 6, "text-anchor": "end", "font-size": 11, fill: c4 ? "#fff" : "#5a3b1a" }, svg).textContent =
    (b.side === 0 ? "first" : "second") + " to move";
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
  every(2000, refreshStatus);
  every(10000, refreshMatches);
  every(15000, refreshGameList);
  setupCharts().catch((e) => console.warn(e.message));
});
