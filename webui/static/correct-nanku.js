// The correction tools for Nanku (correct.html's games/nanku_correct.html): after correct.js.
// A piece is picked by tapping one of its cubes or its line in the list; the list removes pieces
// or swaps their colours, and the form adds one. The mover follows the number of pieces, since
// White starts and nobody passes.
"use strict";

let chosenPiece = null; // index into draft.pieces

const cubeOf = (piece, colour) => piece.find((cube) => cube[3] === colour) || piece[colour === "white" ? 0 : 1];
const cubeWords = ([x, y, z]) => `x ${x}, y ${y}, level ${z + 1}`;

function pieceWords(piece) {
  const white = cubeOf(piece, "white");
  const black = cubeOf(piece, "black");
  const shape = white[2] === black[2] ? "lying" : "standing";
  return `white ${cubeWords(white)}; black ${cubeWords(black)} (${shape})`;
}

function followMover() {
  draft.to_move = draft.pieces.length % 2 ? "black" : "white";
  $("to-move").value = JSON.stringify(draft.to_move);
}

function markChosen() {
  document.querySelectorAll("#board .cube.selected").forEach((cube) => cube.classList.remove("selected"));
  if (chosenPiece !== null) {
    document.querySelectorAll(`#board [data-piece="${chosenPiece}"]`).forEach((cube) => cube.classList.add("selected"));
  }
  document.querySelectorAll("#pieces li").forEach((item, index) => {
    item.setAttribute("aria-current", String(index === chosenPiece));
  });
  editor.describe();
}

function button(label, onClick) {
  const element = document.createElement("button");
  element.type = "button";
  element.className = "secondary";
  element.textContent = label;
  element.addEventListener("click", (event) => { event.stopPropagation(); onClick(); });
  return element;
}

function changed() {
  followMover();
  listPieces();
  redraw();
}

function listPieces() {
  const list = $("pieces");
  list.replaceChildren();
  draft.pieces.forEach((piece, index) => {
    const item = document.createElement("li");
    const words = document.createElement("span");
    words.textContent = pieceWords(piece);
    item.append(words, button("Swap colours", () => {
      const [white, black] = [cubeOf(piece, "white"), cubeOf(piece, "black")];
      draft.pieces[index] = [[...black.slice(0, 3), "white"], [...white.slice(0, 3), "black"]];
      chosenPiece = index;
      changed();
    }), button("Remove", () => {
      draft.pieces.splice(index, 1);
      chosenPiece = chosenPiece === index ? null : chosenPiece > index ? chosenPiece - 1 : chosenPiece;
      changed();
    }));
    item.addEventListener("click", () => { chosenPiece = index; markChosen(); });
    list.append(item);
  });
  if (!draft.pieces.length) list.textContent = "No piece on the table.";
  markChosen();
}

function addPiece() {
  const [x, y, level] = ["add-x", "add-y", "add-level"].map((id) => Number($(id).value));
  if (![x, y, level].every(Number.isInteger) || level < 1) {
    say("Give whole numbers for x and y, and a level of 1 or more.", true);
    return;
  }
  const white = [x, y, level - 1];
  const black = $("add-direction").value.split(",").map(Number).map((step, axis) => white[axis] + step);
  if (black[2] < 0) {
    say("The black cube cannot go under a cube that lies on the table.", true);
    return;
  }
  const taken = new Set(draft.pieces.flat().map((cube) => cube.slice(0, 3).join(",")));
  const clash = [white, black].find((cell) => taken.has(cell.join(",")));
  if (clash) {
    say(`A cube is already at ${cubeWords(clash)}.`, true);
    return;
  }
  draft.pieces.push([[...white, "white"], [...black, "black"]]);
  chosenPiece = draft.pieces.length - 1;
  say("", false);
  changed();
}

editor.describe = () => {
  $("selection").textContent = chosenPiece === null
    ? "Tap a cube, or pick a piece from the list."
    : `Piece ${chosenPiece + 1}: ${pieceWords(draft.pieces[chosenPiece])}`;
};
editor.afterRedraw = markChosen;

$("board").addEventListener("click", (event) => {
  const cube = event.target.closest("[data-piece]");
  if (!cube) return;
  chosenPiece = Number(cube.dataset.piece);
  markChosen();
});
$("add-piece").addEventListener("click", addPiece);
listPieces();
