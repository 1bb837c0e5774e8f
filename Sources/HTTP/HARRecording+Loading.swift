import Foundation
import BookRuleDocument
import BookRuleJSON

extension HARRecording {
    /// Reads a HAR file such as Chromium DevTools' "Save all as HAR with content" or one `--record` wrote.
    /// Throws `HARError` naming the file, the entry, the field and the line when something is wrong. Only a
    /// regular file is read (a fixture's `site.har` that is a FIFO or a device is refused, never waited on).
    public static func load(contentsOf path: String) throws -> HARRecording {
        let bytes: [UInt8]
        do {
            bytes = try LocalFile.readRegularFile(path, limit: LocalFile.readLimit)
        } catch {
            throw HARError.cannotRead(path: path, reason: error.reason)
        }
        return try parse(bytes, path: path)
    }

    /// Parses HAR JSON already in memory; `path` is only used in error messages.
    public static func parse(_ bytes: [UInt8], path: String) throws -> HARRecording {
        let root: JSONNode
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            throw HARError.notJSON(path: path, reason: error.description)
        }
        var reader = HARReader(path: path)
        return try reader.recording(root)
    }
}
