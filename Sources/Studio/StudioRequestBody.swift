import BookRuleHTTPServer
import BookRuleJSON

/// A POST's JSON body, read with the project's parser; a missing or mistyped member is a 400 naming it.
struct StudioRequestBody {
    let object: JSONObject

    init(_ request: HTTPServerRequest) throws(StudioRefusal) {
        guard request.method.uppercased() == "POST" else { throw .wrongMethod(allowed: "POST") }
        do {
            guard case .object(let object) = try JSONParser.parse(request.body).value else {
                throw StudioRefusal.badRequest("the request body must be a JSON object")
            }
            self.object = object
        } catch let refusal as StudioRefusal {
            throw refusal
        } catch {
            throw .badRequest("the request body is not JSON: \(error)")
        }
    }

    func string(_ name: String) throws(StudioRefusal) -> String {
        guard let value = object[name]?.value.stringValue else { throw .badRequest("the request needs \"\(name)\" (a string)") }
        return value
    }

    func optionalString(_ name: String) -> String? {
        object[name]?.value.stringValue
    }

    func bool(_ name: String) -> Bool {
        object[name]?.value.boolValue ?? false
    }

    func step() throws(StudioRefusal) -> StudioStep {
        guard let step = StudioStep(rawValue: try string("step")) else {
            throw .badRequest("\"step\" is one of search, book, toc, chapter")
        }
        return step
    }
}
