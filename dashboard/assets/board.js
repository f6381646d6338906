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
    // An empty point is a transparent disc, so that a click finds it (Play).
    if (!piece) { el("circle", { cx: x, cy: y, r: cell * 0.42, fill: "transparent" }, g); continue; }
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
