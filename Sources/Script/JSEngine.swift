import BookRuleLocking
import CJavaScriptCore
import Foundation

/// A native helper's Swift body: arguments and result copied out of and into the engine.
typealias NativeBody = ([ScriptValue]) throws -> ScriptValue

/// One JavaScriptCore virtual machine (context group) with one global context.
///
/// Not thread-safe and not `Sendable`: a `ScriptWorker` confines it to its runtime's thread. No `JSValueRef`
/// leaves this class except as a protected object it holds itself; values cross as `ScriptValue`.
final class JSEngine {
    private let group: JSContextGroupRef
    /// The global context; callbacks find their engine through it.
    let context: JSGlobalContextRef
    private let functionClass: JSClassRef
    private let nodeClass: JSClassRef
    /// The bodies of native functions; a function object's private data is its index here, so the object
    /// owns no Swift closure and its finalizer (which may run on any thread) frees only a small box.
    private var natives: [NativeBody] = []
    /// Objects this engine keeps across evaluations (prototypes, the isolation wrapper), protected from the
    /// collector until the engine goes.
    private var kept: [String: JSObjectRef] = [:]
    private var watchdog: WatchdogState?

    /// Creates the VM. Every engine registers itself so C callbacks can find it from their context.
    init() {
        JavaScriptCoreOptions.apply()
        group = JSContextGroupCreate()
        context = JSGlobalContextCreateInGroup(group, nil)
        var functionDefinition = JSClassDefinition()
        functionDefinition.className = UnsafeRawPointer(("NativeFunction" as StaticString).utf8Start)
            .assumingMemoryBound(to: CChar.self)
        functionDefinition.callAsFunction = { context, function, this, count, arguments, exception in
            nativeTrampoline(context, function, count, arguments, exception)
        }
        functionDefinition.finalize = { object in
            // May run on any thread, also during JSGlobalContextRelease: only JSObjectGetPrivate is allowed.
            if let raw = JSObjectGetPrivate(object) { Unmanaged<NativeIndex>.fromOpaque(raw).release() }
        }
        functionClass = JSClassCreate(&functionDefinition)
        var nodeDefinition = JSClassDefinition()
        nodeDefinition.className = UnsafeRawPointer(("Element" as StaticString).utf8Start)
            .assumingMemoryBound(to: CChar.self)
        nodeDefinition.finalize = { object in
            if let raw = JSObjectGetPrivate(object) { Unmanaged<ScriptNode>.fromOpaque(raw).release() }
        }
        nodeClass = JSClassCreate(&nodeDefinition)
        EngineRegistry.register(self)
    }

    deinit {
        EngineRegistry.unregister(context)
        for object in kept.values { JSValueUnprotect(context, object) }
        JSGlobalContextRelease(context)
        JSContextGroupRelease(group)
        JSClassRelease(functionClass)
        JSClassRelease(nodeClass)
    }

    // MARK: - Evaluation

    /// Runs `script` in the global scope (the prelude, `jsLib`), under `limits` when given; with `keepAs`,
    /// the resulting object is kept under that name.
    @discardableResult
    func evaluateGlobal(_ script: String, sourceURL: String, limits: ScriptLimits?,
                        keepAs name: String? = nil) throws(JSError) -> ScriptValue {
        try withWatchdog(limits) { () throws(JSError) -> ScriptValue in
            var exception: JSValueRef?
            let value = JSStrings.with(script) { code in
                JSStrings.with(sourceURL) { url in JSEvaluateScript(context, code, nil, url, 1, &exception) }
            }
            if let fired = watchdog?.fired { throw fired }
            if let exception { throw error(from: exception) }
            guard let value else { throw JSError(kind: .thrown, message: "the engine returned nothing") }
            if let name { keep(name, value) }
            return try self.value(of: value)
        }
    }

    /// Calls the kept function `function` with the kept object `argument`, keeping the result as `name`.
    func callKept(_ function: String, with argument: String, keepAs name: String) throws(JSError) {
        guard let callee = kept[function], let value = kept[argument] else {
            throw JSError(kind: .thrown, message: "\(function) is not defined")
        }
        var exception: JSValueRef?
        var arguments: [JSValueRef?] = [value]
        let result = JSObjectCallAsFunction(context, callee, nil, 1, &arguments, &exception)
        if let exception { throw error(from: exception) }
        guard let result else { throw JSError(kind: .thrown, message: "\(function) returned nothing") }
        keep(name, result)
    }

