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
  $("p-start-hint").textContent = {
    xiangqi: "a FEN, such as rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w",
    connect4: "the columns played from the empty board, such as 4453",
    lion: "the board, side to move, hands and move number, such as gle/1c1/1C1/ELG w - 1",
  }[g.name] || "";
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
  // Alpha-beta's strength: full, or limited to an Elo (then the Elo
  // alone bounds its search).
  const limited = kind === "ab" && $("p-strength").value === "elo";
  $("p-strength-row").hidden = kind !== "ab";
  $("p-elo").hidden = !limited;
  const g = choices.games.find((g) => g.name === $("p-game").value);
  $("p-elo-hint").hidden = !limited;
  $("p-elo-hint").textContent = limited && g ? "Elo: " + g.elo_scale : "";
  $("p-ab-row").hidden = kind === "net" || limited;
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
  if (kind === "ab" && $("p-strength").value === "elo") {
    req.elo = Number($("p-elo").value) || 0;
    req.eval = $("p-eval").value;
  } else if (kind !== "net") {
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
  const start = $("p-start").value.trim();
  if (start) req.position = start;
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

// turned overrides whether the board is turned (the Turn board button);
// null: turned when the person plays second.
let turned = null;

function show(st) {
  if (!state || state.id !== st.id) turned = null;
  const moved = !state || state.id !== st.id || state.position !== st.position;
  if (moved) { stopAnalysis(true); stopTruth(true); }
  state = st;
  document.body.classList.add("in-game");
  history.replaceState(null, "", "#" + st.id);
  $("p-title").textContent = `${gameTitle(st.game)}: you (${st.human}) vs ${st.engine}`;
  $("p-status").textContent = statusText(st);
  $("p-status").dataset.over = st.over ? "1" : "";
  $("p-undo").disabled = !st.replies.some((r) => r === null);
  drawPosition();
  drawEngine();
  drawMoves();
  $("p-saving").textContent = st.saved ? "saved to " + st.saved : st.save_error ? "not saved: " + st.save_error : "";
  $("p-position").value = st.position;
  if (moved) askTruth();
}

function gameTitle(name) {
  return { xiangqi: "Xiangqi", connect4: "Connect Four", lion: "Catch the Lion" }[name] || name;
}

// isTurned: the board is drawn from the second player's side.
function isTurned() {
  if (state.board.style === "connect4") return false;
  return turned === null ? state.human === "second" : turned;
}

// drawPosition draws the board with the last move, a check and a
// winning line marked, then the selection.
function drawPosition() {
  const st = state, b = st.board;
  const o = { flip: isTurned(), last: lastCells(st), maxHeight: 560 };
  if (st.in_check && b.style === "xiangqi") o.check = b.cells.indexOf(b.side === 0 ? "K" : "k");
  if (st.over && st.winner !== "draw" && b.style === "connect4") o.line = winLine(b);
  drawBoard($("p-board"), b, st.game, o);
  $("p-tools").hidden = false;
  $("p-flip").hidden = b.style === "connect4";
  $("p-latin-row").hidden = b.style !== "xiangqi";
  $("p-latin").checked = pieceStyle() === "latin";
  drawLegend();
  truthTools();
  if (truthShown && truthShown.id === st.id && truthShown.position === st.position) drawTruthMarks(truthShown.info);
  markSelection();
}

// cellOf is the index into board.cells of a square name (a1 at the
// bottom left of the unturned board).
function cellOf(sq) {
  const b = state.board;
  return (b.ranks - Number(sq.slice(1))) * b.files + sq.charCodeAt(0) - 97;
}

// lastCells are the cells the last move left and reached: a drop's
// square, a Connect Four column's top disc.
function lastCells(st) {
  const m = st.moves[st.moves.length - 1], b = st.board;
  if (!m) return [];
  if (b.style === "connect4") {
    const col = Number(m) - 1;
    for (let r = 0; r < b.ranks; r++) if (b.cells[r * b.files + col]) return [r * b.files + col];
    return [];
  }
  const drop = /^[A-Z]\*([a-z]\d+)$/.exec(m);
  if (drop) return [cellOf(drop[1])];
  const sq = parseSquares(m);
  return sq ? sq.map(cellOf) : [];
}

// provisional is the board after the person's legal move, drawn while
// the engine thinks (the server's board replaces it: a chick that
// reached the far rank shows as a hen then).
function provisional(move) {
  const b = structuredClone(state.board), human = humanSide();
  const piece = (p) => (human === 0 ? p.toUpperCase() : p.toLowerCase());
  if (b.style === "connect4") {
    const col = Number(move) - 1;
    for (let r = b.ranks - 1; r >= 0; r--) if (!b.cells[r * b.files + col]) { b.cells[r * b.files + col] = human === 0 ? "X" : "O"; break; }
    return b;
  }
  const drop = /^([A-Z])\*([a-z]\d+)$/.exec(move);
  if (drop) {
    b.cells[cellOf(drop[2])] = piece(drop[1]);
    b.hands[human] = b.hands[human].replace(piece(drop[1]), "");
    return b;
  }
  const [from, to] = parseSquares(move).map(cellOf);
  const taken = b.cells[to];
  if (taken && b.style === "squares") b.hands[human] += piece(taken === "h" || taken === "H" ? "c" : taken);
  b.cells[to] = b.cells[from];
  b.cells[from] = "";
  return b;
}

// endWords says in words what ended the game (the rules' reason).
function endWords(st) {
  const r = st.reason;
  if (r === "no legal moves" && st.game === "xiangqi") return st.in_check ? "checkmate" : "stalemate: the side with no move loses";
  return {
    "four in a row": "four in a row",
    "board full": "the board is full",
    "lion captured": "the lion was captured",
    "try": "a lion reached the far rank safely (a try)",
    "no legal move": "no legal move",
    "perpetual check": "perpetual check: the side giving it loses",
    "perpetual chase": "perpetual chase: the side chasing loses",
    "repetition": "the position repeated",
    "120 plies without capture": "sixty moves each without a capture",
    "no attacking material": "neither side has a piece that can attack",
    "ply cap": "the game reached its length limit",
  }[r] || r;
}

function statusText(st) {
  if (st.over) {
    const who = { human: "you win", engine: "the engine wins", draw: "a draw" }[st.winner];
    return `game over: ${who}, ${endWords(st)} (${st.result})`;
  }
  if (st.to_move !== "human") return "the engine is to move";
  return st.in_check ? "your move: you are in check" : `your move (you play ${st.human})`;
}

// drawMoves lists the moves in pairs, the person's and the engine's
// told apart.
function drawMoves() {
  const items = [];
  state.moves.forEach((m, i) => {
    if (i % 2 === 0) items.push(document.createElement("li"));
    const span = document.createElement("span");
    span.className = state.replies[i] ? "engine" : "you";
    span.textContent = m;
    span.title = state.replies[i] ? "the engine's move" : "your move";
    items[items.length - 1].append(span);
  });
  $("p-moves").replaceChildren(...items);
  $("p-moves").scrollTop = $("p-moves").scrollHeight;
}

// drawLegend shows how Catch the Lion's pieces move.
function drawLegend() {
  const box = $("p-legend");
  box.hidden = state.board.style !== "squares";
  if (box.hidden) { box.replaceChildren(); return; }
  box.replaceChildren(...Object.entries(LION_PIECES).map(([letter, kind]) => {
    const fig = document.createElement("figure");
    const svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("viewBox", "0 0 44 44");
    lionTile(svg, 22, 22, 44, letter, false);
    const cap = document.createElement("figcaption");
    cap.innerHTML = `<b>${kind.name}</b> ${kind.how}`;
    fig.append(svg, cap);
    return fig;
  }));
}

// drawEngine shows the engine's last reply: its top moves and value.
function drawEngine() {
  const box = $("p-engine");
  const r = [...state.replies].reverse().find((r) => r);
  if (!r) { box.replaceChildren(); return; }
  const head = document.createElement("div");
  head.id = "p-engine-summary";
  const visits = r.kind === "net" || r.kind === "abzero";
  const value = r.value === undefined || r.value === null ? "" : `value ${r.value >= 0 ? "+" : ""}${r.value.toFixed(2)}${wdlText(r.wdl)} for the engine, `;
  const random = r.random ? " (drawn at random: the strength limit plays some random moves)" : "";
  head.textContent = r.kind === "net"
    ? `engine played ${r.move}: ${value}${r.simulations} simulations, ${r.ms} ms`
    : r.kind === "abzero"
      ? `engine played ${r.move}: blended score ${r.score}, depth ${r.depth}, ${r.nodes} nodes; network ${value}${r.simulations} simulations; ${r.ms} ms`
      : `engine played ${r.move}${random}: score ${r.score} for the engine, depth ${r.depth}, ${r.nodes} nodes, ${r.ms} ms`;
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


// --- exact values ------------------------------------------------------------

// The solved games' exact truth beside the engine: each legal move's value
// with best play ("wins in 7", "draws", "loses in 12", in plies), from
// Connect Four's solver or Catch the Lion's tablebase, when the person
// turns "exact values" on.

let truth = null;      // the running request's AbortController
let truthShown = null; // {id, position, info}: what the panel shows

function truthChoice() {
  const g = choices && state ? choices.games.find((g) => g.name === state.game) : null;
  return g || { truth: false };
}

function truthWanted() {
  try { return localStorage.getItem("tabula.truth") === "on"; } catch (e) { return false; }
}

// truthTools offers the toggle where the server has the game's truth, and
// says how to get it where it has not.
function truthTools() {
  const g = truthChoice();
  $("p-truth-row").hidden = !g.truth;
  $("p-truth-on").checked = g.truth && truthWanted();
  $("p-truth-hint").hidden = g.truth || !g.truth_hint;
  $("p-truth-hint").textContent = g.truth ? "" : g.truth_hint || "";
}

// askTruth asks for the position's exact values when they are wanted and
// it is the person's move; ms bounds the solve (the server's default
// when not given).
async function askTruth(ms) {
  if (!state || !truthChoice().truth || !$("p-truth-on").checked || state.over || state.to_move !== "human") return;
  stopTruth(false);
  const ctl = new AbortController(), id = state.id, position = state.position;
  truth = ctl;
  $("p-truth").hidden = false;
  if (!truthShown || truthShown.position !== position) $("p-truth").textContent = "solving...";
  try {
    await streamEvents(`api/play/games/${id}/truth${ms ? "?ms=" + ms : ""}`, ctl.signal, (ev, d) => {
      if (ev === "truth" && truth === ctl && state.id === id && state.position === position) drawTruth(d);
    });
  } catch (e) {
    if (e.name !== "AbortError" && truth === ctl) $("p-truth").textContent = "exact values: " + e.message;
  } finally {
    if (truth === ctl) truth = null;
  }
}

// stopTruth stops the running request (the person moved on); clear also
// hides what it showed.
function stopTruth(clear) {
  if (truth) truth.abort();
  truth = null;
  if (clear) {
    truthShown = null;
    $("p-truth").hidden = true;
    $("p-truth").replaceChildren();
    for (const h of $("p-board").querySelectorAll(".truth-mark")) h.remove();
  }
}

// drawTruth shows what is known: every legal move's value, the best
// marked in the list and on the board, or how far a solve got.
function drawTruth(d) {
  truthShown = { id: state.id, position: state.position, info: d };
  const head = document.createElement("div");
  head.id = "p-truth-summary";
  const from = d.source === "tablebase" ? "the tablebase" : "the solver";
  const n = d.moves.length;
  if (d.value) head.textContent = `exact values (${from}): you ${d.value.replace(/^(\w+)s\b/, "$1")} with best play`;
  else if (!d.done) head.textContent = `solving: ${d.solved} of ${n} moves solved, ${(d.ms / 1000).toFixed(1)} s`;
  else head.textContent = `not solved: ${d.solved} of ${n} moves solved in ${(d.ms / 1000).toFixed(1)} s` + (d.stopped ? ` (stopped by ${d.stopped})` : "");
  const parts = [head];
  if (d.done && d.solved < n) {
    const more = document.createElement("button");
    more.type = "button";
    more.id = "p-truth-more";
    more.textContent = "Solve for 30 s";
    more.onclick = () => askTruth(30000);
    parts.push(more);
  }
  const table = document.createElement("table");
  table.id = "p-truth-moves";
  const tr = document.createElement("tr");
  for (const c of ["move", "exact value"]) { const th = document.createElement("th"); th.textContent = c; tr.append(th); }
  table.append(tr);
  for (const m of d.moves) {
    const row = document.createElement("tr");
    if (m.best) row.className = "best";
    const a = document.createElement("td"), v = document.createElement("td");
    a.textContent = m.move + (m.best ? " \u2605" : "");
    v.textContent = m.solved ? m.words : d.done ? "not solved" : "solving...";
    if (m.outcome === "loss") v.className = "loss";
    row.append(a, v);
    table.append(row);
  }
  parts.push(table);
  const note = document.createElement("div");
  note.className = "note";
  note.textContent = "in plies to the end, each side's move one, the winner hurrying and the loser delaying" + (d.note ? "; " + d.note : "");
  parts.push(note);
  $("p-truth").hidden = false;
  $("p-truth").replaceChildren(...parts);
  drawTruthMarks(d);
}

// drawTruthMarks marks the best moves on the board.
function drawTruthMarks(d) {
  for (const h of $("p-board").querySelectorAll(".truth-mark")) h.remove();
  for (const m of d.moves) if (m.best) drawArrow(m.move, "#15803d", "truth-mark");
}

// --- analysis --------------------------------------------------------------

let analysis = null; // the running analysis's AbortController

// analyse asks the game's engine to think about the position (the game
// stays as it is) and shows what it sees as it goes: the server's
// Server-Sent Events, read from a fetch so that a refusal's reason shows.
async function analyse() {
  if (!state) return;
  if (state.over) { showError("the game is over: nothing to analyse"); return; }
  stopAnalysis(false);
  const ctl = new AbortController(), id = state.id;
  analysis = ctl;
  showError("");
  $("p-analysis").hidden = false;
  $("p-analysis").textContent = "the engine is thinking...";
  $("p-analyse").textContent = "Stop";
  try {
    await streamEvents(`api/play/games/${id}/analyse?ms=${$("p-analyse-ms").value}`, ctl.signal, (ev, d) => {
      if (ev === "info" && analysis === ctl && state.id === id) drawAnalysis(d);
    });
  } catch (e) {
    if (e.name !== "AbortError") showError("analysis: " + e.message);
  } finally {
    if (analysis === ctl) {
      analysis = null;
      $("p-analyse").textContent = "Analyse";
    }
  }
}

// streamEvents reads the server's Server-Sent Events from a fetch (so
// that a refusal's JSON reason shows), calling on(event, data) for each;
// an "error" event throws its reason.
async function streamEvents(url, signal, on) {
  const r = await fetch(url, { cache: "no-store", signal });
  if (!r.ok) {
    let d = null;
    try { d = await r.json(); } catch (e) { d = null; }
    throw new Error((d && d.error) || `${r.status} ${r.statusText}`);
  }
  const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += value;
    for (let i; (i = buf.indexOf("\n\n")) >= 0;) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + 2);
      let ev = "message", data = "";
      for (const line of block.split("\n")) {
        if (line.startsWith("event: ")) ev = line.slice(7);
        else if (line.startsWith("data: ")) data += line.slice(6);
      }
      if (!data) continue;
      const d = JSON.parse(data);
      if (ev === "error") throw new Error(d.error);
      on(ev, d);
    }
  }
}

