import BookRuleJSON
import BookRuleRegex

/// An exact decimal number for filter comparisons (like Java's `BigDecimal.compareTo`), so that ids and
/// timestamps beyond `Double`'s precision still compare correctly. Value = ±0.d₁d₂… × 10^exponent.
struct JSONDecimal: Equatable, Comparable {
    private var negative = false
    /// Significant digits (0–9) without leading or trailing zeros; empty for zero.
    private var digits: [UInt8] = []
    private var exponent = 0

    /// Parses `[+-]digits[.digits][(e|E)[+-]digits]` (also `.5` and `5.`); `nil` for anything else.
    init?(_ text: String) {
        var scalars = Array(text.utf8)[...]
        if let sign = scalars.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
            negative = sign == UInt8(ascii: "-")
            scalars = scalars.dropFirst()
        }
        var all: [UInt8] = []
        var integerCount = 0
        var seenPoint = false
        while let byte = scalars.first {
            if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                all.append(byte - UInt8(ascii: "0"))
                if !seenPoint { integerCount += 1 }
            } else if byte == UInt8(ascii: "."), !seenPoint {
                seenPoint = true
            } else {
                break
            }
            scalars = scalars.dropFirst()
        }
        guard !all.isEmpty else { return nil }
        var power = 0
        if let marker = scalars.first, marker == UInt8(ascii: "e") || marker == UInt8(ascii: "E") {
            scalars = scalars.dropFirst()
            var exponentNegative = false
            if let sign = scalars.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
                exponentNegative = sign == UInt8(ascii: "-")
                scalars = scalars.dropFirst()
            }
            guard !scalars.isEmpty else { return nil }
            while let byte = scalars.first, byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                power = min(power * 10 + Int(byte - UInt8(ascii: "0")), 1_000_000_000)
                scalars = scalars.dropFirst()
            }
            if exponentNegative { power = -power }
        }
        guard scalars.isEmpty else { return nil }
        var exponent = integerCount + power
        var first = 0
        while first < all.count && all[first] == 0 {
            first += 1
            exponent -= 1
        }
        var last = all.count
        while last > first && all[last - 1] == 0 { last -= 1 }
        digits = Array(all[first..<last])
        if digits.isEmpty {
            negative = false
            exponent = 0
        }
        self.exponent = exponent
    }

    static func < (lhs: JSONDecimal, rhs: JSONDecimal) -> Bool {
        if lhs.negative != rhs.negative { return lhs.negative }
        let magnitude = compareMagnitude(lhs, rhs)
        return lhs.negative ? magnitude > 0 : magnitude < 0
    }

    private static func compareMagnitude(_ lhs: JSONDecimal, _ rhs: JSONDecimal) -> Int {
        switch (lhs.digits.isEmpty, rhs.digits.isEmpty) {
        case (true, true): return 0
        case (true, false): return -1
        case (false, true): return 1
        case (false, false): break
        }
        if lhs.exponent != rhs.exponent { return lhs.exponent < rhs.exponent ? -1 : 1 }
        for (left, right) in zip(lhs.digits, rhs.digits) where left != right {
            return left < right ? -1 : 1
        }
        return lhs.digits.count == rhs.digits.count ? 0 : (lhs.digits.count < rhs.digits.count ? -1 : 1)
    }
}
