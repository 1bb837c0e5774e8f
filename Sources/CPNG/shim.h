#ifndef BOOKRULE_CPNG_SHIM_H
#define BOOKRULE_CPNG_SHIM_H

// libpng 1.6 (Debian's libpng-dev), through its simplified API (png_image), which reports errors in the image
// structure instead of longjmp: serve decodes PNG pictures and answers every picture as a PNG, as Legado does
// (docs/serve.md). The format macros are combinations Swift does not import; these wrappers fix RGBA, 8 bits.

#include <png.h>
#include <stdlib.h>
#include <string.h>

/// Decodes a whole PNG in memory to 8-bit RGBA (width * height * 4 bytes, malloc'd, the caller frees). 0 when
/// it is not a PNG libpng can read, or has more than `max_pixels` pixels (checked before any pixel is decoded).
static inline int bookrule_png_decode(const unsigned char *data, size_t size, unsigned long max_pixels,
                                      unsigned int *width, unsigned int *height, unsigned char **pixels) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    *pixels = NULL;
    if (!png_image_begin_read_from_memory(&image, data, size)) return 0;
    if (image.width == 0 || image.height == 0 ||
        (unsigned long)image.width > max_pixels / (unsigned long)image.height) {
        png_image_free(&image);
        return 0;
    }
    image.format = PNG_FORMAT_RGBA;
    size_t bytes = (size_t)image.width * image.height * 4;
    unsigned char *buffer = (unsigned char *)malloc(bytes);
    if (buffer == NULL) { png_image_free(&image); return 0; }
    if (!png_image_finish_read(&image, NULL, buffer, 0, NULL)) {
        free(buffer);
        png_image_free(&image);
        return 0;
    }
    *width = image.width;
    *height = image.height;
    *pixels = buffer;
    return 1;
}

/// Encodes 8-bit RGBA pixels as a PNG in memory (malloc'd, the caller frees); 0 on failure.
static inline int bookrule_png_encode(const unsigned char *pixels, unsigned int width, unsigned int height,
                                      unsigned char **output, size_t *output_size) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    image.width = width;
    image.height = height;
    image.format = PNG_FORMAT_RGBA;
    *output = NULL;
    png_alloc_size_t size = 0;
    if (!png_image_write_to_memory(&image, NULL, &size, 0, pixels, 0, NULL) || size == 0) {
        png_image_free(&image);
        return 0;
    }
    unsigned char *buffer = (unsigned char *)malloc(size);
    if (buffer == NULL) { png_image_free(&image); return 0; }
    if (!png_image_write_to_memory(&image, buffer, &size, 0, pixels, 0, NULL)) {
        free(buffer);
        png_image_free(&image);
        return 0;
    }
    *output = buffer;
    *output_size = size;
    return 1;
}

#endif
