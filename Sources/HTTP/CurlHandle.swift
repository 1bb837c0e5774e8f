import CCurl

/// One libcurl easy handle with the multi handle it runs in (which keeps its connections), used by one transfer
/// at a time. Its DNS answers and TLS sessions live in the transport's `CurlShare`, which it keeps alive until
/// it is cleaned up itself.
final class CurlHandle: @unchecked Sendable {
    let easy: UnsafeMutableRawPointer
    let multi: UnsafeMutableRawPointer
    let share: CurlShare?

    static let globalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_SSL | CURL_GLOBAL_WIN32))

    init?(share: CurlShare?) {
        guard Self.globalInit == CURLE_OK else { return nil }
        self.share = share
        guard let easy = curl_easy_init() else { return nil }
        guard let multi = curl_multi_init() else {
            curl_easy_cleanup(easy)
            return nil
        }
        self.easy = easy
        self.multi = multi
    }

    deinit {
        curl_multi_cleanup(multi)
        curl_easy_cleanup(easy)
    }
}
