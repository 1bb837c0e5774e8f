/// One HTTP header field. Kept as an ordered list (not a dictionary) because order and repeats are meaningful
/// on the wire and in HAR recordings.
public struct HTTPHeader: Sendable, Hashable, Codable {
    /// The field name as written; compare case-insensitively.
    public var name: String
    /// The field value.
    public var value: String

    /// Creates a header field.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

extension Array where Element == HTTPHeader {
    /// The value of the first field called `name` (case-insensitive), if any.
    public func value(for name: String) -> String? {
        let key = name.lowercased()
        return first { $0.name.lowercased() == key }?.value
    }

    /// Replaces every field called `name` with one holding `value`.
    public mutating func set(_ name: String, _ value: String) {
        let key = name.lowercased()
        removeAll { $0.name.lowercased() == key }
        append(HTTPHeader(name, value))
    }
}
