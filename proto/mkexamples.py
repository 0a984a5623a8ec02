#!/usr/bin/python3
"""mkexamples.py - the worked examples of proto/PROTOCOL.md section 7.

Talks to a running carcd over a Unix socket in both encodings, runs every
method once, and prints markdown with the real bytes exchanged.  To renew
the examples after a protocol change:

    daemon/carcd --listen unix:/tmp/carcd.sock &
    /usr/bin/python3 proto/mkexamples.py /tmp/carcd.sock > /tmp/examples.md

and put /tmp/examples.md in place of section 7's examples.  Needs
python3-msgpack (Debian's; hence /usr/bin/python3).
"""
import socket, sys, json, msgpack
addr = sys.argv[1]
def conn():
    s = socket.socket(socket.AF_UNIX); s.connect(addr); s.settimeout(3); return s
def read_line(s, buf):
    """The next line a JSON-lines connection s sends; buf ([bytes]) keeps what came after it."""
    while b'\n' not in buf[0]:
        buf[0] += s.recv(1 << 20)
    l, buf[0] = buf[0].split(b'\n', 1)
    return l.decode()
J = conn(); M = conn(); mu = msgpack.Unpacker(raw=False); jbuf = [b'']
jnotes = []
def jl(line):
    J.sendall(line.encode() + b'\n')
    while True:
        l = read_line(J, jbuf)
        if l.startswith('[2,'): jnotes.append(l); continue
        return l
mid = [100]
mnotes = []
def mp(method, params):
    mid[0] += 1
    req = msgpack.packb([0, mid[0], method, [params]])
    M.sendall(req)
    while True:
        for m in mu:
            if m[0] == 2: mnotes.append(m); continue
            return req, m
        mu.feed(M.recv(1 << 20))
def short(s, n=700):
    return s if len(s) <= n else s[:n] + ' …'
out = []
def ex(title, method, params, jline=None, n=700, note=None):
    jline = jline or ('%s %s' % (method, json.dumps(params, separators=(',', ':'))) if params else method)
    jr = jl(jline)
    req, mr = mp(method, params)
    out.append('#### %s\n' % title)
    if note: out.append(note + '\n')
    out.append('JSON lines:\n\n```\n> %s\n< %s\n```\n' % (jline, short(jr, n)))
    out.append('MessagePack-RPC (request bytes in hex, then the response shown as JSON):\n\n```\n> %s\n< %s\n```\n' % (
        req.hex(' ') if len(req) <= 80 else req[:80].hex(' ') + ' …', short(json.dumps(mr, separators=(',', ':'), ensure_ascii=False), n)))
    return json.loads(jr)[3], mr[3]
ex('hello', 'hello', {'client': 'doc'}, n=900)
ex('ping', 'ping', {})
jg, mg = ex('new_game', 'new_game', {'players': ['ann', 'bob'], 'seed': 2024}, n=1200)
G = jg['game']; T = [s['token'] for s in jg['seats']]; A = jg['admin_token']
GM = mg['game']; TM = [s['token'] for s in mg['seats']]
ex('state', 'state', {'game': G}, jline='state {"game":%d}' % G, n=900)
# the msgpack connection works on its own game
jl_moves, mp_moves = ex('legal_moves', 'legal_moves', {'game': G}, n=500)
# subscribe the msgpack connection to the JSON game, so its notification shows
ex('subscribe', 'subscribe', {'game': G})
# a third connection (JSON lines) watches the JSON game with the state (carcd's own)
def liner():
    """A JSON-lines connection of its own: f(line) sends line and returns the next line read; f() only reads."""
    s = conn(); buf = [b'']
    def f(line=None):
        if line: s.sendall(line.encode() + b'\n')
        return read_line(s, buf)
    return f
sl = liner()
sline = 'subscribe {"game":%d,"state":true}' % G
sr = sl(sline)
# and a fourth watches it with the legal moves due (carcd's own too)
vl = liner()
vline = 'subscribe {"game":%d,"moves":true}' % G
vr = vl(vline)
mv = jl_moves['moves'][0]
legal = {(m['x'], m['y'], m['rot']) for m in jl_moves['moves']}
bad = None
for (x, y) in ((0, -1), (1, 0), (0, 1), (-1, 0)):
    for r in (0, 90, 180, 270):
        if (x, y, r) in legal: continue
        t = jl('apply_move ' + json.dumps({'game': G, 'token': T[0], 'move': dict(mv, x=x, y=y, rot=r)}, separators=(',', ':')))
        if 'edge' in t and not bad: bad = (dict(mv, x=x, y=y, rot=r), t)
