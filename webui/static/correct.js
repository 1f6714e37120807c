// The correction editor: edit a copy of the position, let the server draw it, then apply it.
"use strict";

const csrfToken = document.querySelector('meta[name="csrf-token"]').content;
const $ = (id) => document.getElementById(id);
const draft = JSON.parse($("position").textContent);
const pieceset = JSON.parse($("pieceset").textContent) || {};
let selected = null; // what the player tapped: {stack, disc} or {pit}, as the drawing's data attributes say
// The game's own script (correct-GAME.js, loaded after this one) fills these in.
const editor = {
  describe() {}, // show what is selected in the tools
  afterRedraw() {}, // refresh the tools' totals after the board changed
  // The server draws only positions the game allows; a draft on its way to one (47 seeds while a
  // seed is moved) shows in the current drawing as far as the game's script can show it.
  showDraft() {},
};

async function post(url, body) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": csrfToken },
    body: JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
  return data;
}

function say(text, bad) {
  $("message").textContent = text;
  $("message").style.color = bad ? "var(--illegal)" : "var(--legal)";
}

async function redraw() {
  try {
    const { svg } = await post("/api/board", { state: draft });
    $("board").innerHTML = svg;
    say("", false); // what was wrong with the draft before is put right
    markSelection();
    editor.afterRedraw();
  } catch (error) {
    say(error.message, true);
    editor.showDraft();
    markSelection();
  }
}

function markSelection() {
  document.querySelectorAll("#board .selected").forEach((el) => el.classList.remove("selected"));
  if (!selected) return;
  const query = "pit" in selected ? `[data-pit="${selected.pit}"]` : `[data-stack="${selected.stack}"][data-disc="${selected.disc}"]`;
  const element = document.querySelector("#board " + query);
  if (element) element.classList.add("selected");
  editor.describe();
}

// --- Wiring ---------------------------------------------------------------------------------
$("board").addEventListener("click", (event) => {
  const target = event.target.closest("[data-pit], [data-stack]");
  if (!target) return;
  selected = target.dataset.pit !== undefined
    ? { pit: Number(target.dataset.pit) }
    : { stack: Number(target.dataset.stack), disc: Number(target.dataset.disc) };
  markSelection();
});

$("to-move").addEventListener("change", (event) => {
  draft.to_move = JSON.parse(event.target.value);
});

$("apply").addEventListener("click", async () => {
  try {
    await post("/api/correct", { state: draft });
    say("Correction applied. Back to the table…", false);
    setTimeout(() => { window.location.href = "/table"; }, 600);
  } catch (error) {
    say(error.message, true);
  }
});
