#!/usr/bin/python3
"""arena.py - bot-versus-bot matches on carcd, with carcd as the referee.

    arena.py --bot random=contrib/bots/random_bot.py --bot mine='./mybot --depth 3' \\
             --deals 20 --expansions base,inns-cathedrals --seed 1 --carcd ./daemon/carcd

Each bot is a program in any language that plays one seat of a carcd game
through the protocol, as a person's client would: the arena makes the game,
starts one process per seat and watches.  The daemon checks every move and
every token, so a bot can only play legal moves for a seat whose token it
holds; the arena only keeps time and the score.  Every bot runs as the
arena's own user, and a process can read the environment of another of its
user's (/proc/PID/environ, its token there) and signal it: bots that do not
trust each other need a user each (see contrib/README.md).

A bot is started as its COMMAND (split like a shell would, without running
one) followed by `--address ADDRESS --game GAME --seat SEAT`; its seat's
token is in the environment as CARCD_TOKEN (not on the command line, where
other users of the machine could read it), beside CARCD_ADDRESS,
CARCD_GAME and CARCD_SEAT.  A COMMAND that names {address}, {game}, {seat}
or {token} gets those filled in instead, and nothing appended.
contrib/bots/random_bot.py and contrib/bots/mc_bot take the default form as it is.

A deal is one tile order (one seed).  With k bots, each deal is played k
times, the seat order turned by one each time, so that every bot plays
every seat on the same tiles and the luck of the draw evens out.  Deal d
uses seed S + d, S being --seed or a random number the report shows; the
same seed, bots and options replay the same tiles.

A bot's output (stdout and stderr) goes to its log with --logs, else to a
file in $TMPDIR that is gone when the game ends; the last line of it is
quoted when the bot's process ends early.  A log that grows past
--log-limit bytes (default 16 MiB) is cut back to its first half, a line
saying how much was cut and the whole lines of its last 4 KiB, and the
bot writes on after that: a bot that prints without end cannot fill the
disk, also while it is given time to exit after its game.  The arena
looks about every 0.2 s, so a log may pass the limit by what the bot
writes in that time.

A bot forfeits a game when its process ends before the game does, or when
its seat is due and nothing happens for --move-timeout seconds.  The arena
then closes the game and stops the other bots (and whatever they started).
A forfeited game counts as a game lost by the forfeiter, with no score,
and as no game for the others: quitting never pays.

The report gives, for each bot, its games, wins (a tie for first place
shares the win), the mean of its final scores and its mean margin (its
score less the best other score of the game; none in solo games).  The
win rate and the mean margin come with the half-width of their 95%
confidence intervals, so that a difference between two bots can be told
from the luck of the deals: the deals are the samples (the games of one
deal share their tiles, so they are not independent), which takes two
deals or more, and many for a narrow interval.  --json prints the whole
report, game by game, as JSON.  A daemon that holds all the games it may
(`limit`) is asked again every second, up to --move-timeout.  A match
that stops early (an error, Ctrl-C, SIGTERM or SIGHUP) stops every bot,
closes the games in play and still reports the games played (none
perhaps: the seed is there), marked incomplete, unless the daemon refused
the match before any game ended; a second signal does not cut that short.  An arena killed
with SIGKILL leaves no bot running either: a watchdog process sees it end
and kills the bots' process groups.  Exit status: 0 when every game was
played or forfeited, 1 when the daemon refused a request (say, an unknown
expansion) or a bot's log file could not be made, 2 on bad usage, 3 when
the daemon cannot be reached or the connection is lost, 130 after Ctrl-C,
143 after SIGTERM or SIGHUP.
"""

import argparse
import contextlib
import fcntl
import json
import os
import queue
import random
import secrets
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "python"))
import carcd  # noqa: E402

PLACEHOLDERS = ("{address}", "{game}", "{seat}", "{token}")
MAX_BOTS = 6          # the protocol's seats
STOP_GRACE = 5.0      # seconds a bot has to exit on its own once its game is over
POLL = 0.2            # seconds between looks at the bots' processes (and, in the main thread, at signals)
KEEPALIVE = 60.0      # seconds at most between pings to a quiet daemon, which closes idle connections
FULL_WAIT = 1.0       # seconds between new_game attempts while the daemon holds all the games it may
LOG_LIMIT = 16 << 20  # bytes of a bot's output kept, by default (--log-limit)
LOG_TAIL = 4096       # bytes of the end of a log kept when it is cut

_live = set()         # bot processes running, stopped at exit whatever happens
_live_lock = threading.Lock()
_stopping = threading.Event()   # the match is ending: no game or bot is started any more


class Stopped(Exception):
    """SIGTERM or SIGHUP: the match stops as after Ctrl-C."""


