import BookRuleDocument
import Glibc

/// TOC de-duplication: which chapters are the last ones listed with their page key (the URL up to `#`), as
/// Legado keeps them. Volume headings and chapters without a URL are never duplicates.
///
/// Keys are compared by their bytes in a table of this type's own, not a `Set<String>`: on a 5,000-chapter
/// TOC the set's SipHash, its Unicode-aware equality and a retain and release per key were 2% of the whole
/// read (docs/performance.md). Byte equality is also what a server sees: two spellings of one URL that
/// differ only in Unicode normalisation are two URLs. The hash is seeded per process; a page whose links
/// collide anyway (built to) makes the probes run over a budget, and the rest is decided by a `Set`.
enum DuplicateChapters {
    /// Per chapter, whether it is kept; and how many are not.
    static func marked(in chapters: [Chapter], probeBudget: Int? = nil) -> (kept: [Bool], duplicates: Int) {
        var kept = [Bool](repeating: true, count: chapters.count)
        var duplicates = 0
        var capacity = 16
        while capacity < chapters.count + chapters.count / 2 { capacity <<= 1 }
        let mask = capacity - 1
        // One word a slot: the high half of the key's hash, and the chapter's index + 1 (0: empty). Equal
        // halves are confirmed on the bytes.
        var slots = [UInt64](repeating: 0, count: capacity)
        var budget = probeBudget ?? (chapters.count * 16 + 1024)
        var index = chapters.count - 1
        while index >= 0 {
            defer { index -= 1 }
            guard !chapters[index].isVolume, !chapters[index].url.isEmpty else { continue }
            let hash = withKey(chapters[index].url) { Self.hash($0) }
            let tag = hash & 0xFFFF_FFFF_0000_0000
            var slot = Int(truncatingIfNeeded: hash) & mask
            var duplicate = false
            while slots[slot] != 0 {
                budget -= 1
                if budget < 0 { break }
                if slots[slot] & 0xFFFF_FFFF_0000_0000 == tag,
                   sameKey(chapters[Int(truncatingIfNeeded: slots[slot] & 0xFFFF_FFFF) - 1].url, chapters[index].url) {
                    duplicate = true
                    break
                }
                slot = (slot + 1) & mask
            }
            if budget < 0 || index >= 0xFFFF_FFFF {
                // The links collide more than chance allows (or there are more than a slot can number):
                // decide the rest, this one included, by a Set.
                var seen = Set<String>()
                for later in (index + 1)..<chapters.count where kept[later] && !chapters[later].isVolume
                    && !chapters[later].url.isEmpty {
                    seen.insert(URLReference.withoutFragment(chapters[later].url))
                }
                for earlier in stride(from: index, through: 0, by: -1)
                where !chapters[earlier].isVolume && !chapters[earlier].url.isEmpty
                    && !seen.insert(URLReference.withoutFragment(chapters[earlier].url)).inserted {
                    kept[earlier] = false
                    duplicates += 1
                }
                return (kept, duplicates)
            }
            if duplicate {
                kept[index] = false
                duplicates += 1
            } else {
                slots[slot] = tag | UInt64(index + 1)
            }
        }
        return (kept, duplicates)
    }

    /// `body` of the bytes of `url` up to its first `#`, borrowed where the string is contiguous.
    private static func withKey<T>(_ url: String, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        func key(_ bytes: UnsafeBufferPointer<UInt8>) -> T {
            guard let end = URLReference.fragmentStart(in: bytes) else { return body(bytes) }
            return body(UnsafeBufferPointer(rebasing: bytes[..<end]))
        }
        if let result = url.utf8.withContiguousStorageIfAvailable(key) { return result }
        var copy = url
        return copy.withUTF8(key)
    }

    private static func sameKey(_ first: String, _ second: String) -> Bool {
        withKey(first) { a in
            withKey(second) { b in
                guard a.count == b.count else { return false }
                guard let left = a.baseAddress, let right = b.baseAddress else { return true }
                return memcmp(left, right, a.count) == 0
            }
        }
    }

    /// Drawn once per process, so that which links collide cannot be worked out from the code.
    private static let seed = UInt64.random(in: .min ... .max)

    /// A multiply-and-fold hash over eight bytes at a time.
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        @inline(__always) func mix(_ value: UInt64) -> UInt64 {
            let product = value.multipliedFullWidth(by: 0x9E37_79B9_7F4A_7C15)
            return product.high ^ product.low
        }
        var hash = seed ^ UInt64(bytes.count)
        guard let base = bytes.baseAddress else { return mix(hash) }
        var index = 0
        while index + 8 <= bytes.count {
            hash = mix(hash ^ UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)) &+ 0xA076_1D64_78BD_642F
            index += 8
        }
        var tail: UInt64 = 0
        if index < bytes.count, bytes.count >= 8 {
            // The last eight bytes, overlapping the word before (the length is in the hash already).
            tail = UnsafeRawPointer(base + bytes.count - 8).loadUnaligned(as: UInt64.self)
        } else {
            var shift: UInt64 = 0
            while index < bytes.count {
                tail |= UInt64(bytes[index]) << shift
                shift += 8
                index += 1
            }
        }
        return mix(mix(hash ^ tail) ^ 0xE703_7ED1_A0B4_28DB)
    }
}
