/* play.js - a page to play and watch Carcassonne on carcd: the reference UI.
 *
 * Plain JavaScript, a classic script (it runs from file:// too), on
 * carcd.js (window.Carcd, the protocol client) and board.js
 * (window.CarcdBoard, the SVG drawing ported from contrib/render.py).
 * The wire is proto/PROTOCOL.md's.  The page subscribes to the game it
 * shows with `decision`, and with `state` too when hello's extras list
 * "subscribe.state": each notification then brings the state to show, and
 * the page calls `state` only when it has none as new as the game (after
 * a subscribe, a reconnect); against a carcd without that extra it calls
 * `state` after each notification.  Likewise with `moves` and `features`
 * when the extras list "subscribe.moves" and "subscribe.features": each
 * notification brings the legal moves due, and the page calls
 * `legal_moves` only when one of its seats decides and it has no list as
 * new as the game; else it calls it whenever one of its seats decides.
 *
 * Query parameters:
 *   ?ws=URL       the daemon's WebSocket listener (default ws://127.0.0.1:7879/);
 *                 the page connects to it when it opens
 *   ?delay=MS     how long the page's bots wait before they move (default 400)
 *   ?watch=GAME   watch that game as soon as the page is connected
 *
 * Stable hooks (for tests and for people who script the page):
 *   body[data-conn]     "none", "connecting", "open", "closed"
 *   body[data-phase]    the phase of the game shown ("tile", "action", ...,
 *                       "over"), "none" without a game
 *   body[data-seq], body[data-game], body[data-mode] ("play" or "watch")
 *   body[data-await]    "human" once a human seat's decision is offered (the
 *                       targets or move buttons of that very decision are
 *                       drawn), "bot" while a bot of the page is due, "other"
 *                       when nobody here decides (watching), "none" (no game,
 *                       or over)
 *   #status             one line: connection, errors (wire code and message)
 *   #url, #connect      the daemon's URL and the button to connect
 *   #players .player[data-player=i]  a seat of the new game: input[name=name],
 *                       select[name=kind] ("human" or "bot"), button.remove;
 *                       #add-player adds one (2 to 6)
 *   #expansions input[type=checkbox][value=NAME]  hello's expansions
 *   #rules [data-rule=KEY]  hello's rule options (selects hold JSON values)
 *   #seed, #delay, #new-game (submit: starts the game)
 *   #watch-id, #watch   watch a game by its id
 *   #scores             one li.seat per seat, data-seat and data-score
 *                       (data-turn="true" on the seat to play)
 *   #board              the board's <svg>: g.tile[data-x][data-y][data-tile][data-rot]
 *                       (as render.py draws them), g.figure[data-id][data-seat][data-kind],
 *                       frontier targets .target[data-x][data-y] (when a human
 *                       seat places a tile), the tile shown on a target
 *                       g.preview-tile[data-rot], decision spots .spot[data-key]
 *   #rotate, #place     the next rotation that fits at the chosen target, and
 *                       placing it (also: click the target again; keys R, Enter)
 *   #moves .move[data-index]  a button per other legal move; data-index is its
 *                       index in legal_moves' list
 *   #over               shown when the game has ended (#final: the scores)
 *   #events li          the last events, in words
 *   window.CarcdPlay    the page's state and actions: .state, .legal,
 *                       .session (no tokens shown), .apply(move) sends a move
 *                       for the seat due, as a click would, .connect(url),
 *                       .watch(game)
 */
