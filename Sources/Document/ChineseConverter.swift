import BookRuleLocking
import COpenCC

/// Traditional ↔ simplified Chinese conversion with OpenCC, for sources whose text must be shown in the
/// other script (Legado's `t2s` / `s2t` and the reader's "convert to simplified" option).
///
/// Opening a converter loads its dictionaries (milliseconds, see NOTES.md), so open one per configuration
/// and reuse it: `ChineseConverter.shared(.traditionalToSimplified)` keeps one per configuration for the
/// process. OpenCC's maintainer states that conversion on one converter is thread-safe (BYVoid/OpenCC#231;
/// its tests cover it; conversion only reads the loaded dictionaries), so one object serves every task.
/// The exception is `opencc_error()`, a process-wide string, which is why opening is serialised here.
/// The handle is closed by this object alone, in `deinit`.
package final class ChineseConverter: @unchecked Sendable {
    /// The conversions Debian's libopencc-data ships, by configuration file name.
    package enum Configuration: String, Sendable, CaseIterable {
        /// Traditional → simplified (`t2s.json`).
        case traditionalToSimplified = "t2s"
        /// Simplified → traditional, OpenCC standard (`s2t.json`).
        case simplifiedToTraditional = "s2t"
        /// Simplified → Taiwan standard (`s2tw.json`).
        case simplifiedToTaiwan = "s2tw"
        /// Simplified → Taiwan standard with Taiwanese phrases (`s2twp.json`).
        case simplifiedToTaiwanPhrases = "s2twp"
        /// Taiwan standard → simplified (`tw2s.json`).
        case taiwanToSimplified = "tw2s"
        /// Taiwan standard → simplified with mainland phrases (`tw2sp.json`).
        case taiwanToSimplifiedPhrases = "tw2sp"
        /// Simplified → Hong Kong standard (`s2hk.json`).
        case simplifiedToHongKong = "s2hk"
        /// Hong Kong standard → simplified (`hk2s.json`).
        case hongKongToSimplified = "hk2s"

        /// The configuration file's path under `configurationDirectory`.
        package var path: String { "\(ChineseConverter.configurationDirectory)/\(rawValue).json" }
    }

    /// Where Debian's libopencc-data installs the configuration files and `.ocd2` dictionaries.
    package static let configurationDirectory = "/usr/share/opencc"

    /// Serialises `opencc_open` + `opencc_error` (the error text is a global) and guards the shared cache.
    private static let registry = Locked<[Configuration: ChineseConverter]>([:])

    private let handle: UnsafeMutableRawPointer

    /// Opens the converter for `configuration`.
    /// - Throws: `ChineseConversionError.cannotOpen` when the configuration or its dictionaries are missing.
    package convenience init(_ configuration: Configuration) throws(ChineseConversionError) {
        try self.init(configurationPath: configuration.path)
    }

    /// Opens the converter described by an OpenCC JSON configuration file (dictionary paths inside it are
    /// resolved relative to the file's directory).
    /// - Throws: `ChineseConversionError.cannotOpen` when the file or a dictionary it names cannot be loaded.
    package init(configurationPath: String) throws(ChineseConversionError) {
        let opened: Result<UnsafeMutableRawPointer, ChineseConversionError> = Self.registry.withLock { _ in
            let candidate = opencc_open(configurationPath)
            guard let candidate, bookrule_opencc_is_error(candidate) == 0 else {
                let reason = opencc_error().map { String(cString: $0) } ?? "unknown error"
                return .failure(.cannotOpen(path: configurationPath, reason: reason))
            }
            return .success(candidate)
        }
        handle = try opened.get()
    }

    deinit {
        _ = opencc_close(handle)
    }

    /// The process-wide converter for `configuration`, opened on first use and kept for the process's life.
    /// - Throws: `ChineseConversionError.cannotOpen` when it cannot be opened (tried again on the next call).
    package static func shared(_ configuration: Configuration) throws(ChineseConversionError) -> ChineseConverter {
        let found: Result<ChineseConverter, ChineseConversionError> = registry.withLock { cache in
            if let existing = cache[configuration] { return .success(existing) }
            let candidate = opencc_open(configuration.path)
            guard let candidate, bookrule_opencc_is_error(candidate) == 0 else {
                let reason = opencc_error().map { String(cString: $0) } ?? "unknown error"
                return .failure(.cannotOpen(path: configuration.path, reason: reason))
            }
            let converter = ChineseConverter(handle: candidate)
            cache[configuration] = converter
            return .success(converter)
        }
        return try found.get()
    }

    private init(handle: UnsafeMutableRawPointer) {
        self.handle = handle
    }

    /// `text` converted. Safe to call from several threads on one converter.
    ///
    /// OpenCC returns a NUL-terminated string, so text containing NUL characters is converted piece by
    /// piece between them and joined again, rather than silently cut at the first one.
    /// - Throws: `ChineseConversionError.conversionFailed` if OpenCC returns nothing.
    package func convert(_ text: String) throws(ChineseConversionError) -> String {
        guard text.utf8.contains(0) else { return try convertPiece(text) }
        var pieces: [String] = []
        for piece in text.split(separator: "\0", omittingEmptySubsequences: false) {
            pieces.append(try convertPiece(String(piece)))
        }
        return pieces.joined(separator: "\0")
    }

    private func convertPiece(_ text: String) throws(ChineseConversionError) -> String {
        if text.isEmpty { return text }
        var text = text
        let converted: String? = text.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return "" }
            let input = UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self)
            guard let output = opencc_convert_utf8(handle, input, bytes.count) else { return nil }
            defer { opencc_convert_utf8_free(output) }
            return String(cString: output)
        }
        guard let converted else {
            // opencc_error's text may belong to another thread's failure; it is only a hint here.
            throw .conversionFailed(reason: "opencc_convert_utf8 returned NULL")
        }
        return converted
    }
}
