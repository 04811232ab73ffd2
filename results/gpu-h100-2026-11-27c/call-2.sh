set -u
L=$OUT/log.md; t0=$(date +%s)
stamp() { echo "## [$(($(date +%s) - t0)) s] $*" | tee -a "$L"; }
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
[ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ] && export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
for n in burnmate libtests; do xz -dc .dev/$n.xz >/tmp/$n & done; wait; chmod +x /tmp/burnmate /tmp/libtests
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | tee -a "$L"
stamp "backend agreement (wgpu vs flex)"
BURNMATE_REQUIRE_WGPU=1 timeout 150 /tmp/libtests backend_agreement --nocapture 2>&1 | grep -E "^test |largest|passed|failed|panicked" | tail -12 | tee -a "$L"
AS="configs/selfplay-afterstate.toml --backend vulkan --envs 256 --set eval_games=2 --set eval_every=100000 --set afterstate.epsilon_start=0.05 --set afterstate.epsilon_end=0.05"
run() { local name=$1 limit=$2 vars=$3; shift 3
  env $vars timeout $limit /tmp/burnmate train $AS "$@" --out /tmp/$name >"$OUT/$name.log" 2>&1
  echo "exit $? at $(($(date +%s) - t0)) s; games: $(($(wc -l </tmp/$name/metrics.csv) - 1))" >>"$OUT/$name.log"; grep -E "^training|^exit|rror" "$OUT/$name.log" | tee -a "$L"; }
stamp "afterstate 256 envs, 256 games (cold)"
run warm 100 "" --set games=256
stamp "afterstate 256 envs, 512 games (warm)"
run default 45 "" --set games=512
stamp "the same with CUBECL_AUTOTUNE_SHORT_CIRCUIT=0 (no throughput probes)"
run noprobe 45 CUBECL_AUTOTUNE_SHORT_CIRCUIT=0 --set games=512
stamp "the same with a cubecl profile"
run profiled 60 "CUBECL_DEBUG_LOG=/tmp/p.log CUBECL_DEBUG_OPTION=profile" --set games=512
awk -f .dev/summary.awk /tmp/p.log | cut -c1-160 | tee -a "$L"
stamp done
