#!/bin/bash
# The GPU checks of issue 34 as one device call (about 9 minutes), for a session whose
# `device` tool can start a machine. Prepare on the build machine first:
#   cargo build --release && cargo test --release --lib --no-run
#   mkdir -p .dev && strip -o /tmp/b target/release/burnmate && xz -c /tmp/b >.dev/burnmate.xz
#   strip -o /tmp/t target/release/deps/burnmate-<hash> && xz -c /tmp/t >.dev/burnmate-lib-tests.xz
#   cp ../shared/tools/gpu_anchor.py ../shared/tools/pgx_anchor.py .dev/
#   .gl: the Vulkan loader's .debs; .whl: pgx and svgwrite wheels (device tool's README)
# then run `bash benches/gpu_check.sh` with carry [".dev", ".gl", ".whl"]. Everything
# goes to $OUT/log.md as it is measured, so a stopped step keeps what it printed.
set -u
L=$OUT/log.md
t0=$(date +%s)
stamp() { echo "## [$(($(date +%s) - t0)) s] $*" | tee -a "$L"; }
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site
[ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ] && export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
xz -dc .dev/burnmate.xz >/tmp/burnmate & xz -dc .dev/burnmate-lib-tests.xz >/tmp/libtests & wait
chmod +x /tmp/burnmate /tmp/libtests
B=/tmp/burnmate
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | tee -a "$L"
stamp "backend agreement (wgpu vs flex)"
BURNMATE_REQUIRE_WGPU=1 timeout 90 /tmp/libtests backend_agreement --nocapture 2>&1 | grep -E "^test |largest" | tail -8 | tee -a "$L"
afterstate() { # $1 envs, $2 out
  timeout 60 $B train configs/selfplay-afterstate.toml --backend vulkan --envs "$1" --set games="$1" \
    --set eval_games=2 --set eval_every=100000 --set afterstate.epsilon_start=0.05 \
    --set afterstate.epsilon_end=0.05 --out "$2" 2>&1 | grep training | tee -a "$L"
}
# Cold, then warm (driver cache filled), then warm with minimal autotuning.
for pass in cold warm; do
  stamp "afterstate 256 envs, $pass"
  afterstate 256 /tmp/as-$pass
done
stamp "afterstate 256 envs, warm, CUBECL_AUTOTUNE_LEVEL=minimal"
CUBECL_AUTOTUNE_LEVEL=minimal afterstate 256 /tmp/as-minimal
stamp "burnmate bench vulkan (rows as measured)"
timeout 150 $B bench --backend vulkan --batch 1,64,1024,16384 --seconds 0.2 2>&1 | tee -a "$L"
stamp "torch anchors"
timeout 50 python3 .dev/gpu_anchor.py --batches 1,64,1024,16384 --seconds 0.2 2>&1 | tee -a "$L"
timeout 30 python3 benches/anchors/search_anchor.py 779 4170 --batches 1,64,1024,16384 --seconds 0.2 2>&1 | tee -a "$L"
stamp "selfplay batched 1024 envs"
timeout 60 $B train configs/selfplay-batched.toml --backend vulkan --envs 1024 --set games=2048 \
  --set eval_games=2 --set eval_every=100000 --out /tmp/sb 2>&1 | grep training | tee -a "$L"
stamp "search learner kqk, 360 games"
timeout 60 $B matrix --games kqk --algorithms mcts --seeds 1 --budget 0.01 --starts shipped \
  --backend vulkan --out /tmp/mx 2>&1 | tail -3 | tee -a "$L"
stamp done
