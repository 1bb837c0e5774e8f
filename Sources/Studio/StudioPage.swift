import BookRuleDocument

/// The page one step is looking at: the parsed document the rules run on and its re-written copy for the frame.
package final class StudioPage: Sendable {
    /// The URL the page is the response of (links resolve against it).
    package let url: String
    /// The HTTP status it came with.
    package let status: Int
    /// Where it came from: `fixture`, `live`, or a file of the fixture directory.
    package let origin: String
    /// The parsed page.
    package let document: HTMLDocument
    /// The copy the frame shows, with its element numbers.
    package let sanitized: SanitizedPage

    /// Parses `bytes` as the response of `url` and re-writes it for the frame.
    package init(url: String, status: Int, origin: String, bytes: [UInt8], contentType: String?) throws(DocumentError) {
        self.url = url
        self.status = status
        self.origin = origin
        document = try HTMLDocument(bytes: bytes, url: url, contentType: contentType)
        sanitized = SanitizedPage(document: document)
    }
}
