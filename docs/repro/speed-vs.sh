#!/usr/bin/env bash
# speed-vs.sh [GAME...]: tabula's inference and training step against their
# outside references in one sitting, on a quiet machine (default games:
# xiangqi connect4). For each game: `tabula bench` at the training
# batches 64 and 256 (inference at the preset's self-play batch, fp32 and
# int8); the same network in PyTorch (docs/repro/torch-train.py, Debian's
# python3-torch) at those batches; a freshly initialised preset network
# exported to ONNX and run by onnxruntime-node (docs/repro/ort-infer.js) at
# batch 32 with 2 threads. Prints each figure with its ratio; JSON lines
# in $OUT/speed.jsonl (default /tmp/speed). Needs python3-torch and
# onnxruntime-node (the ONNX test installs it into net/onnx/testdata).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${OUT:-/tmp/speed}
mkdir -p "$OUT"
cd "$root"
go build -o "$OUT/tabula" ./cmd/tabula
PY=${PY:-/usr/bin/python3} # Debian's, where python3-torch installs
"$PY" -c 'import torch' 2>/dev/null || { echo "python3-torch is missing: apt-get install python3-torch" >&2; exit 1; }
export NODE_PATH=${NODE_PATH:-$root/net/onnx/testdata/node_modules}
[ -d "$NODE_PATH/onnxruntime-node" ] || { echo "onnxruntime-node is missing under $NODE_PATH: go test ./net/onnx -run ORT installs it" >&2; exit 1; }
log=$OUT/speed.jsonl
for game in "${@:-xiangqi connect4}"; do
  for g in $game; do
    for b in 64 256; do
      "$OUT/tabula" bench -presets "$g" -each 5s -train-batch "$b" -json "$OUT/bench-$g-$b.json" >/dev/null
      jq -c --arg g "$g" '.presets[0] | {reference: "tabula", game: $g, batch: .train_batch, samples_per_s: .train_samples_per_s, bf16_samples_per_s: .bf16_train_samples_per_s, inference_batch, inference_pos_per_s, int8_pos_per_s}' "$OUT/bench-$g-$b.json" | tee -a "$log"
      "$PY" docs/repro/torch-train.py --game "$g" --batch "$b" --threads 2 --steps 40 | tee -a "$log"
    done
    "$OUT/tabula" export -new "$g" -o "$OUT/$g.onnx" -samples 32 -samples-out "$OUT/$g-samples.json" >/dev/null
    node docs/repro/ort-infer.js "$OUT/$g.onnx" "$OUT/$g-samples.json" 32 2 5 | jq -c --arg g "$g" '. + {game: $g}' | tee -a "$log"
  done
done
