import BookRuleEngine
import BookRuleLibrary
import Foundation
import Testing
import TestSupport

@Suite("bookrule login and logout, end to end", .serialized, .timeLimit(.minutes(3 * TestTime.scale)))
struct LoginCommandTests {
    /// A folder for one test: the source, and the XDG folders every command of the test uses.
    private struct Home {
        let scratch: ScratchDirectory
        var path: String { scratch.path }
        var environment: [String: String] {
            ["XDG_CONFIG_HOME": path + "/config", "XDG_STATE_HOME": path + "/state", "XDG_DATA_HOME": path + "/data"]
        }
        init() throws { scratch = try ScratchDirectory("login-cli") }

        func run(_ script: String) async throws -> (status: Int32, output: String) {
            try await runBash(["-c", script], in: path, environment: environment)
        }
    }

    private static let fields = "--field user=\(LoginSite.user) --field password=\(LoginSite.password)"

    @Test("`login --field` then `chapter` in another process reads the page the login opens")
    func loginThenChapter() async throws {
        let site = try LoginSite()
        let home = try Home()
        let source = try site.sourceFile(.url, in: home.path)
        let before = try await home.run("bookrule chapter --source \(source) --delay 0 \(site.baseURL)/book/1/1.html")
        #expect(!before.output.contains(LoginSite.text(1)))
        let login = try await home.run("bookrule login --source \(source) \(Self.fields) --delay 0")
        #expect(login.status == 0, "\(login.output)")
        #expect(login.output.contains("logged in to locked"))
        let after = try await home.run("bookrule chapter --source \(source) --delay 0 \(site.baseURL)/book/1/1.html")
        #expect(after.status == 0 && after.output.contains(LoginSite.text(1)), "\(after.output)")
        let check = try await home.run("bookrule login --check --source \(source) --delay 0")
        #expect(check.status == 0 && check.output.contains("login kept for locked: yes"), "\(check.output)")
    }

