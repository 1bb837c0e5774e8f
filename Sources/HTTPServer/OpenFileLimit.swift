import Glibc

/// The process's limit on open files, which a server's connections count against.
package enum OpenFileLimit {
    /// Raises the soft limit to the hard one (many systems start processes at 1,024 with a hard limit far
    /// above, as servers are expected to raise it) and returns the soft limit in force; 1,024 when the system
    /// cannot say.
    package static func raise() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            // An unlimited hard limit still cannot be the soft one for files: a million is plenty.
            raised.rlim_cur = min(limit.rlim_max, 1 << 20)
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }
}
