import Foundation
import Testing
@testable import BookRuleEngine
import BookRuleLocking
import BookRuleJSON
import BookRuleDocument
import BookRuleScript
import BookRuleHTTP
import BookRuleLibrary
import TestSupport

@Suite("Replace rules (Legado's replaceRule JSON) applied to exports, never to saved text")
struct ReplaceRuleTests {
    @Test("a library given as a bare file name keeps its rules and script cache in the current directory, not in /")
    func bareLibraryNameStaysInTheCurrentDirectory() {
        #expect(ReplaceRuleSet.path(forLibraryAt: "lib.sqlite") == "./replace-rules.json")
        #expect(LibraryStore.scriptCacheDirectory(forLibraryAt: "lib.sqlite") == "./script-cache")
        #expect(ReplaceRuleSet.path(forLibraryAt: "/x/lib.sqlite") == "/x/replace-rules.json")
    }

    static let sourceURL = "http://127.0.0.9"

    /// A library with one book of two saved chapters.
    static func library(in folder: String) throws -> (LibraryStore, StoredBook) {
        try savedTwoChapterBook(in: folder, name: "星辰之书", author: "无名", chapters: [
            ("第一章 广告", "张三来了。\n本站网址www.ad.com请收藏"), ("第二章 星辰", "张三走了。"),
        ])
    }

    /// The texts `run` makes of `texts` as chapter text.
    static func content(_ rules: [ReplaceRule], _ text: String, book: String = "星辰之书",
                        source: String = sourceURL) -> String {
        ReplaceRuleRun(rules, bookName: book, sourceURL: source).apply(text, to: .content)
    }

    @Test("a rule scoped to a book name or a source URL applies only there; excludeScope keeps it away")
    func scopeMatchesBookNameOrSourceURL() {
        let byName = ReplaceRule(name: "n", pattern: "张三", replacement: "李四", isRegex: false, scope: "别的书;星辰之书")
        #expect(Self.content([byName], "张三") == "李四")
        #expect(Self.content([byName], "张三", book: "另一本") == "张三")
        let bySource = ReplaceRule(name: "s", pattern: "张三", replacement: "李四", isRegex: false, scope: "HTTP://127.0.0.9")
        #expect(Self.content([bySource], "张三", book: "另一本") == "李四")
        #expect(Self.content([bySource], "张三", book: "另一本", source: "http://other.example") == "张三")
        let excluded = ReplaceRule(name: "e", pattern: "张三", replacement: "李四", isRegex: false, excludeScope: "星辰之书")
        #expect(Self.content([excluded], "张三") == "张三")
        #expect(Self.content([excluded], "张三", book: "另一本") == "李四")
        let disabled = ReplaceRule(name: "d", pattern: "张三", replacement: "李四", isRegex: false, isEnabled: false)
        #expect(Self.content([disabled], "张三") == "张三")
    }

    @Test("scopeTitle rules change chapter titles only, scopeContent rules the text only")
    func titleAndContentScopes() throws {
        let scratch = try ScratchDirectory("replace")
        let (store, book) = try Self.library(in: scratch.path)
        let title = ReplaceRule(name: "t", pattern: "^第(.)章 ", replacement: "Chapter $1: ", scopeTitle: true, scopeContent: false)
        let content = ReplaceRule(name: "c", pattern: "第", replacement: "X", isRegex: false)
        let run = ReplaceRuleRun([title, content], bookName: book.name, sourceURL: book.sourceURL)
        let export = try LibraryExport(book, store: store).replaced(by: run)
        #expect(export.book.chapters.map(\.title) == ["Chapter 一: 广告", "Chapter 二: 星辰"])
        #expect(export.book.chapters[1].text == "张三走了。")
        #expect(run.tallies.map(\.hits) == [2, 0])
        #expect(ReplaceRuleRun([title], bookName: "", sourceURL: "").apply("第一章 x", to: .content) == "第一章 x")
    }

