import CPCRE2

/// Resource limits applied to every match of a `RegexPattern`, so a rule with catastrophic
/// backtracking fails with `RegexError.matchLimitExceeded` instead of hanging the engine.
public struct RegexLimits: Sendable, Equatable {
    /// The most backtracking steps one `pcre2_match` call may take (PCRE2's match limit; the JIT and
    /// the interpreter count steps differently, but both stop at this number).
    public var matchLimit: Int
    /// The deepest the interpreter's backtracking may nest (PCRE2's depth limit; ignored by the JIT,
    /// whose stack is bounded separately and falls back to the interpreter when exhausted).
    public var depthLimit: Int
    /// The most heap, in KiB, the interpreter may use for its backtracking frames (PCRE2's heap limit).
    public var heapLimitKiB: Int

    /// Makes a set of limits; when applied, values are clamped to what PCRE2 stores (0 ... UInt32.max).
    public init(matchLimit: Int, depthLimit: Int, heapLimitKiB: Int) {
        self.matchLimit = matchLimit
        self.depthLimit = depthLimit
        self.heapLimitKiB = heapLimitKiB
    }

    /// Limits that let ordinary rule patterns run over multi-megabyte pages but stop runaway ones fast.
    ///
    /// Measured on this machine (Swift 6.3.1, PCRE2 10.42, x86_64, 3 runs each):
    /// - `(a+)+$` over 1 MB of "aaa…a!" gives up (matchLimitExceeded) in 10–14 ms with the JIT and
    ///   70–91 ms with the interpreter; with PCRE2's own default of 10,000,000 steps it takes
    ///   17–36 ms / 140–197 ms.
    /// - `(x+x+)+y` over 1 MB of "xxx…x" gives up in 10–12 ms with the JIT; the interpreter answers
    ///   "no match" in under 0.1 ms because it first checks that the subject contains a "y".
    /// - `(?s)<script.*?</script>` over "<script>" + 2 MB + "</script>" needs about 2.1 million
    ///   steps in both modes (a limit of 2,000,000 fails, 2,200,000 passes; 7 ms JIT, 35 ms
    ///   interpreter), so 5,000,000 leaves room for ~4.5 MB of lazy scanning. `广告.*` and
    ///   `<dd><a href="([^"]+)">([^<]+)</a>` over 2 MB need only a few steps per start position.
    /// - Depth 1,000,000 and 128 MiB of heap let a group repetition such as `(?:a|b)*c` iterate
    ///   400,000 times (0.13 s; the JIT's own stack overflows first and the call is retried on the
    ///   interpreter); at 800,000 iterations the heap limit stops it.
    /// Caveat: the interpreter restarts its step count at each start position, so a pattern that
    /// fails slowly at many positions (e.g. many unclosed `<script` in a 2 MB page: 3.2 s) is not
    /// stopped by these limits; the JIT, used whenever available, handled that case in 7 ms.
    public static let `default` = RegexLimits(
        matchLimit: 5_000_000,
        depthLimit: 1_000_000,
        heapLimitKiB: 128 * 1024
    )
}

/// A compiled PCRE2 regular expression, as used by book-source rules (extraction and `##regex##replacement`).
///
/// Compiled once with Unicode semantics (`PCRE2_UTF | PCRE2_UCP`, so `\w`, `\d`, `\s`, `\b` understand
/// CJK text, full-width characters and U+3000) and JIT-compiled when the platform supports it. An
/// instance is immutable after `init` and may be used from any number of tasks at once: each call
/// creates its own match data, and the shared match context is never modified.
///
/// Offsets in results are UTF-8 byte offsets into the subject. Patterns may not use `\C` (it could
/// split a character), which Java's regex syntax does not have either.
public final class RegexPattern: @unchecked Sendable {
    /// The pattern text as given to `init`.
    public let pattern: String
    /// The limits every match of this pattern runs under.
    public let limits: RegexLimits
    /// Whether matches run on the JIT-compiled code (false when JIT is unavailable).
    let usesJIT: Bool
    /// The number of capture groups in the pattern, not counting group 0.
    private let groupCount: Int
    /// Named groups, name to lowest group number with that name.
    private let names: [String: Int]
    // Owned, freed in deinit; never mutated after init, which is what makes sharing them safe.
    private let code: OpaquePointer
    private let matchContext: OpaquePointer

