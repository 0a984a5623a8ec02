/* carcd.js - a client for the carcd Carcassonne rules daemon, for pages in a browser.
 *
 * carcd speaks WebSocket on the listeners given as `--listen ws:HOST:PORT`
 * (proto/PROTOCOL.md, section 1, "WebSocket (for browsers)").  This file
 * speaks protocol version 1 over one, in JSON (one text message a request,
 * reply or notification); it has no dependencies and no build step.  It is
 * a classic script, not an ES module, so that a page opened straight from
 * disk (file://, where browsers refuse module scripts) can use it:
 *
 *   <script src="carcd.js"></script>            defines window.Carcd, window.CarcdError
 *   const { Carcd, CarcdError } = require("./carcd.js");    under CommonJS (Node)
 *
 *   const client = await Carcd.connect("ws://127.0.0.1:7879/");
 *   const game = await client.call("new_game", { players: ["ann", "bob"] });
 *   client.on("event", (n) => console.log(n.game, n.seq, n.events));
 *   await client.call("subscribe", { game: game.game, decision: true });
 *   try {
 *     await client.call("apply_move", { game: game.game, token: game.seats[0].token, move });
 *   } catch (e) {
 *     if (!(e instanceof CarcdError)) throw e;
 *     show(e.code === "illegal_move" ? e.data.reason : e.message);
 *   }
 *
 * Every method of the protocol is reached through call(method, params),
 * which resolves with the reply's result (a plain object, as JSON.parse
 * makes it) or rejects with a CarcdError.  The error codes of a CarcdError:
 *
 *   - the wire's own (Carcd.ERROR_CODES: "bad_request", "unknown_method",
 *     "invalid_params", "no_such_game", "forbidden", "not_your_turn",
 *     "illegal_move", "conflict", "game_over", "limit", "internal"), with
 *     .message the daemon's text for a person and .data its `data` for a
 *     program (only illegal_move has one: {reason, x?, y?, at?});
 *   - and three of this library's, never sent by carcd:
 *     "unreachable"  connect() could not open the socket (nobody listens,
 *                    the daemon refused the page's origin: --ws-origin, a
 *                    bad URL, or the timeout passed);
 *     "closed"       the connection closed before the reply came, or was
 *                    closed already when call() was made; the message names
 *                    the close code and reason (carcd closes an idle
 *                    connection with 1000 "idle too long (--idle-timeout)"
 *                    and every connection with 1001 when it stops);
 *     "bad_reply"    the server sent a message this library cannot read (not
 *                    JSON, binary, not a reply or notification): it speaks
 *                    no carcd protocol, the connection is of no more use and
 *                    is closed (code 4000).
 *
 * Numbers: JSON.parse makes every number a double, exact for integers up to
 * 2^53.  carcd keeps what it sends within that (game ids and seeds stop at
 * 2^53 - 1, msgids are 32-bit), so nothing it sends is rounded.
 *
 * client.play(game, tokens, choose, options) is the loop a bot writes:
 *
 *   const score = await client.play(g.game, { 0: g.seats[0].token },
 *                                   (due) => due.moves[0]);
 *
 * carcd closes a connection that made no request and got no notification for
 * `hello`'s limits.idle_timeout seconds (600 by default), and a browser
 * cannot send WebSocket pings of its own: a page that may sit idle that long
 * (watching a game nobody moves in) calls "ping" now and then.
 */
