"""Judging a change seen on a Varanasi table: the legal move that makes it, or the reason none does.

The reasons are in table words ("3 orange was declared but is still on top of ..."), since the
companion shows them to players as they are.
"""
from __future__ import annotations

from engines.base import Explanation
from engines.varanasi import Relocate, Take, VaranasiRules, VaranasiState, listing, parse_disc, tower_name


def explain_change(rules: VaranasiRules, before: VaranasiState, after: VaranasiState) -> Explanation:
    """Every legal move turning `before` into `after` (towers as a multiset), or why none does.

    `after` is the table as the camera saw it (a disc may lie on a smaller one).
    """
    was, now = before.supports, after.supports
    appeared = now.keys() - was.keys()
    vanished = was.keys() - now.keys()
    if appeared:
        also = f"; {listing(vanished)} vanished" if vanished else ""
        return Explanation(False, reason=f"discs appeared: {listing(appeared)}{also}")
    if vanished:
        return explain_take(before, after, vanished)
    moved = [disc for disc, support in now.items() if was[disc] != support]
    if not moved:
        return Explanation(False, reason="nothing changed")
    if len(moved) > 1:
        return Explanation(False, reason=_looks_like_several(moved))
    part = moved[0]
    onto = now[part]
    if onto is None:
        return Explanation(False, reason=f"{part} was set down as a new tower; "
                                         "a moved part must go onto another tower")
    # Only `part` changed what it rests on, so this one relocation makes exactly `after`.
    move = Relocate(part, onto)
    fault = rules.relocation_fault(before, move)
    return Explanation(False, reason=fault) if fault else Explanation(True, (move,))


def explain_take(before: VaranasiState, after: VaranasiState, vanished) -> Explanation:
    """A change in which discs vanished: one declared colour's top discs, and nothing else."""
    colours = sorted({d.colour for d in vanished})
    if len(colours) > 1:
        return Explanation(False, reason=f"{listing(vanished)} vanished; a take removes one colour only")
    colour = colours[0]
    places = before.places
    for disc in sorted(vanished):
        index, level = places[disc]
        tower = before.stacks[index]
        if level != len(tower) - 1:
            return Explanation(False, reason=f"{disc} was taken from under {tower[level + 1]}; "
                                             "a take removes only top discs")
    for tower in before.stacks:
        top = tower[-1]
        if top.colour == colour and top not in vanished:
            spot = f"{top} is still on the table" if len(tower) == 1 \
                else f"{top} is still on top of {tower_name(tower)}"
            return Explanation(False, reason=f"{colour} was declared but {spot}")
    was, now = before.supports, after.supports
    moved = [disc for disc, support in now.items() if was[disc] != support]
    if moved:
        return Explanation(False, reason=f"this looks like two moves: {colour} was taken "
                                         f"and {listing(moved)} moved")
    return Explanation(True, (Take(colour),))


def _looks_like_several(moved) -> str:
    count = "two moves" if len(moved) == 2 else "several moves"
    return f"this looks like {count}: {listing(moved)} each changed what they rest on"


def describe_difference(before: VaranasiState, after: VaranasiState) -> str:
    """What `after` holds that `before` does not and the reverse, disc by disc, in table words:
    "no 3red on 4red", "a 3purple under 2green"."""
    was, now = before.supports, after.supports
    words = []
    for disc in sorted(was.keys() - now.keys()):
        words.append(f"no {disc}" + (f" on {was[disc]}" if was[disc] is not None else ""))
    for disc in sorted(now.keys() - was.keys()):
        above = next((other for other, support in now.items() if support == disc), None)
        below = now[disc]
        where = f" under {above}" if above is not None else (f" on {below}" if below is not None else " alone")
        words.append(f"a {disc}{where}")
    for disc in sorted(d for d in was.keys() & now.keys() if was[d] != now[d]):
        if all(support is None or support in table for support, table in ((was[disc], now), (now[disc], was))):
            # not merely resting on a disc added or gone
            words.append(f"{disc} on {now[disc] or 'the table'}")
    return ", ".join(words) or "the same discs"


def out_of_play(before: VaranasiState, after: dict) -> str | None:
    """The discs the table `after` (contract JSON, as a camera read it) shows that `before` has no
    more, or None: every disc is on the table from the set-up on and a take puts discs out of play
    for good, so neither a move nor a slip brings one back."""
    shown = set()
    for stack in after.get("stacks", []) if isinstance(after, dict) else []:
        for code in stack if isinstance(stack, list) else []:
            try:
                shown.add(parse_disc(code, ValueError))
            except ValueError:  # not a disc code: nothing to say about it here
                continue
    back = shown - set(before.places)
    return listing(back) if back else None