key_value, seconds = carcd.argparse_type(carcd.parse_key_value), carcd.argparse_type(carcd.parse_seconds)


def bot_spec(text):
    name, sep, command = text.partition("=")
    if not sep or not name or not command.strip():
        raise argparse.ArgumentTypeError("a bot is NAME=COMMAND, not %r" % text)
    # the report's table lines would be turned around by a bidi control
    if not carcd.name_ok(name) or carcd.BIDI_FORMATTING & set(name):
        raise argparse.ArgumentTypeError("a bot name is 1 to 64 bytes without control characters or bidirectional "
                                         "formatting characters: %r" % name)
    try:
        argv = shlex.split(command)
    except ValueError as e:
        raise argparse.ArgumentTypeError("bot %s: %s" % (name, e))
    return name, argv


def at_least(low, unit=""):
    """An argparse type: a whole number of `low` or more."""
    def whole(text):
        try:
            n = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError("not a whole number: %r" % text)
        if n < low:
            raise argparse.ArgumentTypeError("must be at least %d%s, not %d" % (low, unit, n))
        return n
    return whole


positive = at_least(1)
log_limit = at_least(2 * LOG_TAIL, " bytes")   # room for the first half and the tail a cut keeps


def seed_value(text):
    try:
        n = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError("not a whole number: %r" % text)
    if not 0 <= n < 2 ** 53:
        raise argparse.ArgumentTypeError("a seed is 0 to 2^53-1, not %d" % n)
    return n


class Parser(argparse.ArgumentParser):
    """Bad usage is one line, `arena: ...`, as every other way the arena
    fails (exit 2), not argparse's usage block."""

    def error(self, message):
        self.exit(2, "arena: %s (arena.py --help for usage)\n" % message)


def parse_args(argv):
    p = Parser(
        description="Play bots against each other on carcd and rank them.",
        epilog="Each bot runs as COMMAND --address A --game G --seat S, with its token in $CARCD_TOKEN "
               "(or with {address} {game} {seat} {token} filled into COMMAND).")
    p.add_argument("--bot", action="append", type=bot_spec, metavar="NAME=COMMAND", required=True,
                   help="a bot and the command that starts it (1 to %d bots, repeat the option)" % MAX_BOTS)
    p.add_argument("--deals", type=positive, default=10,
                   help="tile orders to play; each is played once per seat order (default 10)")
    p.add_argument("--seed", type=seed_value, help="seed of the first deal (default: random, shown in the report)")
    p.add_argument("--expansions", default="base", help="comma-separated expansions (default base)")
    p.add_argument("--rule", action="append", type=key_value, metavar="KEY=VALUE",
                   help="a rule option, e.g. farm_scoring=per-farm-3 (repeat for more)")
    p.add_argument("--component", action="append", type=key_value, metavar="KIND=BOOL",
                   help="a component on or off, e.g. large=true (repeat for more)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--address", "-a", default=None,
                       help="carcd to play on: tcp:HOST:PORT, tls:HOST:PORT or unix:PATH (default $CARCD_ADDRESS or %s)"
                       % carcd.DEFAULT_ADDRESS)
    where.add_argument("--carcd", metavar="PATH",
                       help="start this carcd binary on a private Unix socket for the match, and stop it after")
    p.add_argument("--parallel", type=positive, default=1, help="games played at once (default 1)")
    p.add_argument("--move-timeout", type=seconds, default=60.0,
                   help="a bot whose seat is due forfeits after this many seconds without a move (default 60)")
    p.add_argument("--logs", metavar="DIR",
                   help="keep each bot's output in DIR/game-G-seat-S-NAME.log (a directory it can write)")
    p.add_argument("--log-limit", type=log_limit, default=LOG_LIMIT, metavar="BYTES",
                   help="cut a bot's output back when it grows past this (default %d, 16 MiB)" % LOG_LIMIT)
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--verbose", "-v", action="store_true", help="a line on stderr as each game ends")
    a = p.parse_args(argv)
    if len(a.bot) > MAX_BOTS:
        p.error("at most %d bots (a game has at most %d seats), not %d" % (MAX_BOTS, MAX_BOTS, len(a.bot)))
    names = [name for name, _ in a.bot]
    if len(set(names)) != len(names):
        p.error("two bots are called %s: give each its own name" % sorted(n for n in names if names.count(n) > 1)[0])
    if a.address is not None:
        try:
            carcd.parse_address(a.address)
        except ValueError as e:
            p.error(str(e))
    if a.carcd is not None and not (os.path.isfile(a.carcd) and os.access(a.carcd, os.X_OK)):
        p.error("--carcd %s: no executable there" % a.carcd)
    if a.logs is not None:
        try:
            os.makedirs(a.logs, exist_ok=True)
            tempfile.TemporaryFile(dir=a.logs).close()   # a directory it cannot write fails now, not mid-match
        except OSError as e:
            p.error("--logs %s: %s" % (a.logs, e.strerror or e))
    if a.seed is None:
        a.seed = random.SystemRandom().randrange(2 ** 32)
    if a.seed + a.deals - 1 >= 2 ** 53:
        p.error("--seed %d: the seeds of %d deals would pass 2^53-1" % (a.seed, a.deals))
    return a


