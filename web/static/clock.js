/* The game clock (issue 34; docs/clock.md): every player's time, large — a phone laid beside the
   board is the clock — the running one highlighted and counted down here between the referee's
   words (each snapshot has the times as the service sent it); the admin's pause and resume
   (POST /api/clock). live.js calls render() with each snapshot. */
"use strict";
(function () {
  const { $, act, t } = window.TR;
  let shown = null;
  let got = 0; // when the snapshot came (performance.now())
  let timer = null;
  let sides = "";

  /* m:ss (h:mm:ss from an hour; tenths under ten seconds), as tableref.clock.clock_text. */
  function text(ms) {
    if (ms <= 0) return "0:00";
    if (ms < 10000) return "0:0" + Math.floor(ms / 1000) + "." + Math.floor((ms % 1000) / 100);
    const secs = Math.ceil(ms / 1000);
    const h = Math.floor(secs / 3600), m = Math.floor((secs % 3600) / 60), s = secs % 60;
    const ss = String(s).padStart(2, "0");
    return h ? h + ":" + String(m).padStart(2, "0") + ":" + ss : m + ":" + ss;
  }

  function left(side) {
    let ms = shown.times[side];
    if (side === shown.running && !shown.paused && !shown.flagged) ms -= performance.now() - got;
    return ms;
  }

  function draw() {
    const box = $("#clock");
    if (!box || !shown) return;
    for (const face of box.querySelectorAll(".face")) {
      const side = face.dataset.side;
      const ms = left(side);
      face.querySelector(".time").textContent = text(ms);
      face.classList.toggle("running", side === shown.running && !shown.paused && !shown.flagged);
      face.classList.toggle("low", ms < 10000);
      face.classList.toggle("flagged", side === shown.flagged);
    }
  }

  function render(live) {
    const box = $("#clock");
    if (!box) return;
    shown = live.clock;
    got = performance.now();
    if (!shown) {
      box.hidden = true;
      sides = "";
      return;
    }
    box.hidden = false;
    const names = (live.names && live.names.players) || {};
    const key = Object.keys(shown.times).join(" ") + JSON.stringify(names);
    if (key !== sides) {  // the faces once per game: the times change in place
      sides = key;
      box.querySelector(".faces").innerHTML = "";
      for (const side of Object.keys(shown.times)) {
        const face = document.createElement("div");
        face.className = "face";
        face.dataset.side = side;
        const who = document.createElement("div");
        who.className = "who";
        who.textContent = names[side] || window.TR.title(side);
        const time = document.createElement("div");
        time.className = "time";
        face.append(who, time);
        box.querySelector(".faces").append(face);
      }
    }
    const said = box.querySelector(".said");
    let line = "";
    if (shown.flagged) line = t("{player} lost on time", { player: names[shown.flagged] || window.TR.title(shown.flagged) });
    else if (shown.paused) line = t("Clock paused");
    else if (shown.off_ms) line = t("The service was off for {time}: nobody's clock ran meanwhile", { time: text(shown.off_ms) });
    said.textContent = line;
    said.hidden = !line;
    const btn = box.querySelector(".pause");
    btn.hidden = !window.TR.session.admin || !!shown.flagged;
    btn.textContent = shown.paused ? t("Resume the clock") : t("Pause the clock");
    btn.dataset.action = shown.paused ? "resume" : "pause";
    draw();
    if (!timer) timer = setInterval(draw, 100);
  }

  document.addEventListener("DOMContentLoaded", () => {
    const btn = document.querySelector("#clock .pause");
    if (btn) btn.addEventListener("click", () => act("/api/clock", { action: btn.dataset.action }));
  });

  window.TRClock = { render, text };
})();