    /// Compiles `pattern` (PCRE2 syntax, Unicode-aware, plus Java's `\uXXXX` escapes) and prepares it for
    /// matching under `limits`.
    /// - Throws: `RegexError.compile` with PCRE2's message and the character offset of the problem.
    public convenience init(_ pattern: String, limits: RegexLimits = .default) throws {
        try self.init(pattern, limits: limits, jit: true)
    }

    /// Designated initialiser; `jit: false` forces the interpreter (tests and measurements use it).
    init(_ pattern: String, limits: RegexLimits, jit: Bool) throws {
        let (translated, widened) = Self.translatingJavaEscapes(pattern)
        var text = translated
        var errorCode: Int32 = 0
        var errorOffset = 0
        let options = UInt32(PCRE2_UTF | PCRE2_UCP | PCRE2_NEVER_BACKSLASH_C | PCRE2_NO_UTF_CHECK)
        let compiled = text.withUTF8 { bytes in
            pcre2_compile_8(
                bytes.baseAddress ?? emptySubject, bytes.count, options, &errorCode, &errorOffset, nil)
        }
        guard let code = compiled else {
            // PCRE2 counts bytes; authors count characters (a CJK character is three bytes), in what they wrote
            // (each `\uXXXX` became two characters longer).
            let translatedOffset = String(decoding: text.utf8.prefix(errorOffset), as: UTF8.self).unicodeScalars.count
            let characterOffset = translatedOffset - 2 * widened.filter { $0 < translatedOffset }.count
            throw RegexError.compile(pattern: pattern, message: pcre2Message(errorCode), offset: characterOffset)
        }
        guard let context = pcre2_match_context_create_8(nil) else {
            pcre2_code_free_8(code)
            throw RegexError.compile(
                pattern: pattern, message: pcre2Message(PCRE2_ERROR_NOMEMORY), offset: 0)
        }
        pcre2_set_match_limit_8(context, clampUInt32(limits.matchLimit))
        pcre2_set_depth_limit_8(context, clampUInt32(limits.depthLimit))
        pcre2_set_heap_limit_8(context, clampUInt32(limits.heapLimitKiB))

        // Any JIT failure (unsupported CPU, no executable memory) leaves the interpreter in charge.
        let jitted = jit && pcre2_jit_compile_8(code, UInt32(PCRE2_JIT_COMPLETE)) == 0

        var captures: UInt32 = 0
        if pcre2_pattern_info_8(code, UInt32(PCRE2_INFO_CAPTURECOUNT), &captures) != 0 {
            captures = 0
        }

        self.pattern = pattern
        self.limits = limits
        self.usesJIT = jitted
        self.groupCount = Int(captures)
        self.names = readNameTable(code)
        self.code = code
        self.matchContext = context
    }

