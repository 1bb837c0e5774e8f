import BookRule
import BookRuleHTTP
import Foundation
import Testing
import TestSupport
@testable import bookrule

@Suite("bookrule serve on the command line", .timeLimit(.minutes(2 * TestTime.scale)))
struct ServeCommandTests {
    @Test("Bad flags are usage errors (exit 2) that say what to give")
    func usageErrors() async throws {
        let port = await runCommand(["serve", "--port", "70000"])
        #expect(port.status == 2 && port.errors.contains("--port takes a port number"))
        // The WebSocket server takes the next port, which 65535 does not have.
        let last = await runCommand(["serve", "--port", "65535"])
        #expect(last.status == 2 && last.errors.contains("from 0 to 65534"))
        let token = await runCommand(["serve", "--token", "short"])
        #expect(token.status == 2 && token.errors.contains("at least 16 characters"))
        let listen = await runCommand(["serve", "--listen", "example.com", "--library", NSTemporaryDirectory() + "serve-\(UUID()).sqlite"])
        #expect(listen.status == 2 && listen.errors.contains("--listen takes an IPv4 or IPv6 address"))
        let prefetch = await runCommand(["serve", "--prefetch", "-1"])
        #expect(prefetch.status == 2 && prefetch.errors.contains("--prefetch takes a number"))
        for bad in ["6", "30s", "0h", "2x", "h"] {
            let every = await runCommand(["serve", "--update-every", bad])
            #expect(every.status == 2 && every.errors.contains("--update-every takes a time"), "\(bad)")
        }
        #expect(try ServeCommand.updateInterval("6h") == .seconds(6 * 3600))
        #expect(try ServeCommand.updateInterval("90s") == .seconds(90))
        let help = await runCommand(["serve", "--help"])
        #expect(help.status == 0 && help.output.contains("--web DIR"))
    }

    @Test("The built executable serves the library on a free port: getBookshelf lists its book, saved progress shows in `bookrule library`, SIGTERM exits 0")
    func servesTheShelf() async throws {
        let executable = BuiltProducts.bookrule
        try #require(FileManager.default.isExecutableFile(atPath: executable))
        let directory = try ScratchDirectory("serve-cli")
        let site = try MirrorSite(host: "127.0.0.1", chapters: 5)
        let libraryPath = directory.path + "/library.sqlite"
        let sourcePath = try site.sourceFile(named: "mirror", in: directory.path)
        let store = try LibraryStore(path: libraryPath)
        let fetch = BookFetch(source: try loadSource(site.sourceJSON(named: "mirror")), transport: CurlTransport(), store: store)
        for try await _ in fetch.run(bookURL: site.bookURL, range: 1...1) {}

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["serve", "--library", libraryPath, "--sources", sourcePath, "--port", "0", "--delay", "0"]
        process.environment = ProcessInfo.processInfo.environment.merging(["XDG_STATE_HOME": directory.path]) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
        let url = await firstLine(of: output.fileHandleForReading).trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = try #require(url.wholeMatch(of: /http:\/\/127\.0\.0\.1:(\d+)\//), "\(url)")
        let base = "http://127.0.0.1:\(parts.1)"
        let client = CurlTransport()
        let shelf = try await client.send(HTTPRequest(url: base + "/getBookshelf"))
        #expect(shelf.status == 200)
        let text = String(decoding: shelf.body, as: UTF8.self)
        #expect(text.hasPrefix(#"{"isSuccess":true,"errorMsg":"","data":[{"bookUrl":"\#(site.bookURL)""#), "\(text)")

        let progress = #"{"name":"\#(MirrorSite.bookName)","author":"\#(MirrorSite.author)","durChapterIndex":3,"durChapterPos":7,"durChapterTitle":"\#(MirrorSite.title(4, style: .arabic))"}"#
        let saved = try await client.send(HTTPRequest(url: base + "/saveBookProgress", method: "POST",
                                                      headers: [HTTPHeader("Content-Type", "text/plain")], body: Array(progress.utf8)))
        #expect(String(decoding: saved.body, as: UTF8.self) == #"{"isSuccess":true,"errorMsg":"","data":""}"#)

        process.terminate()  // SIGTERM
        try await eventually("bookrule serve exits after SIGTERM", seconds: 20) { !process.isRunning }
        #expect(process.terminationStatus == 0)
        let listed = await runCommand(["library", "--library", libraryPath])
        #expect(listed.output.contains("reading 4. \(MirrorSite.title(4, style: .arabic))  at 7"), "\(listed.output)")
        let json = await runCommand(["library", "--json", "--library", libraryPath])
        let books = try #require(try JSONParser.parse(json.output).value.arrayValue, "\(json.output)")
        let place = try #require(books.first?.value.objectValue?["progress"]?.value.objectValue, "\(json.output)")
        #expect(place["chapterIndex"]?.value == .number("3"))
        #expect(place["chapterPosition"]?.value == .number("7"))
        #expect(place["chapterTitle"]?.value == .string(MirrorSite.title(4, style: .arabic)))
        #expect(books.first?.value.objectValue?["name"]?.value == .string(MirrorSite.bookName))
    }
}
