// drawBoard draws a game.Board as SVG: the dashboard's replays and live
// games, and the Play page.
"use strict";

const SVG = "http://www.w3.org/2000/svg";

function el(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.append(e);
  return e;
}

// Xiangqi's traditional pieces by FEN letter: Red's (upper case) and
// Black's characters differ for five of the seven kinds.
const XIANGQI_CHARS = {
  K: "帥", A: "仕", B: "相", R: "俥", N: "傌", C: "炮", P: "兵",
  k: "將", a: "士", b: "象", r: "車", n: "馬", c: "砲", p: "卒",
};
const XIANGQI_NAMES = { K: "general", A: "advisor", B: "elephant", R: "chariot", N: "horse", C: "cannon", P: "soldier" };

// Catch the Lion's pieces: name and steps as [ranks forward, files to
// the owner's right].
const LION_PIECES = {
  L: { name: "lion", steps: [[1, -1], [1, 0], [1, 1], [0, -1], [0, 1], [-1, -1], [-1, 0], [-1, 1]], how: "one step in any direction" },
  G: { name: "giraffe", steps: [[1, 0], [0, -1], [0, 1], [-1, 0]], how: "one step along a rank or file" },
  E: { name: "elephant", steps: [[1, -1], [1, 1], [-1, -1], [-1, 1]], how: "one step diagonally" },
  C: { name: "chick", steps: [[1, 0]], how: "one step forward; it becomes a hen on the far rank" },
  H: { name: "hen", steps: [[1, -1], [1, 0], [1, 1], [0, -1], [0, 1], [-1, 0]], how: "one step in any direction but diagonally back" },
};

const CJK_FONT = "'Noto Serif CJK TC', 'Noto Serif CJK SC', 'Noto Sans CJK TC', 'Songti TC', 'SimSun', 'Droid Sans Fallback', serif";

// pieceStyle is how Xiangqi's pieces are written: "traditional"
// (characters) or "latin" (FEN letters), as the person chose last.
function pieceStyle() {
  try { return localStorage.getItem("tabula.pieces") === "latin" ? "latin" : "traditional"; } catch (e) { return "traditional"; }
}

// winLine finds a Connect Four board's four (or more) in a row: the
// cells' indices, or null.
function winLine(b) {
  const at = (f, r) => (f >= 0 && f < b.files && r >= 0 && r < b.ranks ? b.cells[r * b.files + f] : "");
  for (let r = 0; r < b.ranks; r++) for (let f = 0; f < b.files; f++) {
    const p = at(f, r);
    if (!p) continue;
    for (const [df, dr] of [[1, 0], [0, 1], [1, 1], [1, -1]]) {
      if (at(f - df, r - dr) === p) continue; // not the line's first cell
      const line = [];
      for (let k = 0; at(f + k * df, r + k * dr) === p; k++) line.push((r + k * dr) * b.files + f + k * df);
      if (line.length >= 4) return line;
    }
  }
  return null;
}

// lionTile draws a Catch the Lion piece at (x, y), size s: its letter
// and a dot for each step, pointing the way its owner (first: up unless
// turned) moves. Its title says how it moves.
function lionTile(parent, x, y, s, piece, turned) {
  const first = piece === piece.toUpperCase();
  const kind = LION_PIECES[piece.toUpperCase()];
  const ink = first ? "#a8231b" : "#1f2f46";
  const g = el("g", { class: "tile" }, parent);
  el("title", {}, g).textContent = `${kind ? kind.name : piece} (${first ? "first" : "second"} player): ${kind ? kind.how : ""}`;
  el("rect", { x: x - s * 0.44, y: y - s * 0.44, width: s * 0.88, height: s * 0.88, rx: s * 0.12, fill: first ? "#fff4e6" : "#eaf1fb", stroke: ink, "stroke-width": 2 }, g);
  el("text", { x, y, "text-anchor": "middle", "dominant-baseline": "central", "font-size": s * 0.38, "font-weight": "bold", fill: ink, "font-family": "sans-serif" }, g).textContent = piece.toUpperCase();
  // The owner's forward is up on the screen for the player at the bottom.
  const up = first !== !!turned ? -1 : 1;
  for (const [fwd, right] of kind ? kind.steps : []) {
    el("circle", { cx: x - up * right * s * 0.33, cy: y + up * fwd * s * 0.33, r: s * 0.05, fill: ink, class: "step" }, g);
  }
  return g;
}

