#!/usr/bin/env bash
# burnmate's tablebase solver beside syzygy1/tb's `rtbgen`, the generator of the
# Syzygy tables, in one run on one core (issue 59's anchor). Not run by CI.
#
#   bash benches/anchors/rtbgen.sh TB_CHECKOUT [RUNS]
#
# TB_CHECKOUT: a checkout of https://github.com/syzygy1/tb (its `src/` is built here
# into a scratch directory with `make rtbgen`, zstd switched off: the timings do not
# compress). Each generator builds KBNK from an empty cache, best of RUNS (default 3),
# pinned to core 0 (`taskset -c 0`, `rtbgen -t 1`); the subtables KBvK and KNvK are
# generated for rtbgen first (it reads them; burnmate builds its own, inside its time).
# Then the same for KQKP against rtbgenp, the generator of the tables with pawns.
# Prints the machine, each run's user seconds and peak memory, and the ratio of the
# bests. burnmate's time is `burnmate solve kbnk` end to end: the build and its report.
set -euo pipefail

tb=${1:?usage: rtbgen.sh TB_CHECKOUT [RUNS]}
runs=${2:-3}
root=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

[ -f "$tb/src/rtbgen.c" ] || { echo "error: $tb is not a syzygy1/tb checkout (no src/rtbgen.c)" >&2; exit 1; }
command -v taskset > /dev/null || { echo "error: taskset (util-linux) is needed to pin one core" >&2; exit 1; }

cp -r "$tb/src" "$scratch/src"
sed -i 's/^FLAGS += -DUSE_ZSTD/#&/; s/^LDFLAGS += -lzstd/#&/' "$scratch/src/Makefile"
make -s -C "$scratch/src" rtbgen rtbgenp > "$scratch/make.log" 2>&1 \
    || { echo "error: building rtbgen failed (see $scratch/make.log)" >&2; cat "$scratch/make.log" >&2; exit 1; }
(cd "$root" && cargo build --release --quiet)
burnmate="$root/target/release/burnmate"

mkdir -p "$scratch/syzygy"
export RTBWDIR="$scratch/syzygy" RTBZDIR="$scratch/syzygy"
(cd "$scratch/syzygy" && for sub in KBvK KNvK; do "$scratch/src/rtbgen" -t 1 "$sub" > /dev/null; done)

# Prints "USER_SECONDS PEAK_KB" of one pinned run of the command.
timed() {
    /usr/bin/time -f "%U %M" -o "$scratch/time" taskset -c 0 "$@" > /dev/null 2>&1
    cat "$scratch/time"
}

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; $(date -u +%F)"
best_rtbgen=999 best_burnmate=999
for run in $(seq "$runs"); do
    read -r r_user r_kb < <(cd "$scratch/syzygy" && timed "$scratch/src/rtbgen" -t 1 -g KBNvK)
    rm -rf "$scratch/cache"
    read -r b_user b_kb < <(timed "$burnmate" solve kbnk --cache "$scratch/cache")
    echo "run $run: rtbgen -t 1 -g KBNvK ${r_user} s (${r_kb} KB); burnmate solve kbnk ${b_user} s (${b_kb} KB)"
    best_rtbgen=$(echo "$r_user $best_rtbgen" | awk '{print ($1 < $2) ? $1 : $2}')
    best_burnmate=$(echo "$b_user $best_burnmate" | awk '{print ($1 < $2) ? $1 : $2}')
done
echo "best: rtbgen ${best_rtbgen} s, burnmate ${best_burnmate} s: burnmate at $(echo "$best_burnmate $best_rtbgen" | awk '{printf "%.2f", $1 / $2}')x rtbgen"

# Tables with pawns: KQKP, rtbgenp (rtbgen's pawn generator) reading its subtables
# generated first (KQvK, KRvK, KQvKQ/R/B/N, KPvK); burnmate builds its own inside its time.
(cd "$scratch/syzygy" && for sub in KQvK KRvK KQvKQ KQvKR KQvKB KQvKN; do "$scratch/src/rtbgen" -t 1 "$sub" > /dev/null; done \
    && "$scratch/src/rtbgenp" -t 1 KPvK > /dev/null)
best_rtbgenp=999 best_pawns=999
for run in $(seq "$runs"); do
    read -r r_user r_kb < <(cd "$scratch/syzygy" && timed "$scratch/src/rtbgenp" -t 1 -g KQvKP)
    rm -rf "$scratch/cache"
    read -r b_user b_kb < <(timed "$burnmate" solve kqkp --cache "$scratch/cache")
    echo "run $run: rtbgenp -t 1 -g KQvKP ${r_user} s (${r_kb} KB); burnmate solve kqkp ${b_user} s (${b_kb} KB)"
    best_rtbgenp=$(echo "$r_user $best_rtbgenp" | awk '{print ($1 < $2) ? $1 : $2}')
    best_pawns=$(echo "$b_user $best_pawns" | awk '{print ($1 < $2) ? $1 : $2}')
done
echo "best: rtbgenp ${best_rtbgenp} s, burnmate ${best_pawns} s: burnmate at $(echo "$best_pawns $best_rtbgenp" | awk '{printf "%.2f", $1 / $2}')x rtbgenp"
