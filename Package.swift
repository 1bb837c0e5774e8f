// swift-tools-version:6.0
import PackageDescription

/// A system-library target over a Debian `-dev` package found through pkg-config.
func systemLibrary(_ name: String, pkgConfig: String, apt: String) -> Target {
    .systemLibrary(name: name, pkgConfig: pkgConfig, providers: [.apt([apt])])
}

let package = Package(
    name: "bookrule",
    products: [
        .library(name: "BookRule", targets: ["BookRule"]),
        .executable(name: "bookrule", targets: ["bookrule"]),
        // What the libFuzzer targets in Fuzz/ (a package of their own) call per input; public because another
        // package cannot see `package` symbols (docs/reliability.md).
        .library(name: "BookRuleFuzzEntryPoints", targets: ["BookRuleFuzzEntryPoints"]),
    ],
    targets: [
        systemLibrary("CLibXML2", pkgConfig: "libxml-2.0", apt: "libxml2-dev"),
        systemLibrary("CPCRE2", pkgConfig: "libpcre2-8", apt: "libpcre2-dev"),
        systemLibrary("CCurl", pkgConfig: "libcurl", apt: "libcurl4-openssl-dev"),
        systemLibrary("CPSL", pkgConfig: "libpsl", apt: "libpsl-dev"),
        systemLibrary("CLibZip", pkgConfig: "libzip", apt: "libzip-dev"),
        systemLibrary("CSQLite", pkgConfig: "sqlite3", apt: "libsqlite3-dev"),
        systemLibrary("CJavaScriptCore", pkgConfig: "javascriptcoregtk-4.1", apt: "libjavascriptcoregtk-4.1-dev"),
        systemLibrary("CCrypto", pkgConfig: "libcrypto", apt: "libssl-dev"),
        systemLibrary("COpenCC", pkgConfig: "opencc", apt: "libopencc-dev"),
        systemLibrary("CUchardet", pkgConfig: "uchardet", apt: "libuchardet-dev"),
        systemLibrary("CMicroHTTPD", pkgConfig: "libmicrohttpd", apt: "libmicrohttpd-dev"),
        systemLibrary("CFreeType", pkgConfig: "freetype2", apt: "libfreetype-dev"),
        // serve answers every cover and picture as a PNG, as Legado does (docs/architecture.md).
        systemLibrary("CPNG", pkgConfig: "libpng", apt: "libpng-dev"),
        systemLibrary("CJPEG", pkgConfig: "libjpeg", apt: "libjpeg-dev"),
        // The C library's `wcwidth` (terminal display widths), which Swift's Glibc module leaves out.
        .systemLibrary(name: "CWideCharacter", path: "Sources/CWideCharacter"),
        // glibc's `posix_spawn_file_actions_addclosefrom_np`, which Swift's Glibc module leaves out.
        .systemLibrary(name: "CSpawn", path: "Sources/CSpawn"),
        // The web-font recogniser's inner loops as static inline C (no library): debug builds run them 10x faster.
        .systemLibrary(name: "CGlyphKernels", path: "Sources/CGlyphKernels"),

        // A value behind a pthread mutex (ThreadSanitizer sees it; Synchronization's Mutex it does not), for
        // every layer below.
        .target(name: "BookRuleLocking", path: "Sources/Locking"),
        // The library's layers, along the data flow (docs/architecture.md): each depends only on those before it.
        .target(name: "BookRuleJSON", path: "Sources/JSON"),
        // Document evaluates br:match, the PCRE2 extension function translated CSS regular expressions call.
        .target(name: "BookRuleRegex", dependencies: ["CPCRE2"], path: "Sources/Regex"),
        .target(
            name: "BookRuleDocument", dependencies: ["BookRuleLocking", "BookRuleJSON", "BookRuleRegex", "CLibXML2", "CUchardet", "COpenCC"],
            path: "Sources/Document"
        ),
        // libcrypto's digests, ciphers, HMAC and sealed boxes, under every layer that hashes or encrypts (scripts,
        // web fonts' cache keys, downloads' checksums, the login vault, WebSocket handshakes): docs/architecture.md.
        .target(name: "BookRuleCrypto", dependencies: ["CCrypto"], path: "Sources/Crypto"),
        // Web fonts that draw other characters than the page holds, decoded by recognising their glyphs against
        // installed CJK fonts (docs/fonts.md): bytes in, a code point map out, so it sits beside Regex.
        .target(
            name: "BookRuleFont", dependencies: ["BookRuleLocking", "BookRuleJSON", "BookRuleCrypto", "CFreeType", "CGlyphKernels"], path: "Sources/Font"
        ),
        .target(
            name: "BookRuleRules",
            dependencies: ["BookRuleLocking", "BookRuleJSON", "BookRuleDocument", "BookRuleRegex"],
            path: "Sources/Rules"
        ),
        // JavaScript in rules, on JavaScriptCore: sits beside HTTP (it reaches the network only through the
        // ScriptHost the engine hands it).
        .target(
            name: "BookRuleScript",
            dependencies: ["BookRuleLocking",
                "BookRuleJSON", "BookRuleDocument", "BookRuleRegex", "BookRuleRules", "BookRuleFont", "BookRuleCrypto", "CJavaScriptCore",
            ],
            path: "Sources/Script",
            // The helpers' JavaScript, compiled into the binary as bytes (ScriptPrelude).
            resources: [.embedInCode("Prelude/prelude.js"), .embedInCode("Prelude/allocation-guards.js")]
        ),
        .target(
            name: "BookRuleHTTP", dependencies: ["BookRuleLocking", "BookRuleJSON", "BookRuleDocument", "CCurl", "CPSL"], path: "Sources/HTTP"
        ),
        // webView pages: headless Chromium over the DevTools pipe, every request answered through an HTTPTransport.
        .target(
            name: "BookRuleBrowser",
            dependencies: ["BookRuleLocking", "BookRuleJSON", "BookRuleDocument", "BookRuleRegex", "BookRuleHTTP", "CSpawn"],
            path: "Sources/Browser"
        ),
        .target(
            name: "BookRuleEngine",
            dependencies: ["BookRuleLocking",
                "BookRuleJSON", "BookRuleDocument", "BookRuleRegex", "BookRuleRules", "BookRuleHTTP", "BookRuleScript",
                "BookRuleBrowser", "BookRuleFont", "BookRuleCrypto",
            ],
            path: "Sources/Engine"
        ),
        .target(
            name: "BookRuleLibrary",
            dependencies: ["BookRuleLocking",
                "BookRuleJSON", "BookRuleDocument", "BookRuleRegex", "BookRuleHTTP", "BookRuleCrypto", "BookRuleEngine", "CSQLite", "CLibZip",
                "CCrypto",
            ],
            path: "Sources/Library"
        ),
        .target(
            name: "BookRuleCheck",
            // Not Library: a check needs no SQLite or libzip (docs/architecture.md).
            dependencies: ["BookRuleLocking",
                "BookRuleJSON", "BookRuleDocument", "BookRuleRegex", "BookRuleRules", "BookRuleHTTP", "BookRuleScript",
                "BookRuleEngine",
            ],
            path: "Sources/Check"
        ),
        .target(
            name: "BookRule",
            dependencies: [
                "BookRuleJSON", "BookRuleDocument", "BookRuleRegex", "BookRuleRules", "BookRuleScript", "BookRuleHTTP",
                "BookRuleBrowser", "BookRuleEngine", "BookRuleLibrary", "BookRuleCheck", "BookRuleFont", "BookRuleCrypto",
            ]
        ),
        // The HTTP server the studio and `bookrule serve` run on (libmicrohttpd), with the gate they share: Host,
        // Origin and token checks (docs/architecture.md).
        .target(name: "BookRuleHTTPServer", dependencies: ["BookRuleLocking", "BookRuleJSON", "BookRuleCrypto", "CMicroHTTPD"], path: "Sources/HTTPServer"),
        // `bookrule studio`: a loopback web page over Check's trials and the engine's steps. Not in the umbrella:
        // an app that scrapes has no use for an HTTP server (docs/architecture.md).
        .target(
            name: "BookRuleStudio",
            dependencies: ["BookRuleLocking",
                "BookRuleJSON", "BookRuleDocument", "BookRuleRules", "BookRuleHTTP", "BookRuleEngine", "BookRuleCheck",
                "BookRuleHTTPServer",
            ],
            path: "Sources/Studio",
            // The page's files, compiled into the binary as bytes (StudioAssets): an installed bookrule has no
            // resource folder beside it.
            resources: [
                .embedInCode("Assets/index.html"), .embedInCode("Assets/studio.js"), .embedInCode("Assets/studio.css"),
                .embedInCode("Assets/frame.css"),
            ]
        ),
        // `bookrule serve`: the reading server Legado's web client runs against (docs/serve.md): HTTP and WebSocket
        // over the library, every site request through the one polite fetcher. Not in the umbrella, as the studio.
        .target(
            name: "BookRuleServe",
            dependencies: ["BookRuleLocking",
                "BookRuleJSON", "BookRuleDocument", "BookRuleRules", "BookRuleEngine", "BookRuleLibrary",
                "BookRuleHTTPServer", "CPNG", "CJPEG",
            ],
            path: "Sources/Serve"
        ),
        .executableTarget(
            name: "bookrule", dependencies: ["BookRule", "BookRuleStudio", "BookRuleServe", "BookRuleLocking", "CWideCharacter"]
        ),
        .target(
            name: "BookRuleFuzzEntryPoints",
            dependencies: ["BookRule", "BookRuleDocument", "BookRuleRules", "BookRuleStudio", "BookRuleHTTPServer"],
            path: "Sources/FuzzEntryPoints"
        ),
        // TestSupport for the serve benchmarks' loopback site (MirrorSite), raw HTTP and WebSocket clients and scratch
        // directory: the same helpers the serve tests drive it with, so TestSupport builds with the package.
        .executableTarget(
            name: "bookrule-bench", dependencies: ["BookRule", "BookRuleStudio", "BookRuleServe", "BookRuleHTTPServer", "BookRuleLocking", "TestSupport"],
            path: "Benchmarks/Swift"
        ),
        // Loopback servers, the generated example site and other helpers the test targets share. A plain target, so
        // it sees only `package` and public symbols (no `@testable`): `swift build -c release` builds it too.
        .target(
            name: "TestSupport",
            dependencies: [
                "BookRuleLocking", "BookRuleDocument", "BookRuleRules", "BookRuleHTTP", "BookRuleEngine", "BookRuleLibrary",
                "BookRuleCheck", "BookRuleFont",
            ],
            path: "Tests/TestSupport"
        ),
        // Each test target depends on its own layer and the layers its tests use, never the umbrella (`make test`
        // checks every import is a declared dependency); only the CLI's tests import BookRule, as an app does.
        .testTarget(name: "BookRuleLockingTests", dependencies: ["BookRuleLocking"]),
        .testTarget(name: "BookRuleJSONTests", dependencies: ["BookRuleJSON", "TestSupport"]),
        .testTarget(
            name: "BookRuleDocumentTests",
            dependencies: [
                "BookRuleJSON", "BookRuleDocument", "BookRuleRules", "BookRuleHTTP", "BookRuleEngine", "CLibXML2", "TestSupport",
            ]
        ),
        .testTarget(name: "BookRuleRegexTests", dependencies: ["BookRuleRegex", "TestSupport"]),
        .testTarget(name: "BookRuleFontTests", dependencies: ["BookRuleFont", "TestSupport"]),
        .testTarget(
            name: "BookRuleRulesTests",
            dependencies: [
                "BookRuleLocking", "BookRuleJSON", "BookRuleDocument", "BookRuleRules", "BookRuleEngine",
                "BookRuleLibrary", "TestSupport",
            ]
        ),
        .testTarget(
            name: "BookRuleCryptoTests", dependencies: ["BookRuleCrypto"]
        ),
        .testTarget(
            name: "BookRuleScriptTests",
            dependencies: [
                "BookRuleLocking", "BookRuleJSON", "BookRuleDocument", "BookRuleRules", "BookRuleScript", "TestSupport",
            ],
            // Cases and Rhino's answers, written by scripts/rhino-differential.py and read by path.
            exclude: ["RhinoDifferential.json"]
        ),
        .testTarget(
            name: "BookRuleHTTPTests",
            dependencies: [
                "BookRuleLocking", "BookRuleJSON", "BookRuleDocument", "BookRuleHTTP", "BookRuleEngine", "BookRuleLibrary", "TestSupport",
            ]
        ),
        .testTarget(
            name: "BookRuleEngineTests",
            dependencies: [
                "BookRuleJSON", "BookRuleDocument", "BookRuleRules", "BookRuleScript", "BookRuleHTTP", "BookRuleEngine", "BookRuleLibrary",
                "BookRuleCheck", "TestSupport",
            ]
        ),
        .testTarget(
            name: "BookRuleLibraryTests",
            dependencies: [
                "BookRuleLocking", "BookRuleJSON", "BookRuleDocument", "BookRuleScript", "BookRuleHTTP", "BookRuleEngine",
                "BookRuleLibrary", "CLibZip", "TestSupport",
            ]
        ),
        .testTarget(
            name: "BookRuleBrowserTests",
            dependencies: [
                "BookRuleLocking", "BookRuleHTTP", "BookRuleBrowser", "BookRuleEngine", "BookRuleLibrary", "BookRuleCheck",
                "TestSupport",
            ]
        ),
        .testTarget(
            name: "BookRuleCheckTests",
            dependencies: [
                "BookRuleLocking", "BookRuleJSON", "BookRuleDocument", "BookRuleRules", "BookRuleHTTP", "BookRuleEngine",
                "BookRuleLibrary", "BookRuleCheck", "TestSupport",
            ]
        ),
        .testTarget(name: "BookRuleHTTPServerTests", dependencies: ["BookRuleLocking", "BookRuleHTTP", "BookRuleHTTPServer", "TestSupport"]),
        .testTarget(
            name: "BookRuleStudioTests",
            dependencies: ["BookRuleLocking", "BookRuleDocument", "BookRuleHTTP", "BookRuleHTTPServer", "BookRuleStudio", "TestSupport"]
        ),
        .testTarget(
            name: "BookRuleServeTests",
            dependencies: [
                "BookRuleLocking", "BookRuleJSON", "BookRuleHTTP", "BookRuleEngine", "BookRuleLibrary", "BookRuleHTTPServer",
                "BookRuleServe", "TestSupport",
            ]
        ),
        .testTarget(
            name: "bookruleTests",
            dependencies: [
                "BookRule", "BookRuleLocking", "BookRuleJSON", "BookRuleDocument", "BookRuleHTTP", "BookRuleEngine", "BookRuleLibrary",
                "BookRuleCheck", "bookrule", "TestSupport",
            ]
        ),
        // Replays Fuzz/Corpus (the seeds) and FuzzRegressions (minimized inputs that once failed) through the
        // fuzz entry points, read by path.
        .testTarget(
            name: "BookRuleFuzzTests", dependencies: ["BookRuleFuzzEntryPoints", "TestSupport"], exclude: ["FuzzRegressions"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
