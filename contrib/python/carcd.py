"""carcd.py - a small client for the carcd Carcassonne rules daemon.

Speaks protocol version 1 (proto/PROTOCOL.md) over TCP, a Unix socket or
TLS (a "tls:HOST:PORT" address: carcd behind a TLS proxy, PROTOCOL.md
section 6), in either of the daemon's encodings:

  * "msgpack": MessagePack-RPC, needs python3-msgpack (Debian's package;
    run scripts with /usr/bin/python3 where another python3 is on PATH);
  * "json": the JSON-lines protocol, standard library only.

    import carcd
    with carcd.Client("unix:/run/carcd/carcd.sock") as c:
        g = c.new_game(players=["ann", "bob"])
        moves = c.legal_moves(g["game"])["moves"]
        c.apply_move(g["game"], moves[0], token=g["seats"][0]["token"])

Every method of the protocol is a method of Client with the same name and
keyword parameters; Client.call(method, params) reaches any other.  An
error response raises carcd.Error, whose .code is the protocol's error code
("not_your_turn", "illegal_move", ...).  Requests can be pipelined with
send() and response().  After subscribe(), the daemon's notifications are
queued and read with next_event() (keepalive= pings the daemon while it
waits, so that a quiet game does not get the connection closed as idle).
A lost or closed connection raises carcd.ConnectionClosed.

A bot is a function from a decision to a move; Player plays it:

    with carcd.Client() as c:
        g = c.new_game(players=["ann", "bob"])
        tokens = {s["seat"]: s["token"] for s in g["seats"]}
        score = carcd.Player(c, g["game"], tokens, lambda due: due["moves"][0]).play()

A Client is not thread-safe: give each thread its own.
"""

import collections
import json
import os
import socket
import ssl
import time

try:
    import msgpack
except ImportError:  # the JSON-lines encoding still works
    msgpack = None

__all__ = ["Client", "Player", "Error", "ConnectionClosed", "parse_address", "is_tls", "tls_context",
           "DEFAULT_ADDRESS", "ERROR_CODES", "ALL_SEATS"]

DEFAULT_ADDRESS = "tcp:127.0.0.1:7878"

# The error codes of PROTOCOL.md section 2.
ERROR_CODES = ("bad_request", "unknown_method", "invalid_params", "no_such_game",
               "forbidden", "not_your_turn", "illegal_move", "conflict",
               "game_over", "limit", "internal")

REQUEST, RESPONSE, NOTIFICATION = 0, 1, 2


class Error(Exception):
    """An error response from the daemon: .code, .message, .data."""

    def __init__(self, code, message="", data=None, msgid=None):
        self.code = code
        self.message = message
        self.data = data
        self.msgid = msgid
        super().__init__("%s: %s" % (code, message) if message else str(code))

    @classmethod
    def from_wire(cls, err, msgid=None):
        if isinstance(err, dict):
            return cls(err.get("code", "internal"), err.get("message", ""),
                       err.get("data"), msgid)
        return cls("internal", "malformed error object: %r" % (err,), None, msgid)


class ConnectionClosed(Exception):
    """The daemon closed the connection (or it could not be reached)."""


def parse_address(address):
    """'tcp:HOST:PORT', 'tls:HOST:PORT', 'unix:PATH', 'HOST:PORT' or a path
    -> (family, addr); a tls: address is the TCP one (is_tls() tells them apart)."""
    if address.startswith("unix:"):
        return socket.AF_UNIX, address[5:]
    if address.startswith(("tcp:", "tls:")):
        address = address[4:]
    elif "/" in address:
        return socket.AF_UNIX, address
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError("not an address: %r (want tcp:HOST:PORT, tls:HOST:PORT or unix:PATH)" % address)
    if int(port) > 65535:
        raise ValueError("not an address: %r (the port is 0 to 65535)" % address)
    host = host.strip("[]") or "127.0.0.1"
    return (socket.AF_INET6 if ":" in host else socket.AF_INET), (host, int(port))


