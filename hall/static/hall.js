// The hall's live views: one EventSource per page; each snapshot updates the text in place.
"use strict";
const $ = (id) => document.getElementById(id);
let clockOffset = 0;   // hall clock minus this browser's clock, seconds

function setText(el, text) {
  if (el && el.textContent !== String(text)) el.textContent = text;
}

function setClass(el, name) {
  if (el && el.className !== name) el.className = name;
}

// Keep one child per key, in order; make new ones, update all, drop the rest.
function rows(box, items, key, make, update) {
  const old = new Map();
  for (const c of Array.from(box.children)) old.set(c.dataset.key, c);
  items.forEach((it, i) => {
    const k = String(key(it));
    let el = old.get(k);
    if (el) old.delete(k); else { el = make(it); el.dataset.key = k; }
    update(el, it);
    if (box.children[i] !== el) box.insertBefore(el, box.children[i] || null);
  });
  for (const el of old.values()) el.remove();
}

function el(tag, cls, ...kids) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  for (const k of kids) e.appendChild(typeof k === "string" ? document.createTextNode(k) : k);
  return e;
}

// Listen to the hall; show "Reconnecting" while the link is down (EventSource retries).
function live(url, render, onSignin) {
  const banner = $("status");
  let es;
  function open() {
    es = new EventSource(url);
    es.onopen = () => { banner.hidden = true; document.body.classList.remove("reconnecting"); };
    es.onmessage = (m) => {
      const s = JSON.parse(m.data);
      clockOffset = s.now ? s.now - Date.now() / 1000 : 0;
      window.hallSnapshot = s;
      banner.hidden = true;
      document.body.classList.remove("reconnecting");
      render(s);
      window.hallRendered = (window.hallRendered || 0) + 1;
    };
    es.addEventListener("signin", () => { es.close(); if (onSignin) onSignin(); });
    es.onerror = () => {
      setText(banner, "Reconnecting to the hall…");
      banner.hidden = false;
      document.body.classList.add("reconnecting");
      if (es.readyState === EventSource.CLOSED) setTimeout(open, 1000);
    };
  }
  open();
  return () => es.close();
}

function clockText(round) {
  if (!round.ends_at) return "";
  const left = Math.max(0, Math.round(round.ends_at - (Date.now() / 1000 + clockOffset)));
  return Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0");
}

const SEAT = {N: "North", E: "East", S: "South", W: "West"};
const STATE = {live: "live", stale: "no news", offline: "offline", missing: "result missing",
               done: "finished", waiting: "waiting"};

function roundWords(s) {
  const r = s.round;
  if (!r.number) return "Not started";
  const st = r.state === "over" ? "final" : r.state === "closed" ? "closed" : "";
  return `Round ${r.number} of ${s.night.rounds}` + (st ? ` · ${st}` : "");
}
