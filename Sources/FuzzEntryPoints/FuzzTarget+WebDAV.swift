import BookRule

extension FuzzTarget {
    /// `webdav`: a backup zip (even byte 0), or a PROPFIND answer and a progress file (odd).
    static func webDAV(_ bytes: [UInt8]) -> String? {
        let (choice, rest) = selector(bytes)
        if choice % 2 == 0 {
            guard let backup = try? LegadoBackup(zip: rest) else { return nil }
            if backup.books.contains(where: { $0.url.isEmpty || $0.name.isEmpty }) {
                return "LegadoBackup read a book without a bookUrl or a name"
            }
            if backup.keptFiles.keys.contains(where: { $0.contains("/") || $0 == "config.xml" }) {
                return "LegadoBackup kept a file it must not: \(backup.keptFiles.keys.sorted())"
            }
            return nil
        }
        _ = try? XMLTreeNode.parse(rest)
        if let progress = LegadoBookProgress(json: rest),
           progress.progress.chapterIndex < 0 || progress.progress.chapterPosition < 0 {
            return "LegadoBookProgress read a negative place"
        }
        return nil
    }
}
