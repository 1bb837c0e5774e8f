@testable import BookRuleEngine
import BookRuleJSON
import BookRuleLibrary
@testable import BookRuleServe
import Foundation
import Testing
import TestSupport

/// What Legado's own controllers answer (app/src/main/java/io/legado/app/api/controller/*.kt), where bookrule
/// answered otherwise: pictures always as PNGs, entities with Gson's defaults, replace rules by their ids, and
/// Legado's error texts for bodies that are empty or not JSON.
@Suite("bookrule serve answers as Legado's controllers do: pictures, defaults, rule ids, error texts",
       .timeLimit(.minutes(2 * TestTime.scale)))
struct LegadoConformanceTests {
    /// A 200 by 100 JPEG, its left half red and its right half blue (made with libjpeg, quality 90).
    static let jpeg = [UInt8](Data(base64Encoded: "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAMCAgMCAgMDAwMEAwMEBQgFBQQEBQoHBwYIDAoMDAsKCwsNDhIQDQ4RDgsLEBYQERMUFRUVDA8XGBYUGBIUFRT/2wBDAQMEBAUEBQkFBQkUDQsNFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBT/wAARCABkAMgDASIAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAECAxEEBSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq8vP09fb3+Pn6/9oADAMBAAIRAxEAPwD5/ooor8kP9CwooooAKKKKACiiigAooooAKKKKAOO+If8AzD/+2n/stcbXZfEP/mH/APbT/wBlrja/0M8Kf+SNwX/cT/07M/hfxK/5KvGf9uf+m4BRRRX60fmIUUUUAFFFFABRRRQAUUUUAFFFFAHsdFFFf5Mn+mwUUUUAFFFFABRRRQAUUUUAFFFFAHHfEP8A5h//AG0/9lrja7L4h/8AMP8A+2n/ALLXG1/oZ4U/8kbgv+4n/p2Z/C/iV/yVeM/7c/8ATcAooor9aPzEKKKKACiiigAooooAKKKKACiiigD2Oiiiv8mT/TYKKKKACiiigAooooAKKKKACiiigDjviH/zD/8Atp/7LXG12XxD/wCYf/20/wDZa42v9DPCn/kjcF/3E/8ATsz+F/Er/kq8Z/25/wCm4BRRRX60fmIUUUUAFFFFABRRRQAUUUUAFFFFAHsdFFFf5Mn+mwUUUUAFFFFABRRRQAUUUUAFFFFAHHfEP/mH/wDbT/2WuNrsviH/AMw//tp/7LXG1/oZ4U/8kbgv+4n/AKdmfwv4lf8AJV4z/tz/ANNwCiiiv1o/MQooooAKKKKACiiigAooooAKKKKAPY6KKK/yZP8ATYKKKKACiiigAooooAKKKKACiiigDjviH/zD/wDtp/7LXG12XxD/AOYf/wBtP/Za42v9DPCn/kjcF/3E/wDTsz+F/Er/AJKvGf8Abn/puAUUUV+tH5iFFFFABRRRQAUUUUAFFFFABRRRQB7HRRRX+TJ/psFFFFABRRRQAUUUUAFFFFABRRRQBx3xD/5h/wD20/8AZa42uy+If/MP/wC2n/stcbX+hnhT/wAkbgv+4n/p2Z/C/iV/yVeM/wC3P/TcAooor9aPzEKKKKACiiigAooooAKKKKACiiigD2Oiiiv8mT/TYKKKKACiiigAooooAKKKKACiiigDjviH/wAw/wD7af8AstcbRRX+hnhT/wAkbgv+4n/p2Z/C/iV/yVeM/wC3P/TcAooor9aPzEKKKKACiiigAooooAKKKKACiiigD//Z") ?? Data())

