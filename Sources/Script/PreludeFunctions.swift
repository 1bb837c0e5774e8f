import CJavaScriptCore

/// The prelude's functions and objects an evaluation hands to JavaScriptCore directly, looked up once: the
/// statement runner, setting and restoring the bindings as globals, the clean-up of globals a snippet left,
/// the preparation of `result`, `book` and `chapter`, and the helper objects every snippet gets.
///
/// The objects are kept (protected) by the engine for its lifetime.
struct PreludeFunctions {
    /// The helper objects' names, in the order of the compiled snippets' parameters after the bindings.
    static let helperNames = ["java", "source", "cookie", "cache"]

    let statementRunner: JSObjectRef
    let bind: JSObjectRef
    let unbind: JSObjectRef
    let cleanup: JSObjectRef
    let prepareResult: JSObjectRef
    let prepareBook: JSObjectRef
    let prepareChapter: JSObjectRef
    /// `java`, `source`, `cookie`, `cache`.
    let helpers: [JSObjectRef]

    /// Looks the functions up among what `engine` keeps (the prelude's exports).
    init(engine: JSEngine, statementRunner: JSObjectRef) throws(JSError) {
        func kept(_ name: String) throws(JSError) -> JSObjectRef {
            guard let object = engine.kept(name) else { throw JSError(kind: .thrown, message: "the prelude has no \(name)") }
            return object
        }
        self.statementRunner = statementRunner
        bind = try kept("bind")
        unbind = try kept("unbind")
        cleanup = try kept("cleanup")
        prepareResult = try kept("prepareResult")
        prepareBook = try kept("prepareBook")
        prepareChapter = try kept("prepareChapter")
        var helpers: [JSObjectRef] = []
        for name in Self.helperNames { helpers.append(try kept(name)) }
        self.helpers = helpers
    }
}
