#!/usr/bin/env bash
# learning-table.sh RUN... : the evaluations of training runs as one
# Markdown table, a row per run and evaluation: training minutes, the
# CPU minutes they took (all cores; "-" for runs from before it was
# recorded), best generation, the score and Elo [95%] against each anchor, Pons'
# optimal-move rates. Then, for runs of one config with different seeds,
# the spread: at each evaluation index, the largest minus the smallest
# score against each anchor.
set -euo pipefail
for run in "$@"; do
  jq -c --arg run "$(basename "$run")" 'select(.kind == "evaluation") | {run: $run} + .' "$run/metrics.jsonl"
done | jq -rs '
  def r(x): (x * 10 | round) / 10;
  def elo(m): ((m.elo | round) + 0) as $e | if $e > 0 then "+\($e)" else "\($e)" end;
  (.[0].matches | map(.opponent)) as $opps |
  (.[0].pons // [] | map(if .simulations == 0 then "Pons raw" else "Pons \(.simulations) sims" end)) as $pons |
  "| run | minutes | CPU min | best gen | " + ($opps | map("vs \(.)") | join(" | ")) + (if ($pons | length) > 0 then " | " + ($pons | join(" | ")) else "" end) + " |",
  "|---|---|---|---|" + ($opps | map("---|") | join("")) + ($pons | map("---|") | join("")),
  (.[] | "| \(.run) | \(r(.train_clock_s / 60)) | \(if .train_cpu_s then r(.train_cpu_s / 60) else "-" end) | \(.best // 0) | " +
    (.matches | map("\(.wins)-\(.draws)-\(.losses) \(.score | . * 1000 | round / 1000) (\(elo(.)) ± \(.elo_ci95 | round))") | join(" | ")) +
    (if .pons then " | " + (.pons | map("\(.optimal_rate * 1000 | round / 10)%") | join(" | ")) else "" end) + " |"),
  "",
  "Spread between runs (largest minus smallest score at each evaluation):",
  (group_by(.run) | (map(length) | min) as $k | if length < 2 then "one run: no spread" else
    [range($k) as $i | map(.[$i]) | "evaluation \($i + 1) (~\(r(map(.train_clock_s) | add / length / 60)) min): " +
      ([range($opps | length) as $j | map(.matches[$j].score) | "vs \($opps[$j]) \((max - min) * 1000 | round / 1000)"] +
       [range($pons | length) as $j | map(.pons[$j].optimal_rate) | "\($pons[$j]) \((max - min) * 1000 | round / 10) points"] | join(", "))] | .[] end)
'
