import Foundation

/// A JavaScript value copied out of (or into) the engine: what native helpers take and return. Plain Swift
/// data, so no `JSValueRef` outlives the call that made it (the garbage collector cannot see Swift memory).
enum ScriptValue {
    case undefined
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([ScriptValue])
    /// A plain object's own enumerable properties, in order.
    case object([(key: String, value: ScriptValue)])
    /// A Swift object a script holds as a handle (an HTML node): given the prototype of its kind.
    case node(ScriptNode)

    /// The string for a string, number or boolean (numbers as Legado prints them); nil otherwise.
    var text: String? {
        switch self {
        case .string(let text): return text
        case .number(let number): return Self.format(number)
        case .bool(let value): return value ? "true" : "false"
        default: return nil
        }
    }

    /// The value as a script argument that names a string: `undefined` and `null` are nil.
    var optionalText: String? {
        switch self {
        case .undefined, .null: return nil
        default: return text ?? ""
        }
    }

    /// Legado's number printing: integral numbers without a fraction (`3`, not `3.0`), others as Java
    /// prints a double.
    static func format(_ number: Double) -> String {
        if number.isFinite, number == number.rounded(), abs(number) < 1e21 {
            if abs(number) < 9e15 { return String(Int64(number)) }
            return String(format: "%.0f", number)
        }
        if number.isNaN { return "NaN" }
        if number.isInfinite { return number < 0 ? "-Infinity" : "Infinity" }
        return "\(number)"
    }

    /// Byte arrays travel as arrays of numbers (Java's signed bytes, or 0…255); strings as their UTF-8.
    var bytes: [UInt8]? {
        switch self {
        case .array(let items):
            var bytes: [UInt8] = []
            bytes.reserveCapacity(items.count)
            for item in items {
                guard case .number(let number) = item, number.isFinite else { return nil }
                // As Java casts to byte: saturate to the int range first (Int(1e20) would trap), then wrap.
                bytes.append(UInt8(truncatingIfNeeded: Int32(clamping: Int64(exactly: number.rounded(.towardZero)) ?? (number < 0 ? Int64.min : Int64.max))))
            }
            return bytes
        case .string(let text):
            return Array(text.utf8)
        default:
            return nil
        }
    }

    /// Bytes as a script sees a Java `byte[]`: numbers from -128 to 127.
    static func byteArray(_ bytes: [UInt8]) -> ScriptValue {
        .array(bytes.map { .number(Double(Int8(bitPattern: $0))) })
    }
}
