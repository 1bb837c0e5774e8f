/// Why a Chinese conversion could not be set up or run.
package enum ChineseConversionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `opencc_open` failed for this configuration file; OpenCC's own message (a missing file, a missing
    /// dictionary it names, bad JSON).
    case cannotOpen(path: String, reason: String)
    /// `opencc_convert_utf8` returned nothing (OpenCC could not convert the text).
    case conversionFailed(reason: String)

    /// A sentence naming the configuration or the failure.
    package var description: String {
        switch self {
        case let .cannotOpen(path, reason):
            "cannot open OpenCC configuration \(path): \(reason) (is libopencc-data installed?)"
        case let .conversionFailed(reason):
            "OpenCC could not convert the text: \(reason)"
        }
    }
}
