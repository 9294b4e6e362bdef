"""A small drawing kit for the games' ``rgb_array`` pictures (Pillow).

Each game's ``render.py`` draws its table with a :class:`Canvas` from what one seat may see
(its ``view``), so a picture never shows more than the view holds. Pillow draws text with the
font it carries inside the package (``ImageFont.load_default``), so no font file is needed, and
a frame takes a few milliseconds: fast enough to record every decision of a game.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

RGB = tuple[int, int, int]

BACKGROUND: RGB = (22, 94, 62)  # the green cloth
PANEL: RGB = (16, 72, 47)
INK: RGB = (245, 245, 240)
DIM: RGB = (170, 200, 180)
HIGHLIGHT: RGB = (255, 214, 80)
CARD_FACE: RGB = (250, 250, 246)
CARD_BACK: RGB = (120, 40, 60)
OUTLINE: RGB = (20, 20, 20)


@cache
def font(size: int) -> Any:
    """Pillow's own font at ``size`` pixels (its bitmap font where FreeType is missing)."""
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)
    except (TypeError, ImportError, OSError):  # Pillow < 10.1 or no FreeType
        return ImageFont.load_default()


def readable_on(fill: RGB) -> RGB:
    """Black or white, whichever reads better on ``fill``."""
    r, g, b = fill
    return OUTLINE if 0.299 * r + 0.587 * g + 0.114 * b > 150 else INK


class Canvas:
    """An RGB image with the few shapes a table needs; :meth:`array` is the frame."""

    def __init__(self, width: int, height: int, background: RGB = BACKGROUND):
        from PIL import Image, ImageDraw

        self.width, self.height = width, height
        self.image = Image.new("RGB", (width, height), background)
        self.draw = ImageDraw.Draw(self.image)

    def text(self, xy: tuple[float, float], text: str, fill: RGB = INK, size: int = 14,
             anchor: str = "la") -> None:
        self.draw.text(xy, text, fill=fill, font=font(size), anchor=anchor)

    def text_width(self, text: str, size: int = 14) -> float:
        return self.draw.textlength(text, font=font(size))

    def box(self, x: float, y: float, w: float, h: float, fill: RGB, outline: RGB | None = None,
            radius: int = 4, width: int = 1) -> None:
        self.draw.rounded_rectangle((x, y, x + w, y + h), radius=radius, fill=fill,
                                    outline=outline, width=width)

    def card(self, x: float, y: float, w: float, h: float, label: str, fill: RGB,
             size: int = 14, outline: RGB = OUTLINE, width: int = 1) -> None:
        """A face-up card: ``fill`` with ``label`` in its top-left corner and its centre."""
        self.box(x, y, w, h, fill, outline, radius=max(2, int(w) // 8), width=width)
        ink = readable_on(fill)
        self.text((x + 3, y + 2), label, ink, size=max(9, size * 2 // 3))
        self.text((x + w / 2, y + h / 2), label, ink, size=size, anchor="mm")

    def back(self, x: float, y: float, w: float, h: float) -> None:
        """A face-down card."""
        self.box(x, y, w, h, CARD_BACK, OUTLINE, radius=max(2, int(w) // 8))
        self.box(x + 3, y + 3, w - 6, h - 6, CARD_BACK, (200, 170, 120),
                 radius=max(2, int(w) // 10))

    def disc(self, cx: float, cy: float, r: float, fill: RGB, label: str = "",
             size: int = 11, outline: RGB = OUTLINE) -> None:
        self.draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=fill, outline=outline)
        if label:
            self.text((cx, cy), label, readable_on(fill), size=size, anchor="mm")

    def line(self, points: list[tuple[float, float]], fill: RGB = INK, width: int = 2) -> None:
        self.draw.line(points, fill=fill, width=width)

    def array(self) -> np.ndarray:
        """The picture as an ``(H, W, 3) uint8`` array (PettingZoo's ``rgb_array``)."""
        return np.asarray(self.image, dtype=np.uint8).copy()


def fan(count: int, start: float, room: float, card_width: float, step: float) -> list[float]:
    """x positions of ``count`` overlapping cards in ``room`` pixels, ``step`` apart at most."""
    if count <= 1:
        return [start] * count
    step = min(step, max(1.0, (room - card_width) / (count - 1)))
    return [start + i * step for i in range(count)]
