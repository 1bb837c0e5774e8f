import BookRuleFuzzEntryPoints
import FuzzDriver

@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { fuzz(.webdav, data, size) }

runFuzzer(.webdav, testOneInput)
