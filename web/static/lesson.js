/* A first lesson (issue 31, item 3; docs/teaching.md): the step to make (what to do, what just
   happened, the move drawn on the board) from the snapshot's lesson, said by the referee; the
   "First lesson" button of the new-game dialog (POST /api/lesson) and "Stop the lesson".
   live.js calls render() with each snapshot and draws what turns() returns on its board. */
"use strict";
(function () {
  const { $, act, t } = window.TR;
  let live = null;
  let closed = null; // the finished lesson the reader closed (its text), until another

  function rt(s) {
    const lang = document.documentElement.lang || "en";
    const words = (live && live.i18n && live.i18n[lang]) || {};
    return words[s] || s;
  }

  /* What the board draws: the step's moves still to make. */
  function turns(snapshot) {
    live = snapshot;
    const l = live.lesson;
    if (!l || l.finished || !(l.steps || []).length) return [];
    return [{ steps: l.steps, done: l.done || 0, kind: "lesson" }];
  }

  function para(cls, text) {
    const p = document.createElement("p");
    p.className = cls;
    p.textContent = text;
    return p;
  }

  function render(snapshot) {
    live = snapshot;
    const card = $("#lesson");
    const l = live.lesson;
    const admin = window.TR.session.admin;
    const btn = $("#ng-lesson");
    if (btn) btn.hidden = !admin;
    if (!l || (l.finished && closed === l.end + l.then)) {
      card.hidden = true;
      return;
    }
    card.hidden = false;
    card.innerHTML = "";
    card.dataset.step = l.finished ? "done" : String(l.number);
    card.dataset.by = l.by || "";
    const head = document.createElement("div");
    head.className = "headline";
    head.textContent = l.finished ? t("Lesson done") : t("Lesson: step {n} of {count}", { n: l.number, count: l.count });
    card.append(head);
    if (l.then) {
      const was = para("then", "");
      const b = document.createElement("strong");
      b.textContent = t("What just happened") + " ";
      was.append(b, document.createTextNode(rt(l.then)));
      card.append(was);
    }
    if (l.finished) {
      card.append(para("end", rt(l.end)));
      const close = document.createElement("button");
      close.type = "button";
      close.id = "lesson-close";
      close.textContent = t("Close");
      close.addEventListener("click", () => { closed = l.end + l.then; render(live); });
      card.append(close);
      return;
    }
    if (l.repeated && l.wrong) {
      const w = para("wrong", "");
      const b = document.createElement("strong");
      b.textContent = t("Not this step") + " ";
      w.append(b, document.createTextNode(rt(l.wrong)));
      card.append(w);
    }
    card.append(para("who", l.by === "you" ? t("Your move") : t("The other side's move: make it on the board")));
    card.append(para("do", rt(l.do)));
    if ((l.steps || []).length) {
      const ol = window.TR.turnSteps(l.steps, l.done, rt);
      card.append(ol);
    }
    if (admin) {
      const stop = document.createElement("button");
      stop.type = "button";
      stop.id = "lesson-stop";
      stop.textContent = t("Stop the lesson");
      stop.addEventListener("click", () => act("/api/lesson/stop"));
      card.append(stop);
    }
  }

  async function start() {
    const game = $("#ng-game").value;
    const done = await act("/api/lesson", { game });
    if (done) $("#newgame-dialog").close();
  }

  document.addEventListener("DOMContentLoaded", () => {
    const btn = $("#ng-lesson");
    if (btn) btn.addEventListener("click", start);
  });

  window.TRLesson = { render, turns };
})();
