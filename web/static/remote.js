/* A game with another table (issue 34, part 2; docs/remote.md): the other table's move to carry
   out here (or that this table waits for it), the link's state, and the admin's "Invite a table"
   and "Join". live.js calls render() with each snapshot and draws what turns() returns. */
"use strict";
(function () {
  const { $, act, t } = window.TR;
  const cap = window.TR.title;
  let live = null;
  let built = false;

  function rt(s) {
    const lang = document.documentElement.lang || "en";
    const words = (live && live.i18n && live.i18n[lang]) || {};
    return words[s] || s;
  }

  const turnOf = (snap) => {
    const r = snap.remote && snap.remote.turn;
    return r && !snap.outcome && r.side === snap.to_move ? r : null;
  };

  /* What the board draws: the other table's move still to make here. */
  function turns(snapshot) {
    live = snapshot;
    const r = turnOf(live);
    return r && !r.waiting ? [{ steps: r.steps, done: r.done, kind: "computer" }] : [];
  }

  function build() {
    if (built) return;
    built = true;
    $("#remote-link .title").textContent = t("Another table");
    $("#remote-side-label").textContent = t("They play");
    $("#remote-invite").textContent = t("Invite a table");
    $("#remote-join").textContent = t("Join");
    $("#remote-code").placeholder = t("Code from the other table (e.g. table-a K7M4QX)");
    $("#remote-invite").addEventListener("click", async () => {
      const done = await act("/api/remote/invite", { sides: [$("#remote-side").value] });
      if (done) render(live);
    });
    $("#remote-join").addEventListener("click", () => join($("#remote-code").value));
    const asked = new URLSearchParams(window.location.search).get("join");
    if (asked) $("#remote-code").value = asked;  // a link from the other table: ?join=table-a+K7M4QX
  }

  async function join(code) {
    if (code.trim()) await act("/api/remote/join", { code: code.trim() });
  }

  function renderTurn() {
    const card = $("#remote");
    const r = turnOf(live);
    card.hidden = !r;
    card.innerHTML = "";
    if (!r) return;
    const who = t(cap(r.side));
    card.className = `card computer remote ${r.waiting ? "thinking" : ""}`;
    card.dataset.kind = r.waiting ? "waiting" : "remote";
    const head = document.createElement("div");
    head.className = "headline";
    const sub = document.createElement("div");
    sub.className = "detail";
    card.append(head, sub);
    if (r.waiting) {
      head.textContent = t("Waiting for {table}'s move…", { table: r.table });
      sub.textContent = t("{player}: {table}", { player: who, table: r.table });
      return;
    }
    head.textContent = t("Make {table}'s move on the board", { table: r.table });
    sub.textContent = t("{player} ({table}) plays:", { player: who, table: r.table });
    card.append(window.TR.turnSteps(r.steps, r.done, rt));
  }

  function renderLink() {
    const box = $("#remote-link");
    const link = live.remote && live.remote.link;
    box.hidden = !link;
    if (!link) return;
    build();
    const admin = window.TR.session.admin;
    const lines = [t("This table: {table}", { table: link.table })];
    if (link.peer && link.over) {
      lines.push(t("The match with {table} is over", { table: link.peer }));
      if (link.unacknowledged) lines.push(t("{n} moves not yet confirmed by {table}", { n: link.unacknowledged, table: link.peer }));
    } else if (link.peer) {
      lines.push(link.state === "connected" ? t("Playing {table}: connected", { table: link.peer })
        : t("Playing {table}: the link is down; every move is kept and sent when it is back", { table: link.peer }));
      if (link.unacknowledged) lines.push(t("{n} moves not yet confirmed by {table}", { n: link.unacknowledged, table: link.peer }));
    } else if (link.state !== "connected") {
      lines.push(link.detail || link.state);
    }
    if (link.joining) lines.push(t("Asking {table} for its game…", { table: link.joining.split(" ")[0] }));
    if (link.refused) lines.push(t("Refused: {reason}", { reason: link.refused }));
    const state = box.querySelector(".state");
    state.textContent = lines.join(" · ");
    box.dataset.state = link.state;
    const code = box.querySelector(".code");
    code.hidden = !link.invite;
    if (link.invite) {
      const url = `${window.location.origin}/?join=${encodeURIComponent(link.invite)}`;
      code.textContent = `${t("Read this code to the other table: {code}", { code: link.invite })} ${t("Or send this link: {link}", { link: url })}`;
      code.dataset.code = link.invite;
    }
    $("#remote-controls").hidden = !admin || (!!link.peer && !link.over && !live.outcome);
    const sel = $("#remote-side");
    const sides = live.players || [];
    if (sel.dataset.sides !== sides.join(",")) {
      sel.innerHTML = "";
      for (const s of sides) sel.append(new Option(t(cap(s)), s));
      sel.value = sides[sides.length - 1] || "";
      sel.dataset.sides = sides.join(",");
    }
  }

  /* "North: table-b" beside the players, for the sides another table plays. */
  function renderSeats() {
    for (const [side, seat] of Object.entries(live.seats || {})) {
      const m = /^remote:([^:]+):/.exec(seat);
      const span = document.querySelector(`#seats .seat[data-side="${side}"]`);
      if (m && span) {
        span.className = "seat remote";
        span.textContent = t("{player}: {table}", { player: t(cap(side)), table: m[1] });
      }
    }
  }

  function render(snapshot) {
    live = snapshot;
    renderTurn();
    renderLink();
    renderSeats();
  }

  window.TRRemote = { render, turns };
})();
