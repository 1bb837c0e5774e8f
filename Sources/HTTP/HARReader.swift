import Foundation
import BookRuleDocument
import BookRuleJSON

/// Walks the parsed JSON, turning every shape problem into a `HARError` naming the entry, field and line.
struct HARReader {
    let path: String
    var entryNumber: Int?

    init(path: String) {
        self.path = path
    }

    func fail(_ field: String, _ problem: String, at node: JSONNode?) -> HARError {
        .invalid(path: path, entry: entryNumber, field: field, problem: problem, line: node?.location.line)
    }

    /// The member `key` of `object`, nil when absent or `null`.
    func member(_ object: JSONObject, _ key: String) -> JSONNode? {
        guard let node = object[key] else { return nil }
        if case .null = node.value { return nil }
        return node
    }

    func object(_ node: JSONNode?, _ field: String, parent: JSONNode?) throws(HARError) -> JSONObject {
        guard let node else { throw fail(field, "is missing", at: parent) }
        guard let object = node.value.objectValue else { throw fail(field, "is not an object", at: node) }
        return object
    }

    func array(_ node: JSONNode?, _ field: String) throws(HARError) -> [JSONNode] {
        guard let node else { return [] }
        guard let array = node.value.arrayValue else { throw fail(field, "is not an array", at: node) }
        return array
    }

    func string(_ node: JSONNode?, _ field: String, parent: JSONNode) throws(HARError) -> String {
        guard let node else { throw fail(field, "is missing", at: parent) }
        guard let string = node.value.stringValue else { throw fail(field, "is not a string", at: node) }
        return string
    }

    func optionalString(_ node: JSONNode?, _ field: String) throws(HARError) -> String? {
        guard let node else { return nil }
        guard let string = node.value.stringValue else { throw fail(field, "is not a string", at: node) }
        return string
    }

    func double(_ node: JSONNode?, _ field: String) throws(HARError) -> Double? {
        guard let node else { return nil }
        guard let double = node.value.doubleValue else { throw fail(field, "is not a number", at: node) }
        guard double.isFinite else { throw fail(field, "is not a finite number", at: node) }
        return double
    }

    func int(_ node: JSONNode?, _ field: String) throws(HARError) -> Int? {
        guard let node else { return nil }
        guard case .number = node.value else { throw fail(field, "is not a number", at: node) }
        guard let int = node.value.intValue else { throw fail(field, "is not a whole number", at: node) }
        return int
    }

    func bool(_ node: JSONNode?, _ field: String) throws(HARError) -> Bool? {
        guard let node else { return nil }
        guard let bool = node.value.boolValue else { throw fail(field, "is not true or false", at: node) }
        return bool
    }

    mutating func recording(_ root: JSONNode) throws(HARError) -> HARRecording {
        let top = try object(root, "the top level", parent: root)
        let logNode = member(top, "log")
        let log = try object(logNode, "log", parent: root)
        let version = try optionalString(member(log, "version"), "log.version") ?? "1.2"
        var creator = HARRecording.Creator(name: "", version: "")
        if let creatorNode = member(log, "creator") {
            let creatorObject = try object(creatorNode, "log.creator", parent: creatorNode)
            creator.name = try optionalString(member(creatorObject, "name"), "log.creator.name") ?? ""
            creator.version = try optionalString(member(creatorObject, "version"), "log.creator.version") ?? ""
        }
        guard let entriesNode = member(log, "entries") else { throw fail("log.entries", "is missing", at: logNode) }
        let rawEntries = try array(entriesNode, "log.entries")
        var entries: [HARRecording.Entry] = []
        entries.reserveCapacity(rawEntries.count)
        for (index, raw) in rawEntries.enumerated() {
            entryNumber = index + 1
            entries.append(try entry(raw))
        }
        entryNumber = nil
        return HARRecording(version: version, creator: creator, entries: entries)
    }

    func entry(_ node: JSONNode) throws(HARError) -> HARRecording.Entry {
        let object = try self.object(node, "the entry", parent: node)
        let request = try self.request(member(object, "request"), entry: node)
        let response = try self.response(member(object, "response"), entry: node)
        var cache = HARRecording.Cache()
        if let cacheNode = member(object, "cache") {
            let cacheObject = try self.object(cacheNode, "cache", parent: cacheNode)
            cache.beforeRequest = try cacheState(member(cacheObject, "beforeRequest"), "cache.beforeRequest")
            cache.afterRequest = try cacheState(member(cacheObject, "afterRequest"), "cache.afterRequest")
        }
        var timings = HARRecording.Timings(send: -1, wait: -1, receive: -1)
        if let timingsNode = member(object, "timings") {
            let timingsObject = try self.object(timingsNode, "timings", parent: timingsNode)
            timings.send = try double(member(timingsObject, "send"), "timings.send") ?? -1
            timings.wait = try double(member(timingsObject, "wait"), "timings.wait") ?? -1
            timings.receive = try double(member(timingsObject, "receive"), "timings.receive") ?? -1
        }
        return HARRecording.Entry(
            startedDateTime: try optionalString(member(object, "startedDateTime"), "startedDateTime") ?? "",
            time: try double(member(object, "time"), "time") ?? -1,
            request: request,
            response: response,
            cache: cache,
            timings: timings,
            comment: try optionalString(member(object, "comment"), "comment")
        )
    }

