#!/bin/bash
# The GPU checks of issue 34 as one device call (about 6 minutes), for a session whose
# `device` tool can start a machine. Prepare on the build machine first:
#   cargo build --release --bench search --bench afterstate
#   cargo test --release -p burnmate --lib --no-run
#   strip each of: target/release/burnmate, the benches target/release/deps/afterstate-*
#   and search-*, the lib tests target/release/deps/burnmate-* that `--list`s
#   backend_agreement; xz them into .dev/{burnmate,afterstate,search,libtests}.xz;
#   optionally .dev/search-old.xz: the search bench of the commit before a change, to
#   compare in the same call (the working tree may carry 64 MiB in all)
#   cp ../shared/tools/gpu_anchor.py .dev/
#   .gl: the Vulkan loader's .debs (device tool's README)
# then run `bash benches/gpu_check.sh` with carry [".dev", ".gl"]. Everything goes to
# $OUT/log.md as it is measured, so a stopped step keeps what it printed; the
# end-to-end run's whole output goes to $OUT/afterstate.log, and cubecl's kernel
# profile of the search bench (every kernel launched, its time, a summary at each
# sync) to $OUT/profile-{new,old}.log.xz.
set -u
L=$OUT/log.md
t0=$(date +%s)
stamp() { echo "## [$(($(date +%s) - t0)) s] $*" | tee -a "$L"; }
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
[ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ] && export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
for f in .dev/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" >/tmp/$n & done; wait
chmod +x /tmp/burnmate /tmp/afterstate /tmp/search /tmp/libtests
[ -f /tmp/search-old ] && chmod +x /tmp/search-old
B=/tmp/burnmate
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | tee -a "$L"
stamp "backend agreement (wgpu vs flex)"
BURNMATE_REQUIRE_WGPU=1 timeout 75 /tmp/libtests backend_agreement --nocapture 2>&1 | grep -E "^test |largest|passed|failed" | tail -20 | tee -a "$L"
stamp "search learner's net, this tree (vulkan, then flex on this host)"
BURNMATE_BENCH_BACKENDS=vulkan,flex timeout 60 /tmp/search 2>&1 | tee -a "$L"
if [ -x /tmp/search-old ]; then
  stamp "search learner's net, the commit before (vulkan)"
  BURNMATE_BENCH_BACKENDS=vulkan timeout 45 /tmp/search-old 2>&1 | tee -a "$L"
fi
for v in new old; do
  bin=/tmp/search; [ $v = old ] && bin=/tmp/search-old
  [ -x $bin ] || continue
  stamp "kernel profile of the search bench, $v (vulkan)"
  CUBECL_DEBUG_LOG=/tmp/profile-$v.log CUBECL_DEBUG_OPTION=profile BURNMATE_BENCH_BACKENDS=vulkan \
    timeout 45 $bin 2>&1 | tee -a "$L"
  xz -1 -T4 -c /tmp/profile-$v.log >"$OUT/profile-$v.log.xz"
done
stamp "torch anchor, search net"
timeout 25 python3 benches/anchors/search_anchor.py 779 4170 --batches 64,1024 --seconds 0.2 2>&1 | tee -a "$L"
stamp "afterstate round parts (vulkan, then flex on this host)"
BURNMATE_BENCH_BACKENDS=vulkan,flex timeout 80 /tmp/afterstate 2>&1 | tee -a "$L"
stamp "afterstate learner, 256 envs, 256 games"
timeout 45 $B train configs/selfplay-afterstate.toml --backend vulkan --envs 256 --set games=256 \
  --set eval_games=2 --set eval_every=100000 --set afterstate.epsilon_start=0.05 \
  --set afterstate.epsilon_end=0.05 --out /tmp/as >"$OUT/afterstate.log" 2>&1
echo "exit $?" >>"$OUT/afterstate.log"
tail -4 "$OUT/afterstate.log" | tee -a "$L"
stamp done
