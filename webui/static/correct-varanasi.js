// The correction tools for Varanasi (correct.html's games/varanasi_correct.html): after correct.js.
"use strict";

function selectedCode() {
  return draft.stacks[selected.stack][selected.disc];
}

function setCode(size, colour) {
  draft.stacks[selected.stack][selected.disc] = `${size}${colour}`;
  redraw();
}

function firstColour() {
  return Object.keys(pieceset.colours || {})[0] || "red";
}

editor.describe = () => {
  const code = selectedCode();
  $("selection").textContent = `Tower ${selected.stack + 1}, disc ${selected.disc + 1} from the bottom: ${code}`;
  document.querySelectorAll("#colours .swatch").forEach((b) => b.setAttribute("aria-pressed", String(b.dataset.colour === code.slice(1))));
  document.querySelectorAll("#sizes .size").forEach((b) => b.setAttribute("aria-pressed", String(b.dataset.size === code[0])));
};

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
