/* The club page: the grid of tables, one table full-size, the replay, the arbiter's forms.
   Live updates come from the hub's event stream (/api/events): a snapshot, then the tables
   that changed. Boards are drawn by web/static/board.js, as on a board's own page. */
"use strict";
(function () {
  const $ = (s) => document.querySelector(s);
  const boards = {};  // name -> the table as the hub last sent it
  const page = document.body.dataset.page;
  const one = document.body.dataset.board || null;
  const t = (s, values) => TR.t(s, values);  // the page's words in the reader's language (hub_web/words.py)

  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function playersText(b) {
    const names = Object.values(b.players || {});
    // The sides the computer plays (a board's seats): said beside the pairing's names.
    const computers = Object.entries(b.seats || {}).map(([side, seat]) => t("{side}: computer, level {n}", { side, n: seat.split(":")[1] }));
    const said = names.length ? names.join(" – ") : (computers.length ? "" : t("no pairing"));
    return [said, ...computers].filter(Boolean).join(" · ");
  }

  function statusText(b) {
    if (!b.online) return ["offline", t("offline")];
    if (b.outcome) {
      const w = b.outcome.winner;
      const who = w === null ? t("draw") : t("{who} wins", { who: (b.players || {})[w] || w });
      return ["over", who];
    }
    if (b.status && b.status !== "ok") return [b.status, t(b.status)];
    return ["online", b.to_move ? t("{who} to move", { who: (b.players || {})[b.to_move] || b.to_move }) : t("online")];
  }

  /* The game clock (docs/clock.md): each player's time left, the running one counted down here
     from the board's word (its "at", the board's wall time). */
  function clockMs(c, side) {
    let ms = c.times[side];
    if (side === c.running && !c.paused && !c.flagged) ms -= Date.now() - c.at * 1000;
    return ms;
  }

  function clockFmt(ms) {
    const secs = Math.max(0, Math.ceil(ms / 1000));
    const h = Math.floor(secs / 3600), m = Math.floor((secs % 3600) / 60), s = String(secs % 60).padStart(2, "0");
    return h ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
  }

  function clockText(b) {
    const c = b.clock;
    if (!c || typeof c.times !== "object" || c.times === null) return "";
    const sides = Object.keys(c.times).map((s) => `${s === c.running && !c.paused && !c.flagged ? "▶ " : ""}` +
      `${(b.players || {})[s] || s} ${clockFmt(clockMs(c, s))}`);
    return sides.join(" · ") + (c.paused ? ` (${t("paused")})` : "") +
      (c.flagged ? ` — ${t("{who} lost on time", { who: (b.players || {})[c.flagged] || c.flagged })}` : "");
  }

  function showClocks() {
    for (const b of Object.values(boards)) {
      if (!b.clock) continue;
      const tileEl = document.getElementById(`t-${b.name}`);
      if (tileEl) tileEl.querySelector(".clock").textContent = clockText(b);
      if (one && b.name === one && $("#table-clock")) $("#table-clock").textContent = clockText(b);
    }
  }
  setInterval(showClocks, 1000);

  async function draw(svg, b) {
    if (!b.rules) return;
    const board = await TRBoard.load(b.rules);
    TRBoard.render(svg, board, { view: b.view || {}, players: board.players });
  }

  function showTile(b) {
    let tile = document.getElementById(`t-${b.name}`);
    if (!tile) {
      tile = el("a", { id: `t-${b.name}`, class: "tile", href: `/table/${encodeURIComponent(b.name)}` });
      const h = el("h4"); h.append(el("span", {}, b.name), el("span", { class: "badge" }));
      const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
      svg.setAttribute("class", "board"); svg.id = `svg-${b.name}`;
      tile.append(h, el("div", { class: "players" }), el("div", { class: "clock" }), svg, el("div", { class: "foot" }));
      const grid = $("#grid");
      const after = [...grid.children].find((c) => c.id > tile.id);
      grid.insertBefore(tile, after || null);
    }
    const [cls, text] = statusText(b);
    tile.classList.toggle("offline", !b.online);
    const badge = tile.querySelector(".badge"); badge.className = `badge ${cls}`; badge.textContent = text;
    tile.querySelector(".players").textContent = playersText(b);
    tile.querySelector(".clock").textContent = clockText(b);
    tile.querySelector(".foot").textContent = t("{rules} · game {game} · move {ply}", { rules: b.rules || "", game: b.game ?? "–", ply: b.ply }) +
      (b.last ? ` · ${b.last}` : "");
    draw(tile.querySelector("svg"), b);
  }

  function showTable(b) {
    $("#table-players").textContent = playersText(b);
    if ($("#table-clock")) $("#table-clock").textContent = clockText(b);
    const [, text] = statusText(b);
    $("#table-status").textContent = t("{rules} game {game}, move {ply}", { rules: b.rules || "", game: b.game ?? "–", ply: b.ply }) +
      (b.last ? t(", last {move}", { move: b.last }) : "") + ` — ${text}`;
    draw($("#table-board"), b);
  }

  function update(list) {
    for (const b of list) {
      boards[b.name] = b;
      if (page === "club" && !one) showTile(b);
      if (one && b.name === one) showTable(b);
    }
    if (page === "club" && !one) {
      const all = Object.values(boards);
      const online = all.filter((b) => b.online).length;
      $("#club-summary").textContent = t("{n} tables, {online} online, {over} games over",
        { n: all.length, online, over: all.filter((b) => b.outcome).length });
    }
  }

  let reloadTimer = null;
  function stream() {
    const es = new EventSource("/api/events");
    es.addEventListener("snapshot", (ev) => {
      const d = JSON.parse(ev.data).club;
      const link = $("#hub-link");
      if (link) link.textContent = t("broker: {link}", { link: t(d.link) }) + (d.link_detail ? " — " + d.link_detail : "");
      update(d.boards);
    });
    es.addEventListener("boards", (ev) => {
      update(JSON.parse(ev.data).boards);
      if (page === "standings" && !reloadTimer) {  // results change as games end: redraw now and then
        reloadTimer = setTimeout(() => location.reload(), 5000);
      }
    });
    es.onopen = () => { const c = $("#conn"); if (c) c.hidden = true; };
    es.onerror = () => { const c = $("#conn"); if (c) c.hidden = false; };
  }

  async function replay() {
    const { board, game } = document.body.dataset;
    const res = await fetch(`/api/games/${encodeURIComponent(board)}/${game}`);
    const data = await res.json();
    if (!res.ok) { TR.toast(data.error); return; }
    const rules = await TRBoard.load(data.record.game);
    const steps = [{ seq: -1, move: null, view: data.start }, ...data.steps];
    let at = steps.length - 1;
    const list = $("#r-moves");
    data.steps.forEach((s) => list.append(el("li", {}, s.kind === "undo" ? t("(take back)") : s.move)));
    const show = () => {
      TRBoard.render($("#replay-board"), rules, { view: steps[at].view, players: rules.players });
      $("#r-where").textContent = `${at} / ${steps.length - 1}`;
    };
    $("#r-first").onclick = () => { at = 0; show(); };
    $("#r-prev").onclick = () => { at = Math.max(0, at - 1); show(); };
    $("#r-next").onclick = () => { at = Math.min(steps.length - 1, at + 1); show(); };
    $("#r-last").onclick = () => { at = steps.length - 1; show(); };
    const names = Object.entries(data.record.players || {}).map(([s, n]) => `${s}: ${n}`)
      .concat(Object.entries(data.record.seats || {}).map(([s, seat]) => t("{side}: computer, level {n}", { side: s, n: seat.split(":")[1] })))
      .join(" · ");
    $("#replay-title").textContent += names ? ` — ${names}` : "";
    show();
    if (data.unreadable) TR.toast(t("The board's moves do not replay through the rules: {why}", { why: data.unreadable }));
    corrections(data.record, rules);
  }

  function corrections(record, rules) {
    const url = `/api/games/${encodeURIComponent(document.body.dataset.board)}/${document.body.dataset.game}/correct`;
    const fixes = record.corrections || [];
    if (fixes.length) {
      const note = $("#r-corrected");
      note.hidden = false;
      note.textContent = t("Corrected by the arbiter ({n}); the board sent: {moves}", { n: fixes.length, moves: record.board_record.moves.join(" ") });
    }
    fixes.forEach((c) => $("#c-list").append(el("li", {},
      `${new Date(c.at * 1000).toLocaleString()} ${c.by}: ${c.kind === "moves" ? t("moves from {n}: {moves}", { n: c.data.ply + 1, moves: c.data.moves.slice(c.data.ply).join(" ") })
        : c.data.outcome ? t("result: {what}", { what: c.data.outcome.winner ? t("{who} wins", { who: c.data.outcome.winner }) : t("draw") })
        : t("result: back to the record's")}${c.note ? ` (${c.note})` : ""}`)));
    const winner = $("#c-winner");
    (rules.players || []).forEach((p) => winner.append(el("option", { value: p }, t("{who} wins", { who: p }))));
    winner.append(el("option", { value: "draw" }, t("draw")), el("option", { value: "clear" }, t("back to the record's own")));
    $("#c-from").value = record.moves.length + 1;
    const done = (r) => { if (r) { TR.toast(t("Corrected")); setTimeout(() => location.reload(), 600); } };
    $("#c-result").onclick = async () => {
      if (!winner.value) return;
      done(await TR.act(url, { kind: "result", by: $("#c-by").value, reason: $("#c-reason").value,
        winner: winner.value === "draw" ? null : winner.value }));
    };
    $("#c-apply").onclick = async () => done(await TR.act(url, { kind: "moves", by: $("#c-by").value,
      from: parseInt($("#c-from").value, 10), moves: $("#c-moves").value }));
  }

  async function auditTrail() {
    const res = await fetch("/api/corrections");
    if (!res.ok) return;  // watching: the trail (with addresses) is the arbiter's
    const body = $("#corrections");
    const outcome = (o) => (o ? (o.winner ? t("{who} wins", { who: o.winner }) : t("draw")) : t("none"));
    for (const c of (await res.json()).corrections) {
      const what = c.kind === "moves" ? t("moves from {n}: {moves}", { n: c.data.ply + 1, moves: c.data.moves.slice(c.data.ply).join(" ") })
        : c.data.outcome ? t("result: {what}", { what: outcome(c.data.outcome) }) : t("result: back to the record's");
      const was = c.kind === "moves" ? c.replaced.moves.join(" ") : outcome(c.replaced.outcome);
      const row = el("tr", {});
      const game = el("td", {});
      game.append(el("a", { href: `/archive/${encodeURIComponent(c.board)}/${c.game}` }, `${c.board} #${c.game}`));
      row.append(el("td", {}, new Date(c.at * 1000).toLocaleString()), el("td", {}, `${c.by} (${c.address})`), game,
        el("td", {}, what + (c.note ? ` — ${c.note}` : "")), el("td", {}, was));
      body.append(row);
    }
  }

  function arbiter() {
    auditTrail();
    const round = () => parseInt($("#pair-round").value, 10);
    $("#new-round").onclick = async () => {
      const clock = ($("#round-clock") && $("#round-clock").value.trim()) || undefined;  // docs/clock.md
      const r = await TR.act("/api/rounds", clock ? { clock } : undefined);
      if (r) {
        TR.toast(r.clock ? t("Round {n} created (clock {clock})", { n: r.round, clock: r.clock }) : t("Round {n} created", { n: r.round }));
        setTimeout(() => location.reload(), 600);
      }
    };
    $("#pair-save").onclick = async () => {
      const file = $("#pair-file").files[0];
      let r;
      if (file) { const f = new FormData(); f.append("csv", file); r = await TR.act(`/api/rounds/${round()}/pairings`, f); }
      else r = await TR.act(`/api/rounds/${round()}/pairings`, { csv: $("#pair-csv").value });
      if (r) { TR.toast(t("{n} pairings in round {round}", { n: r.pairings.length, round: round() })); setTimeout(() => location.reload(), 600); }
    };
    $("#pair-push").onclick = async () => {
      const r = await TR.act(`/api/rounds/${round()}/push`);
      if (r) TR.toast(t("Round {round} pushed to {n} boards", { round: round(), n: r.pushed.length }));
    };
    document.querySelectorAll(".result-by-hand").forEach((sel) => sel.addEventListener("change", async () => {
      if (!sel.value) return;
      const winner = sel.value === "draw" ? null : sel.value;
      const r = await TR.act(`/api/rounds/${sel.dataset.round}/result`, { board: sel.dataset.board, winner });
      if (r) { TR.toast(t("Result saved")); setTimeout(() => location.reload(), 600); }
    }));
  }

  document.addEventListener("DOMContentLoaded", () => {
    if (page === "club" || page === "standings") stream();
    if (page === "archive" && document.body.dataset.game) replay();
    if (page === "arbiter") arbiter();
  });
})();