    /// Keeps the property `property` of the kept object `object` under `name`.
    func keepProperty(_ property: String, of object: String, as name: String) {
        guard let holder = kept[object],
              let value = JSStrings.with(property, { JSObjectGetProperty(context, holder, $0, nil) }) else { return }
        keep(name, value)
    }

    /// Calls the kept function `name` with `this` = the global object, under `limits` when given.
    func call(_ name: String, _ arguments: [ScriptValue], limits: ScriptLimits? = nil) throws(JSError) -> ScriptValue {
        guard let function = kept[name] else { throw JSError(kind: .thrown, message: "\(name) is not defined") }
        return try withWatchdog(limits) { () throws(JSError) -> ScriptValue in
            let values = arguments.map { make($0) }
            for value in values { JSValueProtect(context, value) }
            defer { for value in values { JSValueUnprotect(context, value) } }
            var exception: JSValueRef?
            let result = values.withUnsafeBufferPointer { buffer in
                JSObjectCallAsFunction(context, function, JSContextGetGlobalObject(context), buffer.count,
                                       buffer.baseAddress, &exception)
            }
            if let fired = watchdog?.fired { throw fired }
            if let exception { throw error(from: exception) }
            guard let result else { throw JSError(kind: .thrown, message: "the engine returned nothing") }
            return try value(of: result)
        }
    }

    /// Evaluates `source`, which must give a function, and keeps that function (protected from the
    /// collector) until `release` is called with it. A syntax error is thrown as the engine reports it.
    func compileFunction(_ source: String, sourceURL: String) throws(JSError) -> JSObjectRef {
        var exception: JSValueRef?
        let value = JSStrings.with(source) { code in
            JSStrings.with(sourceURL) { url in JSEvaluateScript(context, code, nil, url, 1, &exception) }
        }
        if let exception { throw error(from: exception) }
        guard let value, JSValueIsObject(context, value), let function = JSValueToObject(context, value, nil),
              JSObjectIsFunction(context, function) else {
            throw JSError(kind: .thrown, message: "the snippet did not compile to a function")
        }
        JSValueProtect(context, function)
        return function
    }

    /// `text` as a string value kept (protected) until `release` is called with it.
    func keptString(_ text: String) -> JSValueRef? {
        let value = JSStrings.with(text) { JSValueMakeString(context, $0) }
        if let value { JSValueProtect(context, value) }
        return value
    }

    /// Lets the collector have a value `compileFunction` or `keptString` kept.
    func release(_ value: JSValueRef) {
        JSValueUnprotect(context, value)
    }

    /// The object kept as `name`.
    func kept(_ name: String) -> JSObjectRef? {
        kept[name]
    }

    /// Calls `function` with `this` = the global object and `arguments` as they are, under `limits` when
    /// given, and copies its result out. The arguments must stay reachable for the call: on the caller's
    /// stack (which the collector scans) or protected. `element`: see `WatchdogState.element`.
    func invoke(_ function: JSObjectRef, _ arguments: UnsafeMutableBufferPointer<JSValueRef?>,
                limits: ScriptLimits? = nil, element: UnsafePointer<Int32>? = nil) throws(JSError) -> ScriptValue {
        try withWatchdog(limits, element: element) { () throws(JSError) -> ScriptValue in
            var exception: JSValueRef?
            let result = JSObjectCallAsFunction(context, function, JSContextGetGlobalObject(context), arguments.count,
                                                UnsafePointer(arguments.baseAddress), &exception)
            if let fired = watchdog?.fired { throw fired }
            if let exception { throw error(from: exception) }
            guard let result else { throw JSError(kind: .thrown, message: "the engine returned nothing") }
            return try value(of: result)
        }
    }