(function (root, factory) {
  "use strict";
  const api = factory();
  if (typeof module === "object" && module && module.exports) {
    module.exports = api;                 // CommonJS: { Carcd, CarcdError }
  } else {
    root.Carcd = api.Carcd;               // a <script> in a page
    root.CarcdError = api.CarcdError;
  }
})(typeof globalThis !== "undefined" ? globalThis : typeof self !== "undefined" ? self : this, function () {
  "use strict";

  const REQUEST = 0, RESPONSE = 1, NOTIFICATION = 2;
  const MSGID_LIMIT = 0x100000000;        // msgids are 0 .. 2^32 - 1 on the wire

  // The wire's error codes, PROTOCOL.md section 2.
  const ERROR_CODES = Object.freeze([
    "bad_request", "unknown_method", "invalid_params", "no_such_game", "forbidden",
    "not_your_turn", "illegal_move", "conflict", "game_over", "limit", "internal",
  ]);

  // The close code sent when the server speaks no carcd protocol (a page
  // may send 1000 and 3000-4999 only: the WebSocket API refuses the others).
  const BAD_REPLY_CLOSE = 4000;

  /* An error from carcd (a wire error code) or from this library
   * ("unreachable", "closed", "bad_reply"): see the header. */
  class CarcdError extends Error {
    constructor(code, message, data) {
      super(message || String(code));
      this.name = "CarcdError";
      this.code = code;
      this.data = data;                   // the wire's `data`, or undefined
    }
  }

  // JSON.stringify's replacer for requests: JSON writes NaN and Infinity as
  // null, and carcd takes a parameter set to null as not given, so that
  // {seq: NaN} would quietly skip the seq check and {seed: Infinity} draw a
  // random seed.  Such a number is a bug of the caller's: refuse it.
  function noNonFinite(key, value) {
    if (typeof value === "number" && !Number.isFinite(value)) {
      throw new TypeError("carcd.js: parameter " + JSON.stringify(key) + " is " + value +
                          ", which JSON cannot carry (it would be sent as null: not given)");
    }
    return value;
  }

  // Says which close this was, for messages: `code 1000: idle too long (--idle-timeout)`.
  function describeClose(info) {
    return "code " + info.code + (info.reason ? ": " + info.reason : "");
  }

  // A short quote of a message that could not be read.
  function quote(text) {
    const s = typeof text === "string" ? text : String(text);
    return JSON.stringify(s.length > 200 ? s.slice(0, 200) + "..." : s);
  }

  // Calls fn(arg) for a handler; one that throws is reported, not passed on,
  // so that a bug in a page's handler does not stop the client.
  function safely(fn, arg, what) {
    try {
      fn(arg);
    } catch (e) {
      console.error("carcd.js: a \"" + what + "\" handler threw:", e);
    }
  }

  class Carcd {
    /* Opens a connection to carcd's WebSocket listener at url
     * ("ws://127.0.0.1:7879/"); resolves with the client once it is open.
     *   options.WebSocket  a WebSocket constructor instead of the global one
     *                      (in Node: require("ws"));
     *   options.timeout    ms to wait for the socket to open (default 10000).
     * Rejects with a CarcdError "unreachable" when it does not open. */
    static connect(url, options = {}) {
      const WS = options.WebSocket || (typeof WebSocket !== "undefined" ? WebSocket : undefined);
      const timeout = options.timeout === undefined ? 10000 : options.timeout;
      return new Promise((resolve, reject) => {
        if (!WS) {
          reject(new CarcdError("unreachable", "cannot connect to " + url +
                                ": no WebSocket here (pass options.WebSocket)"));
          return;
        }
        let ws;
        try {
          ws = new WS(url);
        } catch (e) {                     // a malformed URL, a port the browser blocks
          reject(new CarcdError("unreachable", "cannot connect to " + url + ": " + e.message));
          return;
        }
        let settled = false;
        const fail = (why) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          ws.onopen = ws.onclose = ws.onerror = null;
          reject(new CarcdError("unreachable", "cannot connect to " + url + ": " + why));
        };
        const timer = setTimeout(() => {
          fail("no answer within " + timeout + " ms");
          try { ws.close(); } catch (e) { /* closing what never opened */ }
        }, timeout);
        // A browser tells no more than this of why: a refused connection and
        // an origin carcd refuses (403) both look like a close with code 1006.
        ws.onerror = () => {};            // the close event that follows says it
        ws.onclose = (ev) => fail("the connection closed before it opened (" +
                                  describeClose({ code: ev.code, reason: ev.reason }) + ")");
        ws.onopen = () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          ws.onopen = ws.onclose = ws.onerror = null;
          resolve(new Carcd(ws, url));
        };
      });
    }

    // Use Carcd.connect(); the constructor takes a WebSocket that is open.
    constructor(ws, url) {
      this.url = url;                     // as given to connect()
      this._ws = ws;
      this._nextId = 1;
      this._pending = new Map();          // msgid -> {resolve, reject, method}, oldest first
      this._handlers = { event: new Set(), close: new Set() };
      this._closeInfo = null;             // {code, reason} once closed
      this._badReply = null;              // the CarcdError of an unreadable message
      // {code, reason} once the connection closes, however it closes (carcd's
      // idle close, its stop, close(), a lost connection: 1006); never rejects
      this.closed = new Promise((resolve) => { this._resolveClosed = resolve; });
      ws.onmessage = (ev) => this._receive(ev.data);
      ws.onerror = () => {};              // the close event follows and says it
      ws.onclose = (ev) => this._onClose({ code: ev.code, reason: ev.reason });
    }

    // How many calls await their replies.
    get pending() {
      return this._pending.size;
    }

    /* Sends one request; resolves with its result, rejects with a CarcdError
     * (the wire's error, or "closed").  params must survive JSON.stringify:
     * a BigInt, a cycle, NaN or Infinity rejects with a TypeError and sends
     * nothing.  A key whose value is undefined is left out, which carcd
     * takes as not given, as it takes null. */
    call(method, params = {}) {
      return new Promise((resolve, reject) => {
        const msgid = this._takeId();
        let text;
        try {
          text = JSON.stringify([REQUEST, msgid, method, params === undefined ? {} : params], noNonFinite);
        } catch (e) {
          reject(e);
          return;
        }
        this._pending.set(msgid, { resolve, reject, method });
        if (this._closeInfo) {
          this._failPending();
        } else if (this._ws.readyState === 1) {   // OPEN
          this._ws.send(text);
        }
        // Else CLOSING: the socket drops what is sent now, and the call is
        // refused when the close completes, naming its code and reason.
      });
    }

    /* name "event": fn(params) for each notification, params as the wire
     * has them ({game, seq, events}, and phase, seat, over after subscribe
     * with decision: true), for every game this connection subscribed to;
     * every handler gets the same object.  name "close": fn({code, reason})
     * once, when the connection closes (a handler added after that is never
     * called: `closed` tells it too).  A handler that throws is reported on
     * the console and the others still run.  on and off return the client;
     * another name throws a TypeError. */
    on(name, fn) {
      this._handlerSet(name).add(fn);
      return this;
    }

    off(name, fn) {
      this._handlerSet(name).delete(fn);
      return this;
    }

    /* Closes the connection (code 1000 or 3000-4999, as the WebSocket API
     * allows; a reason of at most 123 bytes: others reject with the API's
     * DOMException and close nothing); resolves with the {code, reason} of
     * the close, as `closed` does (carcd answers with the code it was sent).
     * Calls still pending are rejected "closed": carcd does answer the
     * requests it had before the close, but a browser drops what arrives on
     * a socket the page is closing. */
    close(code = 1000, reason = "") {
      if (!this._closeInfo && this._ws.readyState <= 1) {   // CONNECTING or OPEN
        try {
          this._ws.close(code, reason);
        } catch (e) {                     // a code or reason the WebSocket API refuses
          return Promise.reject(e);
        }
      }
      return this.closed;
    }

    /* Plays the seats of a game it holds tokens for, to the end, with
     * choose(due) picking each move: the loop every bot writes.  Resolves
     * with `score`'s result once the game is over.
     *   tokens   {seat: token} (an array indexed by seat does too) of the
     *            seats it plays, a token null for a seat of a game made with
     *            auth: false; null for every seat of such a game;
     *   choose   (due) => move, or a promise of one: due is {game, seq,
     *            phase, seat, moves}, a decision of one of its seats as
     *            legal_moves has it (moves not empty); the move is one of
     *            due.moves, sent back as listed;
     *   options.features   the moves in legal_moves' features form;
     *   options.onMove     (due, move) after each move played;
     *   options.keepalive  ms between pings while it waits, for the other
     *                      seats or for choose's promise (default a third of
     *                      hello's limits.idle_timeout, 60000 at most).
     * With a carcd that offers subscribe's moves (hello's extras) each
     * notification brings the decision due and its moves, so a decision
     * costs one request, apply_move; else it asks legal_moves after each
     * move.  Each move goes with its seq; a conflict is the game moving on.
     * Rejects with the CarcdError of a move or request carcd refused,
     * "no_such_game" when the game is closed meanwhile, "closed" when the
     * connection closes. */
    async play(game, tokens, choose, options = {}) {
      const hello = await this.call("hello", {});
      const extras = Array.isArray(hello.extras) ? hello.extras : [];
      const features = !!options.features;
      const notified = extras.includes("subscribe.moves") && (!features || extras.includes("subscribe.features"));
      const idle = hello.limits && hello.limits.idle_timeout;
      const keepalive = options.keepalive || (idle > 0 ? Math.min(60000, idle * 1000 / 3) : 60000);
      // the token to play seat with (null: none needed), or false: not ours
      const tokenFor = (seat) => {
        if (tokens === null) return null;
        if (!Object.prototype.hasOwnProperty.call(tokens, seat)) return false;
        const t = tokens[seat];
        return typeof t === "string" || t === null ? t : false;
      };
      const legal = () => this.call("legal_moves", features ? { game, features: true } : { game });
      // notifications of this game, in order, and the wait for the next
      const queue = [];
      let wake = null;
      const onEvent = (n) => {
        if (!n || n.game !== game) return;
        queue.push(n);
        if (wake) wake();
      };
      const onClose = () => { if (wake) wake(); };
      const nextDue = async () => {
        while (!queue.length) {
          if (this._closeInfo) {
            throw new CarcdError("closed", "connection to " + this.url + " closed (" +
                                 describeClose(this._closeInfo) + ") while game " + game + " was played");
          }
          const arrived = new Promise((resolve) => { wake = resolve; });
          let timer;
          const quiet = new Promise((resolve) => { timer = setTimeout(() => resolve("quiet"), keepalive); });
          const why = await Promise.race([arrived, quiet]);
          clearTimeout(timer);
          wake = null;
          if (why === "quiet" && !queue.length) await this.call("ping", {});
        }
        const newest = queue[queue.length - 1];   // in order, without gaps: the game as it is
        const closed = queue.some((n) => (n.events || []).some((e) => e && e.type === "game_closed"));
        queue.length = 0;
        if (closed) throw new CarcdError("no_such_game", "game " + game + " was closed");
        return notified ? newest : legal();
      };
      this.on("event", onEvent);
      this.on("close", onClose);
      try {
        await this.call("subscribe", notified ? { game, moves: true, features } : { game });
        let due = await legal();
        for (;;) {
          if (due.phase === "over") return await this.call("score", { game });
          const token = tokenFor(due.seat);
          if (token !== false && due.moves.length) {
            // a chooser that takes its time (a promise) keeps the connection
            // from being closed as idle meanwhile
            const pinger = setInterval(() => { this.call("ping", {}).catch(() => {}); }, keepalive);
            let move;
            try {
              move = await choose(due);
            } finally {
              clearInterval(pinger);
            }
            const params = { game, move, seq: due.seq };
            if (token !== null) params.token = token;
            try {
              await this.call("apply_move", params);
            } catch (e) {
              if (!(e instanceof CarcdError) || (e.code !== "conflict" && e.code !== "game_over")) throw e;
              due = await nextDue();       // the game moved on (or ended) meanwhile
              continue;
            }
            if (options.onMove) options.onMove(due, move);
            if (!notified) {
              queue.length = 0;             // our own move's notification carries nothing new
              due = await legal();
              continue;
            }
          }
          due = await nextDue();            // after our own move: its notification
        }
      } finally {
        this.off("event", onEvent);
        this.off("close", onClose);
      }
    }

    // ---- plumbing ------------------------------------------------------

    _handlerSet(name) {
      if (name !== "event" && name !== "close") {
        throw new TypeError("Carcd: no such event \"" + name + "\" (there are \"event\" and \"close\")");
      }
      return this._handlers[name];
    }

    // The next msgid: 1, 2, ... 2^32 - 1, then 1 again, skipping one still
    // awaiting its reply (which after 2^32 calls could only be a lost one).
    _takeId() {
      let id = this._nextId;
      while (this._pending.has(id)) id = id + 1 >= MSGID_LIMIT ? 1 : id + 1;
      this._nextId = id + 1 >= MSGID_LIMIT ? 1 : id + 1;
      return id;
    }

    _receive(data) {
      if (this._badReply) return;         // closing: nothing more is read
      if (typeof data !== "string") {
        this._unreadable("a binary message (carcd.js speaks JSON)");
        return;
      }
      let msg;
      try {
        msg = JSON.parse(data);
      } catch (e) {
        this._unreadable("a message that is not JSON: " + quote(data));
        return;
      }
      if (Array.isArray(msg) && msg.length === 4 && msg[0] === RESPONSE) {
        this._reply(msg, data);
      } else if (Array.isArray(msg) && msg.length === 3 && msg[0] === NOTIFICATION &&
                 typeof msg[1] === "string") {
        // carcd's only notification is "event"; another name (of a later
        // server) is passed over.
        if (msg[1] === "event") {
          for (const fn of Array.from(this._handlers.event)) safely(fn, msg[2], "event");
        }
      } else {
        this._unreadable("a message that is no reply or notification: " + quote(data));
      }
    }

    _reply(msg, data) {
      const [, msgid, error, result] = msg;
      let id = msgid;
      if (msgid === null) {
        // carcd gives a nil msgid when it could not read the request's;
        // it answers in order, so this answers the oldest call still waiting.
        const oldest = this._pending.keys().next();
        if (oldest.done) {
          console.error("carcd.js: a reply to no call:", data);
          return;
        }
        id = oldest.value;
      }
      const call = this._pending.get(id);
      if (!call) {
        this._unreadable("a reply to no call made (msgid " + JSON.stringify(msgid) + "): " + quote(data));
        return;
      }
      this._pending.delete(id);
      if (error === null || error === undefined) {
        call.resolve(result);
      } else if (error && typeof error === "object" && typeof error.code === "string") {
        call.reject(new CarcdError(error.code, typeof error.message === "string" ? error.message : "",
                                   error.data === null ? undefined : error.data));
      } else {
        call.reject(new CarcdError("bad_reply", "the reply to " + call.method +
                                   " has an error that is no {code, message}: " + quote(data)));
      }
    }

    // A message we cannot place: the stream is out of step, so every call
    // waiting is refused "bad_reply" and the connection closed.
    _unreadable(what) {
      this._badReply = new CarcdError("bad_reply", "the server at " + this.url + " sent " + what);
      console.error("carcd.js: " + this._badReply.message);
      const pending = Array.from(this._pending.values());
      this._pending.clear();
      for (const call of pending) call.reject(this._badReply);
      try {
        this._ws.close(BAD_REPLY_CLOSE, "bad reply");
      } catch (e) { /* closing already */ }
    }

    _failPending() {
      const info = this._closeInfo;
      const pending = Array.from(this._pending.values());
      this._pending.clear();
      for (const call of pending) {
        call.reject(new CarcdError("closed", "connection to " + this.url + " closed (" +
                                   describeClose(info) + "): no reply to " + call.method));
      }
    }

    _onClose(info) {
      if (this._closeInfo) return;
      this._closeInfo = { code: info.code, reason: info.reason || "" };
      this._failPending();
      this._resolveClosed(this._closeInfo);
      for (const fn of Array.from(this._handlers.close)) safely(fn, this._closeInfo, "close");
      this._handlers.close.clear();       // once
    }
  }

  Carcd.ERROR_CODES = ERROR_CODES;

  return { Carcd, CarcdError };
});
