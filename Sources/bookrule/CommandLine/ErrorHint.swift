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
        case let error as DownloadError:
            if case .untitledBook = error { return "\(error) (fetch it with --search KEYWORD, or add a ruleBookInfo.name rule)" }
            return "\(error)"
        case let error as EngineError:
            if case .transport(_, let cause) = error, let cause = cause as? SavedPageError, case .notSaved(_, let url, _, _) = cause {
                return "\(error) (save that page too and add --saved '\(url)'=FILE, or list it in --saved-dir's pages.json)"
            }
            return "\(error)"
        default:
            return "\(error)"
        }
    }
}
