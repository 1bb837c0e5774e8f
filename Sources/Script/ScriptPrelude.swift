/// The JavaScript half of the helpers: `java`, `source`, `cookie`, `cache`, `org.jsoup.Jsoup`, the refusals
/// and the clock, built on the native functions `N` (see `ScriptWorker.nativeFunctions`).
///
/// Evaluated once per runtime, as a function called with the natives object, so `N` and every helper
/// stay private to its closure: scripts see only the globals it defines. It runs in sloppy mode because
/// sources do (undeclared assignments, `with`).
///
/// The code is `Prelude/prelude.js`, embedded in the binary at build time (SwiftPM's `.embedInCode`), so an
/// installed `bookrule` or an app that links the library needs no resource bundle beside it
/// (docs/architecture.md).
enum ScriptPrelude {
    static let source = String(decoding: PackageResources.prelude_js, as: UTF8.self)
}
