import BookRuleFont
import BookRuleLocking
import Dispatch

/// The fonts a runtime's scripts opened with `java.queryTTF`, by handle: each keeps its bytes (for
/// `java.decodeFont`) and its outlines. At most `limit` are kept; the oldest goes first.
struct ScriptFonts {
    static let limit = 8
    private(set) var opened: [(handle: Int, bytes: [UInt8], outlines: FontOutlines)] = []
    private var nextHandle = 1

    mutating func open(_ bytes: [UInt8]) throws(FontError) -> Int {
        let outlines = try FontOutlines(bytes: bytes)
        let handle = nextHandle
        nextHandle += 1
        opened.append((handle, bytes, outlines))
        if opened.count > Self.limit { opened.removeFirst() }
        return handle
    }

    func font(_ handle: Int) -> (bytes: [UInt8], outlines: FontOutlines)? {
        opened.last { $0.handle == handle }.map { ($0.bytes, $0.outlines) }
    }
}

extension ScriptWorker {
    /// `java.queryTTF`, `java.replaceFont` and `java.decodeFont`'s natives (the prelude builds Legado's QueryTTF
    /// object on them).
    func fontFunctions() -> [(name: String, body: NativeBody)] {
        [
            ("fontOpen", { [unowned self] arguments in
                let bytes = try Self.bytes(arguments, 0)
                do throws(FontError) {
                    return .number(Double(try fonts.open(bytes)))
                } catch {
                    throw HelperFailure("java.queryTTF: \(error)")
                }
            }),
            ("fontQuery", { [unowned self] arguments in
                guard let font = handle(arguments, 0) else { throw HelperFailure("java.queryTTF: that font is no longer open") }
                let outlines = font.outlines
                let code = UInt32(max(0, min(Double(UInt32.max), arguments.count > 2 ? Self.number(arguments[2]) ?? 0 : 0)))
                switch Self.text(arguments, 1) {
                case "glyphId": return .number(Double(outlines.glyphID(of: code)))
                case "outline": return outlines.outline(of: code).map(ScriptValue.string) ?? .null
                case "outlineOfGlyph": return outlines.outlineOfGlyph[code].map(ScriptValue.string) ?? .null
                case "code": return .number(Double(outlines.code(of: arguments.count > 2 ? arguments[2].optionalText : nil)))
                case "blank": return .bool(outlines.isBlank(code))
                case "codes": return .array(outlines.codes.map { .number(Double($0)) })
                default: throw HelperFailure("java.queryTTF: no such query")
                }
            }),
            ("fontReplace", { [unowned self] arguments in
                guard let wrong = handle(arguments, 1), let right = handle(arguments, 2) else {
                    return .string(Self.text(arguments, 0))
                }
                let filter: Bool
                if arguments.count > 3, case .bool(true) = arguments[3] { filter = true } else { filter = false }
                return .string(wrong.outlines.replacing(Self.text(arguments, 0), with: right.outlines, filter: filter))
            }),
            ("fontDecode", { [unowned self] arguments in
                let text = Self.text(arguments, 0)
                let bytes: [UInt8]
                if arguments.count > 1, case .number = arguments[1] {
                    guard let font = handle(arguments, 1) else { throw HelperFailure("java.decodeFont: that font is no longer open") }
                    bytes = font.bytes
                } else {
                    bytes = try Self.bytes(arguments, 1)
                }
                // On a thread of its own: the script's time limit counts this thread's CPU time, and a first
                // decoding may build the reference index (seconds) — the script waits, as for the network.
                let characters = Set(text.unicodeScalars.map(\.value))
                let outcome = Locked<Result<FontDecoding, FontError>?>(nil)
                let done = DispatchSemaphore(value: 0)
                let started = BlockingWorkThread.start {
                    let result: Result<FontDecoding, FontError>
                    do throws(FontError) { result = .success(try FontDecoder.shared.decode(bytes, characters: characters)) } catch {
                        result = .failure(error)
                    }
                    outcome.withLock { $0 = result }
                    done.signal()
                }
                guard started else { throw HelperFailure("java.decodeFont: no thread could be started to decode the font") }
                // The decoding has its own time limit; this bounds the wait even if that limit were not reached.
                guard done.wait(timeout: .now() + .seconds(90)) == .success else {
                    throw HelperFailure("java.decodeFont: the font was not decoded within 90 s")
                }
                switch outcome.withLock({ $0 }) {
                case .success(let decoding)?: return .string(decoding.apply(to: text))
                case .failure(let error)?: throw HelperFailure("java.decodeFont: \(error)")
                case nil: throw HelperFailure("java.decodeFont: the decoding ended without a result")
                }
            }),
        ]
    }

    private static func number(_ value: ScriptValue) -> Double? {
        if case .number(let number) = value, number.isFinite { return number }
        return nil
    }

    private func handle(_ arguments: [ScriptValue], _ index: Int) -> (bytes: [UInt8], outlines: FontOutlines)? {
        guard index < arguments.count, let number = Self.number(arguments[index]), number.isFinite,
              number >= 0, number < Double(Int.max) else { return nil }
        return fonts.font(Int(number))
    }
}
