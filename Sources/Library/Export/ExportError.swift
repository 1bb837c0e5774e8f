/// Why an export could not be written.
public enum ExportError: Error, Equatable, CustomStringConvertible {
    /// The book has no saved chapters, so there is nothing to export.
    case noChapters(title: String)
    /// The output directory is missing, not a directory, or cannot be resolved.
    case unusableDirectory(path: String, reason: String)
    /// A file name would land outside the chosen output directory (refused, nothing written).
    case outsideDirectory(path: String, directory: String)
    /// Writing the output file failed (the system's or libzip's message).
    case cannotWrite(path: String, reason: String)
    /// Converting the text between Chinese scripts failed (`conversion` is `t2s` or `s2t`; OpenCC's reason).
    case conversionFailed(conversion: String, reason: String)

    /// What went wrong and what to do about it.
    public var description: String {
        switch self {
        case .noChapters(let title):
            return "the book has no saved chapters (\(title)): download its chapters first, then export again"
        case .unusableDirectory(let path, let reason):
            return "\(path): cannot export into this directory (\(reason)); create it or choose another"
        case .outsideDirectory(let path, let directory):
            return "\(path): refusing to write outside the output directory \(directory); choose another name"
        case .cannotWrite(let path, let reason):
            return "\(path): cannot write the export (\(reason)); check the directory's permissions and free space"
        case .conversionFailed(let conversion, let reason):
            return "cannot convert the book (\(conversion)): \(reason); export without the conversion or install libopencc-data"
        }
    }
}
