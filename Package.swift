// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "bookrule",
    products: [
        .library(name: "BookRule", targets: ["BookRule"]),
        .executable(name: "bookrule", targets: ["bookrule"]),
    ],
    targets: [
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        .systemLibrary(
            name: "CPCRE2",
            pkgConfig: "libpcre2-8",
            providers: [.apt(["libpcre2-dev"])]
        ),
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(
            name: "CLibZip",
            pkgConfig: "libzip",
            providers: [.apt(["libzip-dev"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(
            name: "BookRule",
            dependencies: ["CLibXML2", "CPCRE2", "CCurl", "CLibZip", "CSQLite"]
        ),
        .executableTarget(
            name: "bookrule",
            dependencies: ["BookRule"]
        ),
        .executableTarget(
            name: "bookrule-bench",
            dependencies: ["BookRule"],
            path: "Benchmarks/Swift"
        ),
        .testTarget(
            name: "BookRuleTests",
            dependencies: ["BookRule"]
        ),
        .testTarget(
            name: "bookruleTests",
            dependencies: ["bookrule"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