    /// `pattern` with Java's `\uXXXX` escapes (which Legado's rules use, Java regex being what Legado runs)
    /// written as PCRE2's `\x{XXXX}`, and the scalar offsets in the result where that happened. PCRE2 refuses
    /// `\u` outright, so this only makes patterns compile that could not; an escaped backslash (`\\u`) is left
    /// alone.
    static func translatingJavaEscapes(_ pattern: String) -> (String, [Int]) {
        guard pattern.contains("\\u") else { return (pattern, []) }
        let scalars = Array(pattern.unicodeScalars)
        var result = String.UnicodeScalarView()
        var widened: [Int] = []
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            guard scalar == "\\", index + 1 < scalars.count else {
                result.append(scalar)
                index += 1
                continue
            }
            let next = scalars[index + 1]
            if next == "u", index + 5 < scalars.count,
               scalars[(index + 2)...(index + 5)].allSatisfy({ $0.properties.isASCIIHexDigit }) {
                widened.append(result.count)
                result.append(contentsOf: "\\x{".unicodeScalars)
                result.append(contentsOf: scalars[(index + 2)...(index + 5)])
                result.append("}")
                index += 6
                continue
            }
            result.append(scalar)
            result.append(next)
            index += 2
        }
        return (String(result), widened)
    }

    deinit {
        pcre2_match_context_free_8(matchContext)
        pcre2_code_free_8(code)
    }

    /// The number of capture groups in the pattern, not counting group 0 (the whole match).
    public var captureCount: Int { groupCount }

    /// The leftmost match in `subject`, or `nil` when there is none.
    /// - Throws: `RegexError.matchLimitExceeded` when the pattern backtracks too much.
    public func firstMatch(in subject: String) throws -> RegexMatch? {
        var found: RegexMatch?
        try scan(subject, limit: 1) { bytes, ovector in
            found = makeMatch(bytes, ovector)
        }
        return found
    }

    /// All non-overlapping matches in `subject`, left to right, with Java's `find()` rules: the next
    /// search starts where the previous match ended, and after an empty match one whole character
    /// further on (never inside a multi-byte character).
    /// - Throws: `RegexError.matchLimitExceeded` when the pattern backtracks too much.
    public func allMatches(in subject: String) throws -> [RegexMatch] {
        var found: [RegexMatch] = []
        try scan(subject, limit: Int.max) { bytes, ovector in
            found.append(makeMatch(bytes, ovector))
        }
        return found
    }

    /// `subject` with every match (or only the first, if `firstOnly`) replaced by `replacement`
    /// expanded for that match, like Java's `replaceAll` / `replaceFirst`.
    /// - Throws: `RegexError.matchLimitExceeded` when the pattern backtracks too much.
    public func replacingMatches(
        in subject: String, with replacement: JavaReplacement, firstOnly: Bool = false
    ) throws -> String {
        var out = ""
        var copied = 0  // bytes of the subject already copied or replaced
        var replacedAny = false
        try scan(subject, limit: firstOnly ? 1 : Int.max) { bytes, ovector in
            if !replacedAny {
                out.reserveCapacity(bytes.count)
                replacedAny = true
            }
            let match = makeMatch(bytes, ovector)
            if match.range.lowerBound > copied {
                let gap = UnsafeBufferPointer(rebasing: bytes[copied..<match.range.lowerBound])
                out += String(decoding: gap, as: UTF8.self)
            }
            replacement.expand(match, into: &out)
            copied = max(copied, match.range.upperBound)
        } tail: { bytes in
            if replacedAny, copied < bytes.count {
                out += String(decoding: UnsafeBufferPointer(rebasing: bytes[copied...]), as: UTF8.self)
            }
        }
        return replacedAny ? out : subject
    }

    /// Whether `subject` contains at least one match.
    /// - Throws: `RegexError.matchLimitExceeded` when the pattern backtracks too much.
    public func matches(_ subject: String) throws -> Bool {
        var found = false
        try scan(subject, limit: 1) { _, _ in found = true }
        return found
    }

    // MARK: - Matching core

    /// Runs the pattern over `subject`'s UTF-8 bytes left to right, calling `visit` with each match's
    /// ovector (valid only during the call) until `limit` matches were seen or none is left, then
    /// calls `tail` with the same bytes.
    private func scan(
        _ subject: String,
        limit: Int,
        _ visit: (UnsafeBufferPointer<UInt8>, UnsafeMutablePointer<Int>) throws -> Void,
        tail: (UnsafeBufferPointer<UInt8>) -> Void = { _ in }
    ) throws {
        var subject = subject
        try subject.withUTF8 { bytes in
            guard let matchData = MatchData(code) else {
                throw RegexError.matchFailed(
                    pattern: pattern, code: PCRE2_ERROR_NOMEMORY, message: pcre2Message(PCRE2_ERROR_NOMEMORY))
            }
            let base = bytes.baseAddress ?? emptySubject
            let length = bytes.count
            var offset = 0
            var count = 0
            while count < limit, offset <= length {
                guard try execute(base, length: length, offset: offset, matchData) else { break }
                let ovector = matchData.ovector
                try visit(bytes, ovector)
                count += 1
                let start = ovector[0]
                let end = ovector[1]
                if end > start {
                    offset = end
                } else {
                    // Empty match (or a \K oddity ending before its start): step over one character.
                    let at = max(start, end)
                    if at >= length { break }
                    offset = at + utf8Width(leadByte: base[at])
                }
            }
            tail(bytes)
        }
    }

    /// One `pcre2_match` call at `offset`; true on a match, false on no match.
    private func execute(
        _ base: UnsafePointer<UInt8>, length: Int, offset: Int, _ matchData: borrowing MatchData
    ) throws -> Bool {
        // Swift strings are valid UTF-8 and every offset we pass is a character boundary.
        let options = UInt32(PCRE2_NO_UTF_CHECK)
        var rc = pcre2_match_8(code, base, length, offset, options, matchData.pointer, matchContext)
        if rc == PCRE2_ERROR_JIT_STACKLIMIT {
            // The JIT's fixed stack ran out (deep group repetition): the interpreter keeps its
            // backtracking frames on the heap, bounded by depthLimit / heapLimitKiB instead.
            rc = pcre2_match_8(
                code, base, length, offset, options | UInt32(PCRE2_NO_JIT), matchData.pointer, matchContext)
        }
        if rc >= 0 { return true }  // 0 would mean "ovector too small", impossible with our match data
        if rc == PCRE2_ERROR_NOMATCH { return false }
        throw RegexError.fromMatch(code: rc, pattern: pattern)
    }

    /// Copies the current match out of the ovector.
    private func makeMatch(_ bytes: UnsafeBufferPointer<UInt8>, _ ovector: UnsafeMutablePointer<Int>) -> RegexMatch {
        let unset = bookrule_pcre2_unset()
        var groups: [String?] = []
        groups.reserveCapacity(groupCount + 1)
        var whole = 0..<0
        for group in 0...groupCount {
            let a = ovector[2 * group]
            let b = ovector[2 * group + 1]
            guard a != unset, b != unset else {
                groups.append(nil)
                continue
            }
            let range = min(a, b)..<min(max(a, b), bytes.count)
            if group == 0 { whole = range }
            groups.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self))
        }
        return RegexMatch(range: whole, groups: groups, groupNames: names)
    }
}