class Refused(Exception):
    """The daemon refused something the match needs: it cannot go on."""


PR_SET_PDEATHSIG = 1   # <linux/prctl.h>


def dies_with_us():
    """A preexec_fn for a child that must not outlive the arena, even when
    the arena is killed by SIGKILL and cannot stop it: Linux's
    PR_SET_PDEATHSIG sends it SIGTERM when the thread that started it
    ends (the main thread here, which ends with the process).  None where
    there is no prctl(2)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (ImportError, OSError, AttributeError):
        return None
    parent = os.getpid()

    def preexec():
        prctl(PR_SET_PDEATHSIG, ctypes.c_ulong(signal.SIGTERM), ctypes.c_ulong(0), ctypes.c_ulong(0),
              ctypes.c_ulong(0))
        if os.getppid() != parent:   # the arena died before prctl: no signal will come
            os._exit(1)
    return preexec


# The watchdog: a small process, in a session of its own, that reads the
# process groups of the bots running ("+PGID" and "-PGID" lines) from a
# pipe only the arena holds, and kills the groups still listed when the
# pipe ends.  On a normal exit the arena closes the pipe after its own
# sweep, with nothing listed; an arena that is killed (SIGKILL, the OOM
# killer, a CI job's time limit) closes it by dying, and leaves no bot
# behind either, nor what the bots started.  A bot started just before
# the arena died may not be listed yet: every bot carries the arena's
# mark (MARK, argv[1]) in its environment, and so does what it starts,
# so the watchdog also kills the groups of the processes that carry it
# (where /proc shows environments).
MARK = "CARCD_ARENA"
WATCHDOG = """
import os, signal, sys
live = set()
for line in sys.stdin:
    (live.add if line[0] == "+" else live.discard)(int(line[1:]))
mark = sys.argv[1].encode()
for pid in os.listdir("/proc") if os.path.isdir("/proc") else ():
    try:
        with open("/proc/%s/environ" % pid, "rb") as f:
            if mark in f.read().split(b"\\0"):
                live.add(os.getpgid(int(pid)))
    except (OSError, ValueError):
        pass
for group in live:
    try:
        os.killpg(group, signal.SIGKILL)
    except OSError:
        pass
"""


class Watchdog:
    def __init__(self, start=True):
        """With start false, or when it cannot be started, one that does
        nothing: only the arena's own sweep at exit stops the bots."""
        self.proc = None
        # NAME=VALUE in the bots' environment: this arena's, no other's
        self.mark = "%s=%d.%s" % (MARK, os.getpid(), secrets.token_hex(8))
        if start:
            try:
                self.proc = subprocess.Popen([sys.executable, "-c", WATCHDOG, self.mark], stdin=subprocess.PIPE,
                                             stdout=subprocess.DEVNULL, start_new_session=True)
            except OSError:
                pass

    def tell(self, line):
        """Under _live_lock, as the bots start and stop."""
        if self.proc is None:
            return
        try:
            self.proc.stdin.write(line.encode())
            self.proc.stdin.flush()
        except (OSError, ValueError):   # it is gone: the arena's own sweep stays
            self.proc = None

    def close(self):
        if self.proc is not None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
            self.proc.wait()


_watchdog = Watchdog(start=False)   # main() starts the real one before any bot


def last_line(out):
    """The last line that is not blank in the last 2 KiB of a file a
    process writes (a bot's output, a private daemon's log), or ""."""
    try:
        out.flush()
        out.seek(0, os.SEEK_END)
        out.seek(max(0, out.tell() - 2048))
        lines = out.read().decode("utf-8", "replace").strip().splitlines()
    except (OSError, ValueError):
        return ""
    return lines[-1] if lines else ""


