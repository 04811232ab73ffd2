set -u
L=$OUT/log.md; t0=$(date +%s)
stamp() { echo "## [$(($(date +%s) - t0)) s] $*" | tee -a "$L"; }
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
[ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ] && export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
for n in search burnmate; do xz -dc .dev/$n.xz >/tmp/$n & done; wait; chmod +x /tmp/search /tmp/burnmate
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | tee -a "$L"
stamp "search net, this tree (vulkan, cold), then flex"
BURNMATE_BENCH_BACKENDS=vulkan,flex timeout 110 /tmp/search 2>&1 | tee -a "$L"
stamp "search net again (vulkan, driver cache warm)"
BURNMATE_BENCH_BACKENDS=vulkan timeout 50 /tmp/search 2>&1 | tee -a "$L"
stamp "afterstate learner, 256 envs, 256 games"
timeout 100 /tmp/burnmate train configs/selfplay-afterstate.toml --backend vulkan --envs 256 --set games=256 \
  --set eval_games=2 --set eval_every=100000 --set afterstate.epsilon_start=0.05 \
  --set afterstate.epsilon_end=0.05 --out /tmp/as >"$OUT/afterstate.log" 2>&1
echo "exit $?" >>"$OUT/afterstate.log"; tail -5 "$OUT/afterstate.log" | tee -a "$L"
stamp done
