#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import BookRuleLocking
import CSpawn
import Foundation

/// One headless Chromium process, driven over `--remote-debugging-pipe`: the DevTools protocol on the child's
/// file descriptors 3 (it reads) and 4 (it writes), here both ends of one Unix socket pair, so a write to a
/// browser that died fails with EPIPE (`MSG_NOSIGNAL`) instead of raising SIGPIPE.
///
/// The profile is a fresh temporary folder, removed when the browser ends, by `terminate` or by the shell the
/// browser runs under (when bookrule dies without cleaning up, Chromium sees its pipe close). Foundation's `Process`
/// cannot place descriptors at 3 and 4, so the child is made with `posix_spawn` and its file actions.
final class ChromiumProcess: @unchecked Sendable {
    /// The process id.
    let pid: pid_t
    /// Our end of the DevTools socket.
    let socket: Int32
    /// The temporary folder: the profile (`profile/`) and the browser's own temporary files (`t/`, its
    /// `TMPDIR`), removed with it.
    let folder: String
    private let life = Locked((reaped: false, terminated: false))

    /// Where Chromium is looked for: only `BOOKRULE_CHROMIUM` when it is set, else Debian's and other
    /// distributions' names.
    static func candidates(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        if let own = environment["BOOKRULE_CHROMIUM"], !own.isEmpty { return [own] }
        return ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/lib/chromium/chromium", "/usr/bin/google-chrome"]
    }

    /// The first executable candidate, or nil when Chromium is not installed.
    static func executable() -> String? {
        candidates().first { access($0, X_OK) == 0 }
    }

    /// The flags for a browser that reaches nothing by itself: every request it makes is paused and answered by
    /// bookrule (`Fetch.enable`), and the proxy on a closed port refuses whatever would slip past, loopback
    /// included (`<-loopback>`); host resolution is mapped to nothing, so DNS prefetching resolves nothing.
    static func arguments(profile: String, limits: BrowserLimits) -> [String] {
        var arguments = [
            "--headless=new", "--remote-debugging-pipe", "--user-data-dir=\(profile)", "--no-first-run",
            "--no-default-browser-check", "--disable-gpu", "--disable-extensions", "--disable-component-extensions-with-background-pages",
            "--disable-background-networking", "--disable-component-update", "--disable-default-apps", "--disable-sync",
            "--disable-breakpad", "--disable-crash-reporter", "--disable-domain-reliability", "--disable-client-side-phishing-detection",
            "--disable-features=Translate,MediaRouter,OptimizationHints,DnsOverHttps,NetworkPrediction",
            "--dns-prefetch-disable", "--no-pings", "--mute-audio", "--disable-dev-shm-usage", "--metrics-recording-only",
            "--proxy-server=127.0.0.1:\(limits.refusingProxyPort)", "--proxy-bypass-list=<-loopback>",
            "--host-resolver-rules=MAP * ~NOTFOUND",
            // WebRTC's UDP (STUN/TURN to an IP address) passes neither the proxy nor the host resolver: only
            // UDP through a proxy is allowed, and there is none for UDP, so a page's RTCPeerConnection reaches nothing.
            "--force-webrtc-ip-handling-policy=disable_non_proxied_udp", "--webrtc-ip-handling-policy=disable_non_proxied_udp",
            "--js-flags=--max-old-space-size=\(limits.heapMiB)",
        ]
        // Chromium refuses to start as root with its sandbox on (zygote_host: "Running as root without
        // --no-sandbox is not supported"); as any other user the sandbox stays.
        if geteuid() == 0 { arguments.append("--no-sandbox") }
        arguments.append("about:blank")
        return arguments
    }

