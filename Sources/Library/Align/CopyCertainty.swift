/// Whether another source's TOC is certainly the same book as a reference TOC (the saved chapters, or the
/// copy a book is fetched from), judged from their `ChapterAlignment`: what `sources --add`, `sources --find`
/// and `fetch --sources --mirrors` ask before they record a source as the book's.
///
/// A copy is certain when its TOC pairs **by title** (the alignment's certain matches) with at least
/// `requiredShare` of the reference's chapters (volume headings not counted). A book of the same name with
/// other chapters, or a copy whose titles agree only by position or chapter number, is not: its text would be
/// trusted by fallback and mirrors only where a match is certain anyway, but a source recorded for a book
/// should be that book.
public struct CopyCertainty: Sendable, Equatable {
    /// Share of the reference's chapters that must pair by title.
    public static let requiredShare = 0.9

    /// Chapters of the reference (volume headings not counted).
    public let chapters: Int
    /// Of them, paired by title with an entry of the copy.
    public let byTitle: Int
    /// Paired only by position or chapter number.
    public let uncertain: Int
    /// Paired with nothing.
    public let unmatched: Int
    /// Entries of the copy the reference does not have (chapters it is ahead by).
    public let new: Int

    /// Judges `incoming` (the copy's TOC titles and whether each is a volume heading) against `reference`.
    public init(reference: [(title: String, isVolume: Bool)], incoming: [(title: String, isVolume: Bool)]) {
        let alignment = ChapterAlignment(saved: reference.map(\.title), incoming: incoming.map(\.title))
        let counted = { (index: Int) in !reference[index].isVolume }
        chapters = reference.indices.filter(counted).count
        byTitle = alignment.matches.filter { $0.isCertain && counted($0.saved) }.count
        uncertain = alignment.matches.filter { !$0.isCertain && counted($0.saved) }.count
        unmatched = alignment.unmatched.filter(counted).count
        new = alignment.new.filter { !incoming[$0].isVolume }.count
    }

    /// Whether the copy is the same book.
    public var isCertain: Bool {
        byTitle > 0 && Double(byTitle) >= Self.requiredShare * Double(chapters)
    }

    /// The counts in words: `30 of 30 chapters by title, 0 by position or number only, 0 unmatched, 2 new`.
    public var summary: String {
        "\(byTitle) of \(chapters) chapter(s) by title, \(uncertain) by position or number only, \(unmatched) unmatched, \(new) new"
    }

    /// Why the copy is not certain, nil when it is.
    public var reason: String? {
        guard !isCertain else { return nil }
        let share = Int((Self.requiredShare * 100).rounded())
        return "not certainly the same book: \(summary) (at least \(share)% must match by title)"
    }
}