    func request(_ node: JSONNode?, entry: JSONNode) throws(HARError) -> HARRecording.Request {
        let object = try self.object(node, "request", parent: entry)
        let here = node ?? entry
        var request = HARRecording.Request(
            method: try string(member(object, "method"), "request.method", parent: here),
            url: try string(member(object, "url"), "request.url", parent: here),
            httpVersion: try optionalString(member(object, "httpVersion"), "request.httpVersion") ?? "",
            headers: try headers(member(object, "headers"), "request.headers"),
            queryString: try nameValues(member(object, "queryString"), "request.queryString"),
            cookies: try cookies(member(object, "cookies"), "request.cookies"),
            headersSize: try int(member(object, "headersSize"), "request.headersSize") ?? -1,
            bodySize: try int(member(object, "bodySize"), "request.bodySize") ?? -1
        )
        if let postNode = member(object, "postData") {
            let post = try self.object(postNode, "request.postData", parent: postNode)
            var encoding = try optionalString(member(post, "encoding"), "request.postData.encoding")
            if encoding == nil { encoding = try optionalString(member(post, "_encoding"), "request.postData._encoding") }
            request.postData = HARRecording.PostData(
                mimeType: try optionalString(member(post, "mimeType"), "request.postData.mimeType") ?? "",
                body: try body(text: member(post, "text"), encoding: encoding, field: "request.postData")
            )
        }
        return request
    }

    func response(_ node: JSONNode?, entry: JSONNode) throws(HARError) -> HARRecording.Response {
        let object = try self.object(node, "response", parent: entry)
        let here = node ?? entry
        guard let status = try int(member(object, "status"), "response.status") else {
            throw fail("response.status", "is missing", at: here)
        }
        var content = HARRecording.Content(size: -1, mimeType: "", body: nil)
        if let contentNode = member(object, "content") {
            let contentObject = try self.object(contentNode, "response.content", parent: contentNode)
            content.size = try int(member(contentObject, "size"), "response.content.size") ?? -1
            content.compression = try int(member(contentObject, "compression"), "response.content.compression")
            content.mimeType = try optionalString(member(contentObject, "mimeType"), "response.content.mimeType") ?? ""
            content.body = try body(
                text: member(contentObject, "text"),
                encoding: try optionalString(member(contentObject, "encoding"), "response.content.encoding"),
                field: "response.content"
            )
        }
        return HARRecording.Response(
            status: status,
            statusText: try optionalString(member(object, "statusText"), "response.statusText") ?? "",
            httpVersion: try optionalString(member(object, "httpVersion"), "response.httpVersion") ?? "",
            headers: try headers(member(object, "headers"), "response.headers"),
            cookies: try cookies(member(object, "cookies"), "response.cookies"),
            content: content,
            redirectURL: try optionalString(member(object, "redirectURL"), "response.redirectURL") ?? "",
            headersSize: try int(member(object, "headersSize"), "response.headersSize") ?? -1,
            bodySize: try int(member(object, "bodySize"), "response.bodySize") ?? -1
        )
    }

    func body(text node: JSONNode?, encoding: String?, field: String) throws(HARError) -> [UInt8]? {
        guard let text = try optionalString(node, "\(field).text") else { return nil }
        switch encoding?.lowercased() {
        case nil, "":
            return Array(text.utf8)
        case "base64":
            let compact = text.filter { !($0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t") }
            guard let data = Data(base64Encoded: compact) else {
                throw fail("\(field).text", "is not valid base64", at: node)
            }
            return Array(data)
        case let other?:
            throw fail("\(field).encoding", "is \"\(other)\"; only \"base64\" (or no encoding) is supported", at: node)
        }
    }

    func headers(_ node: JSONNode?, _ field: String) throws(HARError) -> [HTTPHeader] {
        try nameValues(node, field).map { HTTPHeader($0.name, $0.value) }
    }

    func nameValues(_ node: JSONNode?, _ field: String) throws(HARError) -> [HARRecording.NameValue] {
        var result: [HARRecording.NameValue] = []
        for (index, item) in try array(node, field).enumerated() {
            let itemField = "\(field)[\(index)]"
            let object = try self.object(item, itemField, parent: item)
            result.append(HARRecording.NameValue(
                name: try string(member(object, "name"), "\(itemField).name", parent: item),
                value: try optionalString(member(object, "value"), "\(itemField).value") ?? ""
            ))
        }
        return result
    }

    func cookies(_ node: JSONNode?, _ field: String) throws(HARError) -> [HARRecording.Cookie] {
        var result: [HARRecording.Cookie] = []
        for (index, item) in try array(node, field).enumerated() {
            let itemField = "\(field)[\(index)]"
            let object = try self.object(item, itemField, parent: item)
            result.append(HARRecording.Cookie(
                name: try string(member(object, "name"), "\(itemField).name", parent: item),
                value: try optionalString(member(object, "value"), "\(itemField).value") ?? "",
                path: try optionalString(member(object, "path"), "\(itemField).path"),
                domain: try optionalString(member(object, "domain"), "\(itemField).domain"),
                expires: try optionalString(member(object, "expires"), "\(itemField).expires"),
                httpOnly: try bool(member(object, "httpOnly"), "\(itemField).httpOnly"),
                secure: try bool(member(object, "secure"), "\(itemField).secure")
            ))
        }
        return result
    }

    func cacheState(_ node: JSONNode?, _ field: String) throws(HARError) -> HARRecording.CacheState? {
        guard let node else { return nil }
        let object = try self.object(node, field, parent: node)
        return HARRecording.CacheState(
            expires: try optionalString(member(object, "expires"), "\(field).expires"),
            lastAccess: try optionalString(member(object, "lastAccess"), "\(field).lastAccess") ?? "",
            eTag: try optionalString(member(object, "eTag"), "\(field).eTag") ?? "",
            hitCount: try int(member(object, "hitCount"), "\(field).hitCount") ?? 0
        )
    }
}