    /// Starts Chromium; throws `BrowserError.notInstalled` when there is none and `.startFailed` when the
    /// system refuses.
    init(limits: BrowserLimits, executable: String? = nil) throws(BrowserError) {
        let searched = executable.map { [$0] } ?? Self.candidates()
        guard let path = searched.first(where: { access($0, X_OK) == 0 }) else { throw .notInstalled(searched: searched) }
        // Chromium keeps a Unix socket at TMPDIR/org.chromium.Chromium.XXXXXX/SingletonSocket and exits when that
        // path passes the 108 bytes a socket address holds: a long temporary directory gives way to /tmp.
        let base = NSTemporaryDirectory().utf8.count <= 28 ? NSTemporaryDirectory() : "/tmp/"
        var template = Array((base + "bookrule-chromium-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ $0.baseAddress.flatMap(mkdtemp) }) else {
            throw .startFailed("no temporary profile folder: \(String(cString: strerror(errno)))")
        }
        folder = String(cString: made)
        let profile = folder + "/profile"
        for inside in [profile, folder + "/t"] where mkdir(inside, 0o700) != 0 {
            let reason = String(cString: strerror(errno))
            Self.removeFolder(folder)
            throw .startFailed("no temporary profile folder: \(reason)")
        }
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            let reason = String(cString: strerror(errno))
            Self.removeFolder(folder)
            throw .startFailed("socketpair: \(reason)")
        }
        // The child's end at 3 and 4; moved above them first, so dup2 never meets itself (it would keep CLOEXEC).
        let child = fcntl(pair[1], F_DUPFD_CLOEXEC, 10)
        close(pair[1])
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, child, 3)
        posix_spawn_file_actions_adddup2(&actions, child, 4)
        posix_spawn_file_actions_addclosefrom_np(&actions, 5)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Its own process group, so a Ctrl-C at the terminal reaches bookrule, which ends the browser itself.
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        // Through a shell that removes the folder once Chromium has ended: Chromium ends when its pipe closes,
        // so the folder goes even when bookrule itself is killed and runs no cleanup of its own.
        let script = #"folder=$1; shift; "$@"; status=$?; rm -rf -- "$folder"; exit $status"#
        let words = ["/bin/sh", "-c", script, "bookrule-chromium", folder, path] + Self.arguments(profile: profile, limits: limits)
        let argv = words.map { strdup($0) }
        defer { argv.forEach { free($0) } }
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = folder + "/t"
        let envp = environment.map { strdup("\($0.key)=\($0.value)") }
        defer { envp.forEach { free($0) } }
        var processID: pid_t = 0
        var argvList = argv + [nil]
        var envpList = envp + [nil]
        let spawned = argvList.withUnsafeMutableBufferPointer { arguments -> Int32 in
            envpList.withUnsafeMutableBufferPointer { variables -> Int32 in
                guard let argvPointer = arguments.baseAddress, let envpPointer = variables.baseAddress else { return EINVAL }
                return posix_spawn(&processID, "/bin/sh", &actions, &attributes, argvPointer, envpPointer)
            }
        }
        close(child)
        guard spawned == 0 else {
            close(pair[0])
            Self.removeFolder(folder)
            throw .startFailed("posix_spawn \(path): \(String(cString: strerror(spawned)))")
        }
        pid = processID
        socket = pair[0]
    }

    /// Whether the process has ended (it is reaped then; `terminate` still removes the profile).
    var hasExited: Bool {
        life.withLock { life in
            if life.reaped { return true }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid { life.reaped = true }
            return life.reaped
        }
    }

    /// Ends the browser, once: its pipe is shut, so it exits by itself (and ends its renderers); one that has
    /// not within two seconds is killed with its whole process group. Then it is reaped, the socket closed
    /// and the folder removed.
    func terminate() {
        let first = life.withLock { life in
            defer { life.terminated = true }
            guard !life.terminated else { return false }
            shutdown(socket, Int32(SHUT_RDWR))
            // A reaped pid may already belong to another process: only an unreaped one is waited for or signalled.
            var status: Int32 = 0
            let deadline = ContinuousClock.now + .seconds(2)
            while !life.reaped, ContinuousClock.now < deadline {
                if waitpid(pid, &status, WNOHANG) == pid { life.reaped = true } else { usleep(20_000) }
            }
            if !life.reaped {
                kill(-pid, SIGKILL)
                while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
                life.reaped = true
            }
            return true
        }
        guard first else { return }
        close(socket)
        Self.removeFolder(folder)
    }

    private static func removeFolder(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }
}
