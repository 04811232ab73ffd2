#!/bin/bash
# The GPU checks of issue 34 as one device call (about 6 minutes), for a session whose
# `device` tool can start a machine. Prepare on the build machine first:
#   cargo build --release --features autotune --bench afterstate   (and --bench search)
#   cargo test --release --features autotune -p burnmate --lib --no-run
#   (`autotune` is off in the default build since 2026-11-28: Cargo.toml says why)
#   strip each of: target/release/burnmate, the bench target/release/deps/afterstate-*
#   (and search-*), the lib tests target/release/deps/burnmate-* that `--list`s
#   backend_agreement; xz them into .dev/{burnmate,afterstate,libtests,search}.xz
#   (the working tree may carry 64 MiB in all)
#   .gl: the Vulkan loader's .debs (device tool's README)
# then run `bash benches/gpu_check.sh` with carry [".dev", ".gl"]. Steps: the
# backend-agreement test; the afterstate bench's round parts (vulkan, then flex on the
# device's host); the afterstate learner end to end at 256 and 1024 envs (the first
# run pays the driver's pipeline compilation); selfplay-batched at 1024 envs; the
# afterstate learner on flex on the host; with .dev/search.xz, the search net's rows,
# cubecl's kernel profile of them ($OUT/profile-search.log.xz; summarise with
# `awk -f results/gpu-h100-2026-11-27c/profile-summary.awk`) and the PyTorch anchor.
# Everything goes to $OUT/log.md as it is measured, so a stopped step keeps what it
# printed; each training run's whole output goes to $OUT/NAME.log.
set -u
L=$OUT/log.md
t0=$(date +%s)
stamp() { echo "## [$(($(date +%s) - t0)) s] $*" | tee -a "$L"; }
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
[ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ] && export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
for f in .dev/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" >/tmp/$n & done; wait
B=/tmp/burnmate
for x in /tmp/burnmate /tmp/afterstate /tmp/search /tmp/libtests /tmp/search-old; do [ -f $x ] && chmod +x $x; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | tee -a "$L"
# A training run: its output to $OUT/NAME.log; on a timeout, how far it got (the
# rows of its metrics, flushed so far to metrics.csv.partial until the run finishes).
train() {
  local name=$1 limit=$2; shift 2
  timeout "$limit" $B train "$@" --out /tmp/$name >"$OUT/$name.log" 2>&1
  echo "exit $? after $(($(date +%s) - t0)) s; games: $(($(cat /tmp/$name/metrics.csv* 2>/dev/null | wc -l) - 1))" >>"$OUT/$name.log"
  tail -4 "$OUT/$name.log" | tee -a "$L"
}
AS="configs/selfplay-afterstate.toml --set eval_games=2 --set eval_every=100000 --set afterstate.epsilon_start=0.05 --set afterstate.epsilon_end=0.05"
stamp "backend agreement (wgpu vs flex)"
BURNMATE_REQUIRE_WGPU=1 timeout 75 /tmp/libtests backend_agreement --nocapture 2>&1 | grep -E "^test |largest|passed|failed" | tail -20 | tee -a "$L"
stamp "afterstate round parts (vulkan, then flex on this host)"
BURNMATE_BENCH_BACKENDS=vulkan,flex timeout 100 /tmp/afterstate 2>&1 | tee -a "$L"
stamp "afterstate learner, vulkan, 256 envs, 512 games (driver cache warmed by the bench)"
train as256 90 $AS --backend vulkan --envs 256 --set games=512
stamp "afterstate learner, vulkan, 1024 envs, 2048 games"
train as1024 80 $AS --backend vulkan --envs 1024 --set games=2048
stamp "afterstate learner, vulkan, 256 envs, 1024 games (warm)"
train as256b 50 $AS --backend vulkan --envs 256 --set games=1024
stamp "selfplay-batched, vulkan, 1024 envs, 2048 games"
train batched 50 configs/selfplay-batched.toml --backend vulkan --envs 1024 --set games=2048 --set eval_games=2 --set eval_every=100000
stamp "afterstate learner, flex on this host, 64 envs, 1024 games"
train asflex 25 $AS --backend flex --envs 64 --set games=1024
if [ -x /tmp/search ]; then
  stamp "search learner's net (vulkan, then flex on this host)"
  BURNMATE_BENCH_BACKENDS=vulkan,flex timeout 60 /tmp/search 2>&1 | tee -a "$L"
  stamp "kernel profile of the search bench (vulkan)"
  CUBECL_DEBUG_LOG=/tmp/profile.log CUBECL_DEBUG_OPTION=profile BURNMATE_BENCH_BACKENDS=vulkan \
    timeout 45 /tmp/search 2>&1 | tee -a "$L"
  xz -1 -T4 -c /tmp/profile.log >"$OUT/profile-search.log.xz"
  stamp "torch anchor, search net"
  timeout 25 python3 benches/anchors/search_anchor.py 779 4170 --batches 64,1024 --seconds 0.2 2>&1 | tee -a "$L"
fi
stamp done
