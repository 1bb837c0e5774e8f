import BookRule

extension FuzzTarget {
    static func json(_ bytes: [UInt8]) -> String? {
        for lenient in [false, true] {
            guard let node = try? JSONParser.parse(bytes, lenient: lenient) else { continue }
            // What the parser accepts, the writer writes and the parser reads back.
            let written = JSONWriter.bytes(node.value)
            if (try? JSONParser.parse(written)) == nil {
                return "JSONWriter wrote what JSONParser rejects: \(String(decoding: written.prefix(200), as: UTF8.self))"
            }
        }
        return nil
    }

    static func source(_ bytes: [UInt8]) -> String? {
        guard let sources = try? BookSource.load(bytes: bytes, path: "fuzz.json") else { return nil }
        for source in sources {
            _ = source.problems.map(\.description)
            _ = source.hasScripts
        }
        return nil
    }

    static func rss(_ bytes: [UInt8]) -> String? {
        if let articles = RssFeedParser.articles(utf8: bytes, url: "https://fuzz.test/feed/rss.xml", sort: "s", origin: "o") {
            if articles.count > RssFeedParser.maxArticles {
                return "the feed gave \(articles.count) articles, more than the \(RssFeedParser.maxArticles) cap"
            }
            for article in articles {
                _ = article.title.count
                _ = article.image
            }
        }
        if let file = try? SourceFile.load(bytes: bytes, path: "fuzz.json") {
            for source in file.rssSources {
                _ = source.problems.map(\.description)
                _ = RssSort.parse(source.sortURL, sourceURL: source.url)
            }
        }
        return nil
    }

    static func jsonPath(_ bytes: [UInt8]) -> String? {
        let (expression, document) = firstLine(text(bytes))
        guard let path = try? JSONPath(expression) else { return nil }
        let root: JSONValue
        if let document, !document.isEmpty {
            guard let parsed = try? JSONParser.parse(document, lenient: true) else { return nil }
            root = parsed.value
        } else {
            root = FuzzContexts.json
        }
        _ = path.isDefinite
        _ = path.evaluate(root)
        return nil
    }

    static func har(_ bytes: [UInt8]) -> String? {
        guard let recording = try? HARRecording.parse(bytes, path: "fuzz.har") else { return nil }
        let written = recording.jsonBytes()
        guard let reread = try? HARRecording.parse(written, path: "fuzz.har") else {
            return "a HAR recording written back does not load: \(String(decoding: written.prefix(200), as: UTF8.self))"
        }
        _ = reread.entries.count
        return nil
    }
}
