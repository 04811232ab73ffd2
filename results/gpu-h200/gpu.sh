#!/bin/bash
# One device call: GPU tests, throughput beside PyTorch and pgx, self-play end to end.
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
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; lscpu | grep -E "Model name|^CPU\(s\)"; ldconfig -p | grep -c libvulkan; } 2>&1 | tee -a "$L"
stamp "backend agreement (wgpu vs flex), BURNMATE_REQUIRE_WGPU=1"
BURNMATE_REQUIRE_WGPU=1 timeout 120 /tmp/libtests backend_agreement --nocapture 2>&1 | grep -v "selector: largest" | tail -25 | tee -a "$L"
stamp "burnmate bench vulkan"
timeout 150 $B bench --backend vulkan --batch 1,64,1024,16384 --seconds 0.2 2>&1 | tee -a "$L"
stamp "torch anchors"
timeout 60 python3 .dev/gpu_anchor.py --batches 1,64,1024,16384 --seconds 0.2 2>&1 | tee -a "$L"
timeout 40 python3 benches/anchors/search_anchor.py 779 4170 --batches 1,64,1024,16384 --seconds 0.2 2>&1 | tee -a "$L"
stamp "selfplay batched 1024 envs"
timeout 75 $B train configs/selfplay-batched.toml --backend vulkan --envs 1024 --set games=2048 --set eval_games=2 --set eval_every=100000 --out /tmp/sb 2>&1 | tail -4 | tee -a "$L"
for n in 256 1024; do
  stamp "afterstate $n envs"
  timeout 50 $B train configs/selfplay-afterstate.toml --backend vulkan --envs $n --set games=$((2 * n)) --set eval_games=2 --set eval_every=100000 --set afterstate.epsilon_start=0.05 --set afterstate.epsilon_end=0.05 --out /tmp/as$n 2>&1 | tail -3 | tee -a "$L"
done
stamp "search learner kqk, 360 games, vulkan"
timeout 75 $B matrix --games kqk --algorithms mcts --seeds 1 --budget 0.01 --starts shipped --backend vulkan --out /tmp/mx 2>&1 | tail -4 | tee -a "$L"
grep -o '"train_seconds": [0-9.]*' /tmp/mx/matrix.json 2>/dev/null | head -1 | tee -a "$L"
stamp "pgx"
timeout 80 python3 .dev/pgx_anchor.py --batches 4096 --steps 100 2>&1 | tail -3 | tee -a "$L"
stamp done
tar czf "$OUT/runs.tgz" /tmp/sb/summary.json /tmp/as*/summary.json /tmp/mx/matrix.json 2>/dev/null
