// The dashboard's charts: the series of /api/series (every run the
// dashboard compares) plotted with uPlot (vendor/uplot): values in the
// legend on hover (in every chart over the same X at once), drag to
// zoom, double-click to zoom out, a click on a legend entry hides its
// line. A chart whose every line is flat (a
// constant learning rate) is a line of text instead.
"use strict";

const chartPalette = ["#d6404e", "#2f7ed8", "#3a9a3a", "#c47f00", "#8e44ad", "#16a2a2", "#7f5a3c", "#e377c2", "#555555", "#8c9c1c"];

// fmtStep writes v with as many decimals as ticks step apart need:
// "750", not "750.00".
function fmtStep(v, step) {
  if (v == null || !isFinite(v)) return "--";
  const d = step > 0 ? Math.max(0, Math.min(10, Math.ceil(-Math.log10(step)))) : 0;
  const s = v.toFixed(d);
  return s === "-0" ? "0" : s;
}

// fmtValue writes a value for the legend: four significant digits.
function fmtValue(v) {
  if (v == null || !isFinite(v)) return "--";
  const a = Math.abs(v);
  if (a !== 0 && (a >= 1e7 || a < 1e-4)) return v.toExponential(3);
  return String(Number(v.toPrecision(a >= 1000 ? 7 : 4)));
}

function alpha(hex, a) {
  const n = parseInt(hex.slice(1), 16);
  return `rgba(${n >> 16}, ${(n >> 8) & 255}, ${n & 255}, ${a})`;
}

// chartData aligns a chart's series on the union of their X values
// (uPlot's columns), each series null where it has no point; a series
// with intervals adds its upper and lower edges. A level's series has
// one value across its span.
function chartData(c) {
  const xs = [...new Set(c.series.flatMap((s) => s.x))].sort((a, b) => a - b);
  const at = new Map(xs.map((x, i) => [x, i]));
  const cols = [xs];
  const col = (s, f) => {
    const ys = new Array(xs.length).fill(null);
    s.x.forEach((x, i) => { ys[at.get(x)] = f(i); });
    return ys;
  };
  for (const s of c.series) {
    if (s.level) {
      // A level holds at every X of its span, so that hovering anywhere
      // on it reads its value.
      const lo = Math.min(...s.x), hi = Math.max(...s.x);
      cols.push(xs.map((x) => x >= lo && x <= hi ? s.y[0] : null));
      continue;
    }
    cols.push(col(s, (i) => s.y[i]));
    if (s.err) {
      cols.push(col(s, (i) => s.y[i] + s.err[i]), col(s, (i) => s.y[i] - s.err[i]));
    }
  }
  return cols;
}

// chartErr maps each series to its 95% half-widths by X, for the legend.
function chartErr(c) {
  return c.series.map((s) => s.err ? new Map(s.x.map((x, i) => [x, s.err[i]])) : null);
}

