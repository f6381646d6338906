// The Play page: a person plays a game against a network, alpha-beta or
// the blend of both (Alpha-Beta-Zero).
// The server keeps the game and checks every move; this page draws the
// board (drawBoard, board.js), turns clicks into moves in the game's
// notation and shows the engine's search after each reply.
"use strict";

const $ = (id) => document.getElementById(id);

let choices = null;  // /api/play/options
let state = null;    // the game (PlayState)
let selected = null; // a square name, or a piece letter to drop ("C*")
let busy = false;

async function api(method, url, body) {
  const init = { method, cache: "no-store" };
  if (body !== undefined) {
    init.headers = { "Content-Type": "application/json" };
    init.body = JSON.stringify(body);
  }
  const r = await fetch(url, init);
  let data = null;
  try { data = await r.json(); } catch (e) { data = null; }
  if (!r.ok) throw new Error((data && data.error) || `${r.status} ${r.statusText}`);
  return data;
}

function showError(msg) {
  $("p-error").textContent = msg || "";
  $("p-error").hidden = !msg;
}

// --- setup ---------------------------------------------------------------

function fillOpponents() {
  const g = choices.games.find((g) => g.name === $("p-game").value);
  const offers = (k) => (g.opponents || []).includes(k);
  const opts = [];
  if (offers("ab")) opts.push(new Option("alpha-beta", "ab"));
  for (const kind of ["net", "abzero"]) {
    if (!offers(kind)) continue;
    const what = kind === "net" ? "network" : "Alpha-Beta-Zero";
    for (const n of g.networks) opts.push(new Option(what + ": " + n.label, kind + ":" + n.path));
    if (choices.named_networks) opts.push(new Option(what + ": a file or run directory...", kind + ":"));
  }
  $("p-opponent").replaceChildren(...opts);
  // Alpha-beta's evaluations for the game, the default first (Xiangqi's
  // learned one, or the game's own alone).
  const label = { learned: "learned (NNUE)", classical: "hand-written" };
  $("p-eval").replaceChildren(...g.evals.map((e) => new Option(label[e] || e, e)));
  opponentChanged();
}

// opponentKind is the kind of the opponent chosen: ab, net or abzero.
function opponentKind() {
  const v = $("p-opponent").value;
  return v === "ab" ? "ab" : v.slice(0, v.indexOf(":"));
}

function opponentChanged() {
  const v = $("p-opponent").value, kind = opponentKind();
  $("p-path-row").hidden = v !== kind + ":";
  $("p-sims-row").hidden = kind === "ab";
  $("p-ab-row").hidden = kind === "net";
  // The blend searches to a depth: no time per move.
  if (kind === "abzero" && $("p-ab-limit").value === "time") {
    $("p-ab-limit").value = "depth";
    $("p-ab-value").value = choices.default_depth;
  }
  $("p-ab-limit").disabled = kind === "abzero";
  $("p-m-row").hidden = kind !== "abzero";
  $("p-eval-row").hidden = kind === "net" || $("p-eval").options.length < 2;
  limitsChanged();
}

// limitsChanged sets the inputs' ranges to what the server accepts.
function limitsChanged() {
  $("p-sims").max = choices.max_sims;
  const time = $("p-ab-limit").value === "time";
  $("p-ab-value").min = time ? choices.min_movetime_ms : 1;
  $("p-ab-value").max = time ? choices.max_movetime_ms : choices.max_depth[$("p-game").value];
}

function newGameRequest() {
  const req = { game: $("p-game").value, side: $("p-side").value };
  const v = $("p-opponent").value, kind = opponentKind();
  req.opponent = kind;
  if (kind !== "net") {
    const n = Number($("p-ab-value").value) || 0;
    if ($("p-ab-limit").value === "time") req.movetime_ms = n; else req.depth = n;
    req.eval = $("p-eval").value;
  }
  if (kind !== "ab") {
    const path = v.slice(kind.length + 1);
    req.network = path === "" ? $("p-path").value : path;
    req.sims = Number($("p-sims").value) || 0;
  }
  if (kind === "abzero" && $("p-m").value !== "") req.m = Number($("p-m").value);
  return req;
}