class PrivateDaemon:
    """carcd started for the match alone, on a Unix socket in a temporary directory."""

    def __init__(self, binary, stop_asked=lambda: False):
        self.stop_asked = stop_asked
        self.dir = tempfile.mkdtemp(prefix="arena-")
        self.address = "unix:" + os.path.join(self.dir, "carcd.sock")
        self.log, self.proc = None, None
        try:   # whatever stops it starting (Ctrl-C, SIGTERM, a binary that cannot run) stops it
            self.log = open(os.path.join(self.dir, "carcd.log"), "w+b")
            self.proc = subprocess.Popen([binary, "--listen", self.address, "--log-level", "warn"],
                                         stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log,
                                         preexec_fn=dies_with_us())
            self._wait_ready()
        except BaseException:
            self.stop()
            raise

    def _wait_ready(self):
        deadline = time.monotonic() + 15.0
        while True:
            try:
                with carcd.Client(self.address, timeout=5.0) as c:
                    c.ping()
                return
            except (carcd.ConnectionClosed, OSError, TimeoutError):
                if self.stop_asked():   # a stop signal came: the caller raises it
                    return
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise carcd.ConnectionClosed("the carcd started for the match did not answer on %s%s"
                                                 % (self.address, self.why()))
                time.sleep(0.05)

    def why(self):
        """What the daemon showed of why it did not answer: its exit status
        and the last line it logged (its log goes with its directory)."""
        said = []
        code = self.proc.poll()
        if code is not None:
            said.append("it exited with status %d" % code if code >= 0 else "it was killed by signal %d" % -code)
        last = last_line(self.log).strip()
        if last:
            said.append("its last words: %s" % printable(last[:300]))
        return " (%s)" % "; ".join(said) if said else ""

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10.0)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.log is not None:
            self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


