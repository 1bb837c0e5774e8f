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
    func decodeWebFonts(in document: HTMLDocument, headers: [HTTPHeader]) async -> WebFontReport? {
        guard let reading = options.webFonts, document.json == nil else { return nil }
        let sheets = await Self.styleSheets(of: document, reading: reading) { url in
            await fetchResource(url, headers: headers, referer: document.url, limit: WebFontReading.maxSheetBytes)
                .map { String(decoding: $0, as: UTF8.self) }
        }
        var faces: [StyleSheet.FontFace] = []
        for face in sheets.flatMap(\.fontFaces) {
            if let index = faces.firstIndex(where: { $0.family.lowercased() == face.family.lowercased() }) {
                faces[index].sources += face.sources.filter { !faces[index].sources.contains($0) }
            } else {
                faces.append(face)
            }
        }
        guard !faces.isEmpty else { return nil }
        let families = faces.map(\.family)
        var elements = Array(repeating: [HTMLNode](), count: faces.count)
        for sheet in sheets {
            for (selector, family) in sheet.rules(naming: families) {
                guard let index = families.firstIndex(of: family) else { continue }
                elements[index] += Self.elements(matching: selector, in: document)
            }
        }
        for node in Self.nodes("//*[@style]", in: document) {
            guard let style = node.attribute("style"), let family = StyleSheet.family(namedIn: style, among: families),
                  let index = families.firstIndex(of: family) else { continue }
            elements[index].append(node)
        }
        let drawn = DrawnText.textNodes(drawnBy: elements)
        var report = WebFontReport()
        var privateUseDecoded = false
        for (index, face) in faces.enumerated() {
            var textNodes = drawn[index]
            var onlyPrivateUse = false
            if textNodes.isEmpty {
                // No rule we read gives the font to any text; Private Use Area text can still only be its.
                guard !privateUseDecoded else { continue }
                textNodes = DrawnText.textNodes(drawnBy: [[document.root]])[0]
                    .filter { $0.stringValue.unicodeScalars.contains(where: ObfuscatedText.isPrivateUse) }
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
        return report.fonts.isEmpty ? nil : report
    }

    /// The first of the face's sources that can be read and decoded: its decoding, the URL it came from, or why
    /// none could be.
    private func decode(_ face: StyleSheet.FontFace, characters: Set<UInt32>, reading: WebFontReading,
                        headers: [HTTPHeader], referer: String) async -> (FontDecoding?, String?, String?) {
        var problem = "its @font-face has no src URL FreeType can read"
        var triedURL: String?
        for source in face.sources {
            let lowered = source.lowercased()
            // Embedded OpenType and SVG fonts are for old browsers; FreeType reads neither.
            if lowered.hasSuffix(".eot") || lowered.contains(".eot?") || lowered.hasSuffix(".svg") || lowered.contains(".svg#") { continue }
            let shown = lowered.hasPrefix("data:") ? String(source.prefix(while: { $0 != ";" && $0 != "," })) : source
            triedURL = shown
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
        var request = HTTPRequest(url: url, headers: headers.filter { $0.name.lowercased() != "referer" })
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
        while let url = linked.first, fetched.count < WebFontReading.linkedSheetsPerPage {
            linked.removeFirst()
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

    static func codePointName(_ value: UInt32) -> String {
        let hex = String(value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}

/// A `data:` URL's bytes (base64 or percent-encoded), for fonts and stylesheets pages embed.
enum DataURL {
    static func bytes(of url: String) -> [UInt8]? {
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