function chartOptions(c, width, errs) {
  const series = [{ label: c.x, value: (u, v) => v == null ? "--" : (c.x_integer ? String(Math.round(v)) : fmtValue(v)) }];
  const bands = [];
  c.series.forEach((s, k) => {
    const color = chartPalette[k % chartPalette.length];
    const err = errs[k];
    series.push({
      label: s.label,
      stroke: color,
      width: s.level ? 1.5 : 2,
      dash: s.level ? [6, 4] : undefined,
      spanGaps: true,
      // uPlot's default shows a line's points only where they are sparse.
      points: s.level ? { show: false } : { size: 5 },
      value: (u, v, si, idx) => {
        if (v == null) return "--";
        const e = err && idx != null ? err.get(u.data[0][idx]) : undefined;
        return e != null ? `${fmtValue(v)} ± ${fmtValue(e)}` : fmtValue(v);
      },
    });
    if (s.err) {
      const hi = series.length;
      for (const edge of ["95% high", "95% low"]) {
        series.push({ label: s.label + " " + edge, class: "u-band-edge", stroke: alpha(color, 0.25), width: 1, spanGaps: true, points: { show: false } });
      }
      bands.push({ series: [hi, hi + 1], fill: alpha(color, 0.12) });
    }
  });
  const ticks = (u, splits, axisIdx, space, incr) => splits.map((v) => fmtStep(v, incr));
  // Wide enough for the longest tick label, its tick and gap.
  const ySize = (u, values) => values ? Math.max(40, 24 + 7 * Math.max(...values.map((v) => v.length))) : 40;
  return {
    width,
    height: 260,
    series,
    bands,
    scales: {
      // The X axis ends at the data's ends; a single X gets one unit on
      // either side.
      x: { time: false, range: (u, lo, hi) => lo === hi ? [lo - 1, hi + 1] : [lo, hi] },
      y: c.percent ? { range: [0, 100] } : {},
    },
    axes: [
      {
        label: c.x,
        values: ticks,
        // Room for the longest label between two ticks ("0.00018").
        space: (u, ai, lo, hi) => Math.max(50, 8 * Math.max(fmtValue(lo).length, fmtValue(hi).length) + 16),
        // Generations are whole numbers: no tick between two.
        incrs: c.x_integer ? [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000] : undefined,
      },
      { label: c.y, values: ticks, size: ySize },
    ],
    // Charts over the same X (steps, generations, minutes) follow one
    // cursor: hovering one reads the others at the same X.
    cursor: { drag: { x: true, y: false }, sync: { key: "x: " + c.x } },
    legend: { live: true },
  };
}

const chartBoxes = new Map(); // chart name -> {box, plot, sig}

function chartSignature(c) {
  return JSON.stringify([c.x, c.y, c.x_integer, c.percent, c.series.map((s) => [s.label, !!s.err, !!s.level])]);
}

// drawCharts shows the charts of an /api/series answer, updating those
// already drawn in place (a zoomed chart keeps its zoom).
function drawCharts(ans) {
  const box = document.getElementById("charts");
  const runs = document.getElementById("charts-runs");
  runs.replaceChildren(...(ans.runs.length > 1 || ans.runs.some((r) => r.error) ? ans.runs : []).map((r) => {
    const li = document.createElement("li");
    li.textContent = r.error ? `${r.name}: no charts (${r.error})` : `${r.name} (${r.game})`;
    if (r.error) li.className = "error";
    return li;
  }));
  const flat = document.getElementById("charts-flat");
  flat.replaceChildren(...ans.charts.filter((c) => c.flat).map((c) => {
    const li = document.createElement("li");
    li.dataset.name = c.name;
    li.textContent = c.flat;
    return li;
  }));
  const shown = new Set();
  for (const c of ans.charts.filter((c) => !c.flat)) {
    shown.add(c.name);
    const data = chartData(c);
    const sig = chartSignature(c);
    let e = chartBoxes.get(c.name);
    if (e && e.sig !== sig) {
      e.plot.destroy();
      e.box.remove();
      chartBoxes.delete(c.name);
      e = null;
    }
    if (!e) {
      const div = document.createElement("div");
      div.className = "chart";
      div.dataset.name = c.name;
      const h = document.createElement("h3");
      h.className = "chart-title";
      h.textContent = c.title;
      const plotBox = document.createElement("div");
      div.append(h, plotBox);
      box.append(div);
      const errs = chartErr(c);
      const plot = new uPlot(chartOptions(c, Math.max(300, div.clientWidth - 4), errs), data, plotBox);
      e = { box: div, plot, sig, errs };
      new ResizeObserver(() => plot.setSize({ width: Math.max(300, div.clientWidth - 4), height: 260 })).observe(div);
      chartBoxes.set(c.name, e);
    } else {
      const u = e.plot, old = u.data[0];
      const zoomed = old.length > 0 && (u.scales.x.min > old[0] || u.scales.x.max < old[old.length - 1]);
      // The legend's intervals follow the new data.
      chartErr(c).forEach((m, k) => { if (m && e.errs[k]) { e.errs[k].clear(); m.forEach((v, x) => e.errs[k].set(x, v)); } });
      u.setData(data, !zoomed);
    }
    // Keep the order of the answer.
    box.append(e.box);
  }
  for (const [name, e] of chartBoxes) {
    if (!shown.has(name)) {
      e.plot.destroy();
      e.box.remove();
      chartBoxes.delete(name);
    }
  }
}