    /// Calls `function` with one argument and gives its result as the engine made it (for a value about to
    /// be handed to a script: only reachable from the caller's stack).
    func transform(_ function: JSObjectRef, _ argument: JSValueRef?) throws(JSError) -> JSValueRef? {
        var exception: JSValueRef?
        var arguments: [JSValueRef?] = [argument]
        let result = JSObjectCallAsFunction(context, function, nil, 1, &arguments, &exception)
        if let exception { throw error(from: exception) }
        return result
    }

    /// Runs `body` with the execution time limit armed, unless one is already armed (a nested evaluation
    /// shares its caller's budget: JavaScriptCore keeps one limit per group).
    private func withWatchdog<T>(_ limits: ScriptLimits?, element: UnsafePointer<Int32>? = nil,
                                 _ body: () throws(JSError) -> T) throws(JSError) -> T {
        guard let limits, watchdog == nil else { return try body() }
        let state = WatchdogState(limits: limits, element: element)
        watchdog = state
        JSContextGroupSetExecutionTimeLimit(group, state.tick, watchdogCallback, Unmanaged.passUnretained(state).toOpaque())
        defer {
            JSContextGroupClearExecutionTimeLimit(group)
            watchdog = nil
        }
        return try body()
    }

    // MARK: - Arrays for one call over many values

    /// A new array of `count` undefined elements, its own (so writing them later reaches no setter a script put
    /// on `Array.prototype`), protected from the collector until `release` is called with it.
    func keptArray(count: Int) -> JSObjectRef? {
        // Elements made here are the array's own: writing them later never reaches a setter on Array.prototype.
        let array = withUnsafeTemporaryAllocation(of: JSValueRef?.self, capacity: max(1, count)) { values -> JSObjectRef? in
            values.initialize(repeating: JSValueMakeUndefined(context))
            return JSObjectMakeArray(context, count, UnsafePointer(values.baseAddress), nil)
        }
        guard let array else { return nil }
        JSValueProtect(context, array)
        return array
    }

    /// An array of `values` (the values must stay reachable until it holds them: on the caller's stack);
    /// only reachable from the native stack, as `make`'s values.
    func array(of values: UnsafeMutableBufferPointer<JSValueRef?>) -> JSObjectRef? {
        JSObjectMakeArray(context, values.count, UnsafePointer(values.baseAddress), nil)
    }

    /// A new `Int32Array` of `count` zeros, protected from the collector until `release` is called with it.
    func keptInt32Array(count: Int) -> JSObjectRef? {
        guard let array = JSObjectMakeTypedArray(context, kJSTypedArrayTypeInt32Array, count, nil) else { return nil }
        JSValueProtect(context, array)
        return array
    }

    /// Runs `body` with the elements of the `Int32Array` `array`; nil when it is none. The storage is only
    /// valid in `body`, which must not call into the engine.
    func withElements<R>(of array: JSObjectRef, _ body: (UnsafeMutableBufferPointer<Int32>) -> R) -> R? {
        let count = JSObjectGetTypedArrayLength(context, array, nil)
        guard let bytes = JSObjectGetTypedArrayBytesPtr(context, array, nil) else { return nil }
        return body(UnsafeMutableBufferPointer(start: bytes.assumingMemoryBound(to: Int32.self), count: count))
    }

    /// `units` as a string value kept (protected) until `release` is called with it.
    func keptString(units: UnsafeBufferPointer<UInt16>) -> JSValueRef? {
        let string = JSStringCreateWithCharacters(units.baseAddress, units.count)
        defer { if let string { JSStringRelease(string) } }
        guard let value = JSValueMakeString(context, string) else { return nil }
        JSValueProtect(context, value)
        return value
    }

    /// Runs `body` with the UTF-16 of `value`, which must be a string; nil when it is not.
    func withUTF16<R>(of value: JSValueRef, _ body: (UnsafeBufferPointer<UInt16>) -> R) -> R? {
        guard JSValueIsString(context, value), let string = JSValueToStringCopy(context, value, nil) else { return nil }
        defer { JSStringRelease(string) }
        let count = JSStringGetLength(string)
        guard count > 0, let units = JSStringGetCharactersPtr(string) else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
        return body(UnsafeBufferPointer(start: units, count: count))
    }

