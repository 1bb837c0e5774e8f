import BookRuleFuzzEntryPoints
import FuzzDriver

@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { fuzz(.rss, data, size) }

runFuzzer(.rss, testOneInput)