// drawBoard draws a game.Board: every point or square gets one element
// of class "pt" (data-file, data-rank from the top of the unturned board,
// data-piece, data-x and data-y its centre), pieces on top. Options:
// flip turns the board (the second player at the bottom); last lists the
// last move's cells (indices into b.cells); check is the cell of a
// general in check; line the cells of a winning line; maxHeight bounds
// the drawing's height in pixels; style "latin" writes Xiangqi's pieces
// as letters.
function drawBoard(svg, b, gameName, o = {}) {
  svg.replaceChildren();
  svg.dataset.game = gameName;
  svg.dataset.files = b.files;
  svg.dataset.ranks = b.ranks;
  const xiangqi = b.style === "xiangqi", c4 = b.style === "connect4", squares = !xiangqi && !c4;
  const flip = !!o.flip && !c4;
  svg.dataset.flipped = flip ? "1" : "";
  const last = new Set(o.last || []), line = new Set(o.line || []);
  const style = o.style || pieceStyle();
  // Geometry: cell size, the margin round the grid (coordinates go in
  // it), the hands' rows (Catch the Lion) above and below.
  // pad: the margins left, right, above and below (the rank numbers
  // left, the file letters below).
  const cell = xiangqi ? 40 : c4 ? 56 : 64;
  const pad = xiangqi ? [40, 24, 24, 40] : c4 ? [16, 16, 16, 28] : [28, 12, 8, 28];
  const hand = squares ? 48 : 0;
  const gridW = xiangqi ? (b.files - 1) * cell : b.files * cell;
  const gridH = xiangqi ? (b.ranks - 1) * cell : b.ranks * cell;
  const w = gridW + pad[0] + pad[1], h = gridH + pad[2] + pad[3] + 2 * hand;
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  if (o.maxHeight) svg.style.maxWidth = `min(100%, ${Math.round(o.maxHeight * w / h)}px)`;
  const m = pad[0], top = pad[2] + hand;
  // pos is the centre of the point or square at file f, rank r (from
  // the top of the unturned board).
  const pos = (f, r) => {
    const df = flip ? b.files - 1 - f : f, dr = flip ? b.ranks - 1 - r : r;
    return xiangqi ? [m + df * cell, top + dr * cell] : [m + df * cell + cell / 2, top + dr * cell + cell / 2];
  };
  const ink = "#5a3b1a";
  el("rect", { x: 0, y: 0, width: w, height: h, rx: 6, fill: c4 ? "#1d4fa3" : xiangqi ? "#e9c88c" : "#efe2c4" }, svg);

  if (xiangqi) {
    const ln = (x1, y1, x2, y2, sw = 1.2) => el("line", { x1, y1, x2, y2, stroke: ink, "stroke-width": sw }, svg);
    el("rect", { x: m - 4, y: top - 4, width: gridW + 8, height: gridH + 8, fill: "none", stroke: ink, "stroke-width": 2.4 }, svg);
    for (let r = 0; r < b.ranks; r++) ln(...pos(0, r), ...pos(b.files - 1, r));
    for (let f = 0; f < b.files; f++) {
      if (f === 0 || f === b.files - 1) { ln(...pos(f, 0), ...pos(f, b.ranks - 1)); continue; }
      ln(...pos(f, 0), ...pos(f, 4)); // the river cuts the inner files
      ln(...pos(f, 5), ...pos(f, b.ranks - 1));
    }
    for (const [r0, r1] of [[0, 2], [7, 9]]) { // the palaces' diagonals
      ln(...pos(3, r0), ...pos(5, r1));
      ln(...pos(5, r0), ...pos(3, r1));
    }
    // The cannons' and soldiers' starting points, marked by corners.
    const marks = [[1, 2], [7, 2], [1, 7], [7, 7]];
    for (const r of [3, 6]) for (let f = 0; f < b.files; f += 2) marks.push([f, r]);
    for (const [f, r] of marks) {
      const [x, y] = pos(f, r), d = 3, l = 7;
      for (const sx of [-1, 1]) for (const sy of [-1, 1]) {
        if ((x <= m && sx < 0) || (x >= m + gridW && sx > 0)) continue; // not off the board's edge
        el("polyline", { points: `${x + sx * (d + l)},${y + sy * d} ${x + sx * d},${y + sy * d} ${x + sx * d},${y + sy * (d + l)}`, fill: "none", stroke: ink, "stroke-width": 1 }, svg);
      }
    }
    const ry = (pos(0, 4)[1] + pos(0, 5)[1]) / 2;
    const river = style === "latin" ? ["river", "river"] : ["楚 河", "漢 界"];
    for (const [i, text] of river.entries()) {
      el("text", { x: m + gridW * (i ? 0.75 : 0.25), y: ry, "text-anchor": "middle", "dominant-baseline": "central", "font-size": style === "latin" ? 13 : 17,
        fill: ink, "font-family": CJK_FONT, class: "river", opacity: 0.75 }, svg).textContent = text;
    }
  } else if (squares) {
    for (let r = 0; r < b.ranks; r++) for (let f = 0; f < b.files; f++) {
      const [x, y] = pos(f, r);
      const fill = last.has(r * b.files + f) ? "#f1d77a" : (f + r) % 2 ? "#d9b77a" : "#f0dcae";
      el("rect", { x: x - cell / 2, y: y - cell / 2, width: cell, height: cell, fill, stroke: ink, class: last.has(r * b.files + f) ? "last" : "" }, svg);
    }
  }

  // Coordinates: files (letters; Connect Four's column digits) below the
  // grid, ranks (1 at the first player's side) to its left.
  const coord = { "font-size": 12, fill: c4 ? "#dbe6ff" : ink, "text-anchor": "middle", "dominant-baseline": "central", class: "coord", "font-family": "sans-serif" };
  for (let f = 0; f < b.files; f++) {
    const [x] = pos(f, b.ranks - 1);
    const y = top + gridH + pad[3] - (xiangqi ? 10 : 13);
    el("text", { ...coord, x, y, class: "coord file" }, svg).textContent = c4 ? String(f + 1) : String.fromCharCode(97 + f);
  }
  if (!c4) {
    for (let r = 0; r < b.ranks; r++) {
      const [, y] = pos(0, r);
      el("text", { ...coord, x: xiangqi ? 13 : m / 2, y, class: "coord rank" }, svg).textContent = String(b.ranks - r);
    }
  }

  // A check's mark goes under the pieces.
  if (o.check !== undefined && o.check !== null && o.check >= 0) {
    const [x, y] = pos(o.check % b.files, Math.floor(o.check / b.files));
    el("circle", { cx: x, cy: y, r: cell * 0.55, fill: "#e11d1d", opacity: 0.55, class: "check" }, svg);
  }

  for (let r = 0; r < b.ranks; r++) for (let f = 0; f < b.files; f++) {
    const i = r * b.files + f;
    const piece = b.cells[i];
    const [x, y] = pos(f, r);
    const g = el("g", { class: "pt", "data-file": f, "data-rank": r, "data-piece": piece, "data-x": x, "data-y": y }, svg);
    if (c4) {
      const fill = piece === "X" ? "#d62828" : piece === "O" ? "#f7d83b" : "#f6f4ef";
      el("circle", { cx: x, cy: y, r: cell * 0.4, fill, stroke: line.has(i) ? "#fff" : "#0b2a5c", "stroke-width": line.has(i) ? 4 : 1, class: line.has(i) ? "win" : "" }, g);
      if (last.has(i)) el("circle", { cx: x, cy: y, r: cell * 0.16, fill: "none", stroke: "#fff", "stroke-width": 3, class: "last" }, g);
      continue;
    }
    // An empty point is a transparent disc, so that a click finds it (Play).
    const hit = xiangqi ? cell * 0.46 : cell * 0.5;
    if (!piece) {
      if (xiangqi) el("circle", { cx: x, cy: y, r: hit, fill: "transparent" }, g);
      else el("rect", { x: x - hit, y: y - hit, width: 2 * hit, height: 2 * hit, fill: "transparent" }, g);
      continue;
    }
    if (squares) { lionTile(g, x, y, cell, piece, flip); continue; }
    const red = piece === piece.toUpperCase();
    const color = red ? "#b3261e" : "#1b1b1b";
    el("title", {}, g).textContent = `${red ? "Red" : "Black"} ${XIANGQI_NAMES[piece.toUpperCase()] || piece}`;
    el("circle", { cx: x, cy: y + 1.5, r: cell * 0.45, fill: "#0003" }, g); // a shadow
    el("circle", { cx: x, cy: y, r: cell * 0.45, fill: "#fbecc8", stroke: color, "stroke-width": 1.6 }, g);
    el("circle", { cx: x, cy: y, r: cell * 0.36, fill: "none", stroke: color, "stroke-width": 0.9 }, g);
    const latin = style === "latin" || !XIANGQI_CHARS[piece];
    el("text", { x, y: y + (latin ? 0 : 1), "text-anchor": "middle", "dominant-baseline": "central", "font-size": latin ? 17 : 21, "font-weight": latin ? "bold" : "normal",
      fill: color, "font-family": latin ? "sans-serif" : CJK_FONT, class: "glyph" }, g).textContent = latin ? piece.toUpperCase() : XIANGQI_CHARS[piece];
  }
  // The last move's points, Xiangqi's marked by corners over the pieces.
  if (xiangqi) for (const i of last) {
    const [x, y] = pos(i % b.files, Math.floor(i / b.files)), d = cell * 0.5, l = cell * 0.18;
    const g = el("g", { class: "last", "pointer-events": "none" }, svg);
    for (const sx of [-1, 1]) for (const sy of [-1, 1]) {
      el("polyline", { points: `${x + sx * d},${y + sy * (d - l)} ${x + sx * d},${y + sy * d} ${x + sx * (d - l)},${y + sy * d}`, fill: "none", stroke: "#1d5fd6", "stroke-width": 2.5 }, g);
    }
  }
  if (c4 && line.size) {
    const ends = [...line].map((i) => pos(i % b.files, Math.floor(i / b.files)));
    const [a, z] = [ends[0], ends[ends.length - 1]];
    el("line", { x1: a[0], y1: a[1], x2: z[0], y2: z[1], stroke: "#fff", "stroke-width": 7, "stroke-linecap": "round", opacity: 0.75, class: "win-line", "pointer-events": "none" }, svg);
  }

  if (squares) { // the hands: the player at the top's above, the other's below
    for (const side of [0, 1]) {
      const atTop = (side === 1) !== flip;
      const y = atTop ? hand / 2 + 4 : h - hand / 2 - 2;
      const letters = b.hands[side] || "";
      const g = el("g", { class: "hand", "data-side": side, "data-hand": letters }, svg);
      const kinds = [...new Set(letters)];
      if (!kinds.length) {
        el("text", { x: m, y, "dominant-baseline": "central", "font-size": 11, fill: "#8a7350", "font-family": "sans-serif" }, g).textContent =
          (side === 0 ? "first" : "second") + " player's hand: empty";
      }
      kinds.forEach((p, k) => {
        const x = m + hand / 2 + k * (hand + 6);
        const pg = el("g", { class: "hand-pc", "data-side": side, "data-letter": p.toUpperCase(), "data-x": x, "data-y": y }, g);
        lionTile(pg, x, y, hand, p, flip);
        const n = [...letters].filter((c) => c === p).length;
        if (n > 1) el("text", { x: x + hand * 0.42, y: y + hand * 0.42, "font-size": 12, "font-weight": "bold", fill: ink, "text-anchor": "middle" }, pg).textContent = "×" + n;
      });
    }
  }
}
