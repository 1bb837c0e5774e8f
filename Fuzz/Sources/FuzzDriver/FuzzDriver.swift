import BookRuleFuzzEntryPoints
import Glibc

/// libFuzzer's own driver, taking the per-input callback (compiler-rt's `FuzzerDriver.cpp`).
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// Starts libFuzzer for one target.
///
/// SwiftPM links an executable's top-level code as `<module>_main` and points `main` at it, so libFuzzer's own
/// `main` (in the archive `-sanitize=fuzzer` links) is never pulled in: the target's `main.swift` calls this,
/// which prepares `target`'s shared state (`FuzzTarget.prepare`) and hands the command line to libFuzzer's driver
/// with the target's `LLVMFuzzerTestOneInput`.
public func runFuzzer(_ target: FuzzTarget, _ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
    target.prepare()
    var argc = CommandLine.argc
    var argv = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, testOneInput))
}

/// Runs `target` on one input; a broken invariant aborts, which libFuzzer reports as a crash with the input.
public func fuzz(_ target: FuzzTarget, _ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    if let violation = target.run(bytes) {
        fatalError("\(target.rawValue): \(violation.debugDescription)")
    }
    return 0
}
