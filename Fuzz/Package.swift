// swift-tools-version:6.0
import PackageDescription

/// The libFuzzer targets, one executable per parser of untrusted input (docs/reliability.md). A package of its
/// own so the ordinary build and test never see `-sanitize=fuzzer`; build it with
///     swift build -c debug -Xswiftc -sanitize=fuzzer,address --package-path Fuzz
/// (or `make fuzz TARGET=… SECONDS=…`). Each target calls `FuzzTarget.run`, the function the replay tests call.
let names = ["json", "source", "rule", "css", "jsonpath", "url", "html", "har", "headers", "script", "fixture", "studio", "font", "webdav", "rss"]

let package = Package(
    name: "bookrule-fuzz",
    dependencies: [.package(name: "bookrule", path: "..")],
    targets: [
        .target(
            name: "FuzzDriver",
            dependencies: [.product(name: "BookRuleFuzzEntryPoints", package: "bookrule")]
        ),
    ] + names.map { name in
        .executableTarget(
            name: "fuzz-\(name)",
            dependencies: ["FuzzDriver", .product(name: "BookRuleFuzzEntryPoints", package: "bookrule")]
        )
    },
    swiftLanguageModes: [.v6]
)
