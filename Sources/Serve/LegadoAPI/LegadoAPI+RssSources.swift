import BookRuleHTTPServer
import BookRuleJSON
import BookRuleLibrary

extension LegadoAPI {
    // MARK: - RSS sources (Legado's RssSourceController)

    /// Every RSS source the library keeps, each as Legado's `RssSource` entity (`LegadoRssSource`).
    func rssSources() throws(ServeFailure) -> HTTPServerResponse {
        let records = try library.library { () throws(LibraryError) in try library.store.storedRssSources() }
        guard !records.isEmpty else { throw ServeFailure("源列表为空 (the library has no RSS sources)") }
        return LegadoEnvelope.success(LegadoJSON.array(records.compactMap { LegadoRssSource.entity(json: $0.json) }))
    }

    /// One RSS source (`?url=` its `sourceUrl`), as the entity.
    func rssSource(_ request: HTTPServerRequest) throws(ServeFailure) -> HTTPServerResponse {
        let url = try argument(request, "url", "参数url不能为空，请指定书源地址 (give the RSS source's url)")
        guard let record = try library.library({ () throws(LibraryError) in try library.store.storedRssSource(url: url) }),
              let entity = LegadoRssSource.entity(json: record.json) else {
            throw ServeFailure("未找到源，请检查源地址 (no RSS source \(url) in the library)")
        }
        return LegadoEnvelope.success(entity)
    }

    /// Saves one RSS source (a new one, or an edit of one kept under the same `sourceUrl`).
    func saveRssSource(_ request: HTTPServerRequest) throws(ServeFailure) -> HTTPServerResponse {
        // Legado: 数据不能为空 for no body, 转换源失败 for one Gson cannot read, 源名称和URL不能为空 for a source
        // without them.
        guard let record = Self.rssRecord(try objectBody(request, empty: "数据不能为空", invalid: "转换源失败")) else {
            throw ServeFailure("源名称和URL不能为空 (an RSS source needs sourceName and sourceUrl)")
        }
        try library.library { () throws(LibraryError) in try library.store.saveRssSources([record]) }
        return LegadoEnvelope.success(.string(""))
    }

    /// Saves every RSS source of an array that has a name and a URL; answers with those saved, as entities. An
    /// array holding anything but objects, or none, is refused whole (转换源失败), as Gson refuses it.
    func saveRssSources(_ request: HTTPServerRequest) throws(ServeFailure) -> HTTPServerResponse {
        guard let items = try body(request, empty: "数据不能为空", invalid: "转换源失败").arrayValue, !items.isEmpty else {
            throw ServeFailure("转换源失败 (the body must be an array of RSS sources)")
        }
        var saved: [JSONValue] = []
        var records: [RssSourceRecord] = []
        for item in items {
            guard let object = item.value.objectValue else {
                throw ServeFailure("转换源失败 (the body must be an array of RSS sources, found \(item.value.typeName))")
            }
            guard let record = Self.rssRecord(object, blankIsEmpty: true) else { continue }
            saved.append(LegadoRssSource.entity(object))
            records.append(record)
        }
        try library.library { () throws(LibraryError) in try library.store.saveRssSources(records) }
        return LegadoEnvelope.success(LegadoJSON.array(saved))
    }

    /// Deletes the RSS sources of an array (named by `sourceUrl`).
    func deleteRssSources(_ request: HTTPServerRequest) throws(ServeFailure) -> HTTPServerResponse {
        guard let items = try body(request, empty: "没有传递数据", invalid: "格式不对").arrayValue else {
            throw ServeFailure("格式不对 (the body must be an array of RSS sources)")
        }
        let urls = items.compactMap { $0.value.objectValue?["sourceUrl"]?.value.stringValue }
        try library.library { () throws(LibraryError) in try library.store.deleteRssSources(urls: urls) }
        return LegadoEnvelope.success(.string("已执行"))
    }

    /// An RSS source's record: the object as sent, in its order; nil without a name or a URL (Legado's
    /// saveSource refuses empty ones, its saveSources skips blank ones).
    static func rssRecord(_ object: JSONObject, blankIsEmpty: Bool = false) -> RssSourceRecord? {
        func usable(_ text: String?) -> String? {
            guard let text, !(blankIsEmpty ? text.trimmingCharacters(in: .whitespaces) : text).isEmpty else { return nil }
            return text
        }
        guard let name = usable(object["sourceName"]?.value.stringValue),
              let url = usable(object["sourceUrl"]?.value.stringValue) else { return nil }
        return RssSourceRecord(sourceURL: url, sourceName: name, json: JSONValue.object(object).serialized())
    }
}