def is_tls(address):
    """Whether an address of parse_address's is reached over TLS."""
    return address.startswith("tls:")


def tls_context(cafile=None):
    """The TLS client context of a tls: address: the certificate and the
    host name are checked against the system's authorities, or against
    cafile (default $CARCD_CAFILE) when one is named, for a proxy whose
    certificate is one's own."""
    return ssl.create_default_context(cafile=cafile or os.environ.get("CARCD_CAFILE") or None)


# ---- what carcctl and the bots read off their command lines ----

def parse_key_value(text):
    """'KEY=VALUE' -> (KEY, VALUE): booleans and integers as such, anything
    else as a string; ValueError without '=' or a key."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise ValueError("want KEY=VALUE, not %r" % text)
    try:
        return key, json.loads(value)
    except ValueError:
        return key, value


def parse_seconds(text):
    """A finite number of seconds above 0; ValueError otherwise."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0 or value == float("inf"):
        raise ValueError("want a number of seconds above 0, not %r" % text)
    return value


def argparse_type(parse):
    """An argparse `type=` made of one of the parsers above: the ValueError
    it raises becomes argparse's usage error, with the parser's message."""
    import argparse

    def typed(text):
        try:
            return parse(text)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e))
    return typed


# Bidirectional formatting characters: a seat name may hold them, and one
# turns around the rest of a line that shows the name (the scores of the
# seats after it) unless the viewer isolates the name.
BIDI_FORMATTING = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def name_ok(name):
    """Is `name` a seat name new_game takes (PROTOCOL.md): 1 to 64 bytes
    of UTF-8 and no control character (C0, DEL, C1)?"""
    try:
        size = len(name.encode())
    except UnicodeEncodeError:   # a lone surrogate
        return False
    return 0 < size <= 64 and not any(ord(ch) < 32 or 127 <= ord(ch) < 160 for ch in name)


def split_names(text):
    """'a, b,c' -> ['a', 'b', 'c']"""
    return [n.strip() for n in text.split(",") if n.strip()]


class _MsgpackCodec:
    name = "msgpack"
    what = "MessagePack-RPC"

    def __init__(self):
        if msgpack is None:
            raise RuntimeError("the msgpack encoding needs python3-msgpack "
                               "(use /usr/bin/python3, or encoding='json')")
        self._packer = msgpack.Packer(use_bin_type=True)
        self._unpacker = msgpack.Unpacker(raw=False, strict_map_key=False,
                                          max_buffer_size=64 << 20)

    def encode(self, msg):
        return self._packer.pack(msg)

    def feed(self, data):
        self._unpacker.feed(data)
        return list(self._unpacker)


class _JsonCodec:
    name = "json"
    what = "JSON lines"

    MAX_LINE = 64 << 20   # as the MessagePack codec's buffer: no reply of carcd's comes near it

    def __init__(self):
        self._buf = bytearray()

    @staticmethod
    def encode(msg):
        return json.dumps(msg, separators=(",", ":")).encode() + b"\n"

    def feed(self, data):
        self._buf += data   # in place: a long line read in many pieces is not copied again each time
        lines = []
        if b"\n" in data:
            *lines, rest = self._buf.split(b"\n")
            self._buf = bytearray(rest)
        if len(self._buf) > self.MAX_LINE:
            raise ValueError("a line longer than %d bytes" % self.MAX_LINE)
        return [json.loads(line) for line in lines if line.strip()]


