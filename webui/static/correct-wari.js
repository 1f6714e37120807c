// The correction tools for Wari (correct.html's games/wari_correct.html): after correct.js.
"use strict";

function showTotal() {
  $("total").textContent = [...draft.pits, ...draft.stores].reduce((a, b) => a + b, 0);
}

editor.describe = () => {
  $("selection").textContent = `${selected.pit < 6 ? "South" : "North"} ${"abcdef"[selected.pit % 6]}`;
  $("count").textContent = draft.pits[selected.pit];
};
editor.afterRedraw = showTotal;
editor.showDraft = () => {
  const show = (selector, count) => {
    const text = document.querySelector(`#board ${selector} text.count`);
    if (text) text.textContent = count;
  };
  draft.pits.forEach((count, pit) => show(`[data-pit="${pit}"]`, count));
  draft.stores.forEach((count, side) => show(`[data-store="${side}"]`, count));
  showTotal();
};

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
