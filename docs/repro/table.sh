#!/usr/bin/env bash
# table.sh [RESULTS] [LABEL-REGEX]: the matches in RESULTS (default
# /tmp/repro/results.jsonl) as Markdown table rows: label, A, B, games,
# W-D-L, score with its 95% Wilson interval, Elo with a 95% interval from
# the trinomial standard error (as the arena computes it), LOS, and the
# mean search work per move of A and B (playouts or alpha-beta nodes).
# Chunks of one match played with other seeds (labels LABEL-s1, LABEL-s2,
# ...) are summed into one row.
set -euo pipefail
jq -rs --arg re "${2:-.}" '
  def pct(x): (x * 1000 | round) / 10;
  def elo(s): if s <= 0 or s >= 1 then null else -400 * ((1 / s - 1) | log10) end;
  def show(x): if x == null then "-" elif x > 0 then "+\(x | round)" else "\(x | round)" end;
  def wilson($p; $n): 1.959964 as $z |
    (($p + $z*$z/(2*$n)) / (1 + $z*$z/$n)) as $c |
    ($z * (($p*(1-$p)/$n + $z*$z/(4*$n*$n)) | sqrt) / (1 + $z*$z/$n)) as $h |
    "\(pct($p))% [\(pct([$c-$h, 0] | max)), \(pct([$c+$h, 1] | min))]";
  def work(x): if x == null then "-" else (x | round | tostring) end;
  map(select(.label | test($re)))
  | group_by(.label | sub("-s[0-9]+$"; "")) | sort_by(.[0].label)[]
  | (.[0].label | sub("-s[0-9]+$"; "")) as $name
  | (map(.wins) | add) as $w | (map(.draws) | add) as $d | (map(.losses) | add) as $l
  | ($w + $d + $l) as $n | (($w + $d / 2) / $n) as $s
  | ((($w * (1-$s) * (1-$s) + $d * (0.5-$s) * (0.5-$s) + $l * $s * $s) / $n / $n) | sqrt) as $se
  | (if $w + $l == 0 then 0.5 else 0.5 + 0.5 * (($w - $l) / ((2 * ($w + $l)) | sqrt) | erf) end) as $los
  | (map(select(.effort_a != null) | .effort_a * .games) | add) as $ea
  | (map(select(.effort_b != null) | .effort_b * .games) | add) as $eb
  | "| \($name) | `\(.[0].a)` | `\(.[0].b)` | \($n) | \($w)-\($d)-\($l) | \(wilson($s; $n)) | \(show(elo($s))) [\(show(elo($s - 1.959964 * $se))), \(show(elo($s + 1.959964 * $se)))] | \(pct($los))% | \(work(if $ea then $ea / $n else null end)) / \(work(if $eb then $eb / $n else null end)) |"
' "${1:-/tmp/repro/results.jsonl}"
