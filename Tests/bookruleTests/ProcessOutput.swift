import Foundation

/// The first line `handle` gives (at most 4096 bytes), read on a thread of its own: a blocking read must not hold
/// a thread of the cooperative pool.
func firstLine(of handle: FileHandle) async -> String {
    await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
        Thread {
            var bytes: [UInt8] = []
            while bytes.last != 0x0A, bytes.count < 4096 {
                let chunk = handle.readData(ofLength: 1)
                if chunk.isEmpty { break }
                bytes += chunk
            }
            continuation.resume(returning: String(decoding: bytes, as: UTF8.self))
        }.start()
    }
}
