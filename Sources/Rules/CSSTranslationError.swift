/// A selector piece XPath 1.0 cannot express, or a selector jsoup would reject.
package struct CSSTranslationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What the piece is.
    enum Subject: Sendable, Equatable {
        /// A CSS selector or a piece of one, e.g. `:hover`.
        case css
        /// A JSoup segment of a Legado rule, e.g. `tag.li.x`.
        case segment
        /// A whole Legado rule.
        case rule
    }

    var subject: Subject
    /// The piece as written.
    var piece: String
    /// Why it cannot be translated.
    var reason: String

    init(_ subject: Subject, _ piece: String, _ reason: String) {
        self.subject = subject
        self.piece = piece
        self.reason = reason
    }

    /// An error about a CSS piece.
    init(_ piece: String, _ reason: String) {
        self.init(.css, piece, reason)
    }

    /// `CSS ":hover" cannot be translated: dynamic pseudo-classes don't apply to a saved page`.
    package var description: String {
        let noun: String
        switch subject {
        case .css: noun = "CSS"
        case .segment: noun = "JSoup segment"
        case .rule: noun = "JSoup rule"
        }
        return "\(noun) \"\(piece)\" cannot be translated: \(reason)"
    }
}
