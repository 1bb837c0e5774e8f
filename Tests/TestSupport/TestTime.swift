import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// How much slower than an ordinary debug build this run of the suite may be: `BOOKRULE_TEST_TIME_SCALE`, a
/// whole number from 1 (the default) to 50. The sanitizer targets of the Makefile set it (AddressSanitizer and
/// ThreadSanitizer make Swift code several times slower), so that the loopback servers' lifetimes and the
/// tests' upper bounds on wall-clock or CPU time, written for an uninstrumented build, stretch with the build
/// instead of failing it. Lower bounds ("waited at least the delay") are never scaled: they are correctness.
package enum TestTime {
    /// The factor, read once.
    package static let scale: Int = {
        guard let text = ProcessInfo.processInfo.environment["BOOKRULE_TEST_TIME_SCALE"], let value = Int(text) else {
            return 1
        }
        return min(50, max(1, value))
    }()

    /// An upper bound on time, stretched by `scale`.
    package static func bound(_ duration: Duration) -> Duration {
        duration * scale
    }

    /// The sanitizer this build runs under ("thread", "address"), or nil for an uninstrumented build: whether the
    /// sanitizer's runtime is linked in (its `__tsan_init` or `__asan_init` is exported, so its interceptors
    /// work), whatever started the run. `BOOKRULE_SANITIZER`, when set, wins (empty: none).
    package static let sanitizer: String? = {
        if let name = ProcessInfo.processInfo.environment["BOOKRULE_SANITIZER"] { return name.isEmpty ? nil : name }
        // RTLD_DEFAULT (a null handle): the executable and every library it loaded.
        if dlsym(nil, "__tsan_init") != nil { return "thread" }
        if dlsym(nil, "__asan_init") != nil { return "address" }
        return nil
    }()

    /// Whether this build runs under a sanitizer (`sanitizer`), for a test that cannot: `.disabled(if:)`.
    package static var sanitized: Bool { sanitizer != nil }

    /// A lifetime or timeout in seconds, stretched by `scale`.
    package static func seconds(_ seconds: Double) -> Double {
        seconds * Double(scale)
    }
}
