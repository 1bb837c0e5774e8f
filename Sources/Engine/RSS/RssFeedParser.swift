import BookRuleDocument

/// Reads an RSS 0.9x/1.0/2.0 or Atom 1.0 feed into articles, as Legado's RssParserDefault reads RSS (and Atom
/// the same way, which Legado's parser does not know).
///
/// Like Legado's parser it matches element names as written (`media:thumbnail`, `content:encoded`) without
/// regard to case, and reads each item's fields wherever they sit inside it. Per item: `title`; `link` (its
/// text, or Atom's `href` of the `alternate` link); `pubDate`, `time`, Atom's `published`/`updated` or
/// `dc:date`; `description` (Atom's `summary`, else its `content`); the picture from the last of
/// `media:thumbnail`, an `enclosure` or `media:content` that is an image, else the first `<img src="…">` of the
/// description, else of the content. Items outside any `item`/`entry` (the channel's own title) are not read.
/// Links and pictures are resolved against the feed's URL.
package enum RssFeedParser {
    /// At most this many articles are read from one feed (a real feed has tens).
    package static let maxArticles = 10_000

    /// The articles of the feed in `utf8` (the page already decoded to UTF-8), fetched from `url`, for the
    /// sort `sort` of the source at `origin`; nil when the bytes are not XML at all.
    package static func articles(utf8: [UInt8], url: String, sort: String, origin: String) -> [RssArticle]? {
        guard let document = XMLTreeDocument(utf8: utf8, url: url), let root = document.root else { return nil }
        var articles: [RssArticle] = []
        var pending: [XMLTreeElement] = [root]
        // Depth-first, in document order, without recursion: nesting is bounded by the parser, not the stack.
        while let element = pending.popLast(), articles.count < maxArticles {
            let name = element.lowercasedName
            if name == "item" || name == "entry" {
                articles.append(article(of: element, url: url, sort: sort, origin: origin))
                continue
            }
            pending.append(contentsOf: element.children.reversed())
        }
        return articles
    }

    /// One item or entry read.
    private static func article(of item: XMLTreeElement, url: String, sort: String, origin: String) -> RssArticle {
        var title: String?
        var link: String?
        var atomLink: String?
        var pubDate: String?
        var published: String?
        var updated: String?
        var description: String?
        var content: String?
        var explicitImage: String?
        var pending = item.children.reversed() as [XMLTreeElement]
        while let element = pending.popLast() {
            let name = element.lowercasedName
            switch name {
            case "title":
                if title == nil { title = element.text.trimmingASCIIWhitespace() }
            case "link":
                let text = element.text.trimmingASCIIWhitespace()
                if !text.isEmpty {
                    if link == nil { link = text }
                } else if let href = element.attribute("href"), atomLink == nil {
                    let rel = element.attribute("rel")?.lowercased() ?? "alternate"
                    if rel == "alternate" { atomLink = href.trimmingASCIIWhitespace() }
                }
            case "media:thumbnail":
                if let image = element.attribute("url") { explicitImage = image }
            case "enclosure":
                if element.attribute("type")?.contains("image/") == true, let image = element.attribute("url") {
                    explicitImage = image
                }
            case "media:content":
                let isImage = element.attribute("medium")?.lowercased() == "image"
                    || element.attribute("type")?.contains("image/") == true
                if isImage, let image = element.attribute("url") { explicitImage = image }
                pending.append(contentsOf: element.children.reversed())
            case "description", "summary":
                if description == nil { description = markup(of: element).trimmingASCIIWhitespace() }
            case "content:encoded", "content":
                if content == nil { content = markup(of: element).trimmingASCIIWhitespace() }
            case "pubdate", "time", "dc:date":
                if pubDate == nil { pubDate = element.text.trimmingASCIIWhitespace() }
            case "published":
                if published == nil { published = element.text.trimmingASCIIWhitespace() }
            case "updated":
                if updated == nil { updated = element.text.trimmingASCIIWhitespace() }
            case "item", "entry":
                continue
            default:
                pending.append(contentsOf: element.children.reversed())
            }
        }
        let image = explicitImage ?? description.flatMap(firstImage(in:)) ?? content.flatMap(firstImage(in:))
        let resolvedLink = (link ?? atomLink).map { URLReference.resolve($0, against: url) ?? $0 } ?? ""
        return RssArticle(title: title ?? "", link: resolvedLink, pubDate: pubDate ?? published ?? updated,
                          description: description ?? content,
                          image: image.map { URLReference.resolve($0, against: url) ?? $0 },
                          sort: sort, origin: origin, content: content)
    }

    /// An element's text, or for Atom's `type="xhtml"` (markup written as elements inside it) that markup.
    private static func markup(of element: XMLTreeElement) -> String {
        element.hasElementChildren ? element.innerXML : element.text
    }

    /// The `src` of the first `<img …>` tag of `markup`, as Legado's parser finds it (`<img ` in lower case,
    /// then `src="…"` inside the tag); nil when there is none.
    static func firstImage(in markup: String) -> String? {
        guard let start = markup.range(of: "<img ") else { return nil }
        let afterTag = markup[start.upperBound...]
        let tag = afterTag[..<(afterTag.firstIndex(of: ">") ?? afterTag.endIndex)]
        var rest = tag[...]
        while let src = rest.range(of: "src") {
            var cursor = rest[src.upperBound...].drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
            guard cursor.first == "=" else {
                rest = rest[src.upperBound...]
                continue
            }
            cursor = cursor.dropFirst().drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
            guard cursor.first == "\"" else {
                rest = rest[src.upperBound...]
                continue
            }
            let value = cursor.dropFirst()
            guard let close = value.firstIndex(of: "\""), close > value.startIndex else {
                rest = rest[src.upperBound...]
                continue
            }
            return String(value[..<close]).trimmingASCIIWhitespace()
        }
        return nil
    }
}
