#!/bin/bash
# The GPU issue's checks for the chess trainer as one device call (about 8 minutes),
# for a session whose `device` tool can start a machine. Prepared 2026-12-05 on a
# machine without a GPU (its steps ran there on lavapipe); not yet run on a GPU.
# Prepare on the build machine first:
#   cargo build --release --features autotune --bench nnue_training
#   cargo test --release --features autotune -p burnmate --lib --no-run
#   cargo build --release --features autotune
#   strip target/release/burnmate, the bench target/release/deps/nnue_training-* and
#   the lib tests target/release/deps/burnmate-* that `--list`s backend_agreement;
#   xz them into .dev/{burnmate,nnue_training,libtests}.xz (carry: 64 MiB in all)
#   .gl: the Vulkan loader's .debs (the device tool's README)
# then run `bash benches/gpu_check_chess.sh` with carry [".dev", ".gl"]. Steps: the
# backend-agreement test (the chess NNUE step among the nets); the trainer's step on
# the host's cores and on vulkan at batches 1k-64k; cubecl's kernel profile of the
# 16k step ($OUT/profile-nnue.log.xz); PyTorch eager on the same net and batches;
# generation 1 of configs/chess-zero.toml trained on flex and on vulkan from the same
# generation 0 (the progress line's training seconds); a tiny run on vulkan twice in
# a row, against ndarray, for what a second process pays before its first step.
# Everything goes to $OUT/log.md as it is measured.
set -u
L=$OUT/log.md
t0=$(date +%s)
stamp() { echo "## [$(($(date +%s) - t0)) s] $*" | tee -a "$L"; }
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
[ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ] && export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
for f in .dev/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" >/tmp/$n & done; wait
chmod +x /tmp/burnmate /tmp/nnue_training /tmp/libtests
B=/tmp/burnmate
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | tee -a "$L"
stamp "backend agreement (wgpu vs flex)"
BURNMATE_REQUIRE_WGPU=1 timeout 90 /tmp/libtests backend_agreement --nocapture 2>&1 | grep -E "^test |largest|passed|failed" | tail -20 | tee -a "$L"
stamp "the trainer's step: host threads, then vulkan at 1k-64k"
BURNMATE_NNUE_GPU_BATCHES=1024,4096,16384,65536 timeout 150 /tmp/nnue_training --bench 2>&1 | tee -a "$L"
stamp "kernel profile of the 16k step (vulkan)"
CUBECL_DEBUG_LOG=/tmp/profile.log CUBECL_DEBUG_OPTION=profile BURNMATE_NNUE_GPU_BATCHES=16384 \
  timeout 60 /tmp/nnue_training --bench >/dev/null 2>&1
xz -1 -T4 -c /tmp/profile.log >"$OUT/profile-nnue.log.xz"
stamp "torch anchor, the same net and step"
timeout 40 python3 benches/anchors/nnue_anchor.py --seconds 0.5 2>&1 | tee -a "$L"
stamp "generation 0 of configs/chess-zero.toml (flex self-play on every core)"
timeout 120 $B train configs/chess-zero.toml --set generations=0 --out /tmp/g0 2>&1 | tail -3 | tee -a "$L"
for backend in flex vulkan; do
  cp -r /tmp/g0 /tmp/g1-$backend
  stamp "generation 1 trained on $backend"
  timeout 150 $B resume /tmp/g1-$backend --generations 1 --set backend=$backend >"$OUT/g1-$backend.log" 2>&1
  grep -E "wall s|rror|^ +1 " "$OUT/g1-$backend.log" | tail -3 | tee -a "$L"
done
TINY="--set generations=1 --set games=4 --set nodes=150 --set gate_games=2 --set gate_nodes=150 --set epochs=2 --set hidden=8 --set max_plies=30 --set batch=64 --set table_mb=1 --set train_positions=400"
for run in ndarray vulkan-first vulkan-second; do
  stamp "tiny run, ${run%%-*} ($run)"
  s=$(date +%s.%N)
  timeout 200 $B train configs/chess-zero.toml $TINY --backend ${run%%-*} --out /tmp/tiny-$run >/dev/null 2>&1
  echo "exit $?, wall $(echo "$(date +%s.%N) - $s" | bc) s" | tee -a "$L"
done
stamp done
