import BookRuleDocument
import BookRuleJSON

/// A directory of saved pages with an index, `pages.json`, saying which URL each file is the response of:
/// the multi-page form of `SavedPage` (a book page, several TOC pages, a chapter and its next pages).
///
/// ```json
/// {
///   "https://site/book/1/": "book.html",
///   "https://site/book/1/index_2.html": {"file": "toc-2.html", "contentType": "text/html; charset=gbk"},
///   "https://site/search.php": {"file": "search.html", "method": "POST", "body": "searchkey=%D0%C7"}
/// }
/// ```
///
/// Each member maps a URL to a file name (relative to the directory, and resolving inside it: see
/// `FixtureFile`, which refuses absolute paths, `..` or links leading out, and anything but a regular file of
/// at most 32 MiB, naming the file) or to an object with `file` and
/// optionally `method` (default GET), `body` (the POST body it answers; absent answers any), `contentType` and
/// `status`; a URL saved for several methods or bodies maps to an array of such objects. An index rather than
/// file names made from URLs: URLs with queries, CJK and slashes make poor, platform-dependent file names, and
/// an author can read and edit the index by hand.
public enum SavedPageDirectory {
    /// The index's file name inside the directory.
    public static let indexName = "pages.json"

    /// Reads every page the index of `directory` lists. The index and every file it names must resolve
    /// inside the directory as regular files (`FixtureFile`); one that does not fails the whole load.
    public static func load(_ directory: String) throws(SavedPageError) -> [SavedPage] {
        let indexPath = directory + "/" + indexName
        let bytes: [UInt8]
        let realDirectory: String
        do {
            realDirectory = try FixtureFile.directory(directory)
            bytes = try FixtureFile.read(indexName, in: realDirectory)
        } catch {
            switch error {
            case .cannotRead(_, let reason):
                throw .cannotRead(path: indexPath, reason: "\(reason) (a directory of saved pages needs a \(indexName) mapping each URL to its file)")
            default:
                throw .refused(index: indexPath, line: nil, url: nil, error)
            }
        }
        let root: JSONNode
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            throw .invalidIndex(path: indexPath, problem: "not JSON: \(error)")
        }
        guard case .object(let object) = root.value else {
            throw .invalidIndex(path: indexPath, problem: "must be an object mapping each URL to a file name")
        }
        var pages: [SavedPage] = []
        for (url, node) in object.members {
            let line = node.location.line
            guard URLReference.isHTTP(url) else {
                throw .invalidIndex(path: indexPath, problem: "line \(line): \"\(url)\" is not an absolute http(s) URL")
            }
            let entries: [JSONNode] = node.value.arrayValue ?? [node]
            for entry in entries {
                pages.append(try page(url: url, entry, directory: realDirectory, indexPath: indexPath))
            }
        }
        return pages
    }

    private static func page(url: String, _ node: JSONNode, directory: String, indexPath: String) throws(SavedPageError) -> SavedPage {
        let line = node.location.line
        func fail(_ problem: String) -> SavedPageError { .invalidIndex(path: indexPath, problem: "line \(line): \(url): \(problem)") }
        let file: String
        var method = "GET"
        var requestBody: [UInt8]?
        var contentType: String?
        var status = 200
        switch node.value {
        case .string(let name):
            file = name
        case .object(let object):
            guard let name = object["file"]?.value.stringValue else { throw fail("needs \"file\": the saved page's file name") }
            file = name
            for (key, member) in object.members where key != "file" {
                switch key {
                case "method":
                    guard let value = member.value.stringValue, ["GET", "POST", "HEAD"].contains(value.uppercased()) else {
                        throw fail("\"method\" must be GET or POST")
                    }
                    method = value.uppercased()
                case "body":
                    guard let value = member.value.stringValue else { throw fail("\"body\" must be a string") }
                    requestBody = Array(value.utf8)
                case "contentType":
                    guard let value = member.value.stringValue else { throw fail("\"contentType\" must be a string") }
                    contentType = value
                case "status":
                    guard let value = member.value.intValue, (100..<600).contains(value) else { throw fail("\"status\" must be an HTTP status") }
                    status = value
                default:
                    throw fail("unknown key \"\(key)\" (file, method, body, contentType and status are read)")
                }
            }
        default:
            throw fail("must map to a file name or an object with \"file\"")
        }
        guard !file.isEmpty else { throw fail("the file name is empty") }
        let body: [UInt8]
        do {
            body = try FixtureFile.read(file, in: directory)
        } catch {
            switch error {
            case .cannotRead(let path, let reason):
                throw .cannotRead(path: path, reason: "\(reason) (\(indexPath) line \(line) lists it for \(url))")
            default:
                throw .refused(index: indexPath, line: line, url: url, error)
            }
        }
        return SavedPage(url: url, method: method, requestBody: requestBody, body: body, contentType: contentType,
                         status: status, file: directory + "/" + file)
    }
}

extension SavedPage {
    /// The page saved in `file` (`-` reads standard input), as the response of `url`.
    public static func read(_ file: String, url: String?, method: String = "GET", requestBody: [UInt8]? = nil,
                            contentType: String? = nil, status: Int = 200) throws(SavedPageError) -> SavedPage {
        let isStandardInput = file == "-"
        do {
            let bytes = try LocalFile.read(isStandardInput ? "/dev/stdin" : file)
            return SavedPage(url: url, method: method, requestBody: requestBody, body: bytes, contentType: contentType,
                             status: status, file: isStandardInput ? "standard input" : file)
        } catch {
            throw .cannotRead(path: isStandardInput ? "standard input" : file, reason: error.reason)
        }
    }
}
