import BookRuleHTTPServer
import BookRuleJSON
import BookRuleLibrary

/// Legado's answer to every API call (`ReturnData`): `{"isSuccess": true, "errorMsg": "", "data": …}`, or
/// `{"isSuccess": false, "errorMsg": "why"}` (Gson leaves the null `data` out). Always HTTP 200, as Legado
/// answers: the client reads `isSuccess`, not the status.
enum LegadoEnvelope {
    /// A success carrying `data`.
    static func success(_ data: JSONValue) -> HTTPServerResponse {
        response(LegadoJSON.object([("isSuccess", .bool(true)), ("errorMsg", .string("")), ("data", data)]))
    }

    /// A failure saying why.
    static func failure(_ message: String, status: Int = 200) -> HTTPServerResponse {
        var answer = response(LegadoJSON.object([("isSuccess", .bool(false)), ("errorMsg", .string(message))]))
        answer.status = status
        return answer
    }

    private static func response(_ value: JSONValue) -> HTTPServerResponse {
        HTTPServerResponse(status: 200, headers: [("Content-Type", "application/json; charset=utf-8")],
                           body: JSONWriter.bytes(value))
    }
}
