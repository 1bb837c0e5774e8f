import BookRuleHTTP
import Foundation
import TestSupport
@testable import BookRuleStudio

/// A temporary source file and fixture directory (the authoring guide's saved pages), and a studio on them.
final class StudioWorkspace {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let assets = repository + "/Sources/Studio/Assets"

    static let sourceText = """
    {
      "bookSourceName": "My site",
      "bookSourceUrl": "https://www.example.com",
      "ruleBookInfo": {
        "name": "//div[@class='book']/h1/text()",
        "author": "//p[@class='author']/a/text()",
        "tocUrl": "//a[@id='all-chapters']/@href"
      },
      "ruleToc": {
        "chapterList": "-//ul[@id='chapter-list']/li[a]",
        "chapterName": "//a/text()",
        "chapterUrl": "//a/@href"
      },
      "ruleContent": {
        "content": "//div[@id='chaptercontent']"
      }
    }

    """

    let directory: String
    let sourcePath: String
    let fixtureDirectory: String
    let server: StudioServer
    var client: RawHTTP { RawHTTP(port: server.port) }
    var token: String { server.app.access.token }

    init(fetcher: PoliteFetcher? = nil) throws {
        directory = NSTemporaryDirectory() + "studio-\(UUID().uuidString)"
        fixtureDirectory = directory + "/fixture"
        sourcePath = directory + "/mysite.json"
        try FileManager.default.createDirectory(atPath: fixtureDirectory, withIntermediateDirectories: true)
        try Self.sourceText.write(toFile: sourcePath, atomically: true, encoding: .utf8)
        for name in ["book.html", "toc.html", "chapter-1.html"] {
            try FileManager.default.copyItem(atPath: Self.repository + "/Fixtures/authoring/pages/" + name,
                                             toPath: fixtureDirectory + "/" + name)
        }
        let index = """
        {"https://www.example.com/novel/5/": "book.html", "https://www.example.com/novel/5/all.html": "toc.html",
         "https://www.example.com/read/5/1.html": "chapter-1.html"}
        """
        try index.write(toFile: fixtureDirectory + "/pages.json", atomically: true, encoding: .utf8)
        server = try StudioServer(sourcePath: sourcePath, fixtureDirectory: fixtureDirectory, port: 0, fetcher: fetcher,
                                  assetsDirectory: Self.assets)
    }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A request with the token in the header, as the page's script sends it.
    func get(_ target: String) async throws -> RawHTTP.Response {
        try await client.send("GET", target, headers: [(StudioAccess.headerName, token)])
    }

    func post(_ target: String, _ body: String) async throws -> RawHTTP.Response {
        try await client.send("POST", target, headers: [(StudioAccess.headerName, token)], body: body)
    }

    /// A JSON string literal for `text`.
    static func quoted(_ text: String) -> String {
        let data = try? JSONSerialization.data(withJSONObject: [text], options: [])
        let array = data.map { String(decoding: $0, as: UTF8.self) } ?? "[\"\"]"
        return String(array.dropFirst().dropLast())
    }

    /// Every file below the workspace with its bytes, to see that nothing changed.
    func snapshot() throws -> [String: Data] {
        var result: [String: Data] = [:]
        guard let walker = FileManager.default.enumerator(atPath: directory) else { return result }
        for case let name as String in walker {
            var isDirectory: ObjCBool = false
            let path = directory + "/" + name
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                result[name] = try Data(contentsOf: URL(fileURLWithPath: path))
            }
        }
        return result
    }
}