/// Match data for one call: created per call, used by one thread, freed when the call ends.
private struct MatchData: ~Copyable {
    let pointer: OpaquePointer
    let ovector: UnsafeMutablePointer<Int>

    init?(_ code: OpaquePointer) {
        guard let data = pcre2_match_data_create_from_pattern_8(code, nil) else { return nil }
        pointer = data
        ovector = pcre2_get_ovector_pointer_8(data)
    }

    deinit { pcre2_match_data_free_8(pointer) }
}

/// A valid pointer for an empty subject or pattern (an empty Swift string may have no storage).
private var emptySubject: UnsafePointer<UInt8> { ("" as StaticString).utf8Start }

/// Number of bytes in the UTF-8 sequence that starts with `leadByte`.
private func utf8Width(leadByte: UInt8) -> Int {
    switch leadByte {
    case 0xF0...: return 4
    case 0xE0...: return 3
    case 0xC0...: return 2
    default: return 1
    }
}

/// Reads PCRE2's name table: entries of a big-endian 16-bit group number followed by the
/// NUL-terminated name, padded to the entry size.
private func readNameTable(_ code: OpaquePointer) -> [String: Int] {
    var count: UInt32 = 0
    var entrySize: UInt32 = 0
    var table: UnsafePointer<UInt8>?
    guard pcre2_pattern_info_8(code, UInt32(PCRE2_INFO_NAMECOUNT), &count) == 0, count > 0,
        pcre2_pattern_info_8(code, UInt32(PCRE2_INFO_NAMEENTRYSIZE), &entrySize) == 0, entrySize > 2,
        pcre2_pattern_info_8(code, UInt32(PCRE2_INFO_NAMETABLE), &table) == 0, let table
    else { return [:] }
    var names: [String: Int] = [:]
    for index in 0..<Int(count) {
        let entry = table + index * Int(entrySize)
        let number = Int(entry[0]) << 8 | Int(entry[1])
        let nameBytes = UnsafeBufferPointer(start: entry + 2, count: Int(entrySize) - 2).prefix { $0 != 0 }
        let name = String(decoding: nameBytes, as: UTF8.self)
        if let existing = names[name], existing <= number { continue }
        names[name] = number
    }
    return names
}

/// Clamps a limit to the UInt32 range PCRE2's setters accept.
private func clampUInt32(_ value: Int) -> UInt32 {
    UInt32(clamping: max(0, value))
}