    /// `array[index]`, as the engine holds it (undefined when missing).
    func element(at index: Int, of array: JSObjectRef) -> JSValueRef? {
        JSObjectGetPropertyAtIndex(context, array, UInt32(index), nil)
    }

    /// Whether `value` is the boolean `true`.
    func isTrue(_ value: JSValueRef?) -> Bool {
        guard let value else { return false }
        return JSValueIsBoolean(context, value) && JSValueToBoolean(context, value)
    }

    /// An `Int32Array` of one element over `storage`, kept under `name` for the engine's lifetime (the
    /// array's memory is freed when the collector frees the array, after the engine goes): a script writes
    /// into it what Swift (the watchdog's callback) reads without a call into the engine.
    func keepSharedInt32(_ storage: UnsafeMutablePointer<Int32>, as name: String) throws(JSError) {
        var exception: JSValueRef?
        let array = JSObjectMakeTypedArrayWithBytesNoCopy(context, kJSTypedArrayTypeInt32Array, storage,
                                                          MemoryLayout<Int32>.size, { bytes, _ in
            bytes?.assumingMemoryBound(to: Int32.self).deallocate()
        }, nil, &exception)
        if let exception { throw error(from: exception) }
        guard let array else { throw JSError(kind: .thrown, message: "the engine made no typed array") }
        keep(name, array)
    }

    // MARK: - Definitions

    /// Makes an object whose members are native functions calling `functions`' bodies and keeps it as
    /// `name` (each function is attached as soon as it is made, so the collector never sees it unreachable).
    func defineNatives(_ name: String, _ functions: [(name: String, body: NativeBody)]) {
        guard let holder = JSObjectMake(context, nil, nil) else { return }
        keep(name, holder)
        for function in functions {
            natives.append(function.body)
            let box = NativeIndex(natives.count - 1)
            let object = JSObjectMake(context, functionClass, Unmanaged.passRetained(box).toOpaque())
            JSStrings.with(function.name) { key in
                JSObjectSetProperty(context, holder, key, object, JSPropertyAttributes(kJSPropertyAttributeNone), nil)
            }
        }
    }

    /// Keeps the function or object `value` under `name` for later `call`s (and as the node prototype).
    func keep(_ name: String, _ value: JSValueRef) {
        guard JSValueIsObject(context, value), let object = JSValueToObject(context, value, nil) else { return }
        JSValueProtect(context, object)
        if let old = kept.updateValue(object, forKey: name) { JSValueUnprotect(context, old) }
    }

    /// Runs native function number `index` (called from the trampoline, on the engine's thread).
    fileprivate func runNative(_ index: Int, _ arguments: UnsafeBufferPointer<JSValueRef?>) throws -> JSValueRef? {
        let native = natives[index]
        let nativeStart = ContinuousClock.now
        // A nested evaluation that ran out of time leaves the limit disarmed: arm it again at once, so the
        // outer script, which may catch the helper's error, is stopped as well.
        defer {
            watchdog?.nativeWallTime += ContinuousClock.now - nativeStart
            if let state = watchdog, state.fired != nil {
                JSContextGroupSetExecutionTimeLimit(group, 0.001, watchdogCallback, Unmanaged.passUnretained(state).toOpaque())
            }
        }
        var values: [ScriptValue] = []
        values.reserveCapacity(arguments.count)
        for argument in arguments {
            values.append(try argument.map { value -> ScriptValue in try self.value(of: value) } ?? .undefined)
        }
        do {
            return make(try native(values))
        } catch let error as JSError {
            throw error
        } catch {
            throw JSError(kind: .thrown, message: "\(error)")
        }
    }

    // MARK: - Memory

    /// Bytes the VM holds now: heap plus out-of-line payloads (string contents).
    static func heapBytes(_ context: JSContextRef) -> Int {
        guard let statistics = JSGetMemoryUsageStatistics(context) else { return 0 }
        var total = 0.0
        for key in ["heapSize", "extraMemorySize"] {
            let value = JSStrings.with(key) { JSObjectGetProperty(context, statistics, $0, nil) }
            let number = JSValueToNumber(context, value, nil)
            if number.isFinite { total += number }
        }
        return Int(total)
    }

