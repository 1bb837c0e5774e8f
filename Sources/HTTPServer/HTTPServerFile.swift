import CMicroHTTPD

#if canImport(Glibc)
import Glibc
#endif

/// A stretch of a file that a response sends instead of its `body` (an EPUB of many megabytes, a `Range` of
/// it): libmicrohttpd sends it from the file itself (`sendfile`), so it is never read into memory. The file is
/// opened when the answer is queued; one that is gone or shorter than the stretch by then is answered 500.
package struct HTTPServerFile: Sendable, Equatable {
    /// The file's path.
    package var path: String
    /// Where the stretch starts, in bytes from the start of the file.
    package var offset: UInt64
    /// How many bytes are sent.
    package var length: UInt64

    /// `length` bytes of the file at `path` from `offset`.
    package init(path: String, offset: UInt64 = 0, length: UInt64) {
        self.path = path
        self.offset = offset
        self.length = length
    }

    /// libmicrohttpd's response over the file, opened now (the response owns the descriptor and closes it when
    /// it is destroyed); nil when the file cannot be opened or is shorter than the stretch.
    func makeResponse() -> OpaquePointer? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var status = stat()
        let (end, overflow) = offset.addingReportingOverflow(length)
        guard fstat(descriptor, &status) == 0, !overflow, status.st_size >= 0, UInt64(status.st_size) >= end,
              let response = MHD_create_response_from_fd_at_offset64(length, descriptor, offset) else {
            close(descriptor)
            return nil
        }
        return response
    }
}
