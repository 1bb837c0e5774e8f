import Foundation
import Testing
@testable import BookRuleHTTP
import TestSupport

/// A comic (image source, type 2) on loopback: a book page with a cover and a TOC of three chapters, each
/// chapter page linking two pictures on another host (a range server), one by `data-src` and relative to the
/// picture host, one by `src` with Legado's `,{options}` suffix.
final class ComicSite: Sendable {
    let pages: FaultServer
    let pictures: RangeServer
    static let pictureLength = 300_000
    /// A tiny complete JPEG (SOI … EOI), enough for the exporter to take it as a cover.
    static let cover: [UInt8] = TinyImages.jpeg

    init() throws {
        let pictures = try RangeServer(.init(length: Self.pictureLength))
        self.pictures = pictures
        let pictureHost = pictures.baseURL
        pages = try FaultServer(lifetime: 120, maxRequests: 500) { request, _ in
            switch request.path {
            case "/comic/1/":
                let items = (1...3).map { "<dd><a href=\"/comic/1/\($0).html\">第\($0)话</a></dd>" }.joined()
                return .ok("<html><body><h1>测试漫画</h1><img id='cover' src='/cover.jpg'><dl id='list'>\(items)</dl></body></html>",
                           headers: [HTTPHeader("Content-Type", "text/html; charset=utf-8")])
            case "/cover.jpg":
                return .reply(status: 200, headers: [HTTPHeader("Content-Type", "image/jpeg"), HTTPHeader("ETag", "\"c1\"")],
                              body: ComicSite.cover)
            default:
                guard request.path.hasPrefix("/comic/1/"), let number = Int(request.path.dropFirst(9).dropLast(5)) else {
                    return .status(404)
                }
                return .ok("<html><body><div id='content'>"
                           + "<img data-src='\(pictureHost)/pics/\(number)/a.jpg' src='/lazy.gif'>"
                           + "<img src='\(pictureHost)/pics/\(number)/b.png,{\"headers\":{\"Referer\":\"x\"}}'>"
                           + "</div></body></html>", headers: [HTTPHeader("Content-Type", "text/html; charset=utf-8")])
            }
        }
    }

    var bookURL: String { pages.baseURL + "/comic/1/" }

    func sourceFile(in directory: String) throws -> String {
        let json = """
        {"bookSourceUrl": "\(pages.baseURL)", "bookSourceName": "loopback comic", "bookSourceType": 2,
         "ruleBookInfo": {"name": "//h1/text()", "coverUrl": "//img[@id='cover']/@src"},
         "ruleToc": {"chapterList": "//dl[@id='list']/dd/a", "chapterName": "/text()", "chapterUrl": "/@href"},
         "ruleContent": {"content": "//div[@id='content']/html()"}}
        """
        let path = directory + "/comic.json"
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}

/// MediaFetchTests' run of the `bookrule` executable (the media links are tested in BookRuleLibraryTests).
extension DownloadTransfers {
    @Suite("bookrule fetch of audio and image sources: media files and the cover through the media downloader",
           .serialized, .timeLimit(.minutes(2 * TestTime.scale)),
           .enabled(if: FileManager.default.isExecutableFile(atPath: BookruleProcess.executable), "build bookrule first (swift build)"))
    struct MediaFetchTests {
        @Test("an image source's pictures land in the book's media folder in order; a rerun fetches nothing again")
        func comicPictures() async throws {
            let site = try ComicSite()
            defer { site.pictures.stop() }
            let directory = try temporaryDirectory()
            let source = try site.sourceFile(in: directory)
            let library = directory + "/library.sqlite"
            let arguments = ["fetch", "--source", source, site.bookURL, "--library", library, "--delay", "0", "--failure-delay", "0"]
            let first = try await BookruleProcess(arguments).wait()
            #expect(first.status == 0, "\(first.output)")

            let media = directory + "/media/1"
            let files = try FileManager.default.contentsOfDirectory(atPath: media).sorted()
            // <chapter number>-<8 hex digits of the chapter URL's SHA-256>-<file number>: one identity per chapter.
            let parts = files.map { $0.split(separator: "-").map(String.init) }
            #expect(parts.map { [$0[0], $0[2]] } == [
                ["0001", "001.jpg"], ["0001", "002.png"], ["0002", "001.jpg"], ["0002", "002.png"], ["0003", "001.jpg"], ["0003", "002.png"],
            ])
            let identities = parts.map { $0[1] }
            #expect(identities.allSatisfy { $0.count == 8 && $0.allSatisfy(\.isHexDigit) })
            #expect(identities[0] == identities[1] && identities[2] == identities[3] && identities[4] == identities[5])
            #expect(Set(identities).count == 3)
            let expected = await RangeServer.expectedSHA256(length: ComicSite.pictureLength, version: 1)
            for file in files {
                #expect(try await RangeServer.sha256(ofFile: media + "/" + file) == expected, "\(file)")
            }
            // In order: chapter by chapter, picture by picture, one at a time.
            #expect(site.pictures.records.map(\.target) == (1...3).flatMap { ["/pics/\($0)/a.jpg", "/pics/\($0)/b.png"] })
            #expect(site.pictures.maxInFlight == 1)
            #expect(FileManager.default.contents(atPath: directory + "/covers/1").map([UInt8].init) == ComicSite.cover)

            let second = try await BookruleProcess(arguments).wait()
            #expect(second.status == 0, "\(second.output)")
            #expect(site.pictures.records.count == 6)
            #expect(site.pages.requests(matching: "/cover.jpg").count == 1)
        }
    }
}
