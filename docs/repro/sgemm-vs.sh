#!/usr/bin/env bash
# sgemm-vs.sh [ROUNDS]: net/gemm's Sgemm against OpenBLAS's cblas_sgemm on
# N x N x N (1024 and 2048), two threads each, in one sitting on a quiet
# machine. Each round runs every contender once, back to back; a shared
# or virtual machine's speed drifts from minute to minute, so the ratio
# is taken within each round and its median over the rounds (default 5)
# reported, beside each side's best figure. Each side's figure is the mean
# of REPS calls after a warm-up (default 20 at 1024, 5 at 2048: a few
# milliseconds a call, so three calls measured the machine's moment more
# than the code). tabula runs with each micro-kernel this CPU has:
# avx512 is set beside OpenBLAS's AVX-512 kernels (OPENBLAS_CORETYPE=
# SkylakeX), avx2 beside its AVX2 ones (Haswell), so one AVX-512 machine
# measures both. Needs gcc and libopenblas-dev. JSON lines in
# $OUT/sgemm.jsonl (default /tmp/speed).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${OUT:-/tmp/speed}
ROUNDS=${1:-5}
mkdir -p "$OUT"
cd "$root"
gcc -O2 -o "$OUT/openblas-sgemm" docs/repro/openblas-sgemm.c -lopenblas ||
  { echo "building the OpenBLAS reference failed: apt-get install gcc libopenblas-dev" >&2; exit 1; }
go test -c -o "$OUT/gemm.test" ./net/gemm
export OPENBLAS_NUM_THREADS=2
raw=$OUT/sgemm-raw.jsonl
: > "$raw"
for r in $(seq "$ROUNDS"); do
  for n in 1024 2048; do
    for kernel in avx512 avx2; do
      core=SkylakeX
      [ "$kernel" = avx2 ] && core=Haswell
      reps=5
      [ "$n" = 1024 ] && reps=20
      reps=${REPS:-$reps}
      line=$("$OUT/gemm.test" -test.run '^$' -test.bench "SgemmSquare/$kernel/$n\$" -test.benchtime ${reps}x -test.cpu 2 |
        awk -v r="$r" '/GFLOP/ { split($1, p, "/"); sub(/-2$/, "", p[3]); printf "{\"round\":%d,\"reference\":\"tabula\",\"kernel\":\"%s\",\"n\":%s,\"gflops\":%s}\n", r, p[2], p[3], $(NF-1) }')
      [ -n "$line" ] || continue # this CPU lacks the kernel
      echo "$line" >> "$raw"
      OPENBLAS_CORETYPE=$core "$OUT/openblas-sgemm" "$n" "$reps" | jq -c --argjson r "$r" --arg k "$kernel" '. + {round: $r, kernel: $k}' >> "$raw"
    done
  done
done
jq -s -c '
  group_by([.kernel, .n])[] |
  (map(select(.reference == "tabula")) | map({key: (.round | tostring), value: .gflops}) | from_entries) as $t |
  (map(select(.reference == "openblas")) | map({key: (.round | tostring), value: .gflops}) | from_entries) as $o |
  ([$t | keys[] | select($o[.] != null) | $t[.] / $o[.]] | sort) as $r |
  {kernel: .[0].kernel, n: .[0].n, openblas_core: (map(select(.reference == "openblas"))[0].core),
   tabula_best: ([$t[]] | max), openblas_best: ([$o[]] | max),
   ratio_median: (($r[($r | length) / 2 | floor] * 100 | round) / 100), ratio_min: (($r[0] * 100 | round) / 100),
   ratio_max: (($r[-1] * 100 | round) / 100), rounds: ($r | length)}' "$raw" | tee -a "$OUT/sgemm.jsonl"