class Match:
    def __init__(self, args, address):
        self.a = args
        self.address = address
        self.threads = []
        self.bots = args.bot
        self.options = {"expansions": carcd.split_names(args.expansions)}
        # ping well within the daemon's idle timeout (hello says it)
        with carcd.Client(address, timeout=30.0, client_name="arena.py") as c:
            self.keepalive = c.idle_keepalive(KEEPALIVE)
        if args.rule:
            self.options["rules"] = dict(args.rule)
        if args.component:
            self.options["components"] = dict(args.component)

    def schedule(self):
        """Every game of the match: (deal, turn), the bots' seat order turned by `turn`."""
        k = len(self.bots)
        return [(d, t) for d in range(self.a.deals) for t in range(k)]

    def seating(self, turn):
        k = len(self.bots)
        return [self.bots[(s + turn) % k] for s in range(k)]

    def command(self, argv, game, seat, token):
        filled = {"address": self.address, "game": str(game), "seat": str(seat), "token": token}
        if any(ph in word for word in argv for ph in PLACEHOLDERS):
            out = argv
            for key, value in filled.items():
                out = [word.replace("{%s}" % key, value) for word in out]
            return out
        return argv + ["--address", self.address, "--game", str(game), "--seat", str(seat)]

    def start_bot(self, name, argv, game, seat, token):
        env = dict(os.environ, CARCD_ADDRESS=self.address, CARCD_GAME=str(game), CARCD_SEAT=str(seat),
                   CARCD_TOKEN=token)
        env[MARK] = _watchdog.mark.partition("=")[2]
        if self.a.logs:
            safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)
            log = "game-%d-seat-%d-%s.log" % (game, seat, safe)
            try:
                out = self.output_file(os.path.join(self.a.logs, log))
            except OSError as e:
                raise Refused("--logs %s: cannot write %s: %s" % (self.a.logs, log, e.strerror or e))
        else:
            out = self.output_file()
        with _live_lock:   # a bot started after the sweep at exit would outlive the match
            if _stopping.is_set():
                out.close()
                raise Refused("the match is stopping")
            command = self.command(argv, game, seat, token)
            try:
                proc = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL,
                                        stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
            except OSError as e:
                out.close()
                return None, "%s could not be started: %s" % (command[0], e.strerror or e)
            _live.add(proc)
            _watchdog.tell("+%d\n" % proc.pid)
        return (proc, out), None

    def wait_bot(self, proc, seconds, running, cut):
        """Waits for a bot's process to end, at most `seconds`; the output
        of the game's bots is cut back meanwhile (see watch)."""
        deadline = time.monotonic() + seconds
        while True:
            try:
                proc.wait(max(0.0, min(POLL, deadline - time.monotonic())))
                return
            except subprocess.TimeoutExpired:
                self.cut_logs(running, cut)
                if time.monotonic() >= deadline:
                    return

    def stop_bot(self, s, running, cut):
        proc, out = bot = running[s]
        # the whole process group, even when its leader is gone: what the
        # bot started must not outlive the game either
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except OSError:
            pass
        self.wait_bot(proc, STOP_GRACE, running, cut)
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        proc.wait()
        with _live_lock:
            _live.discard(proc)
            _watchdog.tell("-%d\n" % proc.pid)
        self.cut_logs({s: bot}, cut)   # what it wrote since the last look
        out.close()

    def cut_logs(self, running, cut):
        """Cuts back the output of the game's bots past --log-limit; cut:
        seat -> bytes of its bot's output cut so far."""
        for s, bot in running.items():
            cut[s] = self.cut_log(bot[1], self.a.log_limit, cut.get(s, 0))

    @staticmethod
    def output_file(path=None):
        """A file for a bot's stdout and stderr: path, or an unnamed one in
        $TMPDIR.  Opened to append (O_APPEND, which the bot's descriptor
        shares): the bot writes at the end of the file, whatever cut_log
        and last_words do with the file offset it shares with the arena."""
        out = open(path, "w+b") if path is not None else tempfile.TemporaryFile()
        try:
            fd = out.fileno()
            fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_APPEND)
        except BaseException:
            out.close()
            raise
        return out

    @staticmethod
    def cut_line(cut):
        return ("\n[arena.py: %d bytes of this bot's output cut here]\n" % cut).encode()

    @staticmethod
    def cut_log(out, limit, before):
        """Cuts a bot's output file that has grown past `limit` bytes back to
        its first half, a line saying how much was cut, and the whole
        lines of its last LOG_TAIL bytes (all of them, ended by a newline,
        when they hold no line end); returns the bytes cut so far, `before`
        those of the earlier cuts.

        The bot appends (see output_file) while this runs, so the size
        looked at may end in the middle of one of its writes: the rest of
        that write, and whatever it writes until the truncation
        (microseconds), is lost and not counted.  The kept tail is cut
        back to a line end so that the bot's next write starts a line.
        The cut line and the tail are written in place through a second
        descriptor that does not append, and the file is truncated after
        them: a write of the bot's in between never lands before them."""
        try:
            fd = out.fileno()
            size = os.fstat(fd).st_size
            if size <= limit:
                return before
            head = limit // 2
            tail = os.pread(fd, LOG_TAIL, size - LOG_TAIL)
            whole = tail.rfind(b"\n") + 1
            kept = tail[:whole] if whole else tail
            # what goes now holds the earlier cut's line (not the bot's)
            cut = before + size - head - len(kept) - (len(Match.cut_line(before)) if before else 0)
            text = Match.cut_line(cut) + (kept if whole else kept + b"\n")
            try:   # Linux: the same file, opened anew without O_APPEND
                w = os.open("/proc/self/fd/%d" % fd, os.O_WRONLY)
            except OSError:   # elsewhere: appended, a write of the bot's may come first
                os.ftruncate(fd, head)
                os.write(fd, text)
                return cut
            try:
                os.pwrite(w, text, head)
                os.ftruncate(w, head + len(text))
            finally:
                os.close(w)
            return cut
        except (OSError, ValueError):
            return before   # a log that cannot be cut is no reason to stop the game

    @staticmethod
    def last_words(bot):
        """The last line the bot wrote, to say why it stopped."""
        return last_line(bot[1])[:200]

    def play(self, deal, turn):
        """Plays one game to its end or a forfeit; returns its record."""
        seats = self.seating(turn)
        seed = self.a.seed + deal
        with carcd.Client(self.address, timeout=30.0, client_name="arena.py") as c:
            waited = 0.0
            while True:
                if _stopping.is_set():
                    raise Refused("the match is stopping")
                try:
                    g = c.new_game([name for name, _ in seats], seed=seed, **self.options)
                    break
                except carcd.Error as e:
                    # a daemon full of games in play frees room as they end
                    if e.code != "limit" or waited >= self.a.move_timeout:
                        raise Refused("new_game: %s" % e)
                time.sleep(FULL_WAIT)
                waited += FULL_WAIT
            game = g["game"]
            record = {"game": game, "deal": deal, "seed": seed,
                      "seats": [{"seat": s, "bot": name} for s, (name, _) in enumerate(seats)]}
            c.subscribe(game)
            running, forfeit = {}, None
            cut = {}   # seat -> bytes of its bot's output cut so far
            try:
                for s, (name, argv) in enumerate(seats):
                    bot, why = self.start_bot(name, argv, game, s, g["seats"][s]["token"])
                    if bot is None:
                        forfeit = (s, why)
                        break
                    running[s] = bot
                if forfeit is None:
                    forfeit = self.watch(c, game, running, cut)
            finally:
                over = False
                try:
                    over = c.state(game)["over"]
                    if not over:
                        c.close_game(game, g["admin_token"])
                except carcd.Error:   # closed by someone else: watch() says so
                    pass
                except (carcd.ConnectionClosed, TimeoutError, OSError):
                    pass   # the daemon is lost: what stopped the game says so
                finally:
                    self.stop_all(running, over, cut)
            if forfeit is not None:
                s, why = forfeit
                record["forfeit"] = {"seat": s, "bot": seats[s][0], "why": why}
                return record
            score = c.score(game)
            for s, entry in enumerate(record["seats"]):
                entry["score"] = score["scores"][s]
            best = max(score["scores"])
            record["winners"] = [seats[s][0] for s, v in enumerate(score["scores"]) if v == best]
            return record

    def stop_all(self, running, over, cut):
        # the bots' output is cut back while they are given time to exit:
        # one that prints on after its game must not fill the disk either
        for s, bot in running.items():
            if over:  # a bot that is done exits by itself
                self.wait_bot(bot[0], STOP_GRACE, running, cut)
            self.stop_bot(s, running, cut)

    def watch(self, c, game, running, cut):
        """Waits for the end of the game; returns None, or (seat, why) for a forfeit."""
        quiet_since = asked = looked = time.monotonic()
        while True:
            if _stopping.is_set():   # its bots are being killed: no forfeit to tell
                raise Refused("the match is stopping")
            if time.monotonic() - looked >= POLL:   # also while events keep coming
                self.cut_logs(running, cut)
                looked = time.monotonic()
            ev = c.next_event(POLL)
            if ev is not None:
                quiet_since = time.monotonic()
                types = [e.get("type") for e in ev.get("events", [])]
                if "game_closed" in types:
                    raise Refused("game %d was closed by someone else during the match" % game)
                if "game_over" in types:
                    return None
                continue
            if time.monotonic() - asked > self.keepalive:
                c.ping()
                asked = time.monotonic()
            for s, bot in running.items():
                status = bot[0].poll()
                if status is None:
                    continue
                st = c.state(game)   # its last move may have ended the game
                if st["over"]:
                    return None
                said = self.last_words(bot)
                return s, "its process ended (status %d) before the game did%s" % (
                    status, ": " + said if said else "")
            if time.monotonic() - quiet_since > self.a.move_timeout:
                st = c.state(game)
                if st["over"]:
                    return None
                return st["seat"], "no move in %g seconds" % self.a.move_timeout

    def run(self, report_game, records):
        """Plays the whole match, a.parallel games at a time, into records (index in the schedule ->
        record); raises what stopped it early."""
        jobs = queue.Queue()
        for i, job in enumerate(self.schedule()):
            jobs.put((i, job))
        failure = []

        def worker():
            while not failure and not _stopping.is_set():
                try:
                    i, (deal, turn) = jobs.get_nowait()
                except queue.Empty:
                    return
                try:
                    record = self.play(deal, turn)
                except Exception as e:   # any of them stops the match: a game must not go missing
                    if not _stopping.is_set():   # once stopping, what the stop broke is no news
                        failure.append(e)
                    return
                with _live_lock:   # a game cut short by the stop is not reported
                    if _stopping.is_set():
                        return
                    records[i] = record
                report_game(record)

        threads = [threading.Thread(target=worker, daemon=True) for _ in range(self.a.parallel)]
        # A stop signal taken while the main thread is in Thread.join() or
        # Thread.start() is held, not raised there: Python 3.11's join, left
        # by an exception, marks the thread it waits for as ended while it
        # still runs, and the stop would then not wait for that thread to
        # close its game.
        with held_stop_signals() as taken:
            for t in threads:
                t.start()
                self.threads.append(t)   # the threads main's stop waits for: those started
            # A SIGTERM the kernel hands to a worker thread runs Python's
            # handler only when the main thread next runs Python code: a join
            # without a timeout would sleep through it until the match ended.
            # A game that fails stops the match at once: the games still in
            # play are not played to their end first.
            for t in threads:
                while t.is_alive() and not failure and not taken:
                    t.join(POLL)
        if failure:
            raise failure[0]


