/// Which charset a page was decoded with, and why: `bookrule test` reports it so authors can see a mislabelled page.
public struct CharsetDecision: Sendable, Equatable, CustomStringConvertible {
    /// Where the decision came from, in the order they are consulted.
    public enum Reason: String, Sendable, Equatable {
        /// A saved page's index (`pages.json`) gave a `contentType` with a charset: the file is in it.
        case savedPage = "saved page's contentType"
        /// The source's `charset` URL option forced it.
        case sourceOption = "source option"
        /// The response's `Content-Type: …; charset=` header.
        case contentType = "Content-Type header"
        /// The `encoding` of an XML declaration (`<?xml version="1.0" encoding="gb2312"?>`) at the start: a feed's
        /// or an XHTML page's.
        case xmlDeclaration = "XML declaration"
        /// A `<meta charset>` or `<meta http-equiv="Content-Type">` in the page.
        case meta = "<meta> tag"
        /// Nothing was declared and the bytes are valid UTF-8.
        case validUTF8 = "valid UTF-8"
        /// Nothing was declared, the bytes are not UTF-8, and uchardet recognised a CJK charset in them.
        case detected = "detected"
        /// Nothing was declared, the bytes are not UTF-8 and uchardet was unsure: the Chinese sites this tool
        /// targets use GBK.
        case fallback = "fallback"
    }

    /// The iconv name used to decode (`UTF-8`, `GB18030`, `BIG5-HKSCS`, …).
    public let charset: String
    /// Where the decision came from.
    public let reason: Reason
    /// The label as the page or header wrote it, when one was used.
    public let declared: String?
    /// Set when the declared label was overruled, e.g. a page re-saved as UTF-8 that still says gbk.
    public let note: String?
    /// Whether the bytes were already checked to be valid UTF-8 while deciding (saves a second pass).
    let bytesAreValidUTF8: Bool

    /// Creates a decision.
    init(charset: String, reason: Reason, declared: String? = nil, note: String? = nil, bytesAreValidUTF8: Bool) {
        self.charset = charset
        self.reason = reason
        self.declared = declared
        self.note = note
        self.bytesAreValidUTF8 = bytesAreValidUTF8
    }

    /// Creates a decision.
    public init(charset: String, reason: Reason, declared: String? = nil, note: String? = nil) {
        self.charset = charset
        self.reason = reason
        self.declared = declared
        self.note = note
        self.bytesAreValidUTF8 = false
    }

    /// `GB18030 (<meta> tag: gbk)`, plus the note when there is one.
    public var description: String {
        var text = charset + " (" + reason.rawValue
        if let declared { text += ": " + declared }
        text += ")"
        if let note { text += "; " + note }
        return text
    }
}
