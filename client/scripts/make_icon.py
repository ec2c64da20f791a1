# Run from the repository root with the venv's Python (Pillow): .venv/bin/python client/scripts/make_icon.py
# Draws the extension's 128x128 icon (the graph glyph of client/resources/tf-insight.svg, in
# white on an orange rounded square), 4x supersampled.
from PIL import Image, ImageDraw
S = 512 / 24
img = Image.new("RGBA", (512, 512), (0, 0, 0, 0))
d = ImageDraw.Draw(img)
d.rounded_rectangle([0, 0, 511, 511], radius=int(4 * S), fill="#E8710A")
w = int(1.6 * S)
white = "#FFFFFF"
def circle(cx, cy, r):
    d.ellipse([(cx - r) * S, (cy - r) * S, (cx + r) * S, (cy + r) * S], outline=white, width=w)
def line(x1, y1, x2, y2):
    d.line([x1 * S, y1 * S, x2 * S, y2 * S], fill=white, width=w)
    for x, y in ((x1, y1), (x2, y2)):
        d.ellipse([x * S - w / 2, y * S - w / 2, x * S + w / 2, y * S + w / 2], fill=white)
circle(5, 6, 2); circle(5, 18, 2); circle(13, 12, 2)
line(7, 6.8, 11.2, 11); line(7, 17.2, 11.2, 13); line(15, 12, 17.5, 12)
# the last node, filled: where the path ends
d.ellipse([(19.5 - 2.5) * S, (12 - 2.5) * S, (19.5 + 2.5) * S, (12 + 2.5) * S], fill=white)
img.resize((128, 128), Image.LANCZOS).save("client/resources/icon.png", optimize=True)