# Student's t, 97.5th percentile, by degrees of freedom (a table rather
# than scipy); between two entries the lower one's value, which is the
# wider interval.
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228,
        12: 2.179, 15: 2.131, 20: 2.086, 25: 2.060, 30: 2.042, 40: 2.021, 60: 2.000, 120: 1.980}


def ci95(clusters):
    """Half-width of a 95% confidence interval for sum(x) / sum(n) over
    clusters [(x, n), ...] that are independent of each other (deals: the
    games of a deal share their tiles, so they are not).  The ratio's
    variance is worked out from each cluster's residual x - R n (the
    cluster-robust estimate); None with fewer than two clusters."""
    clusters = [(x, n) for x, n in clusters if n]
    k = len(clusters)
    if k < 2:
        return None
    total = sum(n for _, n in clusters)
    ratio = sum(x for x, _ in clusters) / total
    var = k / (k - 1) * sum((x - ratio * n) ** 2 for x, n in clusters) / total ** 2
    t = T975[max(df for df in T975 if df <= k - 1)] if k - 1 <= 120 else 1.960
    return t * var ** 0.5


def standings(bots, records):
    # per bot: its forfeits, the sum of its final scores, and per deal
    # [wins, games, margin sum, margins], which the totals are summed from
    table = {name: {"bot": name, "score_sum": 0, "forfeits": 0, "deals": {}} for name, _ in bots}

    def deal_of(row, r, i):
        return row["deals"].setdefault(r.get("deal", -1 - i), [0.0, 0, 0, 0])

    for i, r in enumerate(records):
        if "forfeit" in r:   # a played game, lost, for the forfeiter; no game for the others
            row = table[r["forfeit"]["bot"]]
            row["forfeits"] += 1
            deal_of(row, r, i)[1] += 1
            continue
        for entry in r["seats"]:
            row = table[entry["bot"]]
            d = deal_of(row, r, i)
            others = [o["score"] for o in r["seats"] if o is not entry]
            d[1] += 1
            row["score_sum"] += entry["score"]
            if others:  # a solo game has no margin
                d[2] += entry["score"] - max(others)
                d[3] += 1
            if entry["bot"] in r["winners"]:
                d[0] += 1.0 / len(r["winners"])
    rows = []

    def rounded(v, places):
        return None if v is None else round(v, places)

    for row in table.values():
        deals = row["deals"].values()
        wins, n, margin_sum, margins = (sum((d[k] for d in deals), start) for k, start in enumerate((0.0, 0, 0, 0)))
        played = n - row["forfeits"]   # scores: games played to the end
        rows.append({"bot": row["bot"], "games": n, "wins": round(wins, 3),
                     "win_rate": round(wins / n, 4) if n else None,
                     "win_rate_ci95": rounded(ci95([(d[0], d[1]) for d in deals]), 4),
                     "mean_score": round(row["score_sum"] / played, 2) if played else None,
                     "mean_margin": round(margin_sum / margins, 2) if margins else None,
                     "mean_margin_ci95": rounded(ci95([(d[2], d[3]) for d in deals]), 2),
                     "forfeits": row["forfeits"]})
    rows.sort(key=lambda r: (-(r["win_rate"] or 0), r["forfeits"], -(r["mean_score"] or 0), r["bot"]))
    return rows


