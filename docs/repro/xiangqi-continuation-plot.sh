#!/usr/bin/env bash
# xiangqi-continuation-plot.sh [OUT.png]: the Xiangqi continuation's strength
# against CPU-hours (issue 48). Rates every placement game in
# xiangqi-placements.jsonl.gz (200 games of each network against
# Fairy-Stockfish at 1,000 and at 3,000 nodes, 64 simulations; the moves are
# left out) and in xiangqi-placements-seed48.jsonl.gz (400 more from fresh
# openings for the later networks) in one Bradley-Terry fit with fsf-n1000
# at 0, joins the ratings with xiangqi-continuation.tsv (each network's path
# and CPU-hours), prints the weighted slope of the readings from 8 CPU-hours
# on L's line and its branches (L, L3, LW, L8), and draws them with gnuplot
# (apt-get install gnuplot-nox). Placing another network:
# docs/repro/xiangqi-ladder.sh place, then append its records (jq -c
# 'del(.moves)') and a line to the table.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${1:-$here/../images/xiangqi-continuation.png}
TABULA=${TABULA:-/tmp/tabula}
[ -x "$TABULA" ] || (cd "$here/../.." && go build -o "$TABULA" ./cmd/tabula)
command -v gnuplot >/dev/null || { echo "gnuplot is not installed (apt-get install gnuplot-nox)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/arena"
gunzip -c "$here/xiangqi-placements.jsonl.gz" "$here/xiangqi-placements-seed48.jsonl.gz" > "$tmp/arena/placements.jsonl"
"$TABULA" arena -run "$tmp" -ratings -anchor fsf-n1000 > "$tmp/ratings.txt"
# rating lines: rank name elo ci95 games ...
awk 'NR==FNR { if ($1 ~ /^[0-9]+$/) { elo[$2] = $3; ci[$2] = $4 }; next }
     /^#/ { next }
     ($1 in elo) { printf "%s\t%s\t%s\t%s\t%s\n", $2, $3, elo[$1], ci[$1], $1 }' \
  "$tmp/ratings.txt" FS='\t' "$here/xiangqi-continuation.tsv" > "$tmp/points.tsv"
cat "$tmp/points.tsv"
# Weighted least squares (weights 1/se^2, se = the 95% half-width / 1.96).
awk -F'\t' '$2 >= 8 && ($1 == "L" || $1 == "L3" || $1 == "LW" || $1 == "L8") {
    w = (1.96 / $4) ^ 2; sw += w; sx += w * $2; sy += w * $3; sxx += w * $2 * $2; sxy += w * $2 * $3; n++ }
  END { if (n < 2) exit; d = sw * sxx - sx * sx
    printf "slope of the %d readings from 8 CPU-hours (L, L3, LW, L8): %+.1f +- %.1f Elo a CPU-hour (one standard error)\n",
      n, (sw * sxy - sx * sy) / d, sqrt(sw / d) }' "$tmp/points.tsv"
ship=$(awk -F'\t' '$5 == "xq2h" { print $3 }' "$tmp/points.tsv")
# R branches from W's generation 71: its line starts there.
{ awk -F'\t' '$5 == "xqwin-g71"' "$tmp/points.tsv"; awk -F'\t' '$1 == "R"' "$tmp/points.tsv"; } > "$tmp/Rline.tsv"
# S branches from A's generation 48.
{ awk -F'\t' '$5 == "xqA-g48"' "$tmp/points.tsv"; awk -F'\t' '$1 == "S"' "$tmp/points.tsv"; } > "$tmp/Sline.tsv"
# L, M and L2 branch from S's generation 95.
for p in L M L2; do
  { awk -F'\t' '$5 == "xqs-g95"' "$tmp/points.tsv"; awk -F'\t' -v p="$p" '$1 == p' "$tmp/points.tsv"; } > "$tmp/${p}line.tsv"
done
# L3, LW and L8 branch from L's generation 141.
for p in L3 LW L8; do
  { awk -F'\t' '$5 == "xqslc-g141"' "$tmp/points.tsv"; awk -F'\t' -v p="$p" '$1 == p' "$tmp/points.tsv"; } > "$tmp/${p}line.tsv"