    /// A 30 by 20 GIF89a, LZW-compressed: its left half green, its right half blue, a 4 by 4 square at (2, 2) its
    /// transparent colour.
    static let gif = [UInt8](Data(base64Encoded: "R0lGODlhHgAUAIEAAADAAAAAwP///wAAACH5BAEAAAIALAAAAAAeABQAAAI5hI8Zy+0JkZvNiCuiodxiDXCUd4HiRGba+YAKy7gvHMgSXdsbru90H+L1cDkdEXgcCo1LW5L5U9IKADs=") ?? Data())

    static func png(width: Int, height: Int, _ colour: (UInt8, UInt8, UInt8, UInt8)) throws -> [UInt8] {
        try #require(RasterImage(width: width, height: height, filledWith: colour).png())
    }

    static func dataURL(_ bytes: [UInt8], type: String) -> String {
        "data:\(type);base64," + Data(bytes).base64EncodedString()
    }

    /// The PNG a response carries, decoded; a failure when it is not one.
    static func picture(_ response: RawHTTP.Response) throws -> RasterImage {
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "image/png")
        #expect(response.body.starts(with: [0x89, 0x50, 0x4E, 0x47]), "not a PNG: \(response.text.prefix(200))")
        return try #require(RasterImage.decode(response.body)?.image)
    }

    static func pixel(_ image: RasterImage, _ x: Int, _ y: Int) -> [UInt8] {
        Array(image.pixels[(y * image.width + x) * 4..<(y * image.width + x) * 4 + 4])
    }

    @Test("Decoding: a JPEG (also reduced by libjpeg), a compressed GIF with transparency, a PNG; anything else is nil")
    func decoding() throws {
        let jpeg = try #require(RasterImage.decode(Self.jpeg))
        #expect(jpeg.image.width == 200 && jpeg.image.height == 100)
        #expect(Self.pixel(jpeg.image, 20, 50)[0] > 180 && Self.pixel(jpeg.image, 180, 50)[2] > 180)
        let reduced = try #require(RasterImage.decode(Self.jpeg, atLeast: (40, 20)))
        #expect(reduced.image.width == 50 && reduced.fullSize.width == 200)
        let gif = try #require(RasterImage.decode(Self.gif)?.image)
        #expect(gif.width == 30 && gif.height == 20)
        #expect(Self.pixel(gif, 10, 10) == [0, 192, 0, 255] && Self.pixel(gif, 25, 15) == [0, 0, 192, 255])
        #expect(Self.pixel(gif, 3, 3)[3] == 0)
        let png = try #require(RasterImage.decode(try Self.png(width: 3, height: 2, (1, 2, 3, 255)))?.image)
        #expect(png.width == 3 && Self.pixel(png, 2, 1) == [1, 2, 3, 255])
        #expect(RasterImage.decode(Array("<html>not found</html>".utf8)) == nil)
        // A GIF cut anywhere decodes what arrived, or nothing; it never traps.
        for length in 0..<Self.gif.count { _ = RasterImage.decode(Array(Self.gif.prefix(length))) }
        // So does a JPEG (libjpeg's errors leave through longjmp inside the C shim) and a PNG.
        for length in stride(from: 0, to: Self.jpeg.count, by: 7) { _ = RasterImage.decode(Array(Self.jpeg.prefix(length))) }
        let smallPNG = try Self.png(width: 40, height: 30, (200, 100, 50, 255))
        for length in 0..<smallPNG.count { _ = RasterImage.decode(Array(smallPNG.prefix(length))) }
        #expect(RasterImage.decode([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10]) == nil)
        // A small screen with a frame claiming 65535x65535 is refused before anything is allocated for it.
        var huge = Array(Self.gif.prefix(13 + 12 + 8))
        huge += [0x2C, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 2, 2, 0x84, 0x51, 0, 0x3B]
        #expect(RasterImage.decode(huge) == nil)
        #expect(RasterImage.decode([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]) == nil)
    }

    @Test("cover answers a PNG, always: the picture cut to 84x112 as Legado's Glide call, else the default cover, never JSON")
    func cover() async throws {
        let workspace = try await ServeWorkspace()
        // A cover that is a data: URL: decoded, scaled to cover 84x112 and cut around its centre.
        let wide = try await workspace.client.send("GET", "/cover?path=\(ServeWorkspace.encoded(Self.dataURL(Self.jpeg, type: "image/jpeg")))")
        let cut = try Self.picture(wide)
        #expect(cut.width == 84 && cut.height == 112)
        #expect(Self.pixel(cut, 5, 50)[0] > 180 && Self.pixel(cut, 78, 50)[2] > 180)

        // A library book whose cover is saved: served from the file, as a PNG.
        let source = BookSourceRecord(sourceURL: workspace.site.baseURL, sourceName: "mirror", json: "{}")
        var info = BookInfo(url: workspace.site.baseURL + "/other-book", name: "封面书", author: "某", intro: "", kind: "",
                            lastChapter: "", updateTime: "", coverURL: workspace.site.baseURL + "/covers/1.gif", tocURL: "",
                            wordCount: "", variables: [:], warnings: [])
        let covered = try workspace.store.upsertBook(source: source, info: info)
        try FileManager.default.createDirectory(atPath: (workspace.store.coverPath(bookID: covered.id) as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try Data(Self.gif).write(to: URL(fileURLWithPath: workspace.store.coverPath(bookID: covered.id)))
        let gifCover = try Self.picture(try await workspace.client.send("GET", "/cover?path=\(ServeWorkspace.encoded(info.coverURL))"))
        #expect(gifCover.width == 84 && gifCover.height == 112 && Self.pixel(gifCover, 2, 100) == [0, 192, 0, 255])

        // A library book whose cover cannot be fetched (the site answers 404), an address no book has, no path
        // at all, a data: URL that is not a picture: the default cover each time.
        info.url = workspace.site.baseURL + "/third-book"
        info.coverURL = workspace.site.baseURL + "/no-such-cover.jpg"
        _ = try workspace.store.upsertBook(source: BookSourceRecord(sourceURL: workspace.site.baseURL, sourceName: "mirror",
                                                                    json: try String(decoding: LocalFile.read(workspace.sourcePath), as: UTF8.self)),
                                           info: info)
        for path in ["?path=\(ServeWorkspace.encoded(info.coverURL))", "?path=\(ServeWorkspace.encoded("http://elsewhere.test/a.png"))",
                     "", "?path=\(ServeWorkspace.encoded("data:text/plain;base64,aGVsbG8="))"] {
            let response = try await workspace.client.send("GET", "/cover" + path)
            let fallback = try Self.picture(response)
            #expect(fallback.width == 84 && fallback.height == 112, "\(path)")
            #expect(response.body == ServedPicture.defaultCover, "\(path)")
        }
    }

    @Test("image answers a PNG: a data: URL decoded and scaled as Legado's inSampleSize, a picture not saved as the error picture; bookUrl不对 for a book not on the shelf")
    func image() async throws {
        let workspace = try await ServeWorkspace()
        let book = ServeWorkspace.encoded(workspace.site.bookURL)
        let small = try Self.picture(try await workspace.client.send(
            "GET", "/image?url=\(book)&path=\(ServeWorkspace.encoded(Self.dataURL(Self.gif, type: "image/gif")))"))
        #expect(small.width == 30 && small.height == 20)
        // 1300 wide for a 640-wide reader: 1300/640 = 2, so half its size; 300 wide for a 100-wide reader: a quarter.
        let wide = try Self.dataURL(Self.png(width: 1300, height: 10, (9, 9, 9, 255)), type: "image/png")
        let halved = try Self.picture(try await workspace.client.send("GET", "/image?url=\(book)&path=\(ServeWorkspace.encoded(wide))"))
        #expect(halved.width == 650 && halved.height == 5 && Self.pixel(halved, 600, 2) == [9, 9, 9, 255])
        let jpeg = try Self.picture(try await workspace.client.send(
            "GET", "/image?url=\(book)&path=\(ServeWorkspace.encoded(Self.dataURL(Self.jpeg, type: "image/jpeg")))&width=50"))
        #expect(jpeg.width == 50 && jpeg.height == 25)

        // A picture no fetch saved: Legado's loading-error picture, not JSON.
        let missing = try await workspace.client.send("GET", "/image?url=\(book)&path=\(ServeWorkspace.encoded(workspace.site.baseURL + "/p/1.png"))&width=640")
        _ = try Self.picture(missing)
        #expect(missing.body == ServedPicture.errorPicture)

        let foreign = try ServeWorkspace.object(try await workspace.client.send(
            "GET", "/image?url=\(ServeWorkspace.encoded("http://nowhere.test/b"))&path=x.png"))
        #expect(foreign["isSuccess"]?.value == .bool(false))
        #expect(foreign["errorMsg"]?.value.stringValue?.hasPrefix("bookUrl不对") == true)
        let noPath = try ServeWorkspace.object(try await workspace.client.send("GET", "/image?url=\(book)"))
        #expect(noPath["errorMsg"]?.value.stringValue?.hasPrefix("图片链接为空") == true)
    }

    @Test("getBookSource and getBookSources write every BookSource field the kept JSON lacks with Legado's default, in the entity's order")
    func sourceDefaults() async throws {
        let workspace = try await ServeWorkspace()
        let saved = #"{"bookSourceName":"other","bookSourceUrl":"http://other.test","bookSourceGroup":null,"searchUrl":"/s?q={{key}}","customField":"kept"}"#
        _ = try ServeWorkspace.data(try await workspace.post("/saveBookSource", saved))
        let source = try #require(try ServeWorkspace.data(try await workspace.get("/getBookSource?url=\(ServeWorkspace.encoded("http://other.test"))")).objectValue)
        #expect(source.keys == ["bookSourceUrl", "bookSourceName", "bookSourceType", "customOrder", "enabled", "enabledExplore",
                                "enabledCookieJar", "lastUpdateTime", "respondTime", "weight", "searchUrl", "customField"])
        #expect(source["customOrder"]?.value == .number("0") && source["weight"]?.value == .number("0"))
        #expect(source["enabled"]?.value == .bool(true) && source["enabledExplore"]?.value == .bool(true))
        #expect(source["respondTime"]?.value == .number("180000") && source["lastUpdateTime"]?.value == .number("0"))
        #expect(source["customField"]?.value == .string("kept"))

        let all = try #require(try ServeWorkspace.data(try await workspace.get("/getBookSources")).arrayValue)
        for entry in all {
            let object = try #require(entry.value.objectValue)
            for key in ["customOrder", "enabled", "enabledExplore", "lastUpdateTime", "respondTime", "weight"] {
                #expect(object[key] != nil, "\(key)")
            }
        }
        // What saveBookSources answers is the entities too.
        let batch = try #require(try ServeWorkspace.data(try await workspace.post("/saveBookSources", "[\(saved)]")).arrayValue)
        #expect(batch.first?.value.objectValue?["respondTime"]?.value == .number("180000"))
    }

    @Test("A rule saved with saveReplaceRule is listed by getReplaceRules under its own id; saving that id again edits it; a rule without an id or order is given them")
    func replaceRuleIDs() async throws {
        let workspace = try await ServeWorkspace()
        func listed() async throws -> [JSONObject] {
            let text = try #require(try ServeWorkspace.data(try await workspace.get("/getReplaceRules")).stringValue)
            return try #require(try JSONParser.parse(text).value.arrayValue).compactMap(\.value.objectValue)
        }
        let rule = #"{"id":1733500000123,"name":"广告","group":"净化","pattern":"本站广告","replacement":"","isRegex":false,"order":5}"#
        _ = try await workspace.post("/saveReplaceRule", rule)
        var rules = try await listed()
        #expect(rules.count == 1)
        #expect(rules.first?["id"]?.value == .number("1733500000123"))
        #expect(rules.first?["order"]?.value == .number("5"))

        _ = try await workspace.post("/saveReplaceRule", rule.replacingOccurrences(of: "本站广告", with: "本站广告!"))
        rules = try await listed()
        #expect(rules.count == 1 && rules.first?["pattern"]?.value == .string("本站广告!"))

        // No id: the time is its id; no order: after the others.
        _ = try await workspace.post("/saveReplaceRule", #"{"name":"星","pattern":"星+","replacement":"*"}"#)
        rules = try await listed()
        #expect(rules.count == 2)
        let added = try #require(rules.first { $0["name"]?.value == .string("星") })
        #expect((added["id"]?.value.intValue ?? 0) > 1_700_000_000_000)
        #expect(added["order"]?.value == .number("6"))

        // Another rule of the same name is another rule (Legado keys rules by id only).
        _ = try await workspace.post("/saveReplaceRule", #"{"id":7,"name":"星","pattern":"月+"}"#)
        #expect(try await listed().count == 3)
        _ = try await workspace.post("/deleteReplaceRule", #"{"id":1733500000123}"#)
        #expect(try await listed().map { $0["id"]?.value.intValue } .contains(1_733_500_000_123) == false)
        #expect(try await listed().count == 2)
    }

    @Test("Progress put back without a chapter title leaves durChapterTitle out of the shelf, as Gson leaves Legado's null out")
    func progressWithoutTitle() async throws {
        let workspace = try await ServeWorkspace()
        let progress = #"{"name":"\#(MirrorSite.bookName)","author":"\#(MirrorSite.author)","durChapterIndex":1,"durChapterPos":0,"durChapterTime":1733500000000}"#
        #expect(try ServeWorkspace.data(try await workspace.post("/saveBookProgress", progress)) == .string(""))
        let shelf = try #require(try ServeWorkspace.data(try await workspace.get("/getBookshelf")).arrayValue)
        let book = try #require(shelf.first?.value.objectValue)
        #expect(book["durChapterIndex"]?.value == .number("1"))
        #expect(book["durChapterTitle"] == nil)
    }

    @Test("Empty bodies and bodies that are not JSON get Legado's error texts first, then the reason in brackets")
    func errorTexts() async throws {
        let workspace = try await ServeWorkspace()
        let cases: [(String, String, String)] = [
            ("/saveBookSource", "", "数据不能为空"), ("/saveBookSource", "  \n", "数据不能为空"), ("/saveBookSource", "{not json", "转换源失败"),
            ("/saveBookSource", "[1]", "转换源失败"), ("/saveBookSources", "", "数据为空"), ("/saveBookSources", "{not json", "转换源失败"),
            ("/saveBookSources", "[]", "转换源失败"), ("/saveBookSources", "[1, 2]", "转换源失败"),
            ("/deleteBookSources", "", "解析字符串为空"), ("/saveReplaceRule", "", "数据不能为空"),
            ("/saveReplaceRule", "{not json", "格式不对"), ("/deleteReplaceRule", "", "数据不能为空"),
            ("/testReplaceRule", "", "数据不能为空"), ("/saveBook", "", "格式不对"), ("/saveBookProgress", "{not json", "格式不对"),
        ]
        for (path, body, expected) in cases {
            let answer = try await workspace.post(path, body)
            #expect(answer["isSuccess"]?.value == .bool(false), "\(path) \(body)")
            let message = answer["errorMsg"]?.value.stringValue ?? ""
            #expect(message == expected || message.hasPrefix(expected + " ("), "\(path) \(body): \(message)")
        }
        let content = try await workspace.get("/getBookContent?url=\(ServeWorkspace.encoded("http://nowhere.test/b"))&index=0")
        #expect(content["errorMsg"]?.value.stringValue?.hasPrefix("未找到") == true)
        // saveReadConfig with no body forgets the settings, as Legado's.
        _ = try ServeWorkspace.data(try await workspace.post("/saveReadConfig", #"{"theme":1}"#))
        #expect(try ServeWorkspace.data(try await workspace.post("/saveReadConfig", "")) == .string(""))
        #expect(try await workspace.get("/getReadConfig")["isSuccess"]?.value == .bool(false))
    }
}