def counted(n, what):
    return "%d %s%s" % (n, what, "" if n == 1 else "s")


def printable(text):
    """A bot's words as the table shows them: control characters (an
    escape sequence that would recolour the terminal, say) escaped."""
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def print_table(report, out):
    print("seed %d, %s, %s (%d forfeited)%s, expansions %s" % (
        report["seed"], counted(report["deals"], "deal"), counted(len(report["games"]), "game"),
        sum(1 for g in report["games"] if "forfeit" in g),
        "" if report["complete"] else ", stopped early", ",".join(report["expansions"])), file=out)
    width = max([3] + [len(r["bot"]) for r in report["standings"]])
    print("%-*s %6s %8s %6s %6s %11s %12s %7s %9s" % (width, "bot", "games", "wins", "win%", "+-", "mean score",
                                                      "mean margin", "+-", "forfeits"), file=out)

    def num(v, fmt):
        return "-" if v is None else fmt % v

    def pct(v):
        return None if v is None else 100 * v

    for r in report["standings"]:
        print("%-*s %6d %8g %6s %6s %11s %12s %7s %9d" % (
            width, r["bot"], r["games"], r["wins"], num(pct(r["win_rate"]), "%.1f"),
            num(pct(r["win_rate_ci95"]), "%.1f"), num(r["mean_score"], "%.2f"), num(r["mean_margin"], "%+.2f"),
            num(r["mean_margin_ci95"], "%.2f"), r["forfeits"]), file=out)
    if any(r["win_rate_ci95"] is not None for r in report["standings"]):
        print("+-: half the width of a 95% confidence interval, deals as the samples (the games of a deal share "
              "their tiles)", file=out)
    for g in report["games"]:
        if "forfeit" in g:
            f = g["forfeit"]
            print("game %d (deal %d): %s forfeited: %s" % (g["game"], g["deal"], f["bot"], printable(f["why"])), file=out)


def describe(record):
    if "forfeit" in record:
        f = record["forfeit"]
        return "game %d, deal %d: %s forfeited (%s)" % (record["game"], record["deal"], f["bot"], printable(f["why"]))
    return "game %d, deal %d: %s" % (record["game"], record["deal"], ", ".join(
        "%s %d" % (e["bot"], e["score"]) for e in record["seats"]))


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
STOP_WAIT = 15.0   # seconds the games in play have, once the match stops, to be closed on the daemon


def stop_signal_ignored(signum, frame):
    """A stop signal that comes once the match is stopping: nothing to do."""


