import BookRuleServe
import Testing
import TestSupport

@Suite("bookSourceDebug: the chain's log, line by line, as Legado's Debug prints it", .serialized,
       .timeLimit(.minutes(2 * TestTime.scale)))
struct SourceDebugSocketTests {
    @Test func aKeywordRunsSearchBookTocAndContentAndStreamsTheirMarkedLines() async throws {
        let site = try LegadoSocketSite()
        let mirror = site.mirrors[0]
        let (lines, closeCode) = try await site.exchange("/bookSourceDebug", #"{"tag":"\#(mirror.baseURL)","key":"镜中"}"#)
        #expect(closeCode == 1000)
        let texts = lines.map(Self.withoutStamp)
        let expectedInOrder = [
            "⇒开始搜索关键字:镜中", "︾开始解析搜索页", "≡获取成功:\(mirror.baseURL)/search?q=", "┌获取书籍列表", "└列表大小:1",
            "┌获取书名", "└\(MirrorSite.bookName)", "┌获取作者", "└\(MirrorSite.author)", "◇书籍总数:1", "︽搜索页解析完成",
            "︾开始解析详情页", "≡获取成功:\(mirror.bookURL)", "︽详情页解析完成",
            "︾开始解析目录页", "┌获取目录列表", "└列表大小:3", "◇章节名称:\(MirrorSite.title(1, style: .arabic))",
            "◇章节链接:\(mirror.bookURL)1.html", "◇目录总数:3", "︽目录页解析完成",
            "︾开始解析正文页", "≡获取成功:\(mirror.bookURL)1.html", "┌获取章节名称", "┌获取正文内容", "└\n", "︽正文页解析完成",
        ]
        var position = texts.startIndex
        for expected in expectedInOrder {
            guard let found = texts[position...].firstIndex(where: { $0.hasPrefix(expected) }) else {
                Issue.record("no line starting \(expected) after line \(position) in:\n\(texts.joined(separator: "\n"))")
                break
            }
            position = found + 1
        }
        #expect(lines.contains { $0.contains(MirrorSite.paragraphs(1)[0]) })
        // Every line but the blank separators carries Legado's time stamp.
        for line in lines where !line.isEmpty {
            #expect(line.wholeMatch(of: /\[\d\d:\d\d\.\d\d\d\] (.|\n)*/) != nil, "\(line)")
        }
        #expect(lines.contains(""))
        #expect(texts.last == "︽正文页解析完成")
        await site.server.stopAwaitingWebSocketHandlers()
    }

    @Test func aBookURLStartsAtTheBookPageAndAFailingStepEndsWithItsError() async throws {
        let site = try LegadoSocketSite()
        let mirror = site.mirrors[0]
        let (lines, _) = try await site.exchange("/bookSourceDebug", #"{"tag":"\#(mirror.baseURL)","key":"\#(mirror.bookURL)"}"#)
        let texts = lines.map(Self.withoutStamp)
        #expect(texts.first == "⇒开始访问详情页:\(mirror.bookURL)")
        #expect(!texts.contains("︾开始解析搜索页"))
        #expect(texts.last == "︽正文页解析完成")

        let missing = mirror.baseURL + "/book/9/"
        let failed = try await site.exchange("/bookSourceDebug", #"{"tag":"\#(mirror.baseURL)","key":"\#(missing)"}"#)
        let failedTexts = failed.messages.map(Self.withoutStamp)
        #expect(failedTexts.prefix(2) == ["⇒开始访问详情页:\(missing)", "︾开始解析详情页"])
        #expect(failedTexts.last?.contains("404") == true, "\(failedTexts)")
        #expect(!failedTexts.contains("︾开始解析目录页"))
        #expect(failed.closeCode == 1000)
        await site.server.stopAwaitingWebSocketHandlers()
    }

    @Test func anUnknownSourceIsSaidAndClosed() async throws {
        let site = try LegadoSocketSite()
        let (lines, closeCode) = try await site.exchange("/bookSourceDebug", #"{"tag":"http://nowhere.test","key":"镜"}"#)
        #expect(lines == ["no source has bookSourceUrl http://nowhere.test"])
        #expect(closeCode == 1000)
        await site.server.stopAwaitingWebSocketHandlers()
    }

    /// A line without its `[mm:ss.SSS] ` stamp.
    static func withoutStamp(_ line: String) -> String {
        guard line.hasPrefix("["), line.count > 12 else { return line }
        return String(line.dropFirst(12))
    }
}
