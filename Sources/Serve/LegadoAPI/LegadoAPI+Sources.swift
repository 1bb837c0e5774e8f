import BookRuleHTTPServer
import BookRuleJSON
import BookRuleLibrary

extension LegadoAPI {
    // MARK: - Book sources

    /// Every source in the library's sources table, each as Legado's `BookSource` entity (`LegadoBookSource`).
    func bookSources() throws(ServeFailure) -> HTTPServerResponse {
        let records = try library.library { () throws(LibraryError) in try library.store.storedSources() }
        guard !records.isEmpty else { throw ServeFailure("设备源列表为空 (the library has no sources)") }
        return LegadoEnvelope.success(LegadoJSON.array(records.compactMap { LegadoBookSource.entity(json: $0.json) }))
    }

    /// One source (`?url=` its `bookSourceUrl`), as Legado's `BookSource` entity.
    func bookSource(_ request: HTTPServerRequest) throws(ServeFailure) -> HTTPServerResponse {
        let url = try argument(request, "url", "参数url不能为空，请指定源地址 (give the source's url)")
        guard let record = try library.library({ () throws(LibraryError) in try library.store.storedSource(url: url) }) else {
            throw ServeFailure("未找到源，请检查书源地址 (no source \(url) in the library)")
        }
        guard let entity = LegadoBookSource.entity(json: record.json) else {
            throw ServeFailure("未找到源，请检查书源地址 (the source \(url) kept in the library is not a JSON object)")
        }
        return LegadoEnvelope.success(entity)
    }

    /// Saves one source (a new one, or an edit of one kept under the same `bookSourceUrl`).
    func saveBookSource(_ request: HTTPServerRequest) throws(ServeFailure) -> HTTPServerResponse {
        // Legado: 数据不能为空 for no body, 转换源失败 for one Gson cannot read as a source.
        guard let record = Self.sourceRecord(try objectBody(request, empty: "数据不能为空", invalid: "转换源失败")) else {
            throw ServeFailure("源名称和URL不能为空 (a source needs bookSourceName and bookSourceUrl)")
        }
        try library.library { () throws(LibraryError) in try library.store.saveSources([record]) }
        return LegadoEnvelope.success(.string(""))
    }

    /// Saves every source of an array that has a name and a URL; answers with those saved, as entities. As
    /// Legado's Gson, an array holding anything but source objects is refused whole.
    func saveBookSources(_ request: HTTPServerRequest) throws(ServeFailure) -> HTTPServerResponse {
        guard let items = try body(request, empty: "数据为空", invalid: "转换源失败").arrayValue, !items.isEmpty else {
            throw ServeFailure("转换源失败 (the body must be an array of sources)")
        }
        var saved: [JSONValue] = []
        var records: [BookSourceRecord] = []
        for item in items {
            guard let object = item.value.objectValue else {
                throw ServeFailure("转换源失败 (the body must be an array of sources, found \(item.value.typeName))")
            }
            guard let record = Self.sourceRecord(object) else { continue }
            saved.append(LegadoBookSource.entity(object))
            records.append(record)
        }
        try library.library { () throws(LibraryError) in try library.store.saveSources(records) }
        return LegadoEnvelope.success(LegadoJSON.array(saved))
    }

    /// Deletes the sources of an array (named by `bookSourceUrl`); a source a saved book is on is kept.
    func deleteBookSources(_ request: HTTPServerRequest) throws(ServeFailure) -> HTTPServerResponse {
        // Legado: Gson's own message (解析字符串为空 for no body), 数据格式错误 when it has none.
        guard let items = try body(request, empty: "解析字符串为空", invalid: "数据格式错误").arrayValue else {
            throw ServeFailure("数据格式错误 (the body must be an array of sources)")
        }
        let urls = items.compactMap { $0.value.objectValue?["bookSourceUrl"]?.value.stringValue }
        let kept = try library.library { () throws(LibraryError) in try library.store.deleteSources(urls: urls) }
        return LegadoEnvelope.success(.string(kept.isEmpty ? "已执行"
            : "已执行 (kept, a saved book is on them: \(kept.joined(separator: ", ")))"))
    }

    /// A source's record: the object as sent, in its order; nil without a name or a URL.
    static func sourceRecord(_ object: JSONObject) -> BookSourceRecord? {
        guard let name = object["bookSourceName"]?.value.stringValue, !name.trimmingCharacters(in: .whitespaces).isEmpty,
              let url = object["bookSourceUrl"]?.value.stringValue, !url.trimmingCharacters(in: .whitespaces).isEmpty else {
            return nil
        }
        return BookSourceRecord(sourceURL: url, sourceName: name, json: JSONValue.object(object).serialized())
    }
}