// stopAnalysis stops the running analysis; clear also hides what it
// showed (the position changed).
function stopAnalysis(clear) {
  if (analysis) analysis.abort();
  analysis = null;
  $("p-analyse").textContent = "Analyse";
  if (clear) {
    $("p-analysis").hidden = true;
    $("p-analysis").replaceChildren();
    for (const h of $("p-board").querySelectorAll(".hint")) h.remove();
  }
}

// wdlText is a network's win, draw and loss in percent, "" without the
// WDL head.
function wdlText(wdl) {
  return wdl ? ` (win ${(100 * wdl[0]).toFixed(0)}%, draw ${(100 * wdl[1]).toFixed(0)}%, loss ${(100 * wdl[2]).toFixed(0)}%)` : "";
}

// drawAnalysis shows one report of the analysis: the search's size and
// value, its best moves and line, the best move as an arrow on the board.
function drawAnalysis(d) {
  const head = document.createElement("div");
  head.id = "p-analysis-summary";
  const side = "for the side to move";
  const what = d.done ? "analysed" : "thinking";
  head.textContent = d.kind === "net"
    ? `${what}: ${d.simulations} simulations, value ${d.value >= 0 ? "+" : ""}${(d.value || 0).toFixed(2)}${wdlText(d.wdl)} ${side}, ${d.ms} ms`
    : `${what}: depth ${d.depth}, score ${d.score} ${side}, ${d.nodes} nodes, ${d.ms} ms`;
  if (d.stopped) head.textContent += ` (stopped by ${d.stopped})`;
  const table = document.createElement("table");
  table.id = "p-analysis-top";
  const visits = d.kind === "net";
  const cols = visits ? ["move", "visits", "share", "prior"] : ["move", "score"];
  const tr = document.createElement("tr");
  for (const c of cols) { const th = document.createElement("th"); th.textContent = c; tr.append(th); }
  table.append(tr);
  for (const t of d.top || []) {
    const row = document.createElement("tr");
    const vals = visits
      ? [t.move, t.visits || 0, (100 * (t.share || 0)).toFixed(1) + "%", (100 * (t.prior || 0)).toFixed(1) + "%"]
      : [t.move, t.score];
    vals.forEach((v, k) => {
      const td = document.createElement("td");
      td.textContent = v;
      if (visits && k === 2) td.style.background = `linear-gradient(90deg, #bcd4f6 ${100 * (t.share || 0)}%, transparent 0)`;
      row.append(td);
    });
    table.append(row);
  }
  const pv = document.createElement("div");
  pv.textContent = d.pv && d.pv.length ? "line: " + d.pv.join(" ") : "";
  $("p-analysis").replaceChildren(head, table, pv);
  drawHint(d.pv && d.pv[0] ? d.pv[0] : d.top && d.top[0] ? d.top[0].move : "");
}

