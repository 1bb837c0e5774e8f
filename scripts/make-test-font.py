#!/usr/bin/python3
"""Makes obfuscated web fonts for the tests of bookrule's web-font decoding, with the answer beside them.

Sites draw chapter text with a per-page font whose code points lie: qidian's map Private Use Area code points
to the glyphs of the real characters (`--scheme pua`), bilinovel's map ordinary CJK code points to the glyphs of
other characters (`--scheme shuffle`: code point of X drawn as Y, a seeded derangement). `identity` draws every
character at its own code point. The recogniser compares each glyph with Noto Sans/Serif CJK SC, so every outline
is re-drawn (per-point jitter, a per-glyph scale about the glyph's centre, a shift, a new unitsPerEm) and no glyph
of the font equals one of an installed face, even when the source is Noto itself. Glyph names are g1, g2, ... in
a shuffled order and the name table names no source, so nothing but the outlines tells what a glyph is.

Run by the Swift test suite and by hand, with Debian's interpreter (fontTools and brotli come from
python3-fonttools and python3-brotli; the pyenv `python3` first on PATH has neither):

    /usr/bin/python3 scripts/make-test-font.py --source /usr/share/fonts/truetype/wqy/wqy-zenhei.ttc \\
        --chars @chars.txt --scheme pua --format woff2 --seed 7 --out /tmp/t.woff2 --map /tmp/t.json

--chars is the text to draw or @file (UTF-8); whitespace is ignored, repeats are dropped, and characters the
source lacks (or draws empty) are listed on stderr and left out of the font and the map. Every drawn character
takes part in the scheme, ASCII and punctuation too (their advances stay proportional). --map gets
{"E3A1": "的", ...}: each code point in the cmap (hex, at least four digits) and the character its glyph draws.
--scale S scales each glyph by a random factor between S and 1/S (1: none); --jitter (per point) and --shift
(per glyph) are fractions of the em, each coordinate moved uniformly within [-x, x]. Sources may be TrueType
(wqy-zenhei; uming from fonts-arphic-uming) or CFF (Noto CJK: --font-number 2 is SC); the output always has
TrueType outlines. The same arguments give the same bytes. --data-url also prints the font as a data: URL.
"""
import argparse
import base64
import io
import json
import random
import sys

from fontTools.fontBuilder import FontBuilder
from fontTools.misc.timeTools import timestampFromString
from fontTools.pens.cu2quPen import Cu2QuPen
from fontTools.pens.recordingPen import DecomposingRecordingPen
from fontTools.pens.ttGlyphPen import TTGlyphPen
from fontTools.ttLib import TTFont

PUA = range(0xE000, 0xF900)
UNITS_PER_EM = (1000, 1024, 2000, 2048)
MIME = {"ttf": "font/ttf", "woff": "font/woff", "woff2": "font/woff2"}
# head.created/modified are fixed so the same arguments give the same bytes.
TIMESTAMP = timestampFromString("Mon Jan  1 00:00:00 2024")


def read_chars(arg):
    text = open(arg[1:], encoding="utf-8").read() if arg.startswith("@") else arg
    return list(dict.fromkeys(c for c in text if not c.isspace()))


def derangement(n, rng):
    """A permutation with no fixed point (rejection: about e tries); the identity when n < 2."""
    order = list(range(n))
    if n < 2:
        return order
    while True:
        rng.shuffle(order)
        if all(i != j for i, j in enumerate(order)):
            return order


def redraw(ops, rng, src_upm, ratio, args, cubic):
    """The recorded outline, scaled about its centre, shifted and jittered, in the new font's units."""
    points = [p for _, pts in ops for p in pts if p is not None]
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    low, high = sorted((args.scale, 1 / args.scale))
    s = rng.uniform(low, high)
    dx, dy = (rng.uniform(-args.shift, args.shift) * src_upm for _ in range(2))
    j = args.jitter * src_upm
    moved = {}

    def move(p):
        # One jitter per source point: a contour's closing point must stay equal to its start (TTGlyphPen
        # drops the duplicate only then), and points shared by strokes stay shared.
        if p is None:  # a quadratic contour with no on-curve point
            return None
        q = moved.get(p)
        if q is None:
            q = moved[p] = (round((cx + s * (p[0] - cx) + dx + rng.uniform(-j, j)) * ratio),
                            round((cy + s * (p[1] - cy) + dy + rng.uniform(-j, j)) * ratio))
        return q

    pen = TTGlyphPen(None)
    # CFF contours run counter-clockwise; TrueType's run clockwise.
    target = Cu2QuPen(pen, max_err=1.0, reverse_direction=True) if cubic else pen
    for op, pts in ops:
        getattr(target, op)(*(move(p) for p in pts))
    return pen.glyph()


