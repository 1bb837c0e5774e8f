import CCurl

/// A libcurl share handle (`CURLSH`) for one `CurlTransport`: its pooled easy handles reuse each other's DNS
/// answers and TLS sessions (resumed handshakes). Connections stay with each handle's own multi handle:
/// libcurl does not support sharing them between concurrent threads, which is how transfers run here. The locking libcurl needs is done in C, one mutex per kind of
/// data (`bookrule_curl_share_new` in the shim). Only this object frees the share, in `deinit`, which runs
/// after every `CurlHandle` holding it has cleaned up its easy handle.
final class CurlShare: @unchecked Sendable {
    private let share: UnsafeMutablePointer<bookrule_curl_share>

    /// A new share, or nil when libcurl cannot be initialised or refuses one.
    init?() {
        guard CurlHandle.globalInit == CURLE_OK, let share = bookrule_curl_share_new() else { return nil }
        self.share = share
    }

    /// The `CURLSH *` to set as `CURLOPT_SHARE`.
    var handle: UnsafeMutableRawPointer? { UnsafeMutableRawPointer(share.pointee.handle) }

    deinit {
        bookrule_curl_share_free(share)
    }
}
