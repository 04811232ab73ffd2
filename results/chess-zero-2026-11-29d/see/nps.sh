#!/bin/bash
# nps.sh ARGS...: seconds for 3 M nodes from each of three middlegames, `burnmate uci builtin:material ARGS`, core 0
for pos in "startpos moves e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6 e1g1 f8e7" "startpos moves d2d4 g8f6 c2c4 e7e6 b1c3 f8b4 e2e3 e8g8 f1d3 d7d5" "fen r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/P4PPP/R2QKB1R w KQ - 0 9"; do
  coproc E { taskset -c 0 ./burnmate uci builtin:material "$@" 2>/dev/null; }
  echo uci >&${E[1]}; echo "position $pos" >&${E[1]}; echo isready >&${E[1]}
  while read -r line <&${E[0]}; do [[ $line == readyok ]] && break; done
  start=$(date +%s.%N); echo "go nodes 3000000" >&${E[1]}
  while read -r line <&${E[0]}; do [[ $line == bestmove* ]] && break; done
  end=$(date +%s.%N); echo quit >&${E[1]}; wait $E_PID 2>/dev/null
  echo "$end $start" | awk '{printf "%.2f s (%.2f M nodes/s)\n", $1-$2, 3/($1-$2)}'
done
