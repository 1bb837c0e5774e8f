import CFreeType

/// One FreeType library instance. FreeType's rule is one library per thread: each decoding makes its own and
/// drops it at the end, so nothing FreeType holds is ever shared between threads.
final class FreeTypeLibrary {
    let handle: FT_Library

    init() throws(FontError) {
        var library: FT_Library?
        let error = FT_Init_FreeType(&library)
        guard error == 0, let library else { throw .library(code: error) }
        handle = library
    }

    deinit {
        FT_Done_FreeType(handle)
    }
}
