import BookRuleHTTP
import Foundation

/// A source's fixture: the directory `bookrule test` replays and the studio works in (docs/testing.md,
/// "Fixtures"). It holds `site.har`, the recording replayed; `pages.json`, saved pages (as `SavedPageDirectory`
/// reads them) answered before the recording; and `expected.json`, the snapshot.
public struct CheckFixture: Sendable, Equatable {
    /// The directory.
    public let directory: String

    /// The fixture in `directory`.
    public init(directory: String) {
        self.directory = directory
    }

    /// The default fixture of a source read from the file at `sourcePath`: `Fixtures/<file stem>/`, and
    /// `Fixtures/<file stem>/<index>/` for the source at `index` of a file holding an array.
    public init(forSourceFile sourcePath: String, index: Int? = nil) {
        let stem = URL(fileURLWithPath: sourcePath).deletingPathExtension().lastPathComponent
        directory = "Fixtures/\(stem)" + (index.map { "/\($0)" } ?? "")
    }

    /// The recording, `site.har`.
    public var harPath: String { directory + "/site.har" }
    /// The snapshot, `expected.json`.
    public var snapshotPath: String { directory + "/expected.json" }
    /// The saved pages' index, `pages.json`.
    public var pagesIndexPath: String { directory + "/" + SavedPageDirectory.indexName }

    /// What answers from the fixture: `saved` (pages given on the command line, or opened in the studio) and the
    /// fixture's own saved pages first, then its recording; nil when none of them exists.
    public func transport(adding saved: [SavedPage] = []) throws -> (any HTTPTransport)? {
        let files = FileManager.default
        let pages = saved + (files.fileExists(atPath: pagesIndexPath) ? try SavedPageDirectory.load(directory) : [])
        let replay: (any HTTPTransport)? = files.fileExists(atPath: harPath) ? try HARReplayTransport(contentsOf: harPath) : nil
        return pages.isEmpty ? replay : SavedPageTransport(pages: pages, fallback: replay)
    }
}