    // MARK: - Conversion

    /// The error an exception value describes: message and line (1-based, in the evaluated text).
    func error(from exception: JSValueRef) -> JSError {
        let message = JSStrings.string(of: exception, in: context, exception: nil) ?? "exception"
        var error = JSError(kind: .thrown, message: message)
        if JSValueIsObject(context, exception), let object = JSValueToObject(context, exception, nil) {
            error.line = integer("line", of: object)
        }
        return error
    }

    private func integer(_ key: String, of object: JSObjectRef) -> Int? {
        let value = JSStrings.with(key) { JSObjectGetProperty(context, object, $0, nil) }
        guard let value, JSValueIsNumber(context, value) else { return nil }
        let number = JSValueToNumber(context, value, nil)
        return number.isFinite ? Int(number) : nil
    }

    /// How many values one copy into Swift may hold: the copy runs outside the script's time and heap limits,
    /// so `[x, x]` nested twenty times (or an array holding itself) must not be walked for ever.
    static let copyBudget = 1_000_000

    /// `value` copied into Swift. Functions become `undefined`; objects nested deeper than 64 levels are cut
    /// there; a value of more than `copyBudget` elements in all (cycles included) is an error.
    func value(of value: JSValueRef) throws(JSError) -> ScriptValue {
        var budget = Self.copyBudget
        return try self.value(of: value, depth: 0, budget: &budget)
    }

    private func value(of value: JSValueRef, depth: Int, budget: inout Int) throws(JSError) -> ScriptValue {
        budget -= 1
        if budget < 0 {
            throw JSError(kind: .thrown, message: "the value is too large to hand over: more than \(Self.copyBudget) elements in all (or an array or object that contains itself)")
        }
        switch JSValueGetType(context, value) {
        case kJSTypeUndefined: return .undefined
        case kJSTypeNull: return .null
        case kJSTypeBoolean: return .bool(JSValueToBoolean(context, value))
        case kJSTypeNumber: return .number(JSValueToNumber(context, value, nil))
        case kJSTypeString: return .string(JSStrings.string(of: value, in: context, exception: nil) ?? "")
        case kJSTypeObject: break
        default: return .string(JSStrings.string(of: value, in: context, exception: nil) ?? "")
        }
        guard depth < 64, let object = JSValueToObject(context, value, nil) else { return .undefined }
        if JSValueIsObjectOfClass(context, value, nodeClass), let raw = JSObjectGetPrivate(object) {
            return .node(Unmanaged<ScriptNode>.fromOpaque(raw).takeUnretainedValue())
        }
        if JSObjectIsFunction(context, object) { return .undefined }
        if JSValueIsDate(context, value) {
            return .string(JSStrings.string(of: value, in: context, exception: nil) ?? "")
        }
        var exception: JSValueRef?
        if JSValueIsArray(context, value) {
            let length = JSStrings.with("length") { JSObjectGetProperty(context, object, $0, &exception) }
            let count = Int(max(0, min(JSValueToNumber(context, length, nil), Double(max(0, budget)) + 1)))
            var items: [ScriptValue] = []
            items.reserveCapacity(count)
            for index in 0..<count {
                guard let item = JSObjectGetPropertyAtIndex(context, object, UInt32(index), &exception) else { break }
                if let exception { throw error(from: exception) }
                items.append(try self.value(of: item, depth: depth + 1, budget: &budget))
            }
            return .array(items)
        }
        let names = JSObjectCopyPropertyNames(context, object)
        defer { JSPropertyNameArrayRelease(names) }
        var members: [(key: String, value: ScriptValue)] = []
        for index in 0..<JSPropertyNameArrayGetCount(names) {
            guard let name = JSPropertyNameArrayGetNameAtIndex(names, index) else { continue }
            guard let member = JSObjectGetProperty(context, object, name, &exception) else { continue }
            if let exception { throw error(from: exception) }
            if JSValueIsObject(context, member), let function = JSValueToObject(context, member, nil),
               JSObjectIsFunction(context, function) { continue }
            members.append((JSStrings.string(name), try self.value(of: member, depth: depth + 1, budget: &budget)))
        }
        return .object(members)
    }

