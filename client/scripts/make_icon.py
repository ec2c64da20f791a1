"""Draw the extension's icon, client/resources/icon.png: the graph glyph of
client/resources/tf-insight.svg in white on an orange rounded square, 128x128, drawn 4x larger
and scaled down. Run from the repository root: .venv/bin/python client/scripts/make_icon.py
(Pillow)."""

from __future__ import annotations

from PIL import Image, ImageDraw

SCALE = 512 / 24  # the glyph's 24-unit grid on a 512-pixel canvas
WHITE = "#FFFFFF"
WIDTH = int(1.6 * SCALE)


def main() -> None:
    image = Image.new("RGBA", (512, 512), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle([0, 0, 511, 511], radius=int(4 * SCALE), fill="#E8710A")

    def box(x: float, y: float, r: float) -> list[float]:
        return [(x - r) * SCALE, (y - r) * SCALE, (x + r) * SCALE, (y + r) * SCALE]

    for x, y in ((5, 6), (5, 18), (13, 12)):
        draw.ellipse(box(x, y, 2), outline=WHITE, width=WIDTH)
    for x1, y1, x2, y2 in ((7, 6.8, 11.2, 11), (7, 17.2, 11.2, 13), (15, 12, 17.5, 12)):
        draw.line([x1 * SCALE, y1 * SCALE, x2 * SCALE, y2 * SCALE], fill=WHITE, width=WIDTH)
        for x, y in ((x1, y1), (x2, y2)):  # round caps
            draw.ellipse(box(x, y, 0.8), fill=WHITE)
    draw.ellipse(box(19.5, 12, 2.5), fill=WHITE)  # the last node, filled: where the path ends
    image.resize((128, 128), Image.LANCZOS).save("client/resources/icon.png", optimize=True)


if __name__ == "__main__":
    main()
