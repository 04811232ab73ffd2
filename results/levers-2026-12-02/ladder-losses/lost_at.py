"""From blunders2.py's per-ply evaluations of burnmate's lost games: the ply after
which its expected score (Stockfish's eval, logistic at 400 cp) stays below 0.25 to
the end ("lost at"), the pieces on the board there, and the expected score at plies
20, 40, 60."""
import json, subprocess, sys, collections
import os
OPENINGS = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', 'data', 'openings.epd')
trace = json.load(open(sys.argv[1]))
openings = [l.split()[:4] for l in open(OPENINGS) if l.strip()]
rows = {int(l.split('\t')[0]): l.rstrip('\n').split('\t') for l in open(sys.argv[2])}
sf = subprocess.Popen(['/usr/games/stockfish'], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
def send(c): sf.stdin.write(c + '\n'); sf.stdin.flush()
def pieces(fen, moves):
    send(f'position fen {fen} moves ' + ' '.join(moves)); send('d')
    board = None
    while True:
        line = sf.stdout.readline()
        if line.startswith('Fen:'): board = line.split()[1]
        if line.startswith('Checkers'): return sum(c.isalpha() for c in board)
E = lambda cp: 1 / (1 + 10 ** (-cp / 400))
phases = collections.Counter(); at = []
for t in trace:
    e = [E(cp) for cp in t['evals']]
    lost = next(i for i in range(len(e)) if all(x < 0.25 for x in e[i:]))
    # the last ply before it at which burnmate still stood >= 0.5
    even = max([i for i in range(lost) if e[i] >= 0.5], default=None)
    g = t['game']; r = rows[g]
    fen = ' '.join(openings[(g % 100) // 2]) + ' 0 1'
    n = pieces(fen, r[3].split()[:lost])
    at.append((lost, n))
    phase = 'opening (ply <= 30)' if lost <= 30 else ('endgame (<= 12 pieces)' if n <= 12 else 'middlegame')
    phases[phase] += 1
    print(f"game {g}: lost at ply {lost} of {t['plies']} ({n} pieces); last >= 0.5 at ply {even}; E at 20/40/60: " +
          ' '.join(f'{e[k]:.2f}' if k < len(e) else '-' for k in (20, 40, 60)))
print(dict(phases))
plies = sorted(a for a, _ in at); ps = sorted(n for _, n in at)
print('median lost-at ply', plies[len(plies)//2], 'median pieces there', ps[len(ps)//2])
send('quit')