    /// `value` made in the engine. The result is only reachable from the native stack, so callers use it
    /// at once (hand it to JSC) or protect it.
    func make(_ value: ScriptValue) -> JSValueRef? {
        switch value {
        case .undefined: return JSValueMakeUndefined(context)
        case .null: return JSValueMakeNull(context)
        case .bool(let flag): return JSValueMakeBoolean(context, flag)
        case .number(let number): return JSValueMakeNumber(context, number)
        case .string(let text): return JSStrings.with(text) { JSValueMakeString(context, $0) }
        case .array(let items):
            // The element values live in a Swift array the collector does not scan: protect them until
            // the array object holds them.
            let values = items.map { make($0) }
            for value in values { JSValueProtect(context, value) }
            defer { for value in values { JSValueUnprotect(context, value) } }
            return values.withUnsafeBufferPointer { JSObjectMakeArray(context, $0.count, $0.baseAddress, nil) }
        case .object(let members):
            let object = JSObjectMake(context, nil, nil)
            for member in members {
                let value = make(member.value)
                JSStrings.with(member.key) { key in
                    JSObjectSetProperty(context, object, key, value, JSPropertyAttributes(kJSPropertyAttributeNone), nil)
                }
            }
            return object
        case .node(let node):
            let object = JSObjectMake(context, nodeClass, Unmanaged.passRetained(node).toOpaque())
            if let prototype = kept["nodePrototype"] { JSObjectSetPrototype(context, object, prototype) }
            return object
        }
    }
}

/// The private data of a native function object: which native it calls.
private final class NativeIndex {
    let index: Int
    init(_ index: Int) { self.index = index }
}

/// What went wrong in the engine, before the runtime names the field.
struct JSError: Error {
    enum Kind {
        /// The script threw (or a native helper failed).
        case thrown
        /// The CPU time limit ran out.
        case timeLimit
        /// The heap grew past the limit.
        case heapLimit
    }

    var kind: Kind
    var message: String
    var line: Int?
}

/// Engines by global context, for the C callbacks (which get only a context). Keys and values are the
/// pointers' bit patterns, so the table is plain `Sendable` data; an engine is only ever used on its own
/// thread, while it is registered.
enum EngineRegistry {
    private static let engines = Locked<[UInt: UInt]>([:])

    static func register(_ engine: JSEngine) {
        let key = UInt(bitPattern: UnsafeMutableRawPointer(engine.context))
        let value = UInt(bitPattern: Unmanaged.passUnretained(engine).toOpaque())
        engines.withLock { $0[key] = value }
    }

    static func unregister(_ context: JSGlobalContextRef) {
        _ = engines.withLock { $0.removeValue(forKey: UInt(bitPattern: UnsafeMutableRawPointer(context))) }
    }

    static func engine(for context: JSContextRef) -> JSEngine? {
        guard let global = JSContextGetGlobalContext(context) else { return nil }
        let key = UInt(bitPattern: UnsafeMutableRawPointer(global))
        guard let value = engines.withLock({ $0[key] }), let raw = UnsafeMutableRawPointer(bitPattern: value) else {
            return nil
        }
        return Unmanaged<JSEngine>.fromOpaque(raw).takeUnretainedValue()
    }
}

private func nativeTrampoline(_ context: JSContextRef?, _ function: JSObjectRef?, _ count: Int,
                              _ arguments: UnsafePointer<JSValueRef?>?,
                              _ exception: UnsafeMutablePointer<JSValueRef?>?) -> JSValueRef? {
    guard let context, let function, let raw = JSObjectGetPrivate(function),
          let engine = EngineRegistry.engine(for: context) else { return nil }
    let index = Unmanaged<NativeIndex>.fromOpaque(raw).takeUnretainedValue().index
    do {
        return try engine.runNative(index, UnsafeBufferPointer(start: arguments, count: count))
    } catch {
        let message = (error as? JSError)?.message ?? "\(error)"
        let text = JSStrings.with(message) { JSValueMakeString(context, $0) }
        var errorArguments: [JSValueRef?] = [text]
        exception?.pointee = JSObjectMakeError(context, 1, &errorArguments, nil)
        return nil
    }
}
