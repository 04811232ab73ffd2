"""Where burnmate loses on the ladder: Stockfish (full strength, one thread, `go
nodes N`) scores every position of burnmate's lost games in a ladder's results.tsv
(rows FIRST..LAST, one rung: game i uses opening (i % 100) // 2, burnmate white in
even games); the first of burnmate's moves after which its expected score falls by
>= 0.25 to below 0.5 is printed as its decisive mistake (or "no single drop"), and
every ply's score from burnmate's side goes to OUT.json for lost_at.py.

    python3 blunders2.py RESULTS.tsv FIRST LAST NODES OUT.json"""
import subprocess, sys, math, collections
import os
OPENINGS = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', 'data', 'openings.epd')
tsv, first, last, nodes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
sf = subprocess.Popen(['/usr/games/stockfish'], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
def send(c): sf.stdin.write(c + '\n'); sf.stdin.flush()
send('uci'); send('setoption name Threads value 1'); send('setoption name Hash value 16'); send('isready')
while 'readyok' not in sf.stdout.readline(): pass
openings = [l.split()[:4] for l in open(OPENINGS) if l.strip()]
def score(fen_moves):
    send('position ' + fen_moves); send(f'go nodes {nodes}')
    last = None
    while True:
        line = sf.stdout.readline()
        if line.startswith('info') and ' score ' in line:
            t = line.split()
            k = t.index('score')
            last = (t[k+1], int(t[k+2]))
        if line.startswith('bestmove'):
            break
    kind, v = last
    if kind == 'mate':
        return 10000 if v > 0 else -10000
    return v
def expected(cp):  # side to move's expected score
    return 1 / (1 + 10 ** (-cp / 400))
rows = [l.rstrip('\n').split('\t') for l in open(tsv)]
summary = collections.Counter()
trace = []
for r in rows[first:last]:
    i = int(r[0]); white = i % 2 == 0
    res = r[1]
    lost = res != '1/2-1/2' and ((res == '1-0') != white)
    if not lost: continue
    moves = r[3].split()
    fen = ' '.join(openings[(i % 100) // 2]) + ' 0 1'
    found = None
    # side to move at ply 0 from the fen
    stm_white = fen.split()[1] == 'w'
    prev = None
    evals = []
    for ply in range(len(moves) + 1):
        cp = score(f'fen {fen} moves ' + ' '.join(moves[:ply]))
        mover_white = stm_white if ply % 2 == 0 else not stm_white
        ours_cp = cp if mover_white == white else -cp
        evals.append(ours_cp)
        if prev is not None:
            p_ply, p_cp = prev
            mover_was_white = stm_white if p_ply % 2 == 0 else not stm_white
            if mover_was_white == white:
                drop = expected(p_cp) - expected(ours_cp)
                if drop >= 0.25 and expected(ours_cp) < 0.5:
                    found = found or (p_ply, p_cp, ours_cp)
        prev = (ply, ours_cp)
    trace.append({'game': i, 'evals': evals, 'plies': len(moves)})
    if found:
        p_ply, before, after = found
        # pieces on the board at that ply: count via python-less trick: ask nothing, estimate from the FEN after moves via stockfish 'd'
        send(f'position fen {fen} moves ' + ' '.join(moves[:p_ply])); send('d')
        board_fen = None
        while True:
            line = sf.stdout.readline()
            if line.startswith('Fen:'): board_fen = line.split()[1]
            if line.startswith('Checkers'): break
        pieces = sum(ch.isalpha() for ch in board_fen)
        print(f'game {i}: ply {p_ply} of {len(moves)}, {pieces} pieces, {before} -> {after} cp ({moves[p_ply]})', flush=True)
        phase = 'opening (<= 30 ply)' if p_ply <= 30 else ('endgame (<= 12 pieces)' if pieces <= 12 else 'middlegame')
        summary[phase] += 1
    else:
        print(f'game {i}: no single drop', flush=True); summary['gradual'] += 1
print(dict(summary))
import json
json.dump(trace, open(sys.argv[5], 'w'))
send('quit')
