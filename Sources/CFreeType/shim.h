#ifndef BOOKRULE_CFREETYPE_SHIM_H
#define BOOKRULE_CFREETYPE_SHIM_H

// FreeType 2 (Debian's libfreetype-dev), for web fonts that sites draw their text with. Debian builds it with
// zlib and brotli, so FT_New_Memory_Face opens WOFF and WOFF2 as well as TrueType and OpenType/CFF
// (docs/fonts.md). The load flags are macros of shifted longs; they are restated here as constants Swift reads.

#include <ft2build.h>
#include FT_FREETYPE_H
#include FT_OUTLINE_H
#include FT_BBOX_H

/// Outlines in font units: no scaling, no hinting (what an exact outline comparison and our own rendering need).
static const FT_Int32 bookrule_ft_load_outline = FT_LOAD_NO_SCALE | FT_LOAD_NO_HINTING | FT_LOAD_NO_BITMAP;

/// Whether the glyph slot holds an outline (not an embedded bitmap or a composite left unloaded).
static inline int bookrule_ft_slot_is_outline(FT_GlyphSlot slot) {
    return slot != NULL && slot->format == FT_GLYPH_FORMAT_OUTLINE;
}

/// The face's flags, read without the macros.
static inline int bookrule_ft_face_is_scalable(FT_Face face) { return FT_IS_SCALABLE(face) ? 1 : 0; }

#endif
