import BookRule
import Foundation
import Testing
import TestSupport
@testable import bookrule

/// A text source whose content rule takes the whole `div#c`.
private let textSource = """
{"bookSourceName": "text", "bookSourceUrl": "https://text.test",
 "ruleContent": {"title": "//h1/text()", "content": "//div[@id='c']"}}
"""

@Suite("bookrule chapter and rules test with the library's replace rules")
struct ReplaceRuleCommandTests {
    func run(_ words: [String]) async -> (status: Int32, output: String, errors: String) { await runCommand(words) }

    @Test("chapter applies the library's rules to the title and text (not to picture lines); --no-replace shows the raw text; --book scopes")
    func chapterAppliesReplaceRules() async throws {
        let scratch = try ScratchDirectory("replace-cli")
        let directory = scratch.path
        try textSource.write(toFile: directory + "/text.json", atomically: true, encoding: .utf8)
        try "<h1>第1章 广告</h1><div id='c'><p>张三看了一张png。</p><img src='/a.png'></div>"
            .write(toFile: directory + "/c1.html", atomically: true, encoding: .utf8)
        try #"""
        [{"name":"图","pattern":"png","replacement":"jpg","isRegex":false},
         {"name":"标题","pattern":" 广告$","replacement":"","scopeTitle":true,"scopeContent":false},
         {"name":"只在星辰之书","pattern":"张三","replacement":"李四","isRegex":false,"scope":"星辰之书"}]
        """#.write(toFile: directory + "/rules.json", atomically: true, encoding: .utf8)
        let library = directory + "/library.sqlite"
        let imported = await run(["rules", "import", directory + "/rules.json", "--library", library])
        #expect(imported.status == 0, "\(imported.errors)")

        let words = ["chapter", "--source", directory + "/text.json", "--saved", directory + "/c1.html",
                     "https://text.test/c/1.html", "--library", library]
        let replaced = await run(words + ["--explain"])
        #expect(replaced.status == 0, "\(replaced.errors)")
        #expect(replaced.output.hasPrefix("第1章\n"), "\(replaced.output)")
        #expect(replaced.output.contains("张三看了一张jpg。"))
        #expect(replaced.output.contains("<img src=\"https://text.test/a.png\">"), "a picture line is not text")
        #expect(replaced.errors.contains("replace rule \"图\": 1 hit(s)"), "\(replaced.errors)")
        let scoped = await run(words + ["--book", "星辰之书"])
        #expect(scoped.output.contains("李四看了一张jpg。"), "\(scoped.output)")
        let raw = await run(words + ["--no-replace"])
        #expect(raw.output.contains("第1章 广告"))
        #expect(raw.output.contains("张三看了一张png。"))
    }

    @Test("rules test runs one rule over TEXT; a catastrophic regex is named in a warning and the exit is 1; bad JSON is a usage error")
    func rulesTestCommand() async throws {
        let scratch = try ScratchDirectory("replace-cli")
        let library = scratch.path + "/library.sqlite"
        try #"[{"name":"灾难","pattern":"(a+)+$","replacement":"x"},{"name":"t","pattern":"^第","replacement":"Ch ","scopeTitle":true,"scopeContent":false}]"#
            .write(toFile: scratch.path + "/rules.json", atomically: true, encoding: .utf8)
        #expect(await run(["rules", "import", scratch.path + "/rules.json", "--library", library]).status == 0)
        let bad = await run(["rules", "test", "1", String(repeating: "a", count: 40) + "!", "--library", library])
        #expect(bad.status == 1)
        #expect(bad.errors.contains("warning: replace rule \"灾难\" disabled for this run"), "\(bad.errors)")
        let title = await run(["rules", "test", "2", "第一章", "--title", "--library", library])
        #expect(title.output == "Ch 一章\n", "\(title.output)")
        try "[{\"name\": }]".write(toFile: scratch.path + "/broken.json", atomically: true, encoding: .utf8)
        let broken = await run(["rules", "import", scratch.path + "/broken.json", "--library", library])
        #expect(broken.status == 2)
        #expect(broken.errors.contains(scratch.path + "/broken.json: line 1, column"), "\(broken.errors)")
        let missing = await run(["rules", "remove", "9", "--library", library])
        #expect(missing.status == 2)
        #expect(missing.errors.contains("there is no replace rule 9"))
    }

    @Test("a rules file that cannot be read (missing, a directory) is a file the command cannot use: exit 2, named")
    func unreadableRulesFileExitsTwo() async throws {
        let scratch = try ScratchDirectory("replace-cli")
        let library = scratch.path + "/library.sqlite"
        let missing = await run(["rules", "import", scratch.path + "/none.json", "--library", library])
        #expect(missing.status == 2)
        #expect(missing.errors.contains(scratch.path + "/none.json: cannot be read"), "\(missing.errors)")
        let directory = await run(["rules", "import", scratch.path, "--library", library])
        #expect(directory.status == 2, "\(directory.errors)")
    }

    @Test("fetch takes --no-replace and --explain, as export and chapter do, and its help lists them")
    func fetchTakesTheReplaceFlags() async throws {
        let help = await run(["fetch", "--help"])
        #expect(help.output.contains("--no-replace") && help.output.contains("--explain"))
        // Parsed, not refused as unknown: the run stops later, at the missing --source.
        let result = await run(["fetch", "--no-replace", "--explain", "https://x.test/book/1/"])
        #expect(!result.errors.contains("unknown option"), "\(result.errors)")
        #expect(result.errors.contains("--source"), "\(result.errors)")
        // The flags of chapter's replace rules are chapter's alone.
        let toc = await run(["toc", "--source", "x.json", "--no-replace", "https://x.test/book/1/"])
        #expect(toc.status == 2 && toc.errors.contains("--no-replace"), "\(toc.errors)")
    }
}
