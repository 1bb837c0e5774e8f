import Foundation
import BookRuleEngine

/// Sources read from files and folders for a multi-source command: every source of each JSON file given,
/// and of each `*.json` file in each folder given (not recursive, by name). A file that cannot be read is
/// reported and skipped, so one broken file does not stop a search over hundreds; a source listed twice (same
/// `bookSourceUrl`) counts once. RSS sources (订阅源) in the files are kept apart in `rssSources`, so a folder
/// mixing both kinds searches its book sources.
public struct SourceCollection: Sendable {
    /// The sources, in the order read.
    public let sources: [BookSource]
    /// Files that could not be read, each with why.
    public let problems: [String]
    /// The RSS sources of the files, in the order read, each `sourceUrl` once.
    public let rssSources: [RssSource]

    /// Reads `paths`.
    public init(paths: [String]) {
        var sources: [BookSource] = []
        var rssSources: [RssSource] = []
        var problems: [String] = []
        var seen = Set<String>()
        var seenRss = Set<String>()
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                problems.append("\(path): no such file or folder")
                continue
            }
            var files = [path]
            if isDirectory.boolValue {
                do {
                    files = try FileManager.default.contentsOfDirectory(atPath: path)
                        .filter { $0.lowercased().hasSuffix(".json") }.sorted().map { path + "/" + $0 }
                } catch {
                    problems.append("\(path): the folder cannot be listed: \(error.localizedDescription)")
                    continue
                }
                if files.isEmpty { problems.append("\(path): the folder holds no .json files") }
            }
            for file in files {
                do {
                    let loaded = try SourceFile.load(contentsOf: file)
                    for source in loaded.bookSources where seen.insert(source.url).inserted {
                        sources.append(source)
                    }
                    for source in loaded.rssSources where seenRss.insert(source.url).inserted {
                        rssSources.append(source)
                    }
                } catch {
                    problems.append("\(error)")
                }
            }
        }
        self.sources = sources
        self.rssSources = rssSources
        self.problems = problems
    }
}