def notdef(upm):
    pen = TTGlyphPen(None)
    w, h, t = upm // 2, upm * 7 // 10, upm // 20
    for box in (((t, 0), (t, h), (w - t, h), (w - t, 0)),
                ((2 * t, t), (w - 2 * t, t), (w - 2 * t, h - t), (2 * t, h - t))):
        pen.moveTo(box[0])
        for p in box[1:]:
            pen.lineTo(p)
        pen.closePath()
    return pen.glyph(), w


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--source", required=True, help="font file (TTF, OTF or a collection) to take glyphs from")
    ap.add_argument("--font-number", type=int, default=0, help="face in a collection (Noto CJK: 2 is SC)")
    ap.add_argument("--chars", required=True, help="characters to draw, or @file")
    ap.add_argument("--scheme", required=True, choices=("pua", "shuffle", "identity"))
    ap.add_argument("--format", required=True, choices=tuple(MIME))
    ap.add_argument("--seed", required=True, type=int)
    ap.add_argument("--jitter", type=float, default=0.02, help="per-point jitter, fraction of the em")
    ap.add_argument("--scale", type=float, default=0.9, help="each glyph scaled by a random factor between S and 1/S")
    ap.add_argument("--shift", type=float, default=0.03, help="per-glyph translation, fraction of the em")
    ap.add_argument("--units-per-em", type=int, help="default: one of %s, chosen by the seed" % (UNITS_PER_EM,))
    ap.add_argument("--out", required=True, help="font to write")
    ap.add_argument("--map", required=True, help="JSON to write: code point (hex) -> character drawn")
    ap.add_argument("--data-url", action="store_true", help="also print the font as a data: URL")
    args = ap.parse_args()
    if args.scale <= 0 or args.jitter < 0 or args.shift < 0:
        ap.error("--scale must be positive, --jitter and --shift not negative")

    src = TTFont(args.source, fontNumber=args.font_number, lazy=True)
    src_upm = src["head"].unitsPerEm
    src_cmap = src.getBestCmap()
    glyphs = src.getGlyphSet()
    cubic = "glyf" not in src

    # Font-wide choices come from one generator; each outline from its own, keyed by the character, so a
    # glyph is drawn the same whatever else the font holds.
    rng = random.Random("bookrule-test-font:%d" % args.seed)
    upm = args.units_per_em or rng.choice(UNITS_PER_EM)
    ratio = upm / src_upm

    drawn, outlines, missing = [], {}, []
    for c in read_chars(args.chars):
        name = src_cmap.get(ord(c))
        ops = None
        if name is not None:
            pen = DecomposingRecordingPen(glyphs)  # components (if any) become contours
            glyphs[name].draw(pen)
            ops = pen.value
        if not ops:
            missing.append(c)
            continue
        glyph = redraw(ops, random.Random("%d:%X" % (args.seed, ord(c))), src_upm, ratio, args, cubic)
        drawn.append(c)
        outlines[c] = (glyph, round(glyphs[name].width * ratio))
    if missing:
        print("make-test-font: the source does not draw %d of the characters, left out: %s"
              % (len(missing), "".join(missing)), file=sys.stderr)
    if not drawn:
        sys.exit("make-test-font: nothing to draw")

    if args.scheme == "pua":
        codepoints = rng.sample(PUA, len(drawn))
        cmap_chars = list(zip(codepoints, drawn))
    elif args.scheme == "shuffle":
        order = derangement(len(drawn), rng)
        cmap_chars = [(ord(c), drawn[k]) for c, k in zip(drawn, order)]
    else:
        cmap_chars = [(ord(c), c) for c in drawn]

    # Glyph order shuffled so a glyph's index says nothing about the --chars order either.
    shuffled = drawn[:]
    rng.shuffle(shuffled)
    glyph_name = {c: "g%d" % (i + 1) for i, c in enumerate(shuffled)}
    glyph_order = [".notdef"] + [glyph_name[c] for c in shuffled]
    glyf = {".notdef": notdef(upm)[0]}
    glyf.update((glyph_name[c], outlines[c][0]) for c in shuffled)

    fb = FontBuilder(upm, isTTF=True)
    fb.font["head"].created = fb.font["head"].modified = TIMESTAMP
    fb.setupGlyphOrder(glyph_order)
    fb.setupCharacterMap({cp: glyph_name[c] for cp, c in cmap_chars})
    fb.setupGlyf(glyf)
    metrics = {".notdef": (notdef(upm)[1], getattr(glyf[".notdef"], "xMin", 0))}
    metrics.update((glyph_name[c], (outlines[c][1], getattr(glyf[glyph_name[c]], "xMin", 0))) for c in shuffled)
    fb.setupHorizontalMetrics(metrics)
    ascent = round(src["hhea"].ascent * ratio)
    descent = round(src["hhea"].descent * ratio)
    y_max = max(getattr(g, "yMax", 0) for g in glyf.values())
    y_min = min(getattr(g, "yMin", 0) for g in glyf.values())
    fb.setupHorizontalHeader(ascent=ascent, descent=descent, lineGap=0)
    family = "BookruleTest%d" % args.seed
    fb.setupNameTable({"familyName": family, "styleName": "Regular", "uniqueFontIdentifier": family,
                       "fullName": family, "psName": family, "version": "Version 1.000"})
    fb.setupOS2(sTypoAscender=ascent, sTypoDescender=descent, sTypoLineGap=0, fsSelection=0x40,
                usWinAscent=max(ascent, y_max), usWinDescent=max(-descent, -y_min), achVendID="BKRT")
    fb.setupPost()
    fb.font.flavor = None if args.format == "ttf" else args.format

    data = io.BytesIO()
    fb.save(data)
    data = data.getvalue()
    with open(args.out, "wb") as f:
        f.write(data)
    with open(args.map, "w", encoding="utf-8") as f:
        json.dump({"%04X" % cp: c for cp, c in cmap_chars}, f, ensure_ascii=False, indent=0)
        f.write("\n")
    if args.data_url:
        print("data:%s;base64,%s" % (MIME[args.format], base64.b64encode(data).decode("ascii")))


if __name__ == "__main__":
    main()
