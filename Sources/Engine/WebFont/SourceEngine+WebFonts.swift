import Foundation
import BookRuleDocument
import BookRuleFont
import BookRuleHTTP
import BookRuleLocking
import BookRuleRules

extension SourceEngine {
    /// Decodes, in place, the text a page's web fonts draw as other characters, so the content rule reads what a
    /// reader sees (docs/fonts.md). The fonts come from `@font-face` in the page's `<style>` blocks and the
    /// stylesheets it links or imports; the CSS decides which elements each font draws, and only their text is
    /// changed. Text of Private Use Area characters that no rule reaches is decoded with the font whose map
    /// holds them. Nil when the page declares no web font (or decoding is off).
    ///
    /// Also gives what the page's fonts decode Private Use Area code points to, which the content step applies
    /// to the chapter's text at the end: a rule that reads the page's source (a regex over the whole page, a
    /// script's `src`) sees the bytes as fetched.
    func decodeWebFonts(in document: HTMLDocument, headers: [HTTPHeader]) async -> (report: WebFontReport, privateUse: [UInt32: UInt32])? {
        guard let reading = options.webFonts, document.json == nil else { return nil }
        let sheets = await Self.styleSheets(of: document, reading: reading) { url in
            await fetchResource(url, headers: headers, referer: document.url, limit: WebFontReading.maxSheetBytes)
                .map { String(decoding: $0, as: UTF8.self) }
        }
        // Bounded: a hostile page could name thousands of fonts, sources or rules.
        var faces: [StyleSheet.FontFace] = []
        var familyIndex: [String: Int] = [:]
        for face in sheets.lazy.flatMap(\.fontFaces) {
            if let index = familyIndex[face.family.lowercased()] {
                let known = Set(faces[index].sources)
                faces[index].sources += face.sources.filter { !known.contains($0) }
            } else if faces.count < Self.facesPerPage {
                familyIndex[face.family.lowercased()] = faces.count
                faces.append(face)
            }
        }
        guard !faces.isEmpty else { return nil }
        let families = faces.map(\.family)
        var elements = Array(repeating: [HTMLNode](), count: faces.count)
        for (selector, family) in sheets.lazy.flatMap({ $0.rules(naming: families) }).prefix(Self.rulesPerPage) {
            guard let index = familyIndex[family.lowercased()] else { continue }
            elements[index] += Self.elements(matching: selector, in: document)
        }
        for node in Self.nodes("//*[@style]", in: document) {
            guard let style = node.attribute("style"), let family = StyleSheet.family(namedIn: style, among: families),
                  let index = families.firstIndex(of: family) else { continue }
            elements[index].append(node)
        }
        let drawn = DrawnText.textNodes(drawnBy: elements)
        var report = WebFontReport()
        var privateUse: [UInt32: UInt32] = [:]
        var privateUseDecoded = false
        let deadline = ContinuousClock.now + Self.pageTimeLimit
        // Fonts that rules give to text first, so the Private Use Area fallback below never takes text one of
        // them draws (decoding a text twice would scramble it again).
        let order = faces.indices.sorted { (drawn[$0].isEmpty ? 1 : 0, $0) < (drawn[$1].isEmpty ? 1 : 0, $1) }
        for index in order {
            let face = faces[index]
            guard ContinuousClock.now < deadline else {
                report.fonts.append(WebFontReport.Font(family: face.family, url: nil, glyphs: 0, changed: 0,
                                                       error: "the page's fonts took longer than \(Self.pageTimeLimit)"))
                continue
            }
            var textNodes = drawn[index]
            var onlyPrivateUse = false
            if textNodes.isEmpty {
                // No rule we read gives the font to any text; Private Use Area text no other font draws can still
                // only be its.
                guard !privateUseDecoded else { continue }
                let claimed = DrawnText.claimed(drawn)
                textNodes = DrawnText.textNodes(drawnBy: [[document.root]])[0].filter { node in
                    !claimed.contains(node) && node.stringValue.unicodeScalars.contains(where: ObfuscatedText.isPrivateUse)
                }
                onlyPrivateUse = true
            }
            var characters = Set<UInt32>()
            for node in textNodes {
                for scalar in node.stringValue.unicodeScalars where !scalar.properties.isWhitespace
                    && (!onlyPrivateUse || ObfuscatedText.isPrivateUse(scalar)) {
                    characters.insert(scalar.value)
                }
            }
            guard !characters.isEmpty else { continue }
            let (decoding, url, error) = await decode(face, characters: characters, reading: reading, headers: headers,
                                                       referer: document.url)
            var font = WebFontReport.Font(family: face.family, url: url, glyphs: 0, changed: 0, error: error)
            if let decoding {
                if onlyPrivateUse && decoding.glyphs.isEmpty { continue }
                for node in textNodes {
                    let text = node.stringValue
                    let decoded = decoding.apply(to: text)
                    if decoded != text { document.setText(of: node, to: decoded) }
                }
                for (code, glyph) in decoding.glyphs where ObfuscatedText.isPrivateUse(Unicode.Scalar(code) ?? " ") {
                    privateUse[code] = privateUse[code] ?? glyph.scalar
                }
                font.glyphs = decoding.glyphs.count
                font.changed = decoding.glyphs.filter { $0.key != $0.value.scalar }.count
                if onlyPrivateUse { privateUseDecoded = true }
                for (codePoint, glyph) in decoding.glyphs.sorted(by: { $0.key < $1.key }) where glyph.isLowConfidence {
                    report.lowConfidence.append(WebFontReport.Guess(
                        codePoint: Self.codePointName(codePoint), character: glyph.character,
                        runnerUp: glyph.runnerUp.flatMap(Unicode.Scalar.init).map { String(Character($0)) }, family: face.family))
                }
                if decoding.unreached > 0 {
                    font.error = "\(decoding.unreached) glyph(s) were not decoded within the time limit"
                }
            } else if onlyPrivateUse && error == nil {
                continue
            }
            report.fonts.append(font)
        }
        return report.fonts.isEmpty ? nil : (report, privateUse)
    }

