/* board.js - carcd's board as SVG in a page: tiles, figures, the frontier.
 *
 * A classic script (no modules: the page also runs from file://).  It
 * defines window.CarcdBoard:
 *
 *   CarcdBoard.wireTiles(answer)     the `tiles` method's answer (rot 0) as
 *                                    {id: TileType}, as contrib/render.py's
 *                                    wire_tiles() makes it
 *   CarcdBoard.tileSvg(ttype, rot, s)  one tile's drawing (SVG markup, in
 *                                    its own coordinates 0..s)
 *   CarcdBoard.figureSpot(at, ttype, rot)  where a figure at `at` stands
 *   CarcdBoard.PALETTE, seatColour(seat)
 *   new CarcdBoard.View(svg, opts)   a board drawn in an <svg> element, with
 *                                    pan (drag) and zoom (wheel); see View
 *
 * The drawing is contrib/render.py's (tile_svg, city_polygon, figure_spot,
 * figure_svg, render_svg), ported line by line, so that a board looks the
 * same in the page and in render.py's SVG: a tile is
 * <g class="tile" data-x data-y data-tile data-rot>, a figure
 * <g class="figure" data-id data-seat data-kind>.
 */
(function (global) {
  "use strict";

  var SVGNS = "http://www.w3.org/2000/svg";
  var EDGES = ["N", "E", "S", "W"];
  var HALVES = ["NL", "NR", "EL", "ER", "SL", "SR", "WL", "WR"];
  // a quarter turn clockwise
  var TURN = {
    N: "E", E: "S", S: "W", W: "N",
    NL: "EL", EL: "SL", SL: "WL", WL: "NL",
    NR: "ER", ER: "SR", SR: "WR", WR: "NR",
    nw: "ne", ne: "se", se: "sw", sw: "nw"
  };
  var HALVES_OF = { N: ["NL", "NR"], E: ["EL", "ER"], S: ["SL", "SR"], W: ["WL", "WR"] };
  var EDGE_OF = {};
  EDGES.forEach(function (e) { HALVES_OF[e].forEach(function (h) { EDGE_OF[h] = e; }); });

  // Seat colours: seat n takes PALETTE[n % 6] (render.py's).
  var PALETTE = ["#d62828", "#1f5fbf", "#f2c230", "#1d1d1d", "#8e44ad", "#ff7eb6"];
  var UNKNOWN_SEAT_COLOUR = "#9a9a9a";
  var KIND_LETTERS = {
    follower: "F", large: "L", wagon: "W", mayor: "M", builder: "B",
    pig: "P", barn: "R", shepherd: "S"
  };
  var FLAG_MARKS = [["inn", "inn"], ["cathedral", "cath"], ["besieged", "siege"], ["princess", "princess"],
                    ["pigherd", "pigs"]];
  var SYMBOL_MARKS = {
    volcano: "volcano", dragon: "dragon", portal: "portal", hill: "hill",
    vineyard: "vineyard", fair: "fair", garden: "garden", lake: "lake"
  };
  // the wire's marks of a feature (each `true`) and the manifest attribute each one is
  var WIRE_FLAGS = [["inn", "inn"], ["cathedral", "cathedral"], ["besieged", "besieged"],
                    ["princess", "princess"], ["cult_place", "shrine"], ["pig_herd", "pigherd"]];
  var KIND_PORTS = ["cloister", "tower"];

  var FIELD = "#9cc66b";
  var ABBEY_GROUND = "#d8ccb0";
  var INNER_GROUND = "#c7bfae";
  var CITY = "#b5763a", CITY_WALL = "#6b4423";
  var ROAD = "#f4efe1", ROAD_EDGE = "#6d6552";
  var RIVER = "#3d8fd6";
  var PENNANT = "#2b59c3";

  // where a figure stands, as fractions of the tile
  var FIGURE_AT = {
    N: [0.5, 0.2], E: [0.8, 0.5], S: [0.5, 0.8], W: [0.2, 0.5],
    NL: [0.25, 0.15], NR: [0.75, 0.15], EL: [0.85, 0.25], ER: [0.85, 0.75],
    SL: [0.75, 0.85], SR: [0.25, 0.85], WL: [0.15, 0.75], WR: [0.15, 0.25],
    cloister: [0.5, 0.5], tower: [0.5, 0.5],
    nw: [0.0, 0.0], ne: [1.0, 0.0], se: [1.0, 1.0], sw: [0.0, 1.0]
  };
  // the enclosed fields touch no edge, so their ports do not turn with the tile
  var ENCLOSED_AT = { I: [0.35, 0.35], II: [0.65, 0.65] };
  var EDGE_MIDPOINT = { N: [0.5, 0.0], E: [1.0, 0.5], S: [0.5, 1.0], W: [0.0, 0.5] };
  var QUARTERS = { N: 0, E: 1, S: 2, W: 3 };

  function isInt(v) { return typeof v === "number" && Math.floor(v) === v; }
  function has(list, v) { return list.indexOf(v) >= 0; }

  // Bidirectional formatting characters, drawn as U+FFFD (render.py's SHOW_BIDI).
  var BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

  function plain(value) {
    if (typeof value === "string") return value.replace(BIDI, "\ufffd");
    if (value === null || value === undefined) return "-";
    return JSON.stringify(value);
  }

  function xmlText(value) {
    var s = typeof value === "string" ? value : plain(value);
    s = s.replace(/[\u0000-\u0008\u000b-\u001f\ufffe\uffff]/g, "\ufffd")
         .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(^|[^\ud800-\udbff])[\udc00-\udfff]/g,
                  function (m, pre) { return (pre || "") + "\ufffd"; });
    return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }

  function num(v) {
    var s = v.toFixed(2);
    if (s.indexOf(".") >= 0) s = s.replace(/0+$/, "").replace(/\.$/, "");
    return s === "-0" ? "0" : s;
  }

  function points(pts) {
    return pts.map(function (p) { return num(p[0]) + "," + num(p[1]); }).join(" ");
  }

  function spin(pt, quarters, size) {
    var x = pt[0], y = pt[1], t;
    for (var i = 0; i < ((quarters % 4) + 4) % 4; i++) { t = x; x = size - y; y = t; }
    return [x, y];
  }

  function textColour(fill) {
    var r = parseInt(fill.substr(1, 2), 16), g = parseInt(fill.substr(3, 2), 16), b = parseInt(fill.substr(5, 2), 16);
    return 0.299 * r + 0.587 * g + 0.114 * b > 150 ? "#000" : "#fff";
  }

  function seatColour(seat) {
    return isInt(seat) && seat >= 0 ? PALETTE[seat % PALETTE.length] : UNKNOWN_SEAT_COLOUR;
  }

  // ---- tile geometry from the daemon (render.py's wire_tiles) ------------------------

  function innerPorts(features, symbols) {
    if (has(symbols, "abbey")) return [];
    var taken = {}, cities = {};
    features.forEach(function (f) {
      f.ports.forEach(function (p) { taken[p] = true; if (f.kind === "city") cities[p] = true; });
    });
    var inner = [];
    EDGES.forEach(function (e) {
      var halves = HALVES_OF[e];
      if (!taken[e] && !halves.some(function (h) { return taken[h]; })) {
        inner.push(e);
      } else if (!cities[e]) {
        halves.forEach(function (h) { if (!taken[h]) inner.push(h); });
      }
    });
    return inner;
  }

  function wireFeature(f) {
    var kind = f.feature;
    if (typeof kind !== "string" || !Array.isArray(f.ports)) throw new Error("a feature with no kind or ports");
    var ports = f.ports.filter(function (p) { return !has(KIND_PORTS, p); });
    var attrs = {};
    var n = f.pennants;
    if (isInt(n) && n > 0) {
      if (n === 1) attrs.pennant = true; else attrs.pennants = String(n);
    }
    if (typeof f.goods === "string") attrs.goods = f.goods;
    WIRE_FLAGS.forEach(function (w) { if (f[w[0]] === true) attrs[w[1]] = true; });
    return { kind: kind, ports: ports, attrs: attrs };
  }

  function wireTiles(answer) {
    var tiles = {};
    (answer.tiles || []).forEach(function (t) {
      if (typeof t.id !== "string" || tiles[t.id]) return;
      var features = (t.features || []).map(wireFeature);
      var symbols = (t.symbols || []).filter(function (s) { return typeof s === "string"; });
      tiles[t.id] = { id: t.id, features: features, symbols: symbols,
                      inner: innerPorts(features, symbols), quarters: [],
                      edges: t.edges || [], dealt: t.dealt, start: t.start };
    });
    return tiles;
  }

  function turn(port, rot) {
    for (var i = 0; i < ((rot / 90) | 0) % 4; i++) port = TURN[port] || port;
    return port;
  }

  // A tile type as it lies on the board: its features' ports turned by rot.
  function Placed(ttype, rot) {
    this.type = ttype;
    this.rot = rot;
    this.features = ttype.features.map(function (f) {
      return { kind: f.kind, ports: f.ports.map(function (p) { return turn(p, rot); }), attrs: f.attrs };
    });
    var inner = {};
    ttype.inner.forEach(function (p) { inner[turn(p, rot)] = true; });
    this.inner = inner;
    this.symbols = ttype.symbols.slice();
  }
  Placed.prototype.ofKind = function () {
    var kinds = Array.prototype.slice.call(arguments);
    return this.features.filter(function (f) { return has(kinds, f.kind); });
  };
  Placed.prototype.building = function () {
    var c = this.ofKind("cloister");
    if (!c.length) return null;
    if (has(this.symbols, "abbey")) return "abbey";
    return c[0].attrs.shrine ? "shrine" : "cloister";
  };
  Placed.prototype.marks = function () {
    var words = [];
    this.features.forEach(function (f) {
      FLAG_MARKS.forEach(function (fm) {
        if (f.attrs[fm[0]] && !has(words, fm[1])) words.push(fm[1]);
      });
      var goods = f.attrs.goods;
      if (typeof goods === "string" && goods && !has(words, goods)) words.push(goods);
    });
    this.symbols.forEach(function (s) {
      if (SYMBOL_MARKS[s] && !has(words, SYMBOL_MARKS[s])) words.push(SYMBOL_MARKS[s]);
    });
    if (this.type.quarters && this.type.quarters.length) words.push("quarters");
    return words;
  };

  // ---- drawing (render.py's SVG) ------------------------------------------------------

  function cityPolygon(edges, s) {
    if (edges.length === 1) {
      var shape = [[0, 0], [s, 0], [0.78 * s, 0.26 * s], [0.22 * s, 0.26 * s]];
      return shape.map(function (p) { return spin(p, QUARTERS[edges[0]], s); });
    }
    var c = s / 2.0, k = 0.18 * s;
    var tile = { nw: [0, 0], ne: [s, 0], se: [s, s], sw: [0, s] };
    var core = { nw: [c - k, c - k], ne: [c + k, c - k], se: [c + k, c + k], sw: [c - k, c + k] };
    var span = { N: ["nw", "ne"], E: ["ne", "se"], S: ["se", "sw"], W: ["sw", "nw"] };
    var pts = [];
    EDGES.forEach(function (e) {
      var corners = has(edges, e) ? tile : core;
      span[e].forEach(function (name) {
        var p = corners[name], last = pts[pts.length - 1];
        if (!last || last[0] !== p[0] || last[1] !== p[1]) pts.push(p);
      });
    });
    if (pts.length > 1 && pts[0][0] === pts[pts.length - 1][0] && pts[0][1] === pts[pts.length - 1][1]) pts.pop();
    return pts;
  }

  function edgesOf(f) { return EDGES.filter(function (e) { return has(f.ports, e); }); }

  function figureSpot(at, ttype, rot) {
    var enclosed = ENCLOSED_AT[at];
    if (!enclosed || !ttype || !ttype.features.some(function (f) { return has(f.ports, "II"); })) {
      return FIGURE_AT[at] || [0.5, 0.5];
    }
    var x = enclosed[0], y = enclosed[1], t;
    for (var i = 0; i < ((rot / 90) | 0) % 4; i++) { t = x; x = 1 - y; y = t; }
    return [x, y];
  }

  // The drawing of one tile, in its own coordinates (0 to s): render.py's tile_svg.
  function placedSvg(placed, s) {
    var out = [];
    var c = s / 2.0;
    var building = placed.building();
    var ground = building === "abbey" ? ABBEY_GROUND : FIELD;
    out.push('<rect class="ground" width="' + num(s) + '" height="' + num(s) + '" fill="' + ground + '"/>');
    Object.keys(placed.inner).sort().forEach(function (p) {
      var tri;
      if (has(EDGES, p)) tri = [[0, 0], [s, 0], [c, c]];
      else if (has(HALVES, p)) tri = p.charAt(1) === "L" ? [[0, 0], [c, 0], [c, c]] : [[c, 0], [s, 0], [c, c]];
      else return;
      var q = QUARTERS[p.charAt(0)];
      out.push('<polygon class="inner" points="' + points(tri.map(function (pt) { return spin(pt, q, s); })) +
               '" fill="' + INNER_GROUND + '"/>');
    });
    var wall = num(Math.max(1.0, s / 40.0));
    placed.ofKind("city").forEach(function (f) {
      var edges = edgesOf(f);
      if (!edges.length) return;
      out.push('<polygon class="city" points="' + points(cityPolygon(edges, s)) + '" fill="' + CITY +
               '" stroke="' + CITY_WALL + '" stroke-width="' + wall + '"/>');
    });
    placed.ofKind("field").forEach(function (f) {
      ["I", "II"].forEach(function (at) {
        if (!has(f.ports, at)) return;
        var spot = figureSpot(at, placed.type, placed.rot);
        out.push('<circle class="enclosed-field" cx="' + num(spot[0] * s) + '" cy="' + num(spot[1] * s) +
                 '" r="' + num(0.16 * s) + '" fill="' + FIELD + '" stroke="' + CITY_WALL +
                 '" stroke-width="' + wall + '"/>');
      });
    });
    [["river", RIVER, 0.14, null], ["road", ROAD, 0.08, ROAD_EDGE]].forEach(function (k) {
      var kind = k[0], colour = k[1], width = k[2], edgeColour = k[3];
      var deadEnds = 0;
      placed.ofKind(kind).forEach(function (f) {
        var edges = edgesOf(f), d;
        if (edges.length === 2) {
          var a = EDGE_MIDPOINT[edges[0]], b = EDGE_MIDPOINT[edges[1]];
          d = "M" + num(a[0] * s) + " " + num(a[1] * s) + " Q" + num(c) + " " + num(c) + " " +
              num(b[0] * s) + " " + num(b[1] * s);
        } else {
          d = edges.map(function (e) {
            return "M" + num(EDGE_MIDPOINT[e][0] * s) + " " + num(EDGE_MIDPOINT[e][1] * s) +
                   " L" + num(c) + " " + num(c);
          }).join(" ");
          if (edges.length === 1) deadEnds++;
        }
        if (!d) return;
        if (edgeColour) {
          out.push('<path class="' + kind + '-edge" d="' + d + '" fill="none" stroke="' + edgeColour +
                   '" stroke-width="' + num(s * (width + 0.05)) + '"/>');
        }
        out.push('<path class="' + kind + '" d="' + d + '" fill="none" stroke="' + colour +
                 '" stroke-width="' + num(s * width) + '"/>');
      });
      if (kind === "river" && deadEnds && !building) {
        var label = has(placed.symbols, "lake") ? "lake" : "spring";
        out.push('<circle class="' + label + '" cx="' + num(c) + '" cy="' + num(c) + '" r="' + num(0.13 * s) +
                 '" fill="' + colour + '"/>');
      } else if (kind === "road" && deadEnds && !building) {
        var r = 0.07 * s;
        out.push('<rect class="junction" x="' + num(c - r) + '" y="' + num(c - r) + '" width="' + num(2 * r) +
                 '" height="' + num(2 * r) + '" fill="' + ROAD_EDGE + '"/>');
      }
    });
    placed.ofKind("city").forEach(function (f) {
      var edges = edgesOf(f);
      var n = f.attrs.pennants;
      n = typeof n === "string" && /^\d+$/.test(n) ? parseInt(n, 10) : (f.attrs.pennant ? 1 : 0);
      var r = 0.06 * s;
      for (var i = 0; i < (edges.length ? Math.min(n, 3) : 0); i++) {
        var p = spin([(0.3 + 0.4 * i) * s, 0.1 * s], QUARTERS[edges[0]], s), px = p[0], py = p[1];
        var shield = [[px - r, py - r], [px + r, py - r], [px + r, py + 0.2 * r], [px, py + 1.4 * r],
                      [px - r, py + 0.2 * r]];
        out.push('<polygon class="pennant" points="' + points(shield) + '" fill="' + PENNANT +
                 '" stroke="#fff" stroke-width="0.8"/>');
      }
    });
    if (placed.ofKind("tower").length) {
      var tx = building ? 0.72 * s : c, ty = building ? 0.28 * s : c;
      out.push('<circle class="tower" cx="' + num(tx) + '" cy="' + num(ty) + '" r="' + num(0.14 * s) +
               '" fill="#8d8d8d" stroke="#444"/>');
    }
    if (building) {
      var colours = { cloister: ["#efe6cf", "#b03a2e"], abbey: ["#efe6cf", "#7a4a1e"],
                      shrine: ["#8c8c8c", "#3f2352"] }[building];
      var w = 0.15 * s, top = c - 0.2 * s, base = c - 0.05 * s;
      out.push('<g class="' + building + '">');
      out.push('<rect x="' + num(c - 0.12 * s) + '" y="' + num(base) + '" width="' + num(0.24 * s) +
               '" height="' + num(0.2 * s) + '" fill="' + colours[0] + '" stroke="#333" stroke-width="0.8"/>');
      out.push('<polygon points="' + points([[c - w, base], [c, top], [c + w, base]]) + '" fill="' + colours[1] +
               '" stroke="#333" stroke-width="0.8"/>');
      if (building === "shrine") {
        out.push('<text x="' + num(c) + '" y="' + num(c + 0.11 * s) + '" font-size="' + num(0.13 * s) +
                 '" text-anchor="middle" fill="#fff">S</text>');
      }
      out.push('</g>');
    }
    if (building === "abbey") {
      out.push('<rect class="wall" x="1" y="1" width="' + num(s - 2) + '" height="' + num(s - 2) +
               '" fill="none" stroke="#7d7364" stroke-width="' + num(Math.max(2.0, s / 16.0)) + '"/>');
    }
    var marks = placed.marks();
    if (marks.length) {
      out.push('<text class="marks" x="' + num(0.04 * s) + '" y="' + num(0.97 * s) + '" font-size="' +
               num(Math.max(6.0, 0.13 * s)) + '" font-family="sans-serif" fill="#222" stroke="#fff" ' +
               'stroke-width="2" stroke-opacity="0.7" paint-order="stroke">' + xmlText(marks.join(" ")) + '</text>');
    }
    out.push('<rect class="outline" width="' + num(s) + '" height="' + num(s) +
             '" fill="none" stroke="#333" stroke-width="0.6"/>');
    return out.join("");
  }

  // A tile no description covers: a grey square with its id (render.py refuses it).
  function unknownTileSvg(id, s) {
    return '<rect class="ground unknown" width="' + num(s) + '" height="' + num(s) + '" fill="#bbb"/>' +
           '<text x="' + num(s / 2) + '" y="' + num(s / 2) + '" font-size="' + num(0.14 * s) +
           '" text-anchor="middle" font-family="sans-serif">' + xmlText(id) + '</text>' +
           '<rect class="outline" width="' + num(s) + '" height="' + num(s) +
           '" fill="none" stroke="#333" stroke-width="0.6"/>';
  }

  function tileSvg(ttype, rot, s, id) {
    return ttype ? placedSvg(new Placed(ttype, rot), s) : unknownTileSvg(id || "?", s);
  }

  function figureSeat(fig) {
    if (typeof fig.id === "string") {
      var head = fig.id.split(".")[0];
      if (/^\d+$/.test(head)) return parseInt(head, 10);
    }
    return isInt(fig.seat) ? fig.seat : null;
  }

  function figureSvg(fig, x, y, s) {
    var seat = figureSeat(fig);
    var colour = seatColour(seat);
    var kind = typeof fig.kind === "string" ? fig.kind : "?";
    var letter = KIND_LETTERS[kind] || (kind.charAt(0).toUpperCase() || "?");
    var r = (kind === "large" ? 0.15 : 0.115) * s;
    var title = plain(fig.id) + ": " + kind + " on " + plain(fig.feature) + " at " + plain(fig.at);
    var sheep = fig.sheep;
    if (Array.isArray(sheep)) title += ", sheep " + (sheep.map(plain).join(" ") || "none");
    var out = ['<g class="figure" data-id="' + xmlText(fig.id || "") + '" data-seat="' + (seat === null ? "" : seat) +
               '" data-kind="' + xmlText(kind) + '">', '<title>' + xmlText(title) + '</title>'];
    if (kind === "barn") {
      out.push('<rect x="' + num(x - r) + '" y="' + num(y - r) + '" width="' + num(2 * r) + '" height="' + num(2 * r) +
               '" fill="' + colour + '" stroke="#000" stroke-width="1"/>');
    } else {
      out.push('<circle cx="' + num(x) + '" cy="' + num(y) + '" r="' + num(r) + '" fill="' + colour +
               '" stroke="#000" stroke-width="1"/>');
    }
    out.push('<text x="' + num(x) + '" y="' + num(y + 0.05 * s) + '" font-size="' + num(0.15 * s) +
             '" font-family="sans-serif" font-weight="bold" text-anchor="middle" fill="' + textColour(colour) + '">' +
             xmlText(letter) + '</text>');
    if (Array.isArray(sheep) && sheep.length) {
      var total = sheep.reduce(function (a, n) { return a + (isInt(n) ? n : 0); }, 0);
      out.push('<text x="' + num(x + r) + '" y="' + num(y - r * 0.4) + '" font-size="' + num(0.13 * s) +
               '" font-family="sans-serif" fill="#fff" stroke="#000" stroke-width="1.5" paint-order="stroke">' +
               total + '</text>');
    }
    out.push('</g>');
    return out.join("");
  }

  // ---- the board view -----------------------------------------------------------------

  function el(name, attrs) {
    var e = document.createElementNS(SVGNS, name);
    for (var k in attrs) if (Object.prototype.hasOwnProperty.call(attrs, k)) e.setAttribute(k, attrs[k]);
    return e;
  }

  /* new View(svg, {size}): draws a board into the <svg> element.
   *
   *   view.setTiles(tiles)        the {id: TileType} to draw with
   *   view.update(state)          the board of a state: tiles (only new ones
   *                               are drawn), figures, neutral figures
   *   view.setTargets(list, onClick)  frontier targets [{x, y}]; onClick(x, y)
   *   view.setPreview(p)          {x, y, tile, rot} drawn translucent, or null
   *   view.setSpots(list, onClick)  decision spots [{key, x, y, at, kind, label}]:
   *                               a ring where a figure would stand, or a
   *                               square for a whole place (at null)
   *   view.hot(key)               highlights one spot (null: none)
   *   view.fit()                  shows the whole board again
   *   view.clear()                an empty board
   *
   * Drag pans, the wheel zooms; once the view was moved by hand it is kept
   * as the board grows, until fit().
   */
  function View(svg, opts) {
    opts = opts || {};
    this.svg = svg;
    this.s = opts.size || 64;
    this.tiles = {};
    this.board = [];
    this.byPlace = {};
    this.manual = false;
    this.vb = null;
    this.extra = [];
    svg.setAttribute("xmlns", SVGNS);
    this.root = el("g", { "class": "viewport" });
    this.bg = el("rect", { "class": "board-area", fill: "#e9e3d3" });
    this.tileLayer = el("g", { "class": "tiles" });
    this.lastLayer = el("g", { "class": "last" });
    this.previewLayer = el("g", { "class": "preview" });
    this.figureLayer = el("g", { "class": "figures" });
    this.neutralLayer = el("g", { "class": "neutrals" });
    this.spotLayer = el("g", { "class": "spots" });
    this.targetLayer = el("g", { "class": "targets" });
    [this.bg, this.tileLayer, this.lastLayer, this.previewLayer, this.figureLayer, this.neutralLayer, this.spotLayer,
     this.targetLayer].forEach(function (g) { this.root.appendChild(g); }, this);
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    svg.appendChild(this.root);
    this.installPanZoom();
    this.clear();
  }

  View.prototype.setTiles = function (tiles) {
    this.tiles = tiles || {};
    this.tileLayer.innerHTML = "";
    this.byPlace = {};
    if (this.board.length) this.drawTiles(this.board);
  };

  View.prototype.clear = function () {
    this.board = [];
    this.byPlace = {};
    this.tileLayer.innerHTML = "";
    this.lastLayer.innerHTML = "";
    this.figureLayer.innerHTML = "";
    this.neutralLayer.innerHTML = "";
    this.setTargets([]);
    this.setSpots([]);
    this.setPreview(null);
    this.manual = false;
    this.layout();
  };

  View.prototype.drawTiles = function (board) {
    var s = this.s, keep = {};
    for (var i = 0; i < board.length; i++) {
      var t = board[i], key = t.x + "," + t.y, old = this.byPlace[key];
      keep[key] = true;
      if (old && old.getAttribute("data-tile") === t.tile && old.getAttribute("data-rot") === String(t.rot)) continue;
      if (old) old.parentNode.removeChild(old);
      var g = el("g", { "class": "tile", "data-x": t.x, "data-y": t.y, "data-tile": t.tile, "data-rot": t.rot,
                        transform: "translate(" + num(t.x * s) + "," + num(t.y * s) + ")" });
      g.innerHTML = '<title>' + xmlText(t.tile + " at (" + t.x + ", " + t.y + "), rot " + t.rot) + '</title>' +
                    tileSvg(this.tiles[t.tile], t.rot, s, t.tile);
      this.tileLayer.appendChild(g);
      this.byPlace[key] = g;
    }
    for (var k in this.byPlace) {
      if (!keep[k]) { var gone = this.byPlace[k]; gone.parentNode.removeChild(gone); delete this.byPlace[k]; }
    }
  };

  View.prototype.update = function (state) {
    var board = (state && Array.isArray(state.board)) ? state.board : [];
    var s = this.s, tiles = this.tiles;
    this.board = board;
    this.drawTiles(board);
    // the tile placed last (the board is in placement order), outlined
    this.lastLayer.innerHTML = "";
    if (board.length > 1) {
      var last = board[board.length - 1];
      this.lastLayer.appendChild(el("rect", { "class": "last-placed", "data-x": last.x, "data-y": last.y,
                                              x: num(last.x * s + 1.5), y: num(last.y * s + 1.5),
                                              width: num(s - 3), height: num(s - 3) }));
    }
    // figures over every tile (a barn stands on the corner of four); those on one spot side by side
    var spots = {}, order = [];
    board.forEach(function (t) {
      (t.figures || []).forEach(function (fig) {
        var sp = figureSpot(typeof fig.at === "string" ? fig.at : null, tiles[t.tile], t.rot);
        var key = (t.x * s + sp[0] * s).toFixed(2) + "," + (t.y * s + sp[1] * s).toFixed(2);
        if (!spots[key]) { spots[key] = { x: t.x * s + sp[0] * s, y: t.y * s + sp[1] * s, figs: [] }; order.push(key); }
        spots[key].figs.push(fig);
      });
    });
    var out = [];
    order.forEach(function (key) {
      var sp = spots[key], n = sp.figs.length;
      sp.figs.forEach(function (fig, i) { out.push(figureSvg(fig, sp.x + (i - (n - 1) / 2.0) * 0.24 * s, sp.y, s)); });
    });
    this.figureLayer.innerHTML = out.join("");
    var neutral = state && state.neutral, nout = [];
    if (neutral && typeof neutral === "object") {
      Object.keys(neutral).forEach(function (name) {
        var where = neutral[name];
        if (where && isInt(where.x) && isInt(where.y)) {
          var cx = (where.x + 0.5) * s, cy = (where.y + 0.5) * s;
          nout.push('<g class="neutral" data-kind="' + xmlText(name) + '"><title>' + xmlText(name) + '</title>' +
                    '<circle cx="' + num(cx) + '" cy="' + num(cy + 0.25 * s) + '" r="' + num(0.1 * s) +
                    '" fill="#fff" stroke="#000" stroke-width="1.5"/><text x="' + num(cx) + '" y="' +
                    num(cy + 0.29 * s) + '" font-size="' + num(0.12 * s) + '" text-anchor="middle">' +
                    xmlText(name.charAt(0).toUpperCase()) + '</text></g>');
        }
      });
    }
    this.neutralLayer.innerHTML = nout.join("");
    this.layout();
  };

  View.prototype.setTargets = function (list, onClick) {
    var s = this.s, layer = this.targetLayer;
    layer.innerHTML = "";
    this.targets = list || [];
    this.targets.forEach(function (t) {
      var r = el("rect", { "class": "target" + (t.selected ? " selected" : ""), "data-x": t.x, "data-y": t.y,
                           x: num(t.x * s + 2), y: num(t.y * s + 2), width: num(s - 4), height: num(s - 4),
                           rx: num(s * 0.08) });
      var title = el("title", {});
      title.textContent = t.title || ("place the tile at (" + t.x + ", " + t.y + ")");
      r.appendChild(title);
      if (onClick) r.addEventListener("click", function (ev) { ev.stopPropagation(); onClick(t.x, t.y); });
      layer.appendChild(r);
    });
    this.layout();
  };

  View.prototype.setPreview = function (p) {
    var s = this.s;
    this.previewLayer.innerHTML = "";
    if (!p) return;
    var g = el("g", { "class": "preview-tile", "data-x": p.x, "data-y": p.y, "data-tile": p.tile, "data-rot": p.rot,
                      transform: "translate(" + num(p.x * s) + "," + num(p.y * s) + ")" });
    g.innerHTML = tileSvg(this.tiles[p.tile], p.rot, s, p.tile);
    this.previewLayer.appendChild(g);
  };

  View.prototype.setSpots = function (list, onClick) {
    var s = this.s, tiles = this.tiles, byPlace = {}, layer = this.spotLayer;
    this.board.forEach(function (t) { byPlace[t.x + "," + t.y] = t; });
    layer.innerHTML = "";
    this.spots = {};
    (list || []).forEach(function (sp) {
      var node, title = el("title", {});
      if (sp.at) {
        var t = byPlace[sp.x + "," + sp.y];
        var f = figureSpot(sp.at, t ? tiles[t.tile] : null, t ? t.rot : 0);
        node = el("circle", { "class": "spot", "data-key": sp.key, cx: num((sp.x + f[0]) * s), cy: num((sp.y + f[1]) * s),
                              r: num(0.13 * s) });
      } else {
        node = el("rect", { "class": "spot place", "data-key": sp.key, x: num(sp.x * s + 4), y: num(sp.y * s + 4),
                            width: num(s - 8), height: num(s - 8), rx: num(s * 0.1) });
      }
      title.textContent = sp.label || "";
      node.appendChild(title);
      if (onClick) node.addEventListener("click", function (ev) { ev.stopPropagation(); onClick(sp.key); });
      layer.appendChild(node);
      this.spots[sp.key] = node;
    }, this);
    this.layout();
  };

  View.prototype.hot = function (key) {
    for (var k in this.spots) this.spots[k].classList.toggle("hot", k === key);
  };

  // the board's extent in tile units, targets and spots included, one tile around
  View.prototype.extent = function () {
    var xs = [], ys = [];
    this.board.forEach(function (t) { xs.push(t.x); ys.push(t.y); });
    (this.targets || []).forEach(function (t) { xs.push(t.x); ys.push(t.y); });
    if (!xs.length) { xs = [0]; ys = [0]; }
    return { x0: Math.min.apply(null, xs) - 1, y0: Math.min.apply(null, ys) - 1,
             x1: Math.max.apply(null, xs) + 2, y1: Math.max.apply(null, ys) + 2 };
  };

  View.prototype.layout = function () {
    var s = this.s, e = this.extent();
    this.bg.setAttribute("x", e.x0 * s - 4000);
    this.bg.setAttribute("y", e.y0 * s - 4000);
    this.bg.setAttribute("width", (e.x1 - e.x0) * s + 8000);
    this.bg.setAttribute("height", (e.y1 - e.y0) * s + 8000);
    if (!this.manual) {
      this.vb = { x: e.x0 * s, y: e.y0 * s, w: (e.x1 - e.x0) * s, h: (e.y1 - e.y0) * s };
      // not larger than 1.6 times the drawing's size: a small board is not blown up past it
      var r = this.svg.getBoundingClientRect();
      if (r.width > 0 && r.height > 0) {
        var scale = Math.min(r.width / this.vb.w, r.height / this.vb.h);
        if (scale > 1.6) {
          var w = r.width / 1.6, h = r.height / 1.6;
          this.vb = { x: this.vb.x - (w - this.vb.w) / 2, y: this.vb.y - (h - this.vb.h) / 2, w: w, h: h };
        }
      }
    }
    this.applyViewBox();
  };

  View.prototype.applyViewBox = function () {
    var v = this.vb;
    this.svg.setAttribute("viewBox", num(v.x) + " " + num(v.y) + " " + num(v.w) + " " + num(v.h));
  };

  View.prototype.fit = function () { this.manual = false; this.layout(); };

  // the svg's user coordinates under a client point (the viewBox is fitted with "meet")
  View.prototype.toUser = function (cx, cy) {
    var r = this.svg.getBoundingClientRect(), v = this.vb;
    var scale = Math.min(r.width / v.w, r.height / v.h);
    var ox = r.left + (r.width - v.w * scale) / 2, oy = r.top + (r.height - v.h * scale) / 2;
    return { x: v.x + (cx - ox) / scale, y: v.y + (cy - oy) / scale, scale: scale };
  };

  View.prototype.installPanZoom = function () {
    var self = this, svg = this.svg, drag = null;
    svg.addEventListener("pointerdown", function (ev) {
      if (ev.button !== 0) return;
      drag = { id: ev.pointerId, x: ev.clientX, y: ev.clientY, vb: { x: self.vb.x, y: self.vb.y, w: self.vb.w, h: self.vb.h },
               moving: false };
    });
    svg.addEventListener("pointermove", function (ev) {
      if (!drag || ev.pointerId !== drag.id) return;
      var dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
      if (!drag.moving && Math.abs(dx) + Math.abs(dy) < 5) return;
      if (!drag.moving) {
        // capture only once it is a drag: a capture would take a plain click from its target
        drag.moving = true;
        try { svg.setPointerCapture(ev.pointerId); } catch (e) { /* the pointer is gone */ }
        svg.classList.add("dragging");
      }
      var scale = self.toUser(0, 0).scale;
      self.manual = true;
      self.vb = { x: drag.vb.x - dx / scale, y: drag.vb.y - dy / scale, w: drag.vb.w, h: drag.vb.h };
      self.applyViewBox();
    });
    function end(ev) {
      if (!drag || ev.pointerId !== drag.id) return;
      var moved = drag.moving;
      drag = null;
      svg.classList.remove("dragging");
      if (moved) {
        // the click that ends a drag is no click on a target
        var swallow = function (e) { e.stopPropagation(); e.preventDefault(); };
        svg.addEventListener("click", swallow, true);
        setTimeout(function () { svg.removeEventListener("click", swallow, true); }, 0);
      }
    }
    svg.addEventListener("pointerup", end);
    svg.addEventListener("pointercancel", end);
    svg.addEventListener("wheel", function (ev) {
      ev.preventDefault();
      var p = self.toUser(ev.clientX, ev.clientY);
      var f = Math.exp((ev.deltaY > 0 ? 1 : -1) * Math.min(Math.abs(ev.deltaY), 200) / 400);
      var v = self.vb, w = v.w * f, h = v.h * f;
      var min = self.s * 1.5, max = self.s * 400;
      if (w < min || h < min || w > max) return;
      self.manual = true;
      self.vb = { x: p.x - (p.x - v.x) * f, y: p.y - (p.y - v.y) * f, w: w, h: h };
      self.applyViewBox();
    }, { passive: false });
  };

  global.CarcdBoard = {
    PALETTE: PALETTE,
    KIND_LETTERS: KIND_LETTERS,
    seatColour: seatColour,
    wireTiles: wireTiles,
    turn: turn,
    tileSvg: tileSvg,
    figureSpot: figureSpot,
    figureSvg: figureSvg,
    cityPolygon: cityPolygon,
    xmlText: xmlText,
    plain: plain,
    View: View
  };
})(window);