    @Test("on a terminal, login prompts for each field and reads the password with the echo off")
    func passwordNotEchoed() async throws {
        let site = try LoginSite()
        let home = try Home()
        let source = try site.sourceFile(.url, in: home.path)
        // A pseudo-terminal (Python's pty), answering each prompt; every read is bounded (60 s: in a full run on a
        // slowed host the login took over 20 s to reach its site).
        let driver = home.path + "/answer-prompts.py"
        try """
        import os, pty, select, sys
        pid, fd = pty.fork()
        if pid == 0:
            os.execvp('bookrule', ['bookrule', 'login', '--source', sys.argv[1], '--delay', '0'])
        seen = b''
        def until(text):
            global seen
            while text not in seen:
                ready, _, _ = select.select([fd], [], [], \(Int(TestTime.seconds(60))))
                if not ready: fail('timed out waiting for ' + repr(text))
                try: chunk = os.read(fd, 4096)
                except OSError: chunk = b''
                if not chunk: fail('closed before ' + repr(text))
                seen += chunk
        # A failure shows what the terminal got and how bookrule ended (a sanitizer's report goes to the
        # terminal too, and would otherwise be lost).
        def fail(reason):
            os.kill(pid, 9)  # no effect on a process that has exited and not been waited for
            _, status = os.waitpid(pid, 0)
            sys.exit(reason + ', bookrule ' + repr(os.waitstatus_to_exitcode(status)) + ', the terminal got: ' + repr(seen.decode('utf-8', 'replace')))
        until(b'user: ')
        os.write(fd, b'\(LoginSite.user)\\n')
        until(b'password: ')
        os.write(fd, b'\(LoginSite.password)\\n')
        until(b'logged in')
        _, status = os.waitpid(pid, 0)
        sys.stdout.write(seen.decode('utf-8', 'replace'))
        sys.exit(os.waitstatus_to_exitcode(status))
        """.write(toFile: driver, atomically: true, encoding: .utf8)
        let run = try await home.run("python3 \(driver) \(source)")
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("user: \(LoginSite.user)"), "the text field is echoed: \(run.output)")
        #expect(!run.output.contains(LoginSite.password), "the password is not echoed: \(run.output)")
        #expect(site.logins == 1)
    }

    @Test("without a terminal, login reads one line per loginUi field from standard input")
    func fieldsFromStandardInput() async throws {
        let site = try LoginSite()
        let home = try Home()
        let source = try site.sourceFile(.url, in: home.path)
        let login = try await home.run("printf '\(LoginSite.user)\\n\(LoginSite.password)\\n' | bookrule login --source \(source) --delay 0")
        #expect(login.status == 0, "\(login.output)")
        #expect(!login.output.contains(LoginSite.password))
        #expect(site.logins == 1)
    }

    @Test("after a header login, neither the config folder, the library nor a --record HAR holds the password or the header in clear")
    func noCredentialInClear() async throws {
        let site = try LoginSite()
        let home = try Home()
        let source = try site.sourceFile(.script, in: home.path)
        let login = try await home.run("bookrule login --source \(source) \(Self.fields) --delay 0")
        #expect(login.status == 0, "\(login.output)")
        let fetch = try await home.run("bookrule fetch --source \(source) --delay 0 --record run.har \(site.baseURL)/book/1/")
        #expect(fetch.status == 0, "\(fetch.output)")
        #expect(site.server.records.filter { $0.path.hasPrefix("/book/") }.allSatisfy { $0.request.header("X-Token") == LoginSite.token })
        var scanned = 0
        for folder in [home.path + "/config", home.path + "/data", home.path + "/run.har"] {
            let files = FileManager.default.enumerator(atPath: folder).map { $0.compactMap { $0 as? String }.map { folder + "/" + $0 } } ?? [folder]
            for file in files {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
                let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
                scanned += 1
                for secret in [LoginSite.password, LoginSite.token] {
                    #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) in clear in \(file)")
                }
            }
        }
        #expect(scanned >= 4)
        let key = home.path + "/config/bookrule/login.key"
        #expect((try FileManager.default.attributesOfItem(atPath: key)[.posixPermissions] as? Int) == 0o600)
        #expect(try String(contentsOfFile: home.path + "/run.har", encoding: .utf8).contains("REDACTED"))
    }

    @Test("logout removes the login: the page asks for a login again and --check says none is kept")
    func logoutRemovesTheLogin() async throws {
        let site = try LoginSite()
        let home = try Home()
        let source = try site.sourceFile(.url, in: home.path)
        _ = try await home.run("bookrule login --source \(source) \(Self.fields) --delay 0")
        let logout = try await home.run("bookrule logout --source \(source)")
        #expect(logout.status == 0 && logout.output.contains("removed the login of locked"), "\(logout.output)")
        let chapter = try await home.run("bookrule chapter --source \(source) --delay 0 \(site.baseURL)/book/1/1.html")
        #expect(!chapter.output.contains(LoginSite.text(1)))
        let check = try await home.run("bookrule login --check --source \(source) --delay 0")
        #expect(check.output.contains("login kept for locked: no"), "\(check.output)")
    }

    @Test("a damaged store: login names the file and exits 2, other commands warn and run, logout --all clears it")
    func damagedStore() async throws {
        let site = try LoginSite()
        let home = try Home()
        let source = try site.sourceFile(.url, in: home.path)
        _ = try await home.run("bookrule login --source \(source) \(Self.fields) --delay 0")
        let store = home.path + "/config/bookrule/logins.sealed"
        try Data("not a sealed box at all".utf8).write(to: URL(fileURLWithPath: store))
        let login = try await home.run("bookrule login --source \(source) \(Self.fields) --delay 0")
        #expect(login.status == 2 && login.output.contains("\(store) cannot be read"), "\(login.output)")
        let chapter = try await home.run("bookrule chapter --source \(source) --delay 0 \(site.baseURL)/book/1/1.html")
        #expect(chapter.output.contains("warning: the stored login cannot be used"), "\(chapter.output)")
        let clear = try await home.run("bookrule logout --all && bookrule login --source \(source) \(Self.fields) --delay 0")
        #expect(clear.status == 0, "\(clear.output)")
    }

    @Test("logout --all forgets the sources' logins and keeps the WebDAV passwords in the same vault")
    func logoutAllKeepsWebDAV() async throws {
        let site = try LoginSite()
        let home = try Home()
        let source = try site.sourceFile(.url, in: home.path)
        #expect(try await home.run("bookrule login --source \(source) \(Self.fields) --delay 0").status == 0)
        let vault = LoginVault(directory: home.path + "/config/bookrule")
        let webDAV = "webdav:https://dav.example/legado/"
        try vault.save(StoredLogin(info: #"{"user":"alice","password":"pw"}"#), forSource: webDAV)
        let logout = try await home.run("bookrule logout --all")
        #expect(logout.status == 0 && logout.output.contains("kept 1 WebDAV password"), "\(logout.output)")
        let reopened = LoginVault(directory: home.path + "/config/bookrule")
        #expect(try reopened.sources() == [webDAV])
    }

    @Test("--list shows the loginUi rows and --action runs a button's JavaScript with the fields as result")
    func buttons() async throws {
        let site = try LoginSite()
        let home = try Home()
        let json = site.sourceJSON(.script).replacingOccurrences(
            of: #"{\"name\": \"password\", \"type\": \"password\"}"#,
            with: #"{\"name\": \"password\", \"type\": \"password\"}, {\"name\": \"greet\", \"type\": \"button\", \"action\": \"greet(result.get('user'))\"}"#)
            .replacingOccurrences(of: "function login() {", with: "function greet(name) { java.toast('hello ' + name); } function login() {")
        let source = home.path + "/buttons.json"
        try json.write(toFile: source, atomically: true, encoding: .utf8)
        let list = try await home.run("bookrule login --source \(source) --list")
        #expect(list.status == 0 && list.output.contains("password\tpassword") && list.output.contains("button\tgreet"), "\(list.output)")
        let action = try await home.run("bookrule login --source \(source) --action greet --field user=bob")
        #expect(action.status == 0 && action.output.contains("toast: hello bob"), "\(action.output)")
        let missing = try await home.run("bookrule login --source \(source) --action nothing --field user=bob")
        #expect(missing.status == 2 && missing.output.contains("its buttons are: \"greet\""), "\(missing.output)")
    }
}
