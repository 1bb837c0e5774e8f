#ifndef BOOKRULE_CJPEG_SHIM_H
#define BOOKRULE_CJPEG_SHIM_H

// libjpeg-turbo (Debian's libjpeg-dev), to decode JPEG pictures serve answers as PNGs, as Legado does
// (docs/serve.md). libjpeg reports errors by calling error_exit, which must not return: the decoder below
// longjmps out of it, all within C (Swift cannot call setjmp), and never lets libjpeg print.

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <jpeglib.h>

struct bookrule_jpeg_error {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
};

static void bookrule_jpeg_error_exit(j_common_ptr info) {
    struct bookrule_jpeg_error *error = (struct bookrule_jpeg_error *)info->err;
    longjmp(error->jump, 1);
}

static void bookrule_jpeg_silent(j_common_ptr info) { (void)info; }
static void bookrule_jpeg_silent_level(j_common_ptr info, int level) { (void)info; (void)level; }

/// Decodes a JPEG in memory to 8-bit RGB (width * height * 3 bytes, malloc'd, the caller frees), scaled down
/// by libjpeg's 1/2, 1/4 or 1/8 while the result stays at least `min_width` by `min_height` (0 0: full size).
/// `full_width` and `full_height` are the picture's own size. 0 when it is not a JPEG libjpeg can read, when
/// its decoded size has more than `max_pixels` pixels, or its own size more than four times that (a
/// progressive JPEG keeps coefficients for its whole size): both checked before any pixel is decoded. A truncated JPEG decodes with its missing rows grey, as browsers show it.
static inline int bookrule_jpeg_decode(const unsigned char *data, unsigned long size, unsigned int min_width,
                                       unsigned int min_height, unsigned long max_pixels,
                                       unsigned int *full_width, unsigned int *full_height, unsigned int *width, unsigned int *height, unsigned char **pixels) {
    struct jpeg_decompress_struct info;
    struct bookrule_jpeg_error error;
    unsigned char *volatile buffer = NULL;
    *pixels = NULL;
    memset(&info, 0, sizeof info);
    info.err = jpeg_std_error(&error.manager);
    error.manager.error_exit = bookrule_jpeg_error_exit;
    error.manager.output_message = bookrule_jpeg_silent;
    error.manager.emit_message = bookrule_jpeg_silent_level;
    if (setjmp(error.jump)) {
        jpeg_destroy_decompress(&info);
        free(buffer);
        return 0;
    }
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, data, size);
    if (jpeg_read_header(&info, TRUE) != JPEG_HEADER_OK) {
        jpeg_destroy_decompress(&info);
        return 0;
    }
    info.out_color_space = JCS_RGB;
    *full_width = info.image_width;
    *full_height = info.image_height;
    if (info.image_width == 0 || info.image_height == 0 ||
        (unsigned long)info.image_width > (max_pixels * 4) / (unsigned long)info.image_height) {
        jpeg_destroy_decompress(&info);
        return 0;
    }
    unsigned int denominator = 1;
    while (denominator < 8 && min_width > 0 && min_height > 0 &&
           info.image_width / (denominator * 2) >= min_width && info.image_height / (denominator * 2) >= min_height) {
        denominator *= 2;
    }
    info.scale_num = 1;
    info.scale_denom = denominator;
    jpeg_calc_output_dimensions(&info);
    if (info.output_width == 0 || info.output_height == 0 ||
        (unsigned long)info.output_width > max_pixels / (unsigned long)info.output_height) {
        jpeg_destroy_decompress(&info);
        return 0;
    }
    jpeg_start_decompress(&info);
    if (info.output_components != 3) {
        jpeg_destroy_decompress(&info);
        return 0;
    }
    size_t stride = (size_t)info.output_width * 3;
    buffer = (unsigned char *)calloc((size_t)info.output_height, stride);
    if (buffer == NULL) {
        jpeg_destroy_decompress(&info);
        return 0;
    }
    memset(buffer, 128, stride * info.output_height);
    while (info.output_scanline < info.output_height) {
        JSAMPROW row = buffer + (size_t)info.output_scanline * stride;
        if (jpeg_read_scanlines(&info, &row, 1) != 1) break;
    }
    *width = info.output_width;
    *height = info.output_height;
    *pixels = buffer;
    buffer = NULL;
    jpeg_abort_decompress(&info);
    jpeg_destroy_decompress(&info);
    return 1;
}

#endif
