"""The Varanasi piece-set file (contract "Piece set"): sizes with diameters, colours with hints."""
from __future__ import annotations

from dataclasses import dataclass

from engines.errors import ArbiterError

DEFAULT_THICKNESS_MM = 5.0


@dataclass(frozen=True)
class PieceSet:
    """Sizes (smallest first) with their diameters, colour names with their nominal sRGB."""

    sizes: tuple[int, ...]
    diameters_mm: tuple[float, ...]
    colours: tuple[str, ...]
    hints_srgb: tuple[tuple[int, int, int], ...]
    thickness_mm: float = DEFAULT_THICKNESS_MM

    @classmethod
    def from_json(cls, obj) -> "PieceSet":
        if not isinstance(obj, dict) or obj.get("game") != "varanasi":
            raise ArbiterError('a piece-set file is an object with "game": "varanasi", "sizes" and "colours"')
        sizes_json, colours_json = obj.get("sizes"), obj.get("colours")
        if not isinstance(sizes_json, dict) or len(sizes_json) < 2:
            raise ArbiterError('piece set: "sizes" must map at least two size digits to {"diameter_mm": ...}')
        if not isinstance(colours_json, dict) or len(colours_json) < 1:
            raise ArbiterError('piece set: "colours" must map colour names to {"srgb": [r, g, b]}')
        sizes = []
        for key, value in sizes_json.items():
            diameter = value.get("diameter_mm") if isinstance(value, dict) else None
            if not (isinstance(key, str) and key.isdigit()) or not isinstance(diameter, (int, float)) or diameter <= 0:
                raise ArbiterError(f"piece set: size {key!r} needs a digit name and a positive diameter_mm")
            sizes.append((int(key), float(diameter)))
        sizes.sort()
        if any(b[1] <= a[1] for a, b in zip(sizes, sizes[1:])):
            raise ArbiterError("piece set: bigger size numbers must have bigger diameters")
        hints = []
        for name, value in colours_json.items():
            srgb = value.get("srgb") if isinstance(value, dict) else None
            if (
                not isinstance(name, str) or not name or name[0].isdigit()
                or not isinstance(srgb, list) or len(srgb) != 3
                or not all(isinstance(c, (int, float)) and 0 <= c <= 255 for c in srgb)
            ):
                raise ArbiterError(f"piece set: colour {name!r} needs a name not starting with a digit and \"srgb\": [r, g, b] in 0..255")
            hints.append(tuple(int(round(c)) for c in srgb))
        thickness = obj.get("thickness_mm", DEFAULT_THICKNESS_MM)
        if not isinstance(thickness, (int, float)) or thickness <= 0:
            raise ArbiterError("piece set: thickness_mm must be a positive number")
        return cls(
            sizes=tuple(s for s, _ in sizes),
            diameters_mm=tuple(d for _, d in sizes),
            colours=tuple(colours_json),
            hints_srgb=tuple(hints),
            thickness_mm=float(thickness),
        )

    def to_json(self) -> dict:
        return {
            "game": "varanasi",
            "thickness_mm": self.thickness_mm,
            "sizes": {str(s): {"diameter_mm": d} for s, d in zip(self.sizes, self.diameters_mm)},
            "colours": {n: {"srgb": list(h)} for n, h in zip(self.colours, self.hints_srgb)},
        }

    @property
    def radii_mm(self) -> tuple[float, ...]:
        return tuple(d / 2.0 for d in self.diameters_mm)

    def code(self, size: int, colour: str) -> str:
        return f"{size}{colour}"