class Client:
    """One connection to carcd.

    address: "tcp:HOST:PORT", "tls:HOST:PORT", "unix:PATH", "HOST:PORT" or a
    socket path; default $CARCD_ADDRESS or tcp:127.0.0.1:7878.  encoding:
    "msgpack" (default when python3-msgpack is importable) or "json".
    timeout: seconds to wait for any one response (None waits for ever).
    ssl_context: for a tls: address, the ssl.SSLContext to use instead of
    tls_context()'s; refused for any other address.  Over TLS, bytes may
    wait decrypted in the socket, which select() on fileno() does not see:
    poll with next_event(timeout=0) first.
    """

    def __init__(self, address=None, encoding=None, timeout=30.0, client_name=None, ssl_context=None):
        self.address = address or os.environ.get("CARCD_ADDRESS") or DEFAULT_ADDRESS
        if encoding is None:
            encoding = "msgpack" if msgpack is not None else "json"
        if encoding not in ("msgpack", "json"):
            raise ValueError("encoding must be 'msgpack' or 'json'")
        if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                                    or not timeout > 0 or timeout == float("inf")):
            raise ValueError("timeout must be a number of seconds above 0, or None to wait for ever: %r"
                             % (timeout,))
        self._codec = _MsgpackCodec() if encoding == "msgpack" else _JsonCodec()
        self.encoding = encoding
        self.timeout = timeout
        self.client_name = client_name
        self._next_id = 1
        self._responses = {}   # msgid -> (error, result) read ahead of their turn
        self._waiting = collections.OrderedDict()  # msgids sent and not answered, oldest first
        self._orphans = collections.deque()  # responses whose msgid is nil, none waiting
        self.events = collections.deque()    # notification params, in arrival order
        family, addr = parse_address(self.address)
        tls = is_tls(self.address)
        if ssl_context is not None and not tls:
            raise ValueError("ssl_context goes with a tls: address, not %r" % self.address)
        self.sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            self.sock.settimeout(timeout)
            self.sock.connect(addr)
            if tls:
                # the handshake now, so that a certificate refused is an
                # error of the connect, not of the first request
                ctx = ssl_context or tls_context()
                self.sock = ctx.wrap_socket(self.sock, server_hostname=addr[0])
        except (OSError, ValueError) as e:   # ssl.SSLError, CertificateError are OSErrors
            self.sock.close()
            raise ConnectionClosed("cannot connect to %s: %s" % (self.address, e)) from e
        if family != socket.AF_UNIX:
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.closed = False

    # ---- plumbing ------------------------------------------------------------
    def close(self):
        if not self.closed:
            self.closed = True
            self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def fileno(self):
        return self.sock.fileno()

    def send(self, method, params=None):
        """Send one request without waiting; returns its msgid."""
        if self.closed:
            raise ConnectionClosed("connection to %s is closed" % self.address)
        msgid = self._next_id
        try:
            data = self._codec.encode([REQUEST, msgid, method, {} if params is None else params])
        except OverflowError as e:
            # An integer beyond 64 bits, which MessagePack cannot carry: a
            # parameter out of range, as the daemon says of one that fits.
            raise Error("invalid_params", "%s cannot be sent in MessagePack: %s" % (method, e)) from e
        self._next_id = (self._next_id + 1) & 0xffffffff
        self._waiting[msgid] = None
        self.sock.settimeout(self.timeout)   # a read may have left it at 0
        try:
            self.sock.sendall(data)
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError) as e:
            self.close()
            raise ConnectionClosed("connection to %s lost: %s" % (self.address, e)) from e
        except socket.timeout as e:
            self.close()   # part of the request may have gone: the stream is out of step
            raise ConnectionClosed("could not send to %s within %ss" % (self.address, self.timeout)) from e
        return msgid

    def _read(self, timeout):
        """Read what arrived and sort it; False when nothing came in time."""
        self.sock.settimeout(timeout)
        try:
            data = self.sock.recv(1 << 16)
        except (socket.timeout, BlockingIOError, ssl.SSLWantReadError):
            return False
        except (ConnectionResetError, BrokenPipeError, ssl.SSLError) as e:
            self.close()
            raise ConnectionClosed("connection to %s lost: %s" % (self.address, e)) from e
        if not data:
            self.close()
            raise ConnectionClosed("carcd at %s closed the connection" % self.address)
        try:
            msgs = self._codec.feed(data)
        except Exception as e:   # ValueError, msgpack's UnpackException: the stream is lost
            self.close()
            raise ConnectionClosed("the peer at %s sent what is not %s: %s"
                                   % (self.address, self._codec.what, str(e) or type(e).__name__)) from e
        for msg in msgs:
            self._sort(msg)
        return True

    def _sort(self, msg):
        if not isinstance(msg, list) or not msg:
            self._not_carcd(msg)
        if msg[0] == RESPONSE and len(msg) == 4:
            if msg[1] is not None and (not isinstance(msg[1], int) or isinstance(msg[1], bool)):
                self._not_carcd(msg)   # carcd's msgids are integers or nil
            if msg[1] is None and self._waiting:
                # carcd answers a connection's requests in order, so the one
                # it could not read is the oldest still unanswered
                self._responses[self._waiting.popitem(last=False)[0]] = (msg[2], msg[3])
            elif msg[1] is None:
                self._orphans.append((msg[2], msg[3]))
            else:
                self._waiting.pop(msg[1], None)
                self._responses[msg[1]] = (msg[2], msg[3])
        elif msg[0] == NOTIFICATION and len(msg) == 3:
            self.events.append(msg[2])
        else:
            self._not_carcd(msg)

    def _not_carcd(self, msg):
        """A message that is no response or notification: whoever answers is
        not speaking carcd's protocol, and the connection is of no more use."""
        self.close()
        raise ConnectionClosed("the peer at %s sent what is not a message from carcd: %.200r"
                               % (self.address, msg))

    def _deadline_wait(self, ready, timeout):
        """Read until ready(); False at the deadline.  Even with no time left
        it looks once at what has already arrived (timeout 0 polls)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        looked = False
        while not ready():
            if self.closed:
                raise ConnectionClosed("connection to %s is closed" % self.address)
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                if looked:
                    return False
                left = 0.0
            looked = True
            self._read(left)
        return True

    def response(self, msgid, timeout=-1):
        """The result of request msgid; raises Error for an error response.

        A response with a nil msgid (the daemon could not read a request)
        answers the oldest request sent and not yet answered when it
        arrives, so it is raised by response() of that request, whichever
        request's response() is asked first.
        """
        timeout = self.timeout if timeout == -1 else timeout
        if not self._deadline_wait(lambda: msgid in self._responses or self._orphans, timeout):
            raise TimeoutError("no response to request %d from %s within %ss"
                               % (msgid, self.address, timeout))
        if msgid in self._responses:
            err, result = self._responses.pop(msgid)
        else:
            err, result = self._orphans.popleft()
        if err is not None:
            raise Error.from_wire(err, msgid)
        return result

    def call(self, method, params=None, **kw):
        """Send one request and wait for its result."""
        if params is None:
            params = {}
        params = dict(params, **{k: v for k, v in kw.items() if v is not None})
        return self.response(self.send(method, params))

    def next_event(self, timeout=-1, keepalive=None, game=None):
        """The next notification's params {game, seq, events} (with phase, seat
        and over when subscribed with decision=True, and so on: subscribe()),
        or None on timeout.

        timeout: seconds (None: for ever; 0: only what already arrived;
        default the client's timeout).  keepalive: while waiting, send a
        `ping` after every this many seconds without a notification, so the
        daemon does not close the connection as idle (its --idle-timeout,
        600 s by default).  game: the next notification of that game; those
        of other games stay queued in `events`, in their order."""
        timeout = self.timeout if timeout == -1 else timeout
        deadline = None if timeout is None else time.monotonic() + timeout

        def ready():
            return any(n.get("game") == game for n in self.events) if game is not None else self.events
        while True:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            wait = left if not keepalive else (keepalive if left is None else min(left, keepalive))
            if self._deadline_wait(ready, wait):
                if game is None:
                    return self.events.popleft()
                i = next(i for i, n in enumerate(self.events) if n.get("game") == game)
                n = self.events[i]
                del self.events[i]
                return n
            if left is not None and wait >= left:
                return None
            self.ping()

    def idle_keepalive(self, most=60.0, hello=None):
        """A keepalive for next_event well within the daemon's idle timeout:
        a third of it as `hello` gives it (hello: its result, when the
        caller has it already), at most `most` seconds (`most` too when the
        daemon closes no idle connection)."""
        idle = (hello or self.hello()).get("limits", {}).get("idle_timeout")
        return min(most, idle / 3.0) if isinstance(idle, (int, float)) and idle > 0 else most

    # ---- the methods of PROTOCOL.md section 4 ---------------------------------
    def hello(self, client=None):
        return self.call("hello", client=client or self.client_name)

    def new_game(self, players=("player 1", "player 2"), **options):
        """players: the seat names in turn order, a list (one name is ["ann"]).
        options: expansions, components, rules, seed, tiles, start, bag, auth."""
        if isinstance(players, (str, bytes)):
            raise TypeError("players is a list of names, not one name: [%r]" % (players,))
        return self.call("new_game", {"players": list(players)}, **options)

    def state(self, game):
        return self.call("state", game=game)

    def legal_moves(self, game, seat=None, features=False, move=None):
        """The moves of the decision due; with features=True a deploy or
        move_wagon also names its feature's kind and ports (carcd's own).
        With move, only that move as listed if it is legal now, else no
        move and `why`, what apply_move would answer (carcd's own too)."""
        return self.call("legal_moves", game=game, seat=seat, features=features or None, move=move)

    def apply_move(self, game, move, token=None, seq=None):
        return self.call("apply_move", game=game, move=move, token=token, seq=seq)

    def score(self, game):
        return self.call("score", game=game)

    def history(self, game):
        return self.call("history", game=game)

    def games(self, after=None, limit=None):
        return self.call("games", after=after, limit=limit)

    def close_game(self, game, admin_token):
        return self.call("close_game", game=game, admin_token=admin_token)

    def subscribe(self, game, decision=False, state=False, moves=False, features=False):
        """Watch a game; with decision=True each notification also holds the
        phase, seat and over the game has after the move; with state=True
        those and the whole public state, as state() returns it; with
        moves=True those and `moves`, the legal moves of the decision due
        as legal_moves() lists them (features=True: as with its features),
        so that a bot plays from notifications alone (all carcd's own).
        Subscribing again sets the form: what is not asked for again is off."""
        return self.call("subscribe", game=game, decision=decision or None, state=state or None,
                         moves=moves or None, features=features or None)

    def unsubscribe(self, game):
        return self.call("unsubscribe", game=game)

    def tiles(self, expansions=None, rot=None):
        """What is printed on each tile of these expansions (default
        ["base"]), turned rot degrees, and how many copies a game of them
        deals (carcd's own)."""
        return self.call("tiles", expansions=expansions, rot=rot)

    def stats(self):
        return self.call("stats")

    def ping(self):
        return self.call("ping")


# Player's tokens {ALL_SEATS: None}: every seat of a game made with auth false.
ALL_SEATS = "all seats"


class Player:
    """Plays the seats of one game it holds tokens for, to the end, with a
    function that chooses each move: the loop every bot writes.

    tokens: {seat: token} of the seats it plays; {None: token} when the
    seat of the token is not known (the daemon's not_your_turn tells it);
    {ALL_SEATS: None} for every seat of a game made with auth false.
    choose(due) -> move: due is {game, seq, phase, seat, moves}, a decision
    of one of its seats, as legal_moves has it (moves not empty; with
    features=True in its features form); the move is one of due["moves"],
    sent back as listed.  A move the daemon refuses raises carcd.Error.
    on_move(due, move), if given, is called after each move played.

    With a daemon that offers `subscribe`'s `moves` (hello's extras), each
    notification brings the decision due and its moves, so a decision costs
    one request, apply_move; else Player asks legal_moves after each move.
    Every move goes with its `seq`, so none lands on a newer position; the
    newest notification is the game as it is (they come in order, without
    gaps).  Notifications of other games the client watches are left in its
    `events`.  While it waits for the other seats it pings the daemon every
    `keepalive` seconds (by default a third of the daemon's idle timeout,
    60 at most); while choose runs it sends nothing, so a choose that takes
    longer than the idle timeout (hello's limits.idle_timeout) gets the
    connection closed: think in a thread, and ping meanwhile, or raise
    the daemon's --idle-timeout."""

    def __init__(self, client, game, tokens, choose, features=False, on_move=None, keepalive=None, hello=None):
        self.c = client
        self.game = game
        self.tokens = dict(tokens)
        self.not_mine = set()   # seats the token was refused for, when its seat is unknown
        self.choose = choose
        self.features = features
        self.on_move = on_move
        hello = hello or client.hello()
        self.keepalive = client.idle_keepalive(hello=hello) if keepalive is None else keepalive
        self.notified = "subscribe.moves" in hello.get("extras", ()) and (
            not features or "subscribe.features" in hello.get("extras", ()))
        self.moves_played = 0

    def token_for(self, seat):
        """The token to play `seat` with, or False when it is not ours."""
        if ALL_SEATS in self.tokens:
            return None
        if seat in self.tokens:
            return self.tokens[seat]
        if None in self.tokens and seat not in self.not_mine:
            return self.tokens[None]
        return False

    def legal_moves(self):
        return self.c.legal_moves(self.game, features=self.features)

    def drop_notifications(self):
        """Drops the queued notifications of the game (its decision is
        asked anew); those of other games stay."""
        while self.c.next_event(0, game=self.game) is not None:
            pass

    def play(self, timeout=600.0):
        """Plays until the game is over and returns score()'s result.
        timeout: seconds with nothing happening in the game before it
        gives up with TimeoutError.  A game closed meanwhile raises
        carcd.Error no_such_game."""
        if self.notified:
            self.c.subscribe(self.game, moves=True, features=self.features)
        else:
            self.c.subscribe(self.game)
        due = self.legal_moves()
        while True:
            if due["phase"] == "over":
                return self.c.score(self.game)
            token = self.token_for(due["seat"])
            if token is not False and due["moves"]:
                move = self.choose(due)
                try:
                    self.c.apply_move(self.game, move, token=token, seq=due["seq"])
                except Error as e:
                    if e.code in ("conflict", "game_over"):
                        due = self.next_due(timeout)   # the game moved on (or ended) meanwhile
                        continue
                    if e.code == "not_your_turn" and None in self.tokens:
                        self.not_mine.add(due["seat"])
                        continue
                    raise
                if None in self.tokens:  # now we know which seat the token holds
                    self.tokens = {due["seat"]: self.tokens[None]}
                self.moves_played += 1
                if self.on_move:
                    self.on_move(due, move)
                if not self.notified:
                    self.drop_notifications()   # our own move's carries nothing new
                    due = self.legal_moves()
                    continue
            # wait until the game changes (after our own move: its notification)
            due = self.next_due(timeout)

    def next_due(self, timeout):
        """The decision due once the game has changed: from the newest
        notification of the game when they bring the moves, else from
        legal_moves.  Notifications of other games the client watches stay
        in its `events`."""
        n = self.c.next_event(timeout, keepalive=self.keepalive, game=self.game)
        if n is None:
            raise TimeoutError("nothing happened in game %s for %.0f s" % (self.game, timeout))
        while True:
            if any(e.get("type") == "game_closed" for e in n["events"]):
                raise Error("no_such_game", "game %s was closed" % self.game)
            newer = self.c.next_event(0, game=self.game)
            if newer is None:
                return n if self.notified else self.legal_moves()
            n = newer
