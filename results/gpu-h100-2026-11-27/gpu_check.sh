#!/bin/bash
# The GPU checks of issue 34 as one device call (about 8 minutes), for a session whose
# `device` tool can start a machine. Prepare on the build machine first:
#   cargo build --release --benches && cargo test --release -p burnmate --lib --no-run
#   strip each of: target/release/burnmate, the benches target/release/deps/afterstate-*
#   and search-*, the lib tests target/release/deps/burnmate-* that `--list`s
#   backend_agreement; xz them into .dev/{burnmate,afterstate,search,libtests}.xz
#   cp ../shared/tools/gpu_anchor.py .dev/
#   .gl: the Vulkan loader's .debs (device tool's README)
# then run `bash benches/gpu_check.sh` with carry [".dev", ".gl"] (and ".nvcache" to
# start with the driver's pipeline cache of an earlier call). Everything goes to
# $OUT/log.md as it is measured, so a stopped step keeps what it printed; the driver's
# pipeline cache comes back as $OUT/nvcache.tar.
set -u
L=$OUT/log.md
t0=$(date +%s)
stamp() { echo "## [$(($(date +%s) - t0)) s] $*" | tee -a "$L"; }
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
[ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ] && export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
# The NVIDIA driver's compiled-pipeline cache, kept where it can be carried back.
export __GL_SHADER_DISK_CACHE=1 __GL_SHADER_DISK_CACHE_PATH=/tmp/nvcache \
  __GL_SHADER_DISK_CACHE_SIZE=4000000000 __GL_SHADER_DISK_CACHE_SKIP_CLEANUP=1
mkdir -p /tmp/nvcache
[ -f .nvcache/nvcache.tar ] && tar -xf .nvcache/nvcache.tar -C /tmp/nvcache && echo "pipeline cache carried in" | tee -a "$L"
for n in burnmate afterstate search libtests; do xz -dc .dev/$n.xz >/tmp/$n & done; wait
chmod +x /tmp/burnmate /tmp/afterstate /tmp/search /tmp/libtests
B=/tmp/burnmate
keep_cache() { tar -cf "$OUT/nvcache.tar" -C /tmp/nvcache . 2>/dev/null; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | tee -a "$L"
stamp "search learner's net (flex on this host, then vulkan)"
BURNMATE_BENCH_BACKENDS=flex,vulkan timeout 60 /tmp/search 2>&1 | tee -a "$L"
keep_cache
stamp "afterstate round parts (vulkan, then flex on this host)"
BURNMATE_BENCH_BACKENDS=vulkan,flex timeout 90 /tmp/afterstate 2>&1 | tee -a "$L"
keep_cache
stamp "backend agreement (wgpu vs flex)"
BURNMATE_REQUIRE_WGPU=1 timeout 60 /tmp/libtests backend_agreement --nocapture 2>&1 | grep -E "^test |largest|passed|failed" | tail -8 | tee -a "$L"
keep_cache
stamp "torch anchors"
timeout 45 python3 .dev/gpu_anchor.py --batches 64,1024,16384 --seconds 0.2 2>&1 | tee -a "$L"
timeout 25 python3 benches/anchors/search_anchor.py 779 4170 --batches 64,1024 --seconds 0.2 2>&1 | tee -a "$L"
stamp "burnmate bench vulkan (rows as measured)"
timeout 100 $B bench --backend vulkan --batch 64,1024,16384 --seconds 0.2 2>&1 | tee -a "$L"
keep_cache
stamp "afterstate learner, 256 envs, 256 games"
timeout 40 $B train configs/selfplay-afterstate.toml --backend vulkan --envs 256 --set games=256 \
  --set eval_games=2 --set eval_every=100000 --set afterstate.epsilon_start=0.05 \
  --set afterstate.epsilon_end=0.05 --out /tmp/as 2>&1 | grep training | tee -a "$L"
keep_cache
stamp done