if bad:
    out.append('#### an illegal placement\n\n```\n> apply_move {\"game\":%d,\"token\":\"…\",\"move\":%s}\n< %s\n```\n' % (G, json.dumps(bad[0], separators=(',', ':')), bad[1]))
line = 'apply_move ' + json.dumps({'game': G, 'token': T[0], 'seq': 0, 'move': mv}, separators=(',', ':'))
jr = jl(line)
out.append('#### apply_move\n\nJSON lines (the move is sent back exactly as legal_moves listed it):\n\n```\n> %s\n< %s\n```\n' % (line, jr))
# msgpack: apply on the msgpack game
lm = mp('legal_moves', {'game': GM})[1][3]
req, mr = mp('apply_move', {'game': GM, 'token': TM[0], 'move': lm['moves'][0]})
out.append('MessagePack-RPC:\n\n```\n> %s …\n< %s\n```\n' % (req[:80].hex(' '), json.dumps(mr, separators=(',', ':'))))
# the notification the msgpack subscriber got for the JSON move
M.settimeout(0.5)
notes = list(mnotes)
try:
    while True:
        for m in mu:
            if m[0] == 2: notes.append(m)
        if notes: break
        mu.feed(M.recv(1 << 20))
except socket.timeout: pass
M.settimeout(3)
out.append('The JSON connection is subscribed too: right after its response comes\n\n```\n< %s\n```\n' % (jl('ping') and jnotes[0]))
out.append('The watcher (a MessagePack connection subscribed to game %d) receives, after that JSON move:\n\n```\n< %s\n```\n' % (G, json.dumps(notes[0] if notes else None, separators=(',', ':'))))
out.append('A third connection, which had sent `%s` (answered `%s`), receives the same with the decision and the state, as `state` would answer it now:\n\n```\n< %s\n```\n' % (sline, sr, short(sl(), 1500)))
out.append('A fourth, which had sent `%s` (answered `%s`), receives the decision and the moves it offers, as `legal_moves` would list them now: the seat due plays from the notification alone:\n\n```\n< %s\n```\n' % (vline, vr, short(vl(), 1500)))
sl('unsubscribe {"game":%d}' % G)   # answered: it watches no more (and stays open, as the fourth does: `stats` counts 4 connections)
# errors
e1 = jl('apply_move ' + json.dumps({'game': G, 'token': T[0], 'move': mv}, separators=(',', ':')))
lm2 = json.loads(jl('legal_moves {"game":%d}' % G))[3]
e2 = jl('apply_move ' + json.dumps({'game': G, 'token': T[1], 'move': {'type': 'pass'}}, separators=(',', ':')))
e3 = jl('apply_move ' + json.dumps({'game': G, 'token': T[0], 'seq': 0, 'move': {'type': 'pass'}}, separators=(',', ':')))
out.append('#### errors from apply_move\n\n```\n< %s\n< %s\n< %s\n```\n' % (e1, e2, e3))
ex('score', 'score', {'game': G}, jline='score {"game":%d}' % G)
ex('history', 'history', {'game': G}, jline='history {"game":%d}' % G, n=1000)
# a finished game: one seat, two tiles, no tokens
fin = json.loads(jl('new_game {"players":["solo"],"auth":false,"seed":7,"tiles":["BA/CRr","BA/Rr"]}'))[3]
F = fin['game']
while True:
    lm = json.loads(jl('legal_moves {"game":%d}' % F))[3]
    if lm['phase'] == 'over': break
    jl('apply_move ' + json.dumps({'game': F, 'move': lm['moves'][-1]}, separators=(',', ':')))
hl = 'history {"game":%d}' % F
out.append('#### history after the end\n\nA one-seat game of two given tiles (`new_game {\"players\":[\"solo\"],\"auth\":false,\"seed\":7,\"tiles\":[\"BA/CRr\",\"BA/Rr\"]}`), played to the end:\n\n```\n> %s\n< %s\n```\n' % (hl, jl(hl)))
ex('games', 'games', {}, n=600)
ex('unsubscribe', 'unsubscribe', {'game': G})
ex('stats', 'stats', {}, n=800)
ex('tiles', 'tiles', {'expansions': ['base'], 'rot': 90}, n=600)
cl = 'close_game {"game":%d,"admin_token":"%s"}' % (G, A)
jr = jl(cl)
req, mr = mp('close_game', {'game': GM, 'admin_token': mg['admin_token']})
out.append('#### close_game\n\nJSON lines (closing game %d, which the JSON connection made):\n\n```\n> %s\n< %s\n```\n' % (G, cl, jr))
out.append('MessagePack-RPC (closing game %d, which the MessagePack connection made):\n\n```\n> %s\n< %s\n```\n' % (GM, req.hex(' '), json.dumps(mr, separators=(',', ':'))))
print('\n'.join(out))