(function () {
  "use strict";

  var DEFAULT_URL = "ws://127.0.0.1:7879/";
  var MAX_EVENTS = 80;
  var KIND_NAMES = {
    follower: "follower", large: "large follower", wagon: "wagon", mayor: "mayor",
    builder: "builder", pig: "pig", barn: "barn", shepherd: "shepherd", abbey: "abbey"
  };

  var query = new URLSearchParams(location.search);
  var B = window.CarcdBoard;

  function $(sel) { return document.querySelector(sel); }
  function isInt(v) { return typeof v === "number" && Math.floor(v) === v; }
  function esc(s) {
    return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }

  // ---- the page's state ----------------------------------------------------------------

  var app = {
    client: null,        // the Carcd client, once connected
    url: null,
    hello: null,
    tiles: {},           // CarcdBoard tile types, from the `tiles` method
    connecting: null,    // the promise of a connection under way
    session: null,       // {mode, game, names, kinds, tokens (hidden below), knownSeq, loggedSeq}
    state: null,         // the last `state`
    legal: null,         // the last `legal_moves` (a decision of one of ours), or null
    selection: null,     // {x, y, indices: [...], i}: the chosen target and its rotation
    submitting: false,
    paused: false,
    dirty: false,
    refreshing: false,
    pinger: null
  };
  // tokens are kept out of app, so that nothing that shows app shows them
  var tokens = new WeakMap();   // session -> [token or null, per seat]

  var view = new B.View($("#board"), { size: 64 });

  // ---- the status line -----------------------------------------------------------------

  function setStatus(text, kind) {
    var st = $("#status");
    st.textContent = text;
    st.className = kind || "";
  }

  function errorText(e) {
    if (e && typeof e.code === "string") {
      return e.code + ": " + (e.message || e.code);
    }
    return (e && e.message) || String(e);
  }

  function showError(e, what) {
    setStatus((what ? what + ": " : "") + errorText(e), "error");
  }

  // ---- connection ----------------------------------------------------------------------

  function setConn(c) { document.body.setAttribute("data-conn", c); }

  function connect(url) {
    url = (url || "").trim();
    var old = app.client;
    app.client = null;
    if (old) { try { old.close(); } catch (e) { /* already closed */ } }
    if (app.pinger) { clearInterval(app.pinger); app.pinger = null; }
    setConn("connecting");
    setStatus("connecting to " + url + " ...");
    var attempt = (async function () {
      var client;
      await null;   // `attempt` is set before anything below looks at it
      try {
        if (!window.Carcd) throw new Error("carcd.js is not loaded");
        client = await window.Carcd.connect(url);
      } catch (e) {
        if (app.connecting === attempt) {
          setConn("closed");
          showError(e);
        }
        throw e;
      }
      if (app.connecting !== attempt) { client.close(); throw new Error("superseded"); }
      client.on("event", function (n) { onEvent(client, n); });
      client.on("close", function (info) { onClose(client, info); });
      var hello, tiles = {};
      try {
        hello = await client.call("hello", { client: "carcd web page" });
        var names = (hello.expansions || []).filter(function (e) { return e.available !== false; })
                                             .map(function (e) { return e.name; });
        try {
          // what every tile looks like (one call for every set: a tile is described alike whatever the sets)
          tiles = B.wireTiles(await client.call("tiles", { expansions: names.length ? names : ["base"], rot: 0 }));
        } catch (e) {
          // a carcd without `tiles` (unknown_method): tiles are drawn as grey squares with their ids
          if (!(e && e.code === "unknown_method")) throw e;
        }
      } catch (e) {
        if (app.connecting === attempt) showError(e, "hello");
        client.close();
        throw e;
      }
      if (app.connecting !== attempt) { client.close(); throw new Error("superseded"); }
      app.client = client;
      app.url = url;
      app.hello = hello;
      app.tiles = tiles;
      view.setTiles(app.tiles);
      fillExpansions(hello);
      fillRules(hello);
      setConn("open");
      setStatus("connected to " + url + " (" + (hello.server || "?") + " " + (hello.version || "") + ")");
      var idle = hello.limits && isInt(hello.limits.idle_timeout) && hello.limits.idle_timeout > 0
        ? hello.limits.idle_timeout : 600;
      app.pinger = setInterval(function () {
        if (app.client === client) client.call("ping", {}).catch(function () {});
      }, Math.max(1000, Math.min(idle * 500, 120000)));
      // a game of before the connection broke goes on: tokens are still here
      if (app.session) resume(app.session);
      return client;
    })();
    app.connecting = attempt;
    attempt.catch(function () {});
    return attempt;
  }

  function ensureClient() {
    if (app.client) return Promise.resolve(app.client);
    var c = document.body.getAttribute("data-conn");
    if (c === "connecting" && app.connecting) return app.connecting;
    return connect($("#url").value);
  }

  // A session: the game the page shows, played ("play", with the seats'
  // names and kinds) or watched ("watch"), and what the page knows of it.
  function newSession(mode, game, names, kinds) {
    return { mode: mode, game: game, names: names, kinds: kinds, knownSeq: 0, loggedSeq: 0,
             botSeq: null, failures: 0, final: null, stateSub: false, pushed: null, pushedLegal: null };
  }

  // Subscribes the connection to the session's game: with the state and,
  // when the page plays in it, the legal moves (as `features` gives them)
  // in each notification when the daemon offers them (hello's extras), else
  // with the decision only; notes in the session which.  Returns
  // subscribe's result.
  async function subscribeTo(client, sess) {
    var extras = app.hello && Array.isArray(app.hello.extras) ? app.hello.extras : [];
    var p = { game: sess.game, decision: true };
    if (extras.indexOf("subscribe.state") >= 0) p.state = true;
    // a page that only watches decides nothing: it needs no moves
    if (sess.mode === "play" && extras.indexOf("subscribe.moves") >= 0 && extras.indexOf("subscribe.features") >= 0) {
      p.moves = true;
      p.features = true;
    }
    var sub = await client.call("subscribe", p);
    sess.stateSub = !!p.state;
    sess.pushed = null;
    sess.pushedLegal = null;
    return sub;
  }

  function onClose(client, info) {
    if (client !== app.client) return;
    app.client = null;
    if (app.pinger) { clearInterval(app.pinger); app.pinger = null; }
    setConn("closed");
    setStatus("connection closed (code " + info.code + (info.reason ? ": " + info.reason : "") +
              ")" + (app.session ? "; connect again to go on with game " + app.session.game : ""), "error");
    render();
  }

  async function resume(sess) {
    sess.failures = 0;
    sess.botSeq = null;
    try {
      await subscribeTo(app.client, sess);
      requestRefresh();
    } catch (e) {
      showError(e, "game " + sess.game);
    }
  }

  // ---- the setup forms -----------------------------------------------------------------

  var DEFAULT_NAMES = ["Ann", "Bob", "Carla", "Dan", "Eve", "Fritz"];

  function addPlayer(name, kind) {
    var box = $("#players");
    var n = box.children.length;
    if (n >= 6) return;
    var row = document.createElement("div");
    row.className = "player";
    row.innerHTML = '<span class="swatch"></span>' +
      '<input name="name" type="text" maxlength="64" aria-label="name">' +
      '<select name="kind" aria-label="who plays"><option value="human">human</option>' +
      '<option value="bot">random bot</option></select>' +
      '<button type="button" class="remove" title="remove this seat" aria-label="remove">\u2715</button>';
    row.querySelector("input").value = name || DEFAULT_NAMES[n] || "player " + (n + 1);
    row.querySelector("select").value = kind || (n === 0 ? "human" : "bot");
    row.querySelector(".remove").addEventListener("click", function () {
      if ($("#players").children.length > 2) { row.parentNode.removeChild(row); numberPlayers(); }
    });
    box.appendChild(row);
    numberPlayers();
  }

  function numberPlayers() {
    var rows = $("#players").children;
    for (var i = 0; i < rows.length; i++) {
      rows[i].setAttribute("data-player", i);
      rows[i].querySelector(".swatch").style.background = B.seatColour(i);
      rows[i].querySelector(".remove").disabled = rows.length <= 2;
    }
    $("#add-player").disabled = rows.length >= 6;
  }

  function fillExpansions(hello) {
    var box = $("#expansions");
    var was = {};
    box.querySelectorAll("input").forEach(function (i) { was[i.value] = i.checked; });
    box.innerHTML = "<legend>Expansions</legend>";
    (hello.expansions || []).forEach(function (e) {
      if (typeof e.name !== "string") return;
      var label = document.createElement("label");
      label.className = "expansion" + (e.available === false ? " unavailable" : "");
      var box1 = document.createElement("input");
      box1.type = "checkbox";
      box1.value = e.name;
      box1.disabled = e.available === false;
      box1.checked = e.available !== false && (e.name in was ? was[e.name] : e.name === "base");
      label.appendChild(box1);
      label.appendChild(document.createTextNode(" " + e.name + (e.available === false ? " (not available)" : "")));
      label.title = e.tileset || "";
      box.appendChild(label);
    });
  }

  // hello's rule options that act (implemented), each a select or a number,
  // at its default; new_game gets those changed from it
  function fillRules(hello) {
    var box = $("#rules");
    var was = {};
    box.querySelectorAll("[data-rule]").forEach(function (i) { was[i.getAttribute("data-rule")] = i.value; });
    box.innerHTML = "<summary>Rule options</summary>";
    (hello.rules || []).forEach(function (r) {
      if (typeof r.key !== "string" || r.implemented === false) return;
      var row = document.createElement("p");
      row.className = "row rule";
      var label = document.createElement("label");
      label.textContent = r.key.replace(/_/g, " ");
      var input;
      if (r.type === "integer") {
        input = document.createElement("input");
        input.type = "number";
        if (isInt(r.min)) input.min = r.min;
        if (isInt(r.max)) input.max = r.max;
        input.value = String(r["default"]);
      } else {
        input = document.createElement("select");
        (r.values || []).forEach(function (v) {
          var o = document.createElement("option");
          o.value = JSON.stringify(v);
          o.textContent = String(v);
          input.appendChild(o);
        });
        input.value = JSON.stringify(r["default"]);
      }
      input.setAttribute("data-rule", r.key);
      input.setAttribute("data-type", r.type);
      input.setAttribute("data-default", JSON.stringify(r["default"]));
      input.id = "rule-" + r.key;
      input.title = "default: " + String(r["default"]);
      label.htmlFor = input.id;
      if (was[r.key] !== undefined) input.value = was[r.key];
      row.appendChild(label);
      row.appendChild(input);
      box.appendChild(row);
    });
  }

  function chosenRules() {
    var rules = {}, any = false;
    $("#rules").querySelectorAll("[data-rule]").forEach(function (i) {
      var v = i.getAttribute("data-type") === "integer" ? Number(i.value) : JSON.parse(i.value);
      if (JSON.stringify(v) !== i.getAttribute("data-default")) { rules[i.getAttribute("data-rule")] = v; any = true; }
    });
    return any ? rules : null;
  }

  function botDelay() {
    var v = parseInt($("#delay").value, 10);
    return isInt(v) && v >= 0 ? v : 400;
  }

  async function newGame() {
    var rows = Array.prototype.slice.call($("#players").children);
    var names = rows.map(function (r) { return r.querySelector("input").value.trim(); });
    var kinds = rows.map(function (r) { return r.querySelector("select").value === "bot" ? "bot" : "human"; });
    if (names.some(function (n) { return !n; })) { setStatus("every seat needs a name", "error"); return; }
    var client;
    try { client = await ensureClient(); } catch (e) { return; }
    var params = { players: names };
    var exps = Array.prototype.slice.call($("#expansions").querySelectorAll("input:checked"))
                    .map(function (i) { return i.value; });
    if (exps.length) params.expansions = exps;
    var rules = chosenRules();
    if (rules) params.rules = rules;
    var seed = $("#seed").value.trim();
    if (seed !== "") {
      if (!/^\d+$/.test(seed)) { setStatus("the seed is a whole number from 0", "error"); return; }
      params.seed = Number(seed);
    }
    var res;
    try {
      res = await client.call("new_game", params);
    } catch (e) {
      showError(e, "new_game");
      return;
    }
    var sess = newSession("play", res.game, names, kinds);
    var toks = [];
    (res.seats || []).forEach(function (s) { toks[s.seat] = s.token; });
    tokens.set(sess, toks);
    startSession(sess);
    setStatus("game " + res.game + " started" + (kinds.every(function (k) { return k === "bot"; })
      ? " (bots only)" : ""));
    try {
      await subscribeTo(client, sess);
    } catch (e) {
      showError(e, "subscribe");
    }
    show(res.state, null);
    requestRefresh();
  }

  async function watch(game) {
    var id = Number(game);
    if (!isInt(id) || id < 1) { setStatus("a game id is a whole number from 1", "error"); return; }
    var client;
    try { client = await ensureClient(); } catch (e) { return; }
    var sess = newSession("watch", id, null, null);
    var sub;
    try {
      sub = await subscribeTo(client, sess);   // the session starts only once it is watched
    } catch (e) {
      showError(e, "watch game " + id);
      return;
    }
    sess.knownSeq = sub.seq;
    tokens.set(sess, []);
    startSession(sess);
    setStatus("watching game " + id);
    try {
      // the events before the subscription, before those notified since
      var h = await client.call("history", { game: id });
      if (app.session === sess) {
        var evs = (h.events || []).filter(function (ev) { return !(ev.seq > sub.seq); });
        var first = $("#events").firstChild;
        evs.slice(Math.max(0, evs.length - MAX_EVENTS)).forEach(function (ev) { logEvent(ev, first); });
        sess.loggedSeq = Math.max(sess.loggedSeq, sub.seq);
      }
    } catch (e) { /* the events so far are a nicety */ }
    requestRefresh();
  }

  function startSession(sess) {
    var old = app.session;
    if (old && app.client && old.game !== sess.game) {
      app.client.call("unsubscribe", { game: old.game }).catch(function () {});
    }
    app.session = sess;
    app.state = null;
    app.legal = null;
    app.selection = null;
    $("#events").innerHTML = "";
    view.clear();
    document.body.setAttribute("data-mode", sess.mode);
    document.body.setAttribute("data-game", sess.game);
    $("#pause").hidden = sess.mode !== "play" || !sess.kinds.some(function (k) { return k === "bot"; });
  }

  // ---- following the game --------------------------------------------------------------

  function onEvent(client, n) {
    var sess = app.session;
    if (client !== app.client || !sess || n.game !== sess.game) return;
    var closed = (n.events || []).some(function (ev) { return ev.type === "game_closed"; });
    // subscribe's `state`: the state after this notification's move, to show without asking
    var fresh = n.state && typeof n.state === "object" && n.state.seq === n.seq &&
                (!sess.pushed || n.seq > sess.pushed.seq);
    if (fresh && !closed) sess.pushed = n.state;
    // subscribe's `moves`: what legal_moves would answer at this seq
    if (Array.isArray(n.moves) && !closed && (!sess.pushedLegal || n.seq > sess.pushedLegal.seq))
      sess.pushedLegal = { game: n.game, seq: n.seq, phase: n.phase, seat: n.seat, moves: n.moves };
    if (n.seq > sess.loggedSeq || closed) {
      (n.events || []).forEach(function (ev) { logEvent(ev); });
      sess.loggedSeq = Math.max(sess.loggedSeq, n.seq);
    }
    if (closed) {
      sess.closed = true;
      setStatus("game " + sess.game + " was closed", "error");
      render();
      return;
    }
    if (n.seq > sess.knownSeq) {
      sess.knownSeq = n.seq;
      requestRefresh();
    } else if (fresh && !(app.state && app.state.seq >= n.seq)) {
      requestRefresh();   // our own move: its reply came first, its state now
    }
  }

  // Shows the state (the last notified one when it is as new as the game,
  // else fetched) and fetches the legal moves when one of our seats
  // decides, one refresh at a time; a request for one meanwhile makes one
  // more after.
  function requestRefresh() {
    app.dirty = true;
    if (app.refreshing) return;
    app.refreshing = true;
    (async function () {
      try {
        while (app.dirty) {
          app.dirty = false;
          await refreshOnce();
        }
      } catch (e) {
        if (!(e && e.code === "closed")) showError(e);   // a close has said so already
      } finally {
        app.refreshing = false;
      }
    })();
  }

  async function refreshOnce() {
    var sess = app.session, client = app.client;
    if (!sess || !client || sess.closed) return;
    var st = sess.pushed && sess.pushed.seq >= sess.knownSeq ? sess.pushed : null;
    if (!st) {
      st = await client.call("state", { game: sess.game });
      if (sess !== app.session) return;
    }
    var lm = null, toks = tokens.get(sess) || [];
    var pl = sess.pushedLegal;
    if (!st.over && isInt(st.seat) && toks[st.seat] && pl && pl.seq === st.seq) {
      lm = pl;
    } else if (!st.over && isInt(st.seat) && toks[st.seat]) {
      lm = await client.call("legal_moves", { game: sess.game, features: true });
      if (sess !== app.session) return;
      if (lm.seq !== st.seq) {
        if (lm.seq > sess.knownSeq) sess.knownSeq = lm.seq;
        app.dirty = true;
        return;
      }
    }
    if (st.over && !sess.final) {
      try { sess.final = await client.call("score", { game: sess.game }); } catch (e) { /* the state has the scores */ }
      if (sess !== app.session) return;
    }
    if (st.seq > sess.knownSeq) sess.knownSeq = st.seq;
    show(st, lm);
  }

  function show(st, lm) {
    var keep = app.selection && app.legal && lm && app.legal.seq === lm.seq;
    app.state = st;
    app.legal = lm;
    if (!keep) app.selection = null;
    render();
    maybeBot();
  }

  // ---- moves ---------------------------------------------------------------------------

  async function submit(move) {
    var sess = app.session, lm = app.legal, client = app.client;
    if (!sess || !client) {
      if (sess) sess.botSeq = null;   // the bot tries again once connected
      setStatus("not connected" + (sess ? ": connect again to go on with game " + sess.game : ""), "error");
      return false;
    }
    if (app.submitting) return false;
    var seat = lm ? lm.seat : app.state && app.state.seat;
    var toks = tokens.get(sess) || [];
    var params = { game: sess.game, move: move };
    if (isInt(seat) && toks[seat]) params.token = toks[seat];
    if (lm) params.seq = lm.seq;
    app.submitting = true;
    document.body.classList.add("busy");
    try {
      var res = await client.call("apply_move", params);
      if (app.session !== sess) return true;
      if (res.seq > sess.loggedSeq) {
        (res.events || []).forEach(function (ev) { logEvent(ev); });
        sess.loggedSeq = res.seq;
      }
      sess.failures = 0;
      if (sess.kinds && sess.kinds[seat] === "human" && $("#status").className === "error") {
        setStatus("game " + sess.game + ": move played");
      }
      if (res.seq > sess.knownSeq) {
        sess.knownSeq = res.seq;
      }
      app.selection = null;
      // with the state in notifications, the one of this move comes next and shows it
      if (!sess.stateSub) requestRefresh();
      return true;
    } catch (e) {
      if (app.session === sess && !(e && e.code === "closed")) {   // a close has said so already
        sess.failures++;
        showError(e, "move refused");
        sess.botSeq = null;
        requestRefresh();   // the position as it is now: the page goes on from there
      }
      return false;
    } finally {
      app.submitting = false;
      document.body.classList.remove("busy");
    }
  }

  function maybeBot() {
    var sess = app.session, lm = app.legal, st = app.state;
    if (!sess || sess.mode !== "play" || !lm || !st || st.over || app.paused) return;
    if (sess.kinds[lm.seat] !== "bot" || !lm.moves.length) return;
    if (sess.botSeq === lm.seq) return;
    if (sess.failures >= 3) {
      setStatus("the bot of seat " + lm.seat + " stopped: its moves were refused three times", "error");
      return;
    }
    sess.botSeq = lm.seq;
    setTimeout(function () {
      if (app.session !== sess || app.legal !== lm || app.paused) {
        if (app.session === sess && sess.botSeq === lm.seq) sess.botSeq = null;
        return;
      }
      var move = lm.moves[Math.floor(Math.random() * lm.moves.length)];
      submit(move);
    }, botDelay());
  }

  // ---- words ---------------------------------------------------------------------------

  function seatName(seat) {
    var st = app.state, sess = app.session;
    if (st && Array.isArray(st.seats)) {
      for (var i = 0; i < st.seats.length; i++) if (st.seats[i].seat === seat) return st.seats[i].name;
    }
    if (sess && sess.names && sess.names[seat] !== undefined) return sess.names[seat];
    return isInt(seat) ? "seat " + seat : "?";
  }

  // A seat's name as HTML, isolated (a name may hold bidirectional characters).
  function who(seat) {
    if (!isInt(seat)) return "someone";
    return '<bdi class="who" style="--seat:' + B.seatColour(seat) + '">' + esc(seatName(seat)) + '</bdi>';
  }

  function kindName(k) { return KIND_NAMES[k] || String(k); }
  function cap(s) { return s.charAt(0).toUpperCase() + s.slice(1); }
  function at(x, y) { return "(" + x + ", " + y + ")"; }
  function portsText(m) {
    if (Array.isArray(m.ports) && m.ports.length) return m.ports.join(" ");
    return m.at === undefined || m.at === null ? "" : String(m.at);
  }

  function findFigure(id) {
    var board = app.state && app.state.board || [];
    for (var i = 0; i < board.length; i++) {
      var figs = board[i].figures || [];
      for (var j = 0; j < figs.length; j++) if (figs[j].id === id) return { tile: board[i], fig: figs[j] };
    }
    return null;
  }

  // A legal move in words (HTML).
  function moveText(m, phase) {
    switch (m.type) {
      case "place_tile":
        return "Place " + esc(m.tile) + " at " + at(m.x, m.y) + ", turned " + m.rot + "\u00b0";
      case "deploy":
        if (m.kind === "barn") {
          return "<b>Barn</b> \u2192 corner " + esc(m.at) + (m.feature ? " (" + esc(m.feature) + ")" : "");
        }
        return "<b>" + esc(cap(kindName(m.kind))) + "</b> \u2192 " + esc(m.feature || "feature") +
               (m.feature === "cloister" || !portsText(m) ? "" : " (" + esc(portsText(m)) + ")");
      case "move_wagon":
        return "<b>Wagon</b> \u2192 " + esc(m.feature || "feature") + " (" + esc(portsText(m)) + ") of the tile at " +
               at(m.x, m.y);
      case "escape":
        var f = findFigure(m.figure);
        return "<b>Escape</b>: the " + esc(kindName(f ? f.fig.kind : String(m.figure).split(".")[1])) +
               (f ? " leaves the besieged city at " + at(f.tile.x, f.tile.y) : " " + esc(m.figure) + " leaves");
      case "flock":
        if (m.choice === "expand") return "Flock: expand (draw another sheep)";
        if (m.choice === "gather") return "Flock: gather (score the flock)";
        return "Flock: " + esc(m.choice);
      case "place_abbey":
        return "Place the abbey at " + at(m.x, m.y);
      case "draw":
        return "Draw a tile (keep the abbey)";
      case "pass":
        return { action: "Pass (deploy nothing)", wagon: "Pass (the wagon stays in the supply)",
                 escape: "Pass (nobody escapes)", abbey_final: "Pass (keep the abbey)",
                 flock: "Pass" }[phase] || "Pass";
      default:
        var rest = {};
        Object.keys(m).forEach(function (k) { if (k !== "type") rest[k] = m[k]; });
        return esc(m.type) + " " + esc(JSON.stringify(rest));
    }
  }

  // An event in words (HTML).
  function eventText(ev) {
    switch (ev.type) {
      case "tile_drawn": return who(ev.seat) + " drew " + esc(ev.tile);
      case "tile_placed":
        return (isInt(ev.seat) ? who(ev.seat) + " placed " : "start tile ") + esc(ev.tile) + " at " + at(ev.x, ev.y) +
               (ev.rot ? ", turned " + ev.rot + "\u00b0" : "");
      case "tile_discarded":
        return esc(ev.tile) + (ev.why === "reshuffled" ? " fits nowhere: back under the supply" : " fits nowhere: discarded");
      case "deployed":
        return who(ev.seat) + " put a " + esc(kindName(ev.kind)) + " on the " + esc(ev.feature || "feature") +
               " at " + at(ev.x, ev.y) + " " + esc(portsText(ev));
      case "returned":
        return who(ev.seat) + "'s " + esc(ev.figure) + " came back" + (ev.why ? " (" + esc(ev.why) + ")" : "");
      case "feature_completed":
        return esc(ev.feature) + " completed at " + at(ev.x, ev.y) + (isInt(ev.tiles) ? ", " + ev.tiles + " tiles" : "");
      case "scored":
        return who(ev.seat) + " scored " + ev.points + " for " + esc(ev.feature) + (ev.final ? " (final)" : "");
      case "token_taken":
        return who(ev.seat) + " took the " + esc(ev.token) + (isInt(ev.from) ? " from " + who(ev.from) : "");
      case "tile_hidden": return "a tile went under the hill at " + at(ev.x, ev.y);
      case "sheep_drawn":
        return who(ev.seat) + "'s shepherd at " + at(ev.x, ev.y) + " drew " +
               (ev.token === "wolf" ? "a wolf" : esc(ev.token) + " sheep");
      case "turn": return "turn of " + who(ev.seat);
      case "game_over":
        return "game over: " + (ev.scores || []).map(function (s, i) { return who(i) + " " + s; }).join(", ");
      case "game_closed": return "the game was closed";
      default:
        var rest = {};
        Object.keys(ev).forEach(function (k) { if (k !== "type" && k !== "seq") rest[k] = ev[k]; });
        return esc(ev.type) + " " + esc(JSON.stringify(rest));
    }
  }

  function logEvent(ev, before) {
    var list = $("#events");
    var li = document.createElement("li");
    li.className = "ev-" + String(ev.type).replace(/[^a-z_]/g, "");
    li.innerHTML = eventText(ev);
    list.insertBefore(li, before || null);
    while (list.children.length > MAX_EVENTS) list.removeChild(list.firstChild);
    list.scrollTop = list.scrollHeight;
  }

  // ---- drawing the page ----------------------------------------------------------------

  function render() {
    var st = app.state, sess = app.session, lm = app.legal;
    var body = document.body;
    body.setAttribute("data-phase", st ? st.phase : "none");
    body.setAttribute("data-seq", st ? st.seq : "");
    if (!st || !sess) {
      body.setAttribute("data-await", "none");
      return;
    }
    view.update(st);
    renderSeats(st, sess);
    renderTurn(st, sess, lm);
    renderDecision(st, sess, lm);
    renderOver(st, sess);
    var awaiting = "none";
    if (!st.over && !sess.closed) {
      if (lm && sess.kinds && sess.kinds[lm.seat] === "human") awaiting = app.client ? "human" : "none";
      else if (lm && sess.kinds && sess.kinds[lm.seat] === "bot") awaiting = "bot";
      else awaiting = "other";
    }
    body.setAttribute("data-await", awaiting);
  }

  function renderSeats(st, sess) {
    $("#game-title").textContent = (sess.mode === "watch" ? "Watching game " : "Game ") + sess.game;
    var out = [];
    (st.seats || []).forEach(function (s) {
      var turn = !st.over && st.seat === s.seat;
      var kind = sess.kinds ? (sess.kinds[s.seat] === "bot" ? "random bot" : "human") : "";
      var supply = s.supply || {};
      var figs = Object.keys(supply).map(function (k) {
        return '<span class="kind' + (supply[k] ? "" : " none") + '" title="' + esc(kindName(k)) + ' left">' + esc(kindName(k)) + " " +
               esc(supply[k]) + "</span>";
      }).join(" ");
      var toks = s.tokens || {};
      var tokenWords = Object.keys(toks).filter(function (k) { return toks[k] === true || toks[k] > 0; })
        .map(function (k) { return toks[k] === true ? esc(k) : esc(k) + " " + esc(toks[k]); }).join(", ");
      out.push('<li class="seat' + (turn ? " turn" : "") + '" data-seat="' + s.seat + '" data-score="' + esc(s.score) +
               '"' + (turn ? ' data-turn="true"' : "") + '>' +
               '<span class="swatch" style="background:' + B.seatColour(s.seat) + '"></span>' +
               '<span class="name"><bdi>' + esc(s.name) + '</bdi>' + (kind ? ' <small>' + kind + '</small>' : "") +
               (turn ? ' <span class="arrow" title="to play">\u25c0</span>' : "") + '</span>' +
               '<span class="score">' + esc(s.score) + '</span>' +
               '<span class="supply">' + figs + (tokenWords ? ' <span class="tokens">' + tokenWords + '</span>' : "") +
               '</span></li>');
    });
    $("#scores").innerHTML = out.join("");
  }

  function nextTile(st) {
    return st.phase === "tile" && st.tile && typeof st.tile.id === "string" ? st.tile.id : null;
  }

  function renderTurn(st, sess, lm) {
    var text;
    if (st.over) text = "The game is over.";
    else if (sess.closed) text = "The game was closed.";
    else if (isInt(st.seat)) {
      var mine = lm && sess.kinds && sess.kinds[lm.seat] === "human";
      text = (mine ? "Your decision, " : "") + who(st.seat) + " (" + esc(st.phase) + ")";
      if (!mine && sess.mode === "play" && sess.kinds && sess.kinds[st.seat] === "bot") text += ": the bot plays" +
        (app.paused ? " (paused)" : "");
    } else text = esc(st.phase);
    $("#turn").innerHTML = text;
    var id = nextTile(st);
    var box = $("#next-tile");
    box.hidden = !id && !isInt(st.tiles_left);
    var svg = $("#next-tile-svg");
    if (id) {
      var rot = 0, sel = app.selection;
      if (sel && lm) rot = lm.moves[sel.indices[sel.i]].rot;
      svg.innerHTML = B.tileSvg(app.tiles[id], rot, 64, id);
      svg.style.display = "";
      $("#next-tile-id").textContent = "to place: " + id;
    } else {
      svg.innerHTML = "";
      svg.style.display = "none";
      $("#next-tile-id").textContent = "";
    }
    $("#tiles-left").textContent = isInt(st.tiles_left) ? st.tiles_left + " tiles left" : "";
  }

  function spotKey(m) {
    if (m.type === "escape") {
      var f = findFigure(m.figure);
      return f ? f.tile.x + "," + f.tile.y + "," + f.fig.at : null;
    }
    if (!isInt(m.x) || !isInt(m.y)) return null;
    return m.x + "," + m.y + (typeof m.at === "string" ? "," + m.at : "");
  }

  function renderDecision(st, sess, lm) {
    var box = $("#decision"), movesBox = $("#moves");
    var human = lm && !st.over && sess.kinds && sess.kinds[lm.seat] === "human" && app.client;
    box.hidden = !human;
    $("#board-hint").textContent = "";
    if (!human) {
      movesBox.innerHTML = "";
      view.setTargets([]);
      view.setSpots([]);
      view.setPreview(null);
      $("#placing").hidden = true;
      return;
    }
    // placements: targets on the board, by place
    var places = {}, order = [];
    lm.moves.forEach(function (m, i) {
      if (m.type !== "place_tile") return;
      var key = m.x + "," + m.y;
      if (!places[key]) { places[key] = { x: m.x, y: m.y, indices: [] }; order.push(key); }
      places[key].indices.push(i);
    });
    var sel = app.selection;
    if (sel && !places[sel.x + "," + sel.y]) sel = app.selection = null;
    view.setTargets(order.map(function (k) {
      var p = places[k];
      return { x: p.x, y: p.y, selected: sel && sel.x === p.x && sel.y === p.y,
               title: "place the tile at " + at(p.x, p.y) + " (" + p.indices.length + " rotation" +
                      (p.indices.length > 1 ? "s" : "") + " fit)" };
    }), function (x, y) { chooseTarget(places[x + "," + y]); });
    if (sel) {
      var m = lm.moves[sel.indices[sel.i]];
      view.setPreview({ x: m.x, y: m.y, tile: m.tile, rot: m.rot });
    } else {
      view.setPreview(null);
    }
    $("#placing").hidden = !order.length;
    $("#place").disabled = !sel;
    $("#rotate").disabled = !sel || sel.indices.length < 2;
    // every other move: a button each
    var others = [];
    lm.moves.forEach(function (m, i) { if (m.type !== "place_tile") others.push(i); });
    var text = order.length
      ? (sel ? "Turned " + lm.moves[sel.indices[sel.i]].rot + "\u00b0 at " + at(sel.x, sel.y) +
               (sel.indices.length > 1 ? ": click it again (or Rotate) for the next way it fits, " : ": ") +
               "then Place."
             : "Click a highlighted place on the board for the tile.")
      : "Choose:";
    if (order.length && others.length) text += " Or:";
    $("#decision-text").textContent = text;
    if (order.length && !sel) $("#board-hint").textContent = "click a highlighted place to put the tile there";
    var spots = [], seen = {};
    movesBox.innerHTML = others.map(function (i) {
      var m = lm.moves[i], key = spotKey(m);
      if (key && !seen[key]) {
        seen[key] = true;
        var parts = key.split(",");
        spots.push({ key: key, x: Number(parts[0]), y: Number(parts[1]), at: parts[2] || null,
                     label: moveText(m, lm.phase).replace(/<[^>]*>/g, "") });
      }
      return '<button type="button" class="move move-' + esc(m.type) + '" data-index="' + i + '"' +
             (key ? ' data-key="' + esc(key) + '"' : "") + '>' + moveText(m, lm.phase) + '</button>';
    }).join("");
    view.setSpots(spots, function (key) {
      var first = null;
      movesBox.querySelectorAll(".move").forEach(function (b) {
        var on = b.getAttribute("data-key") === key;
        b.classList.toggle("hot", on);
        if (on && !first) first = b;
      });
      if (first) first.focus();
      view.hot(key);
    });
  }

  function renderOver(st, sess) {
    var over = $("#over");
    over.hidden = !st.over;
    if (!st.over) return;
    var seats = (st.seats || []).slice().sort(function (a, b) { return b.score - a.score; });
    var best = seats.length ? seats[0].score : 0;
    var breakdown = {};
    if (sess.final && Array.isArray(sess.final.breakdown)) {
      sess.final.breakdown.forEach(function (b) { breakdown[b.seat] = b.by || {}; });
    }
    $("#final").innerHTML = seats.map(function (s) {
      var by = breakdown[s.seat] || {};
      var parts = Object.keys(by).filter(function (k) { return by[k]; })
                                 .map(function (k) { return esc(k) + " " + esc(by[k]); }).join(", ");
      return '<tr class="' + (s.score === best ? "winner" : "") + '" data-seat="' + s.seat + '"><td>' +
             (s.score === best ? "\u2605" : "") + '</td><td>' + who(s.seat) + '</td><td class="score">' + esc(s.score) +
             '</td><td class="by">' + parts + '</td></tr>';
    }).join("");
    if (sess.mode === "play" && !/error/.test($("#status").className)) {
      setStatus("game " + sess.game + " is over");
    }
  }

  // ---- human decisions -----------------------------------------------------------------

  function chooseTarget(place) {
    if (!place || !app.legal) return;
    var sel = app.selection;
    if (sel && sel.x === place.x && sel.y === place.y) {
      sel.i = (sel.i + 1) % sel.indices.length;
    } else {
      app.selection = { x: place.x, y: place.y, indices: place.indices.slice(), i: 0 };
    }
    render();
  }

  function rotate() {
    var sel = app.selection;
    if (!sel) return;
    sel.i = (sel.i + 1) % sel.indices.length;
    render();
  }

  function place() {
    var sel = app.selection, lm = app.legal;
    if (!sel || !lm) return;
    submit(lm.moves[sel.indices[sel.i]]);
  }

  // ---- wiring --------------------------------------------------------------------------

  $("#connect-form").addEventListener("submit", function (ev) {
    ev.preventDefault();
    connect($("#url").value);
  });
  $("#new-game-form").addEventListener("submit", function (ev) {
    ev.preventDefault();
    newGame();
  });
  $("#watch-form").addEventListener("submit", function (ev) {
    ev.preventDefault();
    watch($("#watch-id").value);
  });
  $("#add-player").addEventListener("click", function () { addPlayer(); });
  $("#rotate").addEventListener("click", rotate);
  $("#place").addEventListener("click", place);
  $("#fit").addEventListener("click", function () { view.fit(); });
  $("#pause").addEventListener("click", function () {
    app.paused = !app.paused;
    $("#pause").textContent = app.paused ? "Resume bots" : "Pause bots";
    if (app.session) app.session.botSeq = null;
    render();
    maybeBot();
  });
  $("#moves").addEventListener("click", function (ev) {
    var b = ev.target.closest(".move");
    if (!b || !app.legal) return;
    var m = app.legal.moves[Number(b.getAttribute("data-index"))];
    if (m) submit(m);
  });
  $("#moves").addEventListener("mouseover", function (ev) {
    var b = ev.target.closest(".move");
    view.hot(b ? b.getAttribute("data-key") : null);
  });
  $("#moves").addEventListener("mouseleave", function () { view.hot(null); });
  $("#moves").addEventListener("focusin", function (ev) {
    var b = ev.target.closest(".move");
    view.hot(b ? b.getAttribute("data-key") : null);
  });
  document.addEventListener("keydown", function (ev) {
    if (ev.target && /^(INPUT|SELECT|TEXTAREA)$/.test(ev.target.tagName)) return;
    if (ev.key === "r" || ev.key === "R") { rotate(); }
    else if (ev.key === "Enter" && app.selection && !(ev.target && ev.target.tagName === "BUTTON")) { place(); }
  });
  window.addEventListener("resize", function () { view.layout(); });

  $("#url").value = query.get("ws") || DEFAULT_URL;
  var qd = query.get("delay");
  if (qd !== null && /^\d+$/.test(qd)) $("#delay").value = qd;
  addPlayer("Ann", "human");
  addPlayer("Bob", "bot");

  window.CarcdPlay = {
    get state() { return app.state; },
    get legal() { return app.legal; },
    get session() {
      var s = app.session;
      return s && { mode: s.mode, game: s.game, names: s.names, kinds: s.kinds, closed: !!s.closed };
    },
    get connected() { return !!app.client; },
    apply: submit,
    connect: connect,
    watch: watch,
    newGame: newGame,
    refresh: requestRefresh
  };

  var w = query.get("watch");
  connect($("#url").value).then(function () {
    if (w) { $("#watch-id").value = w; watch(w); }
  }, function () {});
})();
