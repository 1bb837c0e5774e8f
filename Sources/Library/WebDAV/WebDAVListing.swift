import BookRuleDocument
import BookRuleHTTP
import Foundation

/// A PROPFIND multistatus (RFC 4918, section 14.16) read into the entries of one folder.
enum WebDAVListing {
    private static let dav = "DAV:"

    /// Most entries one listing may hold (a folder of daily backups and a progress file per book stays far
    /// below it).
    static let maxEntries = 50_000

    /// The entries of the folder at `folderURL` that `body` lists, the folder itself left out.
    /// - Throws: `WebDAVError.notWebDAV` when `body` is not a multistatus.
    static func entries(of body: [UInt8], folderURL: String, status: Int) throws(WebDAVError) -> [WebDAVEntry] {
        let root: XMLTreeNode
        do {
            root = try XMLTreeNode.parse(body)
        } catch {
            throw .notWebDAV(url: folderURL, status: status, reason: "its answer to PROPFIND is \(error)")
        }
        guard root.name == "multistatus", root.namespace == dav else {
            throw .notWebDAV(url: folderURL, status: status,
                             reason: "its answer to PROPFIND is <\(root.name)>, not a DAV: multistatus")
        }
        let responses = root.children("response", namespace: dav)
        guard responses.count <= maxEntries else {
            throw .notWebDAV(url: folderURL, status: status, reason: "its listing has more than \(maxEntries) entries")
        }
        let folderPath = trimmedSlash(WebDAVPath.decoded(WebDAVPath.path(of: folderURL)))
        var entries: [WebDAVEntry] = []
        for response in responses {
            guard let href = response.child("href", namespace: dav)?.text.trimmingCharacters(in: .whitespacesAndNewlines),
                  !href.isEmpty else { continue }
            let path = trimmedSlash(WebDAVPath.decoded(WebDAVPath.path(of: href)))
            if path == folderPath { continue }
            guard let name = path.split(separator: "/").last.map(String.init), !name.isEmpty else { continue }
            // The properties of the propstat whose status is 200 (a server lists the ones it lacks under 404).
            let found = response.children("propstat", namespace: dav).filter { propstat in
                let status = propstat.child("status", namespace: dav)?.text ?? ""
                return status.isEmpty || status.contains(" 200 ")
            }.compactMap { $0.child("prop", namespace: dav) }
            func property(_ name: String) -> XMLTreeNode? {
                found.lazy.compactMap { $0.child(name, namespace: dav) }.first
            }
            let isFolder = property("resourcetype")?.child("collection", namespace: dav) != nil || href.hasSuffix("/")
            let size = property("getcontentlength").flatMap {
                Int64($0.text.trimmingCharacters(in: .whitespacesAndNewlines))
            } ?? 0
            let modified = property("getlastmodified").flatMap {
                DateCodec.httpDate($0.text.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            entries.append(WebDAVEntry(name: name, isFolder: isFolder, size: max(0, size), lastModified: modified))
        }
        return entries
    }

    private static func trimmedSlash(_ path: String) -> String {
        var path = Substring(path)
        while path.count > 1, path.hasSuffix("/") { path = path.dropLast() }
        return String(path)
    }
}