    /// `text` with the Private Use Area code points of `map` replaced (what no decoded text node held: text a rule
    /// read from the page's source).
    static func replacingPrivateUse(in text: String, with map: [UInt32: UInt32]) -> String {
        guard !map.isEmpty, text.unicodeScalars.contains(where: ObfuscatedText.isPrivateUse) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            result.append(map[scalar.value].flatMap(Unicode.Scalar.init) ?? scalar)
        }
        return String(result)
    }

    /// The first of the face's sources that can be read and decoded: its decoding, the URL it came from, or why
    /// none could be.
    private func decode(_ face: StyleSheet.FontFace, characters: Set<UInt32>, reading: WebFontReading,
                        headers: [HTTPHeader], referer: String) async -> (FontDecoding?, String?, String?) {
        var problem = "its @font-face has no src URL FreeType can read"
        var triedURL: String?
        var tried = 0
        for source in face.sources {
            guard tried < Self.sourcesPerFont else { break }
            let lowered = source.lowercased()
            // Embedded OpenType and SVG fonts are for old browsers; FreeType reads neither.
            if lowered.hasSuffix(".eot") || lowered.contains(".eot?") || lowered.hasSuffix(".svg") || lowered.contains(".svg#") { continue }
            let shown = lowered.hasPrefix("data:") ? String(source.prefix(while: { $0 != ";" && $0 != "," })) : source
            triedURL = shown
            tried += 1
            let bytes: [UInt8]?
            if lowered.hasPrefix("data:") {
                bytes = DataURL.bytes(of: source)
            } else {
                bytes = await fetchResource(source, headers: headers, referer: referer, limit: reading.decoder.limits.maxBytes)
            }
            guard let bytes else {
                problem = "\(shown) could not be fetched"
                continue
            }
            let decoder = reading.decoder
            let outcome = await BlockingWorkThread.run { () -> Result<FontDecoding, FontError> in
                do throws(FontError) { return .success(try decoder.decode(bytes, characters: characters)) } catch { return .failure(error) }
            }
            switch outcome {
            case .success(let decoding)?: return (decoding, shown, nil)
            case .failure(let error)?: problem = error.description
            case nil: problem = "no thread could be started to decode it"
            }
        }
        return (nil, triedURL, problem)
    }

    /// The body of a 2xx answer to GET `url` (at most `limit` bytes), or nil.
    private func fetchResource(_ url: String, headers: [HTTPHeader], referer: String, limit: Int) async -> [UInt8]? {
        guard URLReference.isHTTP(url) else { return nil }
        // The source's headers (a cookie, a token) go only to the page's own host; a font or stylesheet on
        // another host gets the User-Agent and the Referer.
        let sameHost = URLOrigin(url).map(\.host) == URLOrigin(referer).map(\.host)
        var request = HTTPRequest(url: url, headers: headers.filter { header in
            let name = header.name.lowercased()
            return name != "referer" && (sameHost || name == "user-agent")
        })
        request.headers.append(HTTPHeader("Referer", referer))
        let response: HTTPResponse
        do {
            if scripts?.stepExecutor != nil {
                response = try await withTaskExecutorPreference(SerialQueueExecutor.scriptFetch()) { try await transport.send(request) }
            } else {
                response = try await transport.send(request)
            }
        } catch {
            return nil
        }
        guard (200..<300).contains(response.status), response.body.count <= limit else { return nil }
        return response.body
    }

    /// The page's `<style>` blocks and the stylesheets it links (`<link rel=stylesheet>`) or imports, each
    /// fetched once per process.
    static func styleSheets(of document: HTMLDocument, reading: WebFontReading,
                            fetch: @escaping (String) async -> String?) async -> [StyleSheet] {
        var sheets = nodes("//style/text()", in: document).map { StyleSheet(css: $0.stringValue, baseURL: document.baseURL) }
        var linked = nodes("//link[@href]", in: document).filter { link in
            (link.attribute("rel") ?? "").lowercased().split(separator: " ").contains("stylesheet")
        }.compactMap { $0.attribute("href").flatMap { URLReference.resolve($0, against: document.baseURL) } }
        linked += sheets.flatMap(\.imports)
        var fetched = Set<String>()
        var next = 0
        while next < linked.count, next < 4 * WebFontReading.linkedSheetsPerPage,
              fetched.count < WebFontReading.linkedSheetsPerPage {
            let url = linked[next]
            next += 1
            guard fetched.insert(url).inserted else { continue }
            guard let css = await reading.sheet(url, fetch: { await fetch(url) }) else { continue }
            let sheet = StyleSheet(css: css, baseURL: url)
            sheets.append(sheet)
            linked += sheet.imports
        }
        return sheets
    }

    /// The elements a style rule's selector names: through the CSS translator, pseudo-classes and -elements
    /// that do not change which element it is (`:hover`, `::before`) dropped; nothing when it cannot be read.
    static func elements(matching selector: String, in document: HTMLDocument) -> [HTMLNode] {
        var cleaned = selector
        if let range = cleaned.range(of: "::") { cleaned = String(cleaned[..<range.lowerBound]) }
        for pseudo in [":hover", ":active", ":focus", ":visited", ":link", ":before", ":after", ":first-letter", ":first-line"] {
            cleaned = cleaned.replacingOccurrences(of: pseudo, with: "")
        }
        cleaned = cleaned.trimmingCharacters(in: .whitespaces)
        guard !cleaned.isEmpty, let xpath = try? CSSTranslator.xpath(cleaned) else { return [] }
        return nodes(xpath, in: document)
    }

    /// The first 5,000 nodes `xpath` selects from the document.
    static func nodes(_ xpath: String, in document: HTMLDocument) -> [HTMLNode] {
        guard let expression = try? XPathExpression(xpath),
              case .nodes(let nodes)? = try? expression.evaluate(at: document.root) else { return [] }
        return Array(nodes.prefix(5_000))
    }

    /// Bounds on one page's fonts: how many families are decoded, how many sources of one are tried, how many
    /// style rules are matched, and how long all of it may take (each decoding has its own limit besides).
    static let facesPerPage = 8
    static let sourcesPerFont = 4
    static let rulesPerPage = 256
    static let pageTimeLimit = Duration.seconds(30)

    static func codePointName(_ value: UInt32) -> String {
        let hex = String(value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}

/// A `data:` URL's bytes (base64, also URL-safe or unpadded, or percent-encoded): fonts pages embed, pictures
/// serve is asked for. Nil for another address or a malformed one.
package enum DataURL {
    package static func bytes(of url: String) -> [UInt8]? {
        guard url.lowercased().hasPrefix("data:"), let comma = url.firstIndex(of: ",") else { return nil }
        let header = url[url.index(url.startIndex, offsetBy: 5)..<comma].lowercased()
        let payload = String(url[url.index(after: comma)...])
        if header.hasSuffix(";base64") {
            let cleaned = payload.filter { !$0.isWhitespace }.removingPercentEncoding ?? payload
            var padded = cleaned.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while padded.count % 4 != 0 { padded += "=" }
            return Data(base64Encoded: padded).map(Array.init)
        }
        return payload.removingPercentEncoding.map { Array($0.utf8) }
    }
}
