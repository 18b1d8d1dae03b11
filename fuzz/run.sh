#!/usr/bin/env bash
# Coverage-guided fuzzing of every parser vouch has (docs/security.md, "Fuzzing"): each target
# runs for SECONDS (default 30) under libFuzzer with a 10 s per-input timeout and a 1 GiB memory
# limit, seeded with the fixtures, the agent corpus and the hostile cases. A crash, a timeout or
# an out-of-memory input fails the run and is left under fuzz/artifacts/<target>/.
#   fuzz/run.sh            every target, 30 s each (what CI runs)
#   fuzz/run.sh 3600 svg   one target for an hour
set -euo pipefail
cd "$(dirname "$0")"
secs=${1:-30}
shift || true
root=..
seed() {
  local target=$1 name=$2
  mkdir -p "corpus/$target"
  local i=0
  for f in "$root"/fixtures/northstar/bundle/"$name" "$root"/fixtures/agents/*/bundle/"$name" \
           "$root"/fixtures/defects/*/"$name"; do
    [ -f "$f" ] || continue
    i=$((i + 1))
    cp "$f" "corpus/$target/seed-$i"
  done
}
seed metrics_csv calculated_metrics.csv
seed movements_csv unusual_movements.csv
seed svg financial_trends.svg
seed memo investment_analysis.md
seed script analyze_financials.py
seed manifest analysis_run.json
mkdir -p corpus/svg corpus/archive corpus/source_csv corpus/script
cp "$root"/tests/hostile/*.svg corpus/svg/ 2>/dev/null || true
cp "$root"/tests/hostile/*.zip "$root"/tests/hostile/*.tar.gz corpus/archive/ 2>/dev/null || true
cp "$root"/tests/hostile/scripts/* corpus/script/ 2>/dev/null || true
i=0
for f in "$root"/fixtures/northstar/*.csv "$root"/fixtures/agents/*/source/*.csv "$root"/fixtures/real/*.csv; do
  [ -f "$f" ] || continue
  i=$((i + 1)); cp "$f" "corpus/source_csv/seed-$i"
done
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cargo +nightly fuzz list)
fi
cargo +nightly fuzz build -O
for t in "${targets[@]}"; do
  echo "fuzz: $t for ${secs}s"
  cargo +nightly fuzz run -O "$t" "corpus/$t" -- \
    -max_total_time="$secs" -timeout=10 -rss_limit_mb=1024 -print_final_stats=1 2>&1 | tail -n 12
  test "${PIPESTATUS[0]}" -eq 0
done
