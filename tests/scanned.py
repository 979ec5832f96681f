"""Scanned pages for tests: text drawn on an image with noise, saved as an image-only PDF."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

import numpy as np

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"


def make_scanned_pdf(
    path: Path,
    pages: Sequence[Sequence[str]],
    *,
    dpi: int = 200,
    size_in: tuple[float, float] = (6.0, 3.0),
    noise: float = 10.0,
    seed: int = 0,
) -> Path:
    """One image-only page per list of lines (12 pt text at `dpi`, Gaussian noise, JPEG)."""
    from PIL import Image, ImageDraw, ImageFont

    path.parent.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    font = ImageFont.truetype(FONT, round(12 * dpi / 72))
    images = []
    width, height = round(size_in[0] * dpi), round(size_in[1] * dpi)
    for lines in pages:
        image = Image.new("L", (width, height), 255)
        draw = ImageDraw.Draw(image)
        y = dpi // 3
        for line in lines:
            draw.text((dpi // 3, y), line, fill=0, font=font)
            y += round(20 * dpi / 72)
        pixels = np.asarray(image, dtype=np.float32) + rng.normal(0, noise, (height, width))
        image = Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8), "L")
        buffer = io.BytesIO()
        image.save(buffer, "JPEG", quality=80)
        images.append(Image.open(io.BytesIO(buffer.getvalue())))
    images[0].save(str(path), "PDF", save_all=True, append_images=images[1:], resolution=dpi)
    return path


def make_noise_pdf(path: Path, *, dpi: int = 100, seed: int = 0) -> Path:
    """An image-only page of pure noise: nothing on it is words."""
    from PIL import Image

    rng = np.random.default_rng(seed)
    pixels = rng.integers(0, 256, (dpi * 4, dpi * 5), dtype=np.uint8)
    Image.fromarray(pixels, "L").save(str(path), "PDF", resolution=dpi)
    return path