async function newGame() {
  showError("");
  selected = null;
  busy = true;
  $("p-status").textContent = "starting...";
  try {
    show(await api("POST", "api/play/new", newGameRequest()));
  } catch (e) {
    showError(e.message);
    $("p-status").textContent = state ? statusText(state) : "";
  } finally {
    busy = false;
  }
}

// --- the game --------------------------------------------------------------

function show(st) {
  state = st;
  history.replaceState(null, "", "#" + st.id);
  $("p-title").textContent = `${st.game}: you (${st.human}) vs ${st.engine}`;
  $("p-status").textContent = statusText(st);
  $("p-status").dataset.over = st.over ? "1" : "";
  $("p-undo").disabled = !st.replies.some((r) => r === null);
  drawBoard($("p-board"), st.board, st.game);
  markSelection();
  drawHand();
  drawEngine();
  $("p-moves").replaceChildren(...st.moves.map((m, i) => {
    const li = document.createElement("li");
    li.textContent = (st.replies[i] ? "engine " : "you ") + m;
    return li;
  }));
  $("p-saving").textContent = st.saved ? "saved to " + st.saved : st.save_error ? "not saved: " + st.save_error : "";
}

function statusText(st) {
  if (st.over) {
    const who = { human: "you win", engine: "the engine wins", draw: "draw" }[st.winner];
    return `game over: ${who} (${st.reason}), ${st.result}`;
  }
  return st.to_move === "human" ? `your move (${st.human})` : "the engine is to move";
}

// drawEngine shows the engine's last reply: its top moves and value.
function drawEngine() {
  const box = $("p-engine");
  const r = [...state.replies].reverse().find((r) => r);
  if (!r) { box.replaceChildren(); return; }
  const head = document.createElement("div");
  head.id = "p-engine-summary";
  const visits = r.kind === "net" || r.kind === "abzero";
  const value = r.value === undefined || r.value === null ? "" : `value ${r.value >= 0 ? "+" : ""}${r.value.toFixed(2)} for the engine, `;
  head.textContent = r.kind === "net"
    ? `engine played ${r.move}: ${value}${r.simulations} simulations, ${r.ms} ms`
    : r.kind === "abzero"
      ? `engine played ${r.move}: blended score ${r.score}, depth ${r.depth}, ${r.nodes} nodes; network ${value}${r.simulations} simulations; ${r.ms} ms`
      : `engine played ${r.move}: score ${r.score} for the engine, depth ${r.depth}, ${r.nodes} nodes, ${r.ms} ms`;
  if (r.stopped) head.textContent += ` (stopped by ${r.stopped})`;
  const table = document.createElement("table");
  table.id = "p-top";
  const cols = visits ? ["move", "visits", "share", "prior"] : ["move", "score"];
  const tr = document.createElement("tr");
  for (const c of cols) { const th = document.createElement("th"); th.textContent = c; tr.append(th); }
  table.append(tr);
  for (const t of r.top || []) {
    const row = document.createElement("tr");
    const vals = visits
      ? [t.move, t.visits || 0, (100 * (t.share || 0)).toFixed(1) + "%", (100 * (t.prior || 0)).toFixed(1) + "%"]
      : [t.move, t.score];
    for (const v of vals) { const td = document.createElement("td"); td.textContent = v; row.append(td); }
    table.append(row);
  }
  const pv = document.createElement("div");
  pv.textContent = r.pv && r.pv.length ? "expected line: " + r.pv.join(" ") : "";
  box.replaceChildren(head, table, pv);
}

// Square names: files a, b, ... from the left; ranks from 1 at the bottom.
function squareName(f, r) {
  return String.fromCharCode(97 + f) + (state.board.ranks - r);
}

function parseSquares(m) {
  const x = /^([a-z])(\d+)([a-z])(\d+)$/.exec(m);
  return x ? [x[1] + x[2], x[3] + x[4]] : null;
}

function own(piece) {
  return piece !== "" && (piece === piece.toUpperCase()) === (state.human === "first");
}

