import CCurl
import Foundation
import BookRuleDocument

// The transfer: one hop run to completion on its own thread, through the easy and multi handles.
extension CurlTransport {
    /// Runs one transfer to completion on the calling (dedicated) thread.
    static func perform(_ hop: Hop, on handle: CurlHandle, cancel: CancelState) -> HopResult {
        let easy = handle.easy
        let multi = handle.multi
        curl_easy_reset(easy)
        defer { curl_easy_reset(easy) }
        let transfer = Transfer(
            limit: hop.bodyLimit, expectsBody: hop.method != "HEAD", cancel: cancel, url: hop.url, sink: hop.sink,
            reservedPorts: hop.reservedPorts)
        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headerList) }
        var headerLines = hop.headerLines
        // A stream is stored as served: the request's own Accept-Encoding goes out as a plain header and
        // libcurl decodes nothing (a decoded body would not match Content-Length or the ranges of a resume).
        if hop.sink != nil, let encoding = hop.requestedEncoding { headerLines.append("Accept-Encoding: \(encoding)") }
        for line in headerLines {
            guard let appended = curl_slist_append(headerList, line) else {
                return HopResult(code: CURLE_OUT_OF_MEMORY.rawValue, message: "out of memory building the headers")
            }
            headerList = appended
        }
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        return errorBuffer.withUnsafeMutableBufferPointer { errors -> HopResult in
            withExtendedLifetime(transfer) {
                let context = Unmanaged.passUnretained(transfer).toOpaque()
                var setupError: String?
                func check(_ code: CURLcode, _ what: String) {
                    if code != CURLE_OK, setupError == nil {
                        setupError = "libcurl rejected \(what): \(String(cString: curl_easy_strerror(code)))"
                    }
                }
                check(bookrule_curl_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errors.baseAddress), "ERRORBUFFER")
                if let share = handle.share {
                    // After every reset: curl_easy_reset forgets the share too.
                    check(bookrule_curl_setopt_pointer(easy, CURLOPT_SHARE, share.handle), "SHARE")
                }
                check(bookrule_curl_setopt_string(easy, CURLOPT_URL, hop.url), "the URL")
                check(bookrule_curl_setopt_long(easy, CURLOPT_NOSIGNAL, 1), "NOSIGNAL")
                check(bookrule_curl_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0), "FOLLOWLOCATION")
                check(bookrule_curl_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https"), "PROTOCOLS_STR")
                check(bookrule_curl_setopt_string(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https"),
                      "REDIR_PROTOCOLS_STR")
                check(bookrule_curl_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, hop.connectTimeoutMilliseconds),
                      "CONNECTTIMEOUT_MS")
                if hop.sink == nil {
                    check(bookrule_curl_setopt_long(easy, CURLOPT_TIMEOUT_MS, hop.timeoutMilliseconds), "TIMEOUT_MS")
                } else {
                    // A large download has no overall deadline; a stalled one fails after the same time.
                    let stall = max(1, hop.stallSeconds)
                    // Slower than this for that long is a server trickling bytes while it holds the host's turn.
                    check(bookrule_curl_setopt_long(easy, CURLOPT_LOW_SPEED_LIMIT, Self.streamMinimumBytesPerSecond),
                          "LOW_SPEED_LIMIT")
                    check(bookrule_curl_setopt_long(easy, CURLOPT_LOW_SPEED_TIME, stall), "LOW_SPEED_TIME")
                }
                check(bookrule_curl_setopt_string(easy, CURLOPT_PROXY, hop.proxy), "the proxy")
                check(bookrule_curl_setopt_string(easy, CURLOPT_NOPROXY, hop.noProxy), "NOPROXY")
                check(bookrule_curl_setopt_long(easy, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1), "SUPPRESS_CONNECT_HEADERS")
                check(bookrule_curl_setopt_long(easy, CURLOPT_TCP_KEEPALIVE, 1), "TCP_KEEPALIVE")
                if hop.sink != nil {
                    check(bookrule_curl_setopt_long(easy, CURLOPT_HTTP_CONTENT_DECODING, 0), "HTTP_CONTENT_DECODING")
                } else if let encoding = hop.acceptEncoding {
                    check(bookrule_curl_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, encoding), "ACCEPT_ENCODING")
                }
                check(bookrule_curl_setopt_slist(easy, CURLOPT_HTTPHEADER, headerList), "the headers")
                switch hop.method {
                case "GET":
                    check(bookrule_curl_setopt_long(easy, CURLOPT_HTTPGET, 1), "HTTPGET")
                case "HEAD":
                    check(bookrule_curl_setopt_long(easy, CURLOPT_NOBODY, 1), "NOBODY")
                default:
                    if hop.method != "POST" {
                        check(bookrule_curl_setopt_string(easy, CURLOPT_CUSTOMREQUEST, hop.method), "the method")
                    }
                    if hop.body != nil || hop.method == "POST" {
                        let body = hop.body ?? []
                        check(bookrule_curl_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)),
                              "POSTFIELDSIZE_LARGE")
                        if body.isEmpty {
                            check(bookrule_curl_setopt_string(easy, CURLOPT_COPYPOSTFIELDS, ""), "the body")
                        } else {
                            body.withUnsafeBytes { bytes in
                                check(bookrule_curl_setopt_string(
                                    easy, CURLOPT_COPYPOSTFIELDS, bytes.baseAddress!.assumingMemoryBound(to: CChar.self)),
                                      "the body")
                            }
                        }
                    }
                }
                check(bookrule_curl_setopt_write_callback(easy, CURLOPT_WRITEFUNCTION, curlWrite), "WRITEFUNCTION")
                check(bookrule_curl_setopt_pointer(easy, CURLOPT_WRITEDATA, context), "WRITEDATA")
                check(bookrule_curl_setopt_write_callback(easy, CURLOPT_HEADERFUNCTION, curlHeader), "HEADERFUNCTION")
                check(bookrule_curl_setopt_pointer(easy, CURLOPT_HEADERDATA, context), "HEADERDATA")
                check(bookrule_curl_setopt_xferinfo_callback(easy, CURLOPT_XFERINFOFUNCTION, curlProgress),
                      "XFERINFOFUNCTION")
                check(bookrule_curl_setopt_pointer(easy, CURLOPT_XFERINFODATA, context), "XFERINFODATA")
                check(bookrule_curl_setopt_long(easy, CURLOPT_NOPROGRESS, 0), "NOPROGRESS")
                if hop.reservedPorts != nil {
                    check(bookrule_curl_setopt_prereq_callback(easy, CURLOPT_PREREQFUNCTION, curlPrerequest), "PREREQFUNCTION")
                    check(bookrule_curl_setopt_pointer(easy, CURLOPT_PREREQDATA, context), "PREREQDATA")
                }
                if let setupError {
                    return HopResult(code: CURLE_FAILED_INIT.rawValue, message: setupError)
                }

                var code = CURLE_OK
                var finished = false
                if curl_multi_add_handle(multi, easy) != CURLM_OK {
                    return HopResult(code: CURLE_FAILED_INIT.rawValue, message: "libcurl could not start the transfer")
                }
                while !finished && !cancel.isCancelled {
                    var running: Int32 = 0
                    let performed = curl_multi_perform(multi, &running)
                    if performed != CURLM_OK {
                        code = CURLE_FAILED_INIT
                        errors.baseAddress.map { _ = strncpy($0, curl_multi_strerror(performed), Int(CURL_ERROR_SIZE) - 1) }
                        break
                    }
                    var queued: Int32 = 0
                    while let message = curl_multi_info_read(multi, &queued) {
                        if message.pointee.msg == CURLMSG_DONE, message.pointee.easy_handle == easy {
                            code = bookrule_curl_msg_result(message)
                            finished = true
                        }
                    }
                    if finished || running == 0 { break }
                    if cancel.isCancelled { break }
                    let polled = curl_multi_poll(multi, nil, 0, 1000, nil)
                    if polled != CURLM_OK {
                        code = CURLE_RECV_ERROR
                        errors.baseAddress.map { _ = strncpy($0, curl_multi_strerror(polled), Int(CURL_ERROR_SIZE) - 1) }
                        break
                    }
                }
                var result = HopResult()
                var status = 0
                if finished && code == CURLE_OK {
                    _ = bookrule_curl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
                }
                if transfer.stoppedBySink { status = transfer.status }
                curl_multi_remove_handle(multi, easy)
                if !finished && code == CURLE_OK && !cancel.isCancelled {
                    code = CURLE_RECV_ERROR
                }
                result.code = code.rawValue
                result.status = status
                result.cancelled = cancel.isCancelled
                result.bodyTooLarge = transfer.bodyTooLarge
                result.streamed = transfer.streaming
                result.delivered = transfer.delivered
                result.stoppedBySink = transfer.stoppedBySink
                result.refusedDestination = transfer.refusedDestination
                result.headers = transfer.headers
                result.bodyCapacity = transfer.body.capacity
                result.body = transfer.body
                let text = String(cString: errors.baseAddress!)
                result.message = text.isEmpty ? String(cString: curl_easy_strerror(code)) : text
                // Forget the error buffer, header list and callback context before they go out of scope.
                curl_easy_reset(easy)
                return result
            }
        }
    }
}
