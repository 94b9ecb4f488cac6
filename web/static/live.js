/* The live page: follows the event stream and redraws everything from each snapshot. */
"use strict";
(function () {
  const { $, act, toast, t } = window.TR;
  const B = window.TRBoard;
  let live = null;
  let hot = null; // the choice under the pointer: its spaces are drawn stronger
  const sim = { box: null, picker: null };
  let games = [];
  // What each phase asks of the players, in the games' own words; others get a generic line.
  const PHASES = {
    setup: t("Setup: place your pieces on the board"),
    drift: t("Drift phase: turn the rivers on the board now"),
  };

  function esc(s) {
    return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
  }
  const cap = window.TR.title;
  // Texts from the rules and the referee (move descriptions, reasons, what to put back where)
  // come in English; the snapshot's i18n has them in the page's other languages (web/i18n.py).
  function rt(s) {
    const lang = document.documentElement.lang || "en";
    const words = (live && live.i18n && live.i18n[lang]) || {};
    return words[s] || s;
  }

  function fixText(f) {
    const want = f.expected.join("+") || "nothing";
    // A pile (a DRIFT home through the camera) shows only its top: "more" may lie beneath.
    const top = f.observed.filter((t) => t !== "more");
    const got = f.observed.includes("more") ? t("a pile topped by {top}", { top: top.join("+") }) : (f.observed.join("+") || t("nothing"));
    return t("{space}: should hold {want} (the board shows {got})", { space: f.space, want: want === "nothing" ? t(want) : want, got });
  }

  function handText(st) {
    const lines = [...(st.say || [])]; // the game's own words (DRIFT: "turn the inner river one arrow clockwise")
    for (const a of st.arrows || []) lines.push(`move ${a.token} from ${a.from} back to ${a.to}`);
    for (const p of st.put || []) lines.push(`put ${p.token} on ${p.space}`);
    // "occupied": a piece the camera saw but could not name
    for (const t of st.take || []) lines.push(t.token === "occupied" ? `take the piece off ${t.space}` : `take ${t.token} off ${t.space}`);
    return lines.map(rt);
  }

  /* -- the status line, banner and scores ------------------------------------------------ */

  function renderStatus() {
    // The club hub's pairing names the players: "Round 2 · South: Alice · North: Bob".
    const names = (live.names && live.names.players) || {};
    const named = Object.keys(names).length ? " — " + (live.names.round ? t("Round {n}", { n: live.names.round }) + " · " : "") +
      Object.entries(names).map(([side, who]) => t("{side}: {who}", { side: t(cap(side)), who })).join(" · ") : "";
    $("#game-title").textContent = t("{title} · game {id} · move {ply}", { title: t(live.title), id: live.game_id, ply: live.ply }) + named;
    const banner = $("#banner");
    banner.className = "banner";
    if (live.outcome) {
      const o = live.outcome;
      banner.textContent = o.winner ? t("Game over: {player} wins ({reason})", { player: t(cap(o.winner)), reason: rt(o.reason) })
        : t("Game over: a draw ({reason})", { reason: rt(o.reason) });
      banner.classList.add("over");
      banner.hidden = false;
    } else if (live.phase && live.phase !== "play" && live.phase !== "over") {
      banner.textContent = PHASES[live.phase] || t("{phase} phase — do it on the board now", { phase: cap(live.phase) });
      banner.classList.add("phase");
      banner.hidden = false;
    } else {
      banner.hidden = true;
    }
    const turn = $("#turn");
    turn.innerHTML = "";
    if (!live.outcome) {
      const chip = document.createElement("span");
      chip.className = "chip";
      chip.style.background = B.playerColour(live.to_move, live.players);
      turn.append(chip, ` ${t("{player} to move", { player: t(cap(live.to_move)) })}`);
    } else {
      turn.textContent = t("Game over");
    }
    const scores = $("#scores");
    scores.innerHTML = "";
    for (const [who, n] of Object.entries(live.scores || {})) {
      const d = document.createElement("div");
      d.className = `score ${who === live.to_move ? "to-move" : ""}`;
      d.innerHTML = `<small>${esc(t(cap(who)))}</small><b>${esc(n)}</b>`;
      if (live.target) d.title = t("first to {n}", { n: live.target });
      scores.append(d);
    }
    if (live.target) {
      const t = document.createElement("small");
      t.className = "hint";
      t.textContent = window.TR.t("first to {n} wins", { n: live.target });
      scores.append(t);
    }
    const src = $("#source");
    src.className = `source ${live.source.status}`;
    src.textContent = t(live.source.text);
  }

  /* -- the latest decision: what happened, what to do --------------------------------------- */

  function renderDecision() {
    const card = $("#decision");
    const st = live.board_status || { kind: "ok" };
    const last = live.last || {};
    let kind = st.kind !== "ok" ? st.kind : last.kind || "new_game";
    let head = "", detail = "", items = [], why = "";
    if (st.kind === "illegal") {
      head = t("Not a legal move — put the board back");
      items = handText(st);
      if (!items.length) items = st.fixes.map(fixText);
      // The rule the board breaks, beside what to put back: the attempt and why, then the rule
      // text's own words with its section (or: several pieces moved).
      if (st.why) why = `<div class="why"><div class="said">${esc(rt(st.why.said))}</div>` +
        (st.why.rule ? `<div class="rule">${esc(rt(st.why.rule))}</div>` : "") + "</div>";
      const recent = live.recent || [];
      if (recent.length > 1 && recent[0].kind === "illegal" && recent[1].kind === "taken_back") {
        // just after an undo: the board still shows the move; say what to do, not "illegal"
        kind = "taken_back";
        head = items.length === 1 ? t("Took back {move}: {todo}", { move: last.move, todo: items[0] })
          : t("Took back {move}: put the board back as it was", { move: last.move });
        if (items.length === 1) items = [];
      }
    } else if (st.kind === "partial") {
      head = t("Part-way through a move… finish it on the board");
      const c = st.candidates;
      detail = c.length === 1 ? t("Looks like {move}", { move: c[0] }) : c.length <= 6 ? t("Could be: {moves}", { moves: c.join(", ") })
        : t("Could be any of {n} moves ({moves}, …)", { n: c.length, moves: c.slice(0, 4).join(", ") });
      items = handText(st);
    } else if (st.kind === "ambiguous") {
      head = t("Which move was it? Choose one:");
    } else if (last.kind === "accepted" || last.kind === "game_over") {
      head = t("{player} played {move}", { player: t(cap(last.player || "")), move: last.move });
      detail = rt(last.description) + (last.confirmed ? " " + t("(confirmed)") : "");
    } else if (last.kind === "taken_back") {
      head = t("Took back {move}", { move: last.move });
    } else {
      head = t("{title}: game {id}", { title: t(live.title), id: live.game_id });
      detail = live.ply ? t("resumed at move {ply}", { ply: live.ply }) : t("new game — make the first move on the board");
      kind = "new_game";
    }
    card.className = `card decision ${kind}`;
    card.dataset.kind = kind;
    card.innerHTML = `<div class="headline">${esc(head)}</div>` +
      (detail ? `<div class="detail">${esc(detail)}</div>` : "") +
      (items.length ? `<ul>${items.map((i) => `<li>${esc(i)}</li>`).join("")}</ul>` : "") + why;
    const notice = live.notice;
    if (notice && Date.now() / 1000 - notice.at < 15) {
      const p = document.createElement("p");
      p.className = "notice";
      p.textContent = rt(notice.text);  // the log's line for the refusal, in the page's words
      card.append(p);
    }
    const box = $("#choices");
    box.innerHTML = "";
    (live.question || []).forEach((c, i) => {
      const b = document.createElement("button");
      b.className = "choice";
      b.dataset.number = c.number;
      b.innerHTML = `<b>${esc(c.number)}.</b> ${esc(c.text)} <span class="detail">— ${esc(rt(c.description))}</span>`;
      b.disabled = !window.TR.session.admin;
      b.addEventListener("click", () => act("/api/confirm", { number: c.number }));
      b.addEventListener("mouseenter", () => { hot = i; renderBoard(); });
      b.addEventListener("focus", () => { hot = i; renderBoard(); });
      b.addEventListener("mouseleave", () => { hot = null; renderBoard(); });
      box.append(b);
    });
  }

  /* Moves the board showed all at once, reached by more than one sequence: the record keeps
     them all until the players say which they played. Play goes on meanwhile. */
  function renderUnseen() {
    let box = $("#unseen");
    if (!box) {
      box = document.createElement("div");
      box.id = "unseen";
      box.className = "card unseen";
      $("#choices").after(box);
    }
    const open = live.unseen || [];
    box.hidden = !open.length;
    box.innerHTML = "";
    for (const q of open) {
      const head = document.createElement("p");
      head.className = "headline";
      head.textContent = t("Moves {first}–{last} were never seen one by one. Which did you play? (the game goes on meanwhile)",
        { first: q.first_ply + 1, last: q.first_ply + q.count });
      box.append(head);
      for (const c of q.choices) {
        const b = document.createElement("button");
        b.className = "choice";
        b.innerHTML = `<b>${esc(c.number)}.</b> ${esc(c.text)}` +
          (c.description !== c.text ? ` <span class="detail">— ${esc(rt(c.description))}</span>` : "");
        b.disabled = !window.TR.session.admin;
        b.addEventListener("click", () => act("/api/unseen", { first_ply: q.first_ply, number: c.number }));
        box.append(b);
      }
    }
  }

  function renderControls() {
    const admin = window.TR.session.admin;
    $("#undo").disabled = !admin || live.ply === 0;
    $("#new-game").disabled = !admin;
    $("#watch-hint").hidden = admin;
    const dec = $("#declare");
    const wasOpen = !!dec.querySelector("details[open]");  // a re-render must not fold it away
    dec.innerHTML = "";
    // Moves made off the board (resigning) are buttons; moves that leave the board looking
    // as it was (a ring bumping an equal ring back onto its own start) are folded away with
    // why they are there: the sensors cannot tell them from no move.
    const button = (d) => {
      const b = document.createElement("button");
      b.textContent = rt(d.description);
      b.title = d.why ? `${d.move}: ${rt(d.why)}` : d.move;
      b.disabled = !admin;
      b.addEventListener("click", () => {
        if (confirm(`${rt(d.description)}?`)) act("/api/declare", { move: d.move });
      });
      return b;
    };
    const all = live.declarable || [];
    const off = all.filter((d) => d.why !== "the board looks the same after it");
    const same = all.filter((d) => d.why === "the board looks the same after it");
    off.forEach((d) => dec.append(button(d)));
    if (same.length) {
      const box = document.createElement("details");
      box.className = "unseen-moves";
      box.innerHTML = `<summary>${esc(t("Moves the board cannot show ({n})", { n: same.length }))}</summary>` +
        `<p class="hint">${esc(t("Each leaves the board looking exactly as it was, so the sensors cannot tell it from no move: if you played one, record it here."))}</p>`;
      same.forEach((d) => box.append(button(d)));
      box.open = wasOpen;
      dec.append(box);
    }
  }

  function renderLists() {
    const ol = $("#moves");
    ol.innerHTML = "";
    live.moves.forEach((m, i) => {
      const li = document.createElement("li");
      li.textContent = m;
      if (i === live.moves.length - 1) li.className = "current";
      ol.append(li);
    });
    const ul = $("#log");
    ul.innerHTML = "";
    for (const r of live.recent) {
      const li = document.createElement("li");
      li.innerHTML = `<span class="k">${esc(t(r.kind.replace("_", " ")))}</span>${esc(t(rt(r.text)))}`;
      ul.append(li);
    }
  }

  /* -- the boards ------------------------------------------------------------------------- */

  async function renderBoard() {
    if (!live) return;
    const board = await B.load(live.game);
    const st = live.board_status || { kind: "ok" };
    const choices = (live.question || []).map((c) => c.spaces);
    B.render($("#board"), board, {
      view: live.view, labels: live.labels, players: live.players,
      highlight: st.kind === "ok" && live.last ? live.last.highlight || [] : [],
      choices, hot, fixes: st.kind === "illegal" || st.kind === "partial" ? st : null,
      partial: st.kind === "partial", turns: turnsToDraw(),
      // teaching (teach.js): where a lifted or chosen piece may go; tap a piece: "show me"
      teach: window.TRTeach ? window.TRTeach.overlay(live) : null,
      onSpace: window.TRTeach ? window.TRTeach.onSpace(live) : undefined,
    });
  }

  async function renderSim() {
    const panel = $("#sim-panel");
    if (!live.sim) { panel.hidden = true; return; }
    panel.hidden = false;
    const board = await B.load(live.game);
    const admin = window.TR.session.admin;
    B.render($("#simboard"), board, {
      view: live.sim.view, players: live.players, labels: live.labels, held: sim.picker,
      onSpace: admin ? clickSpace : () => toast(t("Watching only: enter the admin PIN to move pieces.")),
    });
    const hand = $("#hand");
    hand.innerHTML = `<span class='hint'>${esc(t("In hand:"))}</span>`;
    if (!live.sim.hand.length) hand.append(" " + t("nothing"));
    live.sim.hand.forEach((tok) => hand.append(pieceButton(tok, false, () => {})));
    const back = $("#discard");
    back.disabled = !admin || !live.sim.hand.length;
    const box = $("#box");
    box.innerHTML = `<span class='hint'>${esc(t("Box:"))}</span>`;
    for (const tok of live.sim.palette) {
      box.append(pieceButton(tok, sim.box === tok, () => {
        sim.box = sim.box === tok ? null : tok;
        renderSim();
      }));
    }
    $("#hand-over").checked = live.sim.hand_over;
    $("#hand-over").disabled = !admin;
    $("#sim-reset").disabled = !admin;
    renderPicker();
  }

  function pieceButton(tok, selected, onClick) {
    const b = document.createElement("button");
    b.className = `piece-btn ${selected ? "selected" : ""}`;
    b.textContent = tok === "occupied" ? "●" : tok;
    b.title = tok;
    b.dataset.token = tok;
    b.addEventListener("click", onClick);
    return b;
  }

  function renderPicker() {
    const p = $("#picker");
    p.innerHTML = "";
    const toks = sim.picker && live.sim.view[sim.picker];
    if (!toks) { sim.picker = null; return; }
    p.append(t("Take which piece from {space}?", { space: sim.picker }) + " ");
    for (const tok of [...new Set(toks)]) {
      p.append(pieceButton(tok, false, () => simAct("take", { space: sim.picker, token: tok }, true)));
    }
  }

  async function simAct(action, body, clearPicker) {
    if (clearPicker) sim.picker = null;
    const res = await act(`/api/sim/${action}`, body);
    if (res && live) { live.sim = res.sim; renderSim(); }
  }

  /* A click on the simulated board: put down what is held (or chosen from the box), else
     pick up what is there (asking which piece where there are several kinds). */
  function clickSpace(space) {
    const here = live.sim.view[space] || [];
    if (sim.box) return simAct("put", { space, token: sim.box }, true);
    if (live.sim.hand.length) return simAct("put", { space }, true);
    if (!here.length) return toast(t("Empty space: pick up a piece first, or choose one from the box."));
    if (new Set(here).size > 1) { sim.picker = space; return renderPicker(); }
    return simAct("take", { space }, true);
  }

  /* -- new game ----------------------------------------------------------------------------- */

  async function openNewGame() {
    if (!games.length) games = await (await fetch("/api/games")).json();
    const sel = $("#ng-game");
    sel.innerHTML = "";
    for (const g of games) {
      const o = document.createElement("option");
      o.value = g.name;
      o.textContent = t(g.title);
      if (g.name === live.game) o.selected = true;
      sel.append(o);
    }
    fillOptions();
    await fillSeats();
    $("#ng-error").textContent = "";
    $("#newgame-dialog").showModal();
  }

  function fillOptions() {
    const g = games.find((x) => x.name === $("#ng-game").value);
    const box = $("#ng-options");
    box.innerHTML = "";
    for (const [name, spec] of Object.entries(g ? g.options : {})) {
      const id = `ng-opt-${name}`;
      const label = document.createElement("label");
      label.htmlFor = id;
      label.textContent = t(name.replace(/_/g, " "));  // the games' words: web/i18n.py game_words
      const input = document.createElement("input");
      input.id = id;
      input.name = name;
      input.placeholder = spec.default === null ? t("default") : String(spec.default);
      const help = document.createElement("div");
      help.className = "help";
      help.textContent = t(spec.help);
      box.append(label, input, help);
    }
  }

  async function submitNewGame(ev) {
    ev.preventDefault();
    const options = {};
    for (const input of $("#ng-options").querySelectorAll("input")) {
      if (input.value.trim()) options[input.name] = input.value.trim();
    }
    try {
      await window.TR.post("/api/new-game", { game: $("#ng-game").value, setup: $("#ng-setup").value, options,
        seats: dialogSeats(), clock: ($("#ng-clock") && $("#ng-clock").value.trim()) || undefined });
      $("#newgame-dialog").close();
    } catch (e) {
      $("#ng-error").textContent = e.message;
    }
  }

  /* -- the computer opponent (issue 30): seats, its move to carry out, a hint ---------------- */

  let levels = [];
  const seatOf = (side) => (live.seats || {})[side] || "person";
  const levelOf = (seat) => Number((/^computer:(\d+)$/.exec(seat) || [])[1] || 0);
  // The sides in this game: a game of several players lists its own (DRIFT: [{colour, home}]).
  const sidesOf = () => {
    const own = live.position && live.position.players;
    return Array.isArray(own) ? own.map((p) => (typeof p === "string" ? p : p.colour || p.name)) : live.players;
  };
  const mine = (turn) => turn && !live.outcome && turn.side === live.to_move;  // still this position's

  // What the board draws: the computer's move still to make, and a hint (never both: a hint is
  // for a person's seat).
  function turnsToDraw() {
    const out = [];
    const c = live.computer, h = live.hint;
    if (mine(c) && !c.thinking) out.push({ steps: c.steps, done: c.done });
    if (mine(h) && !h.thinking) out.push({ steps: h.steps, done: 0, hint: true, label: t("hint") });
    if (window.TRLesson) out.push(...window.TRLesson.turns(live));  // a first lesson's step (lesson.js)
    if (window.TRRemote) out.push(...window.TRRemote.turns(live));  // another table's move (remote.js)
    return out;
  }

  /* "North: the computer (level 3)" beside the players, when the computer plays a side. */
  function renderSeats() {
    const box = $("#seats");
    box.innerHTML = "";
    box.hidden = !Object.keys(live.seats || {}).length;
    if (box.hidden) return;
    for (const side of sidesOf()) {
      const seat = seatOf(side), n = levelOf(seat);
      const span = document.createElement("span");
      span.className = `seat ${n ? "computer" : "person"}`;
      span.dataset.side = side;
      span.textContent = n ? t("{player}: the computer (level {n})", { player: t(cap(side)), n })
        : t("{player}: a person", { player: t(cap(side)) });
      box.append(span);
    }
  }

  /* The computer's turn (thinking, then each step to carry out by hand, the ones done ticked)
     or a hint; the put-back's "then make the computer's move"; an undo that took its reply. */
  function renderComputer() {
    const card = $("#computer");
    const admin = window.TR.session.admin;
    const c = mine(live.computer) ? live.computer : null;
    const h = !c && mine(live.hint) ? live.hint : null;
    const hintBtn = $("#hint-btn");
    hintBtn.hidden = !admin || !!live.outcome || seatOf(live.to_move) !== "person";
    hintBtn.disabled = !!(h && h.thinking);
    const turn = c || h;
    card.hidden = !turn;
    card.innerHTML = "";
    if (turn) {
      const who = t(cap(turn.side));
      card.className = `card computer ${h ? "hint" : ""} ${turn.thinking ? "thinking" : ""}`;
      card.dataset.kind = h ? "hint" : "computer";
      const head = document.createElement("div");
      head.className = "headline";
      const sub = document.createElement("div");
      sub.className = "detail";
      card.append(head, sub);
      if (turn.thinking) {
        head.textContent = t("The computer is thinking…");
        sub.textContent = t("{player}: the computer (level {n})", { player: who, n: turn.level });
      } else {
        head.textContent = c ? t("Make the computer's move on the board")
          : t("Hint: what the computer (level {n}) would play", { n: turn.level });
        sub.textContent = c ? t("{player} (the computer, level {n}) plays:", { player: who, n: turn.level })
          : t("Not played: make your own move on the board");
        const ol = window.TR.turnSteps(turn.steps, turn.done, rt);
        const key = document.createElement("div");
        key.className = "key";
        key.innerHTML = `<span class="k-lift">${esc(t("lift from here"))}</span><span class="k-place">${esc(t("put down here"))}</span>`;
        card.append(ol, key);
      }
    }
    const st = live.board_status || { kind: "ok" };
    const dec = $("#decision");
    if (c && !c.thinking && c.repeated && st.kind === "illegal") {
      const p = document.createElement("p");
      p.className = "then-computer";
      p.textContent = t("then make the computer's move: {moves}",
        { moves: c.steps.slice(c.done || 0).map((s) => `${s.move} (${rt(s.description)})`).join("; ") });
      dec.append(p);
    }
    const last = live.last || {};
    if (last.kind === "taken_back" && last.reply && st.kind !== "ambiguous") {
      dec.querySelector(".headline").textContent = t("Took back your move and the computer's reply");
      if (!dec.querySelector(".detail")) {
        const d = document.createElement("div");
        d.className = "detail";
        d.textContent = `${last.move}, ${last.reply}`;
        dec.querySelector(".headline").after(d);
      }
      const items = st.kind === "illegal" ? handText(st) : [];
      if (items.length && !dec.querySelector("ul")) {
        const ul = document.createElement("ul");
        for (const i of items) { const li = document.createElement("li"); li.textContent = i; ul.append(li); }
        dec.append(ul);
      }
    }
  }

  /* The new-game dialog's seats: each side of the chosen game (DRIFT: the colours of its
     players option) a person here or the computer at a level. */
  function dialogSides() {
    const g = games.find((x) => x.name === $("#ng-game").value);
    if (!g) return [];
    if (g.options.players) {
      const input = $("#ng-opt-players");
      const text = (input && input.value.trim()) || String(g.options.players.default || "");
      const sides = text.split(",").map((p) => p.split(":")[0].trim().toLowerCase()).filter(Boolean);
      if (sides.length) return sides;
    }
    return g.players;
  }

  async function fillSeats() {
    if (!levels.length) {
      try { levels = await (await fetch("/api/levels")).json(); } catch (e) { levels = []; }
    }
    const box = $("#ng-seat-rows");
    const was = {};
    for (const sel of box.querySelectorAll("select")) was[sel.name] = sel.value;
    box.innerHTML = "";
    const same = $("#ng-game").value === live.game;
    for (const side of dialogSides()) {
      const label = document.createElement("label");
      label.htmlFor = `ng-seat-${side}`;
      label.textContent = t(cap(side));
      const sel = document.createElement("select");
      sel.id = `ng-seat-${side}`;
      sel.name = side;
      const person = new Option(t("a person here"), "person");
      sel.append(person);
      for (const lv of levels) {
        const o = new Option(t("the computer, level {n} ({name})", { n: lv.number, name: t(lv.name) }), `computer:${lv.number}`);
        o.title = t(lv.description);
        sel.append(o);
      }
      sel.value = was[side] || (same && (live.seats || {})[side]) || "person";
      if (!sel.value) sel.value = "person";
      box.append(label, sel);
    }
  }

  function dialogSeats() {
    const seats = {};
    for (const sel of $("#ng-seat-rows").querySelectorAll("select")) seats[sel.name] = sel.value;
    return seats;
  }

  /* -- the event stream --------------------------------------------------------------------- */

  function render() {
    if (!live) return;
    renderStatus();
    renderDecision();
    renderUnseen();
    renderControls();
    renderSeats();
    renderComputer();
    if (window.TRTeach) window.TRTeach.render(live, renderBoard);
    if (window.TRLesson) window.TRLesson.render(live);
    if (window.TRClock) window.TRClock.render(live);  // the game clock (clock.js)
    if (window.TRRemote) window.TRRemote.render(live);  // another table (remote.js)
    renderLists();
    renderBoard();
    renderSim();
  }

  function connect() {
    const es = new EventSource("/api/events");
    const take = (ev) => {
      live = JSON.parse(ev.data).live;
      document.body.dataset.eventId = ev.lastEventId;
      $("#conn").hidden = true;
      render();
    };
    for (const kind of ["snapshot", "decision", "board", "source"]) es.addEventListener(kind, take);
    // EventSource reconnects by itself, sending Last-Event-ID: missed events are replayed.
    // It gives up on an answer that is not a stream (a 503: the table's viewers are full):
    // try again after the Retry-After the server asks for (web/stream.py).
    es.onerror = () => {
      $("#conn").hidden = false;
      if (es.readyState === EventSource.CLOSED) setTimeout(connect, 10000);
    };
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("#undo").addEventListener("click", () => act("/api/undo"));
    $("#new-game").addEventListener("click", openNewGame);
    $("#ng-game").addEventListener("change", () => { fillOptions(); fillSeats(); });
    $("#ng-options").addEventListener("input", (e) => { if (e.target.name === "players") fillSeats(); });
    $("#hint-btn").addEventListener("click", () => act("/api/hint", {}));
    $("#ng-form").addEventListener("submit", submitNewGame);
    $("#ng-cancel").addEventListener("click", () => $("#newgame-dialog").close());
    $("#hand-over").addEventListener("change", (e) => simAct("hand_over", { over: e.target.checked }));
    $("#sim-reset").addEventListener("click", () => simAct("reset", {}, true));
    $("#discard").addEventListener("click", () => simAct("discard", {}));
    window.TR.onSession(() => render());
    connect();
  });
})();
