enum CSSCombinator: Sendable, Equatable {
    /// whitespace
    case descendant
    /// `>`
    case child
    /// `+`
    case adjacent
    /// `~`
    case general
}
