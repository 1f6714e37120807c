// The correction editor: edit a copy of the position, let the server draw it, then apply it.
"use strict";

const csrfToken = document.querySelector('meta[name="csrf-token"]').content;
const $ = (id) => document.getElementById(id);
const draft = JSON.parse($("position").textContent);
const pieceset = JSON.parse($("pieceset").textContent) || {};
let selected = null; // {stack, disc} for Varanasi, {pit} for Wari

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
    markSelection();
    if (draft.game === "wari") showTotal();
  } catch (error) {
    say(error.message, true);
  }
}

function markSelection() {
  document.querySelectorAll("#board .selected").forEach((el) => el.classList.remove("selected"));
  if (!selected) return;
  const query = "pit" in selected ? `[data-pit="${selected.pit}"]` : `[data-stack="${selected.stack}"][data-disc="${selected.disc}"]`;
  const element = document.querySelector("#board " + query);
  if (element) element.classList.add("selected");
  describeSelection();
}

function showTotal() {
  $("total").textContent = [...draft.pits, ...draft.stores].reduce((a, b) => a + b, 0);
}

// --- Varanasi -----------------------------------------------------------------------------
function selectedCode() {
  return draft.stacks[selected.stack][selected.disc];
}

function describeSelection() {
  if (draft.game === "wari") {
    $("selection").textContent = `${selected.pit < 6 ? "South" : "North"} ${"abcdef"[selected.pit % 6]}`;
    $("count").textContent = draft.pits[selected.pit];
    return;
  }
  const code = selectedCode();
  $("selection").textContent = `Tower ${selected.stack + 1}, disc ${selected.disc + 1} from the bottom: ${code}`;
  document.querySelectorAll("#colours .swatch").forEach((b) => b.setAttribute("aria-pressed", String(b.dataset.colour === code.slice(1))));
  document.querySelectorAll("#sizes .size").forEach((b) => b.setAttribute("aria-pressed", String(b.dataset.size === code[0])));
}

function setCode(size, colour) {
  draft.stacks[selected.stack][selected.disc] = `${size}${colour}`;
  redraw();
}

function firstColour() {
  return Object.keys(pieceset.colours || {})[0] || "red";
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

if (draft.game === "varanasi") {
  document.querySelectorAll("#colours .swatch").forEach((button) => button.addEventListener("click", () => {
    if (selected) setCode(selectedCode()[0], button.dataset.colour);
  }));
  document.querySelectorAll("#sizes .size").forEach((button) => button.addEventListener("click", () => {
    if (selected) setCode(button.dataset.size, selectedCode().slice(1));
  }));
  $("add-disc").addEventListener("click", () => {
    if (!selected) return;
    const stack = draft.stacks[selected.stack];
    stack.push(`1${firstColour()}`);
    selected = { stack: selected.stack, disc: stack.length - 1 };
    redraw();
  });
  $("remove-disc").addEventListener("click", () => {
    if (!selected) return;
    draft.stacks[selected.stack].splice(selected.disc, 1);
    draft.stacks = draft.stacks.filter((stack) => stack.length);
    selected = null;
    $("selection").textContent = "Tap a disc.";
    redraw();
  });
  $("new-tower").addEventListener("click", () => {
    draft.stacks.push([`1${firstColour()}`]);
    selected = { stack: draft.stacks.length - 1, disc: 0 };
    redraw();
  });
} else {
  const step = (delta) => {
    if (!selected) return;
    draft.pits[selected.pit] = Math.max(0, draft.pits[selected.pit] + delta);
    redraw();
  };
  showTotal();
  $("minus").addEventListener("click", () => step(-1));
  $("plus").addEventListener("click", () => step(+1));
  ["south", "north"].forEach((side, index) => {
    const input = $("store-" + side);
    input.value = draft.stores[index];
    input.addEventListener("change", () => { draft.stores[index] = Math.max(0, Number(input.value) || 0); redraw(); });
  });
}

$("to-move").addEventListener("change", (event) => {
  const value = event.target.value;
  draft.to_move = draft.game === "wari" ? value : Number(value);
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
