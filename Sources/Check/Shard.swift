/// One of `count` disjoint parts of a collection of sources, chosen by a stable hash of each source's
/// `bookSourceUrl`: the same source lands in the same shard on every machine and every run, and adding a
/// source to the collection moves no other. Shards run anywhere (a CI matrix, GNU parallel, a Kubernetes
/// Indexed Job) and their reports join with `CheckReportMerge`; bookrule schedules nothing itself.
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    /// Which part, from 1 to `count`.
    public let index: Int
    /// How many parts.
    public let count: Int

    /// Part `index` (1-based) of `count`; nil unless 1 ≤ index ≤ count.
    public init?(index: Int, count: Int) {
        guard count >= 1, index >= 1, index <= count else { return nil }
        self.index = index
        self.count = count
    }

    /// The part `text` names as `K/N` (at most 100,000 parts); nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count <= 100_000 else { return nil }
        self.init(index: index, count: count)
    }

    /// `K/N`, as written on the command line.
    public var description: String { "\(index)/\(count)" }

    /// Whether the source with this `bookSourceUrl` belongs to this part.
    public func contains(sourceURL: String) -> Bool {
        Int(Self.stableHash(sourceURL) % UInt64(count)) == index - 1
    }

    /// 64-bit FNV-1a of the UTF-8 bytes: fixed by its definition, unlike Swift's per-process seeded `Hasher`.
    public static func stableHash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}
