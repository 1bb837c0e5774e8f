enum CSSIndexComparison: Sendable {
    case less, greater, equal
}