function markSelection() {
  const svg = $("p-board");
  for (const t of svg.querySelectorAll(".target")) t.remove();
  for (const g of svg.querySelectorAll(".pt.selected")) g.classList.remove("selected");
  if (!selected || state.board.style === "connect4") return;
  const targets = new Set();
  for (const m of state.legal) {
    if (selected.endsWith("*")) {
      if (m.startsWith(selected)) targets.add(m.slice(2));
    } else {
      const sq = parseSquares(m);
      if (sq && sq[0] === selected) targets.add(sq[1]);
    }
  }
  for (const g of svg.querySelectorAll(".pt")) {
    const sq = squareName(+g.dataset.file, +g.dataset.rank);
    if (sq === selected) g.classList.add("selected");
    if (targets.has(sq)) {
      const c = g.querySelector("circle");
      el("circle", { cx: c.getAttribute("cx"), cy: c.getAttribute("cy"), r: 7, class: "target" }, svg);
    }
  }
}

// drawHand offers the person's pieces in hand (Catch the Lion) to drop.
function drawHand() {
  const box = $("p-hand");
  const side = state.human === "first" ? 0 : 1;
  const hand = state.board.hands ? state.board.hands[side] || "" : "";
  box.replaceChildren(...[...new Set(hand)].map((p) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "drop";
    b.dataset.letter = p.toUpperCase();
    b.textContent = "drop " + p.toUpperCase();
    b.classList.toggle("selected", selected === p.toUpperCase() + "*");
    b.onclick = () => {
      selected = selected === b.dataset.letter + "*" ? null : b.dataset.letter + "*";
      drawHand();
      markSelection();
    };
    return b;
  }));
}

function clicked(e) {
  const g = e.target.closest(".pt");
  if (!g || !state || busy) return;
  if (state.over) { showError("the game is over: start a new game or take back a move"); return; }
  const f = +g.dataset.file, r = +g.dataset.rank;
  if (state.board.style === "connect4") { play(String(f + 1)); return; }
  const sq = squareName(f, r);
  const piece = state.board.cells[r * state.board.files + f];
  if (selected && selected.endsWith("*")) { play(selected + sq); return; }
  if (selected === sq) { selected = null; markSelection(); return; }
  if (own(piece)) { selected = sq; showError(""); drawHand(); markSelection(); return; }
  if (selected) { play(selected + sq); return; }
  showError("choose one of your own pieces first");
}

async function play(move) {
  if (state.to_move !== "human") { showError("it is not your turn"); return; }
  busy = true;
  showError("");
  $("p-status").textContent = `you played ${move}; the engine is thinking...`;
  try {
    selected = null;
    show(await api("POST", `api/play/games/${state.id}/move`, { move }));
  } catch (e) {
    showError(e.message);
    $("p-status").textContent = statusText(state);
    markSelection();
  } finally {
    busy = false;
  }
}

async function undo() {
  if (!state || busy) return;
  busy = true;
  try {
    selected = null;
    show(await api("POST", `api/play/games/${state.id}/undo`));
    showError("");
  } catch (e) {
    showError(e.message);
  } finally {
    busy = false;
  }
}

// resume shows the game of the page's address (#ID), if the server has it.
async function resume(id) {
  try {
    let st = await api("GET", `api/play/games/${id}`);
    if (st.to_move === "engine") st = await api("POST", `api/play/games/${id}/reply`);
    show(st);
    $("p-game").value = st.game;
    fillOpponents();
  } catch (e) {
    showError(e.message);
  }
}

document.addEventListener("DOMContentLoaded", async () => {
  try {
    choices = await api("GET", "api/play/options");
  } catch (e) {
    showError(e.message);
    return;
  }
  $("p-game").replaceChildren(...choices.games.map((g) => new Option(g.name, g.name)));
  $("p-sims").value = choices.default_sims;
  $("p-ab-value").value = choices.default_depth;
  $("p-m").value = choices.default_m;
  $("p-saving").textContent = choices.saving ? "" : "finished games are not saved (no records directory)";
  $("p-game").onchange = fillOpponents;
  $("p-opponent").onchange = opponentChanged;
  $("p-ab-limit").onchange = () => {
    $("p-ab-value").value = $("p-ab-limit").value === "time" ? 1000 : choices.default_depth;
    limitsChanged();
  };
  $("setup").onsubmit = (e) => { e.preventDefault(); if (!busy) newGame(); };
  $("p-undo").onclick = undo;
  $("p-board").addEventListener("click", clicked);
  fillOpponents();
  if (location.hash.length > 1) resume(location.hash.slice(1));
});
