import BookRule

/// The library's errors say what happened in the library's terms; the command line adds which of its flags
/// changes the outcome (the library holds no `--flag` wording).
enum ErrorHint {
    /// `error`'s description, with the flag that helps when there is one.
    static func message(_ error: any Error) -> String {
        switch error {
        case let error as LibraryError:
            switch error {
            case .busy, .notALibrary, .newerSchema: return "\(error) (choose one with --library)"
            default: return "\(error)"
            }
        case let error as ExportError:
            switch error {
            case .unusableDirectory, .outsideDirectory: return "\(error) (with -o)"
            default: return "\(error)"
            }
        default:
            return "\(error)"
        }
    }
}
