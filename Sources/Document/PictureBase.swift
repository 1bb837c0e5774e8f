import CLibXML2

/// How chapter content reads an `<img>`: which attribute holds the picture's address, and the page URL it is
/// resolved against. Used by `HTMLTextFormatter.contentText` only.
///
/// Lazy-loading pages put a placeholder (a spinner GIF, a `data:` pixel) in `src` and the real address in
/// `data-src` or `data-original`, so those come first, whatever their order in the tag; then `src`; then any
/// other `data-*` attribute holding a path (`data-url`, `data-lazy`…), as Legado falls back to. Empty values and
/// `data:` URIs (never a fetchable picture) are skipped. Legado's `,{options}` after the address are kept
/// after the resolved URL. Only http(s) results are pictures; an `<img>` with none is dropped, as before.
struct PictureBase {
    /// The page's base URL parsed once; nil when it is not absolute (then only absolute addresses resolve).
    let base: URLReference.Base?

    init(_ baseURL: String) {
        base = URLReference.Base(baseURL)
    }

    /// The attributes read first, in this order.
    static let preferred = ["data-src", "data-original", "src"]

    /// The image line for the `<img>` element `node`, nil when it names no http(s) picture.
    func picture(of node: xmlNodePtr) -> ImageLine? {
        for name in Self.preferred {
            if let value = HTMLNode.attribute(name, of: node), let line = resolve(value) { return line }
        }
        var attribute = node.pointee.properties
        while let current = attribute {
            attribute = current.pointee.next
            guard let rawName = current.pointee.name else { continue }
            let name = String(cString: rawName)
            guard name.hasPrefix("data-"), !Self.preferred.contains(name),
                  let value = HTMLNode.attribute(name, of: node), value.contains("/"),
                  let line = resolve(value) else { continue }
            return line
        }
        return nil
    }

    /// One attribute value as a picture: trimmed, options split off, resolved, http(s) only.
    private func resolve(_ value: String) -> ImageLine? {
        let (address, options) = ImageLine.splittingOptions(value.trimmingASCIIWhitespace())
        guard !address.isEmpty, !address.lowercased().hasPrefix("data:") else { return nil }
        guard let absolute = base?.resolve(address) ?? URLReference.Base(address)?.resolve(""),
              URLReference.isHTTP(absolute) else { return nil }
        return ImageLine(url: absolute, options: options)
    }
}
