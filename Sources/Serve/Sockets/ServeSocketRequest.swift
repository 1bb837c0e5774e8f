import BookRuleHTTPServer
import BookRuleJSON

/// The one message a Legado endpoint waits for (`{"key": "…"}`, `{"tag": "…", "key": "…"}`): the string
/// members of a JSON object, as Legado reads it into a `Map<String, String>`.
struct ServeSocketRequest: Sendable {
    /// The object's string members (numbers and booleans as written).
    var fields: [String: String]

    /// Why a message is not a request.
    struct Malformed: Error, Sendable, CustomStringConvertible {
        var description: String
    }

    /// Reads `text` as a JSON object.
    init(_ text: String) throws(Malformed) {
        let node: JSONNode
        do {
            node = try JSONParser.parse(text)
        } catch {
            throw Malformed(description: "the message must be JSON: \(error)")
        }
        guard let object = node.value.objectValue else { throw Malformed(description: "the message must be a JSON object") }
        var fields: [String: String] = [:]
        for (key, value) in object.members {
            switch value.value {
            case .string(let text): fields[key] = text
            case .number(let literal): fields[key] = literal
            case .bool(let flag): fields[key] = flag ? "true" : "false"
            default: continue
            }
        }
        self.fields = fields
    }

    /// The value of `name` when it is not blank.
    func value(_ name: String) -> String? {
        guard let value = fields[name], !value.allSatisfy(\.isWhitespace) else { return nil }
        return value
    }

    /// The first text message of `session`, or nil when the connection ends (or sends binary) first. A
    /// client that sends nothing within `seconds` is closed with 1008, which ends the wait.
    static func first(of session: WebSocketSession, within requested: Double) async -> String? {
        let seconds = requested.isNaN ? 30 : min(86_400, max(0.01, requested))
        let timer = Task {
            try? await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
            if !Task.isCancelled { session.close(.policyViolation, reason: "no request within \(Int(seconds)) s") }
        }
        defer { timer.cancel() }
        for await message in session.messages {
            if case .text(let text) = message { return text }
            return nil
        }
        return nil
    }
}
