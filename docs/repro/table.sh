#!/usr/bin/env bash
# table.sh [RESULTS] [LABEL-REGEX]: the matches in RESULTS (default
# /tmp/repro/results.jsonl) as Markdown table rows: label, A, B, games,
# W-D-L, score with its 95% Wilson interval, Elo with the arena's 95%
# interval (trinomial standard error), LOS, mean search work per move of A
# and B (playouts or alpha-beta nodes).
set -euo pipefail
jq -r --arg re "${2:-.}" '
  def r(x): if x == null then "-" else (x | tostring) end;
  def pct(x): (x * 1000 | round) / 10;
  def elo(x): if x == null then "-" elif x > 0 then "+\(x | round)" else "\(x | round)" end;
  def wilson: 1.959964 as $z | (.games) as $n | (.score) as $p |
    (($p + $z*$z/(2*$n)) / (1 + $z*$z/$n)) as $c |
    ($z * (($p*(1-$p)/$n + $z*$z/(4*$n*$n)) | sqrt) / (1 + $z*$z/$n)) as $h |
    "\(pct(.score))% [\(pct([$c-$h, 0] | max)), \(pct([$c+$h, 1] | min))]";
  def work(x): if x == null then "-" else (x | round | tostring) end;
  select(.label | test($re)) |
  "| \(.label) | `\(.a)` | `\(.b)` | \(.games) | \(.wins)-\(.draws)-\(.losses) | \(wilson) | \(elo(.elo)) [\(elo(.elo_low)), \(elo(.elo_high))] | \(pct(.los))% | \(work(.effort_a)) / \(work(.effort_b)) |"
' "${1:-/tmp/repro/results.jsonl}"
