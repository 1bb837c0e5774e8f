import BookRuleRegex
import Foundation

/// Which `java.*` helpers exist here, which are refused or unavailable and why: the static half of the
/// sandbox, for `ScriptRuntime.unsupportedHelpers` (the prelude enforces the same at run time).
enum ScriptHelpers {
    /// Helpers the `java` object implements (checked against the prelude by a test).
    static let implemented: Set<String> = [
        "getString", "getStringList", "getElements", "getElement", "setContent", "setBaseUrl", "setRedirectUrl",
        "baseUrl", "put", "get", "post", "head", "ajax", "ajaxAll", "connect", "log", "logType", "toast", "longToast",
        "timeFormat", "timeFormatUTC", "base64Decode", "base64DecodeToByteArray", "base64Encode",
        "base64EncodeToByteArray", "md5Encode", "md5Encode16", "digestHex", "digestBase64Str", "HMacHex",
        "HMacBase64", "encodeURI", "hexDecodeToString", "hexDecodeToByteArray", "hexEncodeToString", "strToBytes",
        "bytesToStr", "createSymmetricCrypto", "aesBase64DecodeToString", "aesDecodeToString",
        "aesDecodeToByteArray", "aesBase64DecodeToByteArray", "aesEncodeToBase64String",
        "aesEncodeToBase64ByteArray", "desDecodeToString", "desBase64DecodeToString", "desEncodeToBase64String",
        "tripleDESDecodeStr", "tripleDESDecodeArgsBase64Str", "tripleDESEncodeBase64Str", "t2s", "s2t",
        "htmlFormat", "randomUUID", "androidId", "getWebViewUA", "toNumChapter", "toURL", "getCookie",
        "webView", "webViewGetSource", "webViewGetOverrideUrl", "startBrowser", "startBrowserAwait", "queryTTF",
        "queryBase64TTF", "replaceFont", "decodeFont",
    ]

    /// Helpers that show a browser window to a person (the headless `webView` ones and the verification pages
    /// `startBrowser`/`startBrowserAwait`, loaded headless until their challenge passed, are implemented).
    static let needBrowser: Set<String> = [
        "startBrowserDp", "showBrowser", "showReadingBrowser",
    ]

    /// Helpers that ask the reader.
    static let needPerson: Set<String> = ["getVerificationCode"]

    /// File helpers, refused: a source is untrusted code.
    static let files: Set<String> = [
        "importScript", "cacheFile", "downloadFile", "readFile", "readTxtFile", "deleteFile", "getFile", "writeFile",
        "unzipFile", "unArchiveFile", "getTxtInFolder", "getZipStringContent", "getZipByteArrayContent",
        "getRarStringContent", "getRarByteArrayContent", "get7zStringContent", "get7zByteArrayContent",
    ]

    /// Java packages reached through the `java` name, refused.
    static let javaPackages: Set<String> = ["io", "lang", "net", "util", "nio", "security", "text", "math", "getClass"]

    /// Legado helpers not implemented, with why.
    static let missing: [String: String] = [
        "getStrResponse": "belongs to Legado's URL builder, which bookrule replaces",
        "initUrl": "belongs to Legado's URL builder, which bookrule replaces",
        "ruleUrl": "belongs to Legado's URL builder, which bookrule replaces",
        "url": "belongs to Legado's URL builder, which bookrule replaces",
        "key": "belongs to Legado's URL builder, which bookrule replaces (use the global key)",
        "headerMap": "belongs to Legado's URL builder, which bookrule replaces",
        "redirectUrl": "belongs to Legado's URL builder, which bookrule replaces",
        "refreshTocUrl": "exists only in Legado's TOC pre-update step",
        "reGetBook": "exists only in Legado's TOC pre-update step",
        "refreshExplore": "reloads Legado's explore screen",
        "createAsymmetricCrypto": "RSA is not implemented",
        "createSign": "signatures are not implemented",
    ]

    /// A helper `java.NAME` (group 2: NAME) or a way to reach Java classes, not as part of a longer name.
    private static let helperReference = try? RegexPattern(
        #"(?<![\w$.])(java\s*\.\s*([A-Za-z_$][\w$]*)|Packages|JavaImporter|importClass|importPackage|javax\s*\.|org\s*\.\s*(?!jsoup\b)[A-Za-z_$]+)"#)

    /// The problems `code` names, each once, in order.
    static func problems(in code: String) -> [ScriptHelperProblem] {
        var found: [ScriptHelperProblem] = []
        var seen: Set<String> = []
        func add(_ name: String, _ kind: ScriptHelperProblem.Kind, _ reason: String) {
            if seen.insert(name).inserted { found.append(ScriptHelperProblem(name: name, kind: kind, reason: reason)) }
        }
        // A script of any size is scanned within the regex limits; past them, what was found so far is kept.
        let matches = (try? helperReference?.allMatches(in: code)) ?? []
        for match in matches {
            let whole = match[1] ?? ""
            guard let helper = match[2] else {
                let name = whole.filter { !$0.isWhitespace }.replacingOccurrences(of: ".", with: "")
                add(name, .refused, "\(name) is refused: Java classes are not available (sources run JavaScript only)")
                continue
            }
            let name = "java." + helper
            if implemented.contains(helper) { continue }
            if needBrowser.contains(helper) {
                add(name, .needsBrowser, "\(name) needs a browser window a person looks at, which bookrule does not show")
            } else if needPerson.contains(helper) {
                add(name, .needsPerson, "\(name) needs a person to answer, and bookrule runs unattended")
            } else if files.contains(helper) {
                add(name, .refused, "\(name) is refused: sources may not read or write files")
            } else if javaPackages.contains(helper) {
                add(name, .refused, "\(name) is refused: Java classes are not available (sources run JavaScript only)")
            } else if let reason = missing[helper], !reason.isEmpty {
                add(name, .notImplemented, "\(name) is not implemented: \(reason)")
            } else {
                add(name, .notImplemented, "\(name) is not a Legado helper bookrule knows (a fork's?)")
            }
        }
        return found
    }
}
