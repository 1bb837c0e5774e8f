import CJavaScriptCore

/// UTF-16 round trip between Swift `String` and `JSStringRef`.
/// Never use the UTF8CString APIs for data: they stop at the first NUL.
enum JSStrings {
    /// Returns a +1 JSStringRef; the caller must `JSStringRelease` it.
    static func create(_ string: String) -> JSStringRef {
        let units = Array(string.utf16)
        return units.withUnsafeBufferPointer { buf in
            // JSStringCreateWithCharacters copies; a nil base for an empty string is fine.
            JSStringCreateWithCharacters(buf.baseAddress, buf.count)
        }
    }

    /// Runs `body` with a temporary JSStringRef and releases it afterwards.
    static func with<R>(_ string: String, _ body: (JSStringRef) throws -> R) rethrows -> R {
        let js = create(string)
        defer { JSStringRelease(js) }
        return try body(js)
    }

    /// Copies a JSStringRef into a Swift String (does not release `js`).
    /// Unpaired surrogates become U+FFFD (Swift Strings cannot hold them).
    static func string(_ js: JSStringRef) -> String {
        let count = JSStringGetLength(js)
        guard count > 0, let ptr = JSStringGetCharactersPtr(js) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: ptr, count: count), as: UTF16.self)
    }

    /// ToString() of any value; returns nil and fills `exception` if ToString throws (e.g. Symbol).
    static func string(of value: JSValueRef, in ctx: JSContextRef,
                       exception: UnsafeMutablePointer<JSValueRef?>?) -> String? {
        guard let js = JSValueToStringCopy(ctx, value, exception) else { return nil }
        defer { JSStringRelease(js) }
        return string(js)
    }
}
