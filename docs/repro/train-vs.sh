#!/usr/bin/env bash
# train-vs.sh [ROUNDS]: tabula's training step against PyTorch's on the same
# network and batch, in rounds run back to back (default 3), so that a
# machine whose speed drifts is compared within each round. Each round:
# BenchmarkGorgoniaTrain (net/train) for the Xiangqi preset with the from-to
# head and about 45 legal moves a position (xiangqi-fromto-mask) and for
# Connect Four, at batches 64 and 256, on the float32 fast ops and with the
# convolutions in bf16 (ops=bf16: AMX-BF16 tiles; float32 where the CPU has
# none); then docs/repro/torch-train.py (Debian's python3-torch, two
# threads; the best of PT_TRIES runs, default 2) at the same games and
# batches. PyTorch runs on jemalloc with its memory kept
# (MALLOC_CONF=dirty_decay_ms:-1,muzzy_decay_ms:-1) where libjemalloc2 is
# installed (PT_ALLOC=glibc keeps glibc's malloc): glibc's hands memory back
# and faults it in again on some steps and not others, which moved PyTorch's
# step twofold between identical runs; kept memory holds it at its fastest.
# Prints each round's samples/s and the ratios to PyTorch, then the median
# ratio of the rounds. Run it on a quiet machine.
set -euo pipefail
rounds=${1:-3}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${OUT:-/tmp/train-vs}
PY=${PY:-/usr/bin/python3} # Debian's, where python3-torch installs
"$PY" -c 'import torch' 2>/dev/null || { echo "python3-torch is missing: apt-get install python3-torch" >&2; exit 1; }
mkdir -p "$OUT"
jemalloc=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2
pt_env=()
if [ "${PT_ALLOC:-jemalloc}" = jemalloc ]; then
  [ -e "$jemalloc" ] || { echo "libjemalloc2 is missing (apt-get install libjemalloc2), or set PT_ALLOC=glibc" >&2; exit 1; }
  pt_env=(LD_PRELOAD="$jemalloc" MALLOC_CONF=dirty_decay_ms:-1,muzzy_decay_ms:-1)
fi
(cd "$root" && go test -c -o "$OUT/train.test" ./net/train)
log=$OUT/rounds.tsv
: >"$log"
: >"$OUT/pytorch.jsonl"
for r in $(seq "$rounds"); do
  (cd "$root/net/train" && "$OUT/train.test" -test.run '^$' \
    -test.bench 'GorgoniaTrain/(xiangqi-fromto-mask|connect4)/batch=(64|256)/ops=(fast|bf16)$' -test.benchtime 4s) |
    awk -v r="$r" '/^BenchmarkGorgoniaTrain/ {
      split($1, f, "/"); g = f[2]; sub("-fromto-mask", "", g); b = f[3]; sub("batch=", "", b)
      o = f[4]; sub("ops=", "", o); sub("-[0-9]+$", "", o)
      print r "\t" g "\t" b "\ttabula-" o "\t" $(NF-1) }' >>"$log"
  for g in xiangqi connect4; do
    for b in 64 256; do
      # about four seconds of steps, as the Go benchmarks run
      case $g/$b in xiangqi/64) steps=40 ;; xiangqi/256) steps=12 ;; connect4/64) steps=300 ;; *) steps=80 ;; esac
      # PyTorch at its best of PT_TRIES runs: on some machines its allocator
      # falls into a mode that hands memory back to the kernel and faults it
      # in again every step (ten times the page faults, 30-60% slower; the
      # runs' minor_faults_per_step in $OUT/pytorch.jsonl show it).
      best=0
      for _ in $(seq "${PT_TRIES:-2}"); do
        j=$(cd "$root" && env "${pt_env[@]}" "$PY" docs/repro/torch-train.py --game "$g" --batch "$b" --threads 2 --steps "$steps")
        echo "$j" | jq -c --arg r "$r" '. + {round: ($r|tonumber)}' >>"$OUT/pytorch.jsonl"
        best=$(echo "$j" | jq -r --arg best "$best" '[.samples_per_s, ($best|tonumber)] | max')
      done
      printf '%s\t%s\t%s\tpytorch\t%s\n' "$r" "$g" "$b" "$best" >>"$log"
    done
  done
done
# Per round and game/batch: each tabula figure over PyTorch's; then medians.
awk -F'\t' '
  { v[$1 SUBSEP $2 SUBSEP $3 SUBSEP $4] = $5; keys[$2 "\t" $3] = 1; if ($1 > maxr) maxr = $1; impl[$4] = 1 }
  END {
    for (k in keys) {
      split(k, kb, "\t")
      for (i in impl) {
        if (i == "pytorch") continue
        n = 0; line = ""
        for (r = 1; r <= maxr; r++) {
          t = v[r SUBSEP kb[1] SUBSEP kb[2] SUBSEP i]; p = v[r SUBSEP kb[1] SUBSEP kb[2] SUBSEP "pytorch"]
          if (t == "" || p == "") continue
          x[++n] = t / p; line = line sprintf(" %.2f", t / p)
        }
        # insertion sort for the median
        for (a = 2; a <= n; a++) { y = x[a]; for (b = a - 1; b >= 1 && x[b] > y; b--) x[b + 1] = x[b]; x[b + 1] = y }
        med = n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
        printf "%-8s batch %-4s %-12s / pytorch: rounds%s, median %.2f\n", kb[1], kb[2], i, line, med
      }
    }
  }' "$log" | sort
echo "figures: $log"
