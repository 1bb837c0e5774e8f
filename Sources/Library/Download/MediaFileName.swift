import Foundation
import BookRuleDocument

/// File names for downloads, from their URLs: the last segment of the path, percent-decoded and made safe
/// with `SafeFileName`, so a rerun of the same list gives the same names (and so resumes the same files).
public enum MediaFileName {
    /// A safe name from the last path segment of `url` (`download` when the path has none).
    public static func make(forURL url: String) -> String {
        var path = URLReference.withoutFragment(url)
        if let query = path.firstIndex(of: "?") { path = String(path[..<query]) }
        if let scheme = path.range(of: "://") {
            let rest = path[scheme.upperBound...]
            path = rest.firstIndex(of: "/").map { String(rest[$0...]) } ?? ""
        }
        let segment = path.split(separator: "/").last.map(String.init) ?? ""
        let decoded = segment.removingPercentEncoding ?? segment
        var stem = decoded
        var suffix = ""
        if let dot = decoded.lastIndex(of: "."), dot != decoded.startIndex {
            let candidate = decoded[decoded.index(after: dot)...]
            if (1...16).contains(candidate.count), candidate.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) {
                stem = String(decoded[..<dot])
                suffix = String(candidate)
            }
        }
        if stem.trimmingASCIIWhitespace().isEmpty { stem = "download" }
        return SafeFileName.make(stem, extension: suffix)
    }

    /// Names for `urls` in order, unique regardless of case: a repeated name gets `-2`, `-3`… before its
    /// extension, in the order the URLs are given.
    public static func uniqueNames(forURLs urls: [String]) -> [String] {
        var taken: Set<String> = []
        var names: [String] = []
        for url in urls {
            let name = make(forURL: url)
            var candidate = name
            var number = 2
            while taken.contains(candidate.lowercased()) {
                if let dot = name.lastIndex(of: "."), dot != name.startIndex {
                    candidate = name[..<dot] + "-\(number)" + name[dot...]
                } else {
                    candidate = name + "-\(number)"
                }
                number += 1
            }
            taken.insert(candidate.lowercased())
            names.append(candidate)
        }
        return names
    }
}
