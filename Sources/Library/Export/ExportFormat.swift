/// The file formats a book exports to.
public enum ExportFormat: String, Sendable, CaseIterable {
    /// EPUB 3 (`EPUBExporter`).
    case epub
    /// Plain UTF-8 text (`TXTExporter`).
    case txt

    /// The file extension.
    public var fileExtension: String { rawValue }
}
