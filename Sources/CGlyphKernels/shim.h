#ifndef BOOKRULE_CGLYPHKERNELS_SHIM_H
#define BOOKRULE_CGLYPHKERNELS_SHIM_H

// The web-font recogniser's inner loops (Sources/Font, docs/fonts.md), as static inline C: no library, nothing
// linked. Why C: a debug build compiles Swift without optimisation, where every pointer subscript is a call
// (about 40 ns a multiply-add against 4 ns here at clang's -O0), and the tests and `make demo` run debug builds;
// a release build gives the same speed either way. Every function takes its sizes from the caller, which owns
// every buffer; nothing here allocates.

#include <math.h>

/// The dot product of `count` floats.
static inline float bookrule_glyph_dot(const float *a, const float *b, long count) {
    float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    long i = 0;
    for (; i + 4 <= count; i += 4) {
        s0 += a[i] * b[i];
        s1 += a[i + 1] * b[i + 1];
        s2 += a[i + 2] * b[i + 2];
        s3 += a[i + 3] * b[i + 3];
    }
    for (; i < count; i++) s0 += a[i] * b[i];
    return (s0 + s1) + (s2 + s3);
}

/// Sobel edge strength of a `side`×`side` coverage raster, split between the two nearest of eight directions:
/// adds into `planes` (8 planes of `side`×`side`, zeroed by the caller).
static inline void bookrule_glyph_direction_planes(const unsigned char *pixels, long side, float *planes) {
    const long plane = side * side;
    for (long y = 1; y + 1 < side; y++) {
        const unsigned char *above = pixels + (y - 1) * side;
        const unsigned char *row = pixels + y * side;
        const unsigned char *below = pixels + (y + 1) * side;
        for (long x = 1; x + 1 < side; x++) {
            float gx = (float)(above[x + 1] + 2 * row[x + 1] + below[x + 1] - above[x - 1] - 2 * row[x - 1] - below[x - 1]);
            float gy = (float)(below[x - 1] + 2 * below[x] + below[x + 1] - above[x - 1] - 2 * above[x] - above[x + 1]);
            if (gx == 0 && gy == 0) continue;
            float magnitude = sqrtf(gx * gx + gy * gy);
            float angle = atan2f(gy, gx);
            if (angle < 0) angle += 2 * (float)M_PI;
            float position = angle * (4 / (float)M_PI);
            long whole = (long)position;
            float share = position - (float)whole;
            long lower = whole % 8;
            long upper = (lower + 1) % 8;
            planes[lower * plane + y * side + x] += magnitude * (1 - share);
            planes[upper * plane + y * side + x] += magnitude * share;
        }
    }
}

/// Separable pooling of `directions` planes of `side`×`side` into `grid`×`grid` cells: `weights` holds one row of
/// `side` weights per cell, non-zero from `lower[cell]` to `upper[cell]` (exclusive); `rows` is scratch of
/// `side`×`grid`; `out` receives `directions`×`grid`×`grid` values.
static inline void bookrule_glyph_pool(const float *planes, long directions, long side, long grid, const float *weights,
                                       const long *lower, const long *upper, float *rows, float *out) {
    for (long d = 0; d < directions; d++) {
        const float *plane = planes + d * side * side;
        for (long y = 0; y < side; y++) {
            const float *line = plane + y * side;
            for (long c = 0; c < grid; c++) {
                const float *w = weights + c * side;
                float sum = 0;
                for (long x = lower[c]; x < upper[c]; x++) sum += w[x] * line[x];
                rows[y * grid + c] = sum;
            }
        }
        for (long r = 0; r < grid; r++) {
            const float *w = weights + r * side;
            for (long c = 0; c < grid; c++) {
                float sum = 0;
                for (long y = lower[r]; y < upper[r]; y++) sum += w[y] * rows[y * grid + c];
                out[(d * grid + r) * grid + c] = sum;
            }
        }
    }
}

/// The coarse pass's score of every reference: the similarity of `dims` features less `weight` times the
/// placement distance (width, height, centres, and the advance counted 1.5 times), into `scores[count]`.
static inline void bookrule_glyph_coarse_scores(const float *query, const float *references, long count, long dims,
                                                const float *placements, const float *own, float weight, float *scores) {
    for (long e = 0; e < count; e++) {
        const float *p = placements + e * 5;
        float distance = fabsf(own[0] - p[0]) + fabsf(own[1] - p[1]) + fabsf(own[2] - p[2]) + fabsf(own[3] - p[3])
            + 1.5f * fabsf(own[4] - p[4]);
        scores[e] = bookrule_glyph_dot(query, references + e * dims, dims) - weight * distance;
    }
}

#endif
