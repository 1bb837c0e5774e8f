import BookRuleDocument
import BookRuleRules
import BookRuleScript
import Foundation
import Testing

@Suite("Script helpers: java.*, source, cookie, cache")
struct ScriptHelperTests {
    let host: RecordingScriptHost
    let runtime: ScriptRuntime

    init() throws {
        host = RecordingScriptHost(responses: [
            "https://site.example/api": ScriptResponse(url: "https://site.example/api", statusCode: 200,
                                                       fields: [("Content-Type", "application/json"),
                                                                ("Set-Cookie", "sid=abc; Path=/"),
                                                                ("Set-Cookie", "lang=zh; Expires=Wed, 21 Oct 2037 07:28:00 GMT")],
                                                       body: #"{"ok":true}"#),
            "https://site.example/page": ScriptResponse(url: "https://site.example/page", body: "<p>hi</p>"),
        ])
        runtime = try ScriptRuntime(jsLib: nil, host: host)
    }

    @Test("getString, getStringList and getElements run rules on the context; setContent changes it")
    func ruleHelpers() throws {
        let document = try HTMLDocument(bytes: Array("<ul><li class='a'>one</li><li class='a'>two</li></ul><b>x</b>".utf8),
                                        url: "https://site.example/list")
        let context = RuleContext.node(document.root)
        #expect(try runtime.text("java.getString('class.a@text')", context: context) == "one\ntwo")
        #expect(try runtime.text("java.getStringList('class.a@text').size()", context: context) == "2")
        #expect(try runtime.text("java.getElements('class.a').get(1).text()", context: context) == "two")
        #expect(try runtime.text("java.getString('tag.b@text', '<b>inner</b>')", context: context) == "inner")
        #expect(try runtime.text("java.setContent('{\"a\":{\"b\":\"deep\"}}'); java.getString('$.a.b')", context: context) == "deep")
        let items = try runtime.run("java.getElements('class.a')", context: context)
        guard case .items(let nodes) = items, nodes.count == 2, case .node(let node) = nodes[0] else {
            Issue.record("expected two nodes, got \(items.summary)")
            return
        }
        #expect(node.stringValue == "one")
    }

    @Test("put and get use the rule variables")
    func variables() throws {
        let variables = RuleVariables(["known": "v1"])
        #expect(try runtime.text("java.put('k', 'stored') + java.get('known')", variables: variables) == "storedv1")
        #expect(variables["k"] == "stored")
        #expect(try runtime.text("book.putVariable('b', 2); book.getVariable('b')",
                                 bindings: ScriptBindings(book: ScriptBook(name: "N")), variables: variables) == "2")
    }

    @Test("network helpers go through the host: ajax returns error text, get/post/head/connect give responses")
    func network() throws {
        #expect(try runtime.text("java.ajax('https://site.example/page')") == "<p>hi</p>")
        #expect(try runtime.text("java.ajax('https://site.example/missing')") == "no answer for https://site.example/missing")
        #expect(try runtime.text("var r = java.get('https://site.example/api', {'X-A': '1'}); r.statusCode() + r.header('content-type') + r.body() + r.cookie('sid')")
            == #"200application/json{"ok":true}abc"#)
        #expect(try runtime.text("JSON.stringify(java.get('https://site.example/api', {}).cookies())") == #"{"lang":"zh","sid":"abc"}"#)
        #expect(try runtime.text("java.post('https://site.example/api', 'a=1', {}).url()") == "https://site.example/api")
        #expect(try runtime.text("java.connect('https://site.example/page').body()") == "<p>hi</p>")
        #expect(try runtime.text("java.connect('https://site.example/nope').code()") == "500")
        #expect(try runtime.text("java.ajaxAll(['https://site.example/page', 'https://site.example/api']).map(r => r.code()).join()") == "200,200")
        #expect(throws: ScriptError.self) { try runtime.run("java.get('https://site.example/nope', {})") }
        #expect(try runtime.text("try { java.head('https://site.example/nope', {}); 'no' } catch (e) { 'caught' }") == "caught")
        let requests = host.requests
        #expect(requests.contains(.spec("https://site.example/page")))
        #expect(requests.contains(.explicit(url: "https://site.example/api", method: "GET", headers: ["X-A": "1"], body: nil)))
        #expect(requests.contains(.explicit(url: "https://site.example/api", method: "POST", headers: [:], body: "a=1")))
    }

    @Test("log returns its argument; toast and longToast become messages")
    func messages() throws {
        #expect(try runtime.text("java.log('x') + '!'") == "x!")
        _ = try runtime.run("java.toast('t'); java.longToast('l')")
        #expect(host.messages.suffix(3) == ["x", "t", "l"])
    }

    @Test("Base64, hex, bytes and digests")
    func encodings() throws {
        #expect(try runtime.text("java.base64Encode('书源 ok')") == Data("书源 ok".utf8).base64EncodedString())
        #expect(try runtime.text("java.base64Decode('5Lmm5rqQ')") == "书源")
        #expect(try runtime.text("java.base64Decode('5Lmm5rqQ', 'UTF-8') + java.base64DecodeToByteArray('AQI=').join()") == "书源1,2")
        #expect(try runtime.text("java.base64DecodeToByteArray('_-8').join()") == "-1,-17")
        #expect(try runtime.text("java.base64Encode('a'.repeat(60), 0).split('\\n').length") == "3")
        #expect(try runtime.text("java.md5Encode('abc')") == "900150983cd24fb0d6963f7d28e17f72")
        #expect(try runtime.text("java.md5Encode16('abc')") == "3cd24fb0d6963f7d")
        #expect(try runtime.text("java.digestHex('abc', 'SHA-256')") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(try runtime.text("java.HMacHex('The quick brown fox jumps over the lazy dog', 'HmacSHA256', 'key')")
            == "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8")
        #expect(try runtime.text("java.hexEncodeToString('书') + java.hexDecodeToString('e4b9a6')") == "e4b9a6书")
        #expect(try runtime.text("java.strToBytes('书', 'GBK').join()") == "-54,-23")
        #expect(try runtime.text("java.bytesToStr([-54, -23], 'GBK') + java.bytesToStr(java.strToBytes('é'))") == "书é")
        #expect(try runtime.text("'书'.getBytes().length") == "3")
    }

    @Test("encodeURI is Java's form encoding, in the given charset")
    func encodeURI() throws {
        #expect(try runtime.text("java.encodeURI('斗破 a+b*~')") == "%E6%96%97%E7%A0%B4+a%2Bb*%7E")
        #expect(try runtime.text("java.encodeURI('斗破', 'GBK')") == "%B6%B7%C6%C6")
        #expect(try runtime.text("java.encodeURI('x', 'no-such-charset')") == "")
    }

    @Test("createSymmetricCrypto and the AES wrappers (libcrypto)")
    func symmetricCrypto() throws {
        // openssl enc -aes-128-cbc -K $(printf 1234567890abcdef | xxd -p) -iv $(printf abcdef1234567890 | xxd -p) <<< -n 'hello'
        let crypto = "java.createSymmetricCrypto('AES/CBC/PKCS5Padding', '1234567890abcdef', 'abcdef1234567890')"
        let encrypted = try runtime.text("\(crypto).encryptBase64('书源 hello')")
        #expect(try runtime.text("\(crypto).decryptStr('\(encrypted)')") == "书源 hello")
        let hex = try runtime.text("\(crypto).encryptHex('书源 hello')")
        #expect(try runtime.text("\(crypto).decryptStr('\(hex)')") == "书源 hello")
        #expect(try runtime.text("java.aesBase64DecodeToString('\(encrypted)', '1234567890abcdef', 'AES/CBC/PKCS5Padding', 'abcdef1234567890')") == "书源 hello")
        #expect(try runtime.text("java.createSymmetricCrypto('AES', '1234567890abcdef').decrypt(java.createSymmetricCrypto('AES', '1234567890abcdef').encrypt('x')).length") == "1")
        #expect(throws: ScriptError.self) { try runtime.run("java.createSymmetricCrypto('AES/CBC/PKCS5Padding', 'short', 'x').encryptHex('a')") }
    }

    @Test("t2s and s2t (OpenCC), htmlFormat, toNumChapter, toURL, randomUUID")
    func text() throws {
        #expect(try runtime.text("java.t2s('頭髮和發展')") == "头发和发展")
        #expect(try runtime.text("java.s2t('头发')") == "頭髮")
        #expect(try runtime.text("java.htmlFormat('<p>a</p><p>b &amp; c</p>')").contains("b & c"))
        #expect(try runtime.text("java.toNumChapter('第一百二十三章 开始')") == "第123章 开始")
        #expect(try runtime.text("java.toNumChapter('序章')") == "序章")
        #expect(try runtime.text("var u = java.toURL('/s?q=%E4%B9%A6&p=2', 'https://a.example:8080/x'); u.host + u.pathname + u.searchParams.q + u.searchParams.p") == "a.example:8080/s书2")
        #expect(try runtime.text("/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(java.randomUUID())") == "true")
    }

    @Test("timeFormat and timeFormatUTC")
    func time() throws {
        #expect(try runtime.text("java.timeFormatUTC(0, 'yyyy-MM-dd HH:mm:ss', 8 * 3600000)") == "1970-01-01 08:00:00")
        #expect(try runtime.text("java.timeFormatUTC(1700000000000, \"yyyy/MM/dd'T'HH:mm:ss.SSS EEE\", 0)") == "2023/11/14T22:13:20.000 Tue")
        let fixed = try ScriptRuntime(jsLib: nil, host: RecordingScriptHost(clock: .fixed(epochMilliseconds: 0, seed: 1)))
        #expect(try fixed.text("java.timeFormat(1700000000000)") == "2023/11/15 06:13")
        #expect(try fixed.text("java.timeFormat(new Date().getTime())") == "1970/01/01 08:00")
    }

    @Test("source, cookie and cache reach the host")
    func hostObjects() throws {
        #expect(try runtime.text("source.getKey() + source.bookSourceUrl + source.key") == String(repeating: "https://source.example", count: 3))
        #expect(try runtime.text("source.getTag() + '|' + source.bookSourceName") == "Test source|Test source")
        _ = try runtime.run("source.setVariable('secret')")
        #expect(try runtime.text("source.getVariable()") == "secret")
        _ = try runtime.run("cookie.setCookie('https://site.example', 'a=1; b=2'); cookie.replaceCookie('https://site.example', 'b=3')")
        #expect(try runtime.text("cookie.getKey('https://site.example', 'b') + java.getCookie('https://site.example', 'a')") == "31")
        #expect(try runtime.text("cookie.getCookie('https://site.example')") == "a=1; b=3")
        _ = try runtime.run("cookie.removeCookie('https://site.example')")
        #expect(try runtime.text("cookie.getCookie('https://site.example')") == "")
        _ = try runtime.run("cache.put('k', 'v', 60); cache.putMemory('m', {x: 1})")
        #expect(try runtime.text("cache.get('k') + cache.getFromMemory('m').x") == "v1")
        _ = try runtime.run("cache.delete('k')")
        #expect(try runtime.text("String(cache.get('k'))") == "null")
        _ = try runtime.run("source.put('p', 'q')")
        #expect(try runtime.text("source.get('p')") == "q")
    }

    @Test("bindings are globals: key, page, baseUrl, book, chapter, title, nextChapterUrl")
    func bindings() throws {
        let bindings = ScriptBindings(key: "斗破", page: 2, baseURL: "https://site.example/b",
                                      book: ScriptBook(name: "书", author: "某", bookURL: "https://site.example/book"),
                                      chapter: ScriptChapter(title: "第1章", url: "https://site.example/c1", index: 3),
                                      nextChapterURL: "https://site.example/c2")
        #expect(try runtime.text("[key, page, baseUrl, book.name, book.author, book.bookUrl, chapter.index, title, nextChapterUrl].join('|')",
                                 bindings: bindings) == "斗破|2|https://site.example/b|书|某|https://site.example/book|3|第1章|https://site.example/c2")
        #expect(try runtime.text("String(key) + String(book)") == "nullnull")
    }

    @Test("every helper the lint counts as implemented exists in the runtime")
    func helperTable() throws {
        let names = try runtime.run("Object.keys(java).concat(Object.getOwnPropertyNames(java)).filter((n, i, a) => a.indexOf(n) === i)")
        let defined = Set(names.strings)
        let problems = ScriptRuntime.unsupportedHelpers(in: defined.map { "java.\($0)()" }.joined(separator: ";"))
        let implementedNames = defined.filter { name in !problems.contains { $0.name == "java.\(name)" } }
        #expect(implementedNames.count >= 50)
        for problem in problems {
            #expect(problem.kind != .notImplemented, "\(problem.name) is defined but the lint calls it missing")
        }
    }
}
