import BookRuleDocument

/// Replaces secrets (a login's passwords and header values) with `REDACTED` in what a recording keeps:
/// each secret as written and percent-encoded (as a form body or a query carries it), and the login form's
/// other values in request bodies only. Secrets shorter than four characters are replaced only where they are
/// a whole header value, since replacing every occurrence of two letters would wreck the recording without
/// hiding much.
struct SecretRedaction {
    private let whole: Set<String>
    private let pieces: [[UInt8]]
    private let bodyPieces: [[UInt8]]

    init(_ secrets: [String], formValues: [String] = []) {
        whole = Set(secrets.filter { !$0.isEmpty })
        pieces = Self.pieces(of: whole)
        bodyPieces = Self.pieces(of: whole.union(formValues.filter { !$0.isEmpty }))
    }

    var isEmpty: Bool { whole.isEmpty && bodyPieces.isEmpty }

    /// Each secret of four characters or more as written and percent-encoded, longest first (so a secret
    /// holding another is replaced whole).
    private static func pieces(of secrets: Set<String>) -> [[UInt8]] {
        var pieces: Set<[UInt8]> = []
        for secret in secrets where secret.count >= 4 {
            pieces.insert(Array(secret.utf8))
            pieces.insert(Array(URLEncoding.form(secret, spaceAsPlus: true).utf8))
            pieces.insert(Array(URLEncoding.form(secret, spaceAsPlus: false).utf8))
            // Inside a JSON body: `"` and `\` escaped, and (as Gson and many servers write it) every character
            // past ASCII and `<>&='` as `\uXXXX`.
            pieces.insert(Array(jsonEscaped(secret, asciiOnly: false).utf8))
            pieces.insert(Array(jsonEscaped(secret, asciiOnly: true).utf8))
        }
        return pieces.sorted { $0.count > $1.count }
    }

    /// `secret` as it stands between the quotes of a JSON string.
    static func jsonEscaped(_ secret: String, asciiOnly: Bool) -> String {
        func escaped(_ unit: UInt16) -> String {
            let hex = String(unit, radix: 16)
            return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        }
        var out = ""
        for scalar in secret.unicodeScalars {
            switch scalar.value {
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0..<0x20: out += escaped(UInt16(scalar.value))
            case 0x3C where asciiOnly, 0x3E where asciiOnly, 0x26 where asciiOnly, 0x3D where asciiOnly, 0x27 where asciiOnly:
                out += escaped(UInt16(scalar.value))
            case 0x80... where asciiOnly: out += String(scalar).utf16.map(escaped).joined()
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    func request(_ request: HTTPRequest) -> HTTPRequest {
        var redacted = request
        redacted.url = text(request.url)
        redacted.headers = headers(request.headers)
        redacted.body = request.body.map { bytes($0, pieces: bodyPieces) }
        return redacted
    }

    func response(_ response: HTTPResponse) -> HTTPResponse {
        var redacted = response
        redacted.url = text(response.url)
        redacted.headers = headers(response.headers)
        redacted.body = bytes(response.body, pieces: pieces)
        return redacted
    }

    private func headers(_ headers: [HTTPHeader]) -> [HTTPHeader] {
        headers.map { header in
            HTTPHeader(header.name, whole.contains(header.value) ? Self.marker : text(header.value))
        }
    }

    private func text(_ text: String) -> String {
        String(decoding: bytes(Array(text.utf8), pieces: pieces), as: UTF8.self)
    }

    private func bytes(_ input: [UInt8], pieces: [[UInt8]]) -> [UInt8] {
        var data = input
        let marker = Array(Self.marker.utf8)
        for piece in pieces where !piece.isEmpty && piece.count <= data.count {
            var output: [UInt8] = []
            output.reserveCapacity(data.count)
            var index = 0
            var changed = false
            while index < data.count {
                if data[index] == piece[0], index + piece.count <= data.count, data[index..<index + piece.count].elementsEqual(piece) {
                    output += marker
                    index += piece.count
                    changed = true
                } else {
                    output.append(data[index])
                    index += 1
                }
            }
            if changed { data = output }
        }
        return data
    }

    private static let marker = "REDACTED"
}
