#!/usr/bin/env bash
# sgemm-vs.sh [ROUNDS]: net/gemm's Sgemm against OpenBLAS's cblas_sgemm on
# N x N x N (1024 and 2048), two threads each, in one sitting on a quiet
# machine. Each round runs every contender once (interleaved, so a
# neighbour's load falls on all alike); each figure is the best of its
# rounds (default 5). tabula runs with each micro-kernel this CPU has:
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
  "$OUT/gemm.test" -test.run '^$' -test.bench 'SgemmSquare/avx' -test.benchtime 3x -test.cpu 2 |
    awk '/GFLOP/ { split($1, p, "/"); sub(/-2$/, "", p[3]); printf "{\"reference\":\"tabula\",\"kernel\":\"%s\",\"n\":%s,\"gflops\":%s}\n", p[2], p[3], $(NF-1) }' >> "$raw"
  for core in SkylakeX Haswell; do
    for n in 1024 2048; do
      OPENBLAS_CORETYPE=$core "$OUT/openblas-sgemm" "$n" 3 >> "$raw"
    done
  done
done
jq -s -c '
  (map(select(.reference == "openblas")) | group_by([.core, .n]) | map({core: .[0].core, n: .[0].n, gflops: (map(.gflops) | max)})) as $ob |
  map(select(.reference == "tabula")) | group_by([.kernel, .n]) | map(
    {kernel: .[0].kernel, n: .[0].n, gflops: (map(.gflops) | max)} as $t |
    ($ob[] | select(.n == $t.n and .core == (if $t.kernel == "avx512" then "SkylakeX" else "Haswell" end))) as $o |
    $t + {openblas_core: $o.core, openblas_gflops: $o.gflops, ratio: (($t.gflops / $o.gflops * 100 | round) / 100), rounds: '"$ROUNDS"'})[]' "$raw" | tee -a "$OUT/sgemm.jsonl"