    @Test("the rules file is read again after every change (an atomic save, a rewrite in place, a removal), not per ask")
    func rulesFileFollowsChanges() throws {
        let scratch = try ScratchDirectory("replace")
        let file = ReplaceRuleFile(libraryPath: scratch.path + "/library.sqlite")
        #expect(try file.rules().rules.isEmpty)
        let first = ReplaceRule(name: "first", pattern: "A", replacement: "B", isRegex: false)
        try ReplaceRuleSet(rules: [first]).save(to: file.path)
        #expect(try file.rules().rules.map(\.name) == ["first"])
        let second = ReplaceRule(name: "second", pattern: "C", replacement: "D", isRegex: false)
        try ReplaceRuleSet(rules: [first, second]).save(to: file.path)
        #expect(try file.rules().rules.map(\.name) == ["first", "second"])
        // Rewritten in place (same inode), one byte longer: still noticed.
        let saved = try Data(contentsOf: URL(fileURLWithPath: file.path))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file.path))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data("[]\n".utf8))
        try handle.close()
        #expect(try file.rules().rules.isEmpty)
        try saved.write(to: URL(fileURLWithPath: file.path))
        #expect(try file.rules().rules.count == 2)
        try FileManager.default.removeItem(atPath: file.path)
        #expect(try file.rules().rules.isEmpty)
    }

    @Test("a plain rule replaces its text literally; a regex rule uses Java's $n groups")
    func plainAndRegexRules() {
        let plain = ReplaceRule(name: "p", pattern: "a.c", replacement: "[$1]", isRegex: false)
        #expect(Self.content([plain], "abc a.c") == "abc [$1]")
        let regex = ReplaceRule(name: "r", pattern: "a(.)c", replacement: "[$1]")
        #expect(Self.content([regex], "abc a.c") == "[b] [.]")
    }

    @Test("rules run in ascending order, whatever order they were imported in")
    func rulesRunInOrder() {
        let second = ReplaceRule(name: "second", pattern: "B", replacement: "C", isRegex: false, order: 2)
        let first = ReplaceRule(name: "first", pattern: "A", replacement: "B", isRegex: false, order: 1)
        #expect(Self.content([second, first], "A") == "C")
        let reversed = ReplaceRule(name: "late", pattern: "A", replacement: "B", isRegex: false, order: 3)
        #expect(Self.content([second, reversed], "A") == "B")
    }

    @Test("a catastrophic regex is disabled for the run with a warning naming it; the other rules still run")
    func catastrophicRegexDisabledWithWarning() {
        let bad = ReplaceRule(name: "回溯灾难", pattern: "(a+)+$", replacement: "", order: 1)
        let good = ReplaceRule(name: "ok", pattern: "!", replacement: "?", isRegex: false, order: 2)
        let run = ReplaceRuleRun([bad, good], bookName: "", sourceURL: "")
        let subject = String(repeating: "a", count: 40) + "!"
        #expect(run.apply(subject, to: .content) == String(repeating: "a", count: 40) + "?")
        #expect(run.warnings.count == 1)
        #expect(run.warnings.first?.contains("replace rule \"回溯灾难\" disabled for this run") == true)
        #expect(run.tallies.map(\.disabled) == [true, false])
        // Disabled for the rest of the run: not tried again, no second warning.
        #expect(run.apply("aaa", to: .content) == "aaa")
        #expect(run.warnings.count == 1)
    }

    @Test("a kept rule whose regex no longer compiles is named in the export's warnings; the other rules still run")
    func brokenRegexWarnsInExport() throws {
        let scratch = try ScratchDirectory("replace")
        let (store, book) = try Self.library(in: scratch.path)
        let broken = ReplaceRule(name: "坏的", pattern: "(张", replacement: "")
        let name = ReplaceRule(name: "ok", pattern: "张三", replacement: "李四", isRegex: false)
        let run = ReplaceRuleRun([broken, name], bookName: book.name, sourceURL: book.sourceURL)
        let export = try LibraryExport(book, store: store).replaced(by: run)
        #expect(export.book.chapters[1].text == "李四走了。")
        #expect(export.warnings.contains { $0.hasPrefix("replace rule \"坏的\" disabled: invalid regex") }, "\(export.warnings)")
    }

    @Test("a rule that takes longer than its timeoutMillisecond is disabled and its result dropped")
    func slowRuleDisabledAfterItsTimeout() {
        nonisolated(unsafe) var reading = Duration.zero
        let slow = ReplaceRule(name: "slow", pattern: "x", replacement: "y", isRegex: false, timeoutMillisecond: 50)
        let run = ReplaceRuleRun([slow], bookName: "", sourceURL: "", now: {
            reading += .milliseconds(40)  // each rule application appears to take 40 ms… then 80 ms.
            return reading
        })
        #expect(run.apply("x", to: .content) == "y")
        let slower = ReplaceRuleRun([slow], bookName: "", sourceURL: "", now: {
            reading += .milliseconds(60)
            return reading
        })
        #expect(slower.apply("x", to: .content) == "x")
        #expect(slower.warnings == ["replace rule \"slow\" disabled for this run: it took 60 ms, more than its timeoutMillisecond of 50"])
    }

    @Test("Legado's JSON is read leniently (string Booleans, sortOrder); errors name the file, line, column or field")
    func legadoJSONParsing() throws {
        let scratch = try ScratchDirectory("replace")
        let file = scratch.path + "/rules.json"
        try #"{"name":"x","pattern":"a","isRegex":"false","scopeTitle":1,"sortOrder":"7"}"#
            .write(toFile: file, atomically: true, encoding: .utf8)
        let parsed = try ReplaceRuleSet.parse(file: file)
        #expect(parsed.rules == [ReplaceRule(name: "x", pattern: "a", isRegex: false, scopeTitle: true, order: 7)])
        try "[{\"name\":\"x\",\n \"pattern\": }]".write(toFile: file, atomically: true, encoding: .utf8)
        #expect {
            try ReplaceRuleSet.parse(file: file)
        } throws: { error in
            "\(error)".hasPrefix(file + ": line 2, column")
        }
        try #"[{"name":"x"}]"#.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(throws: ReplaceRuleError.invalidRule(path: file + "[0]", field: "pattern", reason: "a rule needs a pattern to find")) {
            try ReplaceRuleSet.parse(file: file)
        }
        try #"[{"name":"bad","pattern":"(a"},{"name":"js","pattern":"a","replacement":"@js:result"},{"name":"ok","pattern":"a"}]"#
            .write(toFile: file, atomically: true, encoding: .utf8)
        let partly = try ReplaceRuleSet.parse(file: file)
        #expect(partly.rules.map(\.name) == ["ok"])
        #expect(partly.warnings.count == 2)
        #expect(partly.warnings.first?.contains("replace rule \"bad\" left out") == true)
    }
}
