# Shared by the reproduction scripts: match LABEL ARENA-FLAGS... plays one
# arena match (games at once: $CONCURRENCY, default 1) and appends its JSON
# summary, tagged with the label and the flags, to $RESULTS. A label already in $RESULTS is skipped, so a script
# that was stopped resumes where it left off when run again.
set -euo pipefail

TABULA=${TABULA:-/tmp/tabula}
OUT=${OUT:-/tmp/repro}
RESULTS=${RESULTS:-$OUT/results.jsonl}
mkdir -p "$OUT/records"
touch "$RESULTS"

if [ ! -x "$TABULA" ]; then
  (cd "$(dirname "${BASH_SOURCE[0]}")/../.." && go build -o "$TABULA" ./cmd/tabula)
fi

# arena FLAGS...: one tabula arena command.
arena() { "$TABULA" arena "$@"; }

match() {
  local label=$1
  shift
  if [ -n "$(jq -c --arg l "$label" 'select(.label == $l)' "$RESULTS")" ]; then
    echo "skip $label (in $RESULTS)"
    return
  fi
  local start=$SECONDS summary line
  # The arena appends to its records: drop those of an unfinished run.
  rm -f "$OUT/records/$label.jsonl" "$OUT/records/$label.pgn"
  summary=$(arena -concurrency "${CONCURRENCY:-1}" -seed "${SEED:-1}" -json -q -out "$OUT/records" -label "$label" "$@" | tail -1)
  line=$(jq -c --arg l "$label" --arg f "$*" --argjson s $((SECONDS - start)) \
    '{label: $l, flags: $f, seconds: $s} + .' <<<"$summary")
  echo "$line" >>"$RESULTS"
  jq -r '"\(.label): \(.wins)-\(.draws)-\(.losses) score \(.score) elo \(.elo) (\(.seconds) s)"' <<<"$line"
}

# timed SPEC T: SPEC with movetime=T added (kind: or kind:k=v,...).
timed() {
  case $1 in
  *:*) echo "$1,movetime=$2" ;;
  *) echo "$1:movetime=$2" ;;
  esac
}

# chunks N LABEL ARENA-FLAGS...: one match played as N matches with seeds
# 1..N, labelled LABEL-s1 ... LABEL-sN (table.sh sums them), so that a long
# match can be stopped and resumed between chunks.
chunks() {
  local n=$1 label=$2 i
  shift 2
  for ((i = 1; i <= n; i++)); do
    SEED=$i match "$label-s$i" "$@"
  done
}
