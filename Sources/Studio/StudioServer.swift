import BookRuleHTTP
import BookRuleHTTPServer

/// `bookrule studio`: the authoring studio served on 127.0.0.1 (docs/studio.md). Start it, print `url` (which
/// carries the access token), and keep the process alive; `stop()` ends it.
public final class StudioServer: Sendable {
    /// The address to open, with the token: `http://127.0.0.1:PORT/?token=…`.
    public let url: String
    /// The port it listens on.
    public let port: Int
    private let server: HTTPServer
    package let app: StudioApp

    /// Serves the studio for `sourcePath` (nil: a new source that cannot be saved) with the fixture in
    /// `fixtureDirectory`, on `port` (0: any free port). `fetcher`, when given, lets steps run live.
    public init(sourcePath: String?, fixtureDirectory: String?, port: Int, fetcher: PoliteFetcher? = nil,
                assetsDirectory: String? = nil, codeMirrorDirectory: String? = nil) throws(StudioError) {
        guard let wanted = UInt16(exactly: port) else { throw .server(.cannotListen(address: "127.0.0.1", port: port)) }
        let assets = try StudioAssets.load(directory: assetsDirectory,
                                           codeMirrorDirectory: codeMirrorDirectory ?? StudioAssets.debianCodeMirror)
        let app: StudioApp
        do {
            app = try StudioApp(sourcePath: sourcePath, fixtureDirectory: fixtureDirectory, fetcher: fetcher, assets: assets,
                                token: try AccessToken.make())
            let access = app.access
            server = try HTTPServer(port: wanted, admits: { (try? access.check($0)) != nil }) { request in app.handle(request) }
        } catch let error as HTTPServerError {
            throw .server(error)
        } catch let error as StudioError {
            throw error
        } catch {
            throw .server(.noRandomness(reason: "\(error)"))
        }
        app.access.listening(on: server.port)
        self.app = app
        self.port = Int(server.port)
        url = "http://127.0.0.1:\(server.port)/?token=\(app.access.token)"
    }

    /// Whether the page will have CodeMirror (Debian's `libjs-codemirror`) or a plain textarea.
    public var hasCodeEditor: Bool { !app.assets.codeMirror.isEmpty }

    /// The fixture directory in use, resolved; nil when there is none.
    public var fixtureDirectory: String? { app.files.fixtureDirectory }

    /// Stops serving: requests waiting for a step or a test give up (503), the others finish first.
    public func stop() {
        app.beginStopping()
        server.stop()
    }
}