// drawHint draws a move on the board as an arrow (a ring where a drop or
// a Connect Four disc lands).
function drawHint(move) {
  for (const h of $("p-board").querySelectorAll(".hint")) h.remove();
  if (move) drawArrow(move, "#7c3aed", "hint");
}

// drawArrow draws move as an arrow of color (a ring where a drop or a
// Connect Four disc lands), its elements of class cls.
function drawArrow(move, color, cls) {
  const svg = $("p-board");
  const b = state.board;
  const at = (i) => {
    const g = svg.querySelector(`.pt[data-file="${i % b.files}"][data-rank="${Math.floor(i / b.files)}"]`);
    return g ? [Number(g.dataset.x), Number(g.dataset.y)] : null;
  };
  let from = null, to = null;
  if (b.style === "connect4") {
    const col = Number(move) - 1;
    for (let r = b.ranks - 1; r >= 0; r--) if (!b.cells[r * b.files + col]) { to = at(r * b.files + col); break; }
  } else if (move.includes("*")) {
    to = at(cellOf(move.slice(2)));
  } else {
    const sq = parseSquares(move);
    if (sq) [from, to] = sq.map((s) => at(cellOf(s)));
  }
  if (!to) return;
  if (!from) {
    el("circle", { cx: to[0], cy: to[1], r: b.style === "connect4" ? 18 : 14, fill: "none", stroke: color, "stroke-width": 4, opacity: 0.85, class: cls, "pointer-events": "none" }, svg);
    return;
  }
  const head = "p-arrowhead-" + cls;
  if (!svg.querySelector("#" + head)) {
    const defs = el("defs", {}, svg);
    const mk = el("marker", { id: head, viewBox: "0 0 10 10", refX: 5, refY: 5, markerWidth: 3.2, markerHeight: 3.2, orient: "auto-start-reverse" }, defs);
    el("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: color }, mk);
  }
  // Stop short of the target's centre, so that the head sits on it.
  const len = Math.hypot(to[0] - from[0], to[1] - from[1]), k = Math.max(0, (len - 10) / len);
  el("line", { x1: from[0], y1: from[1], x2: from[0] + (to[0] - from[0]) * k, y2: from[1] + (to[1] - from[1]) * k, stroke: color, "stroke-width": 6,
    "stroke-linecap": "round", opacity: 0.75, "marker-end": `url(#${head})`, class: cls, "pointer-events": "none" }, svg);
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

function humanSide() { return state.human === "first" ? 0 : 1; }

// markSelection marks the selected piece (or piece in hand) and the
// points its legal moves reach: a dot on an empty one, a ring round a
// piece it takes.
function markSelection() {
  const svg = $("p-board");
  for (const t of svg.querySelectorAll(".target, .sel")) t.remove();
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
  const size = state.board.style === "xiangqi" ? 40 : 64;
  const ring = (x, y, r, cls) => el("circle", { cx: x, cy: y, r, class: cls }, svg);
  for (const g of svg.querySelectorAll(".pt")) {
    const sq = squareName(+g.dataset.file, +g.dataset.rank), x = g.dataset.x, y = g.dataset.y;
    if (sq === selected) ring(x, y, size * 0.5, "sel");
    if (targets.has(sq)) ring(x, y, g.dataset.piece ? size * 0.47 : size * 0.14, g.dataset.piece ? "target capture" : "target");
  }
  for (const g of svg.querySelectorAll(".hand-pc")) {
    if (selected === g.dataset.letter + "*" && +g.dataset.side === humanSide()) ring(g.dataset.x, g.dataset.y, 28, "sel");
  }
}

function clicked(e) {
  if (!state || busy) return;
  const hand = e.target.closest(".hand-pc");
  const g = e.target.closest(".pt");
  if (!hand && !g) return;
  if (state.over) { showError("the game is over: start a new game or take back a move"); return; }
  if (hand) {
    if (+hand.dataset.side !== humanSide()) { showError("those are the engine's pieces in hand"); return; }
    const drop = hand.dataset.letter + "*";
    selected = selected === drop ? null : drop;
    showError("");
    markSelection();
    return;
  }
  const f = +g.dataset.file, r = +g.dataset.rank;
  if (state.board.style === "connect4") { play(String(f + 1)); return; }
  const sq = squareName(f, r);
  const piece = state.board.cells[r * state.board.files + f];
  if (selected && selected.endsWith("*")) { play(selected + sq); return; }
  if (selected === sq) { selected = null; markSelection(); return; }
  if (own(piece)) { selected = sq; showError(""); markSelection(); return; }
  if (selected) { play(selected + sq); return; }
  showError(piece ? "that is the engine's piece: choose one of your own first" : "choose one of your own pieces first");
}

async function play(move) {
  if (state.to_move !== "human") { showError("it is not your turn"); return; }
  stopAnalysis(true);
  stopTruth(true);
  busy = true;
  showError("");
  $("p-status").textContent = `you played ${move}; the engine is thinking...`;
  try {
    selected = null;
    // A legal move shows at once, before the engine's reply comes back.
    if (state.legal.includes(move)) drawBoard($("p-board"), provisional(move), state.game, { flip: isTurned(), last: lastCells({ moves: [move], board: provisional(move) }), maxHeight: 560 });
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
  $("p-game").replaceChildren(...choices.games.map((g) => new Option(gameTitle(g.name), g.name)));
  // A Play-only server has no dashboard: the link would come back here.
  $("dashboard-link").hidden = !choices.dashboard;
  $("p-sims").value = choices.default_sims;
  $("p-ab-value").value = choices.default_depth;
  $("p-m").value = choices.default_m;
  $("p-elo").min = choices.min_elo;
  $("p-elo").max = choices.max_elo;
  $("p-elo").value = 200;
  $("p-strength").onchange = opponentChanged;
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
  $("p-flip").onclick = () => {
    if (!state) return;
    turned = !isTurned();
    drawPosition();
  };
  $("p-analyse").onclick = () => (analysis ? stopAnalysis(false) : analyse());
  $("p-truth-on").onchange = () => {
    try { localStorage.setItem("tabula.truth", $("p-truth-on").checked ? "on" : "off"); } catch (e) { /* private mode: this page only */ }
    if ($("p-truth-on").checked) askTruth(); else stopTruth(true);
  };
  $("p-latin").onchange = () => {
    try { localStorage.setItem("tabula.pieces", $("p-latin").checked ? "latin" : "traditional"); } catch (e) { /* private mode: this page only */ }
    if (state) drawPosition();
  };
  fillOpponents();
  if (location.hash.length > 1) resume(location.hash.slice(1));
});
