// The one module apps import: it re-exports every library layer, so `import BookRule` gives the whole public
// API while the layers themselves stay separate targets whose dependencies the compiler checks.
@_exported import BookRuleBrowser
@_exported import BookRuleCheck
@_exported import BookRuleCrypto
@_exported import BookRuleDocument
@_exported import BookRuleEngine
@_exported import BookRuleFont
@_exported import BookRuleHTTP
@_exported import BookRuleJSON
@_exported import BookRuleLibrary
@_exported import BookRuleRegex
@_exported import BookRuleRules
@_exported import BookRuleScript
