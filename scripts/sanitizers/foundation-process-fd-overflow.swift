// A minimal reproduction of the one AddressSanitizer report `make sanitize-address` suppresses
// (scripts/sanitizers/asan-suppressions.txt): it is the toolchain's Foundation, not bookrule.
//
//   swiftc -sanitize=address main.swift -o repro && ASAN_OPTIONS=detect_leaks=0 ./repro 1500
//
// With Swift 6.3.1's Foundation, `Process.run()` in a process holding more than about a thousand open
// descriptors reads past a `readdir` buffer in `findMaximumOpenFromProcSelfFD` (heap-buffer-overflow, a
// 256-byte memcpy of a short dirent at the end of the 32 KiB buffer). 1,000 descriptors run clean, 1,500 do not
// (2026-12-07). The test process gets there when a WebSocket test holds 300 half-open connections while a CLI
// test starts `bookrule`.
import Foundation
// Opens N descriptors, then starts a child with Foundation's Process, whose run() lists /proc/self/fd.
let count = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 1000
var fds: [Int32] = []
for _ in 0..<count { fds.append(open("/dev/null", O_RDONLY)) }
let process = Process()
process.executableURL = URL(fileURLWithPath: "/bin/true")
try process.run()
process.waitUntilExit()
print("ran with \(fds.count) extra descriptors")