done
for p in ref B G E big s10 kd kd6 KD; do awk -F'\t' -v p="$p" '$1 == p' "$tmp/points.tsv" > "$tmp/$p.tsv"; done
# S3, the schedule's second seed, starts at the shipped network.
{ awk -F'\t' '$5 == "xq2h"' "$tmp/points.tsv"; awk -F'\t' '$1 == "S3"' "$tmp/points.tsv"; } > "$tmp/S3line.tsv"
gnuplot <<GP
set terminal pngcairo size 1100,720 font ",10"
set output "$out"
set title "Xiangqi after the two-hour network: 64 simulations against Fairy-Stockfish (1,000 and 3,000 nodes; 400 or 800 games a network), seed 2 (L2, S3: 3)"
set xlabel "CPU-hours of training after the shipped network (train\\\\_cpu\\\\_s)"
set ylabel "Elo, Fairy-Stockfish at 1,000 nodes = 0 (95%)"
set key below maxrows 6 width -8
set grid
set xrange [-0.3:*]
set datafile separator "\t"
plot "$tmp/ref.tsv" using 2:3:4 with yerrorlines lw 2 pt 7 title "the shipped network, A (own search), W (window), D4 (depth-4 teacher)", \
     "$tmp/B.tsv" using 2:3:4 with yerrorbars pt 5 title "B: own search at 64/16", \
     "$tmp/G.tsv" using 2:3:4 with yerrorlines pt 9 title "G: grown to 64 filters", \
     "$tmp/E.tsv" using 2:3:4 with yerrorbars pt 11 title "E: the blend as expert", \
     "$tmp/big.tsv" using 2:3:4 with yerrorbars pt 13 title "grown to 10x64, depth-4 teacher", \
     "$tmp/s10.tsv" using (\$2+0.08):3:4 with yerrorlines pt 15 title "10x64 from scratch at the preset's CPU, then depth-4 teacher", \
     "$tmp/Rline.tsv" using (strcol(1) eq "R" ? \$2+0.1 : \$2):3:4 with yerrorlines lw 2 pt 6 title "R: W with random starts (placements open with 4 random plies)", \
     "$tmp/Sline.tsv" using (strcol(1) eq "S" ? \$2-0.1 : \$2):3:4 with yerrorlines lw 2 pt 4 title "S: A with a window of 60,000, random starts and 400 simulations", \
     "$tmp/Lline.tsv" using (strcol(1) eq "L" ? \$2+0.05 : \$2-0.1):3:4 with yerrorlines pt 8 title "L: S with the rate at 0.002 from generation 95, continued to 12.06", \
     "$tmp/L2line.tsv" using (strcol(1) eq "L2" ? \$2+0.1 : \$2-0.1):3:4 with yerrorlines pt 12 title "L2: the same from S's generation 95, self-play seed 3", \
     "$tmp/L3line.tsv" using 2:3:4 with yerrorlines lw 2 pt 3 title "L3: L at 10.40 with the rate at 0.0007 and sample ratio 6", \
     "$tmp/LWline.tsv" using (strcol(1) eq "LW" ? \$2+0.08 : \$2):3:4 with yerrorlines pt 14 title "LW: L at 10.40 with a window of 150,000", \
     "$tmp/L8line.tsv" using (strcol(1) eq "L8" ? \$2-0.08 : \$2):3:4 with yerrorlines pt 16 title "L8: L at 10.40 with 800 simulations on the recorded moves, to 15.37", \
     "$tmp/Mline.tsv" using (strcol(1) eq "M" ? \$2+0.15 : \$2-0.1):3:4 with yerrorlines pt 10 title "M: S with the rate at 0.0006 from generation 95", \
     "$tmp/S3line.tsv" using 2:3:4 with yerrorlines lw 2 pt 2 lc rgb "dark-red" title "S3: the schedule A, S, L again from the shipped network, seed 3", \
     "$tmp/kd.tsv" using 2:3:4 with yerrorbars pt 1 lc rgb "dark-green" title "a fresh 10x64 on L's stored search targets", \
     "$tmp/kd6.tsv" using 2:3:4 with yerrorbars pt 13 lc rgb "dark-blue" title "a fresh 6x48 distilled from L's generation 197", \
     "$tmp/KD.tsv" using 2:3:4 with yerrorlines lw 2 pt 5 lc rgb "dark-blue" title "KD: a fresh 10x64 distilled from L's generation 197, then self-play", \
     $ship + 150 with lines dt 2 lc rgb "black" title "the issue's target: the shipped network + 150"
GP
echo "wrote $out"
