import BookRuleDocument
import BookRuleJSON
import Foundation
import Testing
import TestSupport

@Suite("Legado's url,{options}: one split for every place that reads it")
struct URLWithOptionsTests {
    @Test(arguments: [
        ("/s.php,{\"method\":\"POST\"}", "/s.php", "{\"method\":\"POST\"}"),
        ("  /s.php , \n {'webView': true}  ", "/s.php", "{'webView': true}"),
        ("/list_{{page}}.html,{{page}}", "/list_{{page}}.html,{{page}}", nil),
        ("/s?k={{key}},{\"body\":\"a={{key}}\"}", "/s?k={{key}}", "{\"body\":\"a={{key}}\"}"),
        ("/s?x={{ {a:1,b:{c:2}}.a }},{\"charset\":\"gbk\"}", "/s?x={{ {a:1,b:{c:2}}.a }}", "{\"charset\":\"gbk\"}"),
        ("http://a.test/1.jpg,%7B%22headers%22:%7B%22Referer%22:%22x%22%7D%7D", "http://a.test/1.jpg", "{\"headers\":{\"Referer\":\"x\"}}"),
        ("http://a.test/a,b.jpg", "http://a.test/a,b.jpg", nil),
        ("/x,%7B%7Bpage%7D%7D", "/x,%7B%7Bpage%7D%7D", nil),
        ("", "", nil),
    ] as [(String, String, String?)])
    func splits(_ text: String, _ address: String, _ options: String?) {
        let split = URLWithOptions(text)
        #expect(split.address == address)
        #expect(split.options == options)
        #expect(split.optionsSuffix == (options.map { "," + $0 } ?? ""))
    }

    @Test("Every searchUrl of the shared corpus splits where Legado's AnalyzeUrl splits it, and nearly all options are JSON objects")
    func theCorpusSearchURLs() throws {
        let folder = SharedCorpus.path("legado")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".json") }
        try #require(!files.isEmpty, "no corpus at \(folder)")
        // Legado evaluates `{{…}}` before it splits at `\s*,\s*(?=\{)`: the templates are masked (same length) here.
        let template = try NSRegularExpression(pattern: #"\{\{[\s\S]*?\}\}"#)
        let legadoSplit = try NSRegularExpression(pattern: #"\s*,\s*(?=\{)"#)
        var withOptions = 0
        var objects = 0
        for file in files {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/" + file)))
            guard case .array(let sources) = try JSONParser.parse(bytes, lenient: true).value else { continue }
            for source in sources {
                guard let url = source.value.objectValue?["searchUrl"]?.value.stringValue,
                      !url.contains("@js:"), !url.contains("<js>") else { continue }
                var masked = url as NSString
                for match in template.matches(in: url, range: NSRange(location: 0, length: masked.length)).reversed() {
                    masked = masked.replacingCharacters(in: match.range, with: String(repeating: "x", count: match.range.length)) as NSString
                }
                let legado = legadoSplit.firstMatch(in: masked as String, range: NSRange(location: 0, length: masked.length))
                let split = URLWithOptions(url)
                let expected = legado.map { (url as NSString).substring(to: $0.range.location) } ?? url
                #expect(split.address == expected.trimmingCharacters(in: .whitespacesAndNewlines), "\(file): \(url.prefix(160))")
                #expect((split.options != nil) == (legado != nil), "\(file): \(url.prefix(160))")
                guard let options = split.options else { continue }
                withOptions += 1
                // Gson reads the options leniently: unquoted names and single quotes are common.
                if (try? JSONParser.parse(options, lenient: true))?.value.objectValue != nil { objects += 1 }
            }
        }
        #expect(withOptions > 300)
        // The rest are the sources' own mistakes (`{"body": "id"="x"}`) or JSON that only its evaluated
        // templates complete.
        #expect(Double(objects) >= 0.98 * Double(withOptions), "\(objects) of \(withOptions) options are JSON objects")
    }
}
