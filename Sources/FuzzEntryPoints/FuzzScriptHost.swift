import BookRule

/// A `ScriptHost` with no network, no storage and a fixed clock: every fetch fails, cookies and the cache
/// keep nothing, so one runtime can be reused across millions of inputs without state piling up.
final class FuzzScriptHost: ScriptHost {
    struct Offline: Error, CustomStringConvertible {
        var description: String { "no network while fuzzing" }
    }

    let sourceKey = "https://fuzz.example"
    let sourceName = "fuzz"
    let clock = ScriptClock.fixed(epochMilliseconds: 1_750_000_000_000, seed: 16)

    func fetch(_ request: ScriptRequest) throws -> ScriptResponse { throw Offline() }
    func message(_ text: String, kind: ScriptMessageKind) {}
    func sourceVariable() -> String? { nil }
    func setSourceVariable(_ value: String?) {}
    func cookie(for url: String) -> String { "" }
    func setCookie(_ url: String, _ cookie: String) {}
    func removeCookie(_ url: String) {}
    func cacheGet(_ key: String) -> String? { nil }
    func cachePut(_ key: String, _ value: String, seconds: Int?) {}
    func cacheRemove(_ key: String) {}
}