def ignore_stop_signals():
    """The match is stopping: a second Ctrl-C or SIGTERM must not cut short
    the stop (the bots, the games in play, the private daemon), which is
    bounded in time.  With a handler that does nothing, not SIG_IGN: a
    signal the C handler took before SIG_IGN was set (SIGTERM and SIGHUP
    sent at once, as by systemd with SendSIGHUP=yes) would make CPython
    print "Signal N ignored due to race condition" with a traceback."""
    for sig in STOP_SIGNALS:
        if signal.getsignal(sig) not in (signal.SIG_IGN, stop_signal_ignored):
            signal.signal(sig, stop_signal_ignored)


_held = None   # while not None: the stop signals taken, to be raised later (see held_stop_signals)


def stop_exception(signum):
    return KeyboardInterrupt() if signum == signal.SIGINT else Stopped("stopped by signal %d" % signum)


def stop_on_signal(signum, frame):
    ignore_stop_signals()
    if _held is not None:
        _held.append(signum)
        return
    raise stop_exception(signum)


@contextlib.contextmanager
def held_stop_signals():
    """A stop signal that comes in the block does not raise where the main
    thread happens to be; it is appended to the list the block gets, and
    raised as it leaves the block.  It is raised also when the block ends
    with an error of its own: the stop was asked for, and the error (a
    private daemon that did not answer, say) most likely came of it, so the
    exit status says stopped (130 or 143), not the error's."""
    global _held
    _held = taken = []
    try:
        yield taken
    except Exception as e:
        if taken:
            raise stop_exception(taken[0]) from e
        raise
    finally:
        _held = None
    if taken:
        raise stop_exception(taken[0])


def main(argv=None):
    global _held, _watchdog
    args = parse_args(argv)
    daemon, match, records, status = None, None, {}, 0
    lock = threading.Lock()

    def report_game(record):
        if args.verbose:
            with lock:
                print(describe(record), file=sys.stderr, flush=True)

    # before the stop signals are handled: a stop raised inside Popen
    # could leave it unknown here (it would then end with the arena anyway)
    _watchdog = Watchdog()
    try:
        try:
            for sig in STOP_SIGNALS:   # SIGINT only when not ignored (as by `arena.py &` in a script)
                if sig != signal.SIGINT or signal.getsignal(sig) is signal.default_int_handler:
                    signal.signal(sig, stop_on_signal)
            if args.carcd:
                # held as in Match.run: a stop raised inside Popen or Popen.poll()
                # could leave the daemon started but unknown to us, or its
                # waitpid lock taken, so that stop() would wait for ever
                with held_stop_signals() as taken:
                    daemon = PrivateDaemon(args.carcd, stop_asked=lambda: bool(taken))
                address = daemon.address
            else:
                address = args.address or os.environ.get("CARCD_ADDRESS") or carcd.DEFAULT_ADDRESS
            match = Match(args, address)
            match.run(report_game, records)
        finally:
            # from here on a stop signal is only recorded, and dropped: saying
            # what stopped the match, and stopping it, must run to their end
            _held = []
    except (Refused, carcd.Error) as e:
        print("arena: %s" % e, file=sys.stderr)
        status = 1
    except (carcd.ConnectionClosed, TimeoutError, OSError) as e:
        print("arena: %s" % e, file=sys.stderr)
        status = 3
    except (KeyboardInterrupt, Stopped) as e:
        print("arena: %s" % (str(e) or "interrupted"), file=sys.stderr, flush=True)
        status = 130 if isinstance(e, KeyboardInterrupt) else 143
    finally:
        ignore_stop_signals()
        with _live_lock:   # start_bot holds it: no bot starts after the sweep
            _stopping.set()
            left = list(_live)
        for proc in left:  # after an interrupt or a lost daemon: no bot outlives the match
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass
        # the games in play close on the daemon (not to hold its room), and
        # no thread uses the private daemon any more when it is stopped
        deadline = time.monotonic() + STOP_WAIT
        for t in match.threads if match is not None else ():
            t.join(max(0.0, deadline - time.monotonic()))
        if daemon is not None:
            daemon.stop()
        _watchdog.close()
    if match is None:
        return status
    # the games played so far are reported, also when the match stopped early
    games = [records[i] for i in sorted(records)]
    report = {"seed": args.seed, "deals": args.deals, "expansions": match.options["expansions"],
              "rules": match.options.get("rules", {}), "components": match.options.get("components", {}),
              "bots": [{"bot": name, "command": argv} for name, argv in args.bot],
              "standings": standings(args.bot, games), "games": games, "complete": status == 0}
    try:
        if args.json:
            print(json.dumps(report, indent=1))
        elif games or status != 1:   # a match the daemon refused at once has nothing to show
            print_table(report, sys.stdout)
        sys.stdout.flush()
    except BrokenPipeError:   # `arena.py ... | head`: the reader went away, the match's status stands
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return status


if __name__ == "__main__":
    sys.exit(main())
