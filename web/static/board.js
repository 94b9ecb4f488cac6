/* Draws any game's board as SVG from its board file (GET /api/board/<game>), and the pieces
   of a view on it. Nothing here knows a game's rules: spaces, connectors, areas and edge
   segments come from the board file; pieces are drawn from their tokens. */
"use strict";
(function () {
  const NS = "http://www.w3.org/2000/svg";
  const boards = {};

  const COLOURS = {
    white: "#f7f5ef", black: "#26231f", blue: "#2f6fd6", green: "#2e9d4f", red: "#d0392b",
    yellow: "#e8c22e", orange: "#e67e22", purple: "#8e44ad", south: "#b03a2e", north: "#2c3e50",
    gold: "#d4a017", silver: "#b8bcc2", copper: "#b87333",
  };
  const SPARE = ["#d35400", "#2980b9", "#27ae60", "#8e44ad", "#c0392b", "#16a085"];
  const ARROWS = { N: "▲", S: "▼", E: "▶", W: "◀", NE: "◥", NW: "◤", SE: "◢", SW: "◣" };
  const tr = (s) => (window.TR ? window.TR.t(s) : s);  // the page's language (common.js), where loaded

  function playerColour(name, players) {
    const key = String(name || "").toLowerCase();
    if (COLOURS[key]) return COLOURS[key];
    const i = (players || []).indexOf(name);
    return SPARE[(i < 0 ? 0 : i) % SPARE.length];
  }

  function contrast(fill) {
    const m = /^#(..)(..)(..)$/.exec(fill);
    if (!m) return "#000";
    const [r, g, b] = m.slice(1).map((h) => parseInt(h, 16));
    return r * 0.3 + g * 0.59 + b * 0.11 > 150 ? "#1d1b18" : "#fff";
  }

  /* What a token looks like: fill colour, text, and Gygès-style rings. */
  function tokenLook(tok, players) {
    let m;
    if (tok === "occupied") return { fill: "#7b756b", text: "" };
    if (tok === "hidden") return { fill: "#d8d2c4", text: "?" };  // hidden from the camera by a piece in front
    if ((m = /^(\d)$/.exec(tok))) return { fill: "#e9d3a4", text: tok, rings: +m[1] };
    if ((m = /^([WB])(\d+)$/.exec(tok))) {
      const fill = m[1] === "W" ? COLOURS.white : COLOURS.black;
      return { fill, text: m[2] };
    }
    if ((m = /^([a-z]+)[:-](\w+)$/i.exec(tok))) {
      const fill = playerColour(m[1], players);
      return { fill, text: ARROWS[m[2]] || m[2], colour: true };
    }
    if (COLOURS[tok]) return { fill: COLOURS[tok], text: "" };
    if (tok === "segment") return { fill: "#5d4a33", text: "" };
    const owner = (players || []).find((p) => p.toLowerCase() === tok.toLowerCase());
    if (owner) return { fill: playerColour(owner, players), text: tok };
    return { fill: "#cfc6b4", text: tok.slice(0, 3) };
  }

  function el(name, attrs, parent) {
    const e = document.createElementNS(NS, name);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v !== undefined && v !== null) e.setAttribute(k, v);
    }
    if (parent) parent.appendChild(e);
    return e;
  }

  function text(parent, x, y, str, attrs) {
    const t = el("text", Object.assign({ x, y }, attrs || {}), parent);
    t.textContent = str;
    return t;
  }

  function load(game) {
    // One request per board, however many drawings ask for it at once.
    if (!boards[game]) {
      boards[game] = fetch(`/api/board/${encodeURIComponent(game)}`).then(async (res) => {
        if (!res.ok) { delete boards[game]; throw new Error(`board ${game}: ${res.status}`); }
        const data = await res.json();
        data.byId = {};
        for (const s of data.spaces) data.byId[s.id] = s;
        return data;
      });
    }
    return boards[game];
  }

  /* Draw `board` into `svg`. opts: view {space: [tokens]}, labels {space: text}, players,
     highlight [spaces], choices [[spaces]...], hot (index of a choice), fixes {put, take,
     arrows}, partial (bool), held (space), onSpace(space) makes spaces clickable, turns [{steps,
     done, hint}] a move to make by hand (the computer's, or a hint): drawTurn; teach {from,
     destinations, marks [{space, kind}]} where a piece may go (teach.js). */
  function render(svg, board, opts) {
    opts = opts || {};
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    const [vx, vy, vw, vh] = board.viewbox;
    svg.setAttribute("viewBox", `${vx} ${vy} ${vw} ${vh}`);
    svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
    const cell = board.cell_mm;
    const r = cell * 0.42;
    const segs = board.segments || {};
    const edgeBoard = Object.keys(segs).length > 0;
    const defs = el("defs", {}, svg);
    for (const [id, colour] of [["arrow-bad", "#c0392b"], ["arrow-warn", "#d9822b"]]) {
      const mk = el("marker", { id: `${svg.id}-${id}`, viewBox: "0 0 10 10", refX: 8, refY: 5,
        markerWidth: 4, markerHeight: 4, orient: "auto-start-reverse" }, defs);
      el("path", { d: "M0,0 L10,5 L0,10 z", fill: colour }, mk);
    }
    const fontId = Math.max(5, cell * 0.2);

    for (const a of board.areas || []) {
      el("rect", { x: a.x, y: a.y, width: a.w, height: a.h, rx: 4, class: "b-area" }, svg);
      text(svg, a.x + 4, a.y + 11, tr(a.id.replace(/_/g, " ")), { class: "b-area-label" });  // "reserve north": web/i18n.py game_words
    }
    if (!edgeBoard) {
      for (const c of board.connectors) {
        const a = board.byId[c.a], b = board.byId[c.b];
        el("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y, class: `b-conn ${c.label === "throne" ? "throne" : ""}` }, svg);
      }
    }
    for (const s of board.spaces) {
      if (segs[s.id]) {
        const [x1, y1, x2, y2] = segs[s.id];
        el("line", { x1, y1, x2, y2, class: "b-edge" }, svg);
      } else {
        const big = s.kind === "throne" || s.kind === "emergence";
        el("circle", { cx: s.x, cy: s.y, r: big ? r * 1.15 : r, class: `b-space k-${s.kind}` }, svg);
        if (cell >= 20 && s.kind !== "ex_nihilo") {
          text(svg, s.x - r * 0.95, s.y - r * 0.95, s.id, { class: "b-id", "font-size": fontId });
        }
      }
    }
    const labels = opts.labels || {};
    for (const [sid, str] of Object.entries(labels)) {
      const s = board.byId[sid];
      if (s) text(svg, s.x, s.y + r * 0.05, str, { class: "b-label", "font-size": cell * 0.36, opacity: 0.55 });
    }

    const mark = (sid, cls, scale) => {
      const s = board.byId[sid];
      if (!s) return;
      if (segs[sid]) {
        const [x1, y1, x2, y2] = segs[sid];
        el("line", { x1, y1, x2, y2, class: cls.includes("b-hl") ? "b-hl-line" : cls, "stroke-width": cell * 0.9 }, svg);
      } else {
        el("circle", { cx: s.x, cy: s.y, r: r * (scale || 1.3), class: cls }, svg);
      }
    };
    for (const sid of opts.highlight || []) mark(sid, "b-hl", 1.3);
    (opts.choices || []).forEach((spaces, i) => {
      for (const sid of spaces) mark(sid, `b-choice ${opts.hot === i ? "hot" : ""}`, 1.2);
    });

    for (const turn of opts.turns || []) drawTurn(svg, board, turn, r, mark, "marks");  // under the pieces
    const teach = opts.teach;  // teaching (teach.js): where a piece may go, the marks on its way
    if (teach) {
      if (teach.from) mark(teach.from, "b-from", 1.3);
      for (const sid of teach.destinations || []) mark(sid, "b-dest", 1.2);
    }
    for (const [sid, toks] of Object.entries(opts.view || {})) {
      const s = board.byId[sid];
      if (s) drawPieces(svg, s, toks, r, segs[sid], opts.players);
    }

    for (const turn of opts.turns || []) drawTurn(svg, board, turn, r, mark, "arrows");
    for (const m of (teach && teach.marks) || []) mark(m.space, `b-pass ${m.kind}`, 1.45);  // over the pieces

    const fixes = opts.fixes || {};
    const arrowCls = opts.partial ? "b-arrow partial" : "b-arrow";
    const marker = `url(#${svg.id}-${opts.partial ? "arrow-warn" : "arrow-bad"})`;
    for (const a of fixes.arrows || []) {
      const p = board.byId[a.from], q = board.byId[a.to];
      if (!p || !q) continue;
      const dx = q.x - p.x, dy = q.y - p.y, len = Math.hypot(dx, dy) || 1;
      const k = Math.min(r * 0.9, len / 3) / len;
      el("line", { x1: p.x + dx * k, y1: p.y + dy * k, x2: q.x - dx * k, y2: q.y - dy * k,
        class: arrowCls, "marker-end": marker, "stroke-width": Math.max(2, cell * 0.08) }, svg);
      mark(a.to, "b-put", 1.15);
    }
    // "+3" / "−3" sit on the space's right edge, clear of the names printed at the spaces' top
    // left (its own and its neighbour's); a second hint on one space goes below the first.
    const hints = {};
    const hint = (s, str, cls) => {
      const n = hints[s.id] = (hints[s.id] || 0) + 1;
      text(svg, s.x + r * 0.75, s.y + (n === 1 ? -r * 0.7 : r * 0.7), str.replace("occupied", "●"),
        { class: `b-fix-text ${cls}`, "font-size": cell * 0.34 });
    };
    for (const p of fixes.put || []) {
      mark(p.space, "b-put", 1.15);
      const s = board.byId[p.space];
      if (s) hint(s, `+${p.token}`, "put");
    }
    for (const t of fixes.take || []) {
      mark(t.space, "b-take", 1.15);
      const s = board.byId[t.space];
      if (s) hint(s, `−${t.token}`, "take");
    }

    if (opts.onSpace) {
      for (const s of board.spaces) {
        const hit = el("circle", { cx: s.x, cy: s.y, r: segs[s.id] ? cell * 0.5 : r * 1.1,
          class: `b-hit ${opts.held === s.id ? "held" : ""}`, tabindex: 0, role: "button",
          "data-space": s.id, "aria-label": tr("space {id}").replace("{id}", s.id) }, svg);
        el("title", {}, hit).textContent = s.id;
        hit.addEventListener("click", () => opts.onSpace(s.id));
        hit.addEventListener("keydown", (ev) => {
          if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); opts.onSpace(s.id); }
        });
      }
    }
  }

  /* A turn to carry out by hand (the computer's move, or a hint): each step still to do drawn
     as from → to arrows, the spaces hands lift from (dashed) and put down on (solid) marked
     apart, numbered when the turn has several steps. A bump or a removal is among lift/place:
     spaces only lifted from start an arrow, spaces only put down on end one, a space both
     lifted from and put down on (a bumped ring's) lies between. */
  function drawTurn(svg, board, turn, r, mark, part) {
    const kind = turn.kind || (turn.hint ? "hint" : "computer");  // a lesson's step: "lesson"
    const id = `${svg.id}-turn-${kind}`;
    if (!svg.querySelector(`#${id}`)) {
      const mk = el("marker", { id, viewBox: "0 0 10 10", refX: 8, refY: 5, markerWidth: 4, markerHeight: 4,
        orient: "auto-start-reverse" }, svg.querySelector("defs") || el("defs", {}, svg));
      el("path", { d: "M0,0 L10,5 L0,10 z", class: `b-turn-head ${kind}` }, mk);
    }
    const steps = turn.steps || [];
    steps.forEach((step, i) => {
      if (i < (turn.done || 0)) return;
      const lift = step.lift || [], place = step.place || [];
      const from = lift.filter((s) => !place.includes(s)), to = place.filter((s) => !lift.includes(s));
      const mid = lift.filter((s) => place.includes(s));
      // Two pieces that trade places (a ring bumped back to the space its bumper left) are
      // lifted from and put down on the same spaces: one arrow, a head at each end.
      const swap = !from.length && !to.length && mid.length >= 2;
      const paths = swap ? [mid] : from.length === 1 && to.length === 1 ? [[from[0], ...mid, to[0]]]
        : from.map((f, k) => (k < to.length ? [f, to[k]] : [f]));
      for (const path of part === "arrows" ? paths : []) {
        for (let k = 0; k + 1 < path.length; k++) {
          const p = board.byId[path[k]], q = board.byId[path[k + 1]];
          if (!p || !q) continue;
          const dx = q.x - p.x, dy = q.y - p.y, len = Math.hypot(dx, dy) || 1;
          const c = Math.min(r * 0.9, len / 3) / len;
          el("line", { x1: p.x + dx * c, y1: p.y + dy * c, x2: q.x - dx * c, y2: q.y - dy * c,
            class: `b-turn-arrow ${kind}`, "marker-end": `url(#${id})`, "stroke-width": Math.max(2, r * 0.2),
            "data-step": i, ...(swap ? { "marker-start": `url(#${id})` } : {}) }, svg);
        }
      }
      if (part === "marks") {
        const marks = [];
        for (const sid of lift) marks.push([sid, `b-lift ${kind}`, 1.25]);
        for (const sid of place) marks.push([sid, `b-place ${kind}`, lift.includes(sid) ? 1.45 : 1.25]);
        for (const [sid, cls, scale] of marks) {
          const before = svg.childNodes.length;
          mark(sid, cls, scale);
          if (svg.childNodes.length > before) {
            svg.lastChild.dataset.space = sid;
            svg.lastChild.dataset.step = i;
          }
        }
        return;
      }
      const end = board.byId[to[0] || place[0] || lift[0]];
      if (end && (steps.length > 1 || turn.hint)) {
        const label = (steps.length > 1 ? `${i + 1}` : "") + (turn.hint ? ` ${turn.label || "hint"}` : "");
        text(svg, end.x, end.y + r * 1.55, label.trim(), { class: `b-turn-text ${kind}`, "font-size": r * 0.7 });
      }
    });
  }

  function drawPieces(svg, s, toks, r, seg, players) {
    const n = toks.length;
    const step = n > 1 ? Math.min(r * 1.7, (r * 9) / n) : 0;
    toks.forEach((tok, i) => {
      const look = tokenLook(tok, players);
      const x = s.x + (i - (n - 1) / 2) * step;
      const y = s.y;
      if (seg && n === 1) {
        const [x1, y1, x2, y2] = seg;
        el("line", { x1, y1, x2, y2, stroke: look.fill, "stroke-width": r * 1.1, "stroke-linecap": "round" }, svg);
        if (look.text) {
          text(svg, x, y, look.text, { class: "b-piece-text", fill: contrast(look.fill), "font-size": r * 1.3 });
        }
        return;
      }
      const pr = n > 1 ? Math.max(r * 0.55, Math.min(r * 0.9, step * 0.6)) : r * 0.9;
      el("circle", { cx: x, cy: y, r: pr, fill: look.fill, stroke: "#0008", "stroke-width": Math.max(0.8, pr * 0.06) }, svg);
      if (look.rings) {
        for (let k = 1; k < Math.min(look.rings, 3); k++) {  // a ring stack; a river marker "7" is a number
          el("circle", { cx: x, cy: y, r: pr * (1 - k * 0.26), fill: "none", stroke: "#5d4a33",
            "stroke-width": Math.max(0.8, pr * 0.08) }, svg);
        }
      }
      if (look.text) {
        text(svg, x, y, look.text, { class: "b-piece-text", fill: contrast(look.fill), "font-size": pr * (look.rings ? 0.6 : 0.95) });
      }
    });
  }

  window.TRBoard = { load, render, playerColour, tokenLook };
})();
